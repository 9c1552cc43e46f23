// H4: launches through an array of argument addresses. The descriptor's slot
// `&d` becomes `&h`; the device copy (cudaMalloc or cuMemAlloc), its copies
// (cudaMemcpy/cuMemcpyHtoD) and its free go. The kernel behind a CUfunction
// handle is found through cudaGetFuncBySymbol.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

#define CHECK_CU(call)                                                           \
  do {                                                                           \
    CUresult r_ = (call);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                    \
      std::fprintf(stderr, "%s:%d: driver error %d\n", __FILE__, __LINE__, int(r_)); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)
#define CHECK_CUDA(call)                                                         \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

namespace gemm {

__global__ void load_ab(const CUtensorMap *a_map, const CUtensorMap *b_map, float *c, int k) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(a_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(b_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(a_map) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(b_map) : "memory");
  c[threadIdx.x] = float(k);
}
// CHECK-MESSAGES: warning: kernel 'gemm::load_ab' reads descriptor 'a_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: warning: kernel 'gemm::load_ab' reads descriptor 'b_map' through global memory; now passed by value [tma-001]

__global__ void scale(const CUtensorMap *map, float *c) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  c[threadIdx.x] *= 2.0f;
}
// CHECK-MESSAGES: warning: kernel 'gemm::scale' reads descriptor 'map' through global memory; now passed by value [tma-001]

__global__ void coop(const CUtensorMap *map, float *c) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  c[threadIdx.x] += 1.0f;
}
// CHECK-MESSAGES: warning: kernel 'gemm::coop' reads descriptor 'map' through global memory; now passed by value [tma-001]

// Driver API: CUdeviceptr copies, cuLaunchKernel through a handle.
int launch_driver(const CUtensorMap &a_src, const CUtensorMap &b_src, float *c, int k,
                  CUstream stream) {
  CUfunction fn;
  CHECK_CUDA(cudaGetFuncBySymbol(&fn, reinterpret_cast<const void *>(load_ab)));
  int max_smem = 0;
  CHECK_CU(cuFuncGetAttribute(&max_smem, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn));
  CUtensorMap a = a_src, b = b_src;
  CUdeviceptr d_a = 0;
  CUdeviceptr d_b = 0;
  CHECK_CU(cuMemAlloc(&d_a, sizeof(CUtensorMap)));
  CHECK_CU(cuMemAlloc(&d_b, sizeof(CUtensorMap)));
  CHECK_CU(cuMemcpyHtoD(d_a, &a, sizeof(CUtensorMap)));
  CHECK_CU(cuMemcpyHtoDAsync(d_b, &b, sizeof(CUtensorMap), stream));
  void *args[] = {&d_a, &d_b, &c, &k};
  CHECK_CU(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr));
  CHECK_CU(cuStreamSynchronize(stream));
  CHECK_CU(cuMemFree(d_a));
  CHECK_CU(cuMemFree(d_b));
  return 0;
}
// CHECK-FIXES: {{^}}  CUtensorMap a = a_src, b = b_src;
// CHECK-FIXES-NEXT: {{^}}  void *args[] = {&a, &b, &c, &k};
// CHECK-FIXES-NEXT: {{^}}  CHECK_CU(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr));
// CHECK-FIXES-NEXT: {{^}}  CHECK_CU(cuStreamSynchronize(stream));
// CHECK-FIXES-NEXT: {{^}}  return 0;

// Runtime API: cudaLaunchKernel and cudaLaunchCooperativeKernel.
int launch_runtime(const CUtensorMap &src, float *c, cudaStream_t stream) {
  CUtensorMap h = src;
  CUtensorMap *d_map = nullptr;
  CHECK_CUDA(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMemcpyAsync(d_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream));
  void *args[] = {(void *)&d_map, (void *)&c};
  CHECK_CUDA(cudaLaunchKernel((const void *)scale, dim3(1), dim3(32), args, 0, stream));
  CHECK_CUDA(cudaLaunchCooperativeKernel((const void *)coop, dim3(1), dim3(32), args, 0, stream));
  CHECK_CUDA(cudaFreeAsync(d_map, stream));
  return 0;
}
// CHECK-FIXES: {{^}}  CUtensorMap h = src;
// CHECK-FIXES-NEXT: {{^}}  void *args[] = {(void *)&h, (void *)&c};
// CHECK-FIXES-NEXT: {{^}}  CHECK_CUDA(cudaLaunchKernel((const void *)scale, dim3(1), dim3(32), args, 0, stream));
// CHECK-FIXES-NEXT: {{^}}  CHECK_CUDA(cudaLaunchCooperativeKernel((const void *)coop, dim3(1), dim3(32), args, 0, stream));
// CHECK-FIXES-NEXT: {{^}}  return 0;
// CHECK-MESSAGES: 3 kernels rewritten, 0 refused (descriptors: 4 by value, 0 refused); 4 launches changed, 3 copies removed (3 alloc, 3 free)

} // namespace gemm

int main() {
  CHECK_CU(cuInit(0));
  CUtensorMap a{}, b{};
  float *c = nullptr;
  CHECK_CUDA(cudaMalloc(&c, 32 * sizeof(float)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  if (gemm::launch_driver(a, b, c, 4, stream) || gemm::launch_runtime(a, c, stream))
    return 1;
  CHECK_CUDA(cudaFree(c));
  return 0;
}
