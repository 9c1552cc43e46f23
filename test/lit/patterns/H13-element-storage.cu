// H13, element storage: the device copy lives in one element, at a constant
// index, of a local array or std::vector of descriptor pointers. The element
// is a storage of its own, so the storage rule retargets it like a variable:
// `maps[0] = new CUtensorMap`, `*maps[0] = h`, the launch passes `*maps[0]`,
// `delete maps[0]`. Each element is its own group.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

__global__ void blur(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
// CHECK-MESSAGES: warning: kernel 'blur' reads descriptor 'map' through global memory; now passed by value [tma-001]

int in_vector(const CUtensorMap &first, const CUtensorMap &second, int *out) {
  std::vector<CUtensorMap *> maps(2, nullptr);
  cudaMalloc(&maps[0], sizeof(CUtensorMap));
  cudaMemcpy(maps[0], &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  blur<<<1, 1>>>(maps[0], out);
  cudaMemcpy(maps[0], &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  blur<<<1, 1>>>(maps[0], out);
  cudaFree(maps[0]);
  return 0;
}
// CHECK-MESSAGES: note: 'maps[0]' now holds the descriptor in host memory
// CHECK-FIXES-LABEL: int in_vector(
// CHECK-FIXES: {{^}}  maps[0] = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *maps[0] = first;
// CHECK-FIXES-NEXT: {{^}}  blur<<<1, 1>>>(*maps[0], out);
// CHECK-FIXES-NEXT: {{^}}  *maps[0] = second;
// CHECK-FIXES-NEXT: {{^}}  blur<<<1, 1>>>(*maps[0], out);
// CHECK-FIXES-NEXT: {{^}}  delete maps[0];

int in_array(const CUtensorMap &h, int *out) {
  CUtensorMap *maps[2] = {nullptr, nullptr};
  cudaMalloc(&maps[1], sizeof(CUtensorMap));
  cudaMemcpy(maps[1], &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  blur<<<1, 1>>>(maps[1], out);
  cudaFree(maps[1]);
  return 0;
}
// CHECK-FIXES-LABEL: int in_array(
// CHECK-FIXES: {{^}}  maps[1] = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *maps[1] = h;
// CHECK-FIXES-NEXT: {{^}}  blur<<<1, 1>>>(*maps[1], out);
// CHECK-FIXES-NEXT: {{^}}  delete maps[1];

// An element initialised with the pointer (`{d}`) is another name of the
// same storage: the two join one group, and the copy through one and the
// launch through the other are retargeted together. The host map changes
// after the copy, so the launch passes the snapshot.
int initialised_from_pointer(CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap *maps[1] = {d};
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  h.opaque[0] = 3;
  blur<<<1, 1>>>(maps[0], out);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES-LABEL: int initialised_from_pointer(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *maps[1] = {d};
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  h.opaque[0] = 3;
// CHECK-FIXES-NEXT: {{^}}  blur<<<1, 1>>>(*maps[0], out);
// CHECK-FIXES-NEXT: {{^}}  delete d;

// Work on a stream other than the default one elsewhere in the unit cannot
// reach a local container's elements: an element copied twice and launched
// through an argument array (whose stream the rule does not read) is still
// retargeted, as a local variable would be.
__global__ void idle(int *out) { out[1] = 0; }
void on_a_stream(int *out, cudaStream_t s) { idle<<<1, 1, 0, s>>>(out); }

int element_in_argument_array(const CUtensorMap &first, const CUtensorMap &second, int *out) {
  CUtensorMap *maps[1] = {nullptr};
  cudaMalloc(&maps[0], sizeof(CUtensorMap));
  cudaMemcpy(maps[0], &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  void *args[] = {&maps[0], &out};
  cudaLaunchKernel((const void *)blur, dim3(1), dim3(1), args, 0, 0);
  cudaMemcpy(maps[0], &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaLaunchKernel((const void *)blur, dim3(1), dim3(1), args, 0, 0);
  cudaFree(maps[0]);
  return 0;
}
// CHECK-FIXES-LABEL: int element_in_argument_array(
// CHECK-FIXES: {{^}}  maps[0] = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *maps[0] = first;
// CHECK-FIXES-NEXT: {{^}}  void *args[] = {maps[0], &out};
// CHECK-FIXES: {{^}}  *maps[0] = second;
// CHECK-FIXES: {{^}}  delete maps[0];
