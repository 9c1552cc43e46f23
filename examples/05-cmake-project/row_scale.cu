// Row scaling with TMA: each CTA loads a 16 x 128 tile through the tensor map,
// multiplies row r by scale[r] and stores the tile. The launcher copies the
// caller's host descriptor to the device for every launch.
#include "row_scale.h"

#include <cstdint>

#define RETURN_IF_ERROR(call)                \
  do {                                       \
    const cudaError_t err_ = (call);         \
    if (err_ != cudaSuccess) return err_;    \
  } while (0)

namespace rowscale {
namespace {

constexpr int kThreads = 256;
constexpr uint32_t kTileBytes = kTileRows * kTileCols * sizeof(float);

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void row_scale_kernel(const CUtensorMap* in_map, const float* scale, float* out,
                                 int rows, int cols) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(in_map) : "memory");

  __shared__ alignas(128) float tile[kTileRows][kTileCols];
  __shared__ uint64_t tile_full;
  const int col0 = blockIdx.x * kTileCols, row0 = blockIdx.y * kTileRows;
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
                 :: "r"(smem_addr(tile)), "l"(in_map), "r"(col0), "r"(row0), "r"(bar)
                 : "memory");
  }
  for (uint32_t done = 0; !done;)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;"
                 " selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar) : "memory");

  for (int i = threadIdx.x; i < kTileRows * kTileCols; i += kThreads) {
    const int r = i / kTileCols, c = i % kTileCols;
    if (row0 + r < rows && col0 + c < cols)
      out[size_t(row0 + r) * cols + col0 + c] = tile[r][c] * scale[row0 + r];
  }
}

__global__ void empty_kernel() {}

dim3 grid_for(int rows, int cols) {
  return dim3((cols + kTileCols - 1) / kTileCols, (rows + kTileRows - 1) / kTileRows);
}

}  // namespace

cudaError_t launch_row_scale(const CUtensorMap* in_map, const float* scale, float* out, int rows,
                             int cols, cudaStream_t stream) {
  CUtensorMap* d_in_map = nullptr;
  RETURN_IF_ERROR(cudaMalloc(&d_in_map, sizeof(CUtensorMap)));
  RETURN_IF_ERROR(cudaMemcpy(d_in_map, in_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  row_scale_kernel<<<grid_for(rows, cols), kThreads, 0, stream>>>(d_in_map, scale, out, rows,
                                                                  cols);
  RETURN_IF_ERROR(cudaGetLastError());
  RETURN_IF_ERROR(cudaFree(d_in_map));  // cudaFree waits for the kernel
  return cudaSuccess;
}

cudaError_t launch_empty(int rows, int cols, cudaStream_t stream) {
  empty_kernel<<<grid_for(rows, cols), kThreads, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace rowscale
