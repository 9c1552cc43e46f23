// Benchmark TU (bench/real-headers.sh): the headers of gemm_collection.cu
// and kernels that use them, but no tensor map: nothing to rewrite.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda/std/array>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace cg = cooperative_groups;

namespace bench_plain {

constexpr int kThreads = 128;

__global__ void convert_plain(const __nv_fp8_e5m2 *in, __nv_bfloat162 *out, int n) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? static_cast<float>(in[i]) : 0.0f;
  float sum = cg::reduce(warp, v, cg::plus<float>());
  if (i < n)
    out[i / 2] = __floats2bfloat162_rn(v, sum);
}

__global__ void block_sum(const __nv_bfloat16 *in, float *out, int n) {
  using Reduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cuda::std::array<float, 2> v{i < n ? __bfloat162float(in[i]) : 0.0f, 1.0f};
  float total = Reduce(temp).Sum(v[0] * v[1]);
  if (threadIdx.x == 0)
    atomicAdd(out, total);
}

void run(const __nv_fp8_e5m2 *in, __nv_bfloat162 *out, const __nv_bfloat16 *x, float *sum, int n) {
  convert_plain<<<(n + 255) / 256, 256>>>(in, out, n);
  block_sum<<<(n + kThreads - 1) / kThreads, kThreads>>>(x, sum, n);
}

} // namespace bench_plain
