#include <cuda.h>
#include <cuda_runtime.h>

// Three descriptors of one kernel, next to each other in the signature, the
// fences and the launch; their device copies are declared together, so they
// are one edit unit.
__global__ void triple(const CUtensorMap *a, const CUtensorMap *b, const CUtensorMap *c,
                       float *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(a) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(b) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(c) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(a) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(b) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(c) : "memory");
  out[threadIdx.x] = 0.0f;
}

int main() {
  CUtensorMap ha{}, hb{}, hc{};
  float *out;
  cudaMalloc(&out, 128 * sizeof(float));
  CUtensorMap *da, *db, *dc;
  cudaMalloc(&da, sizeof(CUtensorMap));
  cudaMalloc(&db, sizeof(CUtensorMap));
  cudaMalloc(&dc, sizeof(CUtensorMap));
  cudaMemcpy(da, &ha, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(db, &hb, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, &hc, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  triple<<<1, 128>>>(da, db, dc, out);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 0;
}
