// H13 inside the project's error-check macro (issue 31): when the storage
// rule retargets a device copy whose allocation, copy and free are each the
// only argument of a statement-level macro (`CHECK(cudaMalloc(&d, ...));`),
// each statement becomes the plain host statement (`d = new CUtensorMap;`,
// `*d = h;`, `delete d;`), not a comma expression that hands the macro a
// success code. A call whose error code the program itself reads
// (`cudaError_t err = cudaMalloc(...)`) keeps its value: see H13-storage-rule.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

// One line, as the project's own macros are written.
#define CHECK(call) do { cudaError_t status_ = (call); if (status_ != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(status_)); return 1; } } while (0)

__global__ void tile_sum(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
// CHECK: kernel 'tile_sum' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: note: 'd' now holds the descriptor in host memory

static void retile(CUtensorMap *m) { m->opaque[0] = 3; }

int run(int *out) {
  CUtensorMap h{};
  CUtensorMap *d;
  CHECK(cudaMalloc(&d, sizeof(CUtensorMap)));
  CHECK(cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  retile(&h);
  tile_sum<<<1, 1>>>(d, out);
  CHECK(cudaFree(d));
  return 0;
}
// CHECK-FIXES-LABEL: int run(int *out) {
// CHECK-FIXES-NOT: cudaSuccess
// CHECK-FIXES: {{^}}  d = new CUtensorMap;{{$}}
// CHECK-FIXES-NEXT: {{^}}  *d = h;{{$}}
// CHECK-FIXES-NEXT: {{^}}  retile(&h);
// CHECK-FIXES-NEXT: {{^}}  tile_sum<<<1, 1>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  delete d;{{$}}

int main() {
  int *out;
  cudaMalloc(&out, sizeof(int));
  return run(out);
}
