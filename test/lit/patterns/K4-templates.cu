// K4: a template kernel's text is edited once, whatever its instantiations;
// every instantiation is analysed and launched with the host descriptor.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

template <typename T, bool kPrefetch>
__global__ void load(const CUtensorMap *map, T *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  if constexpr (kPrefetch)
    asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = T(1);
}
// CHECK-MESSAGES: warning: kernel 'load' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 1 by value, 0 refused); 2 launches changed, 1 copy removed
// CHECK-FIXES: {{^}}__global__ void load(const __grid_constant__ CUtensorMap map, T *out) {
// CHECK-FIXES-NEXT: {{^}}  if constexpr (kPrefetch)
// CHECK-FIXES-NEXT: {{^}}    asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory");

template <typename T>
void run(const CUtensorMap &h, T *out, bool prefetch) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  if (prefetch)
    load<T, true><<<1, 32>>>(d, out);
  else
    load<T, false><<<1, 32>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES: {{^}}    load<T, true><<<1, 32>>>(h, out);
// CHECK-FIXES: {{^}}    load<T, false><<<1, 32>>>(h, out);

int main() {
  CUtensorMap h{};
  float *f;
  int *i;
  cudaMalloc(&f, 32 * sizeof(float));
  cudaMalloc(&i, 32 * sizeof(int));
  run(h, f, true);
  run(h, i, false);
  return 0;
}
