// K4: a function pointer, or a kernel named directly, handed to calls that
// take a kernel without launching it: attributes and occupancy queries
// (cudaFuncSetAttribute, cudaFuncGetAttributes, cudaOccupancy*). Such a call
// neither launches the kernel nor keeps it, so a local pointer used by them
// and by launches is an ordinary K4 pointer. `auto` follows the kernel's new
// type; a written function type loses the '*' of the descriptor parameter;
// the template queries deduce the new type from their argument.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

namespace tiles {
template <int Rows, int Cols>
__global__ void load_tile(const CUtensorMap *src, float *out) {
  extern __shared__ float smem[];
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(src) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(src) : "memory");
  smem[threadIdx.x] = Rows * Cols;
  out[threadIdx.x] = smem[threadIdx.x];
}
// CHECK-MESSAGES: warning: kernel 'tiles::load_tile' reads descriptor 'src' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void load_tile(const __grid_constant__ CUtensorMap src, float *out) {

// `auto *`: the attribute call and the launch go through one pointer.
int opt_in(const CUtensorMap &map, float *out) {
  CUtensorMap *d_map;
  CHECK(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CHECK(cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  auto *kernel = load_tile<64, 128>;
  size_t smem = 64 * 1024;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<4, 128, smem>>>(d_map, out);
  CHECK(cudaFree(d_map));
  return 0;
}
// CHECK-FIXES: {{^}}int opt_in(const CUtensorMap &map, float *out) {
// CHECK-FIXES-NEXT: {{^}}  auto *kernel = load_tile<64, 128>;
// CHECK-FIXES-NEXT: {{^}}  size_t smem = 64 * 1024;
// CHECK-FIXES-NEXT: {{^}}  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
// CHECK-FIXES-NEXT: {{^}}  kernel<<<4, 128, smem>>>(map, out);
// CHECK-FIXES-NEXT: {{^}}  return 0;

// `auto` without the star, an occupancy query and an attribute read, and
// the void-pointer form of the attribute call.
int occupancy(const CUtensorMap &map, float *out, int *blocks) {
  CUtensorMap *d_map;
  CHECK(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CHECK(cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  auto kernel = load_tile<32, 32>;
  cudaFuncAttributes attrs;
  CHECK(cudaFuncGetAttributes(&attrs, kernel));
  CHECK(cudaFuncSetAttribute((const void *)kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, 128, 4096));
  kernel<<<*blocks, 128, 4096>>>(d_map, out);
  CHECK(cudaFree(d_map));
  return 0;
}
// CHECK-FIXES: {{^}}int occupancy(const CUtensorMap &map, float *out, int *blocks) {
// CHECK-FIXES-NEXT: {{^}}  auto kernel = load_tile<32, 32>;
// CHECK-FIXES: {{^}}  kernel<<<*blocks, 128, 4096>>>(map, out);
// CHECK-FIXES-NEXT: {{^}}  return 0;
} // namespace tiles

namespace plain {
__global__ void reduce(const CUtensorMap *src, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(src) : "memory");
  out[threadIdx.x] = 0.f;
}
// CHECK-MESSAGES: warning: kernel 'plain::reduce' reads descriptor 'src' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void reduce(const __grid_constant__ CUtensorMap src, float *out) {

// A written function type and the block-size query.
int sized(const CUtensorMap &map, float *out) {
  CUtensorMap *d_map;
  CHECK(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CHECK(cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  void (*step)(const CUtensorMap *, float *) = reduce;
  int min_grid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, step, 0, 0));
  step<<<min_grid, block>>>(d_map, out);
  CHECK(cudaFree(d_map));
  return 0;
}
// CHECK-FIXES: {{^}}int sized(const CUtensorMap &map, float *out) {
// CHECK-FIXES-NEXT: {{^}}  void (*step)(const CUtensorMap, float *) = reduce;
// CHECK-FIXES: {{^}}  step<<<min_grid, block>>>(map, out);
} // namespace plain

namespace direct {
template <int Width>
__global__ void scan(const CUtensorMap *src, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(src) : "memory");
  out[threadIdx.x] = Width;
}
// CHECK-MESSAGES: warning: kernel 'direct::scan' reads descriptor 'src' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}__global__ void scan(const __grid_constant__ CUtensorMap src, float *out) {

// The template-id itself handed to the queries: as it is, cast, and by address.
int named(const CUtensorMap &map, float *out) {
  CUtensorMap *d_map;
  CHECK(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CHECK(cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  CHECK(cudaFuncSetAttribute(scan<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, 8192));
  CHECK(cudaFuncSetAttribute((void *)scan<16>, cudaFuncAttributePreferredSharedMemoryCarveout, 25));
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scan<16>, 64, 8192));
  cudaFuncAttributes attrs;
  CHECK(cudaFuncGetAttributes(&attrs, (const void *)&scan<16>));
  scan<16><<<blocks, 64, 8192>>>(d_map, out);
  CHECK(cudaFree(d_map));
  return 0;
}
// CHECK-FIXES: {{^}}  scan<16><<<blocks, 64, 8192>>>(map, out);
// CHECK-FIXES-NEXT: {{^}}  return 0;
} // namespace direct

// CHECK-MESSAGES: 3 kernels rewritten, 0 refused (descriptors: 3 by value, 0 refused)

int main() {
  CUtensorMap map{};
  float *out;
  int blocks = 0;
  cudaMalloc(&out, 128 * sizeof(float));
  return tiles::opt_in(map, out) + tiles::occupancy(map, out, &blocks) + plain::sized(map, out) +
         direct::named(map, out);
}
