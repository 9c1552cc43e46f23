// tma-108: a declaration in a system header, or a file outside --in-root,
// is never edited, so the kernel is refused.
// RUN: %prep
// RUN: %tma --dry-run %t.cu -- -isystem %inputs/sysinc 2>&1 | %FileCheck %s
// RUN: mkdir -p %t.d && cd %t.d && %tma --in-root=%inputs/sysinc %t.cu -- -isystem %inputs/sysinc 2>&1 | %FileCheck %s --check-prefix=ROOT
// RUN: cmp %t.cu %t.orig.cu
#include <vendor_kernels.cuh>
#include <cuda_runtime.h>

__global__ void vendor_kernel(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'vendor_kernel' is left by reference: a declaration of 'vendor_kernel' is in a system header [tma-108]
// CHECK: warning: kernel 'local_kernel' reads descriptor 'map' through global memory; it can be passed by value [tma-001]

__global__ void local_kernel(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// ROOT: warning: descriptor 'map' of kernel 'vendor_kernel' is left by reference: a declaration of 'vendor_kernel' is in a system header [tma-108]
// ROOT: warning: descriptor 'map' of kernel 'local_kernel' is left by reference: '{{.*}}' would be edited but is outside --in-root {{.*}}sysinc [tma-108]

int main() {
  CUtensorMap h{};
  CUtensorMap *d, *e;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  vendor_kernel<<<1, 1>>>(d);
  cudaFree(d);
  cudaMalloc(&e, sizeof(CUtensorMap));
  cudaMemcpy(e, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  local_kernel<<<1, 1>>>(e);
  cudaFree(e);
  return 0;
}
