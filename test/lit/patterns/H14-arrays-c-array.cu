// H14, descriptor arrays by value: a kernel that indexes its descriptor
// pointer at run time (`maps[i]`, `&maps[i]`, `maps + i`) is launched with a
// device array of N descriptors, filled by one copy of a host
// `CUtensorMap[N]`. The parameter becomes `const __grid_constant__
// TmaDescriptorArray<N>` (defined once, after the includes), whose
// operator[] keeps `maps[i]` and `&maps[i]`; `maps + i` becomes `&maps[i]`,
// a pointer `maps` `&maps[0]`. The launch passes
// `TmaDescriptorArray<N>::copyOf(host)`; the device array goes.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

constexpr int kLevels = 4;

__device__ int firstWord(const CUtensorMap *level) { return int(level->opaque[0]); }

__global__ void pyramid(const CUtensorMap *levels, int *out) {
  int l = threadIdx.x % kLevels;
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(levels + l)
               : "memory");
  asm volatile("prefetch.tensormap [%0];" ::"l"(&levels[l]) : "memory");
  out[threadIdx.x] = firstWord(&levels[l]) + firstWord(levels);
}
// CHECK-MESSAGES: warning: kernel 'pyramid' reads 4 descriptors 'levels' through global memory, indexed at run time; now passed by value as one TmaDescriptorArray<4> [tma-001]
// CHECK-FIXES: {{^}}#include <cuda_runtime.h>
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: {{^}}#ifndef TMA_DESCRIPTOR_ARRAY_DEFINED
// CHECK-FIXES-NEXT: {{^}}#define TMA_DESCRIPTOR_ARRAY_DEFINED
// CHECK-FIXES: {{^}}template <int N> struct TmaDescriptorArray {
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap maps[N];
// CHECK-FIXES: {{^}}#endif
// CHECK-FIXES: {{^}}__global__ void pyramid(const __grid_constant__ TmaDescriptorArray<4> levels, int *out) {
// CHECK-FIXES-NEXT: {{^}}  int l = threadIdx.x % kLevels;
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" ::"l"(&levels[l]) : "memory");
// CHECK-FIXES-NEXT: {{^}}  out[threadIdx.x] = firstWord(&levels[l]) + firstWord(&levels[0]);

// A template kernel reads one map per tile; one helper walks them all.
__device__ unsigned long long sum(const CUtensorMap *maps, int n) {
  unsigned long long s = 0;
  for (int i = 0; i < n; ++i)
    s += maps[i].opaque[1];
  return s;
}

template <int kTile>
__global__ void tiles(const CUtensorMap *maps, unsigned long long *out) {
  out[blockIdx.x] = maps[blockIdx.x % 3].opaque[0] + sum(maps, 3) + kTile;
}
// CHECK-MESSAGES: warning: kernel 'tiles' reads 3 descriptors 'maps' through global memory, indexed at run time; now passed by value as one TmaDescriptorArray<3> [tma-001]
// CHECK-FIXES: {{^}}__global__ void tiles(const __grid_constant__ TmaDescriptorArray<3> maps, unsigned long long *out) {
// CHECK-FIXES-NEXT: {{^}}  out[blockIdx.x] = maps[blockIdx.x % 3].opaque[0] + sum(&maps[0], 3) + kTile;

int main() {
  CUtensorMap host_levels[kLevels] = {};
  CUtensorMap tile_maps[3] = {};
  int *out;
  unsigned long long *sums;
  cudaMalloc(&out, 32 * sizeof(int));
  cudaMalloc(&sums, 8 * sizeof(unsigned long long));
  CUtensorMap *dev_levels;
  cudaMalloc(&dev_levels, sizeof(host_levels));
  cudaMemcpy(dev_levels, host_levels, sizeof(host_levels), cudaMemcpyHostToDevice);
  pyramid<<<1, 32>>>(dev_levels, out);
  cudaFree(dev_levels);

  CUtensorMap *dev_tiles = nullptr;
  cudaMalloc((void **)&dev_tiles, 3 * sizeof(CUtensorMap));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMemcpyAsync(dev_tiles, &tile_maps[0], sizeof(CUtensorMap) * 3, cudaMemcpyHostToDevice,
                  stream);
  tiles<64><<<8, 1, 0, stream>>>(dev_tiles, sums);
  cudaStreamSynchronize(stream);
  cudaFree(dev_tiles);
  return 0;
}
// CHECK-FIXES-LABEL: int main() {
// CHECK-FIXES: {{^}}  pyramid<<<1, 32>>>(TmaDescriptorArray<4>::copyOf(host_levels), out);
// CHECK-FIXES: {{^}}  tiles<64><<<8, 1, 0, stream>>>(TmaDescriptorArray<3>::copyOf(&tile_maps[0]), sums);
// CHECK-FIXES-NOT: dev_
// CHECK-MESSAGES: tma-modernize: 2 kernels rewritten, 0 refused (descriptors: 2 by value, 0 refused); 2 launches changed, 2 copies removed (2 alloc, 2 free), 1 fence removed
