#include "maps.cuh"
__global__ void tile(const CUtensorMap *map, int *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
  out[0] = (int)map->opaque[0];
}
void run_a(const CUtensorMap &h, int *out) {
  CUtensorMap *d = upload(h);
  tile<<<1, 1>>>(d, out);
  cudaFree(d);
}
