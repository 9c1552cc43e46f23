// The unsafe twins of patterns/H13-queued-partial-writes.cu: a write of
// part of the device copy that its stream makes later, where a launch that
// reads the device copy may run after it lands: released before the second
// launch, the held patch lands first; on the launch's own stream before it,
// the stream makes it first. Both stay by reference.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: diff %t.orig.cu %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}

__global__ void read_after_release(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[5]; }
__global__ void read_after_patch(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[5]; }

// The hold is let go before the second launch: the patch may land first.
void released_before_a_launch(const CUtensorMap &h, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  unsigned long long *word;
  cudaMallocHost(&word, sizeof *word);
  *word = 7;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  read_after_release<<<1, 1>>>(d, out);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(&d->opaque[5], word, sizeof *word, cudaMemcpyHostToDevice, s);
  *flag = 1;
  read_after_release<<<1, 1>>>(d, out);
  cudaStreamSynchronize(s);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(word);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}

// A word patched from page-locked memory on the launch's own stream, before
// the launch: the stream runs the patch first, so the kernel reads the new
// word, which the value would not have.
void patched_before_a_launch(const CUtensorMap &h, cudaStream_t s, unsigned long long *out) {
  unsigned long long *word;
  cudaMallocHost(&word, sizeof *word);
  *word = 7;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpyAsync(&d->opaque[5], word, sizeof *word, cudaMemcpyHostToDevice, s);
  read_after_patch<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(word);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'read_after_release' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'read_after_patch' is left by reference
// CHECK: 0 kernels rewritten, 2 refused
