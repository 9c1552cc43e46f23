// H9: a launch through a project macro whose arguments are written at the
// call site: the call site's spelling is edited, never the macro definition.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

#define LAUNCH_CHECKED(kernel, grid, block, ...)                                  \
  do {                                                                            \
    kernel<<<grid, block>>>(__VA_ARGS__);                                         \
    if (cudaGetLastError() != cudaSuccess)                                        \
      std::fprintf(stderr, "launch of %s failed\n", #kernel);                     \
  } while (0)
// CHECK-FIXES: {{^}}    kernel<<<grid, block>>>(__VA_ARGS__);

__global__ void fill(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 7;
}
// CHECK-MESSAGES: warning: kernel 'fill' reads descriptor 'map' through global memory; now passed by value [tma-001]

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, 32 * sizeof(int));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  LAUNCH_CHECKED(fill, 1, 32, d, out);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  LAUNCH_CHECKED(fill, 1, 32, h, out);
