// H13, partial writes of the device copy: a cudaMemset of the device copy
// (all of it, or a word `&d->opaque[c]`) and a synchronous cudaMemcpy of a
// word from host memory, within the map's 128 bytes. The storage rule makes
// the same write on the retargeted host map at the call, where the device
// copy would have it once the call's work has run (the launch reads the
// device copy later in stream order, the retargeted launch passes `*d` at
// its call): `memset` and `memcpy` with the same arguments. A word written
// through an element of an array of the pointer is the same write. The
// unsafe twins (an asynchronous memset, a write past the map, a word the
// tool cannot count, a copy from device memory) are
// refusals/R12-partial-device-writes.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void stamped(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[11]; }
__global__ void patched(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[3]; }
__global__ void cleared(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[0]; }
__global__ void through(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[1]; }

// A word stamped with a byte pattern after the upload.
void stamp_word(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset(&d->opaque[11], 0x5a, sizeof(unsigned long long));
  stamped<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'stamped' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void stamp_word(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  memset(&d->opaque[11], 0x5a, sizeof(unsigned long long));
// CHECK-FIXES-NEXT: {{^}}  stamped<<<1, 1>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  delete d;

// A word patched from a host variable between two launches, its error
// code checked: the patch is a memcpy, and the check, which can no longer
// fail, goes with its branch.
int patch_word(const CUtensorMap &h, unsigned long long stride, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  patched<<<1, 1>>>(d, out);
  if (cudaMemcpy(&d->opaque[3], &stride, sizeof stride, cudaMemcpyHostToDevice) != cudaSuccess)
    return 1;
  patched<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK-MESSAGES-DAG: warning: kernel 'patched' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: int patch_word(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  patched<<<1, 1>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  memcpy(&d->opaque[3], &stride, sizeof stride);
// CHECK-FIXES-NEXT: {{^}}  patched<<<1, 1>>>(*d, out);

// The buffer cleared whole before the upload, and its first word after.
void clear_then_upload(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemset(d, 0, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset(d->opaque, 0, 8);
  cleared<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'cleared' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void clear_then_upload(
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  memset(d, 0, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  memset(d->opaque, 0, 8);
// CHECK-FIXES-NEXT: {{^}}  cleared<<<1, 1>>>(*d, out);

// A word written through the element of an array the pointer is put in.
void through_element(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap *maps[1] = {d};
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset(&maps[0]->opaque[1], 0, 8);
  through<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'through' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void through_element(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  memset(&maps[0]->opaque[1], 0, 8);
// CHECK-FIXES-NEXT: {{^}}  through<<<1, 1>>>(*d, out);
// CHECK-MESSAGES: 4 kernels rewritten, 0 refused
