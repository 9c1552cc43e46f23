// A program in one source: the upload helper has external linkage and no
// header declares it, but nothing outside this source can call it when the
// run covers the whole program.
#include <cuda.h>
#include <cuda_runtime.h>

namespace demo {

__global__ void probe(const CUtensorMap *grid_map, int *seen) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(grid_map) : "memory");
  seen[0] = 1;
}

CUtensorMap *stage_map() {
  CUtensorMap encoded{};
  CUtensorMap *dev = nullptr;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  cudaMemcpy(dev, &encoded, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev;
}

} // namespace demo

int main() {
  int *seen = nullptr;
  cudaMalloc(&seen, sizeof(int));
  CUtensorMap *grid_map = demo::stage_map();
  demo::probe<<<1, 1>>>(grid_map, seen);
  cudaFree(grid_map);
  cudaDeviceSynchronize();
  return 0;
}
