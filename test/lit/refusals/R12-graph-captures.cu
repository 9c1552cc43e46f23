// R12, the unsafe twins of patterns/H13-graph-captures.cu (tma-105): a
// launch captured into a CUDA graph reads the device copy at each replay,
// where the retargeted launch would pass it as it was at the capture. So
// the storage rule refuses a device copy written between a capture and a
// replay (a copy after the capture; a copy after a replay of a loop that
// replays again; a copy of a local map changed since the capture, which
// the captured launch cannot pass by value either), a copy that is itself captured (each replay makes it
// again), and, once a capture is not read whole (the executable graph
// handed to a function), any launch that is not on the legacy stream. Work
// on a stream handed in may be on the captured stream. Each refusal names
// the use; the file is left as it is.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void tile(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void looped(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[0]; }
__global__ void uploaded(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[0]; }
__global__ void handed(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[0]; }

// The copy after the capture is what the replay reads.
void copied_after_capture(const CUtensorMap &first, const CUtensorMap &second, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  tile<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaMemcpy(d, &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'tile' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: 'd' is written here, between the capture of a launch into a CUDA graph and its replay, which reads it then, where the retargeted launch passes it as it was at the capture [storage.unclassified-use]

// Captured once and replayed in a loop that uploads after each replay.
void replayed_in_a_loop(const CUtensorMap *maps, int steps, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &maps[0], sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  looped<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  for (int i = 1; i < steps; ++i) {
    cudaGraphLaunch(exec, s);
    cudaStreamSynchronize(s);
    cudaMemcpy(d, &maps[i], sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'looped' is left by reference
// CHECK-DAG: :[[@LINE-8]]:5: note: also: the storage rule cannot retarget it: 'd' is written here, between the capture of a launch into a CUDA graph and its replay, {{.*}} [storage.unclassified-use]

// The upload is captured too: each replay makes it again.
void upload_captured(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  uploaded<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'uploaded' is left by reference
// CHECK-DAG: :[[@LINE-12]]:3: note: also: the storage rule cannot retarget it: this write of 'd' is captured into a CUDA graph, whose replays make it again later [storage.unclassified-use]

// A launch on a stream handed in: it may be the stream a capture uses.
void on_a_stream(const CUtensorMap &first, const CUtensorMap &second, cudaStream_t stream,
                 unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  handed<<<1, 1, 0, stream>>>(d, out);
  cudaMemcpy(d, &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  handed<<<1, 1, 0, stream>>>(d, out);
  cudaStreamSynchronize(stream);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'handed' is left by reference
// CHECK-DAG: :[[@LINE-7]]:3: note: also: the storage rule cannot retarget it: this work on 'd' is enqueued on a stream a CUDA graph of this translation unit may capture, and a replay would run it again later [storage.unclassified-use]
// The local map copied after the capture changes after the capture: the
// captured launch cannot pass it as the replay reads it.
__global__ void next_changed(const CUtensorMap *map, unsigned long long *out) { out[4] = map->opaque[0]; }

void changed_after_capture(const CUtensorMap &first, const CUtensorMap &second, unsigned long long *out) {
  CUtensorMap next = second;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  next_changed<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  next.opaque[0] = 0;
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'next_changed' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: 'd' is written here, between the capture of a launch into a CUDA graph and its replay, which reads it then, where the retargeted launch passes it as it was at the capture [storage.unclassified-use]

// A kernel that writes the device copy after the copy the replay reads:
// the replay reads the stamped map, which no host map holds (the twin of
// stamped_before_capture in patterns/H13-graph-captures.cu).
__global__ void stamped_late(const CUtensorMap *map, unsigned long long *out) { out[5] = map->opaque[1]; }
__global__ void stamp_word(CUtensorMap *map, unsigned long long v) { map->opaque[1] = v; }

void stamped_before_replay(const CUtensorMap &first, const CUtensorMap &second, unsigned long long *out) {
  CUtensorMap next = second;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  stamped_late<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamp_word<<<1, 1>>>(d, 7);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'stamped_late' is left by reference

// CHECK: 0 kernels rewritten, 7 refused
