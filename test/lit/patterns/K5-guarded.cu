// K5: code under __CUDA_ARCH__ exists only in the device pass, code under
// #ifndef __CUDA_ARCH__ only in the host pass: both are analysed and their
// edits merged.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void guarded(const CUtensorMap *desc, int *out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(desc) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(desc) : "memory");
  out[threadIdx.x] = 1;
#else
  out[threadIdx.x] = 0;
#endif
}
// CHECK-MESSAGES: :[[@LINE-9]]:{{[0-9]+}}: warning: kernel 'guarded' reads descriptor 'desc'
// CHECK-FIXES: {{^}}__global__ void guarded(const __grid_constant__ CUtensorMap desc, int *out) {
// CHECK-FIXES-NEXT: {{^}}#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&desc) : "memory");

#ifndef __CUDA_ARCH__
static int run_guarded(int *out) {
  CUtensorMap host_desc{};
  CUtensorMap *dev_desc;
  cudaMalloc(&dev_desc, sizeof(CUtensorMap));
  cudaMemcpy(dev_desc, &host_desc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  guarded<<<1, 32>>>(dev_desc, out);
  cudaFree(dev_desc);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
#endif
// CHECK-FIXES: {{^}}static int run_guarded(int *out) {
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap host_desc{};
// CHECK-FIXES-NEXT: {{^}}  guarded<<<1, 32>>>(host_desc, out);
// CHECK-FIXES-NEXT: {{^}}  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;

int main() {
  int *out;
  cudaMalloc(&out, 32 * sizeof(int));
#ifndef __CUDA_ARCH__
  return run_guarded(out);
#else
  return 0;
#endif
}
