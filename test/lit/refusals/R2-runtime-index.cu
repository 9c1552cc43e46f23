// R2 (tma-102): a descriptor pointer indexed at run time, or moved by
// pointer arithmetic, cannot become one by-value parameter. Launched with a
// device array of a compile-time count, it becomes an array by value (H14);
// launched with a copy of one descriptor, as here, it stays.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void pick(const CUtensorMap *maps, int n) {
  const CUtensorMap *m = &maps[blockIdx.y % n];
  asm volatile("prefetch.tensormap [%0];" :: "l"(m) : "memory");
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'maps' of kernel 'pick' is left by reference: 'maps' is indexed with 'blockIdx.y % n', not the constant 0 [tma-102]

__global__ void offset(const CUtensorMap *maps, int i) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(maps + i) : "memory");
}
// CHECK: warning: descriptor 'maps' of kernel 'offset' is left by reference: pointer arithmetic on 'maps' ('maps + i') [tma-102]

__global__ void loop(const CUtensorMap *maps, int n) {
  for (int i = 0; i < n; ++i)
    asm volatile("prefetch.tensormap [%0];" :: "l"(&maps[i]) : "memory");
}
// CHECK: warning: descriptor 'maps' of kernel 'loop' is left by reference: 'maps' is indexed with 'i', not the constant 0 [tma-102]

int main() {
  CUtensorMap h = {};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(h));
  cudaMemcpy(d, &h, sizeof(h), cudaMemcpyHostToDevice);
  pick<<<1, 1>>>(d, 4);
  offset<<<1, 1>>>(d, 1);
  loop<<<1, 1>>>(d, 4);
  cudaFree(d);
  return 0;
}
// CHECK: 0 kernels rewritten, 3 refused (descriptors: 0 by value, 3 refused, tma-102: 3)
