#include <cuda.h>
#include <cuda_runtime.h>

__global__ void k(const CUtensorMap *map, unsigned long long *out) {
#if __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 1;
#elif defined(__CUDA_ARCH__)
  *reinterpret_cast<const CUtensorMap **>(out) = map;
#endif
}

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  unsigned long long *out;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMalloc(&out, sizeof(unsigned long long));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  k<<<1, 1>>>(d, out);
  cudaFree(d);
  cudaFree(out);
  return 0;
}
