// H8 refusals at file scope (tma-105): a file-scope cache is followed only
// when no other translation unit can reach it (static, or in an anonymous
// namespace) and every function that uses it only assigns it from the upload
// helper, tests it for null or launches with it. Freeing it elsewhere, or
// pointing it at something else, keeps every launch of the helper's result
// by reference.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void k_freed(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void k_repointed(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void k_extern(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
// CHECK: warning: descriptor 'map' of kernel 'k_freed' is left by reference: the cache 'freed_cache', which holds the result of 'upload_freed', is used here other than in a launch or a null test [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'k_repointed' is left by reference: the cache 'repointed_cache' is assigned here other than from 'upload_repointed' [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'k_extern' is left by reference: the file-scope cache 'extern_cache' has external linkage: another translation unit may use it through 'extern' (make it static, or put it in an anonymous namespace; following it across the whole program is not supported) [tma-105]
// CHECK: 0 kernels rewritten, 3 refused

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
