// R5 through a name made by a use the proof has no row for (tma-105, issue
// 41): `CUtensorMap &pick = flag ? map : other;` binds a reference to
// `map` or `other` through a conditional. The object proof's closed world
// takes such a use as an escape (a name it does not follow), so the H1
// flow refuses the by-value form and the storage rule takes the snapshot
// where the copy was. An earlier version took it as a write where it stands
// (before the copy) and passed `map` by value, which the write through
// `pick` after the copy changes when `flag` is set.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void through_pick(const CUtensorMap *map, int *out) { out[0] = (int)map->opaque[3]; }

void conditional_reference(int *out, bool flag) {
  CUtensorMap map{}, other{};
  CUtensorMap &pick = flag ? map : other;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  pick.opaque[3] = 7;
  through_pick<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK: warning: kernel 'through_pick' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NEXT: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  pick.opaque[3] = 7;
// CHECK-FIXES-NEXT: {{^}}  through_pick<<<1, 1>>>(*d, out);
