// H13, the value form beside a CUDA graph: a use of the device copy no row
// classifies (a call through a function pointer) may write it at any time
// after it, so only launches made before it pass the value, and only those
// no graph replays after it (replayed_then_cleared: the replays come first). A graph that captures other work of the unit (or
// the same kernel from another device copy) does not stop the form: the
// storage rule reads each capture whole and sees that none takes a launch
// of this device copy. The unsafe twin is refusals/R12-captured-unknown-use.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void sampled(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void replayed(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[2]; }
__global__ void tick(unsigned long long *out) { out[1] += 1; }
static void clear_word(CUtensorMap *m, int w) { cudaMemset(&m->opaque[w], 0, 8); }
static void (*volatile clear_hook)(CUtensorMap *, int) = clear_word;

// A graph of other work, replayed twice.
void ticked(unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  tick<<<1, 1, 0, s>>>(out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

// The device copy is handed to code the tool does not follow after its
// only launch, which no graph captures.
void sampled_then_cleared(CUtensorMap src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  src.opaque[0] = 0;
  sampled<<<1, 1>>>(d, out);
  clear_hook(d, 2);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'sampled' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: :[[@LINE-5]]:3: note: 'd' is passed to an indirect call: the device copy stays, and the launches made before it pass the value
// CHECK-FIXES-LABEL: void sampled_then_cleared(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  src.opaque[0] = 0;
// CHECK-FIXES-NEXT: {{^}}  sampled<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  clear_hook(d, 2);

// Captured, replayed and waited for, and only then handed to code the tool
// does not follow.
void replayed_then_cleared(CUtensorMap src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  replayed<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  clear_hook(d, 2);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'replayed' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void replayed_then_cleared(
// CHECK-FIXES: {{^}}  d_value = src;
// CHECK-FIXES: {{^}}  replayed<<<1, 1, 0, s>>>(d_value, out);
// CHECK-FIXES: {{^}}  clear_hook(d, 2);
