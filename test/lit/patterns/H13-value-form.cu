// H13, the value form: a kernel that writes the device copy keeps its
// descriptor by reference, and the device copy stays in device memory for
// it, with its allocation, copies and free. Beside it, a local CUtensorMap
// takes what each whole copy copies, and every other launch passes that
// value: the snapshot the device copy holds when the launch reads it, where
// no write the kernel makes can reach a launch before a copy that runs at
// its call replaces it. The device copy may be named by a member of a
// local object, and launched through a launcher only the function calls
// (its pointer parameter then takes the value's address; also where the
// flow alone would pass the host map by value, since the map is unchanged,
// but the device copy must stay for the kernel that writes it) or from an
// argument array's slot (which takes it too). A stream-ordered copy from
// page-locked memory that nothing writes before the stream has run it
// reads it at its call, as the value's assignment does. A write of part of
// the device copy by the host's API (cudaMemset, a synchronous cudaMemcpy
// of a word) is made again on the value right after it. A use no row classifies (a
// call through a function pointer) keeps the device copy too: it may write
// it at any time after it, so only launches made before it pass the value.
// The device copy may also be held by storage that outlives the function
// (an accessor's static local, a file-scope pointer of this unit) where
// every use of it is in the function that allocates: the launches through
// the accessor pass the value too.
// The unsafe twins are refusals/R12-value-form.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %FileCheck %s --check-prefix=CHECK-LAUNCHER --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void tile(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
// Marks the device copy used: its descriptor stays by reference.
__global__ void stamp(CUtensorMap *map, unsigned long long v) { map->opaque[15] = v; }
__global__ void wide(const CUtensorMap *map, unsigned long long *out) { out[1] = map->opaque[1]; }
__global__ void listed(const CUtensorMap *map, unsigned long long *out) { out[2] = map->opaque[2]; }

__global__ void scanned(const CUtensorMap *map, unsigned long long *out) { out[3] = map->opaque[3]; }
// Clears a word of the device copy, called through a pointer the tool does
// not follow.
static void clear_word(CUtensorMap *m, int w) { cudaMemset(&m->opaque[w], 0, 8); }
static void (*volatile clear_hook)(CUtensorMap *, int) = clear_word;

__global__ void framed(const CUtensorMap *map, unsigned long long *out) { out[5] = map->opaque[5]; }
__global__ void pinned(const CUtensorMap *map, unsigned long long *out) { out[6] = map->opaque[6]; }
__global__ void masked(const CUtensorMap *map, unsigned long long *out) { out[7] = map->opaque[7]; }
__global__ void held(const CUtensorMap *map, unsigned long long *out) { out[8] = map->opaque[8]; }
static CUtensorMap *&current_map() {
  static CUtensorMap *p;
  return p;
}
static CUtensorMap *last_map;
static void launch_wide(const CUtensorMap *m, unsigned long long *out) { wide<<<1, 1>>>(m, out); }
static void launch_framed(const CUtensorMap *m, unsigned long long *out) { framed<<<1, 1>>>(m, out); }

// Stamped after each launch, and uploaded again before the next one.
void stamped_after_use(const CUtensorMap &src, const CUtensorMap &next, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tile<<<1, 1>>>(d, out);
  stamp<<<1, 1>>>(d, 7);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  tile<<<1, 1>>>(d, out);
  stamp<<<1, 1>>>(d, 9);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'tile' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: warning: descriptor 'map' of kernel 'stamp' is left by reference
// CHECK-FIXES-LABEL: void stamped_after_use(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  tile<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp<<<1, 1>>>(d, 7);
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = next;
// CHECK-FIXES-NEXT: {{^}}  tile<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp<<<1, 1>>>(d, 9);
// CHECK-FIXES-NEXT: {{^}}  cudaDeviceSynchronize();
// CHECK-FIXES-NEXT: {{^}}  cudaFree(d);

// A member of a local object names the device copy; a launcher launches it.
void through_launcher(const CUtensorMap &src, const CUtensorMap &next, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  struct {
    CUtensorMap *map;
  } plan = {d};
  cudaMemcpy(plan.map, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_wide(plan.map, out);
  stamp<<<1, 1>>>(d, 3);
  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_wide(d, out);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'wide' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-LAUNCHER: static void launch_wide(const CUtensorMap *m, unsigned long long *out) { wide<<<1, 1>>>(*m, out); }
// CHECK-FIXES-LABEL: void through_launcher(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES: {{^}}  cudaMemcpy(plan.map, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  launch_wide(&d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp<<<1, 1>>>(d, 3);
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &next, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = next;
// CHECK-FIXES-NEXT: {{^}}  launch_wide(&d_value, out);

// An argument array's slot takes the value's address.
void from_argument_array(const CUtensorMap &src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  void *args[] = {&d, &out};
  cudaLaunchKernel((const void *)listed, dim3(1), dim3(1), args, 0, 0);
  stamp<<<1, 1>>>(d, 5);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'listed' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void from_argument_array(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  void *args[] = {&d_value, &out};

// Handed to code the tool does not follow after the launch: the device copy
// stays for it, and the launch made before it passes the value (the host
// map changes after the copy, so the snapshot, not the map).
void cleared_after_use(CUtensorMap src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  src.opaque[0] = 0;
  scanned<<<1, 1>>>(d, out);
  clear_hook(d, 4);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'scanned' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: :[[@LINE-5]]:3: note: 'd' is passed to an indirect call: the device copy stays, and the launches made before it pass the value
// CHECK-FIXES-LABEL: void cleared_after_use(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  src.opaque[0] = 0;
// CHECK-FIXES-NEXT: {{^}}  scanned<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  clear_hook(d, 4);
// CHECK-FIXES-NEXT: {{^}}  cudaDeviceSynchronize();
// CHECK-FIXES-NEXT: {{^}}  cudaFree(d);

// Through a launcher, the host map unchanged: the device copy stays for the
// kernel that stamps it, and the launcher is passed the value's address.
void stamped_after_launcher(CUtensorMap src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  launch_framed(d, out);
  stamp<<<1, 1>>>(d, 3);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'framed' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-LAUNCHER: static void launch_framed(const CUtensorMap *m, unsigned long long *out) { framed<<<1, 1>>>(*m, out); }
// CHECK-FIXES-LABEL: void stamped_after_launcher(
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  launch_framed(&d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp<<<1, 1>>>(d, 3);

// Uploaded from page-locked memory on a stream, which the host writes again
// only after a wait for that stream.
void pinned_then_stamped(const CUtensorMap &h, const CUtensorMap &next, unsigned long long *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CUtensorMap *pin;
  cudaMallocHost(&pin, sizeof(CUtensorMap));
  *pin = h;
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  pinned<<<1, 1, 0, s>>>(d, out);
  stamp<<<1, 1, 0, s>>>(d, 11);
  cudaStreamSynchronize(s);
  *pin = next;
  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
  pinned<<<1, 1, 0, s>>>(d, out);
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaFreeHost(pin);
  cudaStreamDestroy(s);
}
// CHECK-MESSAGES-DAG: warning: kernel 'pinned' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void pinned_then_stamped(
// CHECK-FIXES: {{^}}  CUtensorMap *d;
// CHECK-FIXES-NEXT: {{^}}  CUtensorMap d_value;
// CHECK-FIXES-NEXT: {{^}}  cudaMalloc(&d, sizeof(CUtensorMap));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
// CHECK-FIXES-NEXT: {{^}}  d_value = *pin;
// CHECK-FIXES-NEXT: {{^}}  pinned<<<1, 1, 0, s>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp<<<1, 1, 0, s>>>(d, 11);
// CHECK-FIXES-NEXT: {{^}}  cudaStreamSynchronize(s);
// CHECK-FIXES-NEXT: {{^}}  *pin = next;
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpyAsync(d, pin, sizeof(CUtensorMap), cudaMemcpyHostToDevice, s);
// CHECK-FIXES-NEXT: {{^}}  d_value = *pin;
// CHECK-FIXES-NEXT: {{^}}  pinned<<<1, 1, 0, s>>>(d_value, out);

// A word of the device copy cleared and another copied from the host
// between the upload and the launch: the value takes the same writes.
void masked_words(const CUtensorMap &src, const unsigned long long *word, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cudaMemset(&d->opaque[7], 0, sizeof(unsigned long long));
  cudaMemcpy(&d->opaque[3], word, sizeof(unsigned long long), cudaMemcpyHostToDevice);
  masked<<<1, 1>>>(d, out);
  stamp<<<1, 1>>>(d, 13);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'masked' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void masked_words(
// CHECK-FIXES: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  cudaMemset(&d->opaque[7], 0, sizeof(unsigned long long));
// CHECK-FIXES-NEXT: {{^}}  memset(&d_value.opaque[7], 0, sizeof(unsigned long long));
// CHECK-FIXES-NEXT: {{^}}  cudaMemcpy(&d->opaque[3], word, sizeof(unsigned long long), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  memcpy(&d_value.opaque[3], word, sizeof(unsigned long long));
// CHECK-FIXES-NEXT: {{^}}  masked<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp<<<1, 1>>>(d, 13);

// Held by an accessor's static local and a file-scope pointer, used only
// here: the launches through them pass the value, and the note names the
// variable allocated into.
void held_by_an_accessor(const CUtensorMap &src, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  current_map() = d;
  last_map = d;
  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  held<<<1, 1>>>(current_map(), out);
  held<<<1, 1>>>(last_map, out);
  stamp<<<1, 1>>>(current_map(), 17);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'held' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: :[[@LINE-12]]:16: note: 'd' stays in device memory for the kernels and calls that may write it; 'd_value' beside it takes what each copy into it copies, and the other launches pass it
// CHECK-FIXES-LABEL: void held_by_an_accessor(
// CHECK-FIXES: {{^}}  cudaMemcpy(d, &src, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
// CHECK-FIXES-NEXT: {{^}}  d_value = src;
// CHECK-FIXES-NEXT: {{^}}  held<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  held<<<1, 1>>>(d_value, out);
// CHECK-FIXES-NEXT: {{^}}  stamp<<<1, 1>>>(current_map(), 17);
