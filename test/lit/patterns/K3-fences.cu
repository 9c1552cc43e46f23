// K3: acquire fences that only existed for the global copy go, whatever their
// scope or spelling; prefetch.tensormap and every other fence stay.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda/ptx>
#include <cstdint>

namespace cute {
// A library wrapper whose whole body is the fence: its calls go, it stays.
__device__ __forceinline__ void tma_descriptor_fence_acquire(const CUtensorMap *desc_ptr) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(desc_ptr) : "memory");
}
} // namespace cute
// CHECK-FIXES: {{^}}  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(desc_ptr) : "memory");

#define TMA_ACQUIRE(ptr) \
  asm volatile("fence.proxy.tensormap::generic.acquire.cta [%0], 128;" ::"l"(ptr) : "memory")

__global__ void fenced(const CUtensorMap *map_a, const CUtensorMap *map_b, const CUtensorMap *map_c,
                       const CUtensorMap *map_d, int *flag) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map_a) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.sys [%0], 128;"
               :
               : "l"(reinterpret_cast<uint64_t>(map_b))
               : "memory");
  if (threadIdx.x == 0)
    asm volatile("fence.proxy.tensormap::generic.acquire.cluster [%0], 128;" :: "l"(map_c) : "memory");
  cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu, map_d,
                                           cuda::ptx::n32_t<128>{});
  TMA_ACQUIRE(map_a);
  cute::tma_descriptor_fence_acquire(map_b);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map_a) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map_b) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map_c) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map_d) : "memory");
  *flag = 1;
}
// CHECK-MESSAGES: warning: kernel 'fenced' reads descriptor 'map_a'
// CHECK-MESSAGES: warning: kernel 'fenced' reads descriptor 'map_b'
// CHECK-MESSAGES: warning: kernel 'fenced' reads descriptor 'map_c'
// CHECK-MESSAGES: warning: kernel 'fenced' reads descriptor 'map_d'
// CHECK-MESSAGES: 4 launches changed, 4 copies removed (4 alloc, 4 free), 6 fences removed
// CHECK-FIXES: {{^}}                       const __grid_constant__ CUtensorMap map_d, int *flag) {
// CHECK-FIXES-NEXT: {{^}}  if (threadIdx.x == 0)
// CHECK-FIXES-NEXT: {{^}}    {}
// CHECK-FIXES-NEXT: {{^}}  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&map_a) : "memory");
// CHECK-FIXES-NOT: fence.proxy.tensormap
// CHECK-FIXES-NOT: TMA_ACQUIRE(
// CHECK-FIXES-NOT: tma_descriptor_fence_acquire(

int main() {
  CUtensorMap a{}, b{}, c{}, d{};
  int *flag;
  cudaMalloc(&flag, sizeof(int));
  CUtensorMap *da, *db, *dc, *dd;
  cudaMalloc(&da, sizeof(CUtensorMap));
  cudaMalloc(&db, sizeof(CUtensorMap));
  cudaMalloc(&dc, sizeof(CUtensorMap));
  cudaMalloc(&dd, sizeof(CUtensorMap));
  cudaMemcpy(da, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(db, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, &c, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(dd, &d, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  fenced<<<1, 32>>>(da, db, dc, dd, flag);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
  return 0;
}
