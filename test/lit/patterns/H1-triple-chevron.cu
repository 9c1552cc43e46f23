// H1: the launch passes the host descriptor; the device buffer's allocation,
// copy, free and declaration go, also when wrapped in an error-checking macro.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
                   cudaGetErrorString(err_));                                   \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)
// The macro definition itself is never edited.
// CHECK-FIXES: {{^}}    cudaError_t err_ = (call);{{ +}}\

namespace app {
__global__ void transform(const CUtensorMap *in_map, float *out, int n) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(in_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(in_map) : "memory");
  if (threadIdx.x < n)
    out[threadIdx.x] = 2.f * threadIdx.x + 1.f;
}

void run(const CUtensorMap &encoded, float *out, int n, cudaStream_t stream, int iterations) {
  for (int it = 0; it < iterations; ++it) {
    CUtensorMap *d_map = nullptr;
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&d_map), sizeof(CUtensorMap)));
    CHECK_CUDA(cudaMemcpy(d_map, &encoded, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
    transform<<<1, 128, 0, stream>>>(d_map, out, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaFree(d_map));
  }
}
} // namespace app
// CHECK-MESSAGES: warning: kernel 'app::transform' reads descriptor 'in_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 launch changed, 1 copy removed (1 alloc, 1 free), 1 fence removed
// CHECK-FIXES: {{^}}__global__ void transform(const __grid_constant__ CUtensorMap in_map, float *out, int n) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&in_map) : "memory");
// CHECK-FIXES: {{^}}  for (int it = 0; it < iterations; ++it) {
// CHECK-FIXES-NEXT: {{^}}    transform<<<1, 128, 0, stream>>>(encoded, out, n);
// CHECK-FIXES-NEXT: {{^}}    CHECK_CUDA(cudaGetLastError());
// CHECK-FIXES-NEXT: {{^}}  }

int main() {
  float *out;
  CHECK_CUDA(cudaMalloc(&out, 128 * sizeof(float)));
  CUtensorMap encoded{};
  app::run(encoded, out, 128, nullptr, 3);
  CHECK_CUDA(cudaFree(out));
  return 0;
}
