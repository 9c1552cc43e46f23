// R12, partial writes of the device copy the storage rule does not make on
// the host (tma-105): each kernel's device copy is written in part after
// its upload, as in patterns/H13-partial-device-writes.cu, but in a form
// whose effect at the call the tool does not know: an asynchronous memset
// (it runs when its stream reaches it), a memset that runs past the map's
// 128 bytes, a word chosen at run time, a copy from device memory. Each
// refusal names the call, and the file is left as it is.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void later(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[2]; }
__global__ void past(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[15]; }
__global__ void chosen(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[4]; }
__global__ void from_device(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[1]; }

void async_memset(const CUtensorMap &h, unsigned long long *out, cudaStream_t s) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemsetAsync(&d->opaque[2], 0, 8, s);
  later<<<1, 1, 0, s>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'later' is left by reference
// CHECK-DAG: :[[@LINE-5]]:3: note: also: the storage rule cannot retarget it: 'd' is written here by 'cudaMemsetAsync', a write the tool does not turn into a host write [storage.unclassified-use]

void past_the_map(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset(&d->opaque[15], 0, 16);
  past<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'past' is left by reference
// CHECK-DAG: :[[@LINE-5]]:3: note: also: the storage rule cannot retarget it: this cudaMemset of 'd' may write outside the CUtensorMap it points to [storage.unclassified-use]

void chosen_word(const CUtensorMap &h, int word, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset(&d->opaque[word], 0, 8);
  chosen<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'chosen' is left by reference
// CHECK-DAG: :[[@LINE-5]]:15: note: also: the storage rule cannot retarget it: 'd' is written here at a word the tool cannot count [storage.unclassified-use]

void word_from_device(const CUtensorMap &h, const unsigned long long *dword, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(&d->opaque[1], dword, 8, cudaMemcpyDeviceToDevice);
  from_device<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'from_device' is left by reference
// CHECK-DAG: :[[@LINE-5]]:3: note: also: the storage rule cannot retarget it: this cudaMemcpy into 'd' is not a copy from host memory [storage.unclassified-use]

// CHECK: 0 kernels rewritten, 4 refused
