// H13: a static cache (H8) that is pointed at something else, or freed and
// filled again. The H8 flow cannot pass the helper's descriptor for it, but
// every value it can hold is classified by the storage rule (what the helper
// returns, and a parameter that every call in this program passes null), so
// it is retargeted: the helpers' cudaMalloc and cudaMemcpy become new and an
// assignment, the cudaFree a delete, and the launches pass *cache.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void reset_k(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: kernel 'reset_k' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: note: 'd_reset' now holds the descriptor in host memory
__global__ void freed_k(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: kernel 'freed_k' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: note: 'd_freed' now holds the descriptor in host memory

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
  // May be pointed at what run() is given: null in every call here.
  static CUtensorMap *d_reset = nullptr;
  if (!d_reset)
    d_reset = upload_a();
  if (refresh)
    d_reset = other;
  reset_k<<<1, 1>>>(d_reset);
  // Freed and filled again: the free becomes a delete.
  static CUtensorMap *d_freed = nullptr;
  if (!d_freed)
    d_freed = upload_b();
  freed_k<<<1, 1>>>(d_freed);
  if (refresh) {
    cudaFree(d_freed);
    d_freed = nullptr;
  }
}
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *d = map;
// CHECK-FIXES: {{^}}  reset_k<<<1, 1>>>(*d_reset);
// CHECK-FIXES: {{^}}  freed_k<<<1, 1>>>(*d_freed);
// CHECK-FIXES: {{^}}    delete d_freed;
// CHECK: 2 kernels rewritten, 0 refused

int main() {
  run(nullptr, false);
  return 0;
}
