// The unsafe twins of H1-plan-objects (tma-105): the host descriptor field
// itself is changed between the copy and the launch; the plan is handed
// whole to a function in between (it may re-point or re-copy the field);
// the struct has a destructor that frees the field (removing the
// allocation would leave it freeing garbage); the device pointer, or the
// host descriptor, shares a union with a field that is written.
// The storage rule takes two of them: with a destructor, and with the host
// descriptor in a union: the field is retargeted (the destructor's cudaFree
// becomes delete; the copy an assignment, made before the union is
// written). The plan handed whole to a function whose body is not seen
// keeps 'TilePlan::device' on the device everywhere, 'a' included.
// RUN: %prep
// RUN: %tma %t.cu 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=CHECK-FIXES --input-file=%t.cu
// RUN: %nvcc-compile %t.cu
// RUN: %tma --check %t.cu
#include <cuda.h>
#include <cuda_runtime.h>

struct TilePlan {
  CUtensorMap host;
  CUtensorMap *device;
  int passes;
};

struct OwningPlan {
  CUtensorMap host;
  CUtensorMap *device = nullptr;
  ~OwningPlan() { cudaFree(device); }
};

__global__ void a(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void b(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void c(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void d(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
__global__ void e(const CUtensorMap *map) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); }
// CHECK: warning: descriptor 'map' of kernel 'a' is left by reference: host descriptor 'plan' is modified between the copy and the launch; by value the kernel would see the new contents [tma-105]
// CHECK: warning: descriptor 'map' of kernel 'b' is left by reference: 'plan.device' is used between the copy and the launch; it may no longer hold the copied value [tma-105]
// CHECK: note: also: the storage rule cannot retarget it: an object holding 'TilePlan::device' is passed here to code whose body is not seen, which may read or change it [storage.unclassified-use]
// CHECK: warning: kernel 'c' reads descriptor 'map' through global memory; now passed by value [tma-001]

static void describe(CUtensorMap *map, int rows) {
  map->opaque[0] = static_cast<unsigned long long>(rows);
}
void adjust(TilePlan &plan);

void host_changes() {
  TilePlan plan{};
  cudaMalloc(&plan.device, sizeof(CUtensorMap));
  cudaMemcpy(plan.device, &plan.host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  describe(&plan.host, 64);
  a<<<1, 32>>>(plan.device);
  cudaFree(plan.device);
}

void handed_whole() {
  TilePlan plan{};
  cudaMalloc(&plan.device, sizeof(CUtensorMap));
  cudaMemcpy(plan.device, &plan.host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  adjust(plan);
  b<<<1, 32>>>(plan.device);
  cudaFree(plan.device);
}

void with_destructor() {
  OwningPlan owned;
  cudaMalloc(&owned.device, sizeof(CUtensorMap));
  cudaMemcpy(owned.device, &owned.host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  c<<<1, 32>>>(owned.device);
}
union DeviceSlot {
  CUtensorMap *device;
  CUtensorMap *alias;
};

void in_a_union(CUtensorMap *elsewhere) {
  CUtensorMap host{};
  DeviceSlot slot;
  cudaMalloc(&slot.device, sizeof(CUtensorMap));
  cudaMemcpy(slot.device, &host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  slot.alias = elsewhere;
  d<<<1, 32>>>(slot.device);
}
// CHECK: warning: descriptor 'map' of kernel 'd' is left by reference: the descriptor argument 'slot.device' is not a variable holding a device copy [tma-105]
// The host descriptor in a union: writing the other member writes it.
union HostSlot {
  CUtensorMap host;
  unsigned long long raw[16];
};

void host_in_a_union() {
  HostSlot slot{};
  CUtensorMap *device = nullptr;
  cudaMalloc(&device, sizeof(CUtensorMap));
  cudaMemcpy(device, &slot.host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  slot.raw[0] = 7;
  e<<<1, 32>>>(device);
  cudaFree(device);
}
// CHECK: note: also: the storage rule cannot retarget it: 'DeviceSlot::device' is a member of a union [storage.unclassified-use]
// CHECK: warning: kernel 'e' reads descriptor 'map' through global memory; now passed by value [tma-001]
// CHECK: 2 kernels rewritten, 3 refused
// CHECK-FIXES: {{^}}  ~OwningPlan() { delete device; }
// CHECK-FIXES: {{^}}  a<<<1, 32>>>(plan.device);
// CHECK-FIXES: {{^}}  b<<<1, 32>>>(plan.device);
// CHECK-FIXES: {{^}}  owned.device = new CUtensorMap;
// CHECK-FIXES-NEXT: {{^}}  *owned.device = owned.host;
// CHECK-FIXES-NEXT: {{^}}  c<<<1, 32>>>(*owned.device);
// CHECK-FIXES: {{^}}  *device = slot.host;
// CHECK-FIXES-NEXT: {{^}}  slot.raw[0] = 7;
// CHECK-FIXES-NEXT: {{^}}  e<<<1, 32>>>(*device);
