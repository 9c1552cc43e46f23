// R1 across kernels (tma-105): one kernel retargets the device copy with
// tensormap.replace (tma-101), another only reads it. By value the reader
// would see the host descriptor, not the retargeted one, so it is refused too.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
// The same when the writer's launch is spelled in a macro body and so is
// never traced to the device copy (tma-107): the reader is still refused.
// RUN: sed -e 's|^  retarget<<<1, 1>>>(d, base);|  RETARGET();|' -e 's|^int main() {|#define RETARGET() retarget<<<1, 1>>>(d, base)\nint main() {|' %t.cu > %t.macro.cu
// RUN: cp %t.macro.cu %t.macro.orig.cu
// RUN: %tma %t.macro.cu 2>&1 | %FileCheck %s --check-prefix=MACRO
// RUN: cmp %t.macro.cu %t.macro.orig.cu
// MACRO: warning: descriptor 'map' of kernel 'reader' is left by reference: the device copy passed here is also passed to 'retarget'{{.*}}[tma-105]
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void retarget(CUtensorMap *map, const float *base) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
               :: "l"(map), "l"(reinterpret_cast<uint64_t>(base)) : "memory");
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}

__global__ void reader(const CUtensorMap *map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'retarget' is left by reference: 'map' is modified by 'tensormap.replace{{.*}}' [tma-101]
// CHECK: warning: descriptor 'map' of kernel 'reader' is left by reference: the device copy passed here is also passed to 'retarget', whose descriptor stays by reference and may be changed on the device [tma-105]
// CHECK-NEXT: :[[@LINE+12]]:{{[0-9]+}}: note: blocked here
// CHECK-NEXT: :[[@LINE+10]]:{{[0-9]+}}: note: 'retarget' is launched with it here
// CHECK: 0 kernels rewritten, 2 refused

int main() {
  CUtensorMap h{};
  float *base;
  cudaMalloc(&base, 4096);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  retarget<<<1, 1>>>(d, base);
  reader<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
