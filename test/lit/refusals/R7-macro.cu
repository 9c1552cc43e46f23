// tma-107: text that would change is spelled inside a macro body; the macro
// definition is never edited. A fence mixed with other PTX in one asm
// statement is not split either.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void via_macro(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
#define LAUNCH_WITH_GLOBAL_MAP() via_macro<<<1, 1>>>(g_dev_map)
// CHECK: warning: descriptor 'map' of kernel 'via_macro' is left by reference: the argument 'g_dev_map' is spelled inside a macro body [tma-107]

__global__ void mixed_asm(const CUtensorMap *map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\n\t"
               "prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'mixed_asm' is left by reference: the acquire fence on 'map' shares its asm statement with other instructions [tma-107]

int main() {
  CUtensorMap h{};
  CUtensorMap *g_dev_map;
  cudaMalloc(&g_dev_map, sizeof(CUtensorMap));
  cudaMemcpy(g_dev_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  LAUNCH_WITH_GLOBAL_MAP();
  mixed_asm<<<1, 1>>>(g_dev_map);
  cudaFree(g_dev_map);
  return 0;
}
