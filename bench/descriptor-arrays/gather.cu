// Benchmark kernel for descriptor arrays (issue 21): MAPS tensor maps, one per
// 32x64 float matrix; CTA b loads matrix b % MAPS with one 2D TMA load
// through &maps[b % MAPS] and writes the sum of its tile. By reference the
// host copies the array into global memory before every launch (or, with
// --copy-once, once before all launches); bench/descriptor-arrays.sh makes
// the by-value form of this file with tma-modernize.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../examples/common/bench.h"

#ifndef MAPS
#define MAPS 4
#endif

constexpr int kMaps = MAPS;
constexpr int kBlocks = 132 * 8;
constexpr int kCols = 64, kRows = 32, kThreads = 128;
constexpr size_t kMatrix = size_t(kCols) * kRows;
constexpr uint32_t kTileBytes = sizeof(float) * kMatrix;

__device__ inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void sum_tiles(const CUtensorMap* maps, float* sums) {
  const int t = blockIdx.x % kMaps;
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(&maps[t]) : "memory");
  __shared__ alignas(128) float tile[kMatrix];
  __shared__ uint64_t full;
  __shared__ float partial[kThreads];
  const uint32_t bar = smem_addr(&full);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar), "r"(kTileBytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];"
        :: "r"(smem_addr(tile)), "l"(&maps[t]), "r"(0), "r"(0), "r"(bar) : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred ready;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], 0;\n\t"
        "selp.u32 %0, 1, 0, ready;\n\t}"
        : "=r"(done) : "r"(bar) : "memory");
  }
  float s = 0.f;
  for (int i = threadIdx.x; i < int(kMatrix); i += kThreads) s += tile[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int i = 0; i < kThreads; ++i) total += partial[i];
    sums[blockIdx.x] = total;
  }
}

CUtensorMap make_map(const float* base) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows};
  const cuuint64_t pitch[1] = {kCols * sizeof(float)};
  const cuuint32_t box[2] = {kCols, kRows}, strides[2] = {1, 1};
  CHECK_CU(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void*)base, dims,
                                  pitch, box, strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// Mean µs per launch (with its copy, when there is one) over kTimed launches.
float run(const float* d_in, float* d_sums, bool copy_once, cudaStream_t stream) {
  CUtensorMap maps[kMaps];
  for (int t = 0; t < kMaps; ++t) maps[t] = make_map(d_in + t * kMatrix);
  CUtensorMap* d_maps = nullptr;
  CHECK_CUDA(cudaMalloc(&d_maps, sizeof(maps)));
  bench::Timer timer;
  if (copy_once) {
    CHECK_CUDA(cudaMemcpy(d_maps, maps, sizeof(maps), cudaMemcpyHostToDevice));
    for (int i = 0; i < bench::kWarmup + bench::kTimed; ++i) {
      if (i == bench::kWarmup) timer.start(stream);
      sum_tiles<<<kBlocks, kThreads, 0, stream>>>(d_maps, d_sums);
    }
  } else {
    for (int i = 0; i < bench::kWarmup + bench::kTimed; ++i) {
      if (i == bench::kWarmup) timer.start(stream);
      CHECK_CUDA(cudaMemcpyAsync(d_maps, maps, sizeof(maps), cudaMemcpyHostToDevice, stream));
      sum_tiles<<<kBlocks, kThreads, 0, stream>>>(d_maps, d_sums);
    }
  }
  CHECK_CUDA(cudaGetLastError());
  const float us = timer.stop_us(stream, bench::kTimed);
  CHECK_CUDA(cudaFree(d_maps));
  return us;
}

int main(int argc, char** argv) {
  const bool copy_once = argc > 1 && !std::strcmp(argv[1], "--copy-once");
  std::vector<float> host_in(kMaps * kMatrix);
  for (size_t i = 0; i < host_in.size(); ++i) host_in[i] = float(int(i % 7) - 3);
  float *d_in = nullptr, *d_sums = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, host_in.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_sums, kBlocks * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_in, host_in.data(), host_in.size() * sizeof(float),
                        cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  const float us = run(d_in, d_sums, copy_once, stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<float> sums(kBlocks);
  CHECK_CUDA(cudaMemcpy(sums.data(), d_sums, kBlocks * sizeof(float), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (int b = 0; b < kBlocks; ++b) {
    float want = 0.f;
    for (size_t i = 0; i < kMatrix; ++i) want += host_in[(b % kMaps) * kMatrix + i];
    bad += sums[b] != want;
  }
  std::printf("maps=%d us_per_launch=%.3f check=%s\n", kMaps, us, bad ? "MISMATCH" : "OK");
  return bad ? 1 : 0;
}
