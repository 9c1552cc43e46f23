// H14, descriptor arrays by value from a std::array<CUtensorMap, N> (copied
// through `.data()`) and from a std::vector<CUtensorMap> constructed with a
// constant count and never resized (copied with `size() *
// sizeof(CUtensorMap)`), launched with cudaLaunchKernelEx and `<<<>>>`. The
// kernel is declared before it is defined: the array type is defined once,
// after the includes, where both declarations see it.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <array>
#include <vector>

__global__ void per_head(const CUtensorMap *heads, int *out, int n);
// CHECK-FIXES: {{^}}#include <vector>
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: {{^}}#ifndef TMA_DESCRIPTOR_ARRAY_DEFINED
// CHECK-FIXES: {{^}}__global__ void per_head(const __grid_constant__ TmaDescriptorArray<8> heads, int *out, int n);

__global__ void per_head(const CUtensorMap *heads, int *out, int n) {
  const CUtensorMap *mine = heads + blockIdx.x % n;
  asm volatile("prefetch.tensormap [%0];" ::"l"(mine) : "memory");
  out[blockIdx.x] = int(mine->opaque[0]);
}
// CHECK-MESSAGES: warning: kernel 'per_head' reads 8 descriptors 'heads' through global memory, indexed at run time; now passed by value as one TmaDescriptorArray<8> [tma-001]
// CHECK-FIXES: {{^}}__global__ void per_head(const __grid_constant__ TmaDescriptorArray<8> heads, int *out, int n) {
// CHECK-FIXES-NEXT: {{^}}  const CUtensorMap *mine = &heads[blockIdx.x % n];

__global__ void per_expert(const CUtensorMap *experts, int *out) {
  const CUtensorMap &e = experts[threadIdx.x % 6];
  out[threadIdx.x] = int(e.opaque[1]);
}
// CHECK-MESSAGES: warning: kernel 'per_expert' reads 6 descriptors 'experts' through global memory, indexed at run time; now passed by value as one TmaDescriptorArray<6> [tma-001]
// CHECK-FIXES: {{^}}__global__ void per_expert(const __grid_constant__ TmaDescriptorArray<6> experts, int *out) {
// CHECK-FIXES-NEXT: {{^}}  const CUtensorMap &e = experts[threadIdx.x % 6];

int launch_heads(int *out) {
  std::array<CUtensorMap, 8> heads{};
  CUtensorMap *d_heads;
  cudaMalloc(&d_heads, sizeof(heads));
  cudaMemcpy(d_heads, heads.data(), sizeof(heads), cudaMemcpyHostToDevice);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(8);
  config.blockDim = dim3(1);
  cudaLaunchKernelEx(&config, per_head, d_heads, out, 8);
  cudaFree(d_heads);
  return 0;
}
// CHECK-FIXES-LABEL: int launch_heads(int *out) {
// CHECK-FIXES-NEXT: {{^}}  std::array<CUtensorMap, 8> heads{};
// CHECK-FIXES-NEXT: {{^}}  cudaLaunchConfig_t config = {};
// CHECK-FIXES: {{^}}  cudaLaunchKernelEx(&config, per_head, TmaDescriptorArray<8>::copyOf(heads.data()), out, 8);
// CHECK-FIXES-NEXT: {{^}}  return 0;

int launch_experts(int *out) {
  std::vector<CUtensorMap> experts(6);
  for (size_t i = 0; i < experts.size(); ++i)
    experts[i].opaque[1] = i;
  CUtensorMap *d_experts = nullptr;
  cudaMalloc(&d_experts, experts.size() * sizeof(CUtensorMap));
  cudaMemcpy(d_experts, experts.data(), experts.size() * sizeof(CUtensorMap),
             cudaMemcpyHostToDevice);
  per_expert<<<1, 32>>>(d_experts, out);
  cudaDeviceSynchronize();
  cudaFree(d_experts);
  return 0;
}
// CHECK-FIXES-LABEL: int launch_experts(int *out) {
// CHECK-FIXES: {{^}}    experts[i].opaque[1] = i;
// CHECK-FIXES-NEXT: {{^}}  per_expert<<<1, 32>>>(TmaDescriptorArray<6>::copyOf(experts.data()), out);
// CHECK-FIXES-NEXT: {{^}}  cudaDeviceSynchronize();
// CHECK-FIXES-NEXT: {{^}}  return 0;

int main() {
  int *out;
  cudaMalloc(&out, 32 * sizeof(int));
  launch_heads(out);
  return launch_experts(out);
}
// CHECK-MESSAGES: tma-modernize: 2 kernels rewritten, 0 refused (descriptors: 2 by value, 0 refused); 2 launches changed, 2 copies removed (2 alloc, 2 free), 0 fences removed
