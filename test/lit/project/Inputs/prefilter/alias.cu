#include "desc_alias.h"
#include <cuda_runtime.h>
__global__ void via_alias(const Desc *d, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(d) : "memory");
  out[0] = 1;
}
void run_alias(int *out) {
  Desc h{};
  Desc *dev;
  cudaMalloc(&dev, sizeof(Desc));
  cudaMemcpy(dev, &h, sizeof(Desc), cudaMemcpyHostToDevice);
  via_alias<<<1, 1>>>(dev, out);
  cudaFree(dev);
}
