#include "map_holder.cuh"

// Reads a device copy back: after a retargeting it would read host memory.
int check_copy() {
  CUtensorMap h{}, back;
  MapHolder other;
  other.upload(h);
  return cudaMemcpy(&back, other.device_, sizeof(CUtensorMap), cudaMemcpyDeviceToHost) != cudaSuccess;
}
