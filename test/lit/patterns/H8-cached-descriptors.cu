// H8: a device copy cached in a static local pointer, made once by an upload
// helper (`if (!d) d = upload(...)`), then passed to every launch. The helper
// returns the descriptor by value (H6), the cache keeps it on the host
// (`d = new CUtensorMap(upload(...))`: encoded once, as before), and the
// launches pass `*d`, the same bytes the device copy held.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) std::printf("%s\n", cudaGetErrorString(e_));        \
  } while (0)

namespace rmsnorm {
__global__ void rms(const CUtensorMap *x_map, const CUtensorMap *w_map, float *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(x_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(w_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(x_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(w_map) : "memory");
  out[threadIdx.x] = 1.f;
}
// CHECK-MESSAGES: warning: kernel 'rmsnorm::rms' reads descriptor 'x_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'rmsnorm::rms' reads descriptor 'w_map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void rms(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map, float *out) {

static CUtensorMap *upload_rows(const float *base, int rows) {
  CUtensorMap map{};
  (void)base;
  (void)rows;
  CUtensorMap *d_map = nullptr;
  CUDA_CHECK(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CUDA_CHECK(cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  return d_map;
}
// CHECK-FIXES: {{^}}static CUtensorMap upload_rows(const float *base, int rows) {
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap map{};
// CHECK-FIXES-NEXT: {{^}}  (void)base;
// CHECK-FIXES-NEXT: {{^}}  (void)rows;
// CHECK-FIXES-NEXT: {{^}}  return map;
// CHECK-FIXES-NEXT: {{^}}}

void forward(const float *x, const float *w, float *out, int rows, cudaStream_t stream) {
  // Encoded and uploaded on the first call only.
  static CUtensorMap *d_x = nullptr;
  static CUtensorMap *d_w = nullptr;
  if (!d_x)
    d_x = upload_rows(x, rows);
  if (d_w == nullptr) {
    d_w = upload_rows(w, rows);
  }
  rms<<<1, 32, 0, stream>>>(d_x, d_w, out);
  CUDA_CHECK(cudaGetLastError());
}
// CHECK-FIXES: {{^}}  static CUtensorMap *d_x = nullptr;
// CHECK-FIXES-NEXT: {{^}}  static CUtensorMap *d_w = nullptr;
// CHECK-FIXES-NEXT: {{^}}  if (!d_x)
// CHECK-FIXES-NEXT: {{^}}    d_x = new CUtensorMap(upload_rows(x, rows));
// CHECK-FIXES-NEXT: {{^}}  if (d_w == nullptr) {
// CHECK-FIXES-NEXT: {{^}}    d_w = new CUtensorMap(upload_rows(w, rows));
// CHECK-FIXES-NEXT: {{^}}  }
// CHECK-FIXES-NEXT: {{^}}  rms<<<1, 32, 0, stream>>>(*d_x, *d_w, out);
} // namespace rmsnorm

// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 2 by value, 0 refused); 2 launches changed, 1 copy removed (1 alloc, 0 free), 2 fences removed

int main() {
  float *x, *w, *out;
  cudaMalloc(&x, 128);
  cudaMalloc(&w, 128);
  cudaMalloc(&out, 128);
  for (int i = 0; i < 3; ++i)
    rmsnorm::forward(x, w, out, 32, nullptr);
  return 0;
}
