#include "staging.cuh"

#include <cstdio>

__global__ void touch_rows(const CUtensorMap *rows_map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows_map) : "memory");
  out[threadIdx.x] = int(threadIdx.x);
}

int main() {
  float *base = nullptr;
  int *out = nullptr;
  cudaMalloc(&base, 16 * 64 * sizeof(float));
  cudaMalloc(&out, 32 * sizeof(int));
  CUtensorMap *rows_dev = staging::stage_rows<16>(base);
  touch_rows<<<1, 32>>>(rows_dev, out);
  cudaDeviceSynchronize();
  cudaFree(rows_dev);
  cudaFree(out);
  cudaFree(base);
  std::printf("done\n");
  return 0;
}
