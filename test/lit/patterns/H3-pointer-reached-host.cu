// H3 with writes in between: the host descriptor lives behind a pointer
// (pinned memory, `new`), and code between the copy and the launch writes
// only locals given by name: a launch configuration's fields, through the
// struct's trivial assignment, and an int. None of it can reach heap or
// pinned memory, so the launch passes '*h' and the copy goes. A call of a
// function that writes through a global pointer may change '*h': there the
// device copy is retargeted instead (the assignment reads '*h' when the
// copy did).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

struct LaunchShape { dim3 grid, block; };

__global__ void gather(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
// CHECK-MESSAGES: warning: kernel 'gather' reads descriptor 'map' through global memory; now passed by value [tma-001]

CUtensorMap *g_scratch;
static void touch_scratch() { g_scratch->opaque[0] = 1; }

int pinned(int *out) {
  CUtensorMap *h;
  cudaMallocHost(&h, sizeof(CUtensorMap));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(1);
  LaunchShape shape;
  shape.block = dim3(32);
  int tries = 0;
  tries += 1;
  cudaLaunchKernelEx(&config, gather, (const CUtensorMap *)d, out);
  cudaFree(d);
  cudaFreeHost(h);
  return tries;
}
// CHECK-FIXES-LABEL: int pinned(int *out) {
// CHECK-FIXES-NOT: cudaMalloc(&d
// CHECK-FIXES: {{^}}  cudaLaunchKernelEx(&config, gather, *h, out);
// CHECK-FIXES-NOT: cudaFree(d)

int on_heap(int *out) {
  CUtensorMap *h = new CUtensorMap();
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  touch_scratch();
  gather<<<1, 1>>>(d, out);
  cudaFree(d);
  delete h;
  return 0;
}
// CHECK-MESSAGES: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES-LABEL: int on_heap(int *out) {
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES: {{^}}  *d = *h;
// CHECK-FIXES: {{^}}  gather<<<1, 1>>>(*d, out);
// CHECK-FIXES: {{^}}  delete d;
