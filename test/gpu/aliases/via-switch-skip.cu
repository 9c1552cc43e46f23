// Issue 30: a program of a new kind for the proof over every path and alias.
#include "common.h"
__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] += s;
}
int main(int argc, char **) {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  cudaMemset(d_out, 0, sizeof(unsigned long long));
  CUtensorMap map;
  fill(&map, 7);
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  checksum<<<1, 1>>>(d_map, d_out);
  fill(&map, 9);
  switch (argc) {
  case 3:
    cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    [[fallthrough]];
  case 1:
    checksum<<<1, 1>>>(d_map, d_out);
    break;
  default:
    break;
  }
  cudaFree(d_map);
  return report(d_out);
}
