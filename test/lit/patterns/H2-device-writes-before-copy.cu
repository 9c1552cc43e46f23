// H2 with a write of the device copy enqueued before the copy on the legacy
// default stream, in a unit where another stream may be held: the legacy
// stream runs the memset before the synchronous copy, so the launch reads
// what the copy wrote and passes the host map by value. The twin, with the
// write enqueued on the held stream (it runs after the copy), is
// refusals/R12-held-device-writes.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}

__global__ void cleared_first(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
// CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: kernel 'cleared_first' reads descriptor 'map' through global memory; now passed by value [tma-001]

void cleared_before_the_copy(const CUtensorMap &a, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemsetAsync(d, 0, sizeof(unsigned long long), 0);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  cleared_first<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-FIXES: {{^}}  cleared_first<<<1, 1>>>(h, out);
// CHECK: 1 kernel rewritten, 0 refused
