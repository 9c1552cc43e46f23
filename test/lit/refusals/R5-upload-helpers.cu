// H6 refusals (tma-105): an upload helper is rewritten only when no other
// translation unit can call it unverified, it ends by returning its local
// device copy made from a local CUtensorMap, and every caller keeps the
// result in a local variable that is only launched with and freed.
// The run is not the whole program (a second source, no compile database),
// so external linkage without a header declaration is a reason to refuse;
// project/whole-program.test has the whole-program runs.
// RUN: %prep
// RUN: : > %t.other.cu
// RUN: %tma %t.cu %t.other.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void a(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void b(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
// CHECK: warning: descriptor 'map' of kernel 'a' is left by reference: upload helper 'upload_a' has external linkage and no declaration in a header: other translation units may call it (make it static, or declare it in a header) [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'b' is left by reference: 'kept', which holds the result of 'upload_b', is used here other than in a launch or a free [tma-105]

CUtensorMap *upload_a() {
  CUtensorMap m{};
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &m, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return d;
}
static CUtensorMap *upload_b() {
  CUtensorMap m{};
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &m, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return d;
}
const CUtensorMap *g_saved;

int main() {
  CUtensorMap *da = upload_a();
  a<<<1, 1>>>(da);
  cudaFree(da);
  CUtensorMap *kept = upload_b();
  b<<<1, 1>>>(kept);
  g_saved = kept;
  return 0;
}
