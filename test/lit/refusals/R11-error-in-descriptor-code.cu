// R11 (tma-201): a clang error blocks a descriptor when the statement it sits
// in names something that carries the descriptor (here: an asm statement
// clang dropped, and a project macro whose body names the descriptor), or
// when it lies in code the descriptor relies on and outside any function
// body. An error in a statement that names no descriptor does not: the
// third kernel is rewritten.
// RUN: %prep
// RUN: not %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void dropped_asm(const CUtensorMap *map_a, unsigned *out) {
  unsigned id;
  asm volatile("prefetch.tensormap [%1];\n\tmov.u32 %0, %clusterid.x;" : "=r"(id) : "l"(map_a));
  out[0] = id;
}
// CHECK: :[[@LINE-5]]:{{[0-9]+}}: error: descriptor 'map_a' of kernel 'dropped_asm' is left by reference: clang reports 1 error in code this descriptor relies on [tma-201]
// CHECK: note: compiler error: invalid % escape in inline assembly string

#define PREFETCH_B_AND_ID(id) \
  asm volatile("prefetch.tensormap [%1];\n\tmov.u32 %0, %clusterid.y;" : "=r"(id) : "l"(map_b))
__global__ void in_macro(const CUtensorMap *map_b, unsigned *out) {
  unsigned id;
  PREFETCH_B_AND_ID(id);
  out[0] = id;
}
// CHECK: :[[@LINE-5]]:{{[0-9]+}}: error: descriptor 'map_b' of kernel 'in_macro' is left by reference: clang reports 1 error in code this descriptor relies on [tma-201]

__global__ void beside(const CUtensorMap *map_c, unsigned *out) {
  unsigned id;
  asm volatile("mov.u32 %0, %clusterid.z;" : "=r"(id));
  asm volatile("prefetch.tensormap [%0];" :: "l"(map_c) : "memory");
  out[0] = id;
}
// CHECK: :[[@LINE-6]]:{{[0-9]+}}: warning: kernel 'beside' reads descriptor 'map_c' through global memory; now passed by value [tma-001]
// CHECK: 1 kernel rewritten, 2 refused
// CHECK-FIXES: {{^}}__global__ void dropped_asm(const CUtensorMap *map_a, unsigned *out) {
// CHECK-FIXES: {{^}}__global__ void in_macro(const CUtensorMap *map_b, unsigned *out) {
// CHECK-FIXES: {{^}}__global__ void beside(const __grid_constant__ CUtensorMap map_c, unsigned *out) {

int main() {
  CUtensorMap ha{}, hb{}, hc{};
  CUtensorMap *da, *db, *dc;
  unsigned *out;
  cudaMalloc(&out, sizeof(unsigned));
  cudaMalloc(&da, sizeof(CUtensorMap));
  cudaMalloc(&db, sizeof(CUtensorMap));
  cudaMalloc(&dc, sizeof(CUtensorMap));
  cudaMemcpy(da, &ha, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(db, &hb, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, &hc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  dropped_asm<<<1, 1>>>(da, out);
  in_macro<<<1, 1>>>(db, out);
  beside<<<1, 1>>>(dc, out);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 0;
}
