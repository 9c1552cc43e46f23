#include "kernels.cuh"
__global__ void tile_b(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[1] = 1;
}
namespace M10 {
CUtensorMap *d_map = nullptr;
void upload(const CUtensorMap &h) {
  if (!d_map)
    cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
}
void run(int *out) { tile_b<<<1, 1>>>(d_map, out); }
} // namespace M10
