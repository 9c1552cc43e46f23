// The host descriptor is re-filled by a [&] lambda called between the copy
// and the launch.
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
  fill(&map, 3);
  auto next_tile = [&] { fill(&map, 4); };
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  next_tile();
  checksum<<<1, 1>>>(d_map, d_out);
  cudaFree(d_map);
  return report(d_out);
}
