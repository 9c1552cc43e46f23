#!/usr/bin/env python3
"""Generated tests of the storage rule (issue 20): where the device copy
lives x how the launch happens x how the kernel is declared x how the copy is
made, each safe program with unsafe twins that must be refused with the file
left byte-identical.

  storage_matrix.py --tool PATH [--nvcc PATH] [--full] [--sample N --seed S]
                    [--keep DIR] [--emit DIR]

Every program is runnable: its kernel checksums every byte of the
descriptor it reads, and it prints one checksum per launch. By default each
(storage, launch) pair runs once, with the copy form and the kernel form
rotating, plus every (storage, hazard) twin; --full runs the whole product.
With --nvcc each program is compiled for sm_90a before and after (--sample
picks a fixed-seed subset for that). --emit DIR writes the safe programs,
original and rewritten, for test/gpu/storage/run.sh on the GPU.
"""
import argparse, itertools, os, random, shutil, subprocess, sys, tempfile

PRELUDE = r'''#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

static void fill(CUtensorMap *m, unsigned long long seed) {
  for (int i = 0; i < 16; ++i)
    m->opaque[i] = seed * 0x9E3779B97F4A7C15ull + i;
}
template <class F> static void time_launch(F f) { f(); }
'''

KERNELS = {
    "plain": ("__global__ void sum_map(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
              "  unsigned long long s = 0;\n  for (int i = 0; i < 16; ++i)\n"
              "    s += map->opaque[i] * (i + 1);\n  out[slot] = s;\n}\n", "sum_map"),
    "namespace": ("namespace tiles {\n__global__ void sum_map(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                  "  unsigned long long s = 0;\n  for (int i = 0; i < 16; ++i)\n"
                  "    s += map->opaque[i] * (i + 1);\n  out[slot] = s;\n}\n}\n", "tiles::sum_map"),
    "template": ("template <int Scale>\n__global__ void sum_map_t(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                 "  unsigned long long s = 0;\n  for (int i = 0; i < 16; ++i)\n"
                 "    s += map->opaque[i] * (i + Scale);\n  out[slot] = s;\n}\n", "sum_map_t<1>"),
}

COPIES = {
    "sync": "cudaMemcpy({d}, &{h}, sizeof(CUtensorMap), cudaMemcpyHostToDevice);",
    "async": "cudaMemcpyAsync({d}, &{h}, sizeof(CUtensorMap), cudaMemcpyHostToDevice, 0);",
}

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
}
# The second kernel of "two-kernels": it reads the same copy and must be
# rewritten with the first.
SECOND_KERNEL = ("__global__ void sum_again(const CUtensorMap *map, unsigned long long *out, int slot) {\n"
                 "  unsigned long long s = 0;\n  for (int i = 0; i < 16; ++i)\n"
                 "    s += map->opaque[i] * (i + 3);\n  out[slot] ^= s;\n}\n")
LAUNCHER_T = "template <int N> static void launch_t(CUtensorMap *m, unsigned long long *out, int slot) {{ {k}<<<N, 1>>>(m, out, slot); }}\n"

# Each storage: declarations before run(), the body of run() ({L0}/{L1}: the
# two launches, {C}: a copy statement template, {X}: where a hazard goes),
# and how the device pointer is spelled where the hazard goes.
STORAGES = {
    "local": dict(decls="", body="""CUtensorMap *d;
  cudaMalloc(&d, sizeof(CUtensorMap));
  {C:d:h1}
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
  {L0:a}
  {L1:b}
  {X:b}
  cudaFree(a);
  cudaFree(b);"""),
    "caching-helper": dict(decls="""static CUtensorMap *cached(const CUtensorMap &h) {{
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
  go<2>(out, 0);
  {C:g_tile:h2}
  go<2>(out, 1);
  cudaFree(g_tile);"""),
}

# Unsafe twins: what goes at {X} (and what they need declared).
HAZARDS = {
    "device-to-host": ("{{ CUtensorMap back; cudaMemcpy(&back, {d}, sizeof(CUtensorMap), cudaMemcpyDeviceToHost); }}", ""),
    "unknown-extern": ("keep_somewhere({d});", "extern void keep_somewhere(CUtensorMap *m);\n"),
    "pointer-arithmetic": ("{{ const CUtensorMap *next = {d} + 1; (void)next; }}", ""),
    "device-write": ("patch<<<1, 1>>>({d});", "__global__ void patch(CUtensorMap *m) { m->opaque[0] = 7; }\n"),
    "untyped-kernel": ("raw<<<1, 1>>>({d});", "__global__ void raw(void *p) { (void)p; }\n"),
    "memset": ("cudaMemset({d}, 0, sizeof(CUtensorMap));", ""),
    "graph-replay": ("{{ std::fprintf(stderr, \"%p\\n\", (void *){d}); cudaStream_t s; cudaStreamCreate(&s); "
                     "cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); "
                     "cudaGraph_t g; cudaStreamEndCapture(s, &g); }}", ""),
    "device-alias": ("{{ CUtensorMap *alias = {d}; patch<<<1, 1>>>(alias); }}",
                     "__global__ void patch(CUtensorMap *m) { m->opaque[0] = 7; }\n"),
    "pointer-to-pointer": ("{{ CUtensorMap **slot = &{d}; (void)slot; }}", ""),
}
# A hazard needs an lvalue storage at {X}; the caching helper's result is not one.
LVALUE_ONLY = {"pointer-to-pointer"}


def expand(template, kernel, copy, launch, hazard):
    """Fills the {C:d:h}, {L0:d}, {L1:d}, {X:d} placeholders."""
    out, i = [], 0
    while True:
        j = template.find("{", i)
        if j < 0:
            out.append(template[i:])
            break
        if template.startswith("{{", j):
            out.append(template[i:j] + "{")
            i = j + 2
            continue
        k = template.index("}", j)
        if template.startswith("}}", i) and False:
            pass
        out.append(template[i:j])
        tag, *args = template[j + 1:k].split(":")
        d = args[0] if args else ""
        if tag == "C":
            out.append(COPIES[copy].format(d=d, h=args[1]))
        elif tag in ("L0", "L1"):
            out.append(LAUNCHES[launch].format(k=kernel, d=d, slot=tag[1]))
        elif tag == "X":
            if hazard:
                out.append(HAZARDS[hazard][0].format(d=d))
        else:
            raise ValueError(tag)
        i = k + 1
    return "".join(out).replace("}}", "}")


def program(storage, copy, launch, kernel_form, hazard=None):
    kdef, kname = KERNELS[kernel_form]
    s = STORAGES[storage]
    decls = expand(s["decls"], kname, copy, launch, hazard)
    body = expand(s["body"], kname, copy, launch, hazard)
    extra = HAZARDS[hazard][1] if hazard else ""
    launcher = LAUNCHER_T.format(k=kname).replace("{{", "{").replace("}}", "}") if launch == "host-template" else ""
    if launch == "two-kernels":
        kdef += SECOND_KERNEL
    return (PRELUDE + kdef + extra + launcher + decls +
            "\nstatic int run(unsigned long long *out) {\n  CUtensorMap h1, h2;\n  fill(&h1, 1);\n  fill(&h2, 2);\n  " +
            body + "\n  return 0;\n}\n\nint main() {\n  unsigned long long *out, host[2] = {0, 0};\n"
            "  cudaMalloc(&out, sizeof(host));\n  if (run(out))\n    return 1;\n"
            "  if (cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost) != cudaSuccess)\n    return 1;\n"
            "  std::printf(\"%016llx %016llx\\n\", host[0], host[1]);\n  return 0;\n}\n")


def nvcc_ok(nvcc, path):
    c = subprocess.run([nvcc, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-c", "-o",
                        path + ".o", path], capture_output=True, text=True)
    return c.returncode == 0, c.stderr[-1500:]


def check(a, cell, work, compile_it):
    storage, copy, launch, kform, hazard = cell
    name = "-".join([storage, copy, launch, kform] + ([hazard] if hazard else ["safe"]))
    path = os.path.join(work, name + ".cu")
    src = program(storage, copy, launch, kform, hazard)
    with open(path, "w") as f:
        f.write(src)
    problems, compile_failures = [], 0
    if compile_it:
        ok, err = nvcc_ok(a.nvcc, path)
        if not ok:
            problems.append("nvcc rejects the original:\n" + err)
            compile_failures += 1
    r = subprocess.run([a.tool, "--no-database", path], cwd=work, capture_output=True, text=True)
    out = r.stderr
    after = open(path).read()
    kbase = KERNELS[kform][1].split("<")[0]
    rewritten = f"kernel '{kbase}' reads descriptor 'map' through global memory; now passed by value" in out
    refused = f"descriptor 'map' of kernel '{kbase}' is left by reference" in out
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    if hazard is None:
        if not rewritten or refused:
            problems.append("the safe program was not rewritten")
        if launch == "two-kernels" and "kernel 'sum_again' reads descriptor 'map' through global memory; now passed by value" not in out:
            problems.append("the second kernel of the copy was not rewritten")
        elif subprocess.run([a.tool, "--no-database", "--check", path], cwd=work,
                            capture_output=True).returncode:
            problems.append("a second run would change it again")
        if compile_it and rewritten:
            ok, err = nvcc_ok(a.nvcc, path)
            if not ok:
                problems.append("nvcc rejects the rewrite:\n" + err)
                compile_failures += 1
        if a.emit and rewritten:
            for kind, text in (("original", src), ("rewritten", after)):
                os.makedirs(os.path.join(a.emit, kind), exist_ok=True)
                with open(os.path.join(a.emit, kind, name + ".cu"), "w") as f:
                    f.write(text)
    else:
        if not refused or rewritten:
            problems.append("the unsafe twin was rewritten")
        if after != src:
            problems.append("the unsafe twin's file changed")
    return name, problems, compile_failures, out


def cells(full):
    kforms, copies = list(KERNELS), list(COPIES)
    if full:
        safe = [(s, c, l, k, None) for s, c, l, k in itertools.product(STORAGES, COPIES, LAUNCHES, KERNELS)]
    else:
        safe = [(s, copies[(i + j) % 2], l, kforms[(i + 2 * j) % 3], None)
                for i, s in enumerate(STORAGES) for j, l in enumerate(LAUNCHES)]
    unsafe = []
    for i, s in enumerate(STORAGES):
        for j, h in enumerate(HAZARDS):
            if s == "caching-helper" and h in LVALUE_ONLY:
                continue
            launches = list(LAUNCHES) if full else [list(LAUNCHES)[(i + j) % len(LAUNCHES)]]
            for l in launches:
                unsafe.append((s, copies[j % 2], l, kforms[(i + j) % 3], h))
    return safe + unsafe


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--nvcc")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--sample", type=int, default=0, help="compile only this many cells with nvcc")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--keep")
    ap.add_argument("--emit")
    ap.add_argument("--only", help="run only the cells whose name contains this")
    ap.add_argument("--cells", type=int, default=0,
                    help="run only a fixed-seed sample of this many cells (--seed)")
    a = ap.parse_args()
    a.tool = os.path.abspath(a.tool)
    todo = cells(a.full)
    compiled = set()
    if a.nvcc:
        compiled = set(random.Random(a.seed).sample(todo, a.sample) if a.sample else todo)
    work = a.keep or tempfile.mkdtemp(prefix="storage-matrix-")
    os.makedirs(work, exist_ok=True)
    if a.emit:
        shutil.rmtree(a.emit, ignore_errors=True)
    bad_safe = bad_unsafe = compile_failures = 0
    if a.only:
        todo = [c for c in todo if a.only in "-".join(x or "safe" for x in c)]
    if a.cells:
        todo = random.Random(a.seed).sample(todo, min(a.cells, len(todo)))
        compiled &= set(todo)
    for cell in todo:
        name, problems, cf, out = check(a, cell, work, cell in compiled)
        compile_failures += cf
        if problems:
            if cell[4] is None:
                bad_safe += 1
            else:
                bad_unsafe += 1
        print(("FAIL " if problems else "ok   ") + name)
        for p in problems:
            print("     " + p)
        if problems:
            print("     " + out.replace("\n", "\n     "))
    safe = sum(1 for c in todo if c[4] is None)
    unsafe = len(todo) - safe
    print(f"matrix: {safe - bad_safe}/{safe} safe rewritten, {unsafe - bad_unsafe}/{unsafe} unsafe "
          f"refused, {compile_failures} compile failures")
    print(f"storage-matrix: {len(todo) - bad_safe - bad_unsafe}/{len(todo)} cells as expected")
    return 1 if bad_safe or bad_unsafe or compile_failures else 0


if __name__ == "__main__":
    sys.exit(main())
