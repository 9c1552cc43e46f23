// H8 at file scope: device copies cached in `static` (or anonymous-namespace)
// pointers, rebuilt by a template upload helper when the size changes, and
// read by several launcher functions. As for a static local cache, the helper
// returns the descriptor by value, the cache keeps it on the host
// (`c = new CUtensorMap(upload(...))`) and every launch passes `*c`. Every
// function of the file that names a cache is checked: it only assigns it
// from the helper, tests it for null, or launches with it.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void scale(const CUtensorMap *src_map, float *dst) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(src_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(src_map) : "memory");
  dst[threadIdx.x] = 2.0f;
}
// CHECK-MESSAGES: warning: kernel 'scale' reads descriptor 'src_map' through global memory; now passed by value [tma-001]

template <int Rows>
static CUtensorMap *make_map(const float *base, int n) {
  CUtensorMap host_map{};
  (void)base, (void)n; // cuTensorMapEncodeTiled(&host_map, ...) in real code
  CUtensorMap *dev_map = nullptr;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev_map;
}
// CHECK-FIXES: {{^}}static CUtensorMap make_map(const float *base, int n) {
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap host_map{};
// CHECK-FIXES-NEXT: {{^}}  (void)base, (void)n; // cuTensorMapEncodeTiled(&host_map, ...) in real code
// CHECK-FIXES-NEXT: {{^}}  return host_map;
// CHECK-FIXES-NEXT: {{^}}}

// Rebuilt when the problem size changes.
static CUtensorMap *cached_small = nullptr;
namespace {
CUtensorMap *cached_large;
}
static int cached_n = 0;

void scale_small(const float *src, float *dst, int n) {
  if (!cached_small || n != cached_n) {
    cached_small = make_map<64>(src, n);
    cached_n = n;
  }
  scale<<<1, 64>>>(cached_small, dst);
}
// CHECK-FIXES: {{^}}    cached_small = new CUtensorMap(make_map<64>(src, n));
// CHECK-FIXES: {{^}}  scale<<<1, 64>>>(*cached_small, dst);

void scale_large(const float *src, float *dst, int n) {
  if (cached_large == nullptr)
    cached_large = make_map<128>(src, n);
  scale<<<2, 128>>>(cached_large, dst);
}
// CHECK-FIXES: {{^}}    cached_large = new CUtensorMap(make_map<128>(src, n));
// CHECK-FIXES-NEXT: {{^}}  scale<<<2, 128>>>(*cached_large, dst);

// Another launcher reads the cache the first one filled, launching through
// a function pointer (K4).
void scale_again(float *dst) {
  auto *launch = scale;
  if (cached_small)
    launch<<<1, 64>>>(cached_small, dst);
}
// CHECK-FIXES: {{^}}    launch<<<1, 64>>>(*cached_small, dst);
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 1 by value, 0 refused); 3 launches changed, 1 copy removed (1 alloc, 0 free), 1 fence removed
