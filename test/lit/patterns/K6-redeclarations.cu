// K6: a declaration in a header and the definition in the .cu change together.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cp %inputs/k6_kernels.cuh %t.dir/
// RUN: sed -E 's#// *(RUN|CHECK)[A-Za-z0-9-]*:.*#//#' %s > %t.dir/main.cu
// RUN: cd %t.dir && %tma main.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-HEADER --input-file=%t.dir/k6_kernels.cuh
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.dir/main.cu
// RUN: cd %t.dir && %nvcc-compile main.cu
// RUN: cd %t.dir && %tma --check main.cu
#include "k6_kernels.cuh"
#include <cuda_runtime.h>

// A second declaration in the .cu, without a parameter name.
__global__ void scale_tiles(const CUtensorMap *, float *, float);

__global__ void scale_tiles(const CUtensorMap *tiles, float *out, float factor) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(tiles) : "memory");
  out[threadIdx.x] *= factor;
}
// CHECK-MESSAGES: main.cu:[[@LINE-4]]:{{[0-9]+}}: warning: kernel 'scale_tiles' reads descriptor 'tiles'
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused{{.*}}2 files
// CHECK-HEADER: {{^}}__global__ void scale_tiles(const __grid_constant__ CUtensorMap tiles, float *out, float factor);
// CHECK-FIXES: {{^}}__global__ void scale_tiles(const __grid_constant__ CUtensorMap, float *, float);
// CHECK-FIXES: {{^}}__global__ void scale_tiles(const __grid_constant__ CUtensorMap tiles, float *out, float factor) {

int main() {
  CUtensorMap map{};
  float *out;
  cudaMalloc(&out, 128 * sizeof(float));
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof map);
  cudaMemcpy(d_map, &map, sizeof map, cudaMemcpyHostToDevice);
  scale_tiles<<<1, 128>>>(d_map, out, 2.0f);
  cudaFree(d_map);
  return 0;
}
// CHECK-FIXES: {{^}}  scale_tiles<<<1, 128>>>(map, out, 2.0f);
