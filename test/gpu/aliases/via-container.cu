// Issue 30: a program of a new kind for the proof over every path and alias.
#include "common.h"
__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] += s;
}
#include <vector>
int main() {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  cudaMemset(d_out, 0, sizeof(unsigned long long));
  CUtensorMap map;
  fill(&map, 7);
  std::vector<CUtensorMap *> tracked;
  tracked.push_back(&map);
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tracked[0]->opaque[2] = 42;
  checksum<<<1, 1>>>(d_map, d_out);
  cudaFree(d_map);
  return report(d_out);
}
