// H13, statements, not expressions (issue 42): where the storage rule's
// retargeted call (new, an assignment, delete, memcpy) has no error code,
// the statement that tested or kept the call's code becomes plain. A test
// `if (CALL != cudaSuccess)` or `if (CALL)` with no else goes whole, its
// branch no longer able to run; `cudaError_t err = CALL;`, `err = CALL;` and
// `return CALL;` get the effect on a line before them and the success code
// in the call's place, and an error variable that only such tests read goes
// with them. Where the branch holds something another edit may
// change (a free of another device copy), the test stays, its call in the
// comma form. The unsafe twins of the storage rule are
// refusals/R12-storage-rule.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void tested(const CUtensorMap *map, int *out) { out[0] = (int)map->opaque[1]; }
__global__ void kept(const CUtensorMap *map, int *out) { out[1] = (int)map->opaque[2]; }
__global__ void paired(const CUtensorMap *a, const CUtensorMap *b, int *out) {
  out[2] = (int)(a->opaque[3] + b->opaque[3]);
}
// CHECK-MESSAGES-DAG: warning: kernel 'tested' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'kept' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'paired' reads descriptor 'a' through global memory; now passed by value [tma-001]

// Each call's code tested where it is made, the failure reported.
static CUtensorMap *upload_checked(const CUtensorMap &h) {
  CUtensorMap *p = nullptr;
  if (cudaMalloc(&p, sizeof(CUtensorMap)) != cudaSuccess)
    return nullptr;
  if (cudaMemcpy(p, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice)) {
    std::fprintf(stderr, "upload failed\n");
    return nullptr;
  }
  return p;
}
// CHECK-FIXES-LABEL: static CUtensorMap *upload_checked(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *p = nullptr;
// CHECK-FIXES-NEXT: {{^}}  p = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *p = h;
// CHECK-FIXES-NEXT: {{^}}  return p;

// Its code kept in a variable, assigned again, and returned.
static cudaError_t release(CUtensorMap *p) {
  return cudaFree(p);
}
// CHECK-FIXES-LABEL: static cudaError_t release(
// CHECK-FIXES-NEXT: {{^}}  delete p;
// CHECK-FIXES-NEXT: {{^}}  return cudaSuccess;

static cudaError_t run_kept(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaError_t err = cudaMalloc(&d, sizeof(CUtensorMap));
  if (err != cudaSuccess)
    return err;
  err = cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::fprintf(stderr, "upload: %s\n", cudaGetErrorString(err));
  kept<<<1, 1>>>(d, out);
  return release(d);
}
// CHECK-FIXES-LABEL: static cudaError_t run_kept(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  cudaError_t err = cudaSuccess;
// CHECK-FIXES-NEXT: {{^}}  if (err != cudaSuccess)
// CHECK-FIXES-NEXT: {{^}}    return err;
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  err = cudaSuccess;
// CHECK-FIXES: {{^}}  kept<<<1, 1>>>(*d, out);

// An error variable whose only job was to carry the code to its test goes
// with the test (run_kept above keeps its variable: it is assigned again
// and printed).
__global__ void carried(const CUtensorMap *map, int *out) { out[3] = (int)map->opaque[4]; }
static int run_carried(CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaError_t err = cudaMalloc(&d, sizeof(CUtensorMap));
  if (err != cudaSuccess) {
    std::fprintf(stderr, "alloc failed: %d\n", (int)err);
    return 1;
  }
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  h.opaque[4] ^= 1;
  carried<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK-MESSAGES-DAG: warning: kernel 'carried' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: static int run_carried(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  h.opaque[4] ^= 1;
// CHECK-FIXES-NEXT: {{^}}  carried<<<1, 1>>>(*d, out);

// The failure branch frees another device copy: another edit of the run
// may change it, so the test stays and the call keeps the comma form. (The
// maps change after the copies, so the launch passes the copies.)
static int run_paired(CUtensorMap &ha, CUtensorMap &hb, int *out) {
  CUtensorMap *a, *b;
  cudaMalloc(&a, sizeof(CUtensorMap));
  if (cudaMalloc(&b, sizeof(CUtensorMap)) != cudaSuccess) {
    cudaFree(a);
    return 1;
  }
  cudaMemcpy(a, &ha, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(b, &hb, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  ha.opaque[3] ^= 1;
  hb.opaque[3] ^= 1;
  paired<<<1, 1>>>(a, b, out);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
// CHECK-FIXES-LABEL: static int run_paired(
// CHECK-FIXES: {{^}}  if ((b = new CUtensorMap, cudaSuccess) != cudaSuccess) {
// CHECK-FIXES-NEXT: {{^}}    delete a;
// CHECK-FIXES: {{^}}  paired<<<1, 1>>>(*a, *b, out);

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, 4 * sizeof(int));
  CUtensorMap *p = upload_checked(h);
  tested<<<1, 1>>>(p, out);
  release(p);
  run_kept(h, out);
  run_carried(h, out);
  CUtensorMap h2 = h;
  run_paired(h, h2, out);
  cudaDeviceSynchronize();
  return 0;
}
