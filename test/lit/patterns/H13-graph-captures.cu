// H13, launches captured into a CUDA graph: a kernel launch enqueued on a
// local stream between cudaStreamBeginCapture and cudaStreamEndCapture is
// not run there but at each replay of the graph (cudaGraphLaunch of an
// executable graph instantiated from it), with the arguments it had at the
// capture. The storage rule reads each capture of the unit whole (the
// stream a local variable, the graph only instantiated and destroyed, the
// executable graph only replayed and destroyed) and retargets a device copy
// whose captured launches see no write of it between the capture and any
// replay (over every path of the CFG): the captured launch passes `*d`, the
// map as it is at the capture, which is what each replay reads. A copy
// before each capture of a loop starts a new capture, so it is not between.
// Where the writes last before every replay are copies of one local map
// that does not change from the capture to them, the captured launch
// passes that map instead (DeviceStorage::replaysReadOneSource).
// A capture stream created anew in each round of a loop names no one
// stream through the function, but what is enqueued through it between
// the capture's begin and end is captured all the same (per_round_stream).
// The unsafe twins are refusals/R12-graph-captures.cu, but for that of
// per_round_stream, which is here (changed_per_round): that file holds a
// capture not read whole, which refuses every capture of the unit.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void tile(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void step(const CUtensorMap *map, unsigned long long *out, int i) { out[1 + i] = map->opaque[1]; }

// Launched, uploaded again, then captured once and replayed twice; the
// device copy is written only before the capture.
void replayed_twice(const CUtensorMap &first, const CUtensorMap &second, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tile<<<1, 1>>>(d, out);
  cudaMemcpy(d, &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  tile<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'tile' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void replayed_twice(
// CHECK-FIXES: {{^}}  *d = first;
// CHECK-FIXES-NEXT: {{^}}  tile<<<1, 1>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  *d = second;
// CHECK-FIXES: {{^}}  tile<<<1, 1, 0, s>>>(*d, out);

// Each step uploads its map, captures its launch, replays it and frees
// the graph: the next upload comes before the next capture.
void stepwise(const CUtensorMap *maps, int steps, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < steps; ++i) {
    cudaMemcpy(d, &maps[i], sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    step<<<1, 1, 0, s>>>(d, out, i);
    cudaStreamEndCapture(s, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphLaunch(exec, s);
    cudaStreamSynchronize(s);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'step' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void stepwise(
// CHECK-FIXES: {{^}}    *d = maps[i];
// CHECK-FIXES: {{^}}    step<<<1, 1, 0, s>>>(*d, out, i);

// The copy between the capture and the replay is of a local map that does
// not change from the capture to the copy: the replay reads that map, and
// the captured launch passes it by value (the capture keeps its arguments).
__global__ void copied_later(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[2]; }

void captured_then_copied(const CUtensorMap &first, const CUtensorMap &second, unsigned long long *out) {
  CUtensorMap next = second;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  copied_later<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'copied_later' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void captured_then_copied(
// CHECK-FIXES: {{^}}  copied_later<<<1, 1, 0, s>>>(next, out);
// CHECK-FIXES: {{^}}  *d = next;
// CHECK-FIXES-NEXT: {{^}}  cudaGraphLaunch(exec, s);

// The same where a kernel that writes the device copy keeps it (the value
// form): the stamp lands before the copy the replay reads, so the captured
// launch passes the map that copy copies, and the launch before the stamp
// the value. The unsafe twin (the stamp after that copy) is
// stamped_before_replay in refusals/R12-graph-captures.cu.
__global__ void stamped_then_copied(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[3]; }
__global__ void stamp_word(CUtensorMap *map, unsigned long long v) { map->opaque[1] = v; }

void stamped_before_capture(const CUtensorMap &first, const CUtensorMap &second, unsigned long long *out) {
  CUtensorMap next = second;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamped_then_copied<<<1, 1>>>(d, out);
  stamp_word<<<1, 1>>>(d, 7);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  stamped_then_copied<<<1, 1, 0, s>>>(d, out);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'stamped_then_copied' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void stamped_before_capture(
// CHECK-FIXES: {{^}}  d_value = first;
// CHECK-FIXES-NEXT: {{^}}  stamped_then_copied<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp_word<<<1, 1>>>(d, 7);
// CHECK-FIXES: {{^}}  stamped_then_copied<<<1, 1, 0, s>>>(next, out);
// CHECK-FIXES: {{^}}  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = next;
// CHECK-FIXES-NEXT: {{^}}  cudaGraphLaunch(exec, s);
__global__ void per_round(const CUtensorMap *map, unsigned long long *out) { out[8] = map->opaque[8]; }
__global__ void changed_round(const CUtensorMap *map, unsigned long long *out) { out[9] = map->opaque[9]; }

// Each round creates its own capture stream, captures a launch, uploads
// the same unchanged map again and replays: the replay reads what the
// capture passed.
void per_round_stream(unsigned long long seed, int rounds, unsigned long long *out) {
  CUtensorMap h = {};
  h.opaque[8] = seed;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  for (int i = 0; i < rounds; ++i) {
    cudaStream_t cs;
    cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
    per_round<<<1, 1, 0, cs>>>(d, out);
    cudaStreamEndCapture(cs, &g);
    cudaGraphInstantiate(&ge, g, 0);
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cudaGraphLaunch(ge, 0);
    cudaStreamSynchronize(0);
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cs);
  }
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'per_round' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void per_round_stream(
// CHECK-FIXES: {{^}}    per_round<<<1, 1, 0, cs>>>(*d, out);
// CHECK-FIXES: {{^}}    *d = h;
// CHECK-FIXES-NEXT: {{^}}    cudaGraphLaunch(ge, 0);

// The twin: the map changes between the capture and the upload before the
// replay, which reads the new one.
void changed_per_round(unsigned long long seed, int rounds, unsigned long long *out) {
  CUtensorMap h = {};
  h.opaque[9] = seed;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  for (int i = 0; i < rounds; ++i) {
    cudaStream_t cs;
    cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
    changed_round<<<1, 1, 0, cs>>>(d, out);
    cudaStreamEndCapture(cs, &g);
    cudaGraphInstantiate(&ge, g, 0);
    h.opaque[9] += 1;
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cudaGraphLaunch(ge, 0);
    cudaStreamSynchronize(0);
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cs);
  }
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: descriptor 'map' of kernel 'changed_round' is left by reference
// CHECK-MESSAGES-DAG: :[[@LINE-10]]:5: note: also: the storage rule cannot retarget it: 'd' is written here, between the capture of a launch into a CUDA graph and its replay, which reads it then, where the retargeted launch passes it as it was at the capture [storage.unclassified-use]
// CHECK-MESSAGES: 5 kernels rewritten, 2 refused
