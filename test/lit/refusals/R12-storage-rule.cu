// R12, the storage rule's refusals (tma-105): each device copy below lives
// in storage the rule follows, as in patterns/H13-storage-rule.cu, but one
// use of it is none the rule classifies, so it stays on the device and the
// refusal names that use: a device-to-host copy, an extern function with no
// body, pointer arithmetic, a kernel whose parameter is not a descriptor, a
// pitched cudaMemset2D, an allocation of two descriptors, an object holding the pointer
// handed to code whose body is not seen, an address kept in a pointer
// to the pointer, a CUDA graph that may replay a launch, and an asynchronous
// copy through a pointer that may be pinned.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void read_back(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void kept_extern(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void next_map(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }
__global__ void untyped_too(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[3] = 1; }
__global__ void cleared(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[4] = 1; }
__global__ void two_maps(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[5] = 1; }
__global__ void slotted(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[6] = 1; }
__global__ void inspected(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[7] = 1; }
__global__ void raw(void *p) { (void)p; }
extern void remember_somewhere(CUtensorMap *m);

class Reader {
public:
  explicit Reader(const CUtensorMap &h) {
    cudaMalloc(&map_, sizeof(CUtensorMap));
    cudaMemcpy(map_, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  }
  void run(int *out) {
    read_back<<<1, 1>>>(map_, out);
    CUtensorMap check;
    cudaMemcpy(&check, map_, sizeof(CUtensorMap), cudaMemcpyDeviceToHost);
  }

private:
  CUtensorMap *map_ = nullptr;
};
// CHECK-DAG: :[[@LINE-6]]:5: note: also: the storage rule cannot retarget it: the device copy in 'Reader::map_' is copied from here ('cudaMemcpy' reads it) [storage.unclassified-use]

static CUtensorMap *g_kept = nullptr;
static void launch_kept(const CUtensorMap &h, int *out) {
  if (!g_kept)
    cudaMalloc(&g_kept, sizeof(CUtensorMap));
  cudaMemcpy(g_kept, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  remember_somewhere(g_kept);
  kept_extern<<<1, 1>>>(g_kept, out);
}
// CHECK-DAG: :[[@LINE-3]]:3: note: also: the storage rule cannot retarget it: 'g_kept' is passed to 'remember_somewhere', whose body is not seen [storage.unclassified-use]

template <int N> void launch_next(const CUtensorMap &h, int *out) {
  static CUtensorMap *d = nullptr;
  if (!d)
    cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  const CUtensorMap *second = d + 1;
  next_map<<<N, 1>>>(d, out);
  (void)second;
}
// CHECK-DAG: :[[@LINE-4]]:31: note: also: the storage rule cannot retarget it: pointer arithmetic or another operation on 'd' here [storage.unclassified-use]

static CUtensorMap *g_untyped = nullptr;
static void launch_untyped(const CUtensorMap &h, int *out) {
  cudaMalloc(&g_untyped, sizeof(CUtensorMap));
  cudaMemcpy(g_untyped, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  untyped_too<<<1, 1>>>(g_untyped, out);
  raw<<<1, 1>>>(g_untyped);
}
// CHECK-DAG: :[[@LINE-2]]:3: note: also: the storage rule cannot retarget it: it is passed to kernel 'raw' as an argument that is not a descriptor parameter [storage.unclassified-use]

static CUtensorMap *g_cleared = nullptr;
static void launch_cleared(const CUtensorMap &h, int *out) {
  cudaMalloc(&g_cleared, sizeof(CUtensorMap));
  cudaMemcpy(g_cleared, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cleared<<<1, 1>>>(g_cleared, out);
  cudaMemset2D(g_cleared, 128, 0, 128, 1);
}
// CHECK-DAG: :[[@LINE-2]]:3: note: also: the storage rule cannot retarget it: 'g_cleared' is written here by 'cudaMemset2D', a write the tool does not turn into a host write [storage.unclassified-use]

static CUtensorMap *g_pair = nullptr;
static void launch_pair(const CUtensorMap &h, int *out) {
  cudaMalloc(&g_pair, 2 * sizeof(CUtensorMap));
  cudaMemcpy(g_pair, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  two_maps<<<1, 1>>>(g_pair, out);
}
// CHECK-DAG: :[[@LINE-4]]:3: note: also: the storage rule cannot retarget it: 'g_pair' is allocated with a size other than one CUtensorMap [storage.unclassified-use]

static CUtensorMap *g_slotted = nullptr;
static void launch_slotted(const CUtensorMap &h, int *out) {
  cudaMalloc(&g_slotted, sizeof(CUtensorMap));
  cudaMemcpy(g_slotted, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  CUtensorMap **slot = &g_slotted;
  slotted<<<1, 1>>>(g_slotted, out);
  (void)slot;
}
// CHECK-DAG: :[[@LINE-4]]:25: note: also: the storage rule cannot retarget it: the address of 'g_slotted' is taken here [storage.unclassified-use]

struct Holder {
  CUtensorMap *map = nullptr;
};
extern void inspect(Holder &h);
static void launch_inspected(const CUtensorMap &h, int *out) {
  Holder holder;
  cudaMalloc(&holder.map, sizeof(CUtensorMap));
  cudaMemcpy(holder.map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  inspect(holder);
  inspected<<<1, 1>>>(holder.map, out);
}
// CHECK-DAG: :[[@LINE-3]]:11: note: also: the storage rule cannot retarget it: an object holding 'Holder::map' is passed here to code whose body is not seen, which may read or change it [storage.unclassified-use]

int main() {
  int *out;
  cudaMalloc(&out, 8 * sizeof(int));
  CUtensorMap h{};
  Reader reader(h);
  reader.run(out);
  launch_kept(h, out);
  launch_next<1>(h, out);
  launch_untyped(h, out);
  launch_cleared(h, out);
  launch_pair(h, out);
  launch_slotted(h, out);
  launch_inspected(h, out);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'read_back' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'kept_extern' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'next_map' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'untyped_too' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'cleared' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'two_maps' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'slotted' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'inspected' is left by reference
// CHECK: 0 kernels rewritten, 8 refused
