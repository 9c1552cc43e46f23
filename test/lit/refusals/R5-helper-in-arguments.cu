// The unsafe twins of H6-helper-in-arguments (tma-105). A helper called in
// a launch's arguments is also called where its device copy is needed (an
// argument of another function): the helper stays, and so do the launches.
// A helper that copies the caller's descriptor by reference and then runs
// another statement before returning: that statement may change the
// caller's descriptor through another name, so the copy and the returned
// value could differ: the H6 flow refuses it, and the storage rule takes it,
// since an assignment into host memory reads 'given' when the copy did and
// the launch passes what was copied (*stage_given(...)).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
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
// CHECK: note: also: the storage rule cannot retarget it: 'stage_rows' is passed to 'keep_device_copy', whose body is not seen [storage.unclassified-use]
// CHECK: warning: kernel 'scan_cols' reads descriptor 'cols_map' through global memory; now passed by value [tma-001]

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
// CHECK: 1 kernel rewritten, 1 refused
// CHECK-FIXES: {{^}}  *device_map = given;
// CHECK-FIXES-NEXT: {{^}}  refresh_cols();
// CHECK-FIXES: {{^}}  scan_rows<<<1, 32>>>(stage_rows(64), out);
// CHECK-FIXES: {{^}}  scan_cols<<<1, 32>>>(*stage_given(shared_cols), out);
