// A comment block directly above removed statements, with no blank line
// between them and nothing but removed statements after it up to the next
// blank line or closing brace, described them: it is removed with them.
// Every other comment stays. clang-tidy's fix removes the same.
// RUN: %prep
// RUN: cp %t.cu %t.tidy.cu
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu --strict-whitespace
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
// RUN: %if plugin %{ %tidy --fix %t.tidy.cu -- %cuda-args && diff %t.tidy.cu %t.cu %}
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void tiles(const CUtensorMap *map, int *out) {
  // The descriptor arrived by a host-to-device copy: order it before TMA use.
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");

  // Prefetch the descriptor.
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 1;
}
// CHECK-MESSAGES: warning: kernel 'tiles' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES:      {{^}}__global__ void tiles(const __grid_constant__ CUtensorMap map, int *out) {
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: {{^}}  // Prefetch the descriptor.

__global__ void other(const CUtensorMap *map, int *out) {
  /* Acquire: the copy came
     from the host. */
  // (Two comments, one block.)
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
}
// CHECK-MESSAGES: warning: kernel 'other' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES:      {{^}}__global__ void other(const __grid_constant__ CUtensorMap map, int *out) {
// CHECK-FIXES-NEXT: {{^}}}

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, sizeof(int));
  // Copy descriptor to device
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice); // one copy

  // Launch, then free the copy: the free goes, this comment stays with the launch.
  tiles<<<1, 1>>>(d, out);
  cudaFree(d);

  // A second copy, kept apart by a blank line.

  CUtensorMap *e;
  cudaMalloc(&e, sizeof(CUtensorMap));
  cudaMemcpy(e, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  // Launch it.
  cudaFree(nullptr); // not removed: the comment above it stays
  other<<<1, 1>>>(e, out);
  // Done with it: a kept statement follows, so this stays.
  cudaFree(e);
  return 0;
}
// CHECK-FIXES:      {{^}}  cudaMalloc(&out, sizeof(int));
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: {{^}}  // Launch, then free the copy: the free goes, this comment stays with the launch.
// CHECK-FIXES-NEXT: {{^}}  tiles<<<1, 1>>>(h, out);
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: {{^}}  // A second copy, kept apart by a blank line.
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: {{^}}  // Launch it.
// CHECK-FIXES-NEXT: {{^}}  cudaFree(nullptr); // not removed: the comment above it stays
// CHECK-FIXES-NEXT: {{^}}  other<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  // Done with it: a kept statement follows, so this stays.
// CHECK-FIXES-NEXT: {{^}}  return 0;
