// H1 with code between the copy and the launch that is given the host
// descriptor through a name that says `const` and keeps the promise: a
// helper that only reads it, a library function (memcmp), a `const`
// method of a class whose only `mutable` member is a counter, a local
// const reference that is only read, a lambda that only reads. None can
// change the descriptor, so every launch passes it by value. The twin,
// where the same names cast the const away, is refusals/R5-const-promises.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>

__global__ void consume(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
// CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: kernel 'consume' reads descriptor 'map' through global memory; now passed by value [tma-001]

static unsigned long long checksum(const CUtensorMap &m) {
  unsigned long long s = 0;
  for (unsigned long long w : m.opaque)
    s += w;
  return s;
}

struct CountingPlan {
  CUtensorMap map;
  mutable int reads = 0;
  unsigned long long first() const {
    ++reads;
    return map.opaque[0];
  }
};

unsigned long long readers(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  CUtensorMap h = a;
  const CUtensorMap &view = h;
  auto word = [](const CUtensorMap &m) { return m.opaque[1]; };
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  unsigned long long s = checksum(h);
  s += std::memcmp(&h, &b, sizeof(CUtensorMap)) == 0;
  s += view.opaque[2];
  s += word(h);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
  return s;
}
// CHECK-FIXES-LABEL: unsigned long long readers(
// CHECK-FIXES: {{^}}  s += word(h);
// CHECK-FIXES-NEXT: {{^}}  consume<<<1, 1>>>(h, out);

unsigned long long counting_plan(const CUtensorMap &a, unsigned long long *out) {
  CountingPlan plan{a};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &plan.map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  unsigned long long s = plan.first();
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
  return s;
}
// CHECK-FIXES-LABEL: unsigned long long counting_plan(
// CHECK-FIXES: {{^}}  unsigned long long s = plan.first();
// CHECK-FIXES-NEXT: {{^}}  consume<<<1, 1>>>(plan.map, out);
// CHECK-FIXES-NOT: cudaMalloc(&d
// CHECK: 1 kernel rewritten, 0 refused
