// nvcc's dialect in a tile library: `typename Tile::window<R, C>` names a
// member template of a dependent type without the `template` keyword that
// C++ asks for (`typename Tile::template window<R, C>`). nvcc accepts it;
// clang reports "use 'template' keyword to treat 'window' as a dependent
// template name", inserts the keyword (its fix-it) and parses on as if it
// were written. Such an error is not one that may hide descriptors, even
// outside every function body (the return type below) or in the kernel's
// own statements: the AST is the code nvcc compiles. The kernel is rewritten
// and the errors are left as they were.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace tiles {

template <int Rows, int Cols>
struct Tile {
  template <int R, int C>
  struct window {
    const int *origin;
    int stride;
  };
  int cells[Rows * Cols];
};

// The return type is at file scope.
template <int R, int C, typename T>
__device__ inline typename T::window<R, C> window_at(const T &tile, int row) {
  return typename T::window<R, C>{&tile.cells[row * C], C};
}

} // namespace tiles
// CHECK-MESSAGES: warning: clang reports 3 errors in this translation unit; descriptors whose code holds one are not rewritten, the rest is

template <typename T>
__global__ void sum_rows(const CUtensorMap *rows_map, int *out) {
  __shared__ T tile;
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows_map) : "memory");
  auto first = tiles::window_at<1, 8>(tile, threadIdx.x % 4);
  typename T::window<1, 8> second = first;
  out[threadIdx.x] = second.stride;
}
// CHECK-MESSAGES: :[[@LINE-7]]:{{[0-9]+}}: warning: kernel 'sum_rows' reads descriptor 'rows_map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-NOT: may hide descriptors
// CHECK-MESSAGES: 1 kernel rewritten, 0 refused
// CHECK-FIXES: {{^}}__global__ void sum_rows(const __grid_constant__ CUtensorMap rows_map, int *out) {
// CHECK-FIXES: {{^}}  asm volatile("prefetch.tensormap [%0];" :: "l"(&rows_map) : "memory");
// CHECK-FIXES: {{^}}  typename T::window<1, 8> second = first;

int main() {
  CUtensorMap rows{};
  CUtensorMap *rows_dev = nullptr;
  int *out = nullptr;
  cudaMalloc(&out, 32 * sizeof(int));
  cudaMalloc(&rows_dev, sizeof(CUtensorMap));
  cudaMemcpy(rows_dev, &rows, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  sum_rows<tiles::Tile<4, 8>><<<1, 32>>>(rows_dev, out);
  cudaFree(rows_dev);
  cudaFree(out);
  std::printf("done\n");
  return 0;
}
// CHECK-FIXES: {{^}}  sum_rows<tiles::Tile<4, 8>><<<1, 32>>>(rows, out);
// CHECK-FIXES-NOT: rows_dev
