// R12, a device copy refreshed from page-locked memory between the capture
// of a launch into a CUDA graph and its replay (tma-105): the staged map
// changed after the capture, so the replay reads another value than the
// one the captured launch would pass. The copy from `pin` names no map in
// its own text, so the launch cannot pass one by value either (the tool
// crashed here once, reading the map of such a copy). The file is left as
// it is.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
__global__ void replayed_after_refresh(const CUtensorMap *map, unsigned long long *out) { out[5] = map->opaque[5]; }

void refreshed_before_replay(const CUtensorMap &a, const CUtensorMap &b, volatile int *flag, const int *dflag,
                             unsigned long long *out) {
  CUtensorMap m = a;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &m, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t cs;
  cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
  replayed_after_refresh<<<1, 1, 0, cs>>>(d, out);
  cudaStreamEndCapture(cs, &g);
  cudaGraphInstantiate(&ge, g, 0);
  m = b;
  spin<<<1, 1, 0, s>>>(dflag);
  *pin = m;
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaGraphLaunch(ge, 0);
  cudaStreamSynchronize(0);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  cudaStreamDestroy(cs);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK: warning: descriptor 'map' of kernel 'replayed_after_refresh' is left by reference
// CHECK: note: also: the storage rule cannot retarget it: 'd' is written here, between the capture of a launch into a CUDA graph and its replay, which reads it then, where the retargeted launch passes it as it was at the capture [storage.unclassified-use]
// CHECK: tma-modernize: 0 kernels rewritten, 1 refused
