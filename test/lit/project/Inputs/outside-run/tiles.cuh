// Shared by the units of outside-run.test's database.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void tile_kernel(const CUtensorMap *map, int *out);
