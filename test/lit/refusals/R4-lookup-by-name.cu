// R4 (tma-104): a kernel fetched by name with cuModuleGetFunction is launched
// through an argument array that still passes the device copy, so it keeps
// its signature even though it also has a direct launch.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

extern "C" __global__ void by_name(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
// CHECK: warning: descriptor 'map' of kernel 'by_name' is left by reference: 'by_name' is looked up by name here and launched through an argument array [tma-104]
// CHECK-NEXT: :[[@LINE+10]]:3: note: blocked here

int main() {
  CUtensorMap h{};
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  by_name<<<1, 1>>>(d);
  CUmodule mod = nullptr;
  CUfunction fn;
  cuModuleGetFunction(&fn, mod, "by_name");
  void *args[] = {&d};
  cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr);
  cudaFree(d);
  return 0;
}
