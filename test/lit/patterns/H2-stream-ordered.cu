// H2: the stream-ordered forms (cudaMallocAsync, cudaMemcpyAsync,
// cudaFreeAsync) are removed like their synchronous counterparts.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void consume(const CUtensorMap *map, int *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[blockIdx.x] = 1;
}

int launch_async(const CUtensorMap &host_map, int *out, cudaStream_t stream) {
  CUtensorMap *dev_map = nullptr;
  if (cudaMallocAsync(&dev_map, sizeof(CUtensorMap), stream) != cudaSuccess)
    return 1;
  cudaMemcpyAsync(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream);
  consume<<<4, 32, 0, stream>>>(dev_map, out);
  cudaFreeAsync(dev_map, stream);
  return 0;
}
// The allocation sits in an 'if' and cannot go alone: the buffer stays, the
// launch still passes the descriptor by value.
// CHECK-MESSAGES: warning: kernel 'consume' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: note: device buffer 'dev_map' is kept: this cudaMallocAsync cannot be removed on its own

void launch_async_plain(const CUtensorMap &host_map, int *out, cudaStream_t stream) {
  CUtensorMap *dev_map;
  cudaMallocAsync(&dev_map, sizeof(CUtensorMap), stream);
  cudaMemcpyAsync(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyDefault, stream);
  consume<<<4, 32, 0, stream>>>(dev_map, out);
  cudaFreeAsync(dev_map, stream);
}
// CHECK-MESSAGES: 2 launches changed, 1 copy removed (1 alloc, 1 free)
// CHECK-FIXES: {{^}}  consume<<<4, 32, 0, stream>>>(host_map, out);
// CHECK-FIXES: {{^}}void launch_async_plain(const CUtensorMap &host_map, int *out, cudaStream_t stream) {
// CHECK-FIXES-NEXT: {{^}}  consume<<<4, 32, 0, stream>>>(host_map, out);
// CHECK-FIXES-NEXT: {{^}}}

int main() {
  CUtensorMap m{};
  int *out;
  cudaMalloc(&out, 4 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  launch_async(m, out, s);
  launch_async_plain(m, out, s);
  return cudaStreamSynchronize(s) == cudaSuccess ? 0 : 1;
}
