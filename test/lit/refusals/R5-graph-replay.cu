// R5 (tma-105): a launch that a CUDA graph captures is replayed with the
// arguments it had when captured. By reference, a replay reads whatever the
// device copy holds then; by value, the descriptor as it was captured. So in
// a translation unit that captures or replays a graph, a device copy may go
// only when it never changes once made: copied once and, when the copy is
// on a stream (a graph may capture it and run it again at each replay), from
// a local host descriptor that nothing changes after the copy (nor in a loop
// around it).
// Otherwise the launch stays, and so does its copy.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void captured_once(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void captured_async(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void uploaded_again(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void changed_in_loop(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void changed_after(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void from_pointer(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}

static void encode(CUtensorMap *m, int v) { m->opaque[0] = v; }

// Safe: one copy before the capture; the replays read what it copied, and
// the host descriptor changing afterwards changes nothing (a synchronous copy
// is not captured).
void replay_unchanged(cudaStream_t s) {
  CUtensorMap h{};
  encode(&h, 1);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  captured_once<<<1, 1, 0, s>>>(d);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&ge, g, 0);
  encode(&h, 3);
  for (int i = 0; i < 3; ++i)
    cudaGraphLaunch(ge, s);
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void replay_unchanged(
// CHECK-FIXES: {{^}}  captured_once<<<1, 1, 0, s>>>(h);

// Safe: the copy is captured too, in a loop, but what it reads never changes.
void capture_copies(cudaStream_t s, int n) {
  CUtensorMap h{};
  encode(&h, 2);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < n; ++i) {
    cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
    captured_async<<<1, 1, 0, s>>>(d);
  }
  cudaGraph_t g;
  cudaStreamEndCapture(s, &g);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void capture_copies(
// CHECK-FIXES: {{^}}    captured_async<<<1, 1, 0, s>>>(h);

// Unsafe: the replay after the second upload reads the new contents.
void upload_after_capture(cudaStream_t s, cudaGraphExec_t ge) {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  uploaded_again<<<1, 1, 0, s>>>(d);
  cudaGraph_t g;
  cudaStreamEndCapture(s, &g);
  encode(&h, 7);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaGraphLaunch(ge, s);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void upload_after_capture(
// CHECK-FIXES: {{^}}  uploaded_again<<<1, 1, 0, s>>>(d);

// Unsafe: each replay of the captured copy reads the current 'h', which
// the loop changes.
void changed_each_iteration(cudaStream_t s, cudaGraphExec_t ge, int n) {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  for (int i = 0; i < n; ++i) {
    encode(&h, i);
    cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
    changed_in_loop<<<1, 1, 0, s>>>(d);
    cudaGraphLaunch(ge, s);
  }
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void changed_each_iteration(
// CHECK-FIXES: {{^}}    changed_in_loop<<<1, 1, 0, s>>>(d);

// Unsafe: a captured copy reads 'h' at each replay; it changes after.
void changed_after_capture(cudaStream_t s, cudaGraphExec_t ge) {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  changed_after<<<1, 1, 0, s>>>(d);
  h.opaque[1] = 3;
  cudaGraphLaunch(ge, s);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void changed_after_capture(
// CHECK-FIXES: {{^}}  changed_after<<<1, 1, 0, s>>>(d);

// Safe: a synchronous copy through a pointer, made once: the replays read
// what it copied, which the launch passes.
void staged(cudaStream_t s, CUtensorMap *pinned) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, pinned, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  from_pointer<<<1, 1, 0, s>>>(d);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void staged(
// CHECK-FIXES: {{^}}  from_pointer<<<1, 1, 0, s>>>(*pinned);

// Unsafe: a captured copy through a pointer reads it at each replay.
__global__ void captured_through_pointer(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
void staged_async(cudaStream_t s, CUtensorMap *pinned) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pinned, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  captured_through_pointer<<<1, 1, 0, s>>>(d);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void staged_async(
// CHECK-FIXES: {{^}}  captured_through_pointer<<<1, 1, 0, s>>>(d);

// The same for a __constant__ descriptor: a replay reads the symbol as the
// last copy left it.
__constant__ CUtensorMap c_map;
__global__ void from_constant() {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&c_map) : "memory");
}
void symbol_copied_twice(cudaStream_t s, cudaGraphExec_t ge) {
  CUtensorMap h{};
  cudaMemcpyToSymbol(c_map, &h, sizeof(CUtensorMap));
  from_constant<<<1, 1, 0, s>>>();
  CUtensorMap other{};
  encode(&other, 5);
  cudaMemcpyToSymbol(c_map, &other, sizeof(CUtensorMap));
  cudaGraphLaunch(ge, s);
}
// CHECK-FIXES-LABEL: void symbol_copied_twice(
// CHECK-FIXES: {{^}}  from_constant<<<1, 1, 0, s>>>();

// Unsafe: a synchronous copy in a loop runs again before each replay.
__global__ void copied_each_iteration(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
void sync_copy_in_loop(cudaStream_t s, int n) {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  for (int i = 0; i < n; ++i) {
    encode(&h, i);
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    if (i == 0) {
      cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
      copied_each_iteration<<<1, 1, 0, s>>>(d);
      cudaStreamEndCapture(s, &g);
      cudaGraphInstantiate(&ge, g, 0);
    }
    cudaGraphLaunch(ge, s);
  }
  cudaFree(d);
}

// Unsafe: other names made before the copy change 'h' after it, and a
// backward goto runs the write before the next captured copy.
__global__ void through_reference(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void through_lambda(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
__global__ void through_goto(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
void reference_write(cudaStream_t s, cudaGraphExec_t ge) {
  CUtensorMap h{};
  CUtensorMap &alias = h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  through_reference<<<1, 1, 0, s>>>(d);
  alias.opaque[1] = 9;
  cudaGraphLaunch(ge, s);
  cudaFree(d);
}
void lambda_write(cudaStream_t s, cudaGraphExec_t ge) {
  CUtensorMap h{};
  auto bump = [&] { h.opaque[1] = 9; };
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  through_lambda<<<1, 1, 0, s>>>(d);
  bump();
  cudaGraphLaunch(ge, s);
  cudaFree(d);
}
void goto_loop(cudaStream_t s, cudaGraphExec_t ge, int n) {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  int i = 0;
again:
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  through_goto<<<1, 1, 0, s>>>(d);
  encode(&h, i);
  if (++i < n)
    goto again;
  cudaGraphLaunch(ge, s);
  cudaFree(d);
}
// CHECK-FIXES-LABEL: void goto_loop(
// CHECK-FIXES: {{^}}  through_goto<<<1, 1, 0, s>>>(d);

// CHECK-DAG: warning: descriptor 'map' of kernel 'copied_each_iteration' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'h' may change here, after the copy: {{.*}} [tma-105]
// CHECK-DAG: warning: descriptor 'map' of kernel 'through_reference' is left by reference: a CUDA graph is captured or replayed in this translation unit and another name for 'h' is made here, through which it may change: {{.*}} [tma-105]
// CHECK-DAG: warning: descriptor 'map' of kernel 'through_lambda' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'h' is named in a lambda here, which may change it after the copy: {{.*}} [tma-105]
// CHECK-DAG: warning: descriptor 'map' of kernel 'through_goto' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'h' may change here, after the copy: {{.*}} [tma-105]
// CHECK-DAG: warning: kernel 'captured_once' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-DAG: warning: kernel 'captured_async' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-DAG: warning: descriptor 'map' of kernel 'uploaded_again' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'd' is copied into 2 times, so a replay may read a later copy: a replay reads the device copy as it is then, where a by-value launch keeps what was captured [tma-105]
// CHECK-DAG: warning: descriptor 'map' of kernel 'changed_in_loop' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'h' may change here, after the copy: a replay reads the device copy as it is then, where a by-value launch keeps what was captured [tma-105]
// CHECK-DAG: warning: descriptor 'map' of kernel 'changed_after' is left by reference: a CUDA graph is captured or replayed in this translation unit and 'h' may change here, after the copy: a replay reads the device copy as it is then, where a by-value launch keeps what was captured [tma-105]
// CHECK-DAG: warning: kernel 'from_pointer' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-DAG: warning: descriptor 'map' of kernel 'captured_through_pointer' is left by reference: {{.*}} [tma-105]
// CHECK-DAG: warning: descriptor 'c_map' of kernel 'from_constant' is left in __constant__ memory: a CUDA graph is captured or replayed in this translation unit and 'c_map' is copied into 2 times, so a replay may read a later copy: a replay reads the device copy as it is then, where a by-value launch keeps what was captured [tma-105]
// CHECK-DAG: note: a CUDA graph is captured or replayed here
// CHECK: tma-modernize: 3 kernels rewritten, 9 refused
