// K7: device helpers that take the map untyped (`void *`, `const void *`,
// `uint64_t`, template helpers too) and hand it only to the tensor-map
// operand of TMA instructions. A `const void *` or `uint64_t` parameter
// takes '&p' as it is; for a `void *` (or `CUtensorMap *`) parameter the
// argument becomes `const_cast<CUtensorMap *>(&p)`: the type it had, so the
// same helper is called, and the helper, proven to only read, is not edited.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace epi {
__device__ unsigned shared_address(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// A TMA store: the map is read (it is the destination's description).
// The helpers are not edited:
// CHECK-FIXES: {{^}}__device__ void store_tile(void *map, const float *smem, int x, int y) {
__device__ void store_tile(void *map, const float *smem, int x, int y) {
  uint64_t addr = reinterpret_cast<uint64_t>(map);
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(addr), "r"(shared_address(smem)), "r"(x), "r"(y) : "memory");
}
template <int Rank>
__device__ void reduce_tile(void *map, const float *smem, int x, int y) {
  static_assert(Rank == 2, "two coordinates");
  asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
               " [%0, {%2, %3}], [%1];"
               :: "l"(map), "r"(shared_address(smem)), "r"(x), "r"(y) : "memory");
}
__device__ void load_tile(float *smem, const void *map, int x, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];"
               :: "r"(shared_address(smem)), "l"(map), "r"(x), "r"(0), "r"(shared_address(bar))
               : "memory");
}
__device__ void prefetch_map(uint64_t map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// A helper handing the untyped map on to other helpers.
__device__ void store_and_add(void *map, const float *smem, int x) {
  store_tile(map, smem, x, 0);
  reduce_tile<2>(map, smem, x, 32);
}
} // namespace epi

__global__ void epilogue(CUtensorMap *out_map, const CUtensorMap *in_map, int x0) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t bar;
  epi::prefetch_map(reinterpret_cast<uint64_t>(out_map));
  if (threadIdx.x == 0)
    epi::load_tile(tile, in_map, x0, &bar);
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    epi::store_tile(out_map, tile, x0, 0);
    epi::reduce_tile<2>((out_map), tile, x0, 0);
    epi::store_and_add(out_map, tile, x0);
    epi::store_tile((void *)out_map, tile, x0, 64);
  }
}
// CHECK-MESSAGES: :[[@LINE-15]]:{{[0-9]+}}: warning: kernel 'epilogue' reads descriptor 'out_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: :[[@LINE-16]]:{{[0-9]+}}: warning: kernel 'epilogue' reads descriptor 'in_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused
// CHECK-FIXES: {{^}}__global__ void epilogue(const __grid_constant__ CUtensorMap out_map, const __grid_constant__ CUtensorMap in_map, int x0) {
// CHECK-FIXES: {{^}}  epi::prefetch_map(reinterpret_cast<uint64_t>(&out_map));
// CHECK-FIXES: {{^}}    epi::load_tile(tile, &in_map, x0, &bar);
// CHECK-FIXES: {{^}}    epi::store_tile(const_cast<CUtensorMap *>(&out_map), tile, x0, 0);
// CHECK-FIXES-NEXT: {{^}}    epi::reduce_tile<2>((const_cast<CUtensorMap *>(&out_map)), tile, x0, 0);
// CHECK-FIXES-NEXT: {{^}}    epi::store_and_add(const_cast<CUtensorMap *>(&out_map), tile, x0);
// CHECK-FIXES-NEXT: {{^}}    epi::store_tile((void *)&out_map, tile, x0, 64);

int main() {
  CUtensorMap h_out{}, h_in{};
  CUtensorMap *d_out = nullptr;
  CUtensorMap *d_in = nullptr;
  cudaMalloc(&d_out, sizeof(CUtensorMap));
  cudaMalloc(&d_in, sizeof(CUtensorMap));
  cudaMemcpy(d_out, &h_out, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d_in, &h_in, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  epilogue<<<1, 32>>>(d_out, d_in, 0);
  cudaDeviceSynchronize();
  cudaFree(d_out);
  cudaFree(d_in);
  return 0;
}
// CHECK-FIXES: {{^}}  epilogue<<<1, 32>>>(h_out, h_in, 0);
