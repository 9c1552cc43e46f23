// R12 with a CUdeviceptr: each device copy below lives in a CUdeviceptr, as
// in patterns/H13-device-address.cu, but one use of the integer is none the
// rule classifies, so it stays on the device and the refusal names it: an
// offset into the allocation (not a storage at all), a copy back to the host, and an upload helper
// that also copies a data buffer (its parameter joins both, and the data
// copy is not one whole CUtensorMap).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void offset_map(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void read_back(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void shared_upload(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }

void with_offset(const CUtensorMap &h, int *out) {
  CUdeviceptr base = 0;
  cuMemAlloc(&base, sizeof(CUtensorMap));
  cuMemcpyHtoD(base, &h, sizeof(CUtensorMap));
  auto go = [&] { offset_map<<<1, 1>>>((CUtensorMap *)(base + 0), out); };
  go();
  cuMemFree(base);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'offset_map' is left by reference
// CHECK-DAG: the descriptor argument '(CUtensorMap *)(base + 0)' is not a variable holding a device copy [tma-105]

void copied_back(const CUtensorMap &h, int *out) {
  CUdeviceptr dptr = 0;
  cuMemAlloc(&dptr, sizeof(CUtensorMap));
  cuMemcpyHtoD(dptr, &h, sizeof(CUtensorMap));
  auto go = [&] { read_back<<<1, 1>>>((CUtensorMap *)dptr, out); };
  go();
  CUtensorMap check;
  cuMemcpyDtoH(&check, dptr, sizeof(CUtensorMap));
  cuMemFree(dptr);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'read_back' is left by reference
// CHECK-DAG: :[[@LINE-4]]:3: note: also: the storage rule cannot retarget it: 'dptr' is passed to 'cuMemcpyDtoH_v2', whose body is not seen, which may write the device copy at any time after it: the launch at line [[@LINE-7]] may be made after it [storage.unclassified-use]

static void upload(CUdeviceptr dst, const void *src, size_t bytes) { cuMemcpyHtoD(dst, src, bytes); }
void shared_helper(const CUtensorMap &h, const int *data, int *out) {
  CUdeviceptr dmap = 0, dbuf = 0;
  cuMemAlloc(&dmap, sizeof(CUtensorMap));
  cuMemAlloc(&dbuf, 64 * sizeof(int));
  upload(dmap, &h, sizeof(CUtensorMap));
  upload(dbuf, data, 64 * sizeof(int));
  auto go = [&] { shared_upload<<<1, 1>>>((CUtensorMap *)dmap, out); };
  go();
  cuMemFree(dmap);
  cuMemFree(dbuf);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'shared_upload' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'dst' is written here by 'cuMemcpyHtoD', a write the tool does not turn into a host write [storage.unclassified-use]
// CHECK: 0 kernels rewritten, 3 refused
