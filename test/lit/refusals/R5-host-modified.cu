// R5 (tma-105): by value, the kernel would see the host descriptor at the
// launch; when it changes after the copy, the launch cannot pass it. The
// storage rule keeps the copy instead, as an assignment into host memory
// made where the cudaMemcpy was, and the launches pass *d: the kernel sees
// what was copied. A device buffer that nothing is copied into stays.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void consume(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}

__global__ void consume_uncopied(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}

static void reencode(CUtensorMap *m) { m->opaque[0] += 1; }

int changed_between(CUtensorMap h) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  reencode(&h);
  consume<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  reencode(&h);
// CHECK-FIXES-NEXT: {{^}}  consume<<<1, 1>>>(*d);

int changed_in_loop(CUtensorMap h, int n) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  for (int i = 0; i < n; ++i) {
    consume<<<1, 1>>>(d);
    h.opaque[1] = i; // after the launch, but before the next one
  }
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}    consume<<<1, 1>>>(*d);
// CHECK-FIXES-NEXT: {{^}}    h.opaque[1] = i; // after the launch, but before the next one

int never_copied() {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  consume_uncopied<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
// CHECK-DAG: warning: kernel 'consume' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-DAG: warning: descriptor 'map' of kernel 'consume_uncopied' is left by reference: no cudaMemcpy of a host descriptor into 'd' reaches this launch [tma-105]
// CHECK-DAG: note: also: the storage rule cannot retarget it: no host-to-device copy of a CUtensorMap into 'd' is seen [storage.unclassified-use]
// CHECK: 1 kernel rewritten, 1 refused

int main() {
  CUtensorMap h{};
  changed_between(h);
  changed_in_loop(h, 3);
  never_copied();
  return 0;
}
