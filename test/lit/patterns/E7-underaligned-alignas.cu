// E7: an error judged by its effect. `alignas(64) CUtensorMap a, b;` is
// accepted by nvcc; clang rejects it (CUDA 13 aligns the type to 128) but
// drops only the attribute: both variables keep their type and their uses,
// so the descriptors of the statement are analysed and rewritten, and the
// error, untouched by the edits, is left as it was.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void first(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void second(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }

int main() {
  int *out;
  cudaMalloc(&out, 2 * sizeof(int));
  alignas(64) CUtensorMap a{}, b{};
  CUtensorMap *da, *db;
  cudaMalloc(&da, sizeof(CUtensorMap));
  cudaMalloc(&db, sizeof(CUtensorMap));
  cudaMemcpy(da, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(db, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  first<<<1, 1>>>(da, out);
  second<<<1, 1>>>(db, out);
  cudaFree(da);
  cudaFree(db);
  return 0;
}
// CHECK-FIXES: {{^}}  alignas(64) CUtensorMap a{}, b{};
// CHECK-FIXES: {{^}}  first<<<1, 1>>>(a, out);
// CHECK-FIXES-NEXT: {{^}}  second<<<1, 1>>>(b, out);
// CHECK-MESSAGES: warning: clang reports 1 error in this translation unit
// CHECK-MESSAGES-DAG: warning: kernel 'first' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'second' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 2 kernels rewritten, 0 refused
