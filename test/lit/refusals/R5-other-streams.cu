// R5 with work on a stream other than the default one (tma-105, issue 41):
// such a stream may run a kernel after statements written later (a
// non-blocking stream does not wait for the legacy stream's copies; one
// held behind other work waits longer). The kernel reads the device copy
// when its stream runs it; a by-value launch, and a retargeted one (`*d`),
// pass the descriptor as it is at the call. So in a translation unit with
// such work a launch is rewritten only where the device copy never changes
// once made: one copy, outside any loop, and no other use that may change
// it. The semantic fuzzer found the wrong rewrites this replaces (seed 2,
// held streams). The rule holds only where something in the unit may hold
// a stream (here 'spin', a kernel that waits for a flag host code sets
// later: refusals/R5-held-streams.cu lists the others); without one, each
// operation running when it is enqueued is a schedule the device may pick
// (patterns/H2-unheld-streams.cu).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void made_once(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void copied_again(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void one_stream(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[5] = 1; }
__global__ void set_after(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }
__global__ void cached(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[3] = 1; }
__global__ void reused(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[4] = 1; }

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
// Launched on a stream the caller hands in: any stream may be held.
void hold(cudaStream_t any, const volatile int *flag) { spin<<<1, 1, 0, any>>>(flag); }

static void encode(CUtensorMap *m, int v) { m->opaque[0] = v; }

// Safe: one copy; the stream may run the kernel late, but the device copy
// never changes, and the host descriptor changing after the launch
// changes nothing.
void copy_once(cudaStream_t s, int *out) {
  CUtensorMap h{};
  encode(&h, 1);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  made_once<<<1, 1, 0, s>>>(d, out);
  encode(&h, 2);
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK: warning: kernel 'made_once' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void copy_once(
// CHECK-FIXES: {{^}}  made_once<<<1, 1, 0, s>>>(h, out);

// Unsafe: the synchronous copy after the launch does not wait for a
// non-blocking stream; the kernel may read what it copied.
void copy_after_launch(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap h{}, other{};
  encode(&other, 5);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  copied_again<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK: warning: descriptor 'map' of kernel 'copied_again' is left by reference: work on the device copy is enqueued on a stream that may be held and 'd' is copied into 2 times, so the kernel may read a later copy: the kernel reads the device copy when its stream runs it, which may be after later statements, where a by-value launch passes the descriptor as it is at the call [tma-105]
// CHECK: note: this work on the device copy is enqueued on a stream that may be held
// CHECK: note: also: the storage rule cannot retarget it: this launch of 'd' may run before the write of 'd' at line [[@LINE-9]], which waits on a stream that may be held ('spin' waits in a loop on memory that code running later may write, so a stream may be held until later statements run) until a host wait covers it, where the retargeted text makes each at its call [storage.unclassified-use]
// CHECK-FIXES-LABEL: void copy_after_launch(
// CHECK-FIXES: {{^}}  copied_again<<<1, 1, 0, s>>>(d, out);

// Safe: the copies and the launches all on one stream (a parameter only
// read) run in the order they are written, whatever the stream waits for.
void all_on_one_stream(cudaStream_t s, int *out) {
  CUtensorMap h{}, other{};
  encode(&other, 5);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  one_stream<<<1, 1, 0, s>>>(d, out);
  cudaMemcpyAsync(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  one_stream<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK: warning: kernel 'one_stream' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void all_on_one_stream(
// CHECK-FIXES: {{^}}  one_stream<<<1, 1, 0, s>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  one_stream<<<1, 1, 0, s>>>(other, out);

// Unsafe: a memset after the launch changes the device copy before the
// stream may have run the kernel.
void memset_after_launch(cudaStream_t s, int *out) {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  set_after<<<1, 1, 0, s>>>(d, out);
  cudaMemset(d, 0, 8);
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK: warning: descriptor 'map' of kernel 'set_after' is left by reference: work on the device copy is enqueued on a stream that may be held and 'd' has another use here, which may change it before the kernel reads it: {{.*}} [tma-105]
// CHECK-FIXES-LABEL: void memset_after_launch(
// CHECK-FIXES: {{^}}  set_after<<<1, 1, 0, s>>>(d, out);

// Unsafe for the storage rule: a cache copied into on every call (in a
// loop) while launches of an earlier round may wait on the stream.
static CUtensorMap *cache;
void refill_in_loop(cudaStream_t s, int *out, int n) {
  if (!cache)
    cudaMalloc(&cache, sizeof(CUtensorMap));
  for (int i = 0; i < n; ++i) {
    CUtensorMap h{};
    encode(&h, i);
    cudaMemcpy(cache, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    cached<<<1, 1, 0, s>>>(cache, out);
  }
}
// CHECK: warning: descriptor 'map' of kernel 'cached' is left by reference
// CHECK: note: also: the storage rule cannot retarget it: this write of 'cache' is enqueued on a stream that may be held ('spin' waits in a loop on memory that code running later may write, so a stream may be held until later statements run) and may still wait when 'refill_in_loop' returns, which 'cache' outlives: the next call's operations on it may run first [storage.unclassified-use]
// CHECK-FIXES-LABEL: void refill_in_loop(
// CHECK-FIXES: {{^}}    cached<<<1, 1, 0, s>>>(cache, out);

// Unsafe: one buffer for every round; the copy of a later round may land
// before the stream runs an earlier round's kernel. (A buffer declared in
// the loop, made and freed in each round, is rewritten:
// patterns/H1-triple-chevron.cu.)
void reuse_across_rounds(cudaStream_t s, int *out, int n) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  for (int i = 0; i < n; ++i) {
    CUtensorMap h{};
    encode(&h, i);
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    reused<<<1, 1, 0, s>>>(d, out);
  }
  cudaFree(d);
}
// CHECK: warning: descriptor 'map' of kernel 'reused' is left by reference: work on the device copy is enqueued on a stream that may be held and 'h' may change here, after the copy: {{.*}} [tma-105]
// CHECK: note: also: the storage rule cannot retarget it: this launch of 'd' may run before the write of 'd' at line [[@LINE-6]], which waits on a stream that may be held {{.*}} until a host wait covers it, where the retargeted text makes each at its call [storage.unclassified-use]
// CHECK-FIXES-LABEL: void reuse_across_rounds(
// CHECK-FIXES: {{^}}    reused<<<1, 1, 0, s>>>(d, out);
