#include "launch_rows.cuh"

// Passes a device copy: were the launcher's launch to read `*rows` on the
// host, it would dereference device memory.
int main() {
  CUtensorMap h{};
  CUtensorMap *d = nullptr;
  int *out = nullptr;
  cudaMalloc(&out, sizeof(int));
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_rows(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
