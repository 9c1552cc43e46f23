// Multi-level gather over an image pyramid: y = (level + 1) * x + level.
//
// The pyramid has four levels, each half the width and height of the one
// before, in one float buffer. Each level has its own tensor map; the host
// encodes the four into `CUtensorMap level_maps[4]` and copies the whole
// array into a cudaMalloc'ed device array before every launch. Each CTA reads
// the map of its level (blockIdx.z, a run-time index) through the pointer,
// loads one 32x64 tile with a 2D TMA load and writes the transformed tile.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/bench.h"

namespace pyramid {

constexpr int kLevels = 4;
constexpr int kWidth = 1024, kHeight = 512;  // level 0; level l is (kWidth >> l) x (kHeight >> l)
constexpr int kTileCols = 64, kTileRows = 32;
constexpr int kThreads = 256;
constexpr uint32_t kTileBytes = sizeof(float) * kTileCols * kTileRows;
constexpr size_t kSmemBytes = kTileBytes + 128;

__host__ __device__ inline int level_width(int l) { return kWidth >> l; }
__host__ __device__ inline int level_height(int l) { return kHeight >> l; }
__host__ __device__ inline size_t level_offset(int l) {
  size_t off = 0;
  for (int j = 0; j < l; ++j) off += size_t(level_width(j)) * level_height(j);
  return off;
}

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void scale_levels(const CUtensorMap* level_maps, float* out) {
  const int level = blockIdx.z;
  const int width = level_width(level), height = level_height(level);
  const int x0 = blockIdx.x * kTileCols, y0 = blockIdx.y * kTileRows;
  if (x0 >= width || y0 >= height) return;  // this level is smaller than the grid
  const CUtensorMap* map = &level_maps[level];
  // The maps arrived by a host-to-device copy: order them before TMA use.
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(level_maps + level)
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
        :: "r"(smem_addr(tile)), "l"(map), "r"(x0), "r"(y0), "r"(bar) : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred ready;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], 0;\n\t"
        "selp.u32 %0, 1, 0, ready;\n\t}"
        : "=r"(done) : "r"(bar) : "memory");
  }
  float* level_out = out + level_offset(level);
  for (int i = threadIdx.x; i < kTileRows * kTileCols; i += blockDim.x) {
    const int x = x0 + i % kTileCols, y = y0 + i / kTileCols;
    if (x < width && y < height) level_out[size_t(y) * width + x] = float(level + 1) * tile[i] + level;
  }
}

__global__ void empty_kernel() {}

CUtensorMap make_level_map(const float* base, int width, int height) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(width), cuuint64_t(height)};
  const cuuint64_t pitch[1] = {width * sizeof(float)};
  const cuuint32_t box[2] = {kTileCols, kTileRows}, elem_strides[2] = {1, 1};
  CHECK_CU(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void*)base, dims,
                                  pitch, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

void run(const float* d_in, float* d_out, cudaStream_t stream, const bench::Options& opt) {
  CUtensorMap level_maps[kLevels];
  for (int l = 0; l < kLevels; ++l)
    level_maps[l] = make_level_map(d_in + level_offset(l), level_width(l), level_height(l));
  CUtensorMap* d_level_maps = nullptr;
  CHECK_CUDA(cudaMalloc(&d_level_maps, sizeof(level_maps)));

  const dim3 grid(kWidth / kTileCols, kHeight / kTileRows, kLevels);
  const dim3 block(kThreads);
  bench::Timer timer;
  if (opt.graph) CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0, n = bench::iterations(opt); i < n; ++i) {
    if (opt.time && i == bench::kWarmup) timer.start(stream);
    CHECK_CUDA(cudaMemcpyAsync(d_level_maps, level_maps, sizeof(level_maps),
                               cudaMemcpyHostToDevice, stream));
    scale_levels<<<grid, block, kSmemBytes, stream>>>(d_level_maps, d_out);
    CHECK_CUDA(cudaGetLastError());
  }
  if (opt.time) {
    const float launch_us = timer.stop_us(stream, bench::kTimed);
    const float floor_us =
        bench::time_each(stream, [&] { empty_kernel<<<grid, block, kSmemBytes, stream>>>(); });
    std::printf("time: launch_us=%.3f floor_us=%.3f\n", launch_us, floor_us);
  }
  if (opt.graph) bench::end_capture_and_replay(stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(d_level_maps));
}

}  // namespace pyramid

int main(int argc, char** argv) {
  using namespace pyramid;
  const bench::Options opt = bench::parse(argc, argv);
  const size_t count = level_offset(kLevels);

  std::vector<float> host_in(count);
  for (size_t i = 0; i < count; ++i) host_in[i] = float(int(uint32_t(i * 2654435761u) >> 22) - 512);

  float *d_in = nullptr, *d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_out, count * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_in, host_in.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_out, 0, count * sizeof(float)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  run(d_in, d_out, stream, opt);

  std::vector<float> host_out(count);
  CHECK_CUDA(cudaMemcpy(host_out.data(), d_out, count * sizeof(float), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (int l = 0; l < kLevels; ++l)
    for (size_t i = level_offset(l); i < level_offset(l + 1); ++i)
      bad += host_out[i] != float(l + 1) * host_in[i] + l;
  std::printf("checksum: 0x%08x\n", bench::fnv1a(host_out.data(), count * sizeof(float)));
  std::printf("check: %s\n", bad == 0 ? "OK" : "MISMATCH");

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
  return bad == 0 ? 0 : 1;
}
