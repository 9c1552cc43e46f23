// H8 with K4 in several launchers: two launcher functions share one
// file-scope cache filled by an upload helper, and each launches through its
// own function pointer that also goes to cudaFuncSetAttribute. The upload
// group is decided once, after every pointer's targets are known, so both
// pointer launches count as launches of the cache (they did not when the
// group was decided at the first pointer, before the second was seen).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

template <int Width>
__global__ void shift_rows(const CUtensorMap *rows, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows) : "memory");
  out[threadIdx.x] = float(Width);
}
// CHECK-MESSAGES: warning: kernel 'shift_rows' reads descriptor 'rows' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void shift_rows(const __grid_constant__ CUtensorMap rows, float *out) {

static CUtensorMap *encode_rows(int n) {
  CUtensorMap host{};
  (void)n;
  CUtensorMap *dev = nullptr;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  cudaMemcpy(dev, &host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev;
}

static CUtensorMap *rows_cache = nullptr;

void shift_narrow(float *out, int n) {
  if (!rows_cache)
    rows_cache = encode_rows(n);
  auto *kernel = shift_rows<32>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  kernel<<<1, 32, 1024>>>(rows_cache, out);
}
// CHECK-FIXES: {{^}}    rows_cache = new CUtensorMap(encode_rows(n));
// CHECK-FIXES: {{^}}  kernel<<<1, 32, 1024>>>(*rows_cache, out);

void shift_wide(float *out, int n) {
  if (!rows_cache)
    rows_cache = encode_rows(n);
  auto kernel = shift_rows<128>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096);
  kernel<<<1, 128, 4096>>>(rows_cache, out);
}
// CHECK-FIXES: {{^}}    rows_cache = new CUtensorMap(encode_rows(n));
// CHECK-FIXES: {{^}}  kernel<<<1, 128, 4096>>>(*rows_cache, out);
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 1 by value, 0 refused); 2 launches changed
