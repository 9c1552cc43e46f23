// The host descriptor is re-filled through a reference bound before the
// copy: the kernel must read the copied value.
#include "common.h"

__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] = s;
}

int main() {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  CUtensorMap map;
  fill(&map, 1);
  CUtensorMap &current = map;
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  fill(&current, 2);
  checksum<<<1, 1>>>(d_map, d_out);
  cudaFree(d_map);
  return report(d_out);
}
