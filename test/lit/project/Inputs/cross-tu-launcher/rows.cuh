// The launcher's only declaration outside its definition: every TU that
// launches rows of tiles includes it.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

namespace tiles {
cudaError_t launch_rows(const CUtensorMap *rows_dev, float *sums, int count,
                        cudaStream_t stream);
} // namespace tiles
