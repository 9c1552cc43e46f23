// Per-tile gather: 192 small matrices, one tensor map each.
//
// The host encodes the 192 maps into a std::vector<CUtensorMap> made with
// that count and copies the whole vector into a device array before every
// launch. CTA b gathers matrix t = (b * 37) % 192 (a run-time index into the
// maps): it loads the 32x64 matrix with one 2D TMA load through &maps[t] and
// writes out[b] = 2 * matrix + t.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/bench.h"

namespace tiles {

constexpr int kMaps = 192;
constexpr int kBlocks = 768;  // each matrix is gathered four times
constexpr int kCols = 64, kRows = 32;
constexpr int kThreads = 256;
constexpr size_t kMatrix = size_t(kCols) * kRows;
constexpr uint32_t kTileBytes = sizeof(float) * kMatrix;
constexpr size_t kSmemBytes = kTileBytes + 128;

__host__ __device__ inline int matrix_of(int block) { return (block * 37) % kMaps; }

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void gather_tiles(const CUtensorMap* maps, float* out) {
  const int t = matrix_of(blockIdx.x);
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(&maps[t])
               : "memory");
  extern __shared__ unsigned char smem_raw[];
  __shared__ uint64_t tile_full;
  const uint32_t pad = (128u - (smem_addr(smem_raw) & 127u)) & 127u;
  float* tile = reinterpret_cast<float*>(smem_raw + pad);
  const uint32_t bar = smem_addr(&tile_full);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar), "r"(kTileBytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];"
        :: "r"(smem_addr(tile)), "l"(maps + t), "r"(0), "r"(0), "r"(bar) : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred ready;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], 0;\n\t"
        "selp.u32 %0, 1, 0, ready;\n\t}"
        : "=r"(done) : "r"(bar) : "memory");
  }
  float* dst = out + size_t(blockIdx.x) * kMatrix;
  for (int i = threadIdx.x; i < int(kMatrix); i += blockDim.x) dst[i] = 2.0f * tile[i] + t;
}

__global__ void empty_kernel() {}

CUtensorMap make_matrix_map(const float* base) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows};
  const cuuint64_t pitch[1] = {kCols * sizeof(float)};
  const cuuint32_t box[2] = {kCols, kRows}, elem_strides[2] = {1, 1};
  CHECK_CU(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void*)base, dims,
                                  pitch, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

void run(const float* d_in, float* d_out, cudaStream_t stream, const bench::Options& opt) {
  std::vector<CUtensorMap> maps(kMaps);
  for (int t = 0; t < kMaps; ++t) maps[t] = make_matrix_map(d_in + t * kMatrix);
  CUtensorMap* d_maps = nullptr;
  CHECK_CUDA(cudaMalloc(&d_maps, maps.size() * sizeof(CUtensorMap)));

  bench::Timer timer;
  if (opt.graph) CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0, n = bench::iterations(opt); i < n; ++i) {
    if (opt.time && i == bench::kWarmup) timer.start(stream);
    CHECK_CUDA(cudaMemcpyAsync(d_maps, maps.data(), maps.size() * sizeof(CUtensorMap),
                               cudaMemcpyHostToDevice, stream));
    gather_tiles<<<kBlocks, kThreads, kSmemBytes, stream>>>(d_maps, d_out);
    CHECK_CUDA(cudaGetLastError());
  }
  if (opt.time) {
    const float launch_us = timer.stop_us(stream, bench::kTimed);
    const float floor_us =
        bench::time_each(stream, [&] { empty_kernel<<<kBlocks, kThreads, kSmemBytes, stream>>>(); });
    std::printf("time: launch_us=%.3f floor_us=%.3f\n", launch_us, floor_us);
  }
  if (opt.graph) bench::end_capture_and_replay(stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(d_maps));
}

}  // namespace tiles

int main(int argc, char** argv) {
  using namespace tiles;
  const bench::Options opt = bench::parse(argc, argv);
  const size_t in_count = kMaps * kMatrix, out_count = kBlocks * kMatrix;

  std::vector<float> host_in(in_count);
  for (size_t i = 0; i < in_count; ++i) host_in[i] = float(int(uint32_t(i * 2654435761u) >> 22) - 512);

  float *d_in = nullptr, *d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, in_count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_out, out_count * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_in, host_in.data(), in_count * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_out, 0, out_count * sizeof(float)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  run(d_in, d_out, stream, opt);

  std::vector<float> host_out(out_count);
  CHECK_CUDA(cudaMemcpy(host_out.data(), d_out, out_count * sizeof(float), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (int b = 0; b < kBlocks; ++b) {
    const int t = matrix_of(b);
    for (size_t i = 0; i < kMatrix; ++i)
      bad += host_out[b * kMatrix + i] != 2.0f * host_in[t * kMatrix + i] + t;
  }
  std::printf("checksum: 0x%08x\n", bench::fnv1a(host_out.data(), out_count * sizeof(float)));
  std::printf("check: %s\n", bad == 0 ? "OK" : "MISMATCH");

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
  return bad == 0 ? 0 : 1;
}
