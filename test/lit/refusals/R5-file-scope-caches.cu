// H8 refusals at file scope (tma-105): a file-scope cache is followed only
// when no other translation unit can reach it (static, or in an anonymous
// namespace) and every function that uses it only assigns it from the upload
// helper, tests it for null or launches with it; it refuses a cache freed
// elsewhere or pointed at something else.
//
// The storage rule takes the two caches this tool's H8 flow refuses: a cache
// freed elsewhere and one pointed at another pointer (here one that is never
// set, so null) hold nothing but device copies it classifies, so they are
// retargeted to host memory (the launches pass *cache). The cache with
// external linkage stays: another translation unit may use it.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void k_freed(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void k_repointed(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void k_extern(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
// CHECK: warning: kernel 'k_freed' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: note: 'freed_cache' now holds the descriptor in host memory
// CHECK: warning: kernel 'k_repointed' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: note: 'repointed_cache' now holds the descriptor in host memory
// CHECK: warning: descriptor 'map' of kernel 'k_extern' is left by reference: the file-scope cache 'extern_cache' has external linkage: another translation unit may use it through 'extern' (make it static, or put it in an anonymous namespace; following it across the whole program is not supported) [tma-105]
// CHECK: note: also: the storage rule cannot retarget it: 'extern_cache' has external linkage{{.*}}[storage.unclassified-use]
// CHECK: 2 kernels rewritten, 1 refused
// CHECK-FIXES: {{^}}  k_freed<<<1, 1>>>(*freed_cache);
// CHECK-FIXES: {{^}}  delete freed_cache;
// CHECK-FIXES: {{^}}  k_repointed<<<1, 1>>>(*repointed_cache);
// CHECK-FIXES: {{^}}  k_extern<<<1, 1>>>(extern_cache);

// One helper per case: a refusal keeps every caller of its helper.
template <int Rows>
static CUtensorMap *upload_freed() {
  CUtensorMap host_map{};
  CUtensorMap *dev_map = nullptr;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev_map;
}
static CUtensorMap *upload_repointed() {
  CUtensorMap host_map{};
  CUtensorMap *dev_map = nullptr;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev_map;
}
static CUtensorMap *upload_extern() {
  CUtensorMap host_map{};
  CUtensorMap *dev_map = nullptr;
  cudaMalloc(&dev_map, sizeof(CUtensorMap));
  cudaMemcpy(dev_map, &host_map, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  return dev_map;
}

static CUtensorMap *freed_cache = nullptr;
namespace {
CUtensorMap *repointed_cache;
CUtensorMap *spare_map;
} // namespace
// Non-static: another .cu may declare `extern CUtensorMap *extern_cache;`.
CUtensorMap *extern_cache = nullptr;

void run_freed() {
  if (!freed_cache)
    freed_cache = upload_freed<64>();
  k_freed<<<1, 1>>>(freed_cache);
}
// Frees the device copy the launches above pass.
void release_freed() {
  cudaFree(freed_cache);
  freed_cache = nullptr;
}

void run_repointed() {
  if (repointed_cache == nullptr)
    repointed_cache = upload_repointed();
  k_repointed<<<1, 1>>>(repointed_cache);
}
// Points the cache at another device copy.
void swap_repointed() { repointed_cache = spare_map; }

void run_extern() {
  if (!extern_cache)
    extern_cache = upload_extern();
  k_extern<<<1, 1>>>(extern_cache);
}
