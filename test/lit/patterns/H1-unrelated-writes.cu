// H1 with statements between the copy and the launch that write other
// objects: a field of a launch configuration, a counter, a helper that takes
// the configuration by reference, a copy into another device buffer. None can
// write the host descriptor or its device copy (their addresses are never
// taken), so the copy still reaches the launch unchanged. The twin, where the
// descriptor itself is written in between, is refusals/R5-host-modified.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

struct LaunchPlan {
  dim3 grid;
  int passes;
};

__global__ void blend(const CUtensorMap *tile_map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(tile_map) : "memory");
  out[threadIdx.x] = 3;
}
// CHECK-MESSAGES: :[[@LINE-4]]:{{[0-9]+}}: warning: kernel 'blend' reads descriptor 'tile_map' through global memory; now passed by value [tma-001]

static void widen(LaunchPlan &plan) { plan.grid.x *= 2; }

int main() {
  CUtensorMap tile{};
  int seed[32] = {};
  int *out = nullptr;
  cudaMalloc(&out, sizeof(seed));
  CUtensorMap *tile_dev = nullptr;
  cudaMalloc(&tile_dev, sizeof(CUtensorMap));
  cudaMemcpy(tile_dev, &tile, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  LaunchPlan plan{dim3(1), 1};
  widen(plan);
  plan.passes += 1;
  int launched = 0;
  ++launched;
  cudaMemcpy(out, seed, sizeof(seed), cudaMemcpyHostToDevice);
  for (int p = 0; p < plan.passes; ++p)
    blend<<<plan.grid, 32>>>(tile_dev, out);
  cudaFree(tile_dev);
  cudaFree(out);
  return launched == 1 ? 0 : 1;
}
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused
// CHECK-FIXES: {{^}}  cudaMemcpy(out, seed, sizeof(seed), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  for (int p = 0; p < plan.passes; ++p)
// CHECK-FIXES-NEXT: {{^}}    blend<<<plan.grid, 32>>>(tile, out);
// CHECK-FIXES-NOT: tile_dev
