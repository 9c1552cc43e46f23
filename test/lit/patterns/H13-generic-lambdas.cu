// H13 through generic lambdas: a template kernel launched from a generic
// lambda whose template argument depends on the lambda's parameter
// (`k<decltype(w)::value>`) has no callee in the lambda's pattern; the
// analysis walks each instantiation of the lambda's call operator as a
// function of its own, so every launch is found and every use of the
// device copy is classified in every instantiation. Unsafe twins:
// refusals/R12-generic-lambdas.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <type_traits>

template <int Width>
__global__ void widened(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[Width] = Width;
}
// CHECK-FIXES: {{^}}__global__ void widened(const __grid_constant__ CUtensorMap map, int *out) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory");

template <int W> using Width = std::integral_constant<int, W>;
template <class F> static void for_widths(F &&f) {
  f(Width<1>{});
  f(Width<2>{});
}

// A local copy captured by reference and launched with two widths.
void by_reference(const CUtensorMap &h, int *out) {
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  auto launch = [&](auto w) { widened<decltype(w)::value><<<1, 1>>>(d, out); };
  launch(Width<1>{});
  launch(Width<2>{});
  cudaFree(d);
}
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  auto launch = [&](auto w) { widened<decltype(w)::value><<<1, 1>>>(*d, out); };
// CHECK-FIXES: {{^}}  delete d;

// A file-scope cache, rebuilt, launched from a generic lambda captured by
// value and handed to a host template that calls it twice.
static CUtensorMap *g_wide = nullptr;
static void rebuild(const CUtensorMap &h) {
  if (g_wide)
    cudaFree(g_wide);
  cudaMalloc(&g_wide, sizeof(CUtensorMap));
  cudaMemcpyAsync(g_wide, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, 0);
}
void cached(const CUtensorMap &h, int *out) {
  rebuild(h);
  for_widths([=](auto w) { widened<decltype(w)::value + 2><<<1, 1>>>(g_wide, out); });
  cudaFree(g_wide);
  g_wide = nullptr;
}
// CHECK-FIXES: {{^}}    delete g_wide;
// CHECK-FIXES-NEXT: {{^}}  g_wide = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *g_wide = h;
// CHECK-FIXES: {{^}}  for_widths([=](auto w) { widened<decltype(w)::value + 2><<<1, 1>>>(*g_wide, out); });
// CHECK-FIXES-NEXT: {{^}}  delete g_wide;

// CHECK-MESSAGES: warning: kernel 'widened' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 1 by value, 0 refused); 2 launches changed
