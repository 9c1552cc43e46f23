// E5: more clang errors than clang's default limit of 20, all in code nvcc
// accepts and none in descriptor code: a reduction kernel that declares a
// `__shared__ cuda::barrier` per stage (clang: "initialization is not
// supported for __shared__ variables", 24 times). Every error must be seen
// (the passes parse with -ferror-limit=0): a "too many errors emitted" stop
// would leave the file unparsed and the descriptor refused. The descriptor
// kernel is rewritten; the same 24 errors remain afterwards.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

using stage_barrier = cuda::barrier<cuda::thread_scope_block>;

// nvcc only warns that a __shared__ object has a constructor; it compiles.
__global__ void staged_sum(const float *in, float *out) {
  __shared__ stage_barrier b00, b01, b02, b03, b04, b05, b06, b07;
  __shared__ stage_barrier b08, b09, b10, b11, b12, b13, b14, b15;
  __shared__ stage_barrier b16, b17, b18, b19, b20, b21, b22, b23;
  if (threadIdx.x == 0) {
    init(&b00, blockDim.x);
    init(&b23, blockDim.x);
  }
  __syncthreads();
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
}

__global__ void touch_tiles(const CUtensorMap *tiles, int *flag) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(tiles) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(tiles) : "memory");
  flag[0] = 1;
}
// CHECK-MESSAGES: :[[@LINE-5]]:{{[0-9]+}}: warning: kernel 'touch_tiles' reads descriptor 'tiles' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 1 kernel rewritten{{.*}}; 24 pre-existing clang errors left untouched
// CHECK-FIXES: {{^}}__global__ void touch_tiles(const __grid_constant__ CUtensorMap tiles, int *flag) {
// CHECK-FIXES-NEXT: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&tiles) : "memory");

int main() {
  CUtensorMap h_tiles{};
  int *flag = nullptr;
  cudaMalloc(&flag, sizeof(int));
  CUtensorMap *d_tiles = nullptr;
  cudaMalloc(&d_tiles, sizeof(CUtensorMap));
  cudaMemcpy(d_tiles, &h_tiles, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  touch_tiles<<<1, 32>>>(d_tiles, flag);
  cudaFree(d_tiles);
  // CHECK-FIXES: {{^}}  touch_tiles<<<1, 32>>>(h_tiles, flag);
  // CHECK-FIXES-NOT: cudaFree(d_tiles)
  cudaDeviceSynchronize();
  cudaFree(flag);
  return 0;
}
