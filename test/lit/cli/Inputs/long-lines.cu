#include <cuda.h>
#include <cuda_runtime.h>

__global__ void scale_rows(const CUtensorMap *rows_descriptor_in, const CUtensorMap *rows_descriptor_out, float *scratch_buffer, int n) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(rows_descriptor_in) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows_descriptor_in) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows_descriptor_out) : "memory");
  scratch_buffer[n] = 0.0f;
}

// Not touched by the rewrite: never reformatted.
__global__ void untouched(float *scratch_buffer, int n) { scratch_buffer[n] = 1.0f; scratch_buffer[n + 1] = 2.0f; }

int main() {
  CUtensorMap h_in{}, h_out{};
  float *scratch;
  cudaMalloc(&scratch, 1024);
  CUtensorMap *d_in, *d_out;
  cudaMalloc(&d_in, sizeof(CUtensorMap));
  cudaMalloc(&d_out, sizeof(CUtensorMap));
  cudaMemcpy(d_in, &h_in, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d_out, &h_out, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  scale_rows<<<1, 32>>>(d_in, d_out, scratch, 0);
  untouched<<<1, 32>>>(scratch, 0);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
