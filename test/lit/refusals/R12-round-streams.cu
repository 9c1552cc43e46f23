// R12, the unsafe twin of per_round_streams in patterns/H13-stream-time.cu
// (tma-105): a stream created anew in each round of a loop, held there
// behind a flag. streamOf does not read such a stream, so the hold may
// hold any stream: the launch queued behind it runs after the copy that
// follows it, and reads that copy, where the retargeted launch would pass
// the map as it is at its call. The file is left as it is.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
__global__ void per_round(const CUtensorMap *map, unsigned long long *out, int i) { out[i] = map->opaque[3]; }

void held_per_round(const CUtensorMap *maps, int rounds, volatile int *flag, const int *dflag,
                    unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &maps[0], sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  for (int i = 1; i < rounds; ++i) {
    cudaStream_t rs;
    cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking);
    spin<<<1, 1, 0, rs>>>(dflag);
    per_round<<<1, 1, 0, rs>>>(d, out, i);
    cudaMemcpy(d, &maps[i], sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    *flag = 1;
    cudaStreamSynchronize(rs);
    *flag = 0;
    cudaStreamDestroy(rs);
  }
  cudaFree(d);
}
// CHECK: warning: descriptor 'map' of kernel 'per_round' is left by reference
// CHECK: tma-modernize: 0 kernels rewritten, 1 refused
