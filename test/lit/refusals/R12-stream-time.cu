// R12, stream time (tma-105): the unsafe twins of
// patterns/H13-stream-time.cu. A second copy into the device copy made
// while a launch of it on a held stream may still wait (it may run before
// the launch), and a page-locked staging map written while the copy that
// reads it may still wait on its stream, or handed to code the tool does
// not see. A launch held behind a flag only known stores set, where the
// copies before the store leave another map, where a copy may run after
// the store, where unseen code is given the flag, and where the map
// copied before the store changes after the launch; and a capture whose
// replay follows a copy held until a release, which lands after the copy
// the text makes after it. Each device copy is
// launched again after the staging map is
// refilled, so the staging map cannot be passed by value either. Each refusal
// names the call, and the file is left as it is.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}
__global__ void held(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[5]; }
__global__ void refilled(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[7]; }
__global__ void handed(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[7]; }

void refill(CUtensorMap *m);

// The second copy is made before the host waits for the held stream: the
// first launch may read it.
void copy_while_held(const CUtensorMap &a, const CUtensorMap &b, volatile int *flag, const int *dflag,
                     unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  held<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  held<<<1, 1, 0, s>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'held' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-10]], which waits on a stream that may be held ('spin' waits in a loop on memory that code running later may write, so a stream may be held until later statements run) until a host wait covers it, where the retargeted text makes each at its call [storage.unclassified-use]

// The staging map refilled before the host waits for the copy's stream.
void refilled_early(const CUtensorMap &h, const CUtensorMap &next, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  *pin = next;
  refilled<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  refilled<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'refilled' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: '*pin' is written or freed here before a host wait that covers the copy's stream: the cudaMemcpyAsync into 'd' reads '*pin' when its stream runs it, not at the call [storage.unclassified-use]

// The staging map handed to a function the tool does not see.
void handed_on(cudaStream_t s, unsigned long long *out) {
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  refill(pin);
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  handed<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  refill(pin);
  handed<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'handed' is left by reference
// CHECK-DAG: :[[@LINE-13]]:3: note: also: the storage rule cannot retarget it: 'pin' is passed here: the cudaMemcpyAsync into 'd' reads '*pin' when its stream runs it, not at the call [storage.unclassified-use]

// Held behind a flag only this function sets (patterns/H13-stream-time.cu's
// released_launch), the launch reads what the copies made before the store
// of 1 left: here another map than the one its retargeted form passes.
__global__ void last_differs(const CUtensorMap *map, unsigned long long *out) { out[4] = map->opaque[3]; }
__global__ void after_release(const CUtensorMap *map, unsigned long long *out) { out[5] = map->opaque[3]; }
__global__ void flag_handed(const CUtensorMap *map, unsigned long long *out) { out[6] = map->opaque[3]; }

void watch(volatile int *flag);

#define MAPPED_FLAG                                                                                \
  cudaStream_t s;                                                                                  \
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);                                            \
  volatile int *flag;                                                                              \
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);                                 \
  *flag = 0;                                                                                       \
  int *dflag;                                                                                      \
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);

void last_copy_differs(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  last_differs<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'last_differs' is left by reference
// CHECK-DAG: :[[@LINE-6]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-8]], which waits on a stream that may be held

// The store of 1 lets the launch go while a copy may still be made: the
// launch may read either map.
void write_after_release(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  after_release<<<1, 1, 0, s>>>(d, out);
  *flag = 1;
  cudaMemcpy(d, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_release' is left by reference
// CHECK-DAG: :[[@LINE-5]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-7]], which waits on a stream that may be held

// Code the tool does not see is given the flag: it may let the stream go
// at any time, before the copy of the other map too.
void flag_handed_on(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  watch(flag);
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  flag_handed<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &b, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'flag_handed' is left by reference
// CHECK-DAG: :[[@LINE-7]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-8]], which waits on a stream that may be held

// The map copied before the release changes after the launch: the launch
// cannot pass it as it is at the call.
__global__ void next_changed(const CUtensorMap *map, unsigned long long *out) { out[7] = map->opaque[3]; }

void next_changed_first(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, next = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  next_changed<<<1, 1, 0, s>>>(d, out);
  next.opaque[0] = 0;
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'next_changed' is left by reference
// CHECK-DAG: :[[@LINE-6]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-8]], which waits on a stream that may be held

// A kernel that writes the device copy, held until the release, and a
// launch made after the release, which may run after the write lands:
// the value form cannot pass it the value.
__global__ void stamp_held(CUtensorMap *map, unsigned long long v) { map->opaque[15] = v; }
__global__ void after_stamp(const CUtensorMap *map, unsigned long long *out) { out[8] = map->opaque[15]; }

void launched_after_release(const CUtensorMap &a, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &a, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  stamp_held<<<1, 1, 0, s>>>(d, 7);
  *flag = 1;
  after_stamp<<<1, 1>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_stamp' is left by reference: the device copy passed here is also passed to 'stamp_held', whose descriptor stays by reference and may be changed on the device [tma-105]
// CHECK-DAG: :[[@LINE-7]]:30: note: 'stamp_held' is launched with it here

// A copy held until the release lands after the copy the text makes after
// it: the replay (a launch of the graph runs there) reads the held copy's
// map, not the one copied last in the text, so the capture cannot pass
// that one by value.
__global__ void replayed_late(const CUtensorMap *map, unsigned long long *out) { out[9] = map->opaque[3]; }

void held_copy_before_replay(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, next = b;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStream_t cs;
  cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
  replayed_late<<<1, 1, 0, cs>>>(d, out);
  cudaStreamEndCapture(cs, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaGraphLaunch(exec, 0);
  cudaStreamSynchronize(0);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(cs);
  cudaFree(d);
  cudaFreeHost(pin);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'replayed_late' is left by reference
// CHECK-DAG: :[[@LINE-13]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the write of 'd' at line [[@LINE-14]], which waits on a stream that may be held

// The launch made after the store that lets the hold go, before the host
// waits for the held stream: the held copy may have landed or not, so no
// one map is what the kernel reads (the twin of launched_before_it_lands in
// patterns/H13-stream-time.cu).
__global__ void once_released(const CUtensorMap *map, unsigned long long *out) { out[7] = map->opaque[2]; }

void launched_once_released(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
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
  cudaStreamSynchronize(0);
  *flag = 1;
  once_released<<<1, 1>>>(d, out);
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'once_released' is left by reference
// CHECK-DAG: :[[@LINE-10]]:3: note: also: the storage rule cannot retarget it: this launch of 'd' may run before the write of 'd' at line [[@LINE-13]], which waits on a stream that may be held

// The copy from page-locked memory made after the held launch is on
// another stream, which need not wait for it: it may land before the
// release, and the launch then reads '*pin' (the twin of
// refilled_behind_it in patterns/H13-stream-time.cu).
__global__ void refilled_elsewhere(const CUtensorMap *map, unsigned long long *out) { out[8] = map->opaque[4]; }

void refilled_on_another_stream(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  cudaStream_t other;
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  CUtensorMap h = a, next = b;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  refilled_elsewhere<<<1, 1, 0, s>>>(d, out);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, other);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
  cudaStreamDestroy(other);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'refilled_elsewhere' is left by reference
// CHECK-DAG: :[[@LINE-13]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-14]], which waits on a stream that may be held

// The staging map is written while the held copy that reads it waits, and
// the device copy is launched again once the copy has landed: the copy
// reads the new '*pin' when its stream runs it, where a value taken at
// the call would keep the old one (the twin of value_ahead_of_a_held_copy
// in patterns/H13-stream-time.cu).
__global__ void after_the_refill(const CUtensorMap *map, unsigned long long *out) { out[9] = map->opaque[6]; }
__global__ void stamp_later(CUtensorMap *map, unsigned long long v) { map->opaque[12] = v; }

void staging_refilled_while_held(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  after_the_refill<<<1, 1>>>(d, out);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  *pin = h;
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  after_the_refill<<<1, 1>>>(d, out);
  stamp_later<<<1, 1>>>(d, 7);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_the_refill' is left by reference
// CHECK-DAG: :[[@LINE-14]]:3: note: also: the storage rule cannot retarget it: '*pin' is written or freed here before a host wait that covers the copy's stream: the cudaMemcpyAsync into 'd' reads '*pin' when its stream runs it, not at the call

// The first held copy is released but not waited for: it may land before
// or after the copy at the launch's call, so the launch may read '*pin'
// (the twin of landed_then_held_again in patterns/H13-stream-time.cu).
__global__ void maybe_landed(const CUtensorMap *map, unsigned long long *out) { out[10] = map->opaque[8]; }

void released_not_waited(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
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
  cudaMemcpy(d, &second, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  maybe_landed<<<1, 1>>>(d, out);
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'maybe_landed' is left by reference

// The kernel that writes the device copy is released but not waited for
// before the copy: it may land after it, and the launch read its word
// (the twin of stamped_and_waited in patterns/H13-stream-time.cu).
__global__ void stamp_unwaited(CUtensorMap *map, unsigned long long v) { map->opaque[14] = v; }
__global__ void after_a_late_stamp(const CUtensorMap *map, unsigned long long *out) { out[11] = map->opaque[14]; }

void stamped_not_waited(const CUtensorMap &a, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  stamp_unwaited<<<1, 1, 0, s>>>(d, 5);
  cudaStreamSynchronize(0);
  *flag = 1;
  *flag = 0;
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  after_a_late_stamp<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'after_a_late_stamp' is left by reference

// The third copy comes after the release but before the host waits for the
// held stream: the held copy may land after it, and the launch then reads
// '*pin' (the twin of replaced_once_both_landed in patterns/H13-stream-time.cu).
__global__ void before_the_held_lands(const CUtensorMap *map, unsigned long long *out) { out[12] = map->opaque[9]; }

void replaced_before_the_wait(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
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
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  before_the_held_lands<<<1, 1>>>(d, out);
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost(pin);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'before_the_held_lands' is left by reference
// CHECK-DAG: :[[@LINE-14]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the write of 'd' at line [[@LINE-15]], which waits on a stream that may be held

// As watched_beside_a_staging_copy in patterns/H13-stream-time.cu, but the
// pointer written through between the held launch and the copy it reads is
// taken from the array that keeps the address of 'h': the write may change
// 'h' after the launch's call, so the launch cannot pass 'h', and the
// snapshot at its call is not what it reads at the release.
__global__ void read_at_release(const CUtensorMap *map, unsigned long long *out) { out[14] = map->opaque[11]; }

void written_through_a_watched_pointer(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, other = b;
  CUtensorMap *watched[2] = {&other, &h};
  CUtensorMap *pin = watched[1];
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
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'read_at_release' is left by reference
// CHECK-DAG: :[[@LINE-11]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-13]], which waits on a stream that may be held

// As stamped_after_it_read in patterns/H13-stream-time.cu, but the callback
// that changes 'h' is enqueued on a stream nothing holds: it may run before
// the copy after the launch reads 'h', so the launch cannot pass 'h'.
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

void stamped_on_another_stream(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  cudaStream_t free_running;
  cudaStreamCreateWithFlags(&free_running, cudaStreamNonBlocking);
  CUtensorMap h = a, other = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  read_before_the_stamp<<<1, 1, 0, s>>>(d, out);
  cudaLaunchHostFunc(free_running, stamp_word, new Stamp{&h, 8, 5});
  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  *flag = 0;
  cudaDeviceSynchronize();
  cudaFree(d);
  cudaFreeHost((void *)flag);
  cudaStreamDestroy(s);
  cudaStreamDestroy(free_running);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'read_before_the_stamp' is left by reference
// CHECK-DAG: :[[@LINE-12]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-14]], which waits on a stream that may be held

// The address of 'h' stored in a struct between the held launch and the
// copy it reads, and 'h' written through it there.
__global__ void read_before_the_store(const CUtensorMap *map, unsigned long long *out) { out[16] = map->opaque[9]; }

void written_through_the_stored_address(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  MAPPED_FLAG
  CUtensorMap h = a, other = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  read_before_the_store<<<1, 1, 0, s>>>(d, out);
  Stamp kept{&h, 9, 6};
  kept.map->opaque[kept.word] = kept.value;
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
// CHECK-DAG: warning: descriptor 'map' of kernel 'read_before_the_store' is left by reference
// CHECK-DAG: :[[@LINE-11]]:3: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line [[@LINE-14]], which waits on a stream that may be held

// As restaged_with_the_same_map in patterns/H13-stream-time.cu, but 'm'
// changes between the two writes of the staging map: the copy may read
// either.
__global__ void restaged(const CUtensorMap *map, unsigned long long *out) { out[18] = map->opaque[6]; }

void restaged_after_a_change(const CUtensorMap &a, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap m = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = m;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  m.opaque[0] = 1;
  *pin = m;
  restaged<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'restaged' is left by reference
// CHECK-DAG: :[[@LINE-8]]:3: note: also: the storage rule cannot retarget it: '*pin' is written or freed here before a host wait that covers the copy's stream
__global__ void changed_after_staging(const CUtensorMap *map, unsigned long long *out) { out[4] = map->opaque[4]; }

// The twin of staged_same_map in patterns/H13-stream-time.cu: the map
// changes after it is staged and before the first copy, so the held copy
// carries another value than the copy that has landed when the launch
// reads the device copy.
void staged_then_changed(const CUtensorMap &a, volatile int *flag, const int *dflag, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap m = a;
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = m;
  m.opaque[4] = 1;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &m, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  changed_after_staging<<<1, 1>>>(d, out);
  cudaStreamSynchronize(0);
  *flag = 1;
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'changed_after_staging' is left by reference
