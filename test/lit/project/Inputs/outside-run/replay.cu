// Launches the kernel with a device copy it was handed: after the header's
// edit it would no longer compile.
#include "tiles.cuh"
void replay(const CUtensorMap *device_map, int *out) { tile_kernel<<<1, 1>>>(device_map, out); }
