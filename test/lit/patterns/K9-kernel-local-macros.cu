// K9: a macro defined inside the kernel's body that names the descriptor
// (a load helper written as a local #define). When it is expanded nowhere
// after the kernel (it is #undef'd, or the file ends), its definition is
// edited like any other use; a macro that leaks out of the kernel (expanded
// by a later kernel) is refused, since its text serves another function too.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void local_macro(const CUtensorMap *map, float *out) {
#define PREFETCH_TILE() asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory")
  PREFETCH_TILE();
  PREFETCH_TILE();
  out[0] = 1;
#undef PREFETCH_TILE
}
// CHECK-FIXES: {{^}}__global__ void local_macro(const __grid_constant__ CUtensorMap map, float *out) {
// CHECK-FIXES-NEXT: {{^}}#define PREFETCH_TILE() asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory")

__global__ void leaking_macro(const CUtensorMap *map, float *out) {
#define PREFETCH_LEAKS() asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory")
  PREFETCH_LEAKS();
  out[0] = 2;
}
__global__ void expands_it(const CUtensorMap *map, float *out) {
  PREFETCH_LEAKS();
  out[1] = 2;
}
// CHECK-FIXES: {{^}}#define PREFETCH_LEAKS() asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory")


int main() {
  CUtensorMap h{};
  float *out;
  cudaMalloc(&out, 2 * sizeof(float));
  CUtensorMap *a, *b, *c;
  cudaMalloc(&a, sizeof(CUtensorMap));
  cudaMalloc(&b, sizeof(CUtensorMap));
  cudaMalloc(&c, sizeof(CUtensorMap));
  cudaMemcpy(a, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(b, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(c, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  local_macro<<<1, 1>>>(a, out);
  leaking_macro<<<1, 1>>>(b, out);
  expands_it<<<1, 1>>>(c, out);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
// CHECK-FIXES: {{^}}  local_macro<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  leaking_macro<<<1, 1>>>(b, out);
// CHECK-MESSAGES-DAG: warning: kernel 'local_macro' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: descriptor 'map' of kernel 'leaking_macro' is left by reference: descriptor use is spelled inside a macro body [tma-107]
// CHECK-MESSAGES-DAG: warning: descriptor 'map' of kernel 'expands_it' is left by reference: descriptor use is spelled inside a macro body [tma-107]
// CHECK-MESSAGES: 1 kernel rewritten, 2 refused
