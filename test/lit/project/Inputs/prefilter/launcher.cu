#include <vendor_desc.h>
#include <cuda_runtime.h>
// Launches k (defined in a.cu) through a type name from a system header.
__global__ void k(const VendorDesc *map, int *out);
void launch_k(int *out) {
  VendorDesc h{};
  VendorDesc *dev;
  cudaMalloc(&dev, sizeof(VendorDesc));
  cudaMemcpy(dev, &h, sizeof(VendorDesc), cudaMemcpyHostToDevice);
  k<<<1, 1>>>(dev, out);
  cudaFree(dev);
}
