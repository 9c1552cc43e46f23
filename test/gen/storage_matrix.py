#!/usr/bin/env python3
"""Generated tests of the storage rule (issue 20): where the device copy
lives x how the launch happens x how the kernel is declared x how the copy is
made, each safe program with unsafe twins that must be refused with the file
(and the header it includes) left byte-identical.

  storage_matrix.py --tool PATH [--nvcc PATH] [--full | --cover] [--sample N --seed S]
                    [--keep DIR] [--emit DIR] [-j N]

Every program is runnable: its kernel checksums every byte of the
descriptor it reads, and it prints one checksum per launch. By default each
(storage, launch) pair runs once, with the copy form and the kernel form
rotating, plus every (storage, host change) safe twin and every (storage,
hazard) unsafe twin; --full runs the whole product. --cover (the test
command's default sample, covering.py) runs the fewest of those cells that
show every storage, copy form, launch form, kernel form and twist, and every
storage and every launch form both safe and unsafe; with
--nvcc it compiles the fewest of its safe cells that show every copy, launch
and kernel form.
With --nvcc each rewritten program is compiled for sm_90a (--sample picks a
fixed-seed subset for that); the original is compiled only when its rewrite
fails, to tell a generator's bug from the tool's. --emit DIR writes the safe programs,
original and rewritten, for test/gpu/storage/run.sh on the GPU (run.sh links
no -lcuda, so a program that calls the driver API gets DRIVER_SHIM appended,
to both copies, after the tool has run).

A host change between the copy and the launch (through a reference, a [&]
lambda, or an address escaped to an unknown function) is not a hazard of the
storage rule: the original launch reads what was copied, and so does a
rewrite that assigns at the copy point. Those programs are safe twins: they
must be rewritten, and the rewritten launch must not read the changed host
object. A change of the device copy (an alias written on the device) before
the launch is a hazard.
"""
import argparse, concurrent.futures, itertools, os, random, re, shutil, subprocess, sys, tempfile
from covering import covering
from output_forms import form_problems

PRELUDE = r'''#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
{includes}
static void fill(CUtensorMap *m, unsigned long long seed) {
  for (int i = 0; i < 16; ++i)
    m->opaque[i] = seed * 0x9E3779B97F4A7C15ull + i;
}
template <class F> static void time_launch(F f) { f(); }
template <class F> static void with_stream(F &&f) { f(cudaStream_t(0)); }
'''

# The checksum every kernel form computes: "s += {word} * (i + {scale});".
SUM_BODY = ("  unsigned long long s = 0;\n  for (int i = 0; i < 16; ++i)\n"
            "    s += {word} * (i + {scale});\n  out[slot] = s;\n")


def _body(word="map->opaque[i]", scale="1"):
    return SUM_BODY.format(word=word, scale=scale)


# Each kernel form: its definition (src), the name a launch spells (name), the
# name the diagnostics use (diag), and optionally a header (the file
# {header} that src includes).
KERNELS = {
    "plain": dict(src="__global__ void sum_map(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                      + _body() + "}\n", name="sum_map"),
    "namespace": dict(src="namespace tiles {\n__global__ void sum_map(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                          + _body() + "}\n}\n", name="tiles::sum_map"),
    "template": dict(src="template <int Scale>\n__global__ void sum_map_t(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                         + _body(scale="Scale") + "}\n", name="sum_map_t<1>"),
    # A template with an explicit instantiation definition in the same file.
    "explicit-instantiation": dict(
        src="template <int Scale>\n__global__ void sum_map_e(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
            + _body(scale="Scale") + "}\n"
            "template __global__ void sum_map_e<1>(const CUtensorMap *, unsigned long long *, int);\n",
        name="sum_map_e<1>"),
    # The template in a header, its explicit instantiation in the .cu file.
    "explicit-instantiation-header": dict(
        header="#pragma once\n#include <cuda.h>\n\ntemplate <int Scale>\n"
               "__global__ void sum_map_h(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
               + _body(scale="Scale") + "}\n",
        src="#include \"{header}\"\n"
            "template __global__ void sum_map_h<1>(const CUtensorMap *map, unsigned long long *out, int slot);\n",
        name="sum_map_h<1>"),
    "typedef-pointer": dict(src="typedef const CUtensorMap *MapPtr;\n"
                                "__global__ void sum_map_td(MapPtr map, unsigned long long *out, int slot) {\n"
                                + _body() + "}\n", name="sum_map_td"),
    "device-helpers": dict(src="__device__ unsigned long long word_of(const CUtensorMap *m, int i) { return m->opaque[i]; }\n"
                               "__device__ unsigned long long weigh(const CUtensorMap *m, int i) { return word_of(m, i) * (i + 1); }\n"
                               "__global__ void sum_map_dh(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                               "  unsigned long long s = 0;\n  for (int i = 0; i < 16; ++i)\n"
                               "    s += weigh(map, i);\n  out[slot] = s;\n}\n", name="sum_map_dh"),
    "local-macro": dict(src="__global__ void sum_map_m(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                            "#define MAP_WORD(i) (map->opaque[(i)])\n"
                            + _body(word="MAP_WORD(i)") + "#undef MAP_WORD\n}\n", name="sum_map_m"),
}

COPIES = {
    "sync": "cudaMemcpy({d}, &{h}, sizeof(CUtensorMap), cudaMemcpyHostToDevice);",
    "async": "cudaMemcpyAsync({d}, &{h}, sizeof(CUtensorMap), cudaMemcpyHostToDevice, 0);",
    # The driver copy into runtime-allocated memory (the storage form
    # "driver-deviceptr" has the CUdeviceptr lifecycle).
    "driver": "cuMemcpyHtoD((CUdeviceptr){d}, &{h}, sizeof(CUtensorMap));",
}

# {pre} and {ad}: what an argument array needs to hold the device pointer
# ({ad} is its address; {pre} declares a local copy when the storage is not
# an lvalue).
LAUNCHES = {
    "chevron": "{k}<<<1, 1>>>({d}, out, {slot});",
    "ref-lambda": "auto go{slot} = [&] {{ {k}<<<1, 1>>>({d}, out, {slot}); }};\n    go{slot}();",
    "copy-lambda-timed": "time_launch([=] {{ {k}<<<1, 1>>>({d}, out, {slot}); }});",
    "launch-ex": "{{\n    cudaLaunchConfig_t cfg = {{}};\n    cfg.gridDim = dim3(1);\n    cfg.blockDim = dim3(1);\n"
                 "    cudaLaunchKernelEx(&cfg, {k}, {d}, out, {slot});\n  }}",
    "logged": "std::fprintf(stderr, \"map at %p\\n\", (void *){d});\n    {k}<<<1, 1>>>({d}, out, {slot});",
    "host-template": "launch_t<1>({d}, out, {slot});",
    "auto-kernel-attribute": "{{\n    auto kernel = {k};\n"
                             "    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);\n"
                             "    kernel<<<1, 1>>>({d}, out, {slot});\n  }}",
    "two-kernels": "{k}<<<1, 1>>>({d}, out, {slot});\n    sum_again<<<1, 1>>>({d}, out, {slot});",
    # A generic lambda instantiated twice (int and short).
    "generic-lambda": "auto go{slot} = [&](auto n) {{ {k}<<<1, 1>>>({d}, out, n); }};\n"
                      "    go{slot}({slot});\n    go{slot}(static_cast<short>({slot}));",
    "argument-array": "{{\n    {pre}int s{slot} = {slot};\n    void *args[] = {{{ad}, &out, &s{slot}}};\n"
                      "    cudaLaunchKernel((const void *){k}, dim3(1), dim3(1), args, 0, 0);\n  }}",
    # The driver launch of the runtime kernel: cudaGetFuncBySymbol through a
    # cast into a CUfunction local, cuLaunchKernel with an argument array.
    "driver-by-symbol": "{{\n    {pre}CUfunction f{slot} = nullptr;\n"
                        "    cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t *>(&f{slot}), (const void *){k});\n"
                        "    int s{slot} = {slot};\n    void *args[] = {{{ad}, &out, &s{slot}}};\n"
                        "    cuLaunchKernel(f{slot}, 1, 1, 1, 1, 1, 1, 0, 0, args, nullptr);\n  }}",
    # A helper that takes a callable (and hands it the stream).
    "callable-helper": "with_stream([&](cudaStream_t st) {{ {k}<<<1, 1, 0, st>>>({d}, out, {slot}); }});",
}
# Launches that copy the storage into a [=] closure.
COPY_CAPTURE = {"copy-lambda-timed"}
# The second kernel of "two-kernels": it reads the same copy and must be
# rewritten with the first.
SECOND_KERNEL = ("__global__ void sum_again(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                 "  unsigned long long s = 0;\n  for (int i = 0; i < 16; ++i)\n"
                 "    s += map->opaque[i] * (i + 3);\n  out[slot] ^= s;\n}\n")
LAUNCHER_T = "template <int N> static void launch_t(CUtensorMap *m, unsigned long long *out, int slot) {{ {k}<<<N, 1>>>(m, out, slot); }}\n"

# Each storage: declarations before run(), the body of run() ({L0}/{L1}: the
# two launches, {C}: a copy statement template, {X}: where a hazard goes,
# {H}: a point between a copy of the host object h and the launch that reads
# it, where a host change or a device change before the launch goes), and
# how the device pointer is spelled there ('-' at {H}: not reachable there). {L0:d:addr} names the address an
# argument array passes when d is not an lvalue. Options: includes,
# rvalue (d is not an lvalue: no pointer to the pointer), no_copy_capture
# (the storage cannot be copied into a [=] closure), copy (a fixed copy form).
STORAGES = {
    "local": dict(decls="", body="""CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  {C:d:h1}
  {H:d:h1}
  {X:d}
  {L0:d}
  {C:d:h2}
  {L1:d}
  cudaFree(d);"""),
    "static-local-template": dict(decls="""template <int N> static void step(const CUtensorMap &h, unsigned long long *out, int slot) {{
  static CUtensorMap *d = nullptr;
  if (!d)
    cudaMalloc(&d, sizeof(CUtensorMap));
  {C:d:h}
  if (slot == 0) {{
    {L0:d}
  }} else {{
    {L1:d}
  }}
  {X:d}
}}
""", body="""step<4>(h1, out, 0);
  step<4>(h2, out, 1);"""),
    "file-cache-rebuilt": dict(decls="""static CUtensorMap *g_map = nullptr;
static void prepare(const CUtensorMap &h) {{
  if (g_map)
    cudaFree(g_map);
  cudaMalloc(&g_map, sizeof(CUtensorMap));
  {C:g_map:h}
}}
""", body="""prepare(h1);
  {H:g_map:h1}
  {L0:g_map}
  prepare(h2);
  {L1:g_map}
  {X:g_map}
  cudaFree(g_map);
  g_map = nullptr;"""),
    "class-member": dict(decls="""class Runner {{
public:
  explicit Runner(const CUtensorMap &h) {{
    cudaMalloc(&dmap_, sizeof(CUtensorMap));
    reload(h);
  }}
  ~Runner() {{ cudaFree(dmap_); }}
  void reload(const CUtensorMap &h) {{ {C:dmap_:h} }}
  void run(unsigned long long *out, int slot) {{
    if (slot == 0) {{
      {L0:dmap_}
    }} else {{
      {L1:dmap_}
    }}
    {X:dmap_}
  }}
private:
  CUtensorMap *dmap_ = nullptr;
}};
""", body="""Runner r(h1);
  {H:-:h1}
  r.run(out, 0);
  r.reload(h2);
  r.run(out, 1);"""),
    "struct-field": dict(decls="""struct MapPair {{
  CUtensorMap host;
  CUtensorMap *device;
}};
""", body="""MapPair m{{}};
  m.host = h1;
  cudaMalloc(&m.device, sizeof(CUtensorMap));
  {C:m.device:m.host}
  {H:m.device:m.host}
  {X:m.device}
  {L0:m.device}
  m.host = h2;
  {C:m.device:m.host}
  {L1:m.device}
  cudaFree(m.device);"""),
    "upload-helper": dict(decls="""static CUtensorMap *upload(const CUtensorMap &h) {{
  CUtensorMap *p = nullptr;
  if (cudaMalloc(&p, sizeof(CUtensorMap)) != cudaSuccess)
    return nullptr;
  {C:p:h}
  return p;
}}
""", body="""CUtensorMap *a = upload(h1);
  CUtensorMap *b = upload(h2);
  if (!a || !b)
    return 1;
  {H:a:h1}
  {L0:a}
  {L1:b}
  {X:a}
  cudaFree(a);
  cudaFree(b);"""),
    "out-param-helper": dict(decls="""static void upload_into(const CUtensorMap &h, CUtensorMap *&slot) {{
  cudaMalloc(&slot, sizeof(CUtensorMap));
  {C:slot:h}
}}
""", body="""CUtensorMap *a = nullptr, *b = nullptr;
  upload_into(h1, a);
  upload_into(h2, b);
  {H:a:h1}
  {L0:a}
  {L1:b}
  {X:b}
  cudaFree(a);
  cudaFree(b);"""),
    "caching-helper": dict(rvalue=True, decls="""static CUtensorMap *cached(const CUtensorMap &h) {{
  static CUtensorMap *c = nullptr;
  if (!c) {{
    cudaMalloc(&c, sizeof(CUtensorMap));
    {C:c:h}
  }}
  return c;
}}
""", body="""{L0:cached(h1)}
  {L1:cached(h2)}
  {X:cached(h1)}"""),
    "global-in-template": dict(decls="""static CUtensorMap *g_tile = nullptr;
template <int N> static void go(unsigned long long *out, int slot) {{
  if (slot == 0) {{
    {L0:g_tile}
  }} else {{
    {L1:g_tile}
  }}
  {X:g_tile}
}}
""", body="""cudaMalloc(&g_tile, sizeof(CUtensorMap));
  {C:g_tile:h1}
  {H:g_tile:h1}
  go<2>(out, 0);
  {C:g_tile:h2}
  go<2>(out, 1);
  cudaFree(g_tile);"""),
    # A smart pointer whose deleter frees the device copy; .get() at every use.
    "unique-ptr": dict(includes=["<memory>"], rvalue=True, no_copy_capture=True, decls="""struct DeviceFree {{
  void operator()(CUtensorMap *p) const {{ cudaFree(p); }}
}};
""", body="""CUtensorMap *fresh = nullptr;
  cudaMalloc(&fresh, sizeof(CUtensorMap));
  std::unique_ptr<CUtensorMap, DeviceFree> d(fresh);
  {C:d.get():h1}
  {H:d.get():h1}
  {X:d.get()}
  {L0:d.get()}
  {C:d.get():h2}
  {L1:d.get()}"""),
    # Element 0 of a container of device pointers.
    "vector-element-0": dict(includes=["<vector>"], decls="", body="""std::vector<CUtensorMap *> maps(2, nullptr);
  cudaMalloc(&maps[0], sizeof(CUtensorMap));
  {C:maps[0]:h1}
  {H:maps[0]:h1}
  {X:maps[0]}
  {L0:maps[0]}
  {C:maps[0]:h2}
  {L1:maps[0]}
  cudaFree(maps[0]);"""),
    "array-element-0": dict(decls="", body="""CUtensorMap *maps[2] = {{nullptr, nullptr}};
  cudaMalloc(&maps[0], sizeof(CUtensorMap));
  {C:maps[0]:h1}
  {H:maps[0]:h1}
  {X:maps[0]}
  {L0:maps[0]}
  {C:maps[0]:h2}
  {L1:maps[0]}
  cudaFree(maps[0]);"""),
    # The device pointer held by a lambda's capture, which copies and launches.
    "lambda-capture": dict(decls="", body="""CUtensorMap *d = nullptr;
  cudaMalloc(&d, sizeof(CUtensorMap));
  auto step = [d, out](const CUtensorMap &h, int slot) mutable {{
    {C:d:h}
    {X:d}
    if (slot == 0) {{
      {L0:d}
    }} else {{
      {L1:d}
    }}
  }};
  step(h1, 0);
  step(h2, 1);
  cudaFree(d);"""),
    "template-upload-helper": dict(decls="""template <class T> static T *upload_t(const T &h) {{
  T *p = nullptr;
  cudaMalloc(&p, sizeof(T));
  {C:p:h}
  return p;
}}
""", body="""CUtensorMap *a = upload_t(h1);
  CUtensorMap *b = upload_t(h2);
  {H:a:h1}
  {L0:a}
  {L1:b}
  {X:a}
  cudaFree(a);
  cudaFree(b);"""),
    "struct-field-upload-helper": dict(decls="""struct Buffers {{
  CUtensorMap *map;
  int tiles;
}};
static CUtensorMap *upload(const CUtensorMap &h) {{
  CUtensorMap *p = nullptr;
  cudaMalloc(&p, sizeof(CUtensorMap));
  {C:p:h}
  return p;
}}
""", body="""Buffers first{{}}, second{{}};
  first.map = upload(h1);
  second.map = upload(h2);
  {H:first.map:h1}
  {L0:first.map}
  {L1:second.map}
  {X:first.map}
  cudaFree(first.map);
  cudaFree(second.map);"""),
    # A file-scope cache filled by an inline copy on the first call.
    "static-cache-inline-copy": dict(decls="""static CUtensorMap *s_map = nullptr;
static void launch_cached(const CUtensorMap &h, unsigned long long *out, int slot) {{
  if (!s_map) {{
    cudaMalloc(&s_map, sizeof(CUtensorMap));
    {C:s_map:h}
  }}
  if (slot == 0) {{
    {L0:s_map}
  }} else {{
    {L1:s_map}
  }}
  {X:s_map}
}}
""", body="""launch_cached(h1, out, 0);
  launch_cached(h2, out, 1);
  cudaFree(s_map);
  s_map = nullptr;"""),
    # The driver lifecycle: a CUdeviceptr, cuMemAlloc, cuMemcpyHtoD, cuMemFree,
    # and the cast a typed launch needs.
    "driver-deviceptr": dict(copy="driver", rvalue=True, decls="", body="""CUdeviceptr dptr = 0;
  cuMemAlloc(&dptr, sizeof(CUtensorMap));
  cuMemcpyHtoD(dptr, &h1, sizeof(CUtensorMap));
  {H:(CUtensorMap *)dptr:h1}
  {X:(CUtensorMap *)dptr}
  {L0:(CUtensorMap *)dptr:&dptr}
  cuMemcpyHtoD(dptr, &h2, sizeof(CUtensorMap));
  {L1:(CUtensorMap *)dptr:&dptr}
  cuMemFree(dptr);"""),
}

# Unsafe twins: what goes at {X} (or at {H} when listed in AT_H), and what
# they need declared.
PATCH = "__global__ void patch(CUtensorMap *m) { m->opaque[0] = 7; }\n"
HAZARDS = {
    "device-to-host": ("{{ CUtensorMap back; cudaMemcpy(&back, {d}, sizeof(CUtensorMap), cudaMemcpyDeviceToHost); }}", ""),
    "unknown-extern": ("keep_somewhere({d});", "extern void keep_somewhere(CUtensorMap *m);\n"),
    "pointer-arithmetic": ("{{ const CUtensorMap *next = {d} + 1; (void)next; }}", ""),
    "device-write": ("patch<<<1, 1>>>({d});", PATCH),
    "untyped-kernel": ("raw<<<1, 1>>>({d});", "__global__ void raw(void *p) { (void)p; }\n"),
    # A pitched memset: no write the snapshot takes (a plain cudaMemset is,
    # patterns/H13-partial-device-writes.cu).
    "memset": ("cudaMemset2D({d}, sizeof(CUtensorMap), 0, sizeof(CUtensorMap), 1);", ""),
    # A launch of the device copy captured into a graph and replayed after
    # a later copy: the replay reads that copy, where by value (or as a
    # snapshot) it keeps the one captured. (A graph that captures none of
    # the copy's work is no hazard: the legacy stream, where the cells copy
    # and launch, cannot be captured.)
    "graph-replay": ("{{ std::fprintf(stderr, \"%p\\n\", (void *){d}); cudaStream_t s; cudaStreamCreate(&s); "
                     "cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); replayed<<<1, 1, 0, s>>>({d}); "
                     "cudaGraph_t g; cudaStreamEndCapture(s, &g); cudaGraphExec_t ge; "
                     "cudaGraphInstantiate(&ge, g, 0); CUtensorMap later{{}}; "
                     "cudaMemcpy({d}, &later, sizeof(CUtensorMap), cudaMemcpyHostToDevice); "
                     "cudaGraphLaunch(ge, s); cudaStreamSynchronize(s); }}",
                     "__global__ void replayed(const CUtensorMap *m) {\n"
                     "  asm volatile(\"prefetch.tensormap [%0];\" :: \"l\"(m) : \"memory\");\n}\n"),
    "device-alias": ("{{ CUtensorMap *alias = {d}; patch<<<1, 1>>>(alias); }}", PATCH),
    "pointer-to-pointer": ("{{ CUtensorMap **slot = &{d}; (void)slot; }}", ""),
    "device-to-device": ("{{ CUtensorMap *twin = nullptr; cudaMalloc(&twin, sizeof(CUtensorMap)); "
                         "cudaMemcpy(twin, {d}, sizeof(CUtensorMap), cudaMemcpyDeviceToDevice); cudaFree(twin); }}", ""),
    # A run-time index of the pointer, in a kernel and on the host.
    "runtime-index-kernel": ("{{ volatile int zero = 0; pick<<<1, 1>>>({d}, zero); }}",
                             "__device__ unsigned long long g_sink;\n"
                             "__global__ void pick(const CUtensorMap *m, int i) { g_sink = m[i].opaque[0]; }\n"),
    "runtime-index-host": ("{{ volatile int zero = 0; peek<<<1, 1>>>({d} + zero); }}",
                           "__device__ unsigned long long g_sink;\n"
                           "__global__ void peek(const CUtensorMap *m) { g_sink = m->opaque[0]; }\n"),
    # A second kernel, typed, that cannot take the map by value (it keeps the
    # pointer past the launch).
    "unrewritten-kernel": ("keep_on_device<<<1, 1>>>({d});",
                           "__device__ const CUtensorMap *g_seen;\n"
                           "__global__ void keep_on_device(const CUtensorMap *m) { g_seen = m; }\n"),
    # The fourth alias kind of issue 19: an alias of the device copy written
    # on the device between the copy and the launch (the launch reads 7).
    "device-alias-before-launch": ("{{ CUtensorMap *alias = {d}; patch<<<1, 1>>>(alias); }}", PATCH),
}
AT_H = {"device-alias-before-launch"}
# A hazard that needs an lvalue storage at {X}.
LVALUE_ONLY = {"pointer-to-pointer"}

# Safe twins: the host object h changes at {H}, after the copy and before the
# launch that reads the copy (issue 19's host alias kinds). The original
# launch reads the copied value; a rewrite must too. escape() is weak and
# undefined, so the program links and runs (the call is not made), and the
# tool sees an unknown function that may keep the address.
HOST_CHANGES = {
    "host-change-reference": ("{{ CUtensorMap &r = {h}; r.opaque[0] ^= 1; }}", ""),
    "host-change-lambda": ("{{ auto touch = [&] {{ {h}.opaque[0] ^= 2; }}; touch(); }}", ""),
    "host-change-escape": ("if (escape)\n    escape(&{h});",
                           "extern void escape(CUtensorMap *m) __attribute__((weak));\n"),
}
HOST_CHANGED = "// the host object changed after the copy"
LAUNCH0_DONE = "// launch 0 done"

# run.sh (test/gpu/storage) links no -lcuda: emitted programs that call the
# driver get these definitions, which go through the runtime's entry points.
DRIVER_SHIM = r'''
// Appended for the GPU run only (it links no -lcuda): the driver calls this
// program makes go through the runtime's entry points.
template <class F> static F driver_fn(const char *name) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
  return reinterpret_cast<F>(p);
}
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t n) {
  static auto f = driver_fn<CUresult(CUDAAPI *)(CUdeviceptr *, size_t)>("cuMemAlloc");
  return f(p, n);
}
CUresult CUDAAPI cuMemFree(CUdeviceptr p) {
  static auto f = driver_fn<CUresult(CUDAAPI *)(CUdeviceptr)>("cuMemFree");
  return f(p);
}
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n) {
  static auto f = driver_fn<CUresult(CUDAAPI *)(CUdeviceptr, const void *, size_t)>("cuMemcpyHtoD");
  return f(d, h, n);
}
CUresult CUDAAPI cuLaunchKernel(CUfunction k, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned shared, CUstream s, void **params, void **extra) {
  static auto f = driver_fn<CUresult(CUDAAPI *)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                                unsigned, unsigned, CUstream, void **, void **)>("cuLaunchKernel");
  return f(k, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}
'''
DRIVER_CALLS = ("cuMemAlloc(", "cuMemFree(", "cuMemcpyHtoD(", "cuLaunchKernel(")

LVALUE = re.compile(r"^[A-Za-z_]\w*(\.\w+|\[0\])*$")


def expand(template, kernel, copy, launch, twist):
    """Fills the {C:d:h}, {L0:d}, {L1:d}, {X:d}, {H:d:h} placeholders; {{ and
    }} outside them are single braces."""
    out, i, n = [], 0, len(template)
    while i < n:
        if template.startswith("{{", i) or template.startswith("}}", i):
            out.append(template[i])
            i += 2
            continue
        if template[i] != "{":
            out.append(template[i])
            i += 1
            continue
        k = template.index("}", i)
        tag, *args = template[i + 1:k].split(":")
        i = k + 1
        d = args[0] if args else ""
        if tag == "C":
            out.append(COPIES[copy].format(d=d, h=args[1]))
        elif tag in ("L0", "L1"):
            slot = tag[1]
            addr = args[1] if len(args) > 1 else None
            pre = ""
            if addr is None:
                if LVALUE.match(d):
                    addr = "&" + d
                else:
                    pre, addr = f"CUtensorMap *p{slot} = {d};\n    ", f"&p{slot}"
            out.append(LAUNCHES[launch].format(k=kernel, d=d, slot=slot, pre=pre, ad=addr))
            if tag == "L0" and twist in HOST_CHANGES:
                out.append("\n    " + LAUNCH0_DONE)
        elif tag == "X":
            if twist in HAZARDS and twist not in AT_H:
                out.append(HAZARDS[twist][0].format(d=d))
        elif tag == "H":
            if twist in AT_H:
                out.append(HAZARDS[twist][0].format(d=d))
            elif twist in HOST_CHANGES:
                out.append(HOST_CHANGES[twist][0].format(h=args[1]) + "\n  " + HOST_CHANGED)
        else:
            raise ValueError(tag)
    return "".join(out)


def twist_extra(twist):
    if twist in HAZARDS:
        return HAZARDS[twist][1]
    if twist in HOST_CHANGES:
        return HOST_CHANGES[twist][1]
    return ""


def has_h(storage):
    s = STORAGES[storage]
    return "{H:" in s["decls"] + s["body"]


def applicable(storage, launch, twist):
    s = STORAGES[storage]
    if launch in COPY_CAPTURE and s.get("no_copy_capture"):
        return False
    if twist in LVALUE_ONLY and s.get("rvalue"):
        return False
    if (twist in AT_H or twist in HOST_CHANGES) and not has_h(storage):
        return False
    if twist in AT_H and "{H:-:" in s["decls"] + s["body"]:
        return False
    return True


def cell_name(cell):
    return "-".join(x or "safe" for x in cell)


def program(storage, copy, launch, kernel_form, twist=None, name="p"):
    """The program's files: {file name: text}; the first one is the .cu."""
    kf = KERNELS[kernel_form]
    s = STORAGES[storage]
    files = {}
    header = name + ".cuh"
    kdef = kf["src"].replace("{header}", header)
    if "header" in kf:
        files[header] = kf["header"]
    kname = kf["name"]
    decls = expand(s["decls"], kname, copy, launch, twist)
    body = expand(s["body"], kname, copy, launch, twist)
    launcher = LAUNCHER_T.format(k=kname).replace("{{", "{").replace("}}", "}") if launch == "host-template" else ""
    if launch == "two-kernels":
        kdef += SECOND_KERNEL
    includes = "".join(f"#include {inc}\n" for inc in s.get("includes", []))
    src = (PRELUDE.replace("{includes}", includes) + kdef + twist_extra(twist) + launcher + decls +
           "\nstatic int run(unsigned long long *out) {\n  CUtensorMap h1, h2;\n  fill(&h1, 1);\n  fill(&h2, 2);\n  " +
           body + "\n  return 0;\n}\n\nint main() {\n  unsigned long long *out, host[2] = {0, 0};\n"
           "  cudaMalloc(&out, sizeof(host));\n  if (run(out))\n    return 1;\n"
           "  if (cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost) != cudaSuccess)\n    return 1;\n"
           "  std::printf(\"%016llx %016llx\\n\", host[0], host[1]);\n  return 0;\n}\n")
    return {name + ".cu": src, **files}


def nvcc_ok(nvcc, path):
    c = subprocess.run(["nice", nvcc, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-c", "-o",
                        path + ".o", path], capture_output=True, text=True)
    return c.returncode == 0, c.stderr[-1500:]


def original_verdict(nvcc, cdir, files):
    """Whether nvcc takes the original, asked only once the rewrite failed
    (the original is not compiled otherwise: a generator bug shows as a
    rejected rewrite, and this tells the two apart)."""
    odir = os.path.join(cdir, "original")
    os.makedirs(odir, exist_ok=True)
    for fn, text in files.items():
        with open(os.path.join(odir, fn), "w") as f:
            f.write(text)
    main_file = next(fn for fn in files if fn.endswith(".cu"))
    ok, err = nvcc_ok(nvcc, os.path.join(odir, main_file))
    return "\n(the original compiles)" if ok else "\n(nvcc rejects the original too:\n" + err + ")"


def host_read_after_change(text, host):
    """Whether the rewritten code between the host change and the end of the
    first launch names the changed host object (the launch would read the
    changed value instead of the copy)."""
    a = text.find(HOST_CHANGED)
    if a < 0:
        return False
    b = text.find(LAUNCH0_DONE, a)
    if b < 0:
        return False
    return re.search(r"(?<![\w.])" + re.escape(host) + r"(?!\w)", text[a + len(HOST_CHANGED):b]) is not None


def changed_host(storage):
    m = re.search(r"\{H:[^}]*:([^}:]+)\}", STORAGES[storage]["decls"] + STORAGES[storage]["body"])
    return m.group(1) if m else None


def check(a, cell, work, compile_it):
    storage, copy, launch, kform, twist = cell
    name = cell_name(cell)
    cdir = os.path.join(work, name)
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    files = program(storage, copy, launch, kform, twist, name)
    main_file = name + ".cu"
    path = os.path.join(cdir, main_file)
    for fn, text in files.items():
        with open(os.path.join(cdir, fn), "w") as f:
            f.write(text)
    problems, compile_failures = [], 0
    r = subprocess.run([a.tool, "--no-database", path], cwd=cdir, capture_output=True, text=True)
    out = r.stderr
    after = {fn: open(os.path.join(cdir, fn)).read() for fn in files}
    kbase = KERNELS[kform]["name"].split("<")[0]
    rewritten = f"kernel '{kbase}' reads descriptor 'map' through global memory; now passed by value" in out
    refused = f"descriptor 'map' of kernel '{kbase}' is left by reference" in out
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    gap = known_gap(cell) if is_safe(cell) else None
    if gap:
        if rewritten or not refused:
            problems.append(f"a known gap ({gap}) is rewritten now: take it off known_gap()")
        if after != files:
            problems.append("a known gap's file changed")
    elif twist is None or twist in HOST_CHANGES:
        if not rewritten or refused:
            problems.append("the safe program was not rewritten")
        if launch == "two-kernels" and "kernel 'sum_again' reads descriptor 'map' through global memory; now passed by value" not in out:
            problems.append("the second kernel of the copy was not rewritten")
        elif subprocess.run([a.tool, "--no-database", "--check", path], cwd=cdir,
                            capture_output=True).returncode:
            problems.append("a second run would change it again")
        if rewritten:
            problems += form_problems((files[fn], after[fn]) for fn in files)
        if twist in HOST_CHANGES and rewritten and host_read_after_change(after[main_file], changed_host(storage)):
            problems.append("WRONG REWRITE: the first launch reads the host object changed after the copy")
        if compile_it and rewritten:
            ok, err = nvcc_ok(a.nvcc, path)
            if not ok:
                problems.append("nvcc rejects the rewrite:\n" + err + original_verdict(a.nvcc, cdir, files))
                compile_failures += 1
        if a.emit and rewritten:
            for kind, texts in (("original", files), ("rewritten", after)):
                os.makedirs(os.path.join(a.emit, kind), exist_ok=True)
                for fn, text in texts.items():
                    if fn == main_file and any(c in text for c in DRIVER_CALLS):
                        text += DRIVER_SHIM
                    with open(os.path.join(a.emit, kind, fn), "w") as f:
                        f.write(text)
    else:
        if not refused or rewritten:
            problems.append("the unsafe twin was rewritten")
        if after != files:
            problems.append("the unsafe twin's file changed")
    return name, problems, compile_failures, out


def cells(full):
    kforms, copies, launches = list(KERNELS), list(COPIES), list(LAUNCHES)
    nk, nc, nl = len(kforms), len(copies), len(launches)

    def copy_of(s, c):
        return STORAGES[s].get("copy", c)
    safe, unsafe = [], []
    if full:
        safe = [(s, copy_of(s, c), l, k, None) for s, c, l, k in itertools.product(STORAGES, COPIES, LAUNCHES, KERNELS)
                if applicable(s, l, None) and (c == copy_of(s, c) or c == copies[0])]
    else:
        safe = [(s, copy_of(s, copies[(i + j) % nc]), l, kforms[(i + j) % nk], None)
                for i, s in enumerate(STORAGES) for j, l in enumerate(launches) if applicable(s, l, None)]
    for twists, bucket, offset in ((list(HOST_CHANGES), safe, 0), (list(HAZARDS), unsafe, 1)):
        for i, s in enumerate(STORAGES):
            for j, t in enumerate(twists):
                ls = [l for l in launches if applicable(s, l, t)]
                if not ls:
                    continue
                if not full:
                    ls = [ls[(i + j + offset) % len(ls)]]
                for l in ls:
                    bucket.append((s, copy_of(s, copies[(i + j) % nc]), l, kforms[(i + j) % nk], t))
    return list(dict.fromkeys(safe + unsafe))


def is_safe(cell):
    return cell[4] is None or cell[4] in HOST_CHANGES


def covering_cells(todo):
    """The default sample (--cover): every value of every dimension, and
    every storage and every launch form both rewritten (a safe program) and
    refused (an unsafe twin)."""
    return covering(todo, [lambda c: c[0], lambda c: c[1], lambda c: c[2], lambda c: c[3],
                           lambda c: c[4], lambda c: (c[0], is_safe(c)), lambda c: (c[2], is_safe(c))])


def covering_compiles(todo):
    """The cells of --cover compiled with --nvcc: every copy, launch and
    kernel form among the safe ones."""
    return covering([c for c in todo if is_safe(c)],
                    [lambda c: c[1], lambda c: c[2], lambda c: c[3]])


def known_gap(cell):
    """Safe cells the tool does not rewrite yet, each a documented limitation
    (docs/limitations.md, "The storage rule"): they must be refused with the
    files unchanged, and a gap that starts being rewritten fails the cell,
    so that it is taken off this list. None is left. The last before: a
    callable helper that hands its callable the stream to launch on, where
    the storage is copied into again after the launch, was refused as work
    on a stream that may run late; the stream rule now holds only where
    something in the unit may hold a stream (issue 41,
    refusals/R5-held-streams.cu), and nothing here does.
    """
    return None


# Storage shapes whose second copy goes into the storage the first launch
# read (`{C:d:h2}`), not into a fresh allocation.
COPIED_AGAIN = {"local", "struct-field", "global-in-template", "unique-ptr", "vector-element-0",
                "array-element-0", "driver-deviceptr"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--nvcc")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--cover", action="store_true",
                    help="only the cells that show every value of every dimension (covering.py)")
    ap.add_argument("--sample", type=int, default=0, help="compile only this many cells with nvcc")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--keep")
    ap.add_argument("--emit")
    ap.add_argument("--only", help="run only the cells whose name contains this")
    ap.add_argument("--cells", type=int, default=0,
                    help="run only a fixed-seed sample of this many cells (--seed)")
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1),
                    help="cells checked at once (each in its own directory; output in order)")
    ap.add_argument("--list", action="store_true", help="print the cells' names and exit")
    a = ap.parse_args()
    a.tool = os.path.abspath(a.tool)
    todo = cells(a.full)
    if a.cover:
        todo = covering_cells(todo)
    if a.list:
        for c in todo:
            print(cell_name(c))
        print(f"{sum(map(is_safe, todo))} safe, {sum(not is_safe(c) for c in todo)} unsafe")
        return 0
    compiled = set()
    if a.nvcc:
        compiled = set(random.Random(a.seed).sample(todo, a.sample) if a.sample else
                       covering_compiles(todo) if a.cover else todo)
    work = a.keep or tempfile.mkdtemp(prefix="storage-matrix-")
    os.makedirs(work, exist_ok=True)
    if a.emit:
        shutil.rmtree(a.emit, ignore_errors=True)
    bad_safe = bad_unsafe = compile_failures = 0
    if a.only:
        todo = [c for c in todo if a.only in cell_name(c)]
    if a.cells:
        todo = random.Random(a.seed).sample(todo, min(a.cells, len(todo)))
        compiled &= set(todo)
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        results = pool.map(lambda c: (c, check(a, c, work, c in compiled)), todo)
        for cell, (name, problems, cf, out) in results:
            compile_failures += cf
            if problems:
                if is_safe(cell):
                    bad_safe += 1
                else:
                    bad_unsafe += 1
            tag = "FAIL " if problems else "gap  " if is_safe(cell) and known_gap(cell) else "ok   "
            print(tag + name, flush=True)
            for p in problems:
                print("     " + p)
            if problems:
                print("     " + out.replace("\n", "\n     "))
    safe = sum(1 for c in todo if is_safe(c))
    gaps = sum(1 for c in todo if is_safe(c) and known_gap(c))
    unsafe = len(todo) - safe
    print(f"matrix: {safe - gaps - bad_safe}/{safe} safe rewritten, {unsafe - bad_unsafe}/{unsafe} unsafe "
          f"refused, {compile_failures} compile failures")
    print(f"known gaps: {gaps} safe cells refused as documented")
    print(f"storage-matrix: {len(todo) - bad_safe - bad_unsafe}/{len(todo)} cells as expected")
    return 1 if bad_safe or bad_unsafe or compile_failures else 0


if __name__ == "__main__":
    sys.exit(main())
