// R12, the unsafe twins of patterns/H13-library-holders.cu (tma-105): a
// slot of a standard library holder is a storage only while the holder is
// used by nothing but the accesses that name one slot with a constant (and
// queries that read none: `has_value`, `size`), and made by braces or a
// constructor from one value per slot. Assigned whole, handed to a
// function, reset, reached through `data()` or a `get` by type, made
// from another holder (a structured binding of a named pair too), or a
// reference wrapper re-seated, it may hold anything in any slot: refused,
// naming that use; also where the slot is an argument array's.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: cmp %t.cu %t.orig.cu
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
__global__ void lanes(const CUtensorMap *map, int *out) { out[6] = int(map->opaque[0]); }
__global__ void waves(const CUtensorMap *map, int *out) { out[7] = int(map->opaque[0]); }
__global__ void slots(const CUtensorMap *map, int *out) { out[8] = int(map->opaque[0]); }

void retune(std::tuple<int, CUtensorMap *> &step);
void patch(CUtensorMap **maps);

int pair_assigned(const CUtensorMap &h, CUtensorMap *other, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::pair<CUtensorMap *, int> job{dev, 0};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  job = std::make_pair(other, 1);
  rows<<<1, 1>>>(job.first, out);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'rows' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'job' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]

int tuple_handed_on(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::tuple<int, CUtensorMap *> step{0, dev};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  retune(step);
  cols<<<1, 1>>>(std::get<1>(step), out);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'cols' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'step' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]

int optional_reset(const CUtensorMap &h, CUtensorMap *other, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::optional<CUtensorMap *> maybe = dev;
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  maybe.emplace(other);
  tiles<<<1, 1>>>(*maybe, out);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'tiles' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'maybe' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]

int array_data(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::array<CUtensorMap *, 1> maps{dev};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  patch(maps.data());
  bands<<<1, 1>>>(maps[0], out);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'bands' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'maps' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]

int get_by_type(const CUtensorMap &h, CUtensorMap *other, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::tuple<int, CUtensorMap *> step{0, dev};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::get<CUtensorMap *>(step) = other;
  strips<<<1, 1>>>(std::get<1>(step), out);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'strips' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'step' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]

int made_from_another(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::pair<CUtensorMap *, int> job{dev, 0};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  std::pair<CUtensorMap *, int> copy = job;
  cells<<<1, 1>>>(copy.first, out);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'cells' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'copy' is initialised by a value the tool does not split into its elements [storage.unclassified-use]

int reference_reseated(const CUtensorMap &h, CUtensorMap *other, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::reference_wrapper<CUtensorMap *> current = std::ref(dev);
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  current = std::ref(other);
  lanes<<<1, 1>>>(current.get(), out);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'lanes' is left by reference
// CHECK-DAG: note: also: the storage rule cannot retarget it: 'current' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]

int binding_of_a_copy(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::pair<CUtensorMap *, int> job{dev, 0};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  auto [map, stages] = job;
  waves<<<1, 1>>>(map, out);
  cudaFree(dev);
  return stages;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'waves' is left by reference

int tuple_slot_handed_on(const CUtensorMap &h, int *out) {
  CUtensorMap *dev;
  cudaMalloc(&dev, sizeof(CUtensorMap));
  std::tuple<int, CUtensorMap *> step{0, dev};
  cudaMemcpy(dev, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  retune(step);
  void *args[] = {(void *)&std::get<1>(step), &out};
  cudaLaunchKernel((const void *)slots, dim3(1), dim3(1), args, 0, 0);
  cudaFree(dev);
  return 0;
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'slots' is left by reference
// CHECK-DAG: :[[@LINE-6]]:28: note: also: the storage rule cannot retarget it: 'step' is used other than by a constant index, which may reach any of its elements [storage.unclassified-use]

// The accessor's slot, where a kernel writes the device copy through the
// accessor between the copy and the launch (the twin of
// in_an_accessor_slot in patterns/H13-library-holders.cu).
__global__ void through_accessor(const CUtensorMap *map, unsigned long long *out) { out[0] = map->opaque[0]; }
__global__ void stamp_map(CUtensorMap *map) { map->opaque[0] = 1; }

static CUtensorMap *&kept_map() {
  static CUtensorMap *p;
  return p;
}

void accessor_slot_written(const CUtensorMap &h, unsigned long long *out) {
  CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  kept_map() = d;
  cudaMemcpy(kept_map(), &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  stamp_map<<<1, 1>>>(kept_map());
  void *args[] = {(void *)&kept_map(), &out};
  cudaLaunchKernel((const void *)through_accessor, dim3(1), dim3(1), args, 0, 0);
  cudaDeviceSynchronize();
  cudaFree(d);
}
// CHECK-DAG: warning: descriptor 'map' of kernel 'through_accessor' is left by reference
