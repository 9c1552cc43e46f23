#include "maps.cuh"
void run_c(const CUtensorMap &h, int *out) {
  CUtensorMap *d = upload(h);
  tile<<<1, 1>>>(d, out);
  cudaFree(d);
}
