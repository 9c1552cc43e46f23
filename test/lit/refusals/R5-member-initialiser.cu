// R5 through a struct field that starts as another device pointer (tma-105,
// issue 41): `Holder s = {d};` makes `s.p` another name for `d`'s memory.
// A copy through `s.p` and then one through `d` leave what `d` copied; a
// launch of `s.p` must not pass what the copy through `s.p` read. The H1
// flow counts the field's initialiser as memory it did not allocate (as a
// variable's), and the storage rule's index records it as a definition of
// the field from `d`, so the two join one group: `d` becomes the host
// copy, and both copies assignments to it. An earlier version passed `h`
// by value (the semantic fuzzer, seed 2), and a retarget of the field
// alone wrote through `s.p` while it still held device memory.
// The twin: a field (of another struct: the rule takes a field of every
// object as one storage) that starts null and gets its own buffer. Where
// the H1 flow passes the host map through such a field by value, the copy
// through the field stays: a kernel that keeps `d` by reference reads what
// it wrote (an earlier version removed it).
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void through_field(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void own_buffer(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }

__global__ void read_by_field(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[0]; }
__global__ void read_and_mark(CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[2]; map->opaque[1] = 5; }
static void launch_by_field(const CUtensorMap *m, unsigned long long *out) { read_by_field<<<1, 1>>>(m, out); }

struct Holder {
  CUtensorMap *p;
};
struct Keeper {
  CUtensorMap *p;
};
struct Owner {
  CUtensorMap *p;
};

void field_starts_as_buffer(int *out) {
  CUtensorMap h{}, o{};
  o.opaque[0] = 5;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  Holder s = {d};
  cudaMemcpy(s.p, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d, &o, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  through_field<<<1, 1>>>(s.p, out);
  cudaFree(d);
}
// CHECK: warning: kernel 'through_field' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void field_starts_as_buffer(
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  Holder s = {d};
// CHECK-FIXES-NEXT: {{^}}  *s.p = h;
// CHECK-FIXES-NEXT: {{^}}  *d = o;
// CHECK-FIXES-NEXT: {{^}}  through_field<<<1, 1>>>(*s.p, out);
// CHECK-FIXES-NEXT: {{^}}  delete d;

void field_own_buffer(int *out) {
  CUtensorMap h{};
  Owner t = {};
  cudaMalloc(&t.p, sizeof(CUtensorMap));
  cudaMemcpy(t.p, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  own_buffer<<<1, 1>>>(t.p, out);
  cudaFree(t.p);
}
// CHECK: warning: kernel 'own_buffer' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void field_own_buffer(
// CHECK-FIXES: {{^}}  own_buffer<<<1, 1>>>(h, out);

void field_copy_read_by_kept_kernel(const CUtensorMap &src, unsigned long long *out) {
  CUtensorMap h = src;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  Keeper s = {d};
  cudaMemcpy(s.p, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_by_field(s.p, out);
  read_and_mark<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// A second device copy launched through the same launcher.
void own_copy_same_launcher(const CUtensorMap &src, unsigned long long *out) {
  CUtensorMap h = src;
  CUtensorMap *e;
  cudaMalloc(&e, sizeof(CUtensorMap));
  cudaMemcpy(e, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_by_field(e, out);
  cudaDeviceSynchronize();
  cudaFree(e);
}
// CHECK: warning: kernel 'read_by_field' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: note: device buffer 's.p' is kept: it has another use here
// CHECK-FIXES-LABEL: void field_copy_read_by_kept_kernel(
// CHECK-FIXES: {{^}}  Keeper s = {d};
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(s.p, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  launch_by_field(h, out);
// CHECK-FIXES-NEXT: {{^}}  read_and_mark<<<1, 1>>>(d, out);
