// R6 (tma-106): by value the descriptor takes 128 bytes of parameter space;
// a kernel already near the 32764-byte limit (CUDA 12.1+) is refused.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

struct Coefficients {
  float values[8160]; // 32640 bytes
};

__global__ void big_params(const CUtensorMap *map, Coefficients coeffs, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = coeffs.values[threadIdx.x];
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'big_params' is left by reference: by value, the parameters of 'big_params' would take 32776 bytes, above the 32764-byte limit [tma-106]

int main() {
  static Coefficients c{};
  CUtensorMap h{};
  CUtensorMap *d;
  float *out;
  cudaMalloc(&out, 4096);
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  big_params<<<1, 32>>>(d, c, out);
  cudaFree(d);
  return 0;
}
