// nvcc's dialect inside a template kernel: clang rejects `__shared__
// cuda::barrier` ("initialization is not supported for __shared__
// variables") and a single-'%' `%cluster_ctarank`, which makes every
// instantiation invalid. The kernel is then analysed from its template
// pattern, whose uses of the (non-dependent) `const CUtensorMap *` parameter
// are all there; the edits are on the pattern's text, as for any template.
// A call that depends on a template parameter (`&stage.tile` below) is
// followed when its callee is one known function.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstdio>

namespace cde = cuda::device::experimental;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

namespace staged {

template <int Rows>
struct Stage {
  alignas(128) int tile[Rows][32];
};

template <int Rows>
__global__ void gather(const CUtensorMap *rows_map, int *out) {
// nvcc only warns that a __shared__ object has a constructor; it compiles.
  __shared__ block_barrier bar;
  __shared__ Stage<Rows> stage;
  unsigned cluster_rank;
  asm volatile("mov.u32 %0, %cluster_ctarank;" : "=r"(cluster_rank));
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows_map) : "memory");
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&stage.tile, rows_map, 0, blockIdx.x * Rows, bar);
    cuda::device::barrier_expect_tx(bar, sizeof(stage.tile));
  }
  bar.arrive_and_wait();
  int sum = 0;
  for (int r = 0; r < Rows; ++r)
    sum += stage.tile[r][threadIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum + int(cluster_rank);
}
// CHECK-MESSAGES: :[[@LINE-20]]:{{[0-9]+}}: warning: kernel 'staged::gather' reads descriptor 'rows_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused
// CHECK-FIXES: {{^}}__global__ void gather(const __grid_constant__ CUtensorMap rows_map, int *out) {
// CHECK-FIXES: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&rows_map) : "memory");
// CHECK-FIXES: {{^}}    cde::cp_async_bulk_tensor_2d_global_to_shared(&stage.tile, &rows_map, 0, blockIdx.x * Rows, bar);

}  // namespace staged

int main() {
  CUtensorMap rows{};
  CUtensorMap *rows_dev = nullptr;
  int *sums = nullptr;
  if (cudaMalloc(&sums, 64 * sizeof(int)) != cudaSuccess)
    return 1;
  cudaMalloc(&rows_dev, sizeof(CUtensorMap));
  cudaMemcpy(rows_dev, &rows, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  staged::gather<32><<<2, 32>>>(rows_dev, sums);
  staged::gather<16><<<2, 32>>>(rows_dev, sums);
  int first = 0;
  cudaMemcpy(&first, sums, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(rows_dev);
  cudaFree(sums);
  std::printf("first sum %d\n", first);
  return 0;
}
// CHECK-FIXES: {{^}}  staged::gather<32><<<2, 32>>>(rows, sums);
// CHECK-FIXES-NEXT: {{^}}  staged::gather<16><<<2, 32>>>(rows, sums);
// CHECK-FIXES-NOT: rows_dev
