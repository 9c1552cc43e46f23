// R4, the unsafe twins of patterns/K10-pointer-types.cu (tma-104): an alias
// of the kernel's type that also types something other than a pointer that
// launches the kernels (a helper's parameter here) cannot change with them,
// so the kernels it may hold stay by reference, the refusal naming that use;
// and every kernel a pointer of the alias holds stays with them, even one
// launched through another pointer that alone could change.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void rows(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
__global__ void cols(const CUtensorMap *map, int *out) { out[1] = int(map->opaque[1]); }
// CHECK-DAG: warning: descriptor 'map' of kernel 'rows' is left by reference: 'rows' is launched through the function pointer 'pass', and its type is the alias 'PassFn', which is also used here other than as the type of a pointer that launches these kernels [tma-104]
// CHECK-DAG: warning: descriptor 'map' of kernel 'cols' is left by reference

using PassFn = void (*)(const CUtensorMap *, int *);

static void announce(PassFn fn) { (void)fn; }

int run(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  PassFn pass = rows;
  pass<<<1, 1>>>(d, out);
  PassFn other = cols;
  other<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
