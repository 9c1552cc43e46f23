#include <cuda.h>
#include <cuda_runtime.h>

// Two descriptors whose device copies are declared together: one edit unit.
__global__ void pair(const CUtensorMap *in_map, const CUtensorMap *out_map, int *flag) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(in_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(out_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(in_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(out_map) : "memory");
  flag[0] = 1;
}

int main() {
  CUtensorMap h_in{}, h_out{};
  int *flag;
  cudaMalloc(&flag, sizeof(int));
  CUtensorMap *d_in, *d_out;
  cudaMalloc(&d_in, sizeof(CUtensorMap));
  cudaMalloc(&d_out, sizeof(CUtensorMap));
  cudaMemcpy(d_in, &h_in, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d_out, &h_out, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  pair<<<1, 32>>>(d_in, d_out, flag);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
