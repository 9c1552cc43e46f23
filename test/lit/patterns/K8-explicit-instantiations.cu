// K8: explicit instantiations of a kernel template, declarations (`extern
// template`) and definitions, unnamed or named parameters, in the .cu that
// includes the template's header and in the template's own file. Clang
// keeps no source for their parameter lists, so they are lexed; each
// descriptor parameter becomes `const __grid_constant__ CUtensorMap` (nvcc
// wants the annotation in the directive too), the rest of the list as
// written. Without the edit the rewritten file does not compile (tma-110).
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cp %inputs/k8_tiles.cuh %t.dir/
// RUN: sed -E 's#// *(RUN|CHECK)[A-Za-z0-9-]*:.*#//#' %s > %t.dir/main.cu
// RUN: cd %t.dir && %tma main.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.dir/main.cu
// RUN: cd %t.dir && %nvcc-compile main.cu
// RUN: cd %t.dir && %tma --check main.cu
#include "k8_tiles.cuh"
#include <cuda_runtime.h>

template __global__ void tiles::tiled_sum<128, 4>(const CUtensorMap *, float *, int);
extern template __global__ void tiles::tiled_sum<64, 2>(CUtensorMap const *map, float *out, int n);
template __global__ void tiles::tiled_sum<64, 2>(CUtensorMap const*map, float *out, int n);
// CHECK-FIXES: {{^}}template __global__ void tiles::tiled_sum<128, 4>(const __grid_constant__ CUtensorMap, float *, int);
// CHECK-FIXES-NEXT: {{^}}extern template __global__ void tiles::tiled_sum<64, 2>(const __grid_constant__ CUtensorMap map, float *out, int n);
// CHECK-FIXES-NEXT: {{^}}template __global__ void tiles::tiled_sum<64, 2>(const __grid_constant__ CUtensorMap map, float *out, int n);

int main() {
  CUtensorMap h{};
  float *out;
  cudaMalloc(&out, sizeof(float));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tiles::tiled_sum<128, 4><<<1, 1>>>(d, out, 1);
  tiles::tiled_sum<64, 2><<<1, 1>>>(d, out, 2);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  tiles::tiled_sum<128, 4><<<1, 1>>>(h, out, 1);
// CHECK-FIXES-NEXT: {{^}}  tiles::tiled_sum<64, 2><<<1, 1>>>(h, out, 2);
// CHECK-MESSAGES: warning: kernel 'tiles::tiled_sum' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused
