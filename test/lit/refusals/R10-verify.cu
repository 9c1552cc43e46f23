// tma-110: the verification re-parse catches what the analysis cannot see.
// Here the type of an alias is spelled with decltype of the parameter, so by
// value it would no longer be a pointer; the edited TU would not compile.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
// With --no-verify the broken rewrite goes through: this is what the
// verification prevents.
// RUN: %tma --no-verify --dry-run %t.cu 2>&1 | %FileCheck %s --check-prefix=NOVERIFY
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spelled_by_decltype(const CUtensorMap *map) {
  decltype(map) alias = map;
  asm volatile("prefetch.tensormap [%0];" :: "l"(alias) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'spelled_by_decltype' is left by reference: the rewritten code does not compile: {{.*}}: error: {{.*}} [tma-110]
// NOVERIFY: +  decltype(map) alias = &map;

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spelled_by_decltype<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
