// H13, writes of part of the device copy that its stream makes later
// (`cudaMemsetAsync`, a word's `cudaMemcpyAsync` from page-locked memory):
// they land when the stream runs them, with what their source holds then,
// so no host write at the call stands for them. The value form leaves them
// on the device copy, like a kernel that writes it, and passes the value
// where no launch can be made once they may have landed: after the last
// launch on the same stream, or held on another stream until a release that
// comes after a wait covering every launch. The unsafe twins (a release
// before a launch, a whole copy that the held write may land after) are
// refusals/R12-queued-partial-writes.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}

__global__ void stamped_after(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[2]; }
__global__ void patched_later(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[5]; }

// The device copy's word cleared on the stream after its last launch.
void cleared_after_the_launches(const CUtensorMap &h, cudaStream_t s, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamped_after<<<1, 1, 0, s>>>(d, out);
  stamped_after<<<1, 1, 0, s>>>(d, out);
  cudaMemsetAsync(&d->opaque[2], 0, 8, s);
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: :[[@LINE-9]]:16: note: 'd' stays in device memory for the kernels and calls that may write it; 'd_value' beside it takes what each copy into it copies, and the other launches pass it
// CHECK-FIXES-LABEL: void cleared_after_the_launches(
// CHECK-FIXES: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = h;
// CHECK-FIXES-NEXT: {{^}}  stamped_after<<<1, 1, 0, s>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamped_after<<<1, 1, 0, s>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  cudaMemsetAsync(&d->opaque[2], 0, 8, s);

// A word patched from page-locked memory on a held stream, written between
// two launches but let go only after a wait that covers both.
void patched_behind_a_hold(const CUtensorMap &h, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  unsigned long long *word;
  cudaMallocHost(&word, sizeof *word);
  *word = 7;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  patched_later<<<1, 1>>>(d, out);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(&d->opaque[5], word, sizeof *word, cudaMemcpyHostToDevice, s);
  patched_later<<<1, 1>>>(d, out);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(word);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-FIXES-LABEL: void patched_behind_a_hold(
// CHECK-FIXES: {{^}}  d_value = h;
// CHECK-FIXES-NEXT: {{^}}  patched_later<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpyAsync(&d->opaque[5], word, sizeof *word, cudaMemcpyHostToDevice, s);
// CHECK-FIXES-NEXT: {{^}}  patched_later<<<1, 1>>>(d_value, out);
// CHECK-MESSAGES-DAG: warning: kernel 'stamped_after' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'patched_later' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 2 kernels rewritten, 0 refused
