// H13, library holders: the device copy kept in a slot of a local standard
// library holder, named with a constant: `std::pair`'s `first`/`second`,
// `std::get<I>` of a `std::tuple`, `*o` and `o.value()` of a
// `std::optional`, `a[I]` and `std::get<I>` of a `std::array`, `w.get()` of
// a `std::reference_wrapper` made by `std::ref`, and a structured binding
// of a `std::pair` made in its declaration, also as the slot of an
// argument array (`&w.get()`, `&std::get<1>(t)`, `&binding`, `&(*o)`, and
// `&kept()` of a function that returns a reference to it). Each slot is
// a storage of its own, the value the holder's initialiser gives it
// (braces, or the library's constructor from one value per slot) a copy
// into it, so the slot joins the device copy's group and the storage rule
// retargets it: the launch passes `*p.first`. The unsafe twins, where the
// holder is used in another way, are refusals/R12-library-holders.cu.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <array>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>

__global__ void rows(const CUtensorMap *map, int *out) { out[0] = int(map->opaque[0]); }
__global__ void cols(const CUtensorMap *map, int *out) { out[1] = int(map->opaque[0]); }
__global__ void tiles(const CUtensorMap *map, int *out) { out[2] = int(map->opaque[0]); }
__global__ void bands(const CUtensorMap *map, int *out) { out[3] = int(map->opaque[0]); }
__global__ void strips(const CUtensorMap *map, int *out) { out[4] = int(map->opaque[0]); }
__global__ void cells(const CUtensorMap *map, int *out) { out[5] = int(map->opaque[0]); }
__global__ void slots(const CUtensorMap *map, int *out) { out[6] = int(map->opaque[0]); }

struct Plan { int stages; };

int with_pair(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::pair<CUtensorMap *, Plan> job{dev, Plan{2}};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  rows<<<1, 1>>>(job.first, out);
  cudaFree(job.first);
  return job.second.stages;
}
// CHECK-MESSAGES-DAG: warning: kernel 'rows' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-MESSAGES-DAG: note: 'job.first' now holds the descriptor in host memory
// CHECK-FIXES-LABEL: int with_pair(
// CHECK-FIXES: {{^}}  dev = new CUtensorMap;
// CHECK-FIXES: {{^}}  *dev = h;
// CHECK-FIXES-NEXT: {{^}}  rows<<<1, 1>>>(*job.first, out);
// CHECK-FIXES-NEXT: {{^}}  delete job.first;

int with_tuple(const CUtensorMap &h, const CUtensorMap &later, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::tuple<int, CUtensorMap *, float> step{3, dev, 0.5f};
  cudaMemcpy(std::get<1>(step), &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cols<<<1, 1>>>(std::get<1>(step), out);
  cudaMemcpy(dev, &later, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cols<<<1, 1>>>(std::get<1>(step), out);
  cudaFree(dev);
  return std::get<0>(step);
}
// CHECK-MESSAGES-DAG: warning: kernel 'cols' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: int with_tuple(
// CHECK-FIXES: {{^}}  *std::get<1>(step) = h;
// CHECK-FIXES-NEXT: {{^}}  cols<<<1, 1>>>(*std::get<1>(step), out);
// CHECK-FIXES-NEXT: {{^}}  *dev = later;
// CHECK-FIXES-NEXT: {{^}}  cols<<<1, 1>>>(*std::get<1>(step), out);

int with_optional(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::optional<CUtensorMap *> maybe = dev;
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  if (maybe)
    tiles<<<1, 1>>>(*maybe, out);
  tiles<<<1, 1>>>(maybe.value(), out);
  cudaFree(dev);
  return 0;
}
// CHECK-MESSAGES-DAG: warning: kernel 'tiles' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: int with_optional(
// CHECK-FIXES: {{^}}    tiles<<<1, 1>>>(**maybe, out);
// CHECK-FIXES-NEXT: {{^}}  tiles<<<1, 1>>>(*maybe.value(), out);

int with_std_array(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::array<CUtensorMap *, 2> maps{dev, nullptr};
  cudaMemcpy(maps[0], &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  bands<<<1, 1>>>(maps[0], out);
  bands<<<1, 1>>>(std::get<0>(maps), out);
  cudaFree(dev);
  return 0;
}
// CHECK-MESSAGES-DAG: warning: kernel 'bands' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: int with_std_array(
// CHECK-FIXES: {{^}}  bands<<<1, 1>>>(*maps[0], out);
// CHECK-FIXES-NEXT: {{^}}  bands<<<1, 1>>>(*std::get<0>(maps), out);

int with_reference(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::reference_wrapper<CUtensorMap *> current = std::ref(dev);
  cudaMemcpy(current.get(), &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  strips<<<1, 1>>>(current.get(), out);
  cudaFree(dev);
  return 0;
}
// CHECK-MESSAGES-DAG: warning: kernel 'strips' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: int with_reference(
// CHECK-FIXES: {{^}}  *current.get() = h;
// CHECK-FIXES-NEXT: {{^}}  strips<<<1, 1>>>(*current.get(), out);

int with_binding(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  auto [map, stages] = std::pair<CUtensorMap *, int>(dev, 4);
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  cells<<<1, 1>>>(map, out);
  cudaFree(dev);
  return stages;
}
// CHECK-MESSAGES-DAG: warning: kernel 'cells' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: int with_binding(
// CHECK-FIXES: {{^}}  cells<<<1, 1>>>(*map, out);

// The slots as the addresses of an argument array: the array's slot then
// holds the retargeted pointer itself, the host map's address.
int in_argument_arrays(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::reference_wrapper<CUtensorMap *> current = std::ref(dev);
  std::tuple<int, CUtensorMap *> step{1, dev};
  auto [map, stages] = std::pair<CUtensorMap *, int>(dev, 4);
  std::optional<CUtensorMap *> maybe = dev;
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  void *by_optional[] = {(void *)&(*maybe), &out};
  cudaLaunchKernel((const void *)slots, dim3(1), dim3(1), by_optional, 0, 0);
  void *by_wrapper[] = {(void *)&current.get(), &out};
  cudaLaunchKernel((const void *)slots, dim3(1), dim3(1), by_wrapper, 0, 0);
  void *by_tuple[] = {(void *)&std::get<1>(step), &out};
  cudaLaunchKernel((const void *)slots, dim3(1), dim3(1), by_tuple, 0, 0);
  void *by_binding[] = {(void *)&map, &out};
  cudaLaunchKernel((const void *)slots, dim3(1), dim3(1), by_binding, 0, 0);
  cudaFree(dev);
  return stages;
}
// CHECK-MESSAGES-DAG: warning: kernel 'slots' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: int in_argument_arrays(
// CHECK-FIXES: {{^}}  void *by_optional[] = {(void *)(*maybe), &out};
// CHECK-FIXES: {{^}}  void *by_wrapper[] = {(void *)current.get(), &out};
// CHECK-FIXES: {{^}}  void *by_tuple[] = {(void *)std::get<1>(step), &out};
// CHECK-FIXES: {{^}}  void *by_binding[] = {(void *)map, &out};

// The device copy kept behind an accessor of a static local, whose
// reference result is an argument array's slot: the slot takes the host
// pointer the accessor then holds.
__global__ void through_accessor(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }

static CUtensorMap *&kept_map() {
  static CUtensorMap *p;
  return p;
}

void in_an_accessor_slot(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  kept_map() = d;
  cudaMemcpy(kept_map(), &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  void *args[] = {(void *)&kept_map(), &out};
  cudaLaunchKernel((const void *)through_accessor, dim3(1), dim3(1), args, 0, 0);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-MESSAGES-DAG: warning: kernel 'through_accessor' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK-FIXES-LABEL: void in_an_accessor_slot(
// CHECK-FIXES: {{^}}  *kept_map() = h;
// CHECK-FIXES-NEXT: {{^}}  void *args[] = {(void *)kept_map(), &out};
