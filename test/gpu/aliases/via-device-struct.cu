// Issue 30: a program of a new kind for the proof over every path and alias.
#include "common.h"
__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] += s;
}
struct Params {
  CUtensorMap map;
  unsigned long long extra[8];
};
int main() {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  cudaMemset(d_out, 0, sizeof(unsigned long long));
  CUtensorMap map;
  fill(&map, 7);
  Params host_params;
  fill(&host_params.map, 9);
  Params *d_params;
  cudaMalloc(&d_params, sizeof(Params));
  CUtensorMap *d_map = &d_params->map;
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d_params, &host_params, sizeof(Params), cudaMemcpyHostToDevice);
  checksum<<<1, 1>>>(d_map, d_out);
  cudaFree(d_params);
  return report(d_out);
}
