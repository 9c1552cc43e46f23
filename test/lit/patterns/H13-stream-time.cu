// H13, stream time operation by operation: each operation on the device
// copy (a copy into it, a launch of it) on a stream that may be held runs
// at some time between its call and the first host wait that covers its
// stream (cudaStreamSynchronize of it, cudaDeviceSynchronize); the
// retargeted text makes each at its call. They agree where no operation on
// another stream, one of the two a write, may run while a held one waits:
// the device copy may then be copied into more than once. A copy from
// page-locked memory through a pointer (cudaMemcpyAsync(d, pin, ...))
// reads `*pin` when its stream runs it: it becomes `*d = *pin` where
// nothing writes `*pin` before a wait that covers the copy's stream. A
// launch held behind a flag only known stores set (HoldReleases) runs after
// the first of them: it reads what the copies before it left, and passes
// the local map they copy where the snapshot at its call is another. The unsafe
// twins are refusals/R12-stream-time.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

// Holds its stream until the host sets the flag (mapped host memory).
__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
__global__ void held(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[5]; }
__global__ void staged(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[7]; }

// Two copies into the device copy on the legacy stream and two launches of
// it on a held stream; the host waits for the held stream before the
// second copy, so neither launch can read it early or late.
void held_launches(const CUtensorMap &a, const CUtensorMap &b, volatile int *flag, const int *dflag,
                   unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  held<<<1, 1, 0, s>>>(d, out);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaMemcpy(d, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  held<<<1, 1, 0, s>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'held' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void held_launches(
// CHECK-FIXES: {{^}}  *d = a;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  held<<<1, 1, 0, s>>>(*d, out);
// CHECK-FIXES: {{^}}  *d = b;
// CHECK-FIXES-NEXT: {{^}}  held<<<1, 1, 0, s>>>(*d, out);

// An upload from page-locked memory on a stream; the staging map is
// refilled only after the host waits for that stream, and the device copy
// is launched again after it (so the staging map itself cannot be passed
// by value).
void pinned_upload(const CUtensorMap &h, const CUtensorMap &next, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  staged<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  *pin = next;
  staged<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'staged' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void pinned_upload(
// CHECK-FIXES: {{^}}  *d = *pin;
// CHECK-FIXES-NEXT: {{^}}  staged<<<1, 1, 0, s>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  cudaStreamSynchronize(s);
// CHECK-FIXES-NEXT: {{^}}  *pin = next;
// CHECK-FIXES-NEXT: {{^}}  staged<<<1, 1, 0, s>>>(*d, out);

// A non-blocking stream 's' and a flag in mapped page-locked memory
// ('flag' on the host, 'dflag' on the device) that 'spin' waits for.
#define MAPPED_FLAG                                                                                \
  cudaStream_t s;                                                                                  \
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);                                            \
  volatile int *flag;                                                                              \
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);                                 \
  *flag = 0;                                                                                       \
  int *dflag;                                                                                      \
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);

// A launch held behind a flag that only this function's host code sets:
// 'spin' waits for it and does nothing else, the flag is mapped page-locked
// memory used only to be allocated, mapped, stored to and freed. The launch
// cannot start before the store of 1, so it reads the device copy as the
// copies made before that store left it: another map, then again the map
// the launch's retargeted form passes.
__global__ void released(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[3]; }

void released_launch(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  released<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'released' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void released_launch(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  released<<<1, 1, 0, s>>>(*d, out);
// CHECK-FIXES-NEXT: {{^}}  *d = b;
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  *flag = 1;

// The copy before the release is of another local map, unchanged from the
// launch to the copy: the launch reads that map, and passes it by value.
__global__ void released_next(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[3]; }

void released_other_map(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, next = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  released_next<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'released_next' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void released_other_map(
// CHECK-FIXES: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  released_next<<<1, 1, 0, s>>>(next, out);
// CHECK-FIXES-NEXT: {{^}}  *d = next;

// A kernel that writes the device copy, held until the release: the value
// form keeps the device copy for it, and a launch made before the release
// runs before the write lands and passes the value, which never takes it.
__global__ void stamp_held(CUtensorMap *map, unsigned long long v) { map->opaque[15] = v; }
__global__ void before_stamp(const CUtensorMap *map, unsigned long long *out) { out[4] = map->opaque[15]; }

void stamped_at_release(const CUtensorMap &a, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  stamp_held<<<1, 1, 0, s>>>(d, 7);
  before_stamp<<<1, 1>>>(d, out);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'before_stamp' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void stamped_at_release(
// CHECK-FIXES: {{^}}  stamp_held<<<1, 1, 0, s>>>(d, 7);
// CHECK-FIXES-NEXT: {{^}}  before_stamp<<<1, 1>>>(d_value, out);

// The same kernel held in a later hold: the release before it lets go
// only the work enqueued before it, so a launch made between the two
// holds does not read its write either.
__global__ void between_holds(const CUtensorMap *map, unsigned long long *out) { out[5] = map->opaque[15]; }

void stamped_in_a_later_hold(const CUtensorMap &a, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  between_holds<<<1, 1>>>(d, out);
  spin<<<1, 1, 0, s>>>(dflag);
  stamp_held<<<1, 1, 0, s>>>(d, 9);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'between_holds' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void stamped_in_a_later_hold(
// CHECK-FIXES: {{^}}  between_holds<<<1, 1>>>(d_value, out);

// Handed to a call through a pointer the tool does not follow only after
// the host has waited for the held launch: the kernel has read the device
// copy by then, so the launch passes the value (the host map changes after
// the copy: the snapshot), and the device copy stays for the call.
__global__ void waited_for(const CUtensorMap *map, unsigned long long *out) { out[6] = map->opaque[4]; }
static void clear_word(CUtensorMap *m, int w) { cudaMemset(&m->opaque[w], 0, 8); }
static void (*volatile clear_hook)(CUtensorMap *, int) = clear_word;

void cleared_after_the_wait(CUtensorMap a, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  a.opaque[0] = 0;
  spin<<<1, 1, 0, s>>>(dflag);
  waited_for<<<1, 1, 0, s>>>(d, out);
  *flag = 1;
  cudaStreamSynchronize(s);
  clear_hook(d, 4);
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'waited_for' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: :[[@LINE-6]]:3: note: 'd' is passed to an indirect call: the device copy stays, and the launches made before it pass the value
// CHECK-FIXES-LABEL: void cleared_after_the_wait(
// CHECK-FIXES: {{^}}  d_value = a;
// CHECK-FIXES-NEXT: {{^}}  a.opaque[0] = 0;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  waited_for<<<1, 1, 0, s>>>(d_value, out);
// CHECK-FIXES: {{^}}  clear_hook(d, 4);

// A launch that runs at its call while a copy made before it waits behind
// a hold that a later store lets go: the kernel reads what the copies that
// have landed left, the local map 'first', which it passes by value; the
// launch after the release reads the held copy, the snapshot `*d = *pin`.
// The unsafe twin is launched_once_released in refusals/R12-stream-time.cu.
__global__ void ahead_of_the_copy(const CUtensorMap *map, unsigned long long *out) { out[7] = map->opaque[2]; }

void launched_before_it_lands(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap first = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  ahead_of_the_copy<<<1, 1>>>(d, out);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  ahead_of_the_copy<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'ahead_of_the_copy' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void launched_before_it_lands(
// CHECK-FIXES: {{^}}  *d = *pin;
// CHECK-FIXES-NEXT: {{^}}  ahead_of_the_copy<<<1, 1>>>(first, out);
// CHECK-FIXES: {{^}}  *flag = 0;
// CHECK-FIXES-NEXT: {{^}}  ahead_of_the_copy<<<1, 1>>>(*d, out);

// A launch held behind a flag, followed on its own stream by a copy from
// page-locked memory: the stream runs that copy after the launch, however
// long both wait, so the launch reads what the copy before the release
// left, the local map 'next', and passes it by value. The unsafe twin is
// refilled_on_another_stream in refusals/R12-stream-time.cu.
__global__ void before_its_refill(const CUtensorMap *map, unsigned long long *out) { out[8] = map->opaque[4]; }

void refilled_behind_it(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, next = b;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  before_its_refill<<<1, 1, 0, s>>>(d, out);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'before_its_refill' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void refilled_behind_it(
// CHECK-FIXES: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  before_its_refill<<<1, 1, 0, s>>>(next, out);

// A launch that runs at its call, before a copy from page-locked memory
// held until the release lands, in a function whose device copy a kernel
// writes later: the snapshot cannot make the held copy at its call, and
// the value form passes what the launch reads, 'd_value' as the copy
// before it left it; 'stamp_later' keeps the device copy. The held copy
// lands after the only launch, so the value does not take it
// (patterns/H13-late-copies.cu). The unsafe twin
// is staging_refilled_while_held in refusals/R12-stream-time.cu.
__global__ void ahead_of_the_refill(const CUtensorMap *map, unsigned long long *out) { out[9] = map->opaque[6]; }
__global__ void stamp_later(CUtensorMap *map, unsigned long long v) { map->opaque[12] = v; }

void value_ahead_of_a_held_copy(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  ahead_of_the_refill<<<1, 1>>>(d, out);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  stamp_later<<<1, 1>>>(d, 7);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'ahead_of_the_refill' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: descriptor 'map' of kernel 'stamp_later' is left by reference: the descriptor is written ('map->opaque[12] = v') [tma-101]
// CHECK-FIXES-LABEL: void value_ahead_of_a_held_copy(
// CHECK-FIXES: {{^}}  CUtensorMap d_value;
// CHECK-FIXES: {{^}}  d_value = h;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  ahead_of_the_refill<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = h;
// CHECK-FIXES: {{^}}  stamp_later<<<1, 1>>>(d, 7);

// A held copy released and waited for, then a second one held behind the
// next release: the launch between runs at its call, after the first has
// landed (the wait covers its stream) and before the second can, and reads
// what the copy at its call left, the local map 'second', which it passes
// by value; so does a launch through an argument array, whose slot takes
// the map's address. The unsafe twin is released_not_waited in
// refusals/R12-stream-time.cu.
__global__ void before_the_second_lands(const CUtensorMap *map, unsigned long long *out) { out[10] = map->opaque[8]; }

void landed_then_held_again(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap first = a, second = b;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &first, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaMemcpy(d, &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  before_the_second_lands<<<1, 1>>>(d, out);
  {
    void *args[] = {(void *)&d, &out};
    cudaLaunchKernel((const void *)before_the_second_lands, dim3(1), dim3(1), args, 0, 0);
  }
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'before_the_second_lands' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void landed_then_held_again(
// CHECK-FIXES: {{^}}  before_the_second_lands<<<1, 1>>>(second, out);
// CHECK-FIXES-NEXT: {{^}}  {
// CHECK-FIXES-NEXT: {{^}}    void *args[] = {(void *)&second, &out};

// A kernel that writes the device copy, held and then waited for, before a
// copy at its call and a second hold: the write has landed before the copy
// replaces it, so the launch after the second release passes the value
// (the value form keeps the device copy for 'stamp_waited'). The unsafe
// twin is stamped_not_waited in refusals/R12-stream-time.cu.
__global__ void stamp_waited(CUtensorMap *map, unsigned long long v) { map->opaque[14] = v; }
__global__ void after_the_stamp(const CUtensorMap *map, unsigned long long *out) { out[11] = map->opaque[14]; }

void stamped_and_waited(const CUtensorMap &a, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  stamp_waited<<<1, 1, 0, s>>>(d, 5);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  after_the_stamp<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'after_the_stamp' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void stamped_and_waited(
// CHECK-FIXES: {{^}}  stamp_waited<<<1, 1, 0, s>>>(d, 5);
// CHECK-FIXES: {{^}}  after_the_stamp<<<1, 1>>>(d_value, out);

// A held copy and a copy at its call land out of the text's order, but
// both have landed (the host waits for the held stream) before a third
// copy replaces them: the launch after it reads that copy, the snapshot.
// The unsafe twin is replaced_before_the_wait in refusals/R12-stream-time.cu.
__global__ void after_the_replacement(const CUtensorMap *map, unsigned long long *out) { out[12] = map->opaque[9]; }

void replaced_once_both_landed(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, next = b;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  after_the_replacement<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'after_the_replacement' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void replaced_once_both_landed(
// CHECK-FIXES: {{^}}  *flag = 0;
// CHECK-FIXES-NEXT: {{^}}  *d = h;
// CHECK-FIXES-NEXT: {{^}}  after_the_replacement<<<1, 1>>>(*d, out);

// A launch held behind a flag reads, at the release, the copy made before
// it ('next', passed by value); the device copy is handed to code the tool
// does not follow only after the host has waited for the held stream, when
// the kernel has read it. The unsafe twin is cleared_before_the_wait in
// refusals/R12-held-unknown-use.cu.
__global__ void read_before_the_hook(const CUtensorMap *map, unsigned long long *out) { out[13] = map->opaque[10]; }

void hooked_after_it_read(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, next = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  read_before_the_hook<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  clear_hook(d, 3);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'read_before_the_hook' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void hooked_after_it_read(
// CHECK-FIXES: {{^}}  read_before_the_hook<<<1, 1, 0, s>>>(next, out);

// A launch held behind a flag reads, at the release, the copy of 'h' made
// before it, and passes 'h'. The address of 'h' is kept in an array, so a
// write through a pointer between the launch and that copy may reach it,
// but not one through 'pin', which only ever holds a new page-locked
// allocation: no named object lies there. The unsafe twin is
// written_through_a_watched_pointer in refusals/R12-stream-time.cu.
__global__ void read_at_release(const CUtensorMap *map, unsigned long long *out) { out[14] = map->opaque[11]; }

void watched_beside_a_staging_copy(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, other = b;
  CUtensorMap *watched[2] = {&other, &h};
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  watched[0]->opaque[1] = 2;
  spin<<<1, 1, 0, s>>>(dflag);
  read_at_release<<<1, 1, 0, s>>>(d, out);
  *pin = other;
  cudaMemcpyAsync(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice, 0);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'read_at_release' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void watched_beside_a_staging_copy(
// CHECK-FIXES: {{^}}  read_at_release<<<1, 1, 0, s>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  *pin = other;
// CHECK-FIXES-NEXT: {{^}}  *d = h;

// A stream callback that changes 'h', enqueued on the held stream after the
// launch: it runs after the kernel, which runs after the release, so 'h' is
// as the launch's call left it when the copy after it reads it, and the
// launch passes 'h'. Storing the address of 'h' in the callback's argument
// changes nothing by itself. The unsafe twins are stamped_on_another_stream
// and written_through_the_stored_address in refusals/R12-stream-time.cu.
struct Stamp {
  CUtensorMap *map;
  int word;
  unsigned long long value;
};
static void CUDART_CB stamp_word(void *p) {
  Stamp *s = static_cast<Stamp *>(p);
  s->map->opaque[s->word] = s->value;
  delete s;
}
__global__ void read_before_the_stamp(const CUtensorMap *map, unsigned long long *out) { out[15] = map->opaque[8]; }

void stamped_after_it_read(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, other = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  read_before_the_stamp<<<1, 1, 0, s>>>(d, out);
  cudaLaunchHostFunc(s, stamp_word, new Stamp{&h, 8, 5});
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'read_before_the_stamp' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void stamped_after_it_read(
// CHECK-FIXES: {{^}}  read_before_the_stamp<<<1, 1, 0, s>>>(h, out);
// CHECK-FIXES-NEXT: {{^}}  cudaLaunchHostFunc(s, stamp_word, new Stamp{&h, 8, 5});
// CHECK-FIXES-NEXT: {{^}}  *d = h;

// The staging map written again before the host waits for the copy's
// stream, with what it already holds ('m', unchanged since the write before
// the copy): whenever the copy runs it reads the same map, so it becomes an
// assignment at its call. The unsafe twin is restaged_after_a_change in
// refusals/R12-stream-time.cu.
__global__ void restaged(const CUtensorMap *map, unsigned long long *out) { out[18] = map->opaque[6]; }

void restaged_with_the_same_map(const CUtensorMap &a, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap m = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = m;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  *pin = m;
  restaged<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'restaged' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void restaged_with_the_same_map(
// CHECK-FIXES: {{^}}  *d = *pin;
// CHECK-FIXES-NEXT: {{^}}  *pin = m;
// CHECK-FIXES-NEXT: {{^}}  restaged<<<1, 1, 0, s>>>(*d, out);
__global__ void per_round(const CUtensorMap *map, unsigned long long *out, int i) { out[i] = map->opaque[3]; }

// A stream created non-blocking anew in each round names no one stream
// through the function, but nothing holds it: a hold enqueued on it would
// count as one that may hold every stream (refusals/R12-round-streams.cu).
// Each round's launch runs at its call, after that round's copy.
void per_round_streams(const CUtensorMap *maps, int rounds, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  for (int i = 0; i < rounds; ++i) {
    cudaStream_t rs;
    cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking);
    cudaMemcpy(d, &maps[i], sizeof(CUtensorMap), cudaMemcpyHostToDevice);
    per_round<<<1, 1, 0, rs>>>(d, out, i);
    cudaStreamSynchronize(rs);
    cudaStreamDestroy(rs);
  }
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'per_round' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void per_round_streams(
// CHECK-FIXES: {{^}}    *d = maps[i];
// CHECK-FIXES-NEXT: {{^}}    per_round<<<1, 1, 0, rs>>>(*d, out, i);
__global__ void same_bytes(const CUtensorMap *map, unsigned long long *out) { out[4] = map->opaque[4]; }

// A held copy from page-locked memory that was given the same local map
// the first copy copies, unchanged since: the two writes land out of order
// (the launch runs before the held one lands) but carry one value, so the
// launch reads that map whichever has landed (DeviceStorage::stagedMapAtCall).
// The twin, the map changed after it was staged, is staged_then_changed in
// refusals/R12-stream-time.cu.
void staged_same_map(const CUtensorMap &a, volatile int *flag, const int *dflag, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap m = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = m;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &m, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  same_bytes<<<1, 1>>>(d, out);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'same_bytes' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void staged_same_map(
// CHECK-FIXES: {{^}}  *d = m;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  *d = *pin;
// CHECK-FIXES-NEXT: {{^}}  same_bytes<<<1, 1>>>(*d, out);

// The held copy from 'pin' carries the map as it was staged, which the
// first copy also copied: a change of the map after both (m.opaque[6])
// leaves one value in the device copy whichever lands last, so the launch
// before the held copy lands reads what the snapshot at its call passes.
__global__ void staged_before_change(const CUtensorMap *map, unsigned long long *out) { out[19] = map->opaque[6]; }
void staged_then_map_changed(const CUtensorMap &a, volatile int *flag, const int *dflag, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap m = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = m;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &m, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  m.opaque[6] = 2;
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  staged_before_change<<<1, 1>>>(d, out);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'staged_before_change' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void staged_then_map_changed(
// CHECK-FIXES: {{^}}  *d = m;
// CHECK-FIXES-NEXT: {{^}}  m.opaque[6] = 2;
// CHECK-FIXES-NEXT: {{^}}  spin<<<1, 1, 0, s>>>(dflag);
// CHECK-FIXES-NEXT: {{^}}  *d = *pin;
// CHECK-FIXES-NEXT: {{^}}  staged_before_change<<<1, 1>>>(*d, out);
