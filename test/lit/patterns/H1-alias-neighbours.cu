// H1 next to the hazards of refusals/R5-aliases.cu, each made safe: a
// reference bound only after the launch, a [&] lambda that is not called
// between the copy and the launch, an escaped address of another object, a
// device alias handed only to kernels that are themselves rewritten, a
// pointer-to-const alias, and a lambda called only after the launch. The
// object proof sees each of them and still rewrites.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void after_reference(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void never_called_lambda(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void other_escape(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void rewritten_alias_a(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void rewritten_alias_b(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void const_alias(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void lambda_after(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }

static void encode_tile(CUtensorMap *m, int tile) { m->opaque[0] = tile; }
static void read_tile(const CUtensorMap *m, int *tile) { *tile = int(m->opaque[0]); }

static CUtensorMap *g_watched;
static void watch(CUtensorMap *m) { g_watched = m; }
static void refresh(int tile) { g_watched->opaque[0] = tile; }

int reference_after_launch(int *out) {
  CUtensorMap map{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  after_reference<<<1, 1>>>(d, out);
  CUtensorMap &current = map;
  encode_tile(&current, 2);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  after_reference<<<1, 1>>>(map, out);

int lambda_not_called_between(int *out) {
  CUtensorMap map{};
  auto retile = [&] { encode_tile(&map, 3); };
  retile();
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  never_called_lambda<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  never_called_lambda<<<1, 1>>>(map, out);

int another_object_escaped(int *out) {
  CUtensorMap map{}, spare{};
  watch(&spare);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  refresh(4);
  other_escape<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  other_escape<<<1, 1>>>(map, out);

int alias_to_rewritten_kernels(int *out) {
  CUtensorMap map{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  CUtensorMap *alias = d;
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  rewritten_alias_a<<<1, 1>>>(alias, out);
  rewritten_alias_b<<<1, 1>>>(d, out);
  cudaFree(d);
  return 0;
}
// The alias and the copy are one storage group (the storage rule): it is
// retargeted whole, so no device copy is left behind.
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *alias = d;
// CHECK-FIXES-NEXT: {{^}}  *d = map;
// CHECK-FIXES-NEXT: {{^}}  rewritten_alias_a<<<1, 1>>>(*alias, out);
// CHECK-FIXES-NEXT: {{^}}  rewritten_alias_b<<<1, 1>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  delete d;

int pointer_to_const(int *out) {
  CUtensorMap map{};
  const CUtensorMap *view = &map;
  int tile = 0;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  read_tile(view, &tile);
  const_alias<<<1, 1>>>(d, out);
  cudaFree(d);
  return tile;
}
// CHECK-FIXES: {{^}}  const_alias<<<1, 1>>>(map, out);

int lambda_called_after(int *out) {
  CUtensorMap map{};
  auto retile = [&] { encode_tile(&map, 5); };
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  lambda_after<<<1, 1>>>(d, out);
  retile();
  cudaFree(d);
  return 0;
}
// CHECK-FIXES: {{^}}  lambda_after<<<1, 1>>>(map, out);

int main() {
  int *out;
  cudaMalloc(&out, sizeof(int));
  reference_after_launch(out);
  lambda_not_called_between(out);
  another_object_escaped(out);
  alias_to_rewritten_kernels(out);
  pointer_to_const(out);
  lambda_called_after(out);
  return 0;
}
// CHECK-MESSAGES: 7 kernels rewritten, 0 refused
