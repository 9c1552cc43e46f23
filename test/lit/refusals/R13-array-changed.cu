// R13: a descriptor array whose contents may differ from the host array at
// the launch stays in device memory: a partial re-upload, the host array
// changed between the copy and the launch, a device write to any element,
// and an element read by a kernel that is not rewritten.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void read_levels(const CUtensorMap *maps, int *out) {
  out[threadIdx.x] = int(maps[threadIdx.x % 4].opaque[0]);
}
// CHECK-DAG: warning: descriptor 'maps' of kernel 'read_levels' is left by reference: a part of the device array 'd' is copied again here ('cudaMemcpy(d + 1, &fresh, sizeof(CUtensorMap), cudaMemcpyHostToDevice)'): a partial re-upload [tma-102]
// CHECK-DAG: note: also: host array 'levels' is named here, between the copy and the launch; the launch would pass what it holds then [tma-105]

__global__ void read_tiles(const CUtensorMap *maps, int *out) {
  out[threadIdx.x] = int(maps[threadIdx.x % 2].opaque[0]);
}
// CHECK-DAG: warning: descriptor 'maps' of kernel 'read_tiles' is left by reference: {{.*}}'patch'

// Patches one element on the device (tensormap.replace would, too).
__global__ void patch(CUtensorMap *maps, int i) { maps[i].opaque[3] = 0; }
// CHECK-DAG: warning: descriptor 'maps' of kernel 'patch' is left by reference: the descriptor is written ('maps[i].opaque[3] = 0') [tma-101]

void partial(const CUtensorMap &fresh, int *out) {
  CUtensorMap levels[4] = {};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(levels));
  cudaMemcpy(d, levels, sizeof(levels), cudaMemcpyHostToDevice);
  cudaMemcpy(d + 1, &fresh, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  read_levels<<<1, 32>>>(d, out);
  cudaFree(d);
}

void host_changed(const CUtensorMap &fresh, int *out) {
  CUtensorMap levels[4] = {};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(levels));
  cudaMemcpy(d, levels, sizeof(levels), cudaMemcpyHostToDevice);
  levels[2] = fresh;
  read_levels<<<1, 32>>>(d, out);
  cudaFree(d);
}

void patched(int *out) {
  CUtensorMap tiles[2] = {};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(tiles));
  cudaMemcpy(d, tiles, sizeof(tiles), cudaMemcpyHostToDevice);
  patch<<<1, 1>>>(d, 1);
  read_tiles<<<1, 32>>>(d, out);
  cudaFree(d);
}
// CHECK: 0 kernels rewritten, 3 refused
