#pragma once
#include <cuda.h>
// A vendor header on a system include path: never edited.
__global__ void vendor_kernel(const CUtensorMap *map);
