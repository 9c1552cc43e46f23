// R1 (tma-101): a descriptor modified on the device must stay in global
// memory: tensormap.replace, a release fence, stores, non-const uses.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda/ptx>
#include <cstdint>

__global__ void retarget(CUtensorMap *map, const float *base) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
               :: "l"(map), "l"(reinterpret_cast<uint64_t>(base)) : "memory");
}
// CHECK: :[[@LINE-4]]:{{[0-9]+}}: warning: descriptor 'map' of kernel 'retarget' is left by reference: 'map' is modified by 'tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1' [tma-101]
// CHECK-NEXT: :[[@LINE-4]]:3: note: blocked here

__global__ void released(CUtensorMap *map) {
  cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_release, cuda::ptx::scope_gpu);
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
  asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
               :: "l"(map), "r"(0u) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'released' is left by reference: 'map' is modified by 'tensormap.cp_fenceproxy{{.*}}' [tma-101]

__global__ void stored(CUtensorMap *map) { map->opaque[0] = 0; }
// CHECK: warning: descriptor 'map' of kernel 'stored' is left by reference: the descriptor is written ('map->opaque[0] = 0') [tma-101]

__device__ void patch(CUtensorMap *m) { m->opaque[1] ^= 1; }
__global__ void via_helper(CUtensorMap *map) { patch(map); }
// CHECK: warning: descriptor 'map' of kernel 'via_helper' is left by reference: 'map' is passed to 'patch' as 'CUtensorMap *', a pointer to non-const [tma-101]
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: note: in 'patch': the descriptor is written ('m->opaque[1] ^= 1')

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  float *base;
  cudaMalloc(&base, 4096);
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  retarget<<<1, 1>>>(d, base);
  released<<<1, 1>>>(d);
  stored<<<1, 1>>>(d);
  via_helper<<<1, 1>>>(d);
  cudaFree(d);
  return 0;
}
// CHECK: tma-modernize: 0 kernels rewritten, 4 refused (descriptors: 0 by value, 4 refused, tma-101: 4); 0 launches changed
