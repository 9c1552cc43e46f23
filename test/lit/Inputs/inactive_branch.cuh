// A library header shared by two builds (R14-inactive-branch.cu): the
// legacy build's launcher passes the device copy to the kernel.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void header_kernel(const CUtensorMap *map, int *out);
#ifdef LEGACY_API
inline void launch_header_kernel(CUtensorMap *device_map, int *out) {
  header_kernel<<<1, 1>>>(device_map, out);
}
#endif
