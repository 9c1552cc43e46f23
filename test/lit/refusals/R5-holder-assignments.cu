// R5 (issue 41): a library holder made from a non-const reference to the
// host descriptor (`std::tuple<CUtensorMap &, int>`, `std::pair`, the
// tuple of `std::tie`) writes the descriptor when the holder itself is
// assigned or swapped: no statement names the descriptor, and the holder's
// operator= is library code. After such a holder is made, a non-const
// library method other than an accessor called on it, or the holder given
// to a library function by non-const reference, may write the descriptor:
// by value, the kernel would see the new contents, so the storage rule
// keeps the copy where it was made (`*d = h;`). The twin, where the holder
// is only read or holds a copy, is patterns/H1-holder-reads.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: not grep -n 'consume<<<1, 1>>>(h,' %t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <tuple>
#include <utility>

__global__ void consume(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }

void tuple_assigned(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  CUtensorMap h = a;
  std::tuple<CUtensorMap &, int> view{h, 0};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  view = std::make_tuple(b, 1);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void tuple_assigned(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  view = std::make_tuple(b, 1);
// CHECK-FIXES-NEXT: {{^}}  consume<<<1, 1>>>(*d, out);

void pair_assigned(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  CUtensorMap h = a;
  std::pair<CUtensorMap &, int> view{h, 0};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  view = std::pair<CUtensorMap, int>(b, 1);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void pair_assigned(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void tuples_swapped(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  CUtensorMap h = a, other = b;
  std::tuple<CUtensorMap &> mine{h}, theirs{other};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  mine.swap(theirs);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void tuples_swapped(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void tied(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  CUtensorMap h = a;
  int n = 0;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::tie(h, n) = std::make_tuple(b, 1);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void tied(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

// CHECK: warning: kernel 'consume' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: 1 kernel rewritten, 0 refused
