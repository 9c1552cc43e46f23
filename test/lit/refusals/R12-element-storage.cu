// R12, the unsafe twins of patterns/H13-element-storage.cu (tma-105): an
// element is a storage only while its container is used by nothing but
// constant indexes; a run-time index, or the container handed to a
// function, may reach the element, so it stays on the device and the
// refusal names that use.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

__global__ void blur(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
__global__ void sharpen(const CUtensorMap *map, int *out) { out[1] = int(map->opaque[1]); }
__global__ void soften(const CUtensorMap *map, int *out) { out[2] = int(map->opaque[2]); }
__global__ void queued(const CUtensorMap *map, int *out) { out[3] = int(map->opaque[3]); }
// CHECK-DAG: warning: descriptor 'map' of kernel 'blur' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'sharpen' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'maps' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'kept' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]
// CHECK-DAG: warning: descriptor 'map' of kernel 'soften' is left by reference
// CHECK-DAG: warning: descriptor 'map' of kernel 'queued' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: this launch of 'maps[0]' may run before the write of 'maps[0]' at line {{[0-9]+}}, which waits on a stream that may be held ('spin' waits in a loop on memory that code running later may write, so a stream may be held until later statements run) until a host wait covers it, where the retargeted text makes each at its call [storage.unclassified-use]

extern void patch_all(std::vector<CUtensorMap *> &maps);

int run_time_index(const CUtensorMap &h, int *out, int i) {
  CUtensorMap *maps[2] = {nullptr, nullptr};
  cudaMalloc(&maps[0], sizeof(CUtensorMap));
  cudaMemcpy(maps[0], &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  CUtensorMap *other = maps[i];
  (void)other;
  blur<<<1, 1>>>(maps[0], out);
  cudaFree(maps[0]);
  return 0;
}

int handed_on(const CUtensorMap &h, int *out) {
  std::vector<CUtensorMap *> kept(1, nullptr);
  cudaMalloc(&kept[0], sizeof(CUtensorMap));
  cudaMemcpy(kept[0], &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  patch_all(kept);
  sharpen<<<1, 1>>>(kept[0], out);
  cudaFree(kept[0]);
  return 0;
}

// An element initialised with the pointer is the same device memory: a
// write of one word through the element after the copy reaches what the
// kernel reads. A pitched memset is no write the tool makes on the host
// instead (a plain cudaMemset is: patterns/H13-partial-device-writes.cu),
// so neither a value nor a snapshot would be right.
int written_through_element(CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap *maps[1] = {d};
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset2D(&maps[0]->opaque[1], 8, 0, 8, 1);
  soften<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}

// An element launched on a stream and copied into again on the default
// one: the kernel may run after the second copy, and read it, where 'spin'
// may hold the stream (refusals/R5-held-streams.cu).
__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
// Launched on a stream the caller hands in: any stream may be held.
void hold(cudaStream_t any, const volatile int *flag) { spin<<<1, 1, 0, any>>>(flag); }
int element_on_a_stream(const CUtensorMap &h, const CUtensorMap &h2, int *out, cudaStream_t s) {
  CUtensorMap *maps[1] = {nullptr};
  cudaMalloc(&maps[0], sizeof(CUtensorMap));
  cudaMemcpy(maps[0], &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  queued<<<1, 1, 0, s>>>(maps[0], out);
  cudaMemcpy(maps[0], &h2, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(s);
  cudaFree(maps[0]);
  return 0;
}
