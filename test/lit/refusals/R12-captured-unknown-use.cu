// R12, a use no row classifies after a launch that a CUDA graph captures
// (tma-105): each replay of the graph makes the launch again, after the
// call through a function pointer that may have written the device copy,
// so the value form refuses (patterns/H13-value-form-graph.cu has the
// launch outside the capture); the file is left as it is.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void sampled(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
static void clear_word(CUtensorMap *m, int w) { cudaMemset(&m->opaque[w], 0, 8); }
static void (*volatile clear_hook)(CUtensorMap *, int) = clear_word;

void captured_then_cleared(CUtensorMap src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  src.opaque[0] = 0;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  sampled<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  clear_hook(d, 2);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'sampled' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: 'd' is passed to an indirect call, which may write the device copy at any time after it: a CUDA graph replays a launch of it at line [[@LINE-8]] after it [storage.unclassified-use]
