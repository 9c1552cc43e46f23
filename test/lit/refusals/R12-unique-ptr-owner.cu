// R12, a std::unique_ptr owner the storage rule cannot retarget (tma-105),
// as in patterns/H13-unique-ptr-owner.cu but with one thing it cannot
// follow, named in the note: the default deleter (a delete of device memory
// the tool cannot edit), a function-pointer deleter, a lambda deleter,
// reset() and release(), which change or give up the owned copy, a deleter
// also handed to a std::shared_ptr, and a deleter class shared with an
// owner whose copy is passed to code whose body is not seen (the deleter's
// operator() frees both, so both stay).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <memory>

__global__ void by_default(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
__global__ void by_pointer(const CUtensorMap *map, int *out) { out[1] = int(map->opaque[0]); }
__global__ void by_lambda(const CUtensorMap *map, int *out) { out[2] = int(map->opaque[0]); }
__global__ void was_reset(const CUtensorMap *map, int *out) { out[3] = int(map->opaque[0]); }
__global__ void was_released(const CUtensorMap *map, int *out) { out[4] = int(map->opaque[0]); }
__global__ void shares_deleter(const CUtensorMap *map, int *out) { out[5] = int(map->opaque[0]); }
extern void keep_somewhere(CUtensorMap *m);

struct ResetFree {
  void operator()(CUtensorMap *p) const { cudaFree(p); }
};
struct ReleaseFree {
  void operator()(CUtensorMap *p) const { cudaFree(p); }
};

static void default_deleter(const CUtensorMap &h, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  cudaMemcpy(fresh, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap> d(fresh);
  by_default<<<1, 1>>>(d.get(), out);
}
// CHECK-DAG: :[[@LINE-2]]:24: note: also: the storage rule cannot retarget it: 'd' frees the device copy through the library's deleter 'std::default_delete<CUtensorMap_st>', which the tool cannot edit (a delete of device memory) [storage.unclassified-use]

static void pointer_deleter(const CUtensorMap &h, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  cudaMemcpy(fresh, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, decltype(&cudaFree)> d(fresh, &cudaFree);
  by_pointer<<<1, 1>>>(d.get(), out);
}
// CHECK-DAG: :[[@LINE-2]]:24: note: also: the storage rule cannot retarget it: 'd' frees the device copy through the function its deleter 'cudaError (*)(void *)' points to, a call the tool cannot edit [storage.unclassified-use]

static void lambda_deleter(const CUtensorMap &h, int *out) {
  auto free_map = [](CUtensorMap *p) { cudaFree(p); };
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  cudaMemcpy(fresh, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, decltype(free_map)> d(fresh, free_map);
  by_lambda<<<1, 1>>>(d.get(), out);
}
// CHECK-DAG: :[[@LINE-2]]:23: note: also: the storage rule cannot retarget it: 'd' frees the device copy through a lambda deleter, whose free the tool does not edit (a class with an 'operator()(CUtensorMap *)' it does) [storage.unclassified-use]

static void reset_owner(const CUtensorMap &h, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  cudaMemcpy(fresh, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, ResetFree> d(fresh);
  was_reset<<<1, 1>>>(d.get(), out);
  d.reset();
}
// CHECK-DAG: :[[@LINE-2]]:3: note: also: the storage rule cannot retarget it: the owner 'd' is used here other than by get(): 'd.reset' (the storage rule follows get(), a null test, and a move into another owner it follows) [storage.unclassified-use]

static void release_owner(const CUtensorMap &h, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  cudaMemcpy(fresh, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, ReleaseFree> d(fresh);
  was_released<<<1, 1>>>(d.get(), out);
  cudaFree(d.release());
}
// CHECK-DAG: :[[@LINE-2]]:12: note: also: the storage rule cannot retarget it: the owner 'd' is used here other than by get(): 'd.release' (the storage rule follows get(), a null test, and a move into another owner it follows) [storage.unclassified-use]

struct SharedFree {
  void operator()(CUtensorMap *p) const { cudaFree(p); }
};

static void shared_deleter(const CUtensorMap &h, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  cudaMemcpy(fresh, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, SharedFree> launched(fresh);
  shares_deleter<<<1, 1>>>(launched.get(), out);
  CUtensorMap *other = nullptr;
  cudaMalloc(&other, sizeof(CUtensorMap));
  cudaMemcpy(other, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, SharedFree> kept(other);
  keep_somewhere(kept.get());
}
// CHECK-DAG: :[[@LINE-2]]:3: note: also: the storage rule cannot retarget it: 'kept' is passed to 'keep_somewhere', whose body is not seen [storage.unclassified-use]

static void handed_deleter(const CUtensorMap &h, int *out);

int main() {
  CUtensorMap h{};
  int *out = nullptr;
  default_deleter(h, out);
  pointer_deleter(h, out);
  lambda_deleter(h, out);
  reset_owner(h, out);
  release_owner(h, out);
  shared_deleter(h, out);
  handed_deleter(h, out);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'by_default' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'by_pointer' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'by_lambda' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'was_reset' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'was_released' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'shares_deleter' is left by reference

// A deleter also handed to a std::shared_ptr, whose control block calls it
// where the tool does not see, with a pointer it does not follow.
__global__ void also_shared(const CUtensorMap *map, int *out) { out[6] = int(map->opaque[0]); }
struct HandedFree {
  void operator()(CUtensorMap *p) const { cudaFree(p); }
};
static void handed_deleter(const CUtensorMap &h, int *out) {
  CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  cudaMemcpy(fresh, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::unique_ptr<CUtensorMap, HandedFree> d(fresh);
  also_shared<<<1, 1>>>(d.get(), out);
  CUtensorMap *other = nullptr;
  cudaMalloc(&other, sizeof(CUtensorMap));
  std::shared_ptr<CUtensorMap> s(other, HandedFree{});
}
// CHECK-DAG: :[[@LINE-6]]:44: note: also: the storage rule cannot retarget it: 'HandedFree::operator()' may be called by 'std::shared_ptr<CUtensorMap_st>::shared_ptr', library code the tool does not see [storage.unclassified-use]
// CHECK-DAG: warning: descriptor 'map' of kernel 'also_shared' is left by reference
// CHECK: 0 kernels rewritten, 7 refused
