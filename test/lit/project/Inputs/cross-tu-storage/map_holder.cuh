// A class that keeps a device copy of a descriptor, used by two sources.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

class MapHolder {
public:
  void upload(const CUtensorMap &h) {
    cudaMalloc(&device_, sizeof(CUtensorMap));
    cudaMemcpy(device_, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  }
  void launch(int *out);
  CUtensorMap *device_ = nullptr;
};
