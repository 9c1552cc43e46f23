// nvcc's dialect inside the descriptor's own kernel: a `__shared__
// cuda::barrier` (clang: "initialization is not supported for __shared__
// variables"), an `extern __shared__` struct (clang: "cannot be 'extern'";
// the analysis parses with -fgpu-rdc, which accepts it), `%clusterid` with a
// single '%' (clang: "invalid % escape"), cde::cp_async_bulk_tensor_2d_*,
// and host code calling max/min on integers (nvcc's math_functions.hpp; the
// analysis includes the same host overloads). The kernel is rewritten with
// default flags; clang's remaining errors are the same afterwards.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
// RUN: cp %t.orig.cu %t.cu
// RUN: not %tma --strict %t.cu 2>&1 | %FileCheck %s --check-prefix=STRICT
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstdio>
#include <utility>

#define CHECK_CUDA(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

namespace cde = cuda::device::experimental;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

namespace tiles {

struct Staging {
  alignas(128) int tile[32][32];
  int sum;
};

__global__ void load_rows(const CUtensorMap *rows_map, int *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(rows_map) : "memory");
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  extern __shared__ Staging stage;
  unsigned cluster;
  asm volatile("mov.u32 %0, %clusterid.x;" : "=r"(cluster));
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&stage.tile, rows_map, 0, blockIdx.x * 32, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(stage.tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  out[blockIdx.x * blockDim.x + threadIdx.x] = stage.tile[0][threadIdx.x % 32] + int(cluster);
}
// CHECK-MESSAGES: :[[@LINE-22]]:{{[0-9]+}}: warning: kernel 'tiles::load_rows' reads descriptor 'rows_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten{{.*}}; 2 pre-existing clang errors left untouched
// CHECK-FIXES: {{^}}__global__ void load_rows(const __grid_constant__ CUtensorMap rows_map, int *out) {
// CHECK-FIXES-NEXT: {{^}}#pragma nv_diag_suppress static_var_with_dynamic_init
// CHECK-FIXES: {{^}}    cde::cp_async_bulk_tensor_2d_global_to_shared(&stage.tile, &rows_map, 0, blockIdx.x * 32, bar);
// STRICT: error: '{{.*}}' does not parse (2 compiler errors); nothing in it is changed [tma-201]

}  // namespace tiles

int main() {
  const int rows = 64, blocks = max(rows / 32, 1);
  CUtensorMap h_rows{};
  CUtensorMap *d_rows = nullptr;
  int *out = nullptr;
  CHECK_CUDA(cudaMalloc(&out, blocks * 32 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_rows, sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMemcpy(d_rows, &h_rows, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  tiles::load_rows<<<blocks, 32, sizeof(tiles::Staging)>>>(d_rows, out);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(d_rows));
  CHECK_CUDA(cudaFree(out));
  std::printf("%d blocks, first %d\n", blocks, min(blocks, 4));
  return 0;
}
// CHECK-FIXES: {{^}}  tiles::load_rows<<<blocks, 32, sizeof(tiles::Staging)>>>(h_rows, out);
// CHECK-FIXES-NOT: d_rows
