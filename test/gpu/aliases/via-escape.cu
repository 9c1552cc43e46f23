// The descriptor's address is kept by one call, and a later call between the
// copy and the launch re-fills it through that address.
#include "common.h"

__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] = s;
}

static CUtensorMap *g_current;
static void track(CUtensorMap *m) { g_current = m; }
static void advance(unsigned long long seed) { fill(g_current, seed); }

int main() {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  CUtensorMap map;
  fill(&map, 5);
  track(&map);
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  advance(6);
  checksum<<<1, 1>>>(d_map, d_out);
  cudaFree(d_map);
  return report(d_out);
}
