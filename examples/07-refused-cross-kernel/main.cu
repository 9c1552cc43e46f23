// Ring-buffer consumer whose tensor map is retargeted on the device.
//
// A producer stage (not shown) fills one of kSlots equally shaped uint32
// matrices and publishes the index of the newest one in device memory. Every
// iteration, retarget_to_latest points the global-memory tensor map at that
// slot with tensormap.replace and a release fence, then consume acquires the
// map, TMA-loads its tiles and writes out = in * 5 + 1. No host round trip is
// needed, so the iteration can live in a CUDA graph.
//
// The descriptor is written on the device and read by the next kernel through
// the same pointer, so it must stay in global memory: tma-modernize has to
// leave this program byte-identical. (Passing the host copy by value would make
// consume read slot 0 instead of the newest slot: the checksum would change.)
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/bench.h"

namespace ring {

constexpr int kSlots = 4;
constexpr int kTileRows = 32, kTileCols = 64;
constexpr int kThreads = 256;
constexpr uint32_t kTileBytes = kTileRows * kTileCols * sizeof(uint32_t);

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One thread: point `map` at ring slot *latest.
__global__ void retarget_to_latest(CUtensorMap* map, const uint32_t* const* slots,
                                   const int* latest) {
  const uint32_t* base = slots[*latest];
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
               :: "l"(map), "l"(base) : "memory");  // a generic address of global memory
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}

__global__ void __launch_bounds__(kThreads)
consume(const CUtensorMap* map, uint32_t* out, int rows, int cols) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");

  __shared__ alignas(128) uint32_t tile[kTileRows][kTileCols];
  __shared__ uint64_t tile_full;
  const int x0 = blockIdx.x * kTileCols, y0 = blockIdx.y * kTileRows;
  const uint32_t bar = smem_addr(&tile_full);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar), "r"(kTileBytes) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem_addr(tile)), "l"(map), "r"(x0), "r"(y0), "r"(bar) : "memory");
  }
  for (uint32_t done = 0; !done;)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;"
                 " selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar) : "memory");
  for (int i = threadIdx.x; i < kTileRows * kTileCols; i += kThreads) {
    const int r = i / kTileCols, c = i % kTileCols;
    if (y0 + r < rows && x0 + c < cols) out[size_t(y0 + r) * cols + x0 + c] = tile[r][c] * 5u + 1u;
  }
}

// Same grid and block as consume, no work: the launch-overhead floor.
__global__ void empty_kernel() {}

CUtensorMap make_slot_map(const uint32_t* base, int rows, int cols) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t pitch[1] = {cols * sizeof(uint32_t)};
  const cuuint32_t box[2] = {kTileCols, kTileRows}, elem_strides[2] = {1, 1};
  CHECK_CU(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, (void*)base, dims,
                                  pitch, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// `slots` and `latest` are device memory; the map starts out encoded for slot 0.
void run(uint32_t* const* slots, const int* latest, const uint32_t* slot0, uint32_t* d_out,
         int rows, int cols, cudaStream_t stream, const bench::Options& opt) {
  CUtensorMap slot_map = make_slot_map(slot0, rows, cols);
  CUtensorMap* d_slot_map = nullptr;
  CHECK_CUDA(cudaMalloc(&d_slot_map, sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMemcpy(d_slot_map, &slot_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));

  const dim3 grid((cols + kTileCols - 1) / kTileCols, (rows + kTileRows - 1) / kTileRows);
  bench::Timer timer;
  if (opt.graph) CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0, n = bench::iterations(opt); i < n; ++i) {
    if (opt.time && i == bench::kWarmup) timer.start(stream);
    retarget_to_latest<<<1, 1, 0, stream>>>(d_slot_map, slots, latest);
    consume<<<grid, kThreads, 0, stream>>>(d_slot_map, d_out, rows, cols);
    CHECK_CUDA(cudaGetLastError());
  }
  if (opt.time) {
    const float launch_us = timer.stop_us(stream, bench::kTimed);
    const float floor_us =
        bench::time_each(stream, [&] { empty_kernel<<<grid, kThreads, 0, stream>>>(); });
    std::printf("time: launch_us=%.3f floor_us=%.3f\n", launch_us, floor_us);
  }
  if (opt.graph) bench::end_capture_and_replay(stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(d_slot_map));
}

}  // namespace ring

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  constexpr int kRows = 500, kCols = 512, kLatest = 2;  // last row of tiles is partial
  const size_t per_slot = size_t(kRows) * kCols;

  std::vector<uint32_t> in(ring::kSlots * per_slot), out(per_slot);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(i * 2654435761u) >> 4;
  std::vector<uint32_t*> slots(ring::kSlots);
  for (int s = 0; s < ring::kSlots; ++s) {  // separate allocations: only the base differs
    CHECK_CUDA(cudaMalloc(&slots[s], per_slot * sizeof(uint32_t)));
    CHECK_CUDA(cudaMemcpy(slots[s], in.data() + s * per_slot, per_slot * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));
  }
  uint32_t** d_slots = nullptr;
  int* d_latest = nullptr;
  uint32_t* d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_slots, ring::kSlots * sizeof(uint32_t*)));
  CHECK_CUDA(cudaMalloc(&d_latest, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_out, per_slot * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpy(d_slots, slots.data(), ring::kSlots * sizeof(uint32_t*),
                        cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_latest, &kLatest, sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_out, 0, per_slot * sizeof(uint32_t)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  ring::run(d_slots, d_latest, slots[0], d_out, kRows, kCols, stream, opt);
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, per_slot * sizeof(uint32_t), cudaMemcpyDeviceToHost));

  size_t bad = 0;
  for (size_t i = 0; i < per_slot; ++i) bad += out[i] != in[kLatest * per_slot + i] * 5u + 1u;
  std::printf("checksum: 0x%08x\n", bench::fnv1a(out.data(), per_slot * sizeof(uint32_t)));
  std::printf("check: %s\n", bad == 0 ? "OK" : "MISMATCH");

  CHECK_CUDA(cudaStreamDestroy(stream));
  for (uint32_t* p : slots) CHECK_CUDA(cudaFree(p));
  for (void* p : {(void*)d_slots, (void*)d_latest, (void*)d_out}) CHECK_CUDA(cudaFree(p));
  return bad == 0 ? 0 : 1;
}
