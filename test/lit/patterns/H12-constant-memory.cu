// H12: a descriptor in __constant__ memory, filled by cudaMemcpyToSymbol
// before each launch (a copy per launch, like the global-memory form). Each
// kernel that reads it gains it as its first parameter, by value, under the
// same name, so its body is unchanged but for the acquire fences; each
// launch passes the host descriptor the copy read; the copies and the
// declaration go once nothing else needs them.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return e_; } while (0)

namespace attn {
__constant__ CUtensorMap q_map;
__constant__ CUtensorMap kv_map;
// CHECK-FIXES: {{^}}namespace attn {
// CHECK-FIXES-NEXT: {{^}}//{{$}}

template <int kStages>
__global__ void prefill(float *out, int n) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(&q_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(&kv_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(&q_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(&kv_map) : "memory");
  out[threadIdx.x] = n * kStages;
}
// CHECK-MESSAGES-DAG: warning: kernel 'attn::prefill' reads descriptor 'q_map' from __constant__ memory, filled by cudaMemcpyToSymbol; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'attn::prefill' reads descriptor 'kv_map' from __constant__ memory, filled by cudaMemcpyToSymbol; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void prefill(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap kv_map, float *out, int n) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&q_map) : "memory");
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&kv_map) : "memory");

__global__ void decode() {
  const CUtensorMap *q = &q_map;
  asm volatile("prefetch.tensormap [%0];" :: "l"(q) : "memory");
}
// CHECK-MESSAGES: warning: kernel 'attn::decode' reads descriptor 'q_map' from __constant__ memory, filled by cudaMemcpyToSymbol; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void decode(const __grid_constant__ CUtensorMap q_map) {
// CHECK-FIXES-NEXT: {{^}}  const CUtensorMap *q = &q_map;

cudaError_t forward(const CUtensorMap &q, const CUtensorMap &kv, float *out, int n,
                    cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyToSymbolAsync(q_map, &q, sizeof(CUtensorMap), 0,
                                     cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyToSymbolAsync(kv_map, &kv, sizeof(CUtensorMap), 0,
                                     cudaMemcpyHostToDevice, stream));
  prefill<2><<<1, 32, 0, stream>>>(out, n);
  CUDA_CHECK(cudaGetLastError());
  prefill<4><<<1, 32, 0, stream>>>(out, n);
  decode<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}
// CHECK-FIXES: {{^}}                    cudaStream_t stream) {
// CHECK-FIXES-NEXT: {{^}}  prefill<2><<<1, 32, 0, stream>>>(q, kv, out, n);
// CHECK-FIXES-NEXT: {{^}}  CUDA_CHECK(cudaGetLastError());
// CHECK-FIXES-NEXT: {{^}}  prefill<4><<<1, 32, 0, stream>>>(q, kv, out, n);
// CHECK-FIXES-NEXT: {{^}}  decode<<<1, 1, 0, stream>>>(q);
} // namespace attn

// A second symbol read by two kernels, one of which stays (its launch has no
// copy before it): the other is rewritten, and the symbol, its copy and its
// declaration stay for the kernel that still reads it.
__constant__ CUtensorMap shared_map;
__global__ void reader(int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&shared_map) : "memory");
  out[0] = 1;
}
__global__ void late_reader(int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&shared_map) : "memory");
  out[1] = 2;
}
// CHECK-MESSAGES: warning: kernel 'reader' reads descriptor 'shared_map' from __constant__ memory, filled by cudaMemcpyToSymbol; now passed by value [tma-001]
// CHECK-MESSAGES: warning: descriptor 'shared_map' of kernel 'late_reader' is left in __constant__ memory: no cudaMemcpyToSymbol of a host descriptor into 'shared_map' reaches this launch in 'later' [tma-105]
// CHECK-FIXES: {{^}}__constant__ CUtensorMap shared_map;
// CHECK-FIXES-NEXT: {{^}}__global__ void reader(const __grid_constant__ CUtensorMap shared_map, int *out) {
// CHECK-FIXES: {{^}}__global__ void late_reader(int *out) {

int shared(const CUtensorMap &h, int *out) {
  cudaMemcpyToSymbol(shared_map, &h, sizeof(CUtensorMap));
  reader<<<1, 1>>>(out);
  return 0;
}
// CHECK-FIXES: {{^}}  cudaMemcpyToSymbol(shared_map, &h, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  reader<<<1, 1>>>(h, out);
void later(int *out) { late_reader<<<1, 1>>>(out); }

// CHECK-MESSAGES: 3 kernels rewritten, 1 refused (descriptors: 4 by value, 1 refused, tma-105: 1); 6 launches changed, 2 copies removed

int main() {
  CUtensorMap q{}, kv{};
  float *out;
  int *iout;
  cudaMalloc(&out, 32 * sizeof(float));
  cudaMalloc(&iout, 2 * sizeof(int));
  attn::forward(q, kv, out, 4, nullptr);
  shared(q, iout);
  later(iout);
  return 0;
}
