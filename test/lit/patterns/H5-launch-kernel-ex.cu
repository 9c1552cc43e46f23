// H5: cudaLaunchKernelEx(&config, kernel, args...) (the C++ template) maps
// its arguments onto the kernel's parameters like <<<>>>: the descriptor
// argument becomes the host descriptor, with a cluster launch attribute.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

namespace persistent {
__global__ void tiles(const CUtensorMap *map, int *out, int n) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  for (int i = blockIdx.x; i < n; i += gridDim.x)
    asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[blockIdx.x] = n;
}

int launch(const CUtensorMap &host_map, int *out, int n, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(4);
  config.blockDim = dim3(128);
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  CUtensorMap *dev_map;
  CHECK(cudaMalloc(&dev_map, sizeof(CUtensorMap)));
  CHECK(cudaMemcpyAsync(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream));
  CHECK(cudaLaunchKernelEx(&config, tiles, dev_map, out, n));
  CHECK(cudaFree(dev_map));
  return 0;
}
} // namespace persistent
// CHECK-MESSAGES: warning: kernel 'persistent::tiles' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 launch changed, 1 copy removed (1 alloc, 1 free), 1 fence removed
// CHECK-FIXES: {{^}}__global__ void tiles(const __grid_constant__ CUtensorMap map, int *out, int n) {
// CHECK-FIXES: {{^}}  config.numAttrs = 1;
// CHECK-FIXES-NEXT: {{^}}  CHECK(cudaLaunchKernelEx(&config, tiles, host_map, out, n));
// CHECK-FIXES-NEXT: {{^}}  return 0;

int main() {
  CUtensorMap m{};
  int *out;
  cudaMalloc(&out, 4 * sizeof(int));
  return persistent::launch(m, out, 8, nullptr);
}
