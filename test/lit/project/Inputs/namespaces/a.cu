#include "kernels.cuh"
__global__ void tile_a(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 1;
}
namespace M2 {
CUtensorMap *d_map = nullptr;
void upload(const CUtensorMap &h) {
  if (!d_map)
    cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
}
void run(int *out) { tile_a<<<1, 1>>>(d_map, out); }
} // namespace M2
