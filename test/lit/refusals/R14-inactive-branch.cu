// tma-111: code in a preprocessor branch that this configuration skips is
// never parsed, so a rewrite cannot change it; where it names what the
// rewrite would change (the kernel, its device copy, a launcher anywhere; the
// descriptor parameter or a local device copy inside the functions the
// rewrite rests on), the other configuration would stop compiling, and the
// descriptor is refused. Either configuration refuses (-DWITH_PYTHON makes
// the other half inactive). Safe twins: a branch only the host pass skips
// (__CUDA_ARCH__), a branch that names none of those, and a local of the
// same name in another function, are rewritten.
// RUN: %prep
// RUN: rm -rf %t.inc && mkdir -p %t.inc && cp %inputs/inactive_branch.cuh %t.inc/
// RUN: %tma %t.cu -- -I %t.inc 2>&1 | %FileCheck %s
// RUN: cmp %t.inc/inactive_branch.cuh %inputs/inactive_branch.cuh
// RUN: %FileCheck %s --check-prefix=FIXES --input-file=%t.cu
// RUN: %tma --check %t.cu -- -I %t.inc
// RUN: cp %t.orig.cu %t.cu && %tma --dry-run %t.cu -- -I %t.inc -DWITH_PYTHON 2>&1 | %FileCheck %s --check-prefix=PYTHON
#include "inactive_branch.cuh"

__global__ void header_kernel(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 1;
}
// CHECK-DAG: R14-inactive-branch.cu.tmp.cu:[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'header_kernel' is left by reference: 'header_kernel' is also named in a preprocessor branch this configuration skips ({{.*}}inactive_branch.cuh:8), which the rewrite cannot see or change [tma-111]

__global__ void two_builds(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[1] = 1;
}
// CHECK-DAG: [[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'two_builds' is left by reference: 'two_builds' is also named in a preprocessor branch this configuration skips ({{.*}}.tmp.cu:[[#@LINE+13]]), which the rewrite cannot see or change [tma-111]
// PYTHON-DAG: warning: descriptor 'map' of kernel 'two_builds' is left by reference: 'two_builds' is also named in a preprocessor branch this configuration skips ({{.*}}.tmp.cu:[[#@LINE+14]]), which the rewrite cannot see or change [tma-111]

__global__ void debug_upload(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[2] = 1;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'debug_upload' is left by reference: 'staged' is also named in a preprocessor branch this configuration skips {{.*}} [tma-111]

void run_two_builds(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
#ifdef WITH_PYTHON
  two_builds<<<1, 1, 0, 0>>>(d, out);
#else
  two_builds<<<1, 1>>>(d, out);
#endif
  cudaFree(d);
}

void run_header_kernel(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  header_kernel<<<1, 1>>>(d, out);
  cudaFree(d);
}

void run_debug_upload(const CUtensorMap &h, CUtensorMap &other, int *out) {
  CUtensorMap *staged;
  cudaMalloc(&staged, sizeof(CUtensorMap));
  cudaMemcpy(staged, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
#if DEBUG_UPLOAD
  cudaMemcpy(staged, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
#endif
  debug_upload<<<1, 1>>>(staged, out);
  cudaFree(staged);
}

// Safe twins.
__global__ void arch_branch(const CUtensorMap *map, int *out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
#endif
  out[3] = 1;
}
// CHECK-DAG: warning: kernel 'arch_branch' reads descriptor 'map' through global memory; {{.*}} [tma-001]
// FIXES: __global__ void arch_branch(const __grid_constant__ CUtensorMap map, int *out) {

__global__ void unrelated_branch(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[4] = 1;
}
// CHECK-DAG: warning: kernel 'unrelated_branch' reads descriptor 'map' through global memory; {{.*}} [tma-001]
// FIXES: __global__ void unrelated_branch(const __grid_constant__ CUtensorMap map, int *out) {

void run_unrelated_branch(const CUtensorMap &h, int *out) {
  CUtensorMap *copy;
  cudaMalloc(&copy, sizeof(CUtensorMap));
  cudaMemcpy(copy, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
#ifdef WITH_TRACING
  std::printf("launching\n");
#endif
  unrelated_branch<<<1, 1>>>(copy, out);
  cudaFree(copy);
}
// FIXES: unrelated_branch<<<1, 1>>>(h, out);

// A local `staged` of another function, in a branch outside the functions
// the rewrite of arch_branch rests on.
void run_arch_branch(const CUtensorMap &h, int *out) {
  CUtensorMap *buffer;
  cudaMalloc(&buffer, sizeof(CUtensorMap));
  cudaMemcpy(buffer, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  arch_branch<<<1, 1>>>(buffer, out);
  cudaFree(buffer);
}
// FIXES: arch_branch<<<1, 1>>>(h, out);

#ifdef LOG_BUFFERS
void log_buffer(CUtensorMap *buffer) { std::printf("%p\n", (void *)buffer); }
#endif
