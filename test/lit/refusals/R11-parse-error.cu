// tma-201: a translation unit that does not parse is left untouched, the
// file is named, the compiler errors are listed, and the exit status is 2.
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
// CHECK: tma-modernize: error: '{{.*}}R11-parse-error.cu.tmp.cu' does not parse (1 compiler error); nothing in it is changed [tma-201]
// CHECK: R11-parse-error.cu.tmp.cu:[[@LINE-5]]:{{[0-9]+}}: note: compiler error: use of undeclared identifier 'undeclared_variable'
// CHECK: 1 translation unit (1 not parsed [tma-201])
