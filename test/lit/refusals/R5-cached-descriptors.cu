// R5 (tma-105): a cached device copy (H8) stays when the cache may hold
// anything but what the upload helper returned, or is used other than in
// launches and null tests. Nothing in the file changes.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void reset_k(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'reset_k' is left by reference: the cache 'd_reset' is assigned here other than from 'upload_a' [tma-105]
__global__ void freed_k(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'freed_k' is left by reference: the cache 'd_freed', which holds the result of 'upload_b', is used here other than in a launch or a null test [tma-105]

static CUtensorMap *upload_a() {
  CUtensorMap map{};
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return d;
}
static CUtensorMap *upload_b() {
  CUtensorMap map{};
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return d;
}

void run(CUtensorMap *other, bool refresh) {
  // May be pointed at another device copy.
  static CUtensorMap *d_reset = nullptr;
  if (!d_reset)
    d_reset = upload_a();
  if (refresh)
    d_reset = other;
  reset_k<<<1, 1>>>(d_reset);
  // Freed and reused: a host copy cannot be freed with cudaFree.
  static CUtensorMap *d_freed = nullptr;
  if (!d_freed)
    d_freed = upload_b();
  freed_k<<<1, 1>>>(d_freed);
  if (refresh) {
    cudaFree(d_freed);
    d_freed = nullptr;
  }
}
// CHECK: 0 kernels rewritten, 2 refused

int main() {
  run(nullptr, false);
  return 0;
}
