// H2: cudaMemcpy2D and cudaMemcpy2DAsync of one row of 128 bytes copy a
// whole descriptor, like cudaMemcpy: the copy, the allocation and the free
// go, the launch passes the host map. A copy of rows that is not one row of
// a whole descriptor writes the device copy in part: the twin is refused.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void one_row(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void one_row_async(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void patched_row(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }
__global__ void two_rows(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[3] = 1; }

void copy_one_row(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy2D(d, sizeof(CUtensorMap), &h, sizeof(CUtensorMap), sizeof(CUtensorMap), 1, cudaMemcpyHostToDevice);
  one_row<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK: warning: kernel 'one_row' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}void copy_one_row(const CUtensorMap &h, int *out) {
// CHECK-FIXES-NEXT: {{^}}  one_row<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}}

void copy_one_row_async(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy2DAsync(d, sizeof(CUtensorMap), &h, sizeof(CUtensorMap), sizeof(CUtensorMap), 1, cudaMemcpyHostToDevice, 0);
  one_row_async<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK: warning: kernel 'one_row_async' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}void copy_one_row_async(const CUtensorMap &h, int *out) {
// CHECK-FIXES-NEXT: {{^}}  one_row_async<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}}

// The twins. One word of the device copy written by a row of 8 bytes after
// the whole copy: the kernel reads a map the host never held.
void patch_one_word(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy2D(d, sizeof(CUtensorMap), &h, sizeof(CUtensorMap), sizeof(CUtensorMap), 1, cudaMemcpyHostToDevice);
  unsigned long long word = 7;
  cudaMemcpy2D(&d->opaque[3], 8, &word, 8, 8, 1, cudaMemcpyHostToDevice);
  patched_row<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK: warning: descriptor 'map' of kernel 'patched_row' is left by reference: {{.*}} [tma-10{{[0-9]}}]
// CHECK-FIXES: {{^}}  patched_row<<<1, 1>>>(d, out);

// Two rows of 64 bytes: not read as one copy of a whole descriptor.
void copy_two_rows(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy2D(d, 64, &h, 64, 64, 2, cudaMemcpyHostToDevice);
  two_rows<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK: warning: descriptor 'map' of kernel 'two_rows' is left by reference: {{.*}} [tma-10{{[0-9]}}]
// CHECK-FIXES: {{^}}  two_rows<<<1, 1>>>(d, out);
