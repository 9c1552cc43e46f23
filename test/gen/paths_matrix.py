#!/usr/bin/env python3
"""Generated tests of "unchanged between the copy and every launch it
reaches", over every path and every alias (issue 30).

Each cell is one program: a path shape (straight, if, switch fall-through, a
switch or goto that skips a re-copy, a loop written with a label, a for
loop, a try whose throw skips a re-copy) x a writer of the host descriptor
or of its device copy, reached through a name of some kind (the variable, a
pointer, a reference, a structured binding of its words, a reference to one
word, a container of addresses, a void* or uintptr_t handle, a struct
holding a pointer, a callee that keeps the address, a stream callback, a
thread, mapped memory) x a launch form (<<<>>>, cudaLaunchKernelEx, an
argument array, a launcher function). Every cell has two twins:

  unsafe  the writer runs, on some path, after the copy and before a launch
          that the copy reaches: a host writer's cell must be refused or
          retargeted (the copy kept, as an assignment into host memory, so
          the launch passes what was copied); a device writer's must be
          refused with its file unchanged;
  safe    the same writer where no launch can see it (after the last launch,
          or before the copy on every path): must be rewritten.

  paths_matrix.py --tool PATH [--nvcc PATH] [--cover | --sample N --seed S] [--keep DIR]

Without --sample or --cover the whole matrix runs. --cover (the test
command's default sample, covering.py) runs the fewest cells that show every
path shape, launch form and twin, and every writer both safe and unsafe. With --nvcc every rewritten program
is compiled for sm_90a.
"""
import argparse, concurrent.futures, os, random, subprocess, sys, tempfile
from covering import covering
from output_forms import form_problems

PRELUDE = r'''#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

__global__ void consume(const CUtensorMap *map, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
  out[0] = 1;
}
__global__ void scribble(void *p) { static_cast<CUtensorMap *>(p)->opaque[1] = 9; }
__device__ CUtensorMap *g_on_device;
__global__ void stash(void *p) { g_on_device = static_cast<CUtensorMap *>(p); }
__global__ void scribble_kept() { g_on_device->opaque[2] = 9; }
static void encode_tile(CUtensorMap *m, int tile) { m->opaque[0] = tile; }
static CUtensorMap *g_kept;
static void keep(CUtensorMap *m) { g_kept = m; }
static void retile_kept() { g_kept->opaque[3] = 4; }
static void CUDART_CB retile_cb(void *m) { static_cast<CUtensorMap *>(m)->opaque[0] = 5; }
struct Holder {
  CUtensorMap *map;
};
struct Params {
  CUtensorMap map;
  int extra[8];
};
'''
LAUNCHER = '''static void launch(const CUtensorMap *m, int *out) { consume<<<1, 1>>>(m, out); }
'''

# writer -> dict(kind: host|device, setup: before the copy (may use h, d),
#                write: the statement that changes it, buffer: how d is made)
WRITERS = {
    "assign": dict(kind="host", setup="", write="h.opaque[0] = 5;"),
    "pointer": dict(kind="host", setup="CUtensorMap *p = &h;", write="p->opaque[0] = 5;"),
    "reference": dict(kind="host", setup="CUtensorMap &r = h;", write="r.opaque[0] = 5;"),
    "binding": dict(kind="host", setup="auto &[words] = h;", write="words[0] = 5;"),
    "word-ref": dict(kind="host", setup="cuuint64_t &w0 = h.opaque[0];", write="w0 = 5;"),
    "container": dict(kind="host", setup="std::vector<CUtensorMap *> maps;\nmaps.push_back(&h);",
                      write="maps[0]->opaque[0] = 5;"),
    "container-memcpy": dict(kind="host", setup="std::vector<CUtensorMap *> maps;\nmaps.push_back(&h);",
                             write="std::memcpy(maps[0], &spare, 64);"),
    "void-handle": dict(kind="host", setup="void *vh = &h;",
                        write="static_cast<CUtensorMap *>(vh)->opaque[0] = 5;"),
    "uintptr": dict(kind="host", setup="std::uintptr_t uh = reinterpret_cast<std::uintptr_t>(&h);",
                    write="reinterpret_cast<CUtensorMap *>(uh)->opaque[0] = 5;"),
    "holder": dict(kind="host", setup="Holder holder{&h};", write="holder.map->opaque[0] = 5;"),
    "kept": dict(kind="host", setup="keep(&h);", write="retile_kept();"),
    "memset": dict(kind="host", setup="", write="std::memset(&h, 0, 64);"),
    "re-encode": dict(kind="host", setup="", write="encode_tile(&h, 3);"),
    "source-pointer": dict(kind="host", setup="CUtensorMap *src = &h;", write="h = spare;",
                           source="src"),
    "callback": dict(kind="host", setup="",
                     write="cudaLaunchHostFunc(0, retile_cb, &h);\ncudaStreamSynchronize(0);"),
    "thread": dict(kind="host", setup="", write="{\nstd::thread t(encode_tile, &h, 3);\nt.join();\n}"),
    "mapped": dict(kind="host", pinned=True, setup="CUtensorMap *view;\ncudaHostGetDevicePointer(&view, hp, 0);",
                   write="scribble<<<1, 1>>>(view);\ncudaDeviceSynchronize();", source="hp"),
    "device-handle": dict(kind="device", setup="void *vd = d;",
                          write="cudaMemcpy(vd, &spare, sizeof(CUtensorMap), cudaMemcpyHostToDevice);"),
    "device-memset": dict(kind="device", setup="void *vd = d;", write="cudaMemset(vd, 0, 64);"),
    "device-kernel": dict(kind="device", setup="void *vd = d;", write="scribble<<<1, 1>>>(vd);"),
    "device-kept": dict(kind="device", setup="stash<<<1, 1>>>(d);", write="scribble_kept<<<1, 1>>>();"),
    "device-struct": dict(kind="device", params=True, setup="",
                          write="cudaMemcpy(dp, &hparams, sizeof(Params), cudaMemcpyHostToDevice);"),
}

# shape -> (unsafe, safe): statement lists with C (the copy), L (a launch),
# W (the writer). Each unsafe shape has a path copy -> W -> L with no copy
# after W; its safe twin has none.
SHAPES = {
    "straight": (["C", "W", "L"], ["C", "L", "W"]),
    "if": (["C", "if (argc > 1) {", "W", "}", "L"], ["C", "L", "if (argc > 1) {", "W", "}"]),
    "switch-fall": (["C", "switch (argc) {", "case 1:", "W", "[[fallthrough]];", "case 2:", "L",
                     "break;", "default:", "break;", "}"],
                    ["switch (argc) {", "case 1:", "W", "[[fallthrough]];", "case 2:", "C", "L",
                     "break;", "default:", "break;", "}"]),
    "switch-skip": (["C", "L", "W", "switch (argc) {", "case 3:", "C", "[[fallthrough]];",
                     "case 1:", "L", "break;", "default:", "break;", "}"],
                    ["C", "L", "switch (argc) {", "case 3:", "W", "C", "[[fallthrough]];",
                     "case 1:", "L", "break;", "default:", "break;", "}"]),
    "goto-skip": (["C", "L", "W", "if (argc < 5)", "goto skip;", "C", "skip:", "L"],
                  ["C", "L", "if (argc < 5)", "goto skip;", "W", "C", "skip:", "L"]),
    "goto-back": (["int round = 0;", "C", "again:", "L", "W", "if (++round < 2)", "goto again;"],
                  ["int round = 0;", "again:", "W", "C", "L", "if (++round < 2)", "goto again;"]),
    "loop": (["C", "for (int i = 0; i < 2; ++i) {", "L", "W", "}"],
             ["for (int i = 0; i < 2; ++i) {", "W", "C", "L", "}"]),
    "try": (["C", "L", "try {", "W", "if (argc > 0)", "throw 1;", "C", "} catch (int) {", "}", "L"],
            ["C", "L", "try {", "W", "C", "if (argc > 0)", "throw 1;", "} catch (int) {", "}", "L"]),
}

FORMS = {
    "chevron": ("", "consume<<<1, 1>>>(d, out);"),
    "launch-ex": ("cudaLaunchConfig_t cfg = {};\ncfg.gridDim = dim3(1);\ncfg.blockDim = dim3(1);",
                  "cudaLaunchKernelEx(&cfg, consume, d, out);"),
    "argument-array": ("void *args[] = {&d, &out};",
                       "cudaLaunchKernel((const void *)consume, dim3(1), dim3(1), args, 0, 0);"),
    "launcher": ("", "launch(d, out);"),
}


# Safe twins the proof gives up, documented in docs/limitations.md ("What
# unchanged means"): a re-copy that one path runs and another skips is
# "another copy between" the first copy and the launch. A host writer's twin
# is retargeted then; a device writer's storage cannot be (its device copy
# has another name), so it is refused.
KNOWN_GAP_SHAPES = {"switch-skip", "goto-skip", "try"}


def known_gap(shape, writer, safe):
    return safe and shape in KNOWN_GAP_SHAPES and WRITERS[writer]["kind"] == "device"


def program(shape, writer, form, safe):
    w = WRITERS[writer]
    source = w.get("source")
    src_expr = source if source else "&h"
    copy = f"cudaMemcpy(d, {src_expr}, sizeof(CUtensorMap), cudaMemcpyHostToDevice);"
    decl, launch = FORMS[form]
    body = ["CUtensorMap h{}, spare{};"]
    if w.get("pinned"):
        body += ["CUtensorMap *hp;", "cudaHostAlloc(&hp, sizeof(CUtensorMap), cudaHostAllocMapped);",
                 "*hp = h;"]
    body.append("CUtensorMap *d;")
    if w.get("params"):
        body += ["Params hparams{};", "Params *dp;", "cudaMalloc(&dp, sizeof(Params));",
                 "d = &dp->map;"]
    else:
        body.append("cudaMalloc(&d, sizeof(CUtensorMap));")
    body += [s for s in w["setup"].split("\n") if s]
    body += [s for s in decl.split("\n") if s]
    for step in SHAPES[shape][1 if safe else 0]:
        if step == "C":
            body.append(copy)
        elif step == "L":
            body.append(launch)
        elif step == "W":
            body += w["write"].split("\n")
        else:
            body.append(step)
    body.append("cudaFree(dp);" if w.get("params") else "cudaFree(d);")
    body += ["(void)spare;", "return 0;"]
    text = PRELUDE + (LAUNCHER if form == "launcher" else "")
    # Indent by braces so the program reads as a person writes it.
    lines, depth = [], 1
    for s in body:
        if s.startswith("}"):
            depth -= 1
        pad = "  " * depth
        if s.startswith("case ") or s.startswith("default:") or s.endswith(":") and " " not in s:
            pad = "  " * max(depth - 1, 0)
        lines.append(pad + s)
        if s.endswith("{"):
            depth += 1
    return (text + "\nint run(int argc, int *out) {\n" + "\n".join(lines) +
            "\n}\n\nint main(int argc, char **) {\n  int *out;\n"
            "  cudaMalloc(&out, sizeof(int));\n  return run(argc, out);\n}\n")


def compiles(nvcc, path):
    c = subprocess.run([nvcc, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-c",
                        "-o", path + ".o", path], capture_output=True, text=True)
    return None if c.returncode == 0 else c.stderr[-2000:]


def check(tool, nvcc, shape, writer, form, safe, work):
    name = f"{shape}-{writer}-{form}-{'safe' if safe else 'unsafe'}"
    path = os.path.join(work, name + ".cu")
    src = program(shape, writer, form, safe)
    with open(path, "w") as f:
        f.write(src)
    r = subprocess.run([tool, "--no-database", path], cwd=work, capture_output=True, text=True)
    out = r.stderr
    after = open(path).read()
    changed = after != src
    retargeted = changed and "new CUtensorMap" in after
    problems = []
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    if safe:
        if not changed and not known_gap(shape, writer, safe):
            problems.append("the safe twin was not rewritten")
    elif WRITERS[writer]["kind"] == "host":
        # By value passes the host descriptor as it is at the launch; only a
        # kept copy (retargeted to host memory) passes what was copied.
        if changed and not retargeted:
            problems.append("the unsafe twin passes the changed host descriptor")
    elif changed:
        problems.append("the unsafe twin (its device copy changes) was rewritten")
    if changed:
        problems += form_problems([(src, after)])
    if changed and not problems:
        again = subprocess.run([tool, "--no-database", path], cwd=work, capture_output=True,
                               text=True)
        if open(path).read() != after or again.returncode != 0:
            problems.append("a second run changed the rewrite")
        if nvcc:
            err = compiles(nvcc, path)
            if err:
                problems.append("nvcc rejects the rewrite:\n" + err)
    kind = ("direct" if changed and not retargeted else "retargeted" if retargeted else
            "known gap" if known_gap(shape, writer, safe) else "refused")
    return name, problems, out, kind


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--nvcc")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1),
                    help="cells checked at once (output in order)")
    ap.add_argument("--cover", action="store_true",
                    help="only the cells that show every value of every dimension (covering.py)")
    ap.add_argument("--keep")
    ap.add_argument("--only", help="comma-separated substrings a cell's name must contain")
    a = ap.parse_args()
    a.tool = os.path.abspath(a.tool)
    cells = [(s, w, f, t) for s in SHAPES for w in WRITERS for f in FORMS for t in (False, True)]
    if a.only:
        keys = a.only.split(",")
        cells = [c for c in cells
                 if all(k in f"{c[0]}-{c[1]}-{c[2]}-{'safe' if c[3] else 'unsafe'}" for k in keys)]
    if a.cover:
        cells = covering(cells, [lambda c: c[0], lambda c: c[2], lambda c: (c[1], c[3])])
    if a.sample:
        cells = random.Random(a.seed).sample(cells, min(a.sample, len(cells)))
    work = a.keep or tempfile.mkdtemp(prefix="paths-matrix-")
    os.makedirs(work, exist_ok=True)
    failed, compile_failures = 0, 0
    counts = {t: {"direct": 0, "retargeted": 0, "refused": 0, "known gap": 0}
              for t in (True, False)}
    bad = {True: 0, False: 0}
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        results = list(pool.map(lambda c: check(a.tool, a.nvcc, *c, work), cells))
    for cell, (name, problems, out, kind) in zip(cells, results):
        counts[cell[3]][kind] += 1
        compile_failures += sum(1 for p in problems if p.startswith("nvcc rejects"))
        print(("FAIL " if problems else "ok   ") + name + f" ({kind})")
        for p in problems:
            print("     " + p)
        if problems:
            failed += 1
            bad[cell[3]] += 1
            print("     " + out.replace("\n", "\n     "))
    n_safe = sum(1 for c in cells if c[3])
    n_unsafe = len(cells) - n_safe
    print(f"paths-matrix: {n_safe - bad[True]}/{n_safe} safe rewritten or known gaps "
          f"({counts[True]['direct']} by value, {counts[True]['retargeted']} retargeted, "
          f"{counts[True]['known gap']} known gaps refused), "
          f"{n_unsafe - bad[False]}/{n_unsafe} unsafe refused or kept correct "
          f"({counts[False]['refused']} refused, {counts[False]['retargeted']} retargeted), "
          f"{compile_failures} compile failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
