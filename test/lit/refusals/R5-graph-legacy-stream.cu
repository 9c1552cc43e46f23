// R5 (tma-105): a CUDA graph captures only work enqueued on a stream that is
// being captured, and the legacy default stream (no stream, 0, NULL,
// cudaStreamLegacy) cannot be. So a graph elsewhere in the translation unit
// is no reason to refuse a device copy whose copies and launches are all on
// that stream: it is copied twice here and still passed by value, or as a
// snapshot. The twins: the same function launching on cudaStreamPerThread
// (the stream the unit's graph captures), and the whole unit built for the
// per-thread default stream (nvcc --default-stream per-thread defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM), where a launch with no stream goes to
// the thread's stream: both refused.
// RUN: %prep
// RUN: cp %t.cu %t.per-thread.cu
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma %t.per-thread.cu -- -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1 2>&1 | %FileCheck %s --check-prefix=PER-THREAD
// RUN: cmp %t.per-thread.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void on_legacy(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void snapshot_on_legacy(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void on_per_thread(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }
__global__ void captured(int *out) { out[3] = 1; }

static void encode(CUtensorMap *m, int v) { m->opaque[0] = v; }

// The graph: captured on the thread's default stream and replayed.
void replay(int *out) {
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal);
  captured<<<1, 1, 0, cudaStreamPerThread>>>(out);
  cudaStreamEndCapture(cudaStreamPerThread, &g);
  cudaGraphInstantiate(&ge, g, 0);
  cudaGraphLaunch(ge, 0);
  cudaStreamSynchronize(0);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
}

void copied_twice(int *out) {
  CUtensorMap h{}, other{};
  encode(&other, 5);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_legacy<<<1, 1>>>(d, out);
  cudaMemcpyAsync(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice, cudaStreamLegacy);
  on_legacy<<<1, 1, 0, 0>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: kernel 'on_legacy' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void copied_twice(
// CHECK-FIXES: {{^}}  on_legacy<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  on_legacy<<<1, 1, 0, 0>>>(other, out);

// The host map changes after the copy: the storage rule's snapshot.
void changed_after_copy(int *out) {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  encode(&h, 7);
  snapshot_on_legacy<<<1, 1>>>(d, out);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  snapshot_on_legacy<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: kernel 'snapshot_on_legacy' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void changed_after_copy(
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  encode(&h, 7);
// CHECK-FIXES-NEXT: {{^}}  snapshot_on_legacy<<<1, 1>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  snapshot_on_legacy<<<1, 1>>>(*d, out);

// The twin: the thread's default stream, which the graph captures.
void on_thread_stream(int *out) {
  CUtensorMap h{}, other{};
  encode(&other, 5);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_per_thread<<<1, 1, 0, cudaStreamPerThread>>>(d, out);
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_per_thread<<<1, 1, 0, cudaStreamPerThread>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'on_per_thread' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'd' is copied into 2 times, so a replay may read a later copy: {{.*}} [tma-105]
// CHECK-FIXES-LABEL: void on_thread_stream(
// CHECK-FIXES: {{^}}  on_per_thread<<<1, 1, 0, cudaStreamPerThread>>>(d, out);
// CHECK: tma-modernize: 2 kernels rewritten, 1 refused

// PER-THREAD-DAG: warning: descriptor 'map' of kernel 'on_legacy' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'd' is copied into 2 times, so a replay may read a later copy: {{.*}} [tma-105]
// PER-THREAD-DAG: warning: descriptor 'map' of kernel 'snapshot_on_legacy' is left by reference: {{.*}}
// PER-THREAD: tma-modernize: 0 kernels rewritten, 3 refused
