// The kernel and its launcher. The launcher logs its pointer, a shape no
// launcher flow follows; only the storage rule could take it, and main.cu,
// which it cannot edit, passes a device copy.
#include "launch_rows.cuh"
#include <cstdio>

__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] = s;
}

void launch_rows(const CUtensorMap *rows, unsigned long long *out) {
  std::fprintf(stderr, "rows at %p\n", (const void *)rows);
  checksum<<<1, 1>>>(rows, out);
}
