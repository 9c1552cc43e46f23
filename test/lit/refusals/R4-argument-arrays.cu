// R4/R5 for argument arrays (tma-104, tma-105): each launch below keeps its
// kernel's descriptor by reference, with a note at the site that blocks it.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void with_extra(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void slot_changed(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void handle_escapes(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void not_an_address(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'with_extra' is left by reference: 'with_extra' is launched with 'extra' (a packed argument buffer) [tma-104]
// CHECK: warning: descriptor 'map' of kernel 'slot_changed' is left by reference: the argument array 'args2' is used here other than as a launch's arguments; a slot may change [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'handle_escapes' is left by reference: 'handle_escapes' is used here other than in a direct <<<>>> launch (function pointer or launch API) [tma-104]
// CHECK: warning: descriptor 'map' of kernel 'not_an_address' is left by reference: slot 0 of 'args4' ('slot') is not the address of a variable or field [tma-105]

void keep(CUfunction f);

void launches(CUstream stream, void *packed) {
  CUtensorMap h{}, other{};
  CUdeviceptr d1 = 0, d2 = 0, d3 = 0;
  cuMemAlloc(&d1, sizeof(CUtensorMap));
  cuMemcpyHtoD(d1, &h, sizeof(CUtensorMap));
  CUfunction f1;
  cudaGetFuncBySymbol(&f1, (const void *)with_extra);
  void *config[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_END};
  void *args1[] = {&d1};
  cuLaunchKernel(f1, 1, 1, 1, 1, 1, 1, 0, stream, args1, config);

  cuMemAlloc(&d2, sizeof(CUtensorMap));
  cuMemcpyHtoD(d2, &h, sizeof(CUtensorMap));
  void *args2[] = {&d2};
  args2[0] = &other;
  cudaLaunchKernel((const void *)slot_changed, dim3(1), dim3(1), args2, 0, stream);

  CUfunction f3;
  cudaGetFuncBySymbol(&f3, (const void *)handle_escapes);
  keep(f3);
  cuMemAlloc(&d3, sizeof(CUtensorMap));
  cuMemcpyHtoD(d3, &h, sizeof(CUtensorMap));
  void *args3[] = {&d3};
  cuLaunchKernel(f3, 1, 1, 1, 1, 1, 1, 0, stream, args3, nullptr);

  void *slot = &d1;
  void *args4[] = {slot};
  cudaLaunchKernel((const void *)not_an_address, dim3(1), dim3(1), args4, 0, stream);
}
