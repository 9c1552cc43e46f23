// R5 (tma-105, issue 41): what may hold a stream until statements written
// later run. A kernel enqueued on a held stream runs after them and reads
// the device copy as it is then, while a rewritten launch passes the
// descriptor as it is at the call. Each of these in the translation unit
// turns the stream rule on (patterns/H2-unheld-streams.cu is this file's
// code with none of them: rewritten):
//   a kernel that waits in a loop on a volatile object, on an atomic, or on
//   inline PTX that loads with acquire semantics; a host function on a
//   stream (cudaLaunchHostFunc); a wait for a value (cuStreamWaitValue32).
// A cache copied into only right after it is allocated (under the null
// test that allocates) holds one descriptor per allocation: it is rewritten
// with any of them.
// RUN: %prep
// RUN: cp %t.cu %t.atomic.cu && cp %t.cu %t.acquire.cu && cp %t.cu %t.host.cu && cp %t.cu %t.value.cu
// RUN: %tma %t.cu -- -DVOLATILE_FLAG 2>&1 | %FileCheck %s -DHOLD="'spin' waits in a loop on memory that code running later may write"
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %tma %t.atomic.cu -- -DATOMIC_FLAG 2>&1 | %FileCheck %s -DHOLD="'spin' waits in a loop on memory that code running later may write"
// RUN: %tma %t.acquire.cu -- -DACQUIRE_FLAG 2>&1 | %FileCheck %s -DHOLD="'spin' waits in a loop on memory that code running later may write"
// RUN: %tma %t.host.cu -- -DHOST_FUNCTION 2>&1 | %FileCheck %s -DHOLD="'cudaLaunchHostFunc' runs host code on a stream, which may wait for the program"
// RUN: %tma %t.value.cu -- -DWAIT_VALUE 2>&1 | %FileCheck %s -DHOLD="'cuStreamWaitValue32' makes a stream wait for a value in memory"
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstring>

__global__ void tile_loads(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void filled_once(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }
__global__ void copied_again(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }

#if defined(VOLATILE_FLAG)
__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
#elif defined(ATOMIC_FLAG)
__global__ void spin(int *flag) {
  while (atomicAdd(flag, 0) == 0) {
  }
}
#elif defined(ACQUIRE_FLAG)
__global__ void spin(const int *flag) {
  int seen = 0;
  do
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
  while (!seen);
}
#endif
#if defined(VOLATILE_FLAG) || defined(ATOMIC_FLAG)
void hold(cudaStream_t s, int *flag) { spin<<<1, 1, 0, s>>>(flag); }
#elif defined(ACQUIRE_FLAG)
void hold(cudaStream_t s, const int *flag) { spin<<<1, 1, 0, s>>>(flag); }
#endif
#if defined(HOST_FUNCTION)
static void CUDART_CB later(void *) {}
void hold(cudaStream_t s) { cudaLaunchHostFunc(s, later, nullptr); }
#elif defined(WAIT_VALUE)
void hold(CUstream s, CUdeviceptr flag) { cuStreamWaitValue32(s, flag, 1, CU_STREAM_WAIT_VALUE_GEQ); }
#endif

struct Shape { int rows, cols; };
static CUtensorMap describe(const Shape &s) {
  CUtensorMap m{};
  m.opaque[0] = s.rows;
  m.opaque[1] = s.cols;
  return m;
}

// A cache copied into again when the shape changes: the kernel of the
// last call may wait on the caller's stream until after the copy.
void multiply(const Shape &s, int *out, cudaStream_t stream) {
  CUtensorMap h = describe(s);
  static CUtensorMap *d_map = nullptr;
  static CUtensorMap last{};
  if (!d_map)
    cudaMalloc(&d_map, sizeof(CUtensorMap));
  if (memcmp(&h, &last, sizeof(CUtensorMap)) != 0) {
    cudaMemcpy(d_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    last = h;
  }
  tile_loads<<<1, 1, 0, stream>>>(d_map, out);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'tile_loads' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: this write of 'd_map' is enqueued on a stream that may be held ([[HOLD]], so a stream may be held until later statements run) and may still wait when 'multiply' returns, which 'd_map' outlives: the next call's operations on it may run first [storage.unclassified-use]

// Safe: copied into once per allocation.
void multiply_fixed(const Shape &s, int *out, cudaStream_t stream) {
  static CUtensorMap *d_fixed = nullptr;
  if (!d_fixed) {
    CUtensorMap h = describe(s);
    cudaMalloc(&d_fixed, sizeof(CUtensorMap));
    cudaMemcpy(d_fixed, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  }
  filled_once<<<1, 1, 0, stream>>>(d_fixed, out);
}
// CHECK-DAG: warning: kernel 'filled_once' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void multiply_fixed(
// CHECK-FIXES: {{^}}  filled_once<<<1, 1, 0, stream>>>(*d_fixed, out);
// CHECK-FIXES-LABEL: void copy_after_launch(
// CHECK-FIXES: {{^}}  copied_again<<<1, 1, 0, s>>>(d, out);

// The copy after the launch may land before the held stream runs it.
void copy_after_launch(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap h{}, other{};
  other.opaque[0] = 5;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  copied_again<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'copied_again' is left by reference: work on the device copy is enqueued on a stream that may be held and 'd' is copied into 2 times, so the kernel may read a later copy
// CHECK-DAG: note: [[HOLD]], so a stream may be held until later statements run
