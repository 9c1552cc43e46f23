// R13 (tma-102): a descriptor array whose count is not a proven
// compile-time constant stays in device memory: "no compile-time bound".
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

__global__ void gather(const CUtensorMap *maps, int *out) {
  out[threadIdx.x] = int(maps[threadIdx.x % 4].opaque[0]);
}

// Built by push_back: its size is what the loop made it.
void pushed(const CUtensorMap &m, int levels, int *out) {
  std::vector<CUtensorMap> maps;
  for (int i = 0; i < levels; ++i)
    maps.push_back(m);
  CUtensorMap *d;
  cudaMalloc(&d, maps.size() * sizeof(CUtensorMap));
  cudaMemcpy(d, maps.data(), maps.size() * sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  gather<<<1, 32>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: no compile-time bound: the count of descriptors that 'd' copies from 'maps.data()' is not a compile-time constant ('maps' is used here ('maps.push_back'), which may change its size) [tma-102]

// Constructed with a count known only at run time.
void counted(int levels, int *out) {
  std::vector<CUtensorMap> maps(levels);
  CUtensorMap *d;
  cudaMalloc(&d, maps.size() * sizeof(CUtensorMap));
  cudaMemcpy(d, maps.data(), maps.size() * sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  gather<<<1, 32>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: no compile-time bound: the count of descriptors that 'd' copies from 'maps.data()' is not a compile-time constant ('maps' is not constructed with a constant count) [tma-102]

// Resized after a constant construction.
void resized(int *out) {
  std::vector<CUtensorMap> maps(4);
  maps.resize(6);
  CUtensorMap *d;
  cudaMalloc(&d, maps.size() * sizeof(CUtensorMap));
  cudaMemcpy(d, maps.data(), maps.size() * sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  gather<<<1, 32>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: ('maps' is used here ('maps.resize'), which may change its size) [tma-102]

// Handed in as a pointer and a count.
void from_pointer(const CUtensorMap *maps, int n, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, n * sizeof(CUtensorMap));
  cudaMemcpy(d, maps, n * sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  gather<<<1, 32>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: no compile-time bound: the count of descriptors that 'd' copies from 'maps' is not a compile-time constant (it is a pointer; the array it points to is not seen) [tma-102]

// A constant array, copied with a size known only at run time.
void runtime_size(int n, int *out) {
  CUtensorMap maps[4] = {};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(maps));
  cudaMemcpy(d, maps, n * sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  gather<<<1, 32>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: (the size 'n * sizeof(CUtensorMap)' is not a compile-time constant) [tma-102]
// CHECK: 0 kernels rewritten, 1 refused
