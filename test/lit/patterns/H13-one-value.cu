// H13, copies of one value: a device copy whose every write is a whole
// copy of one local host descriptor, unchanged between any two of the
// copies, holds that value from its first copy on. Where every launch comes
// after a copy that runs at its call, it does not matter when a stream runs
// a later copy or a launch, or when a graph replays a captured launch: each
// copy writes, and each launch reads, the value the retargeted `*d` holds
// at the launch's call. An upload repeated before each replay of a graph,
// and a second upload of the same map while a launch waits on a held
// stream, are rewritten. Where the group copies another map too, a write
// that may run out of order with a launch is still no hazard when it writes
// the value that launch passes: each copy that may be the last made before
// the launch, and the write, copy one local map unchanged between any two
// of them. The unsafe twins are refusals/R12-one-value.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

// Holds its stream until the host sets the flag (mapped host memory).
__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
__global__ void tile(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void held(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[5]; }

// Captured once; the same map uploaded again before each replay.
void reupload_before_replay(const CUtensorMap &src, int steps, unsigned long long *out) {
  CUtensorMap h = src;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  tile<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  for (int i = 0; i < steps; ++i) {
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cudaGraphLaunch(exec, s);
  }
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'tile' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void reupload_before_replay(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES: {{^}}  tile<<<1, 1, 0, s>>>(*d, out);
// CHECK-FIXES: {{^}}    *d = h;
// CHECK-FIXES-NEXT: {{^}}    cudaGraphLaunch(exec, s);

// The same map uploaded again while a launch of it waits on a held stream.
void reupload_while_held(const CUtensorMap &src, volatile int *flag, const int *dflag,
                         unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap h = src;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  held<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  held<<<1, 1, 0, s>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'held' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void reupload_while_held(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  held<<<1, 1, 0, s>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES: {{^}}  held<<<1, 1, 0, s>>>(*d, out);

// The same map uploaded again while a launch waits; another map only after
// a wait covers the held stream.
void same_value_then_another(const CUtensorMap &src, const CUtensorMap &next, volatile int *flag,
                             const int *dflag, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap h = src, o = next;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  held<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaMemcpy(d, &o, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  held<<<1, 1, 0, s>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-FIXES-LABEL: void same_value_then_another(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  held<<<1, 1, 0, s>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES: {{^}}  *d = o;
// CHECK-FIXES-NEXT: {{^}}  held<<<1, 1, 0, s>>>(*d, out);

// The captured map uploaded again before each replay; another map for a
// launch on the legacy stream once the replays are done.
void replays_then_another(const CUtensorMap &src, const CUtensorMap &next, int steps,
                          unsigned long long *out) {
  CUtensorMap h = src, o = next;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  tile<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  for (int i = 0; i < steps; ++i) {
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cudaGraphLaunch(exec, s);
  }
  cudaStreamSynchronize(s);
  cudaMemcpy(d, &o, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tile<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void replays_then_another(
// CHECK-FIXES: {{^}}  tile<<<1, 1, 0, s>>>(*d, out);
// CHECK-FIXES: {{^}}    *d = h;
// CHECK-FIXES-NEXT: {{^}}    cudaGraphLaunch(exec, s);
// CHECK-FIXES: {{^}}  *d = o;
// CHECK-FIXES-NEXT: {{^}}  tile<<<1, 1>>>(*d, out);
