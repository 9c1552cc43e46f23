// H6 with the helper called inside the launch's argument list, and a helper
// that copies the descriptor it is given. `k<<<g, b>>>(stage(...), ...)`
// passes what the helper returns; once the helper returns the CUtensorMap by
// value, the launch passes it unchanged (the device copy it leaked is gone).
// A helper that copies its parameter (by value, or a reference to the
// caller's descriptor) and returns right after returns that parameter.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

__global__ void scan_rows(const CUtensorMap *rows_map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows_map) : "memory");
  out[threadIdx.x] = 1;
}
// CHECK-MESSAGES: :[[@LINE-4]]:{{[0-9]+}}: warning: kernel 'scan_rows' reads descriptor 'rows_map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void scan_rows(const __grid_constant__ CUtensorMap rows_map, int *out) {

__global__ void scan_cols(const CUtensorMap *cols_map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(cols_map) : "memory");
  out[threadIdx.x] = 2;
}
// CHECK-MESSAGES: :[[@LINE-4]]:{{[0-9]+}}: warning: kernel 'scan_cols' reads descriptor 'cols_map' through global memory; now passed by value [tma-001]

static void describe_rows(CUtensorMap *map, int rows) {
  map->opaque[0] = static_cast<unsigned long long>(rows);
}

// Encodes its own descriptor.
static CUtensorMap *stage_rows(int rows) {
  CUtensorMap host_map;
  describe_rows(&host_map, rows);
  CUtensorMap *device_map = nullptr;
  cudaMalloc(&device_map, sizeof(CUtensorMap));
  cudaMemcpy(device_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return device_map;
}
// CHECK-FIXES: {{^}}static CUtensorMap stage_rows(int rows) {
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap host_map;
// CHECK-FIXES-NEXT: {{^}}  describe_rows(&host_map, rows);
// CHECK-FIXES-NEXT: {{^}}  return host_map;
// CHECK-FIXES-NEXT: {{^}}}

// Copies the caller's descriptor.
static CUtensorMap *stage_given(const CUtensorMap &given) {
  CUtensorMap *device_map = nullptr;
  cudaMalloc(&device_map, sizeof(CUtensorMap));
  cudaMemcpy(device_map, &given, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return device_map;
}
// CHECK-FIXES: {{^}}static CUtensorMap stage_given(const CUtensorMap &given) {
// CHECK-FIXES-NEXT: {{^}}  return given;
// CHECK-FIXES-NEXT: {{^}}}

int main() {
  int *out = nullptr;
  cudaMalloc(&out, 32 * sizeof(int));
  scan_rows<<<1, 32>>>(stage_rows(64), out);
  scan_rows<<<1, 32>>>((stage_rows(128)), out);
  CUtensorMap cols{};
  describe_rows(&cols, 16);
  scan_cols<<<1, 32>>>(stage_given(cols), out);
  CUtensorMap *kept = stage_given(cols);
  scan_cols<<<1, 32>>>(kept, out);
  cudaFree(kept);
  cudaDeviceSynchronize();
  cudaFree(out);
  std::printf("done\n");
  return 0;
}
// CHECK-MESSAGES: 2 kernels rewritten, 0 refused
// CHECK-FIXES: {{^}}  scan_rows<<<1, 32>>>(stage_rows(64), out);
// CHECK-FIXES-NEXT: {{^}}  scan_rows<<<1, 32>>>((stage_rows(128)), out);
// CHECK-FIXES: {{^}}  scan_cols<<<1, 32>>>(stage_given(cols), out);
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap kept = stage_given(cols);
// CHECK-FIXES-NEXT: {{^}}  scan_cols<<<1, 32>>>(kept, out);
// CHECK-FIXES-NEXT: {{^}}  cudaDeviceSynchronize();
