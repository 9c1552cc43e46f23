// R5 (tma-105, tma-103, tma-104): a __constant__ descriptor stays where it is
// when its contents may come from anything but the copy before each launch,
// when code other than kernels reads it, or when a launch cannot gain the new
// argument. Nothing in the file changes.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

// Its device address is taken: anything may write through it.
__constant__ CUtensorMap by_address;
__global__ void k_address(int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&by_address) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'by_address' of kernel 'k_address' is left in __constant__ memory: 'by_address' is used here other than by a cudaMemcpyToSymbol of a whole descriptor from the host [tma-105]
// CHECK-NEXT: :[[@LINE+33]]:{{[0-9]+}}: note: blocked here

// A device function reads it: it would need the descriptor passed along.
__constant__ CUtensorMap in_helper;
__device__ void prefetch_it() {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&in_helper) : "memory");
}
__global__ void k_helper() { prefetch_it(); asm volatile("prefetch.tensormap [%0];" :: "l"(&in_helper) : "memory"); }
// CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: descriptor 'in_helper' of kernel 'k_helper' is left in __constant__ memory: 'in_helper' is read in device function 'prefetch_it', which would need the descriptor passed to it [tma-103]

// The copy runs only on one path.
__constant__ CUtensorMap maybe;
__global__ void k_maybe() {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&maybe) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'maybe' of kernel 'k_maybe' is left in __constant__ memory: no cudaMemcpyToSymbol of a host descriptor into 'maybe' reaches this launch in 'run' [tma-105]

// The host descriptor changes after the copy: the kernel reads the copy.
__constant__ CUtensorMap stale;
__global__ void k_stale() {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&stale) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'stale' of kernel 'k_stale' is left in __constant__ memory: host descriptor 'h' is modified between the copy and the launch; by value the kernel would see the new contents [tma-105]

// Launched through an argument array, which cannot gain an argument.
__constant__ CUtensorMap arrayed;
__global__ void k_array(int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(&arrayed) : "memory");
}
// CHECK: :[[@LINE-3]]:{{[0-9]+}}: warning: descriptor 'arrayed' of kernel 'k_array' is left in __constant__ memory: 'k_array' is used here other than in a direct <<<>>> launch (function pointer or launch API) [tma-104]

int run(CUtensorMap h, int *out, bool first) {
  void *address = nullptr;
  cudaGetSymbolAddress(&address, by_address);
  cudaMemcpyToSymbol(by_address, &h, sizeof(CUtensorMap));
  k_address<<<1, 1>>>(out);
  cudaMemcpyToSymbol(in_helper, &h, sizeof(CUtensorMap));
  k_helper<<<1, 1>>>();
  if (first)
    cudaMemcpyToSymbol(maybe, &h, sizeof(CUtensorMap));
  k_maybe<<<1, 1>>>();
  cudaMemcpyToSymbol(stale, &h, sizeof(CUtensorMap));
  h.opaque[0] = 0;
  k_stale<<<1, 1>>>();
  cudaMemcpyToSymbol(arrayed, &h, sizeof(CUtensorMap));
  void *args[] = {&out};
  cudaLaunchKernel((const void *)k_array, dim3(1), dim3(1), args, 0, nullptr);
  return 0;
}
// CHECK: 0 kernels rewritten, 5 refused

int main() {
  CUtensorMap h{};
  int *out;
  cudaMalloc(&out, sizeof(int));
  return run(h, out, true);
}
