// A launch captured into a CUDA graph and replayed: a replay passes the
// arguments it had when captured. Here the device copy is made once,
// before the capture; the host descriptor changes afterwards, but nothing
// copies it again: the replay reads the one copy (rewritten).
#include "common.h"

__global__ void checksum(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] = s;
}

int main() {
  unsigned long long *d_out;
  cudaMalloc(&d_out, sizeof(unsigned long long));
  cudaStream_t s;
  cudaStreamCreate(&s);
  CUtensorMap map;
  fill(&map, 1);
  CUtensorMap *d_map;
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  checksum<<<1, 1, 0, s>>>(d_map, d_out);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&ge, g, 0);
  fill(&map, 2);

  cudaGraphLaunch(ge, s);
  cudaStreamSynchronize(s);
  cudaFree(d_map);
  return report(d_out);
}
