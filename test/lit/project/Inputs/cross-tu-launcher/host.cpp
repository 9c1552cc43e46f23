// Host code built by the host compiler: it encodes the descriptor, copies
// it to the device and hands the copy to the launcher, twice.
#include "rows.cuh"

int main() {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *sums = nullptr;
  cudaMalloc(&sums, 64 * sizeof(float));
  CUtensorMap rows_map{};
  CUtensorMap *rows_copy = nullptr;
  cudaMalloc(&rows_copy, sizeof(CUtensorMap));
  cudaMemcpy(rows_copy, &rows_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tiles::launch_rows(rows_copy, sums, 32, stream);
  tiles::launch_rows(rows_copy, sums + 32, 32, stream);
  cudaStreamSynchronize(stream);
  cudaFree(rows_copy);
  cudaFree(sums);
  return 0;
}
