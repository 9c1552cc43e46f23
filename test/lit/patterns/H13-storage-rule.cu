// H13, the storage rule: a device copy kept in storage that no flow of its
// own describes (a class member set in the constructor and launched in
// run(), a file-scope cache freed and rebuilt, a static pointer in a host
// template re-uploaded only when memcmp sees a change, a copy launched from
// [&] and [=] lambdas, a pointer that is logged, a caching helper called in
// the argument list, an out-parameter helper, a struct field filled by a
// helper, a copy from a std::unique_ptr's map changed after it) is retargeted: it keeps its shape and points to host memory
// (cudaMalloc -> new, cudaMemcpy -> assignment, cudaFree -> delete) and the
// launch passes *p. Unsafe twins: refusals/R12-storage-rule.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <memory>

__global__ void member_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void rebuilt_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
__global__ void memcmp_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[2] = 1; }
__global__ void lambda_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[3] = 1; }
__global__ void logged_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[4] = 1; }
__global__ void cached_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[5] = 1; }
__global__ void out_param_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[6] = 1; }
__global__ void field_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[7] = 1; }
__global__ void owned_source_kernel(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[8] = 1; }

class TileRunner {
public:
  explicit TileRunner(const CUtensorMap &h) {
    cudaMalloc(&device_map_, sizeof(CUtensorMap));
    cudaMemcpy(device_map_, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  }
  ~TileRunner() { cudaFree(device_map_); }
  void run(int *out) { member_kernel<<<1, 1>>>(device_map_, out); }

private:
  CUtensorMap *device_map_ = nullptr;
};
// CHECK-FIXES: {{^}}    device_map_ = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}    *device_map_ = h;
// CHECK-FIXES: {{^}}  ~TileRunner() { delete device_map_; }
// CHECK-FIXES-NEXT: {{^}}  void run(int *out) { member_kernel<<<1, 1>>>(*device_map_, out); }

static CUtensorMap *g_shape_map = nullptr;
static int g_shape_rows = 0;
static void prepare_shape(int rows) {
  if (g_shape_map && g_shape_rows == rows)
    return;
  if (g_shape_map)
    cudaFree(g_shape_map);
  CUtensorMap h{};
  h.opaque[0] = rows;
  cudaMalloc(&g_shape_map, sizeof(CUtensorMap));
  cudaMemcpy(g_shape_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  g_shape_rows = rows;
}
// CHECK-FIXES: {{^}}    delete g_shape_map;
// CHECK-FIXES: {{^}}  g_shape_map = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *g_shape_map = h;

template <int Rows> void launch_shape(int *out) {
  prepare_shape(Rows);
  rebuilt_kernel<<<1, 1>>>(g_shape_map, out);
}
// CHECK-FIXES: {{^}}  rebuilt_kernel<<<1, 1>>>(*g_shape_map, out);

template <int Grid> void launch_if_changed(const CUtensorMap &h, int *out) {
  static CUtensorMap *d = nullptr;
  static CUtensorMap last;
  if (!d)
    cudaMalloc(&d, sizeof(CUtensorMap));
  if (std::memcmp(&last, &h, sizeof(CUtensorMap)) != 0) {
    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    last = h;
  }
  memcmp_kernel<<<Grid, 1>>>(d, out);
}
// CHECK-FIXES: {{^}}    d = new CUtensorMap;
// CHECK-FIXES: {{^}}    *d = h;
// CHECK-FIXES: {{^}}  memcmp_kernel<<<Grid, 1>>>(*d, out);

template <class F> static float time_twice(F f) {
  f();
  f();
  return 0.f;
}

static void launch_from_lambdas(const CUtensorMap &h, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  time_twice([&] { lambda_kernel<<<1, 1>>>(d, out); });
  time_twice([=] { lambda_kernel<<<1, 1>>>(d, out); });
  cudaFree(d);
}
// CHECK-FIXES: {{^}}  time_twice([&] { lambda_kernel<<<1, 1>>>(*d, out); });
// CHECK-FIXES-NEXT: {{^}}  time_twice([=] { lambda_kernel<<<1, 1>>>(*d, out); });

static cudaError_t launch_logged(const CUtensorMap &h, int *out, cudaStream_t stream) {
  CUtensorMap *d;
  cudaError_t err = cudaMalloc(&d, sizeof(CUtensorMap));
  if (err != cudaSuccess)
    return err;
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream);
  std::fprintf(stderr, "descriptor at %p\n", (void *)d);
  logged_kernel<<<1, 1, 0, stream>>>(d, out);
  err = cudaGetLastError();
  cudaFree(d);
  return err;
}
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  cudaError_t err = cudaSuccess;
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  std::fprintf(stderr, "descriptor at %p\n", (void *)d);
// CHECK-FIXES-NEXT: {{^}}  logged_kernel<<<1, 1, 0, stream>>>(*d, out);

static CUtensorMap *cached_upload(const CUtensorMap &h) {
  static CUtensorMap *cache = nullptr;
  if (!cache) {
    cudaMalloc(&cache, sizeof(CUtensorMap));
    cudaMemcpy(cache, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  }
  return cache;
}
// CHECK-FIXES: {{^}}    cache = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}    *cache = h;

static void upload_into(const CUtensorMap &h, CUtensorMap *&slot) {
  cudaMalloc(&slot, sizeof(CUtensorMap));
  cudaMemcpy(slot, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
}
// CHECK-FIXES: {{^}}  slot = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *slot = h;

struct TileMaps {
  CUtensorMap host;
  CUtensorMap *device;
};
static CUtensorMap *upload_copy(const CUtensorMap &h) {
  CUtensorMap *p = nullptr;
  if (cudaMalloc(&p, sizeof(CUtensorMap)) != cudaSuccess)
    return nullptr;
  cudaMemcpy(p, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return p;
}
// CHECK-FIXES: {{^}}  CUtensorMap *p = nullptr;
// CHECK-FIXES-NEXT: {{^}}  p = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *p = h;

int main() {
  int *out;
  cudaMalloc(&out, 8 * sizeof(int));
  CUtensorMap h{};
  TileRunner runner(h);
  runner.run(out);
  launch_shape<64>(out);
  launch_shape<128>(out);
  launch_if_changed<1>(h, out);
  launch_if_changed<2>(h, out);
  launch_from_lambdas(h, out);
  launch_logged(h, out, 0);
  cached_kernel<<<1, 1>>>(cached_upload(h), out);
  CUtensorMap *slot = nullptr;
  upload_into(h, slot);
  out_param_kernel<<<1, 1>>>(slot, out);
  cudaFree(slot);
  TileMaps maps{};
  maps.device = upload_copy(maps.host);
  field_kernel<<<1, 1>>>(maps.device, out);
  cudaFree(maps.device);
  return 0;
}
// CHECK-FIXES: {{^}}  cached_kernel<<<1, 1>>>(*cached_upload(h), out);
// CHECK-FIXES: {{^}}  out_param_kernel<<<1, 1>>>(*slot, out);
// CHECK-FIXES-NEXT: {{^}}  delete slot;
// CHECK-FIXES: {{^}}  field_kernel<<<1, 1>>>(*maps.device, out);
// CHECK-FIXES-NEXT: {{^}}  delete maps.device;
// The source is a postfix expression: dereferenced as a reviewer writes it,
// without parentheses.
void from_an_owner(std::unique_ptr<CUtensorMap> &owner, int *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, owner.get(), sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  owner->opaque[0] = 1; // changed after the copy: the launch reads the copy
  owned_source_kernel<<<1, 1>>>(d, out);
  cudaFree(d);
}
// CHECK-FIXES: {{^}}  d = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *d = *owner.get();
// CHECK-FIXES-NEXT: {{^}}  owner->opaque[0] = 1; // changed after the copy: the launch reads the copy
// CHECK-FIXES-NEXT: {{^}}  owned_source_kernel<<<1, 1>>>(*d, out);
// CHECK-MESSAGES-DAG: warning: kernel 'member_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'rebuilt_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'memcmp_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'lambda_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'logged_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: note: 'd' is printed here: the address it prints is now a host address
// CHECK-MESSAGES-DAG: warning: kernel 'cached_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'out_param_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'field_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'owned_source_kernel' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 9 kernels rewritten, 0 refused
