// R4 (tma-104): launches through a function pointer whose targets cannot all
// be seen, or whose targets cannot all be rewritten, keep every kernel the
// pointer may hold by reference, and the message names the pointer, the
// reason and each launch through it.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

namespace ops {
__global__ void scale(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 2.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'ops::scale' is left by reference: 'ops::scale' is launched through the function pointer 'op', and it is used here other than to launch a kernel, so not every kernel it may point to is seen [tma-104]
// CHECK-NEXT: :[[@LINE+39]]:{{[0-9]+}}: note: blocked here
// CHECK-NEXT: :[[@LINE+39]]:{{[0-9]+}}: note: launched through 'op' here

// Writes its descriptor on the device: stays by reference (tma-101), and so
// must every kernel that shares a function pointer with it.
__global__ void patch(CUtensorMap *map, float *out) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(map), "l"(out) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'ops::patch' is left by reference
__global__ void shift(CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 1.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'ops::shift' is left by reference: it is launched through a function pointer that may also point to 'ops::patch', whose descriptor stays by reference [tma-104]
// CHECK-NEXT: note: blocked here
// CHECK-NEXT: :[[@LINE+27]]:{{[0-9]+}}: note: 'edit' may point to each of these kernels

__global__ void blend(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 3.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'ops::blend' is left by reference: 'ops::blend' is launched through the function pointer 'step', and its type is the alias 'StepFn', which is also used here other than as the type of a pointer that launches these kernels [tma-104]
// CHECK-NEXT: :[[@LINE+3]]:{{[0-9]+}}: note: blocked here
// CHECK-NEXT: :[[@LINE+23]]:{{[0-9]+}}: note: launched through 'step' here
using StepFn = void (*)(const CUtensorMap *, float *);
void register_step(StepFn);
} // namespace ops

void remember(void (*)(const CUtensorMap *, float *));

int run(CUtensorMap h, float *out, bool twice) {
  CUtensorMap *d;
  CUtensorMap *e;
  CUDA_CHECK(cudaMalloc(&d, sizeof(CUtensorMap)));
  CUDA_CHECK(cudaMalloc(&e, sizeof(CUtensorMap)));
  CUDA_CHECK(cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(e, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  // Escapes: another function may keep it and launch it with anything.
  auto *op = ops::scale;
  remember(op);
  op<<<1, 32>>>(d, out);
  // May point to a kernel that writes its descriptor.
  void (*edit)(CUtensorMap *, float *) = twice ? ops::patch : ops::shift;
  edit<<<1, 32>>>(e, out);
  // The parameter types are spelled in an alias that also types a parameter.
  ops::StepFn step = ops::blend;
  step<<<1, 32>>>(d, out);
  CUDA_CHECK(cudaFree(d));
  CUDA_CHECK(cudaFree(e));
  return 0;
}
// CHECK: 0 kernels rewritten, 4 refused
