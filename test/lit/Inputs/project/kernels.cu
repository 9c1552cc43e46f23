#include "kernels.cuh"
#include <cuda_runtime.h>

namespace proj {
__global__ void blur(const CUtensorMap *src, float *dst) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(src) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(src) : "memory");
  dst[threadIdx.x] = KERNEL_SCALE;
}
} // namespace proj
