#pragma once
#include <cuda.h>

// Declared here, defined in the .cu: both change together.
__global__ void scale_tiles(const CUtensorMap *tiles, float *out, float factor);
