// R12, the value form (tma-105): the unsafe twins of
// patterns/H13-value-form.cu. A kernel's write of the device copy that a
// launch reads with no copy between them, and one that the next round of a
// loop reads, and a launcher that another function calls too (its
// parameter cannot take the value's address there): the launches stay by
// reference, the refusal names the kernel that writes the device copy,
// and the file is left as it is. A use no row classifies (a call through a
// function pointer) may write the device copy at any time after it: a
// launch made after it stays, though a copy comes between (the code behind
// the pointer may keep it, and other code write through it); R12-held-unknown-use.cu
// has one made before it on a stream that may be held until later. A copy
// from page-locked memory that the host writes before the stream has run
// it reads the new map. A write of part of the device copy whose arguments
// have side effects is not made again on the value. Storage that outlives
// the function (an accessor's static local) and is written through in
// another function between the copy and the launch keeps the device copy.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void tile(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void looped(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[1]; }
__global__ void stamp(CUtensorMap *map, unsigned long long v) { map->opaque[15] = v; }
__global__ void mark(CUtensorMap *map, unsigned long long v) { map->opaque[14] = v; }
__global__ void shared(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[2]; }
__global__ void poke(CUtensorMap *map, unsigned long long v) { map->opaque[13] = v; }

__global__ void scanned(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[3]; }
static CUtensorMap *kept;
static void keep(CUtensorMap *m) { kept = m; }
static void clear_kept() { cudaMemset(kept, 0, 8); }
static void (*volatile keep_hook)(CUtensorMap *) = keep;
static void (*volatile later_hook)() = clear_kept;

__global__ void repinned(const CUtensorMap *map, unsigned long long *out) { out[6] = map->opaque[6]; }

__global__ void masked(const CUtensorMap *map, unsigned long long *out) { out[7] = map->opaque[7]; }

__global__ void accessed(const CUtensorMap *map, unsigned long long *out) { out[8] = map->opaque[8]; }
static CUtensorMap *&current_map() {
  static CUtensorMap *p;
  return p;
}
static void clear_current() { cudaMemset(current_map(), 0, sizeof(CUtensorMap)); }

void launch_shared(const CUtensorMap *m, unsigned long long *out) { shared<<<1, 1>>>(m, out); }

// Stamped between the copy and the launch: the launch reads the stamp.
void stamped_before_use(const CUtensorMap &src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamp<<<1, 1>>>(d, 7);
  tile<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'tile' is left by reference: the device copy passed here is also passed to 'stamp', whose descriptor stays by reference and may be changed on the device [tma-105]
// CHECK-DAG: :[[@LINE-6]]:19: note: 'stamp' is launched with it here

// Marked after the launch, in a loop with no copy: the next round reads it.
void marked_in_loop(const CUtensorMap &src, int rounds, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  for (int i = 0; i < rounds; ++i) {
    looped<<<1, 1>>>(d, out);
    mark<<<1, 1>>>(d, i);
  }
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'looped' is left by reference: the device copy passed here is also passed to 'mark', whose descriptor stays by reference and may be changed on the device [tma-105]
// CHECK-DAG: :[[@LINE-6]]:20: note: 'mark' is launched with it here

// The launcher is also called from another function, with its own device
// copy.
void stamped_through_launcher(const CUtensorMap &src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_shared(d, out);
  poke<<<1, 1>>>(d, 2);
  cudaDeviceSynchronize();
  cudaFree(d);
}
void other_caller(const CUtensorMap *elsewhere, unsigned long long *out) { launch_shared(elsewhere, out); }
// CHECK-DAG: warning: descriptor 'map' of kernel 'shared' is left by reference

// Handed before the copy to code the tool does not follow, which keeps the
// pointer; code behind another pointer runs between the copy and the
// launch and may write the device copy through it.
void kept_before_use(CUtensorMap src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  keep_hook(d);
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  src.opaque[0] = 0;
  later_hook();
  scanned<<<1, 1>>>(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'scanned' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: 'd' is passed to an indirect call, which may write the device copy at any time after it: the launch at line [[@LINE-5]] may be made after it [storage.unclassified-use]

// Page-locked memory written again before the stream has run the copy.
void pinned_rewritten(const CUtensorMap &h, const CUtensorMap &next, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  *pin = next;
  repinned<<<1, 1, 0, s>>>(d, out);
  stamp<<<1, 1, 0, s>>>(d, 12);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'repinned' is left by reference
// CHECK-DAG: :[[@LINE-9]]:3: note: also: the storage rule cannot retarget it: '*pin' is written or freed here before a host wait that covers the copy's stream

// A word cleared with a value whose argument has a side effect.
void masked_with_side_effect(const CUtensorMap &src, int fill, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset(&d->opaque[7], fill++, sizeof(unsigned long long));
  masked<<<1, 1>>>(d, out);
  stamp<<<1, 1>>>(d, 14);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'masked' is left by reference
// CHECK-DAG: :[[@LINE-5]]:19: note: also: the storage rule cannot retarget it: it is also launched with kernel 'stamp', whose descriptor stays by reference [storage.unclassified-use]

// The accessor's pointer is written through by another function between
// the copy and the launch.
void cleared_through_an_accessor(const CUtensorMap &src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  current_map() = d;
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  clear_current();
  accessed<<<1, 1>>>(current_map(), out);
  stamp<<<1, 1>>>(d, 19);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'accessed' is left by reference
