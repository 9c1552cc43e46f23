// H4 through a copied handle: cudaGetFuncBySymbol binds a cudaFunction_t,
// which is cast into the CUfunction the driver launch takes. The copy holds
// the kernel the handle is bound to, so the launch's argument array is
// followed as for a handle bound directly.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void stencil(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
// CHECK-MESSAGES: warning: kernel 'stencil' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void stencil(const __grid_constant__ CUtensorMap map, int *out) {{{.*}}map.opaque[0]

int launch(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaFunction_t fn;
  cudaGetFuncBySymbol(&fn, (const void *)stencil);
  CUfunction f = (CUfunction)fn;
  void *args[] = {&d, &out};
  cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES-NOT: cudaMalloc(&d
// CHECK-FIXES: {{^}}  void *args[] = {(void *)&h, &out};
