// tma-201: a compiler error in code the descriptor relies on (here its
// launch) refuses it: the file is left untouched, the errors are listed, and
// the exit status is 2. A file that cannot be parsed at all is tested in
// cli/several-files.test.
// RUN: %prep
// RUN: not %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %tma %t.cu; test $? -eq 2
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void fine(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  fine<<<1, 1>>>(d, undeclared_variable);
  cudaFree(d);
  return 0;
}
// CHECK: :[[@LINE-13]]:{{[0-9]+}}: error: descriptor 'map' of kernel 'fine' is left by reference: clang reports 1 error in code this descriptor relies on [tma-201]
// CHECK: R11-parse-error.cu.tmp.cu:[[@LINE-5]]:{{[0-9]+}}: note: compiler error: use of undeclared identifier 'undeclared_variable'
// CHECK: (descriptors: 0 by value, 1 refused, tma-201: 1){{.*}}; 1 pre-existing clang error left untouched
