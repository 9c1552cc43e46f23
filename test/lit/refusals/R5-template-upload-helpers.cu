// H6 refusals for template upload helpers (tma-105): the template's text is
// edited once for all its instantiations, so one instantiation whose caller
// keeps the device copy elsewhere, or an explicit specialization with a body
// of its own, keeps every caller of every instantiation by reference.
// The storage rule takes the explicit specialization's case: it changes no
// type, so the specialization's body needs no edit of its own; its uses of
// the helper's result are classified like any other, and the launch passes
// *m.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void k_kept(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void k_other(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void k_special(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
// CHECK: warning: descriptor 'map' of kernel 'k_kept' is left by reference: 'large', which holds the result of 'upload_kept', is used here other than in a launch or a free [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'k_other' is left by reference: 'large', which holds the result of 'upload_kept', is used here other than in a launch or a free [tma-105]
// CHECK: warning: kernel 'k_special' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: 1 kernel rewritten, 2 refused
// CHECK-FIXES: {{^}}  k_other<<<1, 1>>>(small);
// CHECK-FIXES: {{^}}  k_special<<<1, 1>>>(*m);
// CHECK-FIXES-NEXT: {{^}}  delete m;

template <int Rows>
static CUtensorMap *upload_kept(const float *base) {
  CUtensorMap host_map{};
  (void)base;
  CUtensorMap *dev_map = nullptr;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev_map;
}
template <int Rows>
static CUtensorMap *upload_special(const float *base) {
  CUtensorMap host_map{};
  (void)base;
  CUtensorMap *dev_map = nullptr;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev_map;
}
// One shared device copy for the 128-row case: not the template's body.
template <>
CUtensorMap *upload_special<128>(const float *base) {
  static CUtensorMap *shared_copy = upload_special<64>(base);
  return shared_copy;
}
const CUtensorMap *g_saved;

void run_kept(const float *a) {
  // This instantiation alone would be rewritten ...
  CUtensorMap *small = upload_kept<64>(a);
  k_other<<<1, 1>>>(small);
  cudaFree(small);
  // ... but this one keeps its device copy.
  CUtensorMap *large = upload_kept<128>(a);
  k_kept<<<1, 1>>>(large);
  g_saved = large;
}

void run_special(const float *a) {
  CUtensorMap *m = upload_special<64>(a);
  k_special<<<1, 1>>>(m);
  cudaFree(m);
}
