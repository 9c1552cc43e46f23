// Benchmark TU (bench/real-headers.sh): what real TMA kernels include --
// cuda::barrier, cuda::ptx, bf16, fp8, cooperative groups, a CUB block
// primitive and cuda::std -- with several kernels that read their tensor
// maps through global-memory pointers. Written for the benchmark; it is
// parsed, analysed and rewritten, never run.
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
namespace cde = cuda::device::experimental;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

namespace bench_gemm {

constexpr int kTileM = 64, kTileN = 64, kTileK = 64, kThreads = 128;

template <class T> struct Tile {
  alignas(128) T data[kTileM][kTileK];
};

// A block barrier in raw shared storage (clang, unlike nvcc, does not
// accept a __shared__ object with a constructor).
__device__ inline block_barrier &shared_barrier() {
  __shared__ alignas(block_barrier) unsigned char storage[sizeof(block_barrier)];
  return *reinterpret_cast<block_barrier *>(storage);
}

__device__ inline void acquire(const CUtensorMap *map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
}

// C = A * B on bf16 tiles loaded by TMA, fp32 accumulators, block-reduced
// column sums for a checksum.
__global__ void gemm_bf16(const CUtensorMap *a_map, const CUtensorMap *b_map, float *c, int k_tiles,
                          float *checksum) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(a_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(b_map) : "memory");
  __shared__ Tile<__nv_bfloat16> a_tile, b_tile;
  block_barrier &bar = shared_barrier();
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar, block.size());
    cde::fence_proxy_async_shared_cta();
  }
  block.sync();
  float acc = 0.0f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    block_barrier::arrival_token token;
    if (block.thread_rank() == 0) {
      cde::cp_async_bulk_tensor_2d_global_to_shared(&a_tile, a_map, kt * kTileK, blockIdx.y * kTileM, bar);
      cde::cp_async_bulk_tensor_2d_global_to_shared(&b_tile, b_map, blockIdx.x * kTileN, kt * kTileK, bar);
      token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(a_tile) + sizeof(b_tile));
    } else {
      token = bar.arrive();
    }
    bar.wait(cuda::std::move(token));
    int row = threadIdx.x % kTileM, col = threadIdx.x / kTileM;
    for (int kk = 0; kk < kTileK; ++kk)
      acc += __bfloat162float(a_tile.data[row][kk]) * __bfloat162float(b_tile.data[kk][col]);
    block.sync();
  }
  c[(blockIdx.y * kTileM + threadIdx.x % kTileM) * gridDim.x * kTileN + blockIdx.x * kTileN +
    threadIdx.x / kTileM] = acc;
  using Reduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  float total = Reduce(temp).Sum(acc);
  if (threadIdx.x == 0)
    atomicAdd(checksum, total);
}

// fp8 (e4m3) inputs scaled to bf16 output through a store map.
__global__ void scale_fp8(const CUtensorMap *in_map, const CUtensorMap *out_map, float scale) {
  acquire(in_map);
  acquire(out_map);
  __shared__ alignas(128) __nv_fp8_e4m3 in_tile[kTileM][kTileK];
  __shared__ alignas(128) __nv_bfloat16 out_tile[kTileM][kTileK];
  block_barrier &bar = shared_barrier();
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&in_tile, in_map, blockIdx.x * kTileK, blockIdx.y * kTileM, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(in_tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(cuda::std::move(token));
  for (int i = threadIdx.x; i < kTileM * kTileK; i += blockDim.x)
    out_tile[i / kTileK][i % kTileK] =
        __float2bfloat16(static_cast<float>(in_tile[i / kTileK][i % kTileK]) * scale);
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(out_map, blockIdx.x * kTileK, blockIdx.y * kTileM, &out_tile);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// Prefetches the map through cuda::ptx and copies one tile per block.
__global__ void prefetch_copy(const CUtensorMap *map, cuda::std::uint32_t *out) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
  cuda::std::array<cuda::std::uint32_t, 4> lanes{};
  static_assert(cuda::std::is_same_v<decltype(lanes)::value_type, cuda::std::uint32_t>);
  if (threadIdx.x == 0)
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  out[blockIdx.x * blockDim.x + threadIdx.x] = lanes[threadIdx.x % 4] + threadIdx.x;
}

// No descriptor: an fp8 -> bf16 conversion with a warp-level reduction.
__global__ void convert_plain(const __nv_fp8_e5m2 *in, __nv_bfloat162 *out, int n) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? static_cast<float>(in[i]) : 0.0f;
  float sum = cg::reduce(warp, v, cg::plus<float>());
  if (i < n)
    out[i / 2] = __floats2bfloat162_rn(v, sum);
}

CUtensorMap make_map(void *base, CUtensorMapDataType type, int elem_bytes, int width, int height) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(width), cuuint64_t(height)};
  const cuuint64_t pitch[1] = {cuuint64_t(width) * elem_bytes};
  const cuuint32_t box[2] = {kTileK, kTileM}, strides[2] = {1, 1};
  cuTensorMapEncodeTiled(&map, type, 2, base, dims, pitch, box, strides,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return map;
}

void run_gemm(__nv_bfloat16 *a, __nv_bfloat16 *b, float *c, int m, int n, int k, float *sum,
              cudaStream_t stream) {
  CUtensorMap a_host = make_map(a, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, k, m);
  CUtensorMap b_host = make_map(b, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, n, k);
  CUtensorMap *a_dev, *b_dev;
  cudaMalloc(&a_dev, sizeof(CUtensorMap));
  cudaMalloc(&b_dev, sizeof(CUtensorMap));
  cudaMemcpyAsync(a_dev, &a_host, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(b_dev, &b_host, sizeof(CUtensorMap), cudaMemcpyHostToDevice, stream);
  gemm_bf16<<<dim3(n / kTileN, m / kTileM), kThreads, 0, stream>>>(a_dev, b_dev, c, k / kTileK, sum);
  cudaStreamSynchronize(stream);
  cudaFree(a_dev);
  cudaFree(b_dev);
}

void run_scale(__nv_fp8_e4m3 *in, __nv_bfloat16 *out, int width, int height, float scale) {
  CUtensorMap in_host = make_map(in, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, width, height);
  CUtensorMap out_host = make_map(out, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, width, height);
  CUtensorMap *in_dev, *out_dev;
  cudaMalloc(&in_dev, sizeof(CUtensorMap));
  cudaMalloc(&out_dev, sizeof(CUtensorMap));
  cudaMemcpy(in_dev, &in_host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(out_dev, &out_host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  scale_fp8<<<dim3(width / kTileK, height / kTileM), kThreads>>>(in_dev, out_dev, scale);
  cudaDeviceSynchronize();
  cudaFree(in_dev);
  cudaFree(out_dev);
}

void run_prefetch(cuda::std::uint32_t *data, cuda::std::uint32_t *out, int n) {
  CUtensorMap host = make_map(data, CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, n, 1);
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  cudaMemcpy(dev, &host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  prefetch_copy<<<n / kThreads, kThreads>>>(dev, out);
  cudaFree(dev);
}

void run_convert(const __nv_fp8_e5m2 *in, __nv_bfloat162 *out, int n) {
  convert_plain<<<(n + 255) / 256, 256>>>(in, out, n);
}

} // namespace bench_gemm
