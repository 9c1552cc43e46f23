// H6 with a template upload helper, in a namespace of an included header:
// the template's text is edited once for all its instantiations (it returns
// the CUtensorMap by value), and the callers of every instantiation keep the
// descriptor by value; their frees go.
// RUN: %prep
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cp %S/Inputs/h6_tile_maps.h %t.dir/ && cp %t.cu %t.dir/h6t.cu
// RUN: cd %t.dir && %tma --no-database h6t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.dir/h6t.cu
// RUN: %FileCheck %s --check-prefix=HEADER --input-file=%t.dir/h6_tile_maps.h
// RUN: cd %t.dir && %nvcc-compile h6t.cu
// RUN: cd %t.dir && %tma --no-database --check h6t.cu
#include "h6_tile_maps.h"

__global__ void tile_sum(const CUtensorMap *in_map, const CUtensorMap *out_map, float *acc) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(in_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(in_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(out_map) : "memory");
  acc[threadIdx.x] = 0.0f;
}
// CHECK-MESSAGES: warning: kernel 'tile_sum' reads descriptor 'in_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'tile_sum' reads descriptor 'out_map' through global memory; now passed by value [tma-001]

// Three instantiations over two callers.
void run_small(const float *in, const float *out, float *acc) {
  CUtensorMap *in_map = tiles::upload_tile_map<64, 32>(in, 4);
  CUtensorMap *out_map = tiles::upload_tile_map<64, 64>(out, 4);
  tile_sum<<<4, 128>>>(in_map, out_map, acc);
  cudaFree(in_map);
  cudaFree(out_map);
}
// CHECK-FIXES: {{^}}  CUtensorMap in_map = tiles::upload_tile_map<64, 32>(in, 4);
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap out_map = tiles::upload_tile_map<64, 64>(out, 4);
// CHECK-FIXES-NEXT: {{^}}  tile_sum<<<4, 128>>>(in_map, out_map, acc);
// CHECK-FIXES-NEXT: {{^}}}

void run_large(const float *in, const float *out, float *acc) {
  CUtensorMap *in_map = tiles::upload_tile_map<128, 32>(in, 8);
  CUtensorMap *out_map = tiles::upload_tile_map<64, 64>(out, 8);
  tile_sum<<<8, 128>>>(in_map, out_map, acc);
  cudaFree(in_map);
  cudaFree(out_map);
}
// CHECK-FIXES: {{^}}  CUtensorMap in_map = tiles::upload_tile_map<128, 32>(in, 8);
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap out_map = tiles::upload_tile_map<64, 64>(out, 8);
// CHECK-FIXES-NEXT: {{^}}  tile_sum<<<8, 128>>>(in_map, out_map, acc);
// CHECK-FIXES-NEXT: {{^}}}
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused (descriptors: 2 by value, 0 refused); 4 launches changed, 1 copy removed (1 alloc, 4 free), 1 fence removed

// HEADER: {{^}}__host__ static inline CUtensorMap upload_tile_map(const float *base, int tiles) {
// HEADER-NEXT: {{^}}  CUtensorMap host_map{};
// HEADER-NEXT: {{^}}  (void)base, (void)tiles;
// HEADER-NEXT: {{^}}  return host_map;
// HEADER-NEXT: {{^}}}
