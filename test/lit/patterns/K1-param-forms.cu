// K1: every spelling of a descriptor-pointer parameter becomes
// 'const __grid_constant__ <spelled type>'; aliases are kept, __restrict__ and
// pointer constness go, no alignas is added.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace cute {
using TmaDescriptor = CUtensorMap;
}
using Desc = CUtensorMap;

__device__ __forceinline__ void prefetch_desc(const void *d) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(d)) : "memory");
}

__global__ void plain(const CUtensorMap *tmap, float *out) { prefetch_desc(tmap); out[0] = 1.f; }
// CHECK-MESSAGES: :[[@LINE-1]]:{{[0-9]+}}: warning: kernel 'plain' reads descriptor 'tmap' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void plain(const __grid_constant__ CUtensorMap tmap, float *out) { prefetch_desc(&tmap); out[0] = 1.f; }

__global__ void mutable_ptr(CUtensorMap *tmap) { prefetch_desc(tmap); }
// CHECK-FIXES: {{^}}__global__ void mutable_ptr(const __grid_constant__ CUtensorMap tmap) { prefetch_desc(&tmap); }

__global__ void restricted(const CUtensorMap *__restrict__ tmap) { prefetch_desc(tmap); }
// CHECK-FIXES: {{^}}__global__ void restricted(const __grid_constant__ CUtensorMap tmap) { prefetch_desc(&tmap); }

__global__ void east_const(CUtensorMap const *const tmap) { prefetch_desc(tmap); }
// CHECK-FIXES: {{^}}__global__ void east_const(const __grid_constant__ CUtensorMap tmap) { prefetch_desc(&tmap); }

__global__ void aliased(const Desc *tmap) { prefetch_desc(tmap); }
// CHECK-FIXES: {{^}}__global__ void aliased(const __grid_constant__ Desc tmap) { prefetch_desc(&tmap); }

__global__ void cute_style(cute::TmaDescriptor const *tmap) { prefetch_desc(tmap); }
// CHECK-FIXES: {{^}}__global__ void cute_style(const __grid_constant__ cute::TmaDescriptor tmap) { prefetch_desc(&tmap); }

int main() {
  CUtensorMap h{};
  float *out = nullptr;
  CUtensorMap *d1, *d2, *d3, *d4, *d5, *d6;
  cudaMalloc(&d1, sizeof(CUtensorMap));
  cudaMemcpy(d1, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  plain<<<1, 32>>>(d1, out);
  cudaMalloc(&d2, sizeof(CUtensorMap));
  cudaMemcpy(d2, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  mutable_ptr<<<1, 32>>>(d2);
  cudaMalloc(&d3, sizeof(CUtensorMap));
  cudaMemcpy(d3, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  restricted<<<1, 32>>>(d3);
  cudaMalloc(&d4, sizeof(CUtensorMap));
  cudaMemcpy(d4, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  east_const<<<1, 32>>>(d4);
  cudaMalloc(&d5, sizeof(Desc));
  cudaMemcpy(d5, &h, sizeof(Desc), cudaMemcpyHostToDevice);
  aliased<<<1, 32>>>(d5);
  cudaMalloc(&d6, sizeof(h));
  cudaMemcpy(d6, &h, sizeof(*d6), cudaMemcpyHostToDevice);
  cute_style<<<1, 32>>>(d6);
  // The declaration is shared by six device copies that all go: it goes.
  // CHECK-FIXES: {{^}}  float *out = nullptr;
  // CHECK-FIXES-NEXT: {{^}}  plain<<<1, 32>>>(h, out);
  // CHECK-FIXES: {{^}}  mutable_ptr<<<1, 32>>>(h);
  // CHECK-FIXES: {{^}}  restricted<<<1, 32>>>(h);
  // CHECK-FIXES: {{^}}  east_const<<<1, 32>>>(h);
  // CHECK-FIXES: {{^}}  aliased<<<1, 32>>>(h);
  // CHECK-FIXES: {{^}}  cute_style<<<1, 32>>>(h);
  cudaFree(d1); cudaFree(d2); cudaFree(d3);
  cudaFree(d4); cudaFree(d5); cudaFree(d6);
  // CHECK-FIXES-NOT: cudaFree
  return 0;
}
// CHECK-MESSAGES: tma-modernize: 6 kernels rewritten, 0 refused
