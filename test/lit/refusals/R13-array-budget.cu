// R13 (tma-106): the parameter budget. By value, N descriptors take N * 128
// bytes of the kernel's parameters: 32,764 bytes in all with CUDA 12.1 or
// newer when every target is sm_70 or newer (both read from the compile
// command: its targets and its nvcc's toolkit), otherwise 4,096. Over the budget the array stays in device
// memory, and the message gives the bytes and the limit.
// RUN: %prep
// RUN: %tma --dry-run %t.cu 2>&1 | %FileCheck %s --check-prefix=DEFAULT
// RUN: rm -rf %t.dir && mkdir -p %t.dir/src %t.dir/build && cp %t.cu %t.dir/src/k.cu
// RUN: echo '[{"directory": "%t.dir/build", "command": "nvcc -gencode arch=compute_60,code=sm_60 -gencode arch=compute_90a,code=sm_90a -c ../src/k.cu", "file": "../src/k.cu"}]' > %t.dir/build/compile_commands.json
// RUN: %tma --dry-run -p %t.dir/build %t.dir/src/k.cu 2>&1 | %FileCheck %s --check-prefix=SM60
// RUN: echo '[{"directory": "%t.dir/build", "command": "nvcc -arch=sm_90a -c ../src/k.cu", "file": "../src/k.cu"}]' > %t.dir/build/compile_commands.json
// RUN: %tma --dry-run -p %t.dir/build %t.dir/src/k.cu 2>&1 | %FileCheck %s --check-prefix=DEFAULT
// An nvcc of CUDA 12.0 in the command (its toolkit's cuda.h says so).
// RUN: mkdir -p %t.dir/cuda-12.0/bin %t.dir/cuda-12.0/include && echo '#define CUDA_VERSION 12000' > %t.dir/cuda-12.0/include/cuda.h
// RUN: echo '[{"directory": "%t.dir/build", "command": "%t.dir/cuda-12.0/bin/nvcc -arch=sm_90a -c ../src/k.cu", "file": "../src/k.cu"}]' > %t.dir/build/compile_commands.json
// RUN: %tma --dry-run -p %t.dir/build %t.dir/src/k.cu 2>&1 | %FileCheck %s --check-prefix=SM60
// RUN: cmp %t.cu %t.orig.cu && cmp %t.dir/src/k.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void per_tile(const CUtensorMap *tiles, int *out) {
  out[blockIdx.x] = int(tiles[blockIdx.x].opaque[0]);
}
// DEFAULT: warning: descriptor 'tiles' of kernel 'per_tile' is left by reference: as 300 descriptors by value, the parameters of 'per_tile' would take 38408 bytes, above the 32764-byte limit (CUDA 12.1 or newer, every target sm_70 or newer) [tma-106]
// SM60: warning: descriptor 'tiles' of kernel 'per_tile' is left by reference: as 300 descriptors by value, the parameters of 'per_tile' would take 38408 bytes, above the 4096-byte limit (before CUDA 12.1, or a target below sm_70) [tma-106]

__global__ void per_level(const CUtensorMap *levels, int *out) {
  out[blockIdx.x] = int(levels[blockIdx.x % 40].opaque[0]);
}
// DEFAULT: warning: kernel 'per_level' reads 40 descriptors 'levels' through global memory, indexed at run time; they can be passed by value as one TmaDescriptorArray<40> [tma-001]
// SM60: warning: descriptor 'levels' of kernel 'per_level' is left by reference: as 40 descriptors by value, the parameters of 'per_level' would take 5128 bytes, above the 4096-byte limit (before CUDA 12.1, or a target below sm_70) [tma-106]

int main() {
  int *out;
  cudaMalloc(&out, 300 * sizeof(int));
  CUtensorMap tiles[300] = {}, levels[40] = {};
  CUtensorMap *d_tiles, *d_levels;
  cudaMalloc(&d_tiles, sizeof(tiles));
  cudaMalloc(&d_levels, sizeof(levels));
  cudaMemcpy(d_tiles, tiles, sizeof(tiles), cudaMemcpyHostToDevice);
  cudaMemcpy(d_levels, levels, sizeof(levels), cudaMemcpyHostToDevice);
  per_tile<<<300, 1>>>(d_tiles, out);
  per_level<<<40, 1>>>(d_levels, out);
  cudaFree(d_tiles);
  cudaFree(d_levels);
  return 0;
}
// DEFAULT: 1 kernel would be rewritten, 1 refused
// SM60: 0 kernels would be rewritten, 2 refused
