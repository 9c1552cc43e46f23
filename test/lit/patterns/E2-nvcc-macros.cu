// nvcc's implicit environment: __NVCC__ and __CUDACC_VER_MAJOR__/MINOR__ of
// the toolkit are defined (from its cuda.h), and CCCL's include directory is
// on the path, as nvcc's nvcc.profile has it. Code that tests them parses.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda/barrier>
#if !defined(__NVCC__) || __CUDACC_VER_MAJOR__ < 12
#error "this file is built with nvcc 12 or newer"
#endif

__global__ void k(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK-MESSAGES: warning: kernel 'k' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-NOT: pre-existing clang error
// CHECK-FIXES: {{^}}__global__ void k(const __grid_constant__ CUtensorMap map) {

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
