// R13: launches that do not give one compile-time count to a run-time-
// indexed parameter, and a device array handed to a kernel that reads one
// descriptor, stay as they are.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void any_count(const CUtensorMap *maps, int n, int *out) {
  out[threadIdx.x] = int(maps[threadIdx.x % n].opaque[0]);
}
// CHECK-DAG: warning: descriptor 'maps' of kernel 'any_count' is left by reference: 'maps' is launched with arrays of 4 and of 2 descriptors; one parameter type holds one count [tma-102]

__global__ void indexed(const CUtensorMap *maps, int *out) {
  out[threadIdx.x] = int(maps[threadIdx.x % 2].opaque[0]);
}
// CHECK-DAG: warning: descriptor 'maps' of kernel 'indexed' is left by reference: 'maps' is indexed at run time, and this launch passes 'one', not a whole device array of a compile-time count of descriptors [tma-102]

__global__ void first_only(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
// CHECK-DAG: warning: descriptor 'map' of kernel 'first_only' is left by reference: this launch passes a device array of 3 descriptors, and 'first_only' is not indexed at run time: its first descriptor alone would be passed [tma-102]

__global__ void short_copy(const CUtensorMap *maps, int *out) {
  out[threadIdx.x] = int(maps[threadIdx.x % 4].opaque[0]);
}
// CHECK-DAG: warning: descriptor 'maps' of kernel 'short_copy' is left by reference: 'd' copies 256 bytes from 'maps', which holds 4 descriptors (512 bytes): a partial copy [tma-102]

__global__ void by_args(const CUtensorMap *maps, int *out) {
  out[threadIdx.x] = int(maps[threadIdx.x % 4].opaque[0]);
}
// CHECK-DAG: warning: descriptor 'maps' of kernel 'by_args' is left by reference: an argument array cannot pass the 4 descriptors of 'by_args' by value [tma-104]

int main() {
  int *out;
  cudaMalloc(&out, 32 * sizeof(int));
  CUtensorMap four[4] = {}, two[2] = {}, three[3] = {}, one = {};
  CUtensorMap *d4, *d2, *d3, *d1;
  cudaMalloc(&d4, sizeof(four));
  cudaMalloc(&d2, sizeof(two));
  cudaMalloc(&d3, sizeof(three));
  cudaMalloc(&d1, sizeof(one));
  cudaMemcpy(d4, four, sizeof(four), cudaMemcpyHostToDevice);
  cudaMemcpy(d2, two, sizeof(two), cudaMemcpyHostToDevice);
  cudaMemcpy(d3, three, sizeof(three), cudaMemcpyHostToDevice);
  cudaMemcpy(d1, &one, sizeof(one), cudaMemcpyHostToDevice);
  any_count<<<1, 32>>>(d4, 4, out);
  any_count<<<1, 32>>>(d2, 2, out);
  indexed<<<1, 32>>>(d1, out);
  CUtensorMap *d2b;
  cudaMalloc(&d2b, sizeof(two));
  cudaMemcpy(d2b, two, sizeof(two), cudaMemcpyHostToDevice);
  indexed<<<1, 32>>>(d2b, out);
  cudaFree(d2b);
  first_only<<<1, 1>>>(d3, out);
  cudaFree(d4);
  cudaFree(d2);
  cudaFree(d3);
  cudaFree(d1);

  CUtensorMap maps[4] = {};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(maps));
  cudaMemcpy(d, maps, 2 * sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  short_copy<<<1, 32>>>(d, out);
  cudaFree(d);

  CUtensorMap *da;
  cudaMalloc(&da, sizeof(maps));
  cudaMemcpy(da, maps, sizeof(maps), cudaMemcpyHostToDevice);
  void *args[] = {&da, &out};
  cudaLaunchKernel((const void *)by_args, dim3(1), dim3(32), args, 0, nullptr);
  cudaFree(da);
  return 0;
}
// CHECK: 0 kernels rewritten, 5 refused
