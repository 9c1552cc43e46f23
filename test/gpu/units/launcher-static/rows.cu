#include "run_rows.cuh"
#include <cstdio>

__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] = s;
}

static void launch_rows(const CUtensorMap *rows, unsigned long long *out) {
  std::fprintf(stderr, "rows at %p\n", (const void *)rows);
  checksum<<<1, 1>>>(rows, out);
}

void run_rows(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_rows(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
