// R5 through other names (tma-105): the host descriptor, or its device copy,
// changes between the copy and the launch through something that does not
// spell its name: a reference bound before the copy, a [&] lambda called in
// between, an address that escaped to a function that keeps it, an alias of
// the device pointer handed to a kernel that rewrites the map, a pointer to
// the pointer variable. Each would make the by-value launch read another
// descriptor than the copy the original reads, so none passes it. The
// safe neighbours are patterns/H1-alias-neighbours.cu.
//
// Where the host descriptor changes after the copy (a reference, a pointer
// alias, a [&] lambda, an escaped address, a reference parameter), passing
// it by value would be wrong, and the H1 flow refuses; the storage rule
// rewrites them rightly instead: the device copy's storage is retargeted to
// host memory, the cudaMemcpy becomes an assignment made where the copy was
// (before the change), and the launch passes *d, which still holds what was
// copied. The device-side hazards (an alias or a pointer to the pointer
// reaching a kernel that rewrites the map) stay refused.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void via_reference(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void via_pointer_alias(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void via_lambda(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void via_escape(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void via_device_alias(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void via_slot(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void via_helper_reference(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }

// Moves the tile the map points at, on the device.
__global__ void retarget_on_device(CUtensorMap *map, unsigned long long base) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(map),
               "l"(base)
               : "memory");
}
// (its own refusal is reported after the kernels above: tma-101)

static void encode_tile(CUtensorMap *m, int tile) { m->opaque[0] = tile; }

static CUtensorMap *g_watched;
static void watch(CUtensorMap *m) { g_watched = m; }
static void refresh(int tile) { g_watched->opaque[0] = tile; }

int reference_bound_before(int *out) {
  CUtensorMap map{};
  CUtensorMap &current = map;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  encode_tile(&current, 2);
  via_reference<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK: warning: kernel 'via_reference' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NEXT: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  encode_tile(&current, 2);
// CHECK-FIXES-NEXT: {{^}}  via_reference<<<1, 1>>>(*d, out);

int reference_to_reference(int *out) {
  CUtensorMap map{};
  CUtensorMap &first = map;
  CUtensorMap *second = &first;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  second->opaque[1] = 5;
  via_pointer_alias<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK: warning: kernel 'via_pointer_alias' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NEXT: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  second->opaque[1] = 5;
// CHECK-FIXES-NEXT: {{^}}  via_pointer_alias<<<1, 1>>>(*d, out);

int lambda_called_between(int *out) {
  CUtensorMap map{};
  auto retile = [&] { encode_tile(&map, 3); };
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  retile();
  via_lambda<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK: warning: kernel 'via_lambda' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NEXT: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  retile();
// CHECK-FIXES-NEXT: {{^}}  via_lambda<<<1, 1>>>(*d, out);

int escaped_before_copy(int *out) {
  CUtensorMap map{};
  watch(&map);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  refresh(4);
  via_escape<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK: warning: kernel 'via_escape' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NEXT: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  refresh(4);
// CHECK-FIXES-NEXT: {{^}}  via_escape<<<1, 1>>>(*d, out);

int device_alias_to_writer(int *out) {
  CUtensorMap map{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap *alias = d;
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  retarget_on_device<<<1, 1>>>(alias, 0ull);
  via_device_alias<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// One storage, one decision: the other kernel fed by the copy stays by
// reference, so this one does too, and the message names it.
// CHECK: warning: descriptor 'map' of kernel 'via_device_alias' is left by reference: the device copy passed here is also passed to 'retarget_on_device', whose descriptor stays by reference and may be changed on the device [tma-105]
// CHECK-NEXT: note: blocked here
// CHECK-NEXT: note: 'retarget_on_device' is launched with it here

int pointer_to_pointer(int *out) {
  CUtensorMap map{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap **slot = &d;
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  retarget_on_device<<<1, 1>>>(*slot, 0ull);
  via_slot<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK: warning: descriptor 'map' of kernel 'via_slot' is left by reference: the device copy in 'd' is also reachable through a pointer to it, taken here, and a kernel or code of the user's runs between the copy and the launch that may change it that way [tma-105]
// CHECK-NEXT: note: blocked here
// CHECK-NEXT: note: it runs here, between the copy and the launch

// A reference parameter names the caller's descriptor: code of the user's
// that may write anything runs between the copy and the launch.
static int g_tile;
static void bump_tile() { ++g_tile; }
int reference_parameter(CUtensorMap &map, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  bump_tile();
  via_helper_reference<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK: warning: kernel 'via_helper_reference' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-NEXT: note: 'd' now holds the descriptor in host memory
// CHECK-FIXES: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  bump_tile();
// CHECK-FIXES-NEXT: {{^}}  via_helper_reference<<<1, 1>>>(*d, out);

int main() {
  int *out;
  cudaMalloc(&out, sizeof(int));
  CUtensorMap shared{};
  reference_bound_before(out);
  reference_to_reference(out);
  lambda_called_between(out);
  escaped_before_copy(out);
  device_alias_to_writer(out);
  pointer_to_pointer(out);
  reference_parameter(shared, out);
  return 0;
}
// CHECK: warning: descriptor 'map' of kernel 'retarget_on_device' is left by reference: {{.*}}tensormap.replace{{.*}} [tma-101]
// CHECK: 5 kernels rewritten, 3 refused
