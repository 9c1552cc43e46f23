// Grouped offset-add over G separately allocated uint32 matrices of one shape,
// with one tensor map per group that the kernel retargets on the device.
//
// The host uploads G copies of a template tensor map (encoded for group 0).
// CTA g points copy g at its own group's matrix with tensormap.replace,
// publishes the change with a release fence, acquires it, and then streams the
// group's tiles through shared memory: out[g] = in[g] + g * 1000.
//
// The descriptors are written on the device, so they must stay in global
// memory: tma-modernize has to leave this program exactly as it is.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/bench.h"

namespace grouped {

constexpr int kTileRows = 32, kTileCols = 64;
constexpr int kThreads = 256;
constexpr uint32_t kTileBytes = kTileRows * kTileCols * sizeof(uint32_t);

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One CTA per group; maps[g] is group g's writable tensor map.
__global__ void __launch_bounds__(kThreads)
offset_groups(CUtensorMap* maps, const uint32_t* const* group_in, uint32_t* out, int rows,
              int cols) {
  const int g = blockIdx.x;
  CUtensorMap* map = &maps[g];
  if (threadIdx.x == 0) {
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
                 :: "l"(map), "l"(group_in[g]) : "memory");
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  }

  __shared__ alignas(128) uint32_t tile[kTileRows][kTileCols];
  __shared__ uint64_t tile_full;
  const uint32_t bar = smem_addr(&tile_full);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  const int tiles_x = (cols + kTileCols - 1) / kTileCols;
  const int num_tiles = tiles_x * ((rows + kTileRows - 1) / kTileRows);
  for (int t = 0; t < num_tiles; ++t) {
    const int x0 = (t % tiles_x) * kTileCols, y0 = (t / tiles_x) * kTileRows;
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                   :: "r"(bar), "r"(kTileBytes) : "memory");
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                   " [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(smem_addr(tile)), "l"(map), "r"(x0), "r"(y0), "r"(bar) : "memory");
    }
    for (uint32_t done = 0; !done;)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                   " selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(bar), "r"(uint32_t(t & 1)) : "memory");
    for (int i = threadIdx.x; i < kTileRows * kTileCols; i += kThreads) {
      const int r = i / kTileCols, c = i % kTileCols;
      if (y0 + r < rows && x0 + c < cols)
        out[(size_t(g) * rows + y0 + r) * cols + x0 + c] = tile[r][c] + uint32_t(g) * 1000u;
    }
    __syncthreads();  // the tile buffer is reloaded only after everyone has read it
  }
}

// Same grid and block, no work: the launch-overhead floor.
__global__ void empty_kernel() {}

CUtensorMap make_template_map(const uint32_t* base, int rows, int cols) {
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

// `inputs` holds the groups' device pointers.
void run(const std::vector<uint32_t*>& inputs, uint32_t* d_out, int rows, int cols,
         cudaStream_t stream, const bench::Options& opt) {
  const int groups = int(inputs.size());
  const std::vector<CUtensorMap> maps(groups, make_template_map(inputs[0], rows, cols));
  CUtensorMap* d_maps = nullptr;
  uint32_t** d_inputs = nullptr;
  CHECK_CUDA(cudaMalloc(&d_maps, groups * sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMalloc(&d_inputs, groups * sizeof(uint32_t*)));
  CHECK_CUDA(cudaMemcpy(d_maps, maps.data(), groups * sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_inputs, inputs.data(), groups * sizeof(uint32_t*),
                        cudaMemcpyHostToDevice));

  bench::Timer timer;
  if (opt.graph) CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0, n = bench::iterations(opt); i < n; ++i) {
    if (opt.time && i == bench::kWarmup) timer.start(stream);
    offset_groups<<<groups, kThreads, 0, stream>>>(d_maps, d_inputs, d_out, rows, cols);
    CHECK_CUDA(cudaGetLastError());
  }
  if (opt.time) {
    const float launch_us = timer.stop_us(stream, bench::kTimed);
    const float floor_us =
        bench::time_each(stream, [&] { empty_kernel<<<groups, kThreads, 0, stream>>>(); });
    std::printf("time: launch_us=%.3f floor_us=%.3f\n", launch_us, floor_us);
  }
  if (opt.graph) bench::end_capture_and_replay(stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(d_maps));
  CHECK_CUDA(cudaFree(d_inputs));
}

}  // namespace grouped

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  constexpr int kGroups = 8, kRows = 250, kCols = 256;  // last row of tiles is partial
  const size_t per_group = size_t(kRows) * kCols, count = kGroups * per_group;

  std::vector<uint32_t> in(count), out(count);
  for (size_t i = 0; i < count; ++i) in[i] = uint32_t(i * 2654435761u) >> 8;
  std::vector<uint32_t*> d_inputs(kGroups);
  for (int g = 0; g < kGroups; ++g) {  // separate allocations: only the base address differs
    CHECK_CUDA(cudaMalloc(&d_inputs[g], per_group * sizeof(uint32_t)));
    CHECK_CUDA(cudaMemcpy(d_inputs[g], in.data() + g * per_group, per_group * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));
  }
  uint32_t* d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_out, count * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemset(d_out, 0, count * sizeof(uint32_t)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  grouped::run(d_inputs, d_out, kRows, kCols, stream, opt);
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, count * sizeof(uint32_t), cudaMemcpyDeviceToHost));

  size_t bad = 0;
  for (size_t i = 0; i < count; ++i) bad += out[i] != in[i] + uint32_t(i / per_group) * 1000u;
  std::printf("checksum: 0x%08x\n", bench::fnv1a(out.data(), count * sizeof(uint32_t)));
  std::printf("check: %s\n", bad == 0 ? "OK" : "MISMATCH");

  CHECK_CUDA(cudaStreamDestroy(stream));
  for (uint32_t* p : d_inputs) CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaFree(d_out));
  return bad == 0 ? 0 : 1;
}
