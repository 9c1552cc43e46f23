// R12, a use no row classifies after a launch on a held stream (tma-105):
// the launch waits behind a kernel that spins on host memory, and the
// device copy is then handed to a call through a function pointer, which
// may write it and release the stream before the kernel reads it. The
// value form refuses (patterns/H13-value-form.cu has the launch on a
// stream nothing holds, patterns/H13-stream-time.cu the call after the host
// has waited for the held stream); the file is left as it is. So does a
// call made after the release but before that wait: the kernel may not
// have read the device copy yet.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void waited(const CUtensorMap *map, unsigned long long *out) { out[4] = map->opaque[4]; }
__global__ void hold(const volatile int *flag) {
  while (!*flag) {
  }
}
static void clear_word(CUtensorMap *m, int w) { cudaMemset(&m->opaque[w], 0, 8); }
static void (*volatile clear_hook)(CUtensorMap *, int) = clear_word;

void cleared_while_held(CUtensorMap src, volatile int *flag, const int *dflag, cudaStream_t s,
                        unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  src.opaque[0] = 0;
  hold<<<1, 1, 0, s>>>(dflag);
  waited<<<1, 1, 0, s>>>(d, out);
  clear_hook(d, 4);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'waited' is left by reference
// CHECK-DAG: :[[@LINE-6]]:3: note: also: the storage rule cannot retarget it: 'd' is passed to an indirect call, which may write the device copy at any time after it: the launch at line [[@LINE-7]] may wait on a held stream until later [storage.unclassified-use]

__global__ void released(const CUtensorMap *map, unsigned long long *out) { out[5] = map->opaque[4]; }

void cleared_before_the_wait(CUtensorMap src, volatile int *flag, const int *dflag, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  src.opaque[0] = 0;
  hold<<<1, 1, 0, s>>>(dflag);
  released<<<1, 1, 0, s>>>(d, out);
  *flag = 1;
  clear_hook(d, 4);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'released' is left by reference
// CHECK-DAG: :[[@LINE-6]]:3: note: also: the storage rule cannot retarget it: 'd' is passed to an indirect call, which may write the device copy at any time after it: the launch at line [[@LINE-8]] may wait on a held stream until later [storage.unclassified-use]
