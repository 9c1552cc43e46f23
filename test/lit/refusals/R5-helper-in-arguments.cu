// The unsafe twins of H6-helper-in-arguments (tma-105). A helper called in
// a launch's arguments is also called where its device copy is needed (an
// argument of another function): the helper stays, and so do the launches.
// A helper that copies the caller's descriptor by reference and then runs
// another statement before returning: that statement may change the
// caller's descriptor through another name, so the copy and the returned
// value could differ.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void scan_rows(const CUtensorMap *rows_map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows_map) : "memory");
  out[threadIdx.x] = 1;
}
__global__ void scan_cols(const CUtensorMap *cols_map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(cols_map) : "memory");
  out[threadIdx.x] = 2;
}
// CHECK: warning: descriptor 'rows_map' of kernel 'scan_rows' is left by reference: 'stage_rows' is used here other than to initialise a local variable [tma-105]
// CHECK: warning: descriptor 'cols_map' of kernel 'scan_cols' is left by reference: the copy in 'stage_given' reads its parameter 'given', and a statement runs between the copy and the return [tma-105]

static void describe_rows(CUtensorMap *map, int rows) {
  map->opaque[0] = static_cast<unsigned long long>(rows);
}
void keep_device_copy(const CUtensorMap *device_map);

static CUtensorMap *stage_rows(int rows) {
  CUtensorMap host_map;
  describe_rows(&host_map, rows);
  CUtensorMap *device_map = nullptr;
  cudaMalloc(&device_map, sizeof(CUtensorMap));
  cudaMemcpy(device_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return device_map;
}

CUtensorMap shared_cols;
static void refresh_cols() { describe_rows(&shared_cols, 32); }

static CUtensorMap *stage_given(const CUtensorMap &given) {
  CUtensorMap *device_map = nullptr;
  cudaMalloc(&device_map, sizeof(CUtensorMap));
  cudaMemcpy(device_map, &given, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  refresh_cols();
  return device_map;
}

int main() {
  int *out = nullptr;
  cudaMalloc(&out, 32 * sizeof(int));
  scan_rows<<<1, 32>>>(stage_rows(64), out);
  keep_device_copy(stage_rows(8));
  describe_rows(&shared_cols, 16);
  scan_cols<<<1, 32>>>(stage_given(shared_cols), out);
  cudaFree(out);
  return 0;
}
// CHECK: 0 kernels rewritten, 2 refused
