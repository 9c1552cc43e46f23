// tma-201: a compiler error that may hide descriptors. A syntax error in a
// kernel's parameter list drops the kernel from the AST: without this rule
// the run would say "0 kernels rewritten, 0 refused" and exit 0. An error
// in the user's code outside every function body, or in a statement that
// names a descriptor type (CUtensorMap, or a user alias of it), is said at
// its line, and the exit status is 2. The hidden code could launch any
// kernel of the file (or one with external linkage): the kernel that parses
// is refused too, and the file is left byte-identical.
// RUN: %prep
// RUN: not %tma %t.cu > %t.out 2>&1
// RUN: %FileCheck %s --check-prefix=HIDE --input-file=%t.out
// RUN: %FileCheck %s --input-file=%t.out
// RUN: cp %t.orig.cu %t.cu && %tma %t.cu; test $? -eq 2
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

using TileMap = CUtensorMap;

__global__ void seen(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 1;
}

void host_helper() {
  TileMap *staged = make_map_somewhere();
  int unrelated = also_undeclared();
}
// HIDE: R11-hidden-kernel.cu.tmp.cu:[[@LINE-3]]:{{[0-9]+}}: error: this compiler error may hide descriptors{{.*}}[tma-201]
// HIDE-NEXT: note: compiler error: use of undeclared identifier 'make_map_somewhere'
// HIDE-NOT: 'also_undeclared'

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, sizeof(int));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  seen<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK-NOT: 'hidden'
// CHECK: error: descriptor 'map' of kernel 'seen' is left by reference: '{{.*}}R11-hidden-kernel.cu.tmp.cu' has errors that may hide code from the analysis; it may launch kernel 'seen' (give it the right flags, or leave it out) [tma-201]
// CHECK: 0 kernels rewritten, 1 refused

__global__ void hidden(const CUtensorMap *map, int *out {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// HIDE: R11-hidden-kernel.cu.tmp.cu:[[@LINE-3]]:{{[0-9]+}}: error: this compiler error may hide descriptors: it is outside any function body or in a statement that names a descriptor type, so a kernel, a parameter or a declaration may be missing from the analysis of '{{.*}}R11-hidden-kernel.cu.tmp.cu' (fix it, or give the flags of the build) [tma-201]
// HIDE-NEXT: R11-hidden-kernel.cu.tmp.cu:[[@LINE-4]]:{{[0-9]+}}: note: compiler error: expected ')'
// The kernel's body runs to the end of the file.
// HIDE: R11-hidden-kernel.cu.tmp.cu:{{[0-9]+}}:{{[0-9]+}}: error: this compiler error may hide descriptors{{.*}}[tma-201]
// HIDE-NEXT: note: compiler error: expected function body after function declarator
// HIDE-NOT: may hide descriptors
// HIDE: 0 kernels rewritten, 1 refused
