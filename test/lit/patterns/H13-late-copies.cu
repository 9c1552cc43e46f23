// H13, a whole copy that lands after every launch: a refresh of the device
// copy from page-locked memory, queued on a held stream between launches
// and let go only after a wait that covers them all, lands after each has
// read the device copy, with what the staging map holds then. The value
// form leaves it on the device copy and its value does not take it; no
// launch reads what it copies, so neither a change of the staging map after
// its call nor its order with other writes matters. Where the release comes
// before a launch, the copy is not late: the snapshot takes it at its call
// (`*d = *staged;`, the second function). The unsafe twin (released before
// a launch, the staging map changed after the copy's call) is
// refusals/R12-late-copies.cu.
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

__global__ void read_before_refresh(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }

// A refresh of the device copy from page-locked memory, queued on a held
// stream between two launches and let go only after a wait that covers
// both: it lands after every launch, so the launches read the first copy.
void refreshed_behind_a_hold(const CUtensorMap &h, const CUtensorMap &next, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap *staged;
  cudaMallocHost(&staged, sizeof(CUtensorMap));
  *staged = next;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  read_before_refresh<<<1, 1>>>(d, out);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, staged, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  staged->opaque[0] = 5;
  read_before_refresh<<<1, 1>>>(d, out);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(staged);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: :[[@LINE-16]]:16: note: 'd' stays in device memory for the kernels and calls that may write it; 'd_value' beside it takes what each copy into it copies but those that land after every launch, and the other launches pass it
// CHECK-FIXES-LABEL: void refreshed_behind_a_hold(
// CHECK-FIXES: {{^}}  CUtensorMap d_value;
// CHECK-FIXES: {{^}}  d_value = h;
// CHECK-FIXES-NEXT: {{^}}  read_before_refresh<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpyAsync(d, staged, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
// CHECK-FIXES-NEXT: {{^}}  staged->opaque[0] = 5;
// CHECK-FIXES-NEXT: {{^}}  read_before_refresh<<<1, 1>>>(d_value, out);
__global__ void read_after_refresh(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }

// The hold is let go before the last launch: the refresh lands before it,
// and the launch reads the refreshed copy, the staging map as it is at the
// copy's call.
void released_before_the_last_launch(const CUtensorMap &h, const CUtensorMap &next, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap *staged;
  cudaMallocHost(&staged, sizeof(CUtensorMap));
  *staged = next;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  read_after_refresh<<<1, 1>>>(d, out);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, staged, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  read_after_refresh<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(staged);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-FIXES-LABEL: void released_before_the_last_launch(
// CHECK-FIXES: {{^}}  *d = *staged;
// CHECK-FIXES-NEXT: {{^}}  cudaStreamSynchronize(0);
// CHECK-FIXES-NEXT: {{^}}  *flag = 1;
// CHECK-FIXES-NEXT: {{^}}  cudaStreamSynchronize(s);
// CHECK-FIXES-NEXT: {{^}}  read_after_refresh<<<1, 1>>>(*d, out);
// CHECK-MESSAGES-DAG: warning: kernel 'read_before_refresh' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: kernel 'read_after_refresh' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES: 2 kernels rewritten, 0 refused
