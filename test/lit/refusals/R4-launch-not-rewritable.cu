// R4 (tma-104): a kernel used through a function pointer that is not a local
// variable (any code may call it; K4 rewrites local ones), or never launched
// in the given sources, keeps its signature.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void through_pointer(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'through_pointer' is left by reference: 'through_pointer' is launched through the function pointer 'g_kernel', and it is not a local variable of 'main', so not every kernel it may point to is seen [tma-104]
// CHECK-NEXT: :[[@LINE+3]]:{{[0-9]+}}: note: blocked here
// CHECK-NEXT: :[[@LINE+16]]:{{[0-9]+}}: note: launched through 'g_kernel' here

void (*g_kernel)(const CUtensorMap *) = through_pointer;

__global__ void never_launched(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'never_launched' is left by reference: no launch of kernel 'never_launched' in the given sources; launches elsewhere would break [tma-104]

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  // Attribute queries are not launches: they do not block.
  cudaFuncSetAttribute(through_pointer, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  g_kernel<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
// CHECK-NOT: note: {{.*}}cudaFuncSetAttribute
// CHECK: 0 kernels rewritten, 2 refused (descriptors: 0 by value, 2 refused, tma-104: 2)
