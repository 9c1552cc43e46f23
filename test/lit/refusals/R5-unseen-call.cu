// R5, the device copy handed to code the tool does not follow (tma-105):
// the pointer passed through a function pointer, or to a function whose
// body is not in the unit, before the copy. Nothing runs between the copy
// and the launch, but that code may have kept the pointer and left work
// that writes the device copy later (a memset on a stream, say): under the
// closed world such a call is a write at any time after it, so no launch
// after it passes the host map by value, and the file is left as it is.
// A call made after the launch keeps the device copy and lets the launch
// pass the value (patterns/H13-value-form.cu, cleared_after_use).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void after_hook(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void after_extern(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[1]; }

static void clear_word(CUtensorMap *m, int w) { cudaMemset(&m->opaque[w], 0, 8); }
static void (*volatile clear_hook)(CUtensorMap *, int) = clear_word;
// Defined in another file.
void register_map(CUtensorMap *m);

void hooked_before_the_copy(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  clear_hook(d, 3);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  after_hook<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_hook' is left by reference: 'd' is passed here to an indirect call, which the tool does not follow: it may write the device copy at any time after it, after the copy the launch reads too [tma-105]

void registered_before_the_copy(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  register_map(d);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  after_extern<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_extern' is left by reference: 'd' is passed here to 'register_map' (its body is not seen), which the tool does not follow: it may write the device copy at any time after it, after the copy the launch reads too [tma-105]

// The same call given a reference bound to the pointer variable.
__global__ void after_reference(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[2]; }

void hooked_through_a_reference(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap *&q = d;
  clear_hook(q, 3);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  after_reference<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_reference' is left by reference: 'q' is passed here to an indirect call, which the tool does not follow: it may write the device copy at any time after it, after the copy the launch reads too [tma-105]

// A second pointer that starts as the first: the launch reads what a copy
// through the second wrote, after the call given the first, which reaches
// the same memory.
__global__ void after_other_name(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[3]; }

void hooked_under_the_other_name(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap *e = d;
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  clear_hook(d, 3);
  cudaMemcpy(e, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  after_other_name<<<1, 1>>>(e, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_other_name' is left by reference: 'd' is passed here to an indirect call, which the tool does not follow: it may write the device copy at any time after it, after the copy the launch reads too [tma-105]
// CHECK: 0 kernels rewritten, 4 refused
