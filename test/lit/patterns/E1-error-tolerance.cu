// nvcc's dialect: clang rejects some code nvcc accepts. An error away from
// the descriptor's kernel, helpers and launching function does not block the
// rewrite; verification requires exactly the same errors afterwards. With
// --strict any error refuses the whole translation unit.
// RUN: %prep
// RUN: not %tma --strict %t.cu 2>&1 | %FileCheck %s --check-prefix=STRICT
// RUN: cmp %t.cu %t.orig.cu
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

// nvcc accepts a single '%' before special registers; clang does not.
__device__ unsigned cluster_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %clusterid.x;" : "=r"(id));
  return id;
}

__global__ void tiles(const CUtensorMap *map, unsigned *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = threadIdx.x;
}
// CHECK-MESSAGES: :[[@LINE-5]]:{{[0-9]+}}: warning: kernel 'tiles' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten{{.*}}; 1 pre-existing clang error left untouched
// CHECK-FIXES: {{^}}__global__ void tiles(const __grid_constant__ CUtensorMap map, unsigned *out) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory");
// STRICT: error: '{{.*}}' does not parse (1 compiler error); nothing in it is changed [tma-201]
// STRICT: note: compiler error: invalid % escape in inline assembly string

int main() {
  CUtensorMap h{};
  unsigned *out;
  cudaMalloc(&out, 128 * sizeof(unsigned));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tiles<<<1, 128>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  tiles<<<1, 128>>>(h, out);
