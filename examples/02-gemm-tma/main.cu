// Tiled SGEMM C = A * B: TMA loads of the A and B tiles, TMA store of the C tile.
// The three descriptors are encoded and uploaded once by a helper returning the
// cudaMalloc'ed CUtensorMap*; the kernel reads them through those pointers. The
// inputs are small integers, so fp32 results are exact and match the CPU bit for bit.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/bench.h"

namespace gemm {

constexpr int kBM = 64, kBN = 64, kBK = 32;  // CTA tile and K step
constexpr int kThreads = 256;                 // 16 x 16 threads, 4 x 4 outputs each

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar)) : "memory");
}

__device__ inline void tma_store_2d(const CUtensorMap* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
               :: "l"(map), "r"(x), "r"(y), "r"(smem_addr(src)) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__device__ inline void wait_phase(uint64_t* bar, uint32_t parity) {
  for (uint32_t done = 0; !done;)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                 " selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
}

__global__ void __launch_bounds__(kThreads)
sgemm_tma(const CUtensorMap* a_map, const CUtensorMap* b_map, const CUtensorMap* c_map, int k) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(a_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(b_map) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(c_map) : "memory");

  __shared__ alignas(128) float a_tile[kBM][kBK];
  __shared__ alignas(128) float b_tile[kBK][kBN];
  __shared__ alignas(128) float c_tile[kBM][kBN];
  __shared__ uint64_t tiles_loaded;

  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int row = (threadIdx.x / 16) * 4, col = (threadIdx.x % 16) * 4;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;"
                 :: "r"(smem_addr(&tiles_loaded)) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  float acc[4][4] = {};
  for (int step = 0; step < k / kBK; ++step) {
    if (threadIdx.x == 0) {
      const uint32_t bytes = sizeof(a_tile) + sizeof(b_tile);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                   :: "r"(smem_addr(&tiles_loaded)), "r"(bytes) : "memory");
      tma_load_2d(a_tile, a_map, &tiles_loaded, step * kBK, m0);  // A is M x K
      tma_load_2d(b_tile, b_map, &tiles_loaded, n0, step * kBK);  // B is K x N
    }
    wait_phase(&tiles_loaded, step & 1);
#pragma unroll 8
    for (int kk = 0; kk < kBK; ++kk) {
      float a[4], b[4];
      for (int i = 0; i < 4; ++i) a[i] = a_tile[row + i][kk];
      for (int j = 0; j < 4; ++j) b[j] = b_tile[kk][col + j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();  // the tiles are refilled only after everyone has read them
  }

  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c_tile[row + i][col + j] = acc[i][j];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // st.shared -> TMA store
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(c_map, c_tile, n0, m0);
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// Same grid and block, no work: the launch-overhead floor.
__global__ void empty_kernel() {}

// Encodes a row-major rows x cols fp32 matrix cut into box_rows x box_cols
// tiles and uploads the descriptor. The caller owns (and cudaFree's) it.
CUtensorMap* upload_tensor_map(const float* base, int rows, int cols, int box_rows, int box_cols) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t pitch[1] = {cols * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)}, elem_strides[2] = {1, 1};
  CHECK_CU(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void*)base, dims,
                                  pitch, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  CUtensorMap* d_map = nullptr;
  CHECK_CUDA(cudaMalloc(&d_map, sizeof(CUtensorMap)));
  CHECK_CUDA(cudaMemcpy(d_map, &map, sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  return d_map;
}

// C (m x n) = A (m x k) * B (k x n); every dimension a multiple of the tile.
void run(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream,
         const bench::Options& opt) {
  CUtensorMap* a_map = upload_tensor_map(a, m, k, kBM, kBK);
  CUtensorMap* b_map = upload_tensor_map(b, k, n, kBK, kBN);
  CUtensorMap* c_map = upload_tensor_map(c, m, n, kBM, kBN);

  const dim3 grid(n / kBN, m / kBM), block(kThreads);
  bench::Timer timer;
  if (opt.graph) CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0, iters = bench::iterations(opt); i < iters; ++i) {
    if (opt.time && i == bench::kWarmup) timer.start(stream);
    sgemm_tma<<<grid, block, 0, stream>>>(a_map, b_map, c_map, k);
    CHECK_CUDA(cudaGetLastError());
  }
  if (opt.time) {
    const float launch_us = timer.stop_us(stream, bench::kTimed);
    const float floor_us =
        bench::time_each(stream, [&] { empty_kernel<<<grid, block, 0, stream>>>(); });
    std::printf("time: launch_us=%.3f floor_us=%.3f\n", launch_us, floor_us);
  }
  if (opt.graph) bench::end_capture_and_replay(stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(a_map));
  CHECK_CUDA(cudaFree(b_map));
  CHECK_CUDA(cudaFree(c_map));
}

}  // namespace gemm

float* to_device(const std::vector<float>& host) {
  float* dev = nullptr;
  CHECK_CUDA(cudaMalloc(&dev, host.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dev, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return dev;
}

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  constexpr int M = 512, N = 512, K = 512;
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N, 0.f), ref(c);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(uint32_t(i * 2654435761u) >> 29) - 4);
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(uint32_t(i * 2246822519u) >> 29) - 3);
  float *d_a = to_device(a), *d_b = to_device(b), *d_c = to_device(c);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  gemm::run(d_a, d_b, d_c, M, N, K, stream, opt);
  CHECK_CUDA(cudaMemcpy(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost));

  for (int i = 0; i < M; ++i)  // |partial sums| < 2^24: exact in any order
    for (int p = 0; p < K; ++p)
      for (int j = 0; j < N; ++j) ref[i * N + j] += a[i * K + p] * b[p * N + j];
  const bool ok = c == ref;
  std::printf("checksum: 0x%08x\n", bench::fnv1a(c.data(), c.size() * sizeof(float)));
  std::printf("check: %s\n", ok ? "OK" : "MISMATCH");

  CHECK_CUDA(cudaStreamDestroy(stream));
  for (float* p : {d_a, d_b, d_c}) CHECK_CUDA(cudaFree(p));
  return ok ? 0 : 1;
}
