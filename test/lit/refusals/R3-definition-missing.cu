// R3 (tma-103): a kernel whose definition is not in the translation unit
// cannot have its uses checked, and says so. A template kernel whose every
// instantiation clang finds invalid (nvcc's `__shared__ cuda::barrier`) is
// not such a kernel: it is analysed from its template pattern, and refused
// for what the pattern does with the descriptor (a write; a call whose
// callee depends on a template parameter).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --implicit-check-not="is not in this translation unit"
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void defined_elsewhere(const CUtensorMap *map, int *out);
// CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'defined_elsewhere' is left by reference: the definition of kernel 'defined_elsewhere' is not in this translation unit; its uses of 'map' cannot be checked [tma-103]

template <int Words>
__global__ void clears_words(CUtensorMap *map) {
// nvcc only warns that a __shared__ object has a constructor; it compiles.
  __shared__ block_barrier bar;
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  map->opaque[Words] = 0;
}
// CHECK: :[[@LINE-7]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'clears_words' is left by reference: the descriptor is written ('map->opaque[Words] = 0') [tma-101]

template <int Line>
__device__ void prefetch_line(const CUtensorMap *p) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(p) : "memory");
}
template <int N>
__global__ void touches(const CUtensorMap *map) {
// nvcc only warns that a __shared__ object has a constructor; it compiles.
  __shared__ block_barrier bar;
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  prefetch_line<N>(map);
}
// CHECK: :[[@LINE-7]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'touches' is left by reference: 'map' is used in a way that cannot be followed (CallExpr) [tma-103]

int main() {
  CUtensorMap h{};
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  defined_elsewhere<<<1, 1>>>(d, nullptr);
  clears_words<2><<<1, 1>>>(d);
  touches<3><<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
// CHECK: tma-modernize: 0 kernels rewritten, 3 refused
