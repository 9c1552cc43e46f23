// H10: each descriptor is decided on its own: 'a' and 'b' go by value, 'c'
// is retargeted on the device and stays in global memory.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-SECOND
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void gemm_like(const CUtensorMap *a, const CUtensorMap *b, CUtensorMap *c,
                          const float *new_base) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(a) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(b) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(a) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(b) : "memory");
  if (threadIdx.x == 0)
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
                 :: "l"(c), "l"(reinterpret_cast<uint64_t>(new_base)) : "memory");
}
// CHECK-MESSAGES: :[[@LINE-10]]:{{[0-9]+}}: warning: kernel 'gemm_like' reads descriptor 'a' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: :[[@LINE-11]]:{{[0-9]+}}: warning: kernel 'gemm_like' reads descriptor 'b' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: :[[@LINE-12]]:{{[0-9]+}}: warning: descriptor 'c' of kernel 'gemm_like' is left by reference: 'c' is modified by 'tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1' [tma-101]
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 2 by value, 1 refused, tma-101: 1)
// CHECK-FIXES: {{^}}__global__ void gemm_like(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b, CUtensorMap *c,
// CHECK-FIXES-NEXT: {{^}}                          const float *new_base) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&a) : "memory");
// CHECK-SECOND: warning: descriptor 'c' of kernel 'gemm_like' is left by reference{{.*}}[tma-101]
// CHECK-SECOND: 0 kernels to rewrite, 1 refused (descriptors: 0 by value, 1 refused, tma-101: 1); 0 launches changed

int main() {
  CUtensorMap ha{}, hb{}, hc{};
  float *base;
  cudaMalloc(&base, 1024);
  CUtensorMap *da, *db, *dc;
  cudaMalloc(&da, sizeof(CUtensorMap));
  cudaMalloc(&db, sizeof(CUtensorMap));
  cudaMalloc(&dc, sizeof(CUtensorMap));
  cudaMemcpy(da, &ha, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(db, &hb, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, &hc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  gemm_like<<<1, 128>>>(da, db, dc, base);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 0;
}
// CHECK-FIXES: {{^}}  CUtensorMap *da, *db, *dc;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&dc, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(dc, &hc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  gemm_like<<<1, 128>>>(ha, hb, dc, base);
// CHECK-FIXES-NEXT: {{^}}  cudaFree(dc);
// CHECK-FIXES-NEXT: {{^}}  return 0;
