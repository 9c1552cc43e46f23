#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

namespace conv {
// Launches conv::stencil with a device copy of the descriptor.
cudaError_t launch_stencil(const CUtensorMap *d_map, float *out, int n, cudaStream_t stream);
} // namespace conv
