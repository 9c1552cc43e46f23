// Issue 30: a program of a new kind for the proof over every path and alias.
#include "common.h"
__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] += s;
}
struct Job {
  CUtensorMap *map;
  unsigned long long seed;
};
static void CUDART_CB rewrite(void *p) {
  Job *job = static_cast<Job *>(p);
  fill(job->map, job->seed);
}
int main() {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  cudaMemset(d_out, 0, sizeof(unsigned long long));
  cudaStream_t s;
  cudaStreamCreate(&s);
  CUtensorMap map;
  fill(&map, 7);
  CUtensorMap *staged = &map;
  Job job{staged, 13};
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpyAsync(d_map, staged, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaLaunchHostFunc(s, rewrite, &job);
  cudaStreamSynchronize(s);
  checksum<<<1, 1, 0, s>>>(d_map, d_out);
  cudaStreamSynchronize(s);
  cudaFree(d_map);
  return report(d_out);
}
