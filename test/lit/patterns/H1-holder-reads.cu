// H1 with a library holder of the host descriptor between the copy and the
// launch that cannot change it: a tuple made from a reference to it that
// is only read (`std::get` gives a name; reading through it reads), and a
// tuple that holds a copy of it, assigned whole. Every launch passes the
// descriptor by value. The twin, where a holder of a reference is
// assigned or swapped, is refusals/R5-holder-assignments.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <tuple>

__global__ void consume(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
// CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: kernel 'consume' reads descriptor 'map' through global memory; now passed by value [tma-001]

unsigned long long holders(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  CUtensorMap h = a;
  std::tuple<CUtensorMap &, int> view{h, 0};
  std::tuple<CUtensorMap, int> copy{h, 0};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  unsigned long long first = std::get<0>(view).opaque[0];
  copy = std::make_tuple(b, 1);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
  return first + std::get<0>(copy).opaque[0];
}
// CHECK-FIXES-LABEL: unsigned long long holders(
// CHECK-FIXES: {{^}}  copy = std::make_tuple(b, 1);
// CHECK-FIXES-NEXT: {{^}}  consume<<<1, 1>>>(h, out);
// CHECK-FIXES-NOT: cudaMalloc(&d
// CHECK: 1 kernel rewritten, 0 refused
