// H2 on streams nothing in the translation unit can hold (issue 41): work on
// a stream other than the default one may run after statements written
// later only when something holds its stream: a kernel that waits for
// memory code running later writes, a host function, a wait for a value in
// memory (refusals/R5-held-streams.cu). With none of these, running every
// operation when it is enqueued is a schedule the device may pick, and the
// rewrite reads what the kernel reads in it. Where the original races (a
// kernel on the caller's stream, which may be non-blocking, against the
// next call's synchronous copy), the rewrite is that schedule.
// A kernel that waits on an mbarrier polls shared memory, which no later
// host code writes: it holds nothing.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>

__global__ void tile_loads(const CUtensorMap *map, int *out) {
  __shared__ alignas(8) uint64_t bar;
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  unsigned ready = 1;
  while (!ready)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}" : "=r"(ready) : "r"(addr), "r"(0) : "memory");
  out[0] = 1;
}
__global__ void copied_again(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }

struct Shape { int rows, cols; };
static CUtensorMap describe(const Shape &s) {
  CUtensorMap m{};
  m.opaque[0] = s.rows;
  m.opaque[1] = s.cols;
  return m;
}

// The cache of the device copy a GEMM driver keeps: filled once, copied
// into again when the shape changes, launched on the caller's stream.
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
// CHECK: warning: kernel 'tile_loads' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: note: 'd_map' now holds the descriptor in host memory
// CHECK-FIXES-LABEL: void multiply(
// CHECK-FIXES: {{^}}  tile_loads<<<1, 1, 0, stream>>>(*d_map, out);

// A non-blocking stream races the synchronous copy after the launch; the
// rewrite passes what the kernel reads when it runs at its launch.
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
// CHECK: warning: kernel 'copied_again' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void copy_after_launch(
// CHECK-FIXES: {{^}}  copied_again<<<1, 1, 0, s>>>(h, out);
