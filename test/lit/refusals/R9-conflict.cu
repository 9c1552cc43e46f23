// tma-109: one asm statement fences 'a' and also names 'b': removing the
// fence (for 'a') and writing '&b' inside it (for 'b') touch the same text,
// so both descriptors are refused rather than guessed at.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void two_maps(const CUtensorMap *a, const CUtensorMap *b) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(a), "l"(b) : "memory");
}
// (Their device copies share one declaration, so they form one group.)
// CHECK: warning: descriptor 'a' of kernel 'two_maps' is left by reference: two edits for this descriptor overlap [tma-109]
// CHECK: warning: descriptor 'b' of kernel 'two_maps' is left by reference: two edits for this descriptor overlap [tma-109]

int main() {
  CUtensorMap ha{}, hb{};
  CUtensorMap *da, *db;
  cudaMalloc(&da, sizeof(CUtensorMap));
  cudaMalloc(&db, sizeof(CUtensorMap));
  cudaMemcpy(da, &ha, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(db, &hb, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  two_maps<<<1, 1>>>(da, db);
  cudaFree(da);
  cudaFree(db);
  return 0;
}
