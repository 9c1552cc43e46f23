// Two units with same-named caches in two namespaces (namespaces.test).
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void tile_a(const CUtensorMap *map, int *out);
__global__ void tile_b(const CUtensorMap *map, int *out);
