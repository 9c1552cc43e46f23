// A library helper that describes a row tile and stages the descriptor in
// global memory, for kernels that read it by reference.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>

namespace staging {

inline void describe_rows(CUtensorMap *map, const float *base, int rows) {
  std::memset(map, 0, sizeof(CUtensorMap));
  std::memcpy(map, &base, sizeof(base));
  std::memcpy(reinterpret_cast<char *>(map) + sizeof(base), &rows, sizeof(rows));
}

template <int Rows>
__host__ static inline CUtensorMap *stage_rows(const float *base) {
  CUtensorMap *device_map = nullptr;
  cudaMalloc(&device_map, sizeof(CUtensorMap));
  CUtensorMap host_map;
  describe_rows(&host_map, base, Rows);
  cudaMemcpy(device_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return device_map;
}

} // namespace staging
