// nvcc's dialect inside a template kernel's body (a `__shared__
// cuda::barrier`, an `extern __shared__` template struct, `%clusterid`) and
// host max/min: clang rejects some of it, but each error lies inside a
// function body in a statement that names no descriptor type. Such errors
// cannot hide a descriptor: no tma-201 "may hide descriptors" error, exit
// status 0. clang marks the template's instantiation invalid: the kernel is
// analysed from its template pattern and rewritten. The file is valid nvcc
// code before and after.
// RUN: %prep
// RUN: %nvcc-compile %t.cu
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

#include <utility>

namespace cde = cuda::device::experimental;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

template <typename T> struct Staging {
  alignas(128) T tile[32][32];
};

template <typename T>
__global__ void load_tiles(const CUtensorMap *map, T *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
// nvcc only warns that a __shared__ object has a constructor; it compiles.
  __shared__ block_barrier bar;
  extern __shared__ Staging<T> stage;
  unsigned cluster;
  asm volatile("mov.u32 %0, %clusterid.x;" : "=r"(cluster));
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&stage.tile, map, 0, blockIdx.x * 32, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(stage.tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  out[blockIdx.x * blockDim.x + threadIdx.x] = stage.tile[0][threadIdx.x % 32] + T(cluster);
}
// CHECK: warning: clang reports 2 errors in this translation unit{{.*}}[tma-201]
// CHECK-NOT: may hide descriptors
// CHECK: :[[@LINE-24]]:{{[0-9]+}}: warning: kernel 'load_tiles' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NOT: may hide descriptors
// CHECK: 1 kernel rewritten, 0 refused {{.*}}; 2 pre-existing clang errors left untouched
// CHECK-FIXES: {{^}}__global__ void load_tiles(const __grid_constant__ CUtensorMap map, T *out) {
// CHECK-FIXES-NEXT: {{^}}// nvcc only warns that a __shared__ object has a constructor; it compiles.

int main() {
  const int rows = 64, blocks = max(rows / 32, 1);
  CUtensorMap h{};
  CUtensorMap *d = nullptr;
  int *out = nullptr;
  cudaMalloc(&out, blocks * 32 * sizeof(int));
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  load_tiles<int><<<blocks, 32, sizeof(Staging<int>)>>>(d, out);
  cudaFree(d);
  cudaFree(out);
  return min(blocks, 0);
}
