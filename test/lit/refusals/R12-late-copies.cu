// The unsafe twin of patterns/H13-late-copies.cu: the hold is let go before
// the last launch, so the held refresh of the device copy lands before that
// launch reads it, with what the staging map holds when the stream runs
// it, which the host changes after the copy's call. The copy is not late,
// and neither the value form nor the snapshot (`*d = *staged;` at the call)
// passes what the launch reads: the kernel stays by reference.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: diff %t.orig.cu %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}

__global__ void read_after_refresh(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }

// The hold is let go before the last launch: the refresh lands before it,
// with what the staging map holds then, changed after the copy's call.
void released_before_the_last_launch(const CUtensorMap &h, const CUtensorMap &next, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap *staged;
  cudaMallocHost(&staged, sizeof(CUtensorMap));
  *staged = next;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  read_after_refresh<<<1, 1>>>(d, out);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, staged, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  staged->opaque[0] = 5;
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  read_after_refresh<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(staged);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK: warning: descriptor 'map' of kernel 'read_after_refresh' is left by reference
// CHECK: 0 kernels rewritten, 1 refused
