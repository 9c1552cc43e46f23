// R3 (tma-103): a pointer stored, returned, passed to a function whose body
// is not visible, or to another kernel's launch, may be used later in ways
// that need global memory.
// RUN: %prep
// RUN: %tma %t.cu -- -fgpu-rdc 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__device__ const CUtensorMap *g_saved;
__global__ void saves(const CUtensorMap *map) { g_saved = map; }
// CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'saves' is left by reference: 'map' is stored ('g_saved = map') [tma-103]

extern __device__ void opaque_use(const CUtensorMap *map);
__global__ void calls_unseen(const CUtensorMap *map) { opaque_use(map); }
// CHECK: warning: descriptor 'map' of kernel 'calls_unseen' is left by reference: 'map' is passed to 'opaque_use', whose body is not visible in this translation unit [tma-103]

__global__ void child(const CUtensorMap *map) {}
__global__ void parent_kernel(const CUtensorMap *map) { child<<<1, 1>>>(map); }
// CHECK: warning: descriptor 'map' of kernel 'parent_kernel' is left by reference: 'map' is passed to a launch of another kernel [tma-103]

__device__ const CUtensorMap *identity(const CUtensorMap *m) { return m; }
__global__ void returns(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(identity(map)) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'returns' is left by reference: 'descriptor pointer' is returned [tma-103]
// CHECK-NEXT: note: blocked here
// CHECK-NEXT: note: through the call to 'identity' here

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  saves<<<1, 1>>>(d);
  calls_unseen<<<1, 1>>>(d);
  parent_kernel<<<1, 1>>>(d);
  returns<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
