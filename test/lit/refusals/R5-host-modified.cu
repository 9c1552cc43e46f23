// R5 (tma-105): by value, the kernel would see the host descriptor at the
// launch; when it changes after the copy, the launch cannot pass it.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void consume(const CUtensorMap *map) {
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
// CHECK: :[[@LINE-15]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'consume' is left by reference: host descriptor 'h' is modified between the copy and the launch; by value the kernel would see the new contents [tma-105]
// CHECK-NEXT: :[[@LINE-6]]:13: note: blocked here
// CHECK-NEXT: :[[@LINE-8]]:3: note: copied here

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
// CHECK: note: also: host descriptor 'h' is modified between the copy and the launch{{.*}}[tma-105]

int never_copied() {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  consume<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
// CHECK: note: also: no cudaMemcpy of a host descriptor into 'd' reaches this launch [tma-105]

int main() {
  CUtensorMap h{};
  changed_between(h);
  changed_in_loop(h, 3);
  never_copied();
  return 0;
}
