// H7: launcher functions forward a device copy of the descriptor to a launch.
// The parameter becomes `const CUtensorMap &` in every declaration (the
// header included), the launch inside stays as written, and every caller
// passes its host descriptor; the callers' copies go. Launchers may call
// launchers.
// RUN: %prep
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cp %S/Inputs/h7_launchers.h %t.dir/ && cp %t.cu %t.dir/h7.cu
// RUN: cd %t.dir && %tma --no-database h7.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.dir/h7.cu
// RUN: %FileCheck %s --check-prefix=HEADER --input-file=%t.dir/h7_launchers.h
// RUN: cd %t.dir && %nvcc-compile h7.cu
// RUN: cd %t.dir && %tma --no-database --check h7.cu
#include "h7_launchers.h"
#include <cstdio>

#define CHECK_CUDA(call)                                                          \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(e_));                       \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

namespace conv {
__global__ void stencil(const CUtensorMap *map, float *out, int n) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  if (threadIdx.x < n) out[threadIdx.x] = 1.0f;
}
// CHECK-MESSAGES: warning: kernel 'conv::stencil' reads descriptor 'map' through global memory; now passed by value [tma-001]

cudaError_t launch_stencil(const CUtensorMap *d_map, float *out, int n, cudaStream_t stream) {
  stencil<<<1, 32, 0, stream>>>(d_map, out, n);
  return cudaGetLastError();
}
// CHECK-FIXES: {{^}}cudaError_t launch_stencil(const CUtensorMap &d_map, float *out, int n, cudaStream_t stream) {
// CHECK-FIXES-NEXT: {{^}}  stencil<<<1, 32, 0, stream>>>(d_map, out, n);
// HEADER: cudaError_t launch_stencil(const CUtensorMap &d_map, float *out, int n, cudaStream_t stream);

__global__ void pool(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 0.0f;
}
// CHECK-MESSAGES: warning: kernel 'conv::pool' reads descriptor 'map' through global memory; now passed by value [tma-001]

namespace {
void enqueue_pool(const CUtensorMap *desc, float *out, cudaStream_t s) { pool<<<1, 1, 0, s>>>(desc, out); }
// A launcher of a launcher.
void enqueue_all(const CUtensorMap *desc, float *out, cudaStream_t s) {
  enqueue_pool(desc, out, s);
  enqueue_pool(desc, out + 1, s);
}
} // namespace
// CHECK-FIXES: {{^}}void enqueue_pool(const CUtensorMap &desc, float *out, cudaStream_t s) { pool<<<1, 1, 0, s>>>(desc, out); }
// CHECK-FIXES: {{^}}void enqueue_all(const CUtensorMap &desc, float *out, cudaStream_t s) {
// CHECK-FIXES-NEXT: {{^}}  enqueue_pool(desc, out, s);
} // namespace conv

int main() {
  CUtensorMap stencil_map{}, pool_map{};
  float *out = nullptr;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaMalloc(&out, 64 * sizeof(float)));
  CUtensorMap *d_stencil = nullptr;
  CHECK_CUDA(cudaMalloc(&d_stencil, sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMemcpyAsync(d_stencil, &stencil_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream));
  CHECK_CUDA(conv::launch_stencil(d_stencil, out, 32, stream));
  CUtensorMap *d_pool = nullptr;
  CHECK_CUDA(cudaMalloc(&d_pool, sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMemcpy(d_pool, &pool_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  conv::enqueue_all(d_pool, out, stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(d_stencil));
  CHECK_CUDA(cudaFree(d_pool));
  return 0;
}
// CHECK-FIXES: {{^}}  CHECK_CUDA(cudaMalloc(&out, 64 * sizeof(float)));
// CHECK-FIXES-NEXT: {{^}}  CHECK_CUDA(conv::launch_stencil(stencil_map, out, 32, stream));
// CHECK-FIXES-NEXT: {{^}}  conv::enqueue_all(pool_map, out, stream);
// CHECK-FIXES-NEXT: {{^}}  CHECK_CUDA(cudaStreamSynchronize(stream));
// CHECK-FIXES-NEXT: {{^}}  return 0;
// CHECK-MESSAGES: 2 kernels rewritten, 0 refused (descriptors: 2 by value, 0 refused); 2 launches changed, 2 copies removed (2 alloc, 2 free), 1 fence removed; 2 files
