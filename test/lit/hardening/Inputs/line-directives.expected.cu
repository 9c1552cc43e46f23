#include <cuda.h>
#include <cuda_runtime.h>
#line 1000
// Presumed line 1000; the physical line is 4.
#line 7 "fake.cu"
__global__ void k(const __grid_constant__ CUtensorMap map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory");
  out[0] = 1;
}

# 42 "other.cu"
int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, sizeof(int));
#line 1 "line-directives.cu"
  k<<<1, 1>>>(h, out);
  return 0;
}
