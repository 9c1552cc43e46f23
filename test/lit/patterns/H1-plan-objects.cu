// H1 with a plan object: a local struct keeps the host descriptor and its
// device copy side by side (`plan.host`, `plan.device`), with other
// settings. The field is followed as a device buffer of its own: its
// allocation, copy and free go, and the launch passes `plan.host`. Writes to
// other fields of the plan (`plan.passes = 2`) between the copy and the
// launch cannot change either field. The struct is a plain aggregate, so no
// constructor, destructor or method of it can touch the field unseen.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

struct TilePlan {
  CUtensorMap host;
  CUtensorMap *device;
  dim3 grid;
  int passes;
};

__global__ void reduce_tiles(const CUtensorMap *tiles, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(tiles) : "memory");
  out[blockIdx.x] = 4;
}
// CHECK-MESSAGES: :[[@LINE-4]]:{{[0-9]+}}: warning: kernel 'reduce_tiles' reads descriptor 'tiles' through global memory; now passed by value [tma-001]

static void describe_tiles(CUtensorMap *map, int rows) {
  map->opaque[0] = static_cast<unsigned long long>(rows);
}

int main() {
  int *out = nullptr;
  cudaMalloc(&out, 8 * sizeof(int));
  TilePlan plan{};
  describe_tiles(&plan.host, 128);
  plan.grid = dim3(8);
  cudaMalloc(&plan.device, sizeof(CUtensorMap));
  cudaMemcpy(plan.device, &plan.host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  plan.passes = 2;
  for (int p = 0; p < plan.passes; ++p)
    reduce_tiles<<<plan.grid, 32>>>(plan.device, out);
  cudaDeviceSynchronize();
  cudaFree(plan.device);
  cudaFree(out);
  return 0;
}
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused{{.*}}1 launch changed, 1 copy removed (1 alloc, 1 free)
// CHECK-FIXES: {{^}}  plan.grid = dim3(8);
// CHECK-FIXES-NEXT: {{^}}  plan.passes = 2;
// CHECK-FIXES-NEXT: {{^}}  for (int p = 0; p < plan.passes; ++p)
// CHECK-FIXES-NEXT: {{^}}    reduce_tiles<<<plan.grid, 32>>>(plan.host, out);
// CHECK-FIXES-NEXT: {{^}}  cudaDeviceSynchronize();
// CHECK-FIXES-NEXT: {{^}}  cudaFree(out);
