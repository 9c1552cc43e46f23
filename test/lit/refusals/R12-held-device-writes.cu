// R12, stream time (issue 41): work enqueued on a stream that may be held
// runs when the stream is let go, after statements written later. Here a
// write of the device copy (cudaMemsetAsync, a one-word cudaMemcpyAsync
// from page-locked memory) and a host callback that writes the host map
// are enqueued on the held stream before the copy, and run after it, before
// the launch reads: by value, the kernel would see the map without the
// device write (and with the callback's), so the two device writes refuse
// the launch ('d' has another use, which may change it before the kernel
// reads it), and the callback's map is kept as the snapshot taken at the
// copy (`*d = h;`: the pointer handed to a callback is kept, not used at
// the call). The twin, with the device write on the legacy stream before
// the copy, is patterns/H2-device-writes-before-copy.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}

__global__ void zeroed_later(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void patched_later(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[0]; }
__global__ void stamped_later(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[0]; }

static void CUDART_CB stamp(void *p) { static_cast<CUtensorMap *>(p)->opaque[0] = 7; }

void zeroed_on_the_held_stream(const CUtensorMap &a, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemsetAsync(d, 0, sizeof(unsigned long long), s);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  zeroed_later<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}

void patched_on_the_held_stream(const CUtensorMap &a, const unsigned long long *word,
                                unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, word, sizeof(unsigned long long), cudaMemcpyHostToDevice, s);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  patched_later<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}

void stamped_on_the_held_stream(const CUtensorMap &a, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  spin<<<1, 1, 0, s>>>(dflag);
  cudaLaunchHostFunc(s, stamp, &h);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  stamped_later<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'zeroed_later' is left by reference: work on the device copy is enqueued on a stream that may be held and 'd' has another use here, which may change it before the kernel reads it
// CHECK-DAG: warning: descriptor 'map' of kernel 'patched_later' is left by reference: work on the device copy is enqueued on a stream that may be held and 'd' has another use here, which may change it before the kernel reads it
// CHECK-DAG: warning: kernel 'stamped_later' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: 1 kernel rewritten, 2 refused
// CHECK-FIXES-LABEL: void stamped_on_the_held_stream(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES: {{^}}  stamped_later<<<1, 1>>>(*d, out);
