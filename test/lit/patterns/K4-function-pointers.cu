// K4: launches through a function pointer whose every possible target is a
// kernel the tool rewrites. The pointer is a local variable set only from
// kernels (a conditional over template instantiations, an assignment, two
// different kernels) and used only to launch: each launch is a launch of
// every target, all of them change together, and a written function type
// loses the '*' of the descriptor parameter.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return e_; } while (0)

namespace gemm {
template <bool kSwizzle>
__global__ void tile_load(const CUtensorMap *a_map, const CUtensorMap *b_map, float *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(a_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(b_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(a_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(b_map) : "memory");
  out[threadIdx.x] = kSwizzle ? 1.f : 2.f;
}
// CHECK-MESSAGES: warning: kernel 'gemm::tile_load' reads descriptor 'a_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'gemm::tile_load' reads descriptor 'b_map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void tile_load(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float *out) {

// The conditional over two instantiations of one template.
cudaError_t run(const CUtensorMap &a, const CUtensorMap &b, float *out, bool swizzle,
                cudaStream_t stream) {
  CUtensorMap *d_a, *d_b;
  CUDA_CHECK(cudaMallocAsync(&d_a, sizeof(CUtensorMap), stream));
  CUDA_CHECK(cudaMallocAsync(&d_b, sizeof(CUtensorMap), stream));
  CUDA_CHECK(cudaMemcpyAsync(d_a, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_b, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream));
  auto *kernel = swizzle ? tile_load<true> : tile_load<false>;
  kernel<<<1, 32, 0, stream>>>(d_a, d_b, out);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaFreeAsync(d_a, stream));
  CUDA_CHECK(cudaFreeAsync(d_b, stream));
  return cudaSuccess;
}
// CHECK-FIXES: {{^}}cudaError_t run(const CUtensorMap &a, const CUtensorMap &b, float *out, bool swizzle,
// CHECK-FIXES-NEXT: {{^}}                cudaStream_t stream) {
// CHECK-FIXES-NEXT: {{^}}  auto *kernel = swizzle ? tile_load<true> : tile_load<false>;
// CHECK-FIXES-NEXT: {{^}}  kernel<<<1, 32, 0, stream>>>(a, b, out);
// CHECK-FIXES-NEXT: {{^}}  CUDA_CHECK(cudaGetLastError());
// CHECK-FIXES-NEXT: {{^}}  return cudaSuccess;
} // namespace gemm

namespace conv {
__global__ void forward(const CUtensorMap *map, float *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 1.f;
}
__global__ void backward(const CUtensorMap *map, float *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.cta [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = -1.f;
}
// CHECK-MESSAGES: warning: kernel 'conv::forward' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'conv::backward' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void forward(const __grid_constant__ CUtensorMap map, float *out) {
// CHECK-FIXES: {{^}}__global__ void backward(const __grid_constant__ CUtensorMap map, float *out) {

// Two different kernels, a written function type, an assignment and a
// launch through '(*step)'.
int train(const CUtensorMap &map, float *out, int steps) {
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  void (*step)(const CUtensorMap *, float *) = forward;
  for (int i = 0; i < steps; ++i) {
    if (i == steps / 2)
      step = &backward;
    (*step)<<<1, 32>>>(d_map, out);
  }
  cudaFree(d_map);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
// CHECK-FIXES: {{^}}int train(const CUtensorMap &map, float *out, int steps) {
// CHECK-FIXES-NEXT: {{^}}  void (*step)(const CUtensorMap, float *) = forward;
// CHECK-FIXES: {{^}}    (*step)<<<1, 32>>>(map, out);
// CHECK-FIXES-NEXT: {{^}}  }
// CHECK-FIXES-NEXT: {{^}}  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
} // namespace conv

// CHECK-MESSAGES: 3 kernels rewritten, 0 refused (descriptors: 4 by value, 0 refused)

int main() {
  CUtensorMap a{}, b{};
  float *out;
  cudaMalloc(&out, 32 * sizeof(float));
  gemm::run(a, b, out, true, nullptr);
  return conv::train(a, out, 4);
}
