#include "kernels.cuh"
#include <cuda_runtime.h>

namespace proj {
void launch_blur(const CUtensorMap &host_map, float *dst) {
  CUtensorMap *dev_map;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  blur<<<1, 32>>>(dev_map, dst);
  cudaFree(dev_map);
}
} // namespace proj

int main() {
  CUtensorMap m{};
  float *dst;
  cudaMalloc(&dst, 32 * sizeof(float));
  proj::launch_blur(m, dst);
  return 0;
}
