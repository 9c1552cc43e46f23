// H3: the encoded descriptor lives behind a host pointer (a parameter, or
// pinned memory from cudaMallocHost): the launch passes '*staged'. Nothing
// but the CUDA runtime may run between the copy and the launch, since any
// other code could change what the pointer points to.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu 2>&1 | %FileCheck %s --check-prefix=SECOND
#include <cuda.h>
#include <cuda_runtime.h>

#define RETURN_IF_ERROR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return e_; } while (0)

__global__ void scale(const CUtensorMap *map, float *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 1.f;
}

__global__ void other(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}

void reencode(CUtensorMap *m);

cudaError_t launch_from_param(const CUtensorMap *in_map, float *out, cudaStream_t stream) {
  CUtensorMap *d_map = nullptr;
  RETURN_IF_ERROR(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  RETURN_IF_ERROR(cudaMemcpy(d_map, in_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  scale<<<1, 32, 0, stream>>>(d_map, out);
  RETURN_IF_ERROR(cudaGetLastError());
  RETURN_IF_ERROR(cudaFree(d_map)); // waits for the kernel
  return cudaSuccess;
}
// CHECK-FIXES: {{^}}cudaError_t launch_from_param(const CUtensorMap *in_map, float *out, cudaStream_t stream) {
// CHECK-FIXES-NEXT: {{^}}  scale<<<1, 32, 0, stream>>>(*in_map, out);
// CHECK-FIXES-NEXT: {{^}}  RETURN_IF_ERROR(cudaGetLastError());
// CHECK-FIXES-NEXT: {{^}}  return cudaSuccess;

cudaError_t launch_from_pinned(float *out) {
  CUtensorMap *staged = nullptr;
  RETURN_IF_ERROR(cudaMallocHost(&staged, sizeof(CUtensorMap)));
  *staged = CUtensorMap{};
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, staged, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  scale<<<1, 32>>>(d_map, out);
  cudaFree(d_map);
  return cudaFreeHost(staged);
}
// CHECK-FIXES: {{^}}  *staged = CUtensorMap{};
// CHECK-FIXES-NEXT: {{^}}  scale<<<1, 32>>>(*staged, out);
// CHECK-FIXES-NEXT: {{^}}  return cudaFreeHost(staged);

cudaError_t changed_through_a_call(CUtensorMap *staged, float *out) {
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, staged, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  reencode(staged);
  other<<<1, 32>>>(d_map, out);
  cudaFree(d_map);
  return cudaSuccess;
}
// 'reencode' may change '*staged' between the copy and the launch, so the
// launch cannot pass '*staged'; the storage rule keeps the copy as an
// assignment into host memory instead, which reads '*staged' when the
// cudaMemcpy did.
// CHECK-FIXES: {{^}}  d_map = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *d_map = *staged;
// CHECK-FIXES-NEXT: {{^}}  reencode(staged);
// CHECK-FIXES-NEXT: {{^}}  other<<<1, 32>>>(*d_map, out);
// CHECK-FIXES-NEXT: {{^}}  delete d_map;
// CHECK-MESSAGES: warning: kernel 'scale' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'other' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: note: 'd_map' now holds the descriptor in host memory
// CHECK-MESSAGES: 2 kernels rewritten, 0 refused{{.*}}3 launches changed, 2 copies removed (2 alloc, 2 free)
// SECOND: 0 kernels to rewrite, 0 refused

int main() {
  CUtensorMap m{};
  float *out;
  cudaMalloc(&out, 32 * sizeof(float));
  launch_from_param(&m, out, nullptr);
  launch_from_pinned(out);
  changed_through_a_call(&m, out);
  return 0;
}
