// H13 with a CUdeviceptr: the driver API's integer for a device address is
// a storage of the rule like a pointer. Allocated by cuMemAlloc, filled by
// cuMemcpyHtoD, launched through `(CUtensorMap *)dptr` from a lambda, a
// host template and an argument array, logged, and freed by cuMemFree, it
// is retargeted: it keeps its type and holds the address of a host
// CUtensorMap (`(CUdeviceptr)new CUtensorMap`), the copy becomes an
// assignment through the same cast the launch spells, and the free a
// delete. Unsafe twins: refusals/R12-device-address.cu. The launches are
// on the default stream, which runs them before the second copy; on a
// stream that may run them later, the device copy is copied into twice and
// stays (refusals/R5-other-streams.cu).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void staged(const CUtensorMap *map, int *out, int slot) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[slot] = slot;
}
// CHECK-FIXES: {{^}}__global__ void staged(const __grid_constant__ CUtensorMap map, int *out, int slot) {

template <int Slot> static void launch_slot(const CUtensorMap *map, int *out) {
  staged<<<1, 1>>>(map, out, Slot);
}
// CHECK-FIXES: {{^}}  staged<<<1, 1>>>(*map, out, Slot);

// The host descriptor changes after each copy: the launches pass the copy.
void driver_copy(CUtensorMap &h, int *out) {
  CUdeviceptr dptr = 0;
  if (cuMemAlloc(&dptr, sizeof(CUtensorMap)) != CUDA_SUCCESS)
    return;
  cuMemcpyHtoD(dptr, &h, sizeof(CUtensorMap));
  h.opaque[0] ^= 1;
  auto first = [&] { staged<<<1, 1>>>((CUtensorMap *)dptr, out, 0); };
  first();
  std::fprintf(stderr, "descriptor at %p\n", (void *)dptr);
  launch_slot<1>((CUtensorMap *)dptr, out);
  cuMemcpyHtoD(dptr, &h, sizeof(CUtensorMap));
  int slot = 2;
  void *args[] = {&dptr, &out, &slot};
  cudaLaunchKernel((const void *)staged, dim3(1), dim3(1), args, 0, 0);
  if (dptr)
    cuMemFree(dptr);
}
// CHECK-FIXES: {{^}}  CUdeviceptr dptr = 0;
// CHECK-FIXES-NEXT: {{^}}  dptr = (CUdeviceptr)new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *(CUtensorMap *)dptr = h;
// CHECK-FIXES-NEXT: {{^}}  h.opaque[0] ^= 1;
// CHECK-FIXES-NEXT: {{^}}  auto first = [&] { staged<<<1, 1>>>(*((CUtensorMap *)dptr), out, 0); };
// CHECK-FIXES: {{^}}  launch_slot<1>((CUtensorMap *)dptr, out);
// CHECK-FIXES-NEXT: {{^}}  *(CUtensorMap *)dptr = h;
// CHECK-FIXES: {{^}}  void *args[] = {(void *)dptr, &out, &slot};
// CHECK-FIXES: {{^}}    delete (CUtensorMap *)dptr;

// CHECK-MESSAGES: warning: kernel 'staged' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: note: 'dptr' is printed here: the address it prints is now a host address
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused
