// H13, a std::unique_ptr that owns the device copy: the owner is a storage
// of the storage rule. `d.get()` reads its pointer (a launch passes
// `*d.get()`, a copy into it becomes `*d.get() = h`), its construction from
// a pointer joins that pointer's storage, a move into another owner joins
// that owner, and its destructor frees through the deleter's operator(),
// whose parameter joins the group: its cudaFree becomes delete. A local
// owner, an owner moved into another, and a class member owner filled by an
// upload helper in the constructor. Refusals: refusals/R12-unique-ptr-owner.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <memory>
#include <utility>

struct DeviceFree {
  void operator()(CUtensorMap *p) const {
    if (p)
      cudaFree(p);
  }
};
// CHECK-FIXES-LABEL: struct DeviceFree {
// CHECK-FIXES: {{^}}    if (p)
// CHECK-FIXES-NEXT: {{^}}      delete p;

__global__ void blur(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
__global__ void moved(const CUtensorMap *map, int *out) { out[1] = int(map->opaque[0]); }
__global__ void member(const CUtensorMap *map, int *out) { out[2] = int(map->opaque[0]); }
// CHECK-MESSAGES-DAG: warning: kernel 'blur' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'moved' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'member' reads descriptor 'map' through global memory; now passed by value [tma-001]

static int local_owner(const CUtensorMap &first, const CUtensorMap &second, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  std::unique_ptr<CUtensorMap, DeviceFree> d(fresh);
  if (!d)
    return 1;
  cudaMemcpy(d.get(), &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  blur<<<1, 1>>>(d.get(), out);
  cudaMemcpy(d.get(), &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  blur<<<1, 1>>>(d.get(), out);
  return 0;
}
// CHECK-MESSAGES-DAG: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES-LABEL: static int local_owner(
// CHECK-FIXES: {{^}}  fresh = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  std::unique_ptr<CUtensorMap, DeviceFree> d(fresh);
// CHECK-FIXES: {{^}}  *d.get() = first;
// CHECK-FIXES-NEXT: {{^}}  blur<<<1, 1>>>(*d.get(), out);
// CHECK-FIXES-NEXT: {{^}}  *d.get() = second;
// CHECK-FIXES-NEXT: {{^}}  blur<<<1, 1>>>(*d.get(), out);

static int moved_owner(const CUtensorMap &h, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  std::unique_ptr<CUtensorMap, DeviceFree> first{fresh};
  cudaMemcpy(first.get(), &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, DeviceFree> second = std::move(first);
  moved<<<1, 1>>>(second.get(), out);
  return 0;
}
// CHECK-FIXES-LABEL: static int moved_owner(
// CHECK-FIXES: {{^}}  fresh = new CUtensorMap;
// CHECK-FIXES: {{^}}  *first.get() = h;
// CHECK-FIXES-NEXT: {{^}}  std::unique_ptr<CUtensorMap, DeviceFree> second = std::move(first);
// CHECK-FIXES-NEXT: {{^}}  moved<<<1, 1>>>(*second.get(), out);

static CUtensorMap *upload(const CUtensorMap &h) {
  CUtensorMap *p = nullptr;
  cudaMalloc(&p, sizeof(CUtensorMap));
  cudaMemcpy(p, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return p;
}
// CHECK-FIXES-LABEL: static CUtensorMap *upload(
// CHECK-FIXES: {{^}}  p = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *p = h;

class Runner {
public:
  explicit Runner(const CUtensorMap &h) : map_(upload(h)) {}
  void run(int *out) { member<<<1, 1>>>(map_.get(), out); }

private:
  std::unique_ptr<CUtensorMap, DeviceFree> map_;
};
// CHECK-FIXES: {{^}}  void run(int *out) { member<<<1, 1>>>(*map_.get(), out); }

int main() {
  CUtensorMap a{}, b{};
  int *out = nullptr;
  cudaMalloc(&out, 3 * sizeof(int));
  Runner r(a);
  r.run(out);
  return local_owner(a, b, out) + moved_owner(b, out);
}
// CHECK-MESSAGES: 3 kernels rewritten, 0 refused
