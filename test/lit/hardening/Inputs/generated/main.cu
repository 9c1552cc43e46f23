#include <cuda.h>
#include <cuda_runtime.h>

#include "gen_kernels.cuh"

__global__ void hand_written(const CUtensorMap *map, int *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(map) : "memory");
  out[1] = 1;
}

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, 2 * sizeof(int));
  CUtensorMap *d_gen, *d_hand;
  cudaMalloc(&d_gen, sizeof(CUtensorMap));
  cudaMemcpy(d_gen, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  generated_k<<<1, 1>>>(d_gen, out);
  cudaFree(d_gen);
  cudaMalloc(&d_hand, sizeof(CUtensorMap));
  cudaMemcpy(d_hand, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  hand_written<<<1, 1>>>(d_hand, out);
  cudaFree(d_hand);
  return 0;
}
