// R4, the unsafe twin of patterns/H4-handle-copies.cu (tma-104): the bound
// handle is copied into a second handle that is handed to code whose body
// is not seen, which could launch the kernel with any arguments; so the
// launch through the first copy is not followed and the kernel stays.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void stencil(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
// CHECK: warning: descriptor 'map' of kernel 'stencil' is left by reference

extern void remember(CUfunction f);

int launch(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaFunction_t fn;
  cudaGetFuncBySymbol(&fn, (const void *)stencil);
  CUfunction f = (CUfunction)fn;
  CUfunction kept = (CUfunction)fn;
  remember(kept);
  void *args[] = {&d, &out};
  cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr);
  cudaFree(d);
  return 0;
}
