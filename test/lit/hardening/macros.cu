// Macro-heavy code: whatever the tool does with each kernel, the file ends
// rewritten where it is safe and untouched elsewhere, compiles, and a second
// run has nothing to do. k1 (defined by a macro) and k8 (launched by an
// X-macro) are refused with tma-107 and keep their code; the others are
// rewritten through macro arguments, pasted names, line splices and digraphs.
// RUN: %prep
// RUN: %tma --no-database %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --no-database --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

// 1. The whole kernel comes from a macro: refused.
#define DEFINE_KERNEL(name)                                                       \
  __global__ void name(const CUtensorMap *map, int *out) {                        \
    asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");              \
    out[0] = 1;                                                                   \
  }
DEFINE_KERNEL(k1)
// CHECK-FIXES: {{^}}  __global__ void name(const CUtensorMap *map, int *out) {                        \{{$}}
// CHECK-MESSAGES: {{.*}}.cu:20:1: warning: descriptor 'map' of kernel 'k1' is left by reference: the declaration of parameter 'map' is spelled by a macro [tma-107]

// 2. The parameter's type is a macro.
#define MAP_PTR const CUtensorMap *
__global__ void k2(MAP_PTR map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 2;
}
// CHECK-FIXES: {{^}}#define MAP_PTR const CUtensorMap *{{$}}
// CHECK-FIXES-NEXT: {{^}}__global__ void k2(const __grid_constant__ CUtensorMap map, int *out) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory");
// CHECK-MESSAGES: {{.*}}.cu:26:28: warning: kernel 'k2' reads descriptor 'map' through global memory; now passed by value [tma-001]

// 3. The parameter's name is pasted.
#define PASTE(a, b) a##b
__global__ void k3(const CUtensorMap *PASTE(m, ap), int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 3;
}
// CHECK-FIXES: {{^}}__global__ void k3(const __grid_constant__ CUtensorMap map, int *out) {
// CHECK-MESSAGES: {{.*}}.cu:37:39: warning: kernel 'k3' reads descriptor 'map' through global memory; now passed by value [tma-001]

// 4. Fence and uses through function-like macros, one of them through an
// object-like macro naming the parameter, and one under #ifdef.
#define ACQUIRE(p) asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(p) : "memory")
#define PREFETCH(p) asm volatile("prefetch.tensormap [%0];" :: "l"(p) : "memory")
#define STR(x) #x
__global__ void k4(const CUtensorMap *map, int *out) {
  ACQUIRE(map);
  PREFETCH(map);
#ifdef __CUDA_ARCH__
  PREFETCH(map);
#endif
  out[0] = sizeof(STR(map));
}
// CHECK-FIXES: {{^}}__global__ void k4(const __grid_constant__ CUtensorMap map, int *out) {
// CHECK-FIXES-NEXT: {{^}}  PREFETCH(&map);
// CHECK-FIXES-NEXT: {{^}}#ifdef __CUDA_ARCH__
// CHECK-FIXES-NEXT: {{^}}  PREFETCH(&map);
// CHECK-FIXES-NEXT: {{^}}#endif
// CHECK-FIXES-NEXT: {{^}}  out[0] = sizeof(STR(map));
// CHECK-MESSAGES: {{.*}}.cu:49:39: warning: kernel 'k4' reads descriptor 'map' through global memory; now passed by value [tma-001]

// 5. Launch configuration and arguments through nested macros.
#define ARGS(a, b) a, b
#define GRID 1
__global__ void k5(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 5;
}
// CHECK-MESSAGES: {{.*}}.cu:68:39: warning: kernel 'k5' reads descriptor 'map' through global memory; now passed by value [tma-001]

// 6. Line splices inside the parameter's type and name, and inside a use.
__global__ void k6(const CUtensor\
Map *ma\
p, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(m\
ap) : "memory");
  out[0] = 6;
}
// CHECK-FIXES: {{^}}__global__ void k6(const __grid_constant__ CUtensor\{{$}}
// CHECK-FIXES-NEXT: {{^}}Map map, int *out) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&m\{{$}}
// CHECK-FIXES-NEXT: {{^}}ap) : "memory");
// CHECK-MESSAGES: {{.*}}.cu:76:6: warning: kernel 'k6' reads descriptor 'map' through global memory; now passed by value [tma-001]

// 7. Digraphs.
%:define SEVEN 7
__global__ void k7(const CUtensorMap *map, int *out) <%
  asm volatile("prefetch.tensormap [%0];" :: "l"(&map<:0:>) : "memory");
  out<:0:> = SEVEN;
%>
// CHECK-FIXES: {{^}}__global__ void k7(const __grid_constant__ CUtensorMap map, int *out) <%
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory");
// CHECK-MESSAGES: {{.*}}.cu:90:39: warning: kernel 'k7' reads descriptor 'map' through global memory; now passed by value [tma-001]

// 8. Launched by an X-macro: the argument is spelled in the macro body.
__global__ void k8(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 8;
}
#define LAUNCH_ALL(X) X(k8, d8)
#define LAUNCH_ONE(kernel, buf) kernel<<<1, 1>>>(buf, out);
// CHECK-MESSAGES: {{.*}}.cu:99:39: warning: descriptor 'map' of kernel 'k8' is left by reference: the argument 'd8' is spelled inside a macro body [tma-107]
// CHECK-MESSAGES-NEXT: {{.*}}.cu:148:3: note: blocked here

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, sizeof(int));
  CUtensorMap *d1;
  cudaMalloc(&d1, sizeof(CUtensorMap));
  cudaMemcpy(d1, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k1<<<1, 1>>>(d1, out);
// CHECK-FIXES: {{^}}  CUtensorMap *d1;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d1, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d1, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  k1<<<1, 1>>>(d1, out);
  CUtensorMap *d2;
  cudaMalloc(&d2, sizeof(CUtensorMap));
  cudaMemcpy(d2, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k2<<<1, 1>>>(d2, out);
  CUtensorMap *d3;
  cudaMalloc(&d3, sizeof(CUtensorMap));
  cudaMemcpy(d3, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k3<<<1, 1>>>(d3, out);
  CUtensorMap *d4;
  cudaMalloc(&d4, sizeof(CUtensorMap));
  cudaMemcpy(d4, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k4<<<1, 1>>>(d4, out);
  CUtensorMap *d5;
  cudaMalloc(&d5, sizeof(CUtensorMap));
  cudaMemcpy(d5, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k5<<<GRID, GRID>>>(ARGS(d5, out));
  CUtensorMap *d6;
  cudaMalloc(&d6, sizeof(CUtensorMap));
  cudaMemcpy(d6, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k6<<<1, 1>>>(d\
6, out);
  CUtensorMap *d7;
  cudaMalloc(&d7, sizeof(CUtensorMap));
  cudaMemcpy(d7, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k7<<<1, 1>>>(d7, out);
  CUtensorMap *d8;
  cudaMalloc(&d8, sizeof(CUtensorMap));
  cudaMemcpy(d8, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  LAUNCH_ALL(LAUNCH_ONE)
// CHECK-FIXES: {{^}}  k2<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  k3<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  k4<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  k5<<<GRID, GRID>>>(ARGS(h, out));
// CHECK-FIXES-NEXT: {{^}}  k6<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  k7<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d8;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d8, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d8, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  LAUNCH_ALL(LAUNCH_ONE)
  cudaFree(d1);
  cudaFree(d2);
  cudaFree(d3);
  cudaFree(d4);
  cudaFree(d5);
  cudaFree(d6);
  cudaFree(d7);
  cudaFree(d8);
  return 0;
}
// CHECK-FIXES: {{^}}  cudaFree(d1);
// CHECK-FIXES-NEXT: {{^}}  cudaFree(d8);
// CHECK-FIXES-NEXT: {{^}}  return 0;
// CHECK-MESSAGES: 6 kernels rewritten, 2 refused (descriptors: 6 by value, 2 refused, tma-107: 2); 6 launches changed, 6 copies removed (6 alloc, 6 free), 1 fence removed; 1 file, 1 translation unit
