// R12 through generic lambdas: each device copy below is launched from a
// generic lambda, as in patterns/H13-generic-lambdas.cu, but a use the rule
// cannot classify appears in one instantiation of the lambda only (an
// `if constexpr` branch): a device-to-device copy into the descriptor's
// buffer, or its address handed to a function whose body is not seen.
// Every instantiation is walked, so each is refused and the file is
// unchanged.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <type_traits>

template <int Width>
__global__ void patched(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[Width] = Width;
}
template <int Width>
__global__ void escaped(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[Width + 4] = Width;
}
template <int W> using Width = std::integral_constant<int, W>;
extern void remember_map(CUtensorMap *m);

// Width 2 overwrites the buffer from another device copy before launching.
void device_overwrite(const CUtensorMap &h, const CUtensorMap *other, int *out) {
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  auto launch = [&](auto w) {
    if constexpr (decltype(w)::value == 2)
      cudaMemcpy(d, other, sizeof(CUtensorMap), cudaMemcpyDeviceToDevice);
    patched<decltype(w)::value><<<1, 1>>>(d, out);
  };
  launch(Width<1>{});
  launch(Width<2>{});
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'patched' is left by reference
// CHECK-DAG: :[[@LINE-8]]:7: note: also: the storage rule cannot retarget it: this cudaMemcpy into 'd' is not a copy from host memory [storage.unclassified-use]

// Width 3 hands the buffer's address to code the analysis does not see.
void handed_out(const CUtensorMap &h, int *out) {
  CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  auto launch = [&](auto w) {
    if constexpr (decltype(w)::value == 3)
      remember_map(d);
    escaped<decltype(w)::value><<<1, 1>>>(d, out);
  };
  launch(Width<1>{});
  launch(Width<3>{});
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'escaped' is left by reference
// CHECK-DAG: :[[@LINE-8]]:7: note: also: the storage rule cannot retarget it: 'd' is passed to 'remember_map', whose body is not seen, which may write the device copy at any time after it: it is made in another function than the launches [storage.unclassified-use]
// CHECK: 0 kernels rewritten, 2 refused
