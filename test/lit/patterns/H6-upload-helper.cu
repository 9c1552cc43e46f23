// H6: an upload helper encodes nothing new, allocates, copies and returns the
// device pointer. It returns the CUtensorMap by value instead; its callers'
// variables change type, their launches pass them by value, their frees go.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK_CUDA(call)                                                          \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess)                                                        \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(e_));                       \
  } while (0)

namespace gemm {
__global__ void mma(const CUtensorMap *a_map, const CUtensorMap *b_map, float *c) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(a_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(a_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(b_map) : "memory");
  c[threadIdx.x] = 0.0f;
}
// CHECK-MESSAGES: warning: kernel 'gemm::mma' reads descriptor 'a_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'gemm::mma' reads descriptor 'b_map' through global memory; now passed by value [tma-001]

namespace {
// Encodes a rows x cols fp32 matrix and uploads the descriptor.
CUtensorMap *upload_map(const float *base, int rows, int cols) {
  CUtensorMap map{};
  (void)base, (void)rows, (void)cols; // cuTensorMapEncodeTiled(&map, ...) in real code
  CUtensorMap *d_map = nullptr;
  CHECK_CUDA(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  return d_map;
}
} // namespace
// CHECK-FIXES: {{^}}CUtensorMap upload_map(const float *base, int rows, int cols) {
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap map{};
// CHECK-FIXES-NEXT: {{^}}  (void)base, (void)rows, (void)cols; // cuTensorMapEncodeTiled(&map, ...) in real code
// CHECK-FIXES-NEXT: {{^}}  return map;
// CHECK-FIXES-NEXT: {{^}}}

void run(const float *a, const float *b, float *c, cudaStream_t stream) {
  CUtensorMap *a_map = upload_map(a, 64, 64);
  const CUtensorMap *b_map = upload_map(b, 64, 64);
  for (int i = 0; i < 3; ++i)
    mma<<<1, 32, 0, stream>>>(a_map, b_map, c);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(a_map));
  CHECK_CUDA(cudaFree((void *)b_map));
}
// CHECK-FIXES: {{^}}  CUtensorMap a_map = upload_map(a, 64, 64);
// CHECK-FIXES-NEXT: {{^}}  const CUtensorMap b_map = upload_map(b, 64, 64);
// CHECK-FIXES-NEXT: {{^}}  for (int i = 0; i < 3; ++i)
// CHECK-FIXES-NEXT: {{^}}    mma<<<1, 32, 0, stream>>>(a_map, b_map, c);
// CHECK-FIXES-NEXT: {{^}}  CHECK_CUDA(cudaStreamSynchronize(stream));
// CHECK-FIXES-NEXT: {{^}}}
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 2 by value, 0 refused); 2 launches changed, 1 copy removed (1 alloc, 2 free), 1 fence removed
} // namespace gemm
