// Host side of the row-scaling example: builds the tensor map with the driver
// API (cuTensorMapEncodeTiled) and hands the launcher a host pointer to it.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/bench.h"
#include "row_scale.h"

namespace {

CUtensorMap make_row_tile_map(const float* base, int rows, int cols) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t pitch[1] = {cols * sizeof(float)};
  const cuuint32_t box[2] = {rowscale::kTileCols, rowscale::kTileRows};
  const cuuint32_t elem_strides[2] = {1, 1};
  CHECK_CU(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void*)base, dims,
                                  pitch, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  constexpr int kRows = 1000, kCols = 1024;
  const size_t count = size_t(kRows) * kCols;

  std::vector<float> in(count), scale(kRows), out(count);
  for (size_t i = 0; i < count; ++i) in[i] = float(int(uint32_t(i * 2654435761u) >> 22) - 512);
  for (int r = 0; r < kRows; ++r) scale[r] = float(r % 7) - 3.0f;
  float *d_in, *d_scale, *d_out;
  CHECK_CUDA(cudaMalloc(&d_in, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_scale, kRows * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_out, count * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_scale, scale.data(), kRows * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_out, 0, count * sizeof(float)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  const CUtensorMap in_map = make_row_tile_map(d_in, kRows, kCols);
  bench::Timer timer;
  int runs = bench::iterations(opt);
  if (opt.graph) CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < runs; ++i) {
    if (opt.time && i == bench::kWarmup) timer.start(stream);
    const cudaError_t err =
        rowscale::launch_row_scale(&in_map, d_scale, d_out, kRows, kCols, stream);
    if (opt.graph && err != cudaSuccess) {  // the launcher cannot be captured: run it plainly
      bench::abandon_capture(stream, err);
      CHECK_CUDA(rowscale::launch_row_scale(&in_map, d_scale, d_out, kRows, kCols, stream));
      runs = 0;
    } else {
      CHECK_CUDA(err);
    }
  }
  if (opt.time) {
    const float launch_us = timer.stop_us(stream, bench::kTimed);
    const float floor_us = bench::time_each(
        stream, [&] { CHECK_CUDA(rowscale::launch_empty(kRows, kCols, stream)); });
    std::printf("time: launch_us=%.3f floor_us=%.3f\n", launch_us, floor_us);
  }
  if (opt.graph && runs == 1) bench::end_capture_and_replay(stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));

  CHECK_CUDA(cudaMemcpy(out.data(), d_out, count * sizeof(float), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < count; ++i) bad += out[i] != in[i] * scale[i / kCols];
  std::printf("checksum: 0x%08x\n", bench::fnv1a(out.data(), count * sizeof(float)));
  std::printf("check: %s\n", bad == 0 ? "OK" : "MISMATCH");

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_scale));
  CHECK_CUDA(cudaFree(d_out));
  return bad == 0 ? 0 : 1;
}
