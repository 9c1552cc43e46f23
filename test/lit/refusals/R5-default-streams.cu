// The twin of R5-other-streams.cu: work only on the default stream (no
// stream, 0, cudaStreamLegacy, cudaStreamPerThread, a launch
// configuration left zeroed) runs in the order the host writes it, since a
// synchronous copy waits for it. A device copy copied into again after a
// launch is no reason to refuse here: by value as before.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void on_default(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
__global__ void from_lambda(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }

static void encode(CUtensorMap *m, int v) { m->opaque[0] = v; }

void default_streams(int *out) {
  CUtensorMap h{}, other{};
  encode(&other, 5);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  on_default<<<1, 1>>>(d, out);
  on_default<<<1, 1, 0, 0>>>(d, out);
  on_default<<<1, 1, 0, cudaStreamLegacy>>>(d, out);
  on_default<<<1, 1, 0, cudaStreamPerThread>>>(d, out);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(1);
  cudaLaunchKernelEx(&cfg, on_default, d, out);
  cudaMemcpyAsync(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice, 0);
  on_default<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK: warning: kernel 'on_default' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES: {{^}}  on_default<<<1, 1>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  on_default<<<1, 1, 0, 0>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  on_default<<<1, 1, 0, cudaStreamLegacy>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  on_default<<<1, 1, 0, cudaStreamPerThread>>>(h, out);
// CHECK-FIXES: {{^}}  cudaLaunchKernelEx(&cfg, on_default, h, out);
// CHECK-FIXES-NEXT: {{^}}  on_default<<<1, 1>>>(other, out);

// A lambda is `__host__ __device__`: on the device side its launch is
// cudaLaunchDevice's, whose stream is a later argument (not the block
// size). The lambda captures the device copy, so the storage rule takes it:
// the snapshot.
void launch_in_lambda(int *out) {
  CUtensorMap h{}, other{};
  encode(&other, 5);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  auto launch = [&] { from_lambda<<<1, 1>>>(d, out); };
  launch();
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  from_lambda<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK: warning: kernel 'from_lambda' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void launch_in_lambda(
// CHECK-FIXES: {{^}}  auto launch = [&] { from_lambda<<<1, 1>>>(*d, out); };
// CHECK-FIXES-NEXT: {{^}}  launch();
// CHECK-FIXES-NEXT: {{^}}  *d = other;
// CHECK-FIXES-NEXT: {{^}}  from_lambda<<<1, 1>>>(*d, out);
