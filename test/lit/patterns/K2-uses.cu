// K2: every use of the parameter in the body keeps its meaning by value:
// asm operands and helper arguments take '&p', '*p' and 'p[0]' become 'p',
// 'p->' becomes 'p.', and pointer aliases are followed.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace tile {
__device__ void load_tile(void *smem, const CUtensorMap *desc, int x, int y, uint64_t *bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];"
      :
      : "r"(static_cast<unsigned>(__cvta_generic_to_shared(smem))), "l"(desc), "r"(x), "r"(y),
        "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar)))
      : "memory");
}
} // namespace tile

__global__ void kernel(const CUtensorMap *tensor_map, unsigned long long *out, int x0) {
  __shared__ alignas(128) float smem[32 * 32];
  __shared__ uint64_t bar;
  asm volatile("prefetch.tensormap [%0];" :: "l"(tensor_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<uint64_t>(tensor_map)) : "memory");
  const uint64_t addr = reinterpret_cast<uint64_t>(tensor_map);
  asm volatile("prefetch.tensormap [%0];" :: "l"(addr) : "memory");
  const void *generic = tensor_map;
  asm volatile("prefetch.tensormap [%0];" :: "l"(generic) : "memory");
  if (threadIdx.x == 0)
    tile::load_tile(smem, tensor_map, x0, 0, &bar);
  CUtensorMap copy = *tensor_map;
  out[0] = tensor_map->opaque[0] + tensor_map[0].opaque[1] + copy.opaque[2] + (*tensor_map).opaque[3];
  out[1] = sizeof(*tensor_map);
}
// CHECK-MESSAGES: :[[@LINE-15]]:{{[0-9]+}}: warning: kernel 'kernel' reads descriptor 'tensor_map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void kernel(const __grid_constant__ CUtensorMap tensor_map, unsigned long long *out, int x0) {
// CHECK-FIXES: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&tensor_map) : "memory");
// CHECK-FIXES: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<uint64_t>(&tensor_map)) : "memory");
// CHECK-FIXES: {{^}}  const uint64_t addr = reinterpret_cast<uint64_t>(&tensor_map);
// CHECK-FIXES: {{^}}  const void *generic = &tensor_map;
// CHECK-FIXES: {{^}}    tile::load_tile(smem, &tensor_map, x0, 0, &bar);
// CHECK-FIXES: {{^}}  CUtensorMap copy = tensor_map;
// CHECK-FIXES: {{^}}  out[0] = tensor_map.opaque[0] + tensor_map.opaque[1] + copy.opaque[2] + (tensor_map).opaque[3];
// CHECK-FIXES: {{^}}  out[1] = sizeof(tensor_map);

int main() {
  CUtensorMap host_map{};
  unsigned long long *out;
  cudaMalloc(&out, 2 * sizeof(unsigned long long));
  CUtensorMap *dev_map = nullptr;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  kernel<<<1, 128>>>(dev_map, out, 0);
  cudaDeviceSynchronize();
  cudaFree(dev_map);
  cudaFree(out);
}
// CHECK-FIXES: {{^}}  cudaMalloc(&out, 2 * sizeof(unsigned long long));
// CHECK-FIXES-NEXT: {{^}}  kernel<<<1, 128>>>(host_map, out, 0);
// CHECK-FIXES-NEXT: {{^}}  cudaDeviceSynchronize();
// CHECK-FIXES-NEXT: {{^}}  cudaFree(out);
