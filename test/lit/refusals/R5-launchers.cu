// H7 refusals (tma-105): a launcher is followed to its callers only when its
// parameter is nothing but one launch's descriptor argument, every use of the
// launcher is a direct call, and no other translation unit can call it
// without being verified (internal linkage, or a declaration in a header).
// The run is not the whole program (a second source, no compile database),
// so external linkage without a header declaration is a reason to refuse;
// project/whole-program.test has the whole-program runs.
// RUN: %prep
// RUN: : > %t.other.cu
// RUN: %tma %t.cu %t.other.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void a(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void b(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void c(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void e(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
// CHECK: warning: descriptor 'map' of kernel 'a' is left by reference: launcher 'launch_a' has external linkage and no declaration in a header: other translation units may call it (make it static, or declare it in a header) [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'b' is left by reference: parameter 'd' of launcher 'launch_b' is used here other than as the descriptor argument of one launch [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'c' is left by reference: 'launch_c' is used here other than in a direct call [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'e' is left by reference: launcher 'launch_e' is not called in the given sources [tma-105]

void launch_a(const CUtensorMap *d) { a<<<1, 1>>>(d); }
static void launch_b(const CUtensorMap *d) {
  std::printf("%p\n", (const void *)d);
  b<<<1, 1>>>(d);
}
static void launch_c(const CUtensorMap *d) { c<<<1, 1>>>(d); }
static void launch_e(const CUtensorMap *d) { e<<<1, 1>>>(d); }

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_a(d);
  launch_b(d);
  void (*fp)(const CUtensorMap *) = launch_c;
  fp(d);
  cudaFree(d);
  return 0;
}
