#include "launch_rows.cuh"
#include "common.h"

int main() {
  CUtensorMap h;
  fill(&h, 1);
  unsigned long long *d_out = nullptr;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_rows(d, d_out);
  int status = report(d_out);
  cudaFree(d);
  return status;
}
