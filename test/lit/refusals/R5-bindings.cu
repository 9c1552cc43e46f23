// R5 through a name the host descriptor gets from an aggregate (tma-105,
// issue 41): `auto [bound] = MapRef{map}` makes `bound` another name of
// `map` (MapRef's member is a reference), made before the copy; a write
// through it after the copy changes what a by-value launch would pass. The
// proof's closed world: a use of the descriptor no row classifies (here an
// aggregate's reference member bound to it) makes another name, so the H1
// flow refuses, and the storage rule takes the snapshot where the copy was.
// An earlier version passed `map` by value (the semantic fuzzer, seed 2).
// The twin binds a copy (MapCopy's member is a value): by value.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void through_binding(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void through_copy(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }

struct MapRef {
  CUtensorMap &m;
};
struct MapCopy {
  CUtensorMap m;
};

void binding_of_reference(int *out) {
  CUtensorMap map{};
  auto [bound] = MapRef{map};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  bound.opaque[3] = 7;
  through_binding<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK: warning: kernel 'through_binding' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NEXT: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  bound.opaque[3] = 7;
// CHECK-FIXES-NEXT: {{^}}  through_binding<<<1, 1>>>(*d, out);

void binding_of_copy(int *out) {
  CUtensorMap map{};
  auto [copied] = MapCopy{map};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  copied.opaque[3] = 7;
  through_copy<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK: warning: kernel 'through_copy' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}  copied.opaque[3] = 7;
// CHECK-FIXES-NEXT: {{^}}  through_copy<<<1, 1>>>(map, out);
