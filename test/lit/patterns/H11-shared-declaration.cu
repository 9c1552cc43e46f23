// Device copies declared in one statement: the statement goes when every
// variable it declares goes, in one group; otherwise it stays with a note
// and everything else of the rewritten descriptor goes.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void pair(const CUtensorMap *a, const CUtensorMap *b) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(a) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(b) : "memory");
}
__global__ void reader(const CUtensorMap *m) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(m) : "memory");
}
__global__ void retarget(CUtensorMap *m, void *base) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
               :: "l"(m), "l"(base) : "memory");
}
// CHECK-MESSAGES: warning: kernel 'pair' reads descriptor 'a' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'pair' reads descriptor 'b' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'reader' reads descriptor 'm' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: note: the declaration of 'd_ok' shares its statement; remove it by hand
// CHECK-MESSAGES: warning: descriptor 'm' of kernel 'retarget' is left by reference: 'm' is modified by 'tensormap.replace{{.*}}' [tma-101]

int main() {
  CUtensorMap ha{}, hb{}, hc{};
  void *base = nullptr;
  CUtensorMap *d_a = nullptr, *d_b = nullptr;
  cudaMalloc(&d_a, sizeof(CUtensorMap));
  cudaMalloc(&d_b, sizeof(CUtensorMap));
  cudaMemcpy(d_a, &ha, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, &hb, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  pair<<<1, 1>>>(d_a, d_b);
  cudaFree(d_a);
  cudaFree(d_b);

  CUtensorMap *d_ok, *d_bad;
  cudaMalloc(&d_ok, sizeof(CUtensorMap));
  cudaMalloc(&d_bad, sizeof(CUtensorMap));
  cudaMemcpy(d_ok, &hc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d_bad, &hc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  reader<<<1, 1>>>(d_ok);
  retarget<<<1, 1>>>(d_bad, base);
  cudaFree(d_ok);
  cudaFree(d_bad);
  return 0;
}
// CHECK-FIXES: {{^}}  void *base = nullptr;
// CHECK-FIXES-NEXT: {{^}}  pair<<<1, 1>>>(ha, hb);
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d_ok, *d_bad;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d_bad, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d_bad, &hc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  reader<<<1, 1>>>(hc);
// CHECK-FIXES-NEXT: {{^}}  retarget<<<1, 1>>>(d_bad, base);
// CHECK-FIXES-NEXT: {{^}}  cudaFree(d_bad);
