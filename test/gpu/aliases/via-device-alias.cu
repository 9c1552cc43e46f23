// A second name for the device copy (`CUtensorMap *alias = d;`), only read,
// handed to two kernels with the copy itself: the alias and the copy are one
// storage group, retargeted whole by the storage rule (the copy becomes an
// assignment into host memory, both launches pass it by value).
#include "common.h"

__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] = s;
}

__global__ void checksum_again(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 3);
  out[0] += s;
}

int main() {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  CUtensorMap map;
  fill(&map, 7);
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  CUtensorMap *alias = d_map;
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  checksum<<<1, 1>>>(alias, d_out);
  checksum_again<<<1, 1>>>(d_map, d_out);
  cudaFree(d_map);
  return report(d_out);
}
