// Unsafe: the host descriptor changes after the copy, so the launch sees
// the old contents while passing the host descriptor would give the new.
#include "rows.cuh"

int main() {
  float *sums = nullptr;
  cudaMalloc(&sums, 64 * sizeof(float));
  CUtensorMap rows_map{};
  CUtensorMap *rows_copy = nullptr;
  cudaMalloc(&rows_copy, sizeof(CUtensorMap));
  cudaMemcpy(rows_copy, &rows_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  rows_map.opaque[0] = 7;
  tiles::launch_rows(rows_copy, sums, 32, nullptr);
  cudaFree(rows_copy);
  return 0;
}
