// R5 (issue 41): `const` is a promise only where the code keeps it. Each
// function below changes the host descriptor between the copy and the
// launch through a name that says `const`: a helper that casts the const
// away (C++ or C-style cast, directly or in a function it calls), a helper
// of another file whose body cannot be seen, a constructor, a `const`
// method of a class whose `mutable` member is the descriptor, a `const`
// method that casts `this`, a local const reference or pointer cast back,
// a lambda behind std::function. By value, the kernel would see the
// changed descriptor; the storage rule keeps the copy where it was made
// (`*d = h;`) and the launch passes `*d`. The twin, where the same names
// only read, is patterns/H1-const-readers.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: not grep -n 'consume<<<1, 1>>>(h\|consume<<<1, 1>>>(plan.map' %t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <functional>

__global__ void consume(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }

static void stamp(const CUtensorMap *m) { const_cast<CUtensorMap *>(m)->opaque[0] = 1; }
static void stamp_c_style(const CUtensorMap &m) { ((CUtensorMap &)m).opaque[0] = 2; }
static void stamp_through(const CUtensorMap *m) { stamp(m); }
void log_descriptor(const CUtensorMap *m); // defined in another file

struct Restamp {
  explicit Restamp(const CUtensorMap &m) { const_cast<CUtensorMap &>(m).opaque[0] = 3; }
};

struct CachedPlan {
  mutable CUtensorMap map;
  void refresh() const { map.opaque[0] += 1; }
};

struct CastingPlan {
  CUtensorMap map;
  void refresh() const { const_cast<CastingPlan *>(this)->map.opaque[0] += 1; }
};

void cast_away(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamp(&h);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void cast_away(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  stamp(&h);
// CHECK-FIXES-NEXT: {{^}}  consume<<<1, 1>>>(*d, out);

void cast_away_c_style(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamp_c_style(h);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void cast_away_c_style(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void cast_away_in_a_callee(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamp_through(&h);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void cast_away_in_a_callee(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void unseen_callee(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  log_descriptor(&h);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void unseen_callee(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void constructor_casts(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  Restamp r(h);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void constructor_casts(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void mutable_member(const CUtensorMap &a, unsigned long long *out) {
  CachedPlan plan{a};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &plan.map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  plan.refresh();
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void mutable_member(
// CHECK-FIXES: {{^}}  *d = plan.map;
// CHECK-FIXES-NEXT: {{^}}  plan.refresh();
// CHECK-FIXES-NEXT: {{^}}  consume<<<1, 1>>>(*d, out);

void const_method_casts_this(const CUtensorMap &a, unsigned long long *out) {
  CastingPlan plan{a};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &plan.map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  plan.refresh();
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void const_method_casts_this(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void const_reference_cast_back(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  const CUtensorMap &view = h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  const_cast<CUtensorMap &>(view).opaque[0] = 4;
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void const_reference_cast_back(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void const_pointer_cast_back(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  const CUtensorMap *view = &h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  ((CUtensorMap *)view)->opaque[0] = 5;
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void const_pointer_cast_back(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

void std_function_casts(const CUtensorMap &a, unsigned long long *out) {
  CUtensorMap h = a;
  std::function<void(const CUtensorMap &)> touch = [](const CUtensorMap &m) {
    const_cast<CUtensorMap &>(m).opaque[0] = 6;
  };
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  touch(h);
  consume<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void std_function_casts(
// CHECK-FIXES: {{^}}  consume<<<1, 1>>>(*d, out);

// CHECK: warning: kernel 'consume' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: 1 kernel rewritten, 0 refused
