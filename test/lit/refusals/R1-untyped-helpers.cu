// R1 (tma-101): untyped helpers (`void *`) that do more than hand the map
// to the tensor-map operand of a TMA instruction: a write through the
// pointer, a function whose body is not visible, the map in another operand
// of a TMA instruction, an `auto` alias (a pointer to const once the
// parameter is by value) passed on as `void *`.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>

__device__ void clear_first_word(void *map) { *(unsigned *)map = 0u; }
__global__ void clears(CUtensorMap *map) { clear_first_word(map); }
// CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'clears' is left by reference: 'map' is passed to 'clear_first_word' as 'void *', a pointer to non-const [tma-101]
// CHECK-NEXT: :[[@LINE-2]]:44: note: blocked here
// CHECK-NEXT: :[[@LINE-4]]:47: note: in 'clear_first_word': the descriptor is written ('*(unsigned *)map = 0u')

__device__ void record_map(void *map);
__global__ void records(CUtensorMap *map) { record_map(map); }
// CHECK: warning: descriptor 'map' of kernel 'records' is left by reference: 'map' is passed to 'record_map' as 'void *', a pointer to non-const [tma-101]

template <int Rows>
__device__ void store_from_map(void *map, void *tile_map) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(tile_map), "l"(map), "r"(0), "r"(Rows) : "memory");
}
__global__ void wrong_operand(CUtensorMap *map, uint64_t *tile_map) {
  store_from_map<32>(map, tile_map);
}
// CHECK: warning: descriptor 'map' of kernel 'wrong_operand' is left by reference: 'map' is passed to 'store_from_map' as 'void *', a pointer to non-const [tma-101]
// CHECK: note: in 'store_from_map': 'descriptor pointer' is used by 'cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, %2, %3 ], [%1]', not known to accept a kernel-parameter address

__device__ void store_tile(void *map) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
               :: "l"(map), "r"(0), "r"(0u) : "memory");
}
__global__ void through_alias(CUtensorMap *map) {
  auto alias = map;
  store_tile(alias);
}
// CHECK: warning: descriptor 'map' of kernel 'through_alias' is left by reference: 'descriptor pointer' is passed to 'store_tile' as 'void *', a pointer to non-const [tma-101]

int main() {
  CUtensorMap h{};
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  clears<<<1, 1>>>(d);
  records<<<1, 1>>>(d);
  wrong_operand<<<1, 1>>>(d, nullptr);
  through_alias<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
// CHECK: tma-modernize: 0 kernels rewritten, 4 refused (descriptors: 0 by value, 4 refused, tma-101: 4)
