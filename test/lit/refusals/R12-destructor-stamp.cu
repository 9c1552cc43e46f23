// R12, stream time (tma-105): the unsafe twin of stamped_after_it_read in
// patterns/H13-stream-time.cu. The stamp is a temporary whose destructor
// writes 'h' through the address its braced initialiser stored, at the end
// of its statement: before the copy the held launch reads, where no
// statement of the function shows the write. Storing an address in a
// braced initialiser writes nothing only for a class without a destructor
// of its own; here the launch must not be passed 'h' as it was at its call.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void spin(const volatile int *flag) {
  while (!*flag) {
  }
}

struct StampOnExit {
  CUtensorMap *map;
  int word;
  unsigned long long value;
  ~StampOnExit() { map->opaque[word] = value; }
};
__global__ void read_after_the_destructor(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[8]; }

void stamped_by_a_destructor(const CUtensorMap &a, const CUtensorMap &b, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  volatile int *flag;
  cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped);
  *flag = 0;
  int *dflag;
  cudaHostGetDevicePointer((void **)&dflag, (void *)flag, 0);
  CUtensorMap h = a, other = b;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &other, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  spin<<<1, 1, 0, s>>>(dflag);
  read_after_the_destructor<<<1, 1, 0, s>>>(d, out);
  StampOnExit{&h, 8, 5};
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
// CHECK: warning: descriptor 'map' of kernel 'read_after_the_destructor' is left by reference: work on the device copy is enqueued on a stream that may be held and 'd' is copied into 2 times
// CHECK: note: also: the storage rule cannot retarget it: this write of 'd' may run before the launch of 'd' at line 40
