#pragma once
#include <cuda.h>

namespace proj {
// Defined in kernels.cu, launched from main.cu: another translation unit.
__global__ void blur(const CUtensorMap *src, float *dst);
void launch_blur(const CUtensorMap &host_map, float *dst);
} // namespace proj
