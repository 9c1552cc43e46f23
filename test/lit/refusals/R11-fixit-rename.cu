// tma-201, the unsafe twin of E6-dependent-template-names: clang also offers
// a fix-it when it corrects a misspelt name ("did you mean"), and parses on
// with the name it guessed. That AST is not the code the user's compiler
// sees: the guess may be another type or function. Only the missing
// `template` keyword is trusted; an error with any other fix-it outside a
// function body may hide descriptors, and the kernel is refused.
// RUN: %prep
// RUN: not %tma %t.cu > %t.out 2>&1
// RUN: %FileCheck %s --input-file=%t.out
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

struct RowCounter {
  int rows;
};

__global__ void count_rows(const CUtensorMap *map, RowCountr *counter) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  counter->rows = 1;
}
// CHECK: R11-fixit-rename.cu.tmp.cu:[[@LINE-4]]:{{[0-9]+}}: error: this compiler error may hide descriptors{{.*}}[tma-201]
// CHECK-NEXT: note: compiler error: unknown type name 'RowCountr'; did you mean 'RowCounter'?
// CHECK: error: descriptor 'map' of kernel 'count_rows' is left by reference{{.*}}[tma-201]
// CHECK: 0 kernels rewritten, 1 refused

int main() {
  CUtensorMap h{};
  CUtensorMap *d = nullptr;
  RowCounter *counter = nullptr;
  cudaMalloc(&counter, sizeof(RowCounter));
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  count_rows<<<1, 1>>>(d, counter);
  cudaFree(d);
  cudaFree(counter);
  return 0;
}
