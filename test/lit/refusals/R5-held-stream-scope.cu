// R5 (tma-105, issue 41): a hold holds its own stream. A kernel that waits
// for a flag, launched on a local stream created non-blocking, holds that
// stream only: the legacy default stream neither waits for it nor makes it
// wait, and another local stream is a stream of its own. So work on the
// device copy there runs when it is enqueued in a schedule the device may
// pick, and is rewritten though it is copied into again after the launch.
// The twins: the same work on the held stream, and on a stream the caller
// hands in (which may be the held one), refused. A hold on a stream created
// blocking, or one whose stream the tool does not read, may hold any
// stream (refusals/R5-held-streams.cu).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void on_legacy(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void on_own_stream(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void on_held(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }
__global__ void on_given(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[3] = 1; }

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}

static void encode(CUtensorMap *m, int v) { m->opaque[0] = v; }

int run(int *out, volatile int *flag, const volatile int *dflag) {
  cudaStream_t held;
  cudaStreamCreateWithFlags(&held, cudaStreamNonBlocking);
  spin<<<1, 1, 0, held>>>(dflag);
  CUtensorMap h{}, later{};
  encode(&later, 2);

  // Safe: the legacy stream is not held.
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_legacy<<<1, 1>>>(d, out);
  cudaMemcpy(d, &later, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaDeviceSynchronize();

  // Safe: a stream of its own, which nothing holds.
  cudaStream_t own;
  cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
  CUtensorMap *e;
  cudaMalloc(&e, sizeof(CUtensorMap));
  cudaMemcpy(e, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_own_stream<<<1, 1, 0, own>>>(e, out);
  cudaMemcpy(e, &later, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(own);

  // Unsafe: the held stream runs the launch after the flag is set, when
  // the second copy has landed.
  CUtensorMap *f;
  cudaMalloc(&f, sizeof(CUtensorMap));
  cudaMemcpy(f, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_held<<<1, 1, 0, held>>>(f, out);
  cudaMemcpy(f, &later, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(held);
  cudaFree(d);
  cudaFree(e);
  cudaFree(f);
  cudaStreamDestroy(own);
  cudaStreamDestroy(held);
  return 0;
}
// CHECK-DAG: warning: kernel 'on_legacy' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-DAG: warning: kernel 'on_own_stream' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-DAG: warning: descriptor 'map' of kernel 'on_held' is left by reference: work on the device copy is enqueued on a stream that may be held and 'f' is copied into 2 times, so the kernel may read a later copy
// CHECK-DAG: note: this work on the device copy is enqueued on a stream that may be held
// CHECK-FIXES-LABEL: int run(
// CHECK-FIXES: {{^}}  on_legacy<<<1, 1>>>(h, out);
// CHECK-FIXES: {{^}}  on_own_stream<<<1, 1, 0, own>>>(h, out);
// CHECK-FIXES: {{^}}  on_held<<<1, 1, 0, held>>>(f, out);

// Unsafe: the caller's stream may be the held one.
void given(cudaStream_t s, int *out) {
  CUtensorMap h{}, later{};
  encode(&later, 3);
  CUtensorMap *g;
  cudaMalloc(&g, sizeof(CUtensorMap));
  cudaMemcpy(g, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_given<<<1, 1, 0, s>>>(g, out);
  cudaMemcpy(g, &later, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(s);
  cudaFree(g);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'on_given' is left by reference: work on the device copy is enqueued on a stream that may be held and 'g' is copied into 2 times
// CHECK-FIXES-LABEL: void given(
// CHECK-FIXES: {{^}}  on_given<<<1, 1, 0, s>>>(g, out);
