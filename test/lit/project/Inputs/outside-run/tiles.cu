#include "tiles.cuh"
__global__ void tile_kernel(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 1;
}
void run_tiles(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tile_kernel<<<1, 1>>>(d, out);
  cudaFree(d);
}
