// R12, storages the rule reaches only partly: each device copy below is in
// a storage the rule follows, but code the tool does not see or does not
// check could reach the same text, so each is refused (before, the first,
// third, fourth, fifth and sixth were rewritten into programs that free or
// read device memory on the host): a deleter template whose cudaFree also
// serves float buffers, a generic releaser called for the descriptor and a
// float buffer (the H1 flow keeps its copy and passes the host value, which
// is right), a lambda called only through std::function, a class derived
// from the deleter, cudaMemcpyDefault from a pointer that may hold device
// memory, and a plan also built by std::make_unique with a pointer the tool
// does not see.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <functional>
#include <memory>

__global__ void templ_deleter(const CUtensorMap *map, float *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void lambda_release(const CUtensorMap *map, float *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void through_function(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void derived_deleter(const CUtensorMap *map, float *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[3] = 1; }
__global__ void default_kind(const CUtensorMap *map, float *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[4] = 1; }
__global__ void library_built(const CUtensorMap *map, float *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[5] = 1; }

// (a) A deleter template: its cudaFree serves float buffers too.
namespace {
template <class T> struct CudaDeleter { void operator()(T *p) const { cudaFree(p); } };
}
template <class T> using dev_ptr = std::unique_ptr<T, CudaDeleter<T>>;
static void a(const CUtensorMap &h, float *out) {
  CUtensorMap *m = nullptr;
  cudaMalloc(&m, sizeof(CUtensorMap));
  cudaMemcpy(m, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  dev_ptr<CUtensorMap> d(m);
  float *b = nullptr;
  cudaMalloc(&b, 4096);
  dev_ptr<float> data(b);
  templ_deleter<<<1, 1>>>(d.get(), data.get());
}

// (b) A generic releaser called for the descriptor and for a float buffer.
static void b(const CUtensorMap &h, float *out) {
  CUtensorMap *d = nullptr;
  float *buf = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMalloc(&buf, 4096);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  lambda_release<<<1, 1>>>(d, buf);
  auto rel = [](auto *p) { cudaFree(p); };
  rel(d);
  rel(buf);
}

// (c) A lambda called only through std::function.
static void c(const CUtensorMap &h) {
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::function<void(const CUtensorMap *)> fn = [](const CUtensorMap *m) { through_function<<<1, 1>>>(m); };
  fn(d);
  cudaFree(d);
}

// (d) A class derived from the deleter owns a copy the rule does not follow.
namespace {
struct DevFree { void operator()(CUtensorMap *p) const { cudaFree(p); } };
struct LoudFree : DevFree {};
}
static void d(const CUtensorMap &h, float *out) {
  CUtensorMap *pa = nullptr, *pb = nullptr;
  cudaMalloc(&pa, sizeof(CUtensorMap));
  cudaMalloc(&pb, sizeof(CUtensorMap));
  cudaMemcpy(pa, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, DevFree> oa(pa);
  std::unique_ptr<CUtensorMap, LoudFree> ob(pb);
  derived_deleter<<<1, 1>>>(oa.get(), out);
}

// (e) cudaMemcpyDefault from a pointer that holds device memory.
static void e(const CUtensorMap *d_other, float *out) {
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, d_other, sizeof(CUtensorMap), cudaMemcpyDefault);
  default_kind<<<1, 1>>>(d, out);
  cudaFree(d);
}

// (f) A plan built by std::make_unique with a pointer the tool does not see.
namespace {
struct Plan {
  explicit Plan(CUtensorMap *m) : map(m) {}
  CUtensorMap *map;
};
}
static void f(const CUtensorMap &h, CUtensorMap *elsewhere, float *out) {
  CUtensorMap *m = nullptr;
  cudaMalloc(&m, sizeof(CUtensorMap));
  cudaMemcpy(m, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  Plan direct(m);
  auto made = std::make_unique<Plan>(elsewhere);
  library_built<<<1, 1>>>(direct.map, out);
  library_built<<<1, 1>>>(made->map, out);
  cudaFree(m);
}

int main() {
  CUtensorMap h{};
  float *out = nullptr;
  cudaMalloc(&out, 64);
  a(h, out);
  b(h, out);
  c(h);
  d(h, out);
  e(&h, out);
  f(h, &h, out);
  return 0;
}
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'p' is declared in a template, and one instantiation gives it the type 'float *', which an edit of the shared text would change too [storage.unclassified-use]
// CHECK-DAG: warning: kernel 'lambda_release' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-DAG: may be called by 'std::function<void (const CUtensorMap_st *)>::function', library code the tool does not see [storage.unclassified-use]
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'LoudFree' derives from the deleter 'DevFree', whose 'operator()' it inherits for owners the rule does not follow [storage.unclassified-use]
// CHECK-DAG: warning: descriptor 'map' of kernel 'default_kind' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: '(anonymous namespace)::Plan::Plan' may be called by 'std::make_unique', library code the tool does not see [storage.unclassified-use]
// CHECK: 1 kernel rewritten, 5 refused
