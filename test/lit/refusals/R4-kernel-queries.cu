// R4 (tma-104): a function pointer handed to an attribute or occupancy query
// is still a K4 pointer only while every other use is a launch or an
// assignment of a kernel that changes with it. Stored in a global, returned,
// passed to an unknown function or reassigned to a kernel that stays by
// reference, it keeps every kernel it may hold by reference; so does a query
// whose template argument spells the kernel's old type.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)
#define UPLOAD(d, h)                                                       \
  CUtensorMap *d;                                                          \
  CHECK(cudaMalloc(&d, sizeof(CUtensorMap)));                              \
  CHECK(cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice))

__global__ void saved(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 1.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'saved' is left by reference: 'saved' is launched through the function pointer 'kernel', and it is used here other than to launch a kernel, so not every kernel it may point to is seen [tma-104]
// CHECK-NEXT: :[[@LINE+50]]:{{[0-9]+}}: note: blocked here

__global__ void returned(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 2.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'returned' is left by reference: 'returned' is launched through the function pointer 'kernel', and it is used here other than to launch a kernel, so not every kernel it may point to is seen [tma-104]
// CHECK-NEXT: :[[@LINE+56]]:{{[0-9]+}}: note: blocked here

__global__ void handed(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 3.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'handed' is left by reference: 'handed' is launched through the function pointer 'kernel', and it is used here other than to launch a kernel, so not every kernel it may point to is seen [tma-104]
// CHECK-NEXT: :[[@LINE+58]]:{{[0-9]+}}: note: blocked here

// Writes its descriptor on the device (tma-101): a pointer that may hold it
// keeps its other kernel by reference too.
__global__ void patch(CUtensorMap *map, float *out) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(map), "l"(out) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'patch' is left by reference
__global__ void shift(CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 4.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'shift' is left by reference: it is launched through a function pointer that may also point to 'patch', whose descriptor stays by reference [tma-104]

__global__ void typed(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = 5.f;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'typed' is left by reference: 'typed' is launched through the function pointer 'kernel', and it is used here other than to launch a kernel, so not every kernel it may point to is seen [tma-104]
// CHECK-NEXT: :[[@LINE+61]]:{{[0-9]+}}: note: blocked here
template <int N>
__global__ void typed_direct(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[threadIdx.x] = N;
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'typed_direct' is left by reference: 'typed_direct' is used here other than in a direct <<<>>> launch (function pointer or launch API) [tma-104]
// CHECK-NEXT: :[[@LINE+57]]:{{[0-9]+}}: note: blocked here

void (*g_last)(const CUtensorMap *, float *);
void remember(void (*)(const CUtensorMap *, float *));

// Stored in a global: any code may launch it later with anything.
int store(const CUtensorMap &h, float *out) {
  UPLOAD(d, h);
  auto *kernel = saved;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096));
  g_last = kernel;
  kernel<<<1, 32, 4096>>>(d, out);
  return 0;
}

// Returned: the caller may launch it.
auto pick(const CUtensorMap &h, float *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  auto kernel = returned;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096);
  kernel<<<1, 32, 4096>>>(d, out);
  return kernel;
}

// Passed to a function whose body is not seen.
int hand_over(const CUtensorMap &h, float *out) {
  UPLOAD(d, h);
  void (*kernel)(const CUtensorMap *, float *) = handed;
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 32, 0));
  remember(kernel);
  kernel<<<blocks, 32>>>(d, out);
  return 0;
}

// Reassigned to a kernel that stays by reference.
int reassign(const CUtensorMap &h, float *out, bool patched) {
  UPLOAD(d, h);
  auto *edit = shift;
  CHECK(cudaFuncSetAttribute(edit, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096));
  if (patched)
    edit = patch;
  edit<<<1, 32, 4096>>>(d, out);
  return 0;
}

// The query's template argument is the kernel's type as it is written now.
int spelled(const CUtensorMap &h, float *out) {
  UPLOAD(d, h);
  UPLOAD(e, h);
  auto *kernel = typed;
  CHECK(cudaFuncSetAttribute<void(const CUtensorMap *, float *)>(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096));
  kernel<<<1, 32, 4096>>>(d, out);
  CHECK(cudaFuncSetAttribute<void(const CUtensorMap *, float *)>(
      typed_direct<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096));
  typed_direct<2><<<1, 32, 4096>>>(e, out);
  return 0;
}

int main(int argc, char **) {
  CUtensorMap h{};
  float *out;
  cudaMalloc(&out, 32 * sizeof(float));
  int r = store(h, out) + hand_over(h, out) + reassign(h, out, argc > 1) + spelled(h, out);
  pick(h, out);
  return r;
}
// CHECK: 0 kernels rewritten, 7 refused

