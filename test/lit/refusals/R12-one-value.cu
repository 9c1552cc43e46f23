// R12, copies of one value (tma-105): the unsafe twins of
// patterns/H13-one-value.cu. The host map changes between two uploads
// while a launch of the device copy waits on a held stream, or between the
// capture of a launch and a replay that follows an upload; and the first
// upload is itself queued on a held stream, so a launch on another stream
// may run before any upload has landed. A write of another map while a
// launch waits, or before replays between which it changes, is refused
// though the same map is uploaded elsewhere too. Each refusal names the operation
// that runs out of order, and the file is left as it is.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
__global__ void tile(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void held(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[5]; }
__global__ void early(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[3]; }
__global__ void waits(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[7]; }
__global__ void replayed(const CUtensorMap *map, unsigned long long *out) { out[4] = map->opaque[9]; }

// The map changes after each replay: the next upload copies another value.
void changed_between_replays(const CUtensorMap &src, int steps, unsigned long long *out) {
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
    h.opaque[0] += 1;
  }
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'tile' is left by reference
// CHECK-DAG: :[[@LINE-11]]:5: note: also: the storage rule cannot retarget it: 'd' is written here, between the capture of a launch into a CUDA graph and its replay, which reads it then, where the retargeted launch passes it as it was at the capture [storage.unclassified-use]

// The map changes between two uploads while a launch waits.
void changed_while_held(const CUtensorMap &src, volatile int *flag, const int *dflag,
                        unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap h = src;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  held<<<1, 1, 0, s>>>(d, out);
  h.opaque[5] = 7;
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  held<<<1, 1, 0, s>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'held' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-11]]

// The first upload waits behind the held stream; the launch on the legacy
// stream may read the device copy before it lands.
void first_upload_held(const CUtensorMap &src, volatile int *flag, const int *dflag,
                       unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap h = src;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  early<<<1, 1>>>(d, out);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  early<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'early' is left by reference
// CHECK-DAG: :[[@LINE-10]]:3: note: also: the storage rule cannot retarget it: this launch of 'd' may run before the write of 'd' at line [[@LINE-11]], which waits on a stream that may be held

// Another map uploaded while the launch waits: it may read that one, where
// the retargeted launch passes the first.
void another_while_held(const CUtensorMap &src, const CUtensorMap &next, volatile int *flag,
                        const int *dflag, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap h = src, o = next;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  waits<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d, &o, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'waits' is left by reference
// CHECK-DAG: :[[@LINE-7]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-9]]

// Another map uploaded before each replay of a launch captured with the
// first, and changed after each replay: no one map is what every replay
// reads (where it does not change, the capture passes it:
// patterns/H13-graph-captures.cu).
void another_before_replay(const CUtensorMap &src, const CUtensorMap &next, int steps,
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
  replayed<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  for (int i = 0; i < steps; ++i) {
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cudaMemcpy(d, &o, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cudaGraphLaunch(exec, s);
    o.opaque[0] = i;
  }
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'replayed' is left by reference
// CHECK-DAG: :[[@LINE-11]]:5: note: also: the storage rule cannot retarget it: 'd' is written here, between the capture of a launch into a CUDA graph and its replay
