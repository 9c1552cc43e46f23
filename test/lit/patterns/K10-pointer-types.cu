// K10: a function pointer whose type is not written at its declaration but
// named: an alias (`using`, `typedef`) declared in this file and used only
// as the type of pointers that launch the kernels, or `decltype(&kernel)`.
// The alias loses the '*' of the descriptor parameter, once for every
// pointer of it; a decltype follows the kernel's new type with no edit.
// Every kernel a pointer of the alias may hold changes with it.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void rows(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
__global__ void cols(const CUtensorMap *map, int *out) { out[1] = int(map->opaque[1]); }
__global__ void tiles(const CUtensorMap *map, int *out) { out[2] = int(map->opaque[2]); }
__global__ void diag(const CUtensorMap *map, int *out) { out[3] = int(map->opaque[3]); }
// CHECK-MESSAGES-DAG: warning: kernel 'rows' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'cols' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'tiles' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'diag' reads descriptor 'map' through global memory; now passed by value [tma-001]

using PassFn = void (*)(const CUtensorMap *, int *);
typedef void (*LegacyFn)(const CUtensorMap *map, int *out);
// CHECK-FIXES: {{^}}using PassFn = void (*)(const CUtensorMap, int *);
// CHECK-FIXES: {{^}}typedef void (*LegacyFn)(const CUtensorMap map, int *out);

int run(const CUtensorMap &h, int *out, bool by_rows) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  PassFn pass = by_rows ? rows : cols;
  pass<<<1, 1>>>(d, out);
  LegacyFn legacy;
  legacy = tiles;
  legacy<<<1, 1>>>(d, out);
  decltype(&diag) same = diag;
  same<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  pass<<<1, 1>>>(h, out);
// CHECK-FIXES: {{^}}  legacy<<<1, 1>>>(h, out);
// CHECK-FIXES: {{^}}  decltype(&diag) same = diag;
// CHECK-FIXES: {{^}}  same<<<1, 1>>>(h, out);
// CHECK-FIXES-NOT: cudaMalloc(&d
