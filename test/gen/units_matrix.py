#!/usr/bin/env python3
"""Generated programs of two translation units for the storage rule.

  units_matrix.py --tool PATH [--nvcc PATH] [--cover] [-j N] [--keep DIR] [--only TEXT]

--cover (the test command's default sample, covering.py) runs the fewest
cells that show every use and run mode, and every storage both safe and
unsafe.

The storage rule keeps every signature and edits only the translation unit
it analyses. A storage another unit can reach must therefore stay on the
device unless the run is the whole program in one unit. Dimensions:

  storage  where the device copy lives, each reachable from another unit:
           a field of a class defined in a header, the parameter of a
           launcher declared in a header, the result of an upload helper
           declared in a header, a global with external linkage;
  use      what the other unit (b.cu) does with it as device memory: copies
           into it, reads it back, frees it, or passes its own device copy;
  run      both sources in one run (no database), or a.cu alone with a
           compile database that lists both.

a.cu always logs the pointer before the launch, a shape only the rule
follows (the flows refuse it), so every cell tests the rule. Every unsafe
cell must be refused with all files unchanged. Each storage has a safe twin:
a.cu alone, a whole program in one unit (no database, with main), and a.cu
alone with a database whose other unit neither includes the header nor
names the storage (the units' includes are read by text), each of which
must be rewritten; and a `static` global with b.cu present (b.cu cannot
name it), which must be rewritten in both run modes. With --nvcc every safe program is compiled
for sm_90a after the rewrite, and its original only when that fails, to
tell a generator's bug from the tool's (--nvcc-all: the unsafe ones, which
must stay unchanged, too). Prints
`units-matrix: R/S safe rewritten, U/T unsafe refused, C compile failures`.
"""
import argparse, concurrent.futures, json, os, shutil, subprocess, sys, tempfile
from covering import covering
from output_forms import form_problems

KERNEL = r'''__global__ void sum_map(const CUtensorMap *map, unsigned long long *out) {
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[0] = s;
}
'''
MAIN_TAIL = r'''
int main() {
  unsigned long long *out = nullptr;
  cudaMalloc(&out, sizeof(unsigned long long));
  run(out);
  return cudaDeviceSynchronize() != cudaSuccess;
}
'''
INCLUDES = "#include <cuda.h>\n#include <cuda_runtime.h>\n#include <cstdio>\n"
LOG = 'std::fprintf(stderr, "map at %p\\n", (const void *){p});\n'



def global_program(linkage):
    """a.cu's code for a device copy in a global `g_map` (`static` or not)."""
    return (linkage + "CUtensorMap *g_map = nullptr;\n"
            "void run(unsigned long long *out) {\n  CUtensorMap h{};\n"
            "  cudaMalloc(&g_map, sizeof(CUtensorMap));\n"
            "  cudaMemcpy(g_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n  "
            + LOG.format(p="g_map") + "  sum_map<<<1, 1>>>(g_map, out);\n}\n")


# Each storage: the header, a.cu's code (with run(out)), and b.cu's code for
# each use ({ref}: how b.cu reaches the storage).
STORAGES = {
    "header-field": dict(
        header="#pragma once\n" + INCLUDES + "struct Holder {\n  CUtensorMap *map = nullptr;\n};\n"
               "void other_unit(Holder &o);\n",
        a="void run(unsigned long long *out) {\n  CUtensorMap h{};\n  Holder holder;\n"
          "  cudaMalloc(&holder.map, sizeof(CUtensorMap));\n"
          "  cudaMemcpy(holder.map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n  "
          + LOG.format(p="holder.map") + "  sum_map<<<1, 1>>>(holder.map, out);\n"
          "  cudaFree(holder.map);\n}\n",
        b="void other_unit(Holder &o) {{\n{use}}}\n", ref="o.map",
        uses=["copy-into", "read-back", "free"]),
    "launcher-param": dict(
        header="#pragma once\n" + INCLUDES + "void launch(const CUtensorMap *m, unsigned long long *out);\n"
               "void other_unit(unsigned long long *out);\n",
        a="void launch(const CUtensorMap *m, unsigned long long *out) {\n  "
          + LOG.format(p="m") + "  sum_map<<<1, 1>>>(m, out);\n}\n"
          "void run(unsigned long long *out) {\n  CUtensorMap h{};\n  CUtensorMap *d = nullptr;\n"
          "  cudaMalloc(&d, sizeof(CUtensorMap));\n"
          "  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n"
          "  launch(d, out);\n  cudaFree(d);\n}\n",
        b="void other_unit(unsigned long long *out) {{\n{use}}}\n", ref=None,
        uses=["pass-device-copy"]),
    "helper-result": dict(
        header="#pragma once\n" + INCLUDES + "CUtensorMap *make_map();\nvoid other_unit();\n",
        a="CUtensorMap *make_map() {\n  CUtensorMap h{};\n  CUtensorMap *d = nullptr;\n"
          "  cudaMalloc(&d, sizeof(CUtensorMap));\n"
          "  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n  return d;\n}\n"
          "void run(unsigned long long *out) {\n  CUtensorMap *m = make_map();\n  "
          + LOG.format(p="m") + "  sum_map<<<1, 1>>>(m, out);\n  cudaFree(m);\n}\n",
        b="void other_unit() {{\n  CUtensorMap *p = make_map();\n{use}}}\n", ref="p",
        uses=["copy-into", "read-back", "free"]),
    "extern-global": dict(
        header="#pragma once\n" + INCLUDES + "extern CUtensorMap *g_map;\nvoid other_unit();\n",
        a=global_program(""),
        b="void other_unit() {{\n{use}}}\n", ref="g_map",
        uses=["copy-into", "read-back", "free"]),
}
# The safe control: the global is static, so b.cu (which has its own
# device copy) cannot name it.
STATIC_GLOBAL = dict(
    header="#pragma once\n" + INCLUDES + "void other_unit();\n",
    a=global_program("static "),
    b="static CUtensorMap *g_map = nullptr;\nvoid other_unit() {\n"
      "  CUtensorMap h{};\n  cudaMalloc(&g_map, sizeof(CUtensorMap));\n"
      "  cudaMemcpy(g_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n  cudaFree(g_map);\n}\n")

USES = {
    "copy-into": "  CUtensorMap h2{{}};\n  cudaMemcpy({ref}, &h2, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n",
    "read-back": "  CUtensorMap back;\n  cudaMemcpy(&back, {ref}, sizeof(CUtensorMap), cudaMemcpyDeviceToHost);\n",
    "free": "  cudaFree({ref});\n",
    "pass-device-copy": "  CUtensorMap h2{{}};\n  CUtensorMap *d2 = nullptr;\n  cudaMalloc(&d2, sizeof(CUtensorMap));\n"
                        "  cudaMemcpy(d2, &h2, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n"
                        "  launch(d2, out);\n  cudaFree(d2);\n",
}
# Another unit of the database that neither includes the header nor names
# the storage: it cannot reach it.
UNRELATED = "#include <cuda_runtime.h>\n\nint unrelated_unit() { return cudaDeviceSynchronize() != cudaSuccess; }\n"
NVCC_FLAGS = ["-std=c++17", "-gencode=arch=compute_90a,code=sm_90a"]


def program(storage, use, with_b):
    s = STORAGES.get(storage, STATIC_GLOBAL)
    a = '#include "shared.h"\n\n' + KERNEL + "\n" + s["a"] + MAIN_TAIL
    files = {"shared.h": s["header"], "a.cu": a}
    if with_b == "unrelated":
        files["b.cu"] = UNRELATED
    elif with_b:
        b = s["b"] if use is None else s["b"].format(use=USES[use].format(ref=s["ref"]))
        files["b.cu"] = '#include "shared.h"\n\n' + b
    return files


def cells():
    out = []
    for storage, s in STORAGES.items():
        for use in s["uses"]:
            for run in ("both", "alone-with-database"):
                out.append((storage, use, run, False))
        out.append((storage, None, "one-unit", True))
        out.append((storage, None, "alone-with-unrelated-unit", True))
    for run in ("both", "alone-with-database"):
        out.append(("static-global", None, run, True))
    return out


def name_of(cell):
    storage, use, run, _ = cell
    return "-".join(x for x in (storage, use, run) if x)


def compiles(nvcc, cdir, sources):
    for src in sources:
        r = subprocess.run([nvcc] + NVCC_FLAGS + ["-c", "-o", os.devnull, src], cwd=cdir,
                           capture_output=True, text=True)
        if r.returncode:
            return src + ":\n" + r.stderr[-2000:]
    return None


def original_verdict(nvcc, cdir, files, sources):
    """Whether nvcc takes the original, asked only once the rewrite failed
    (a safe program's original is not compiled otherwise: a generator bug
    shows as a rejected rewrite, and this tells the two apart)."""
    odir = os.path.join(cdir, "original")
    os.makedirs(odir, exist_ok=True)
    for fn, text in files.items():
        with open(os.path.join(odir, fn), "w") as f:
            f.write(text)
    err = compiles(nvcc, odir, sources)
    return "\n(the original compiles)" if err is None else "\n(nvcc rejects the original too: " + err + ")"


def check(a, cell, work):
    storage, use, run, safe = cell
    cdir = os.path.join(work, name_of(cell))
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    files = program(storage, use, "unrelated" if run.endswith("unrelated-unit") else run != "one-unit")
    for fn, text in files.items():
        with open(os.path.join(cdir, fn), "w") as f:
            f.write(text)
    sources = sorted(fn for fn in files if fn.endswith(".cu"))
    problems, compile_failures = [], 0
    if a.nvcc and a.nvcc_all and not safe:
        err = compiles(a.nvcc, cdir, sources)
        if err:
            problems.append("nvcc rejects the original: " + err)
            compile_failures += 1
    cmd = [a.tool]
    if run.startswith("alone-with"):
        db = [{"directory": cdir, "file": os.path.join(cdir, src),
               "arguments": ["nvcc"] + NVCC_FLAGS + ["-c", src]} for src in sources]
        with open(os.path.join(cdir, "compile_commands.json"), "w") as f:
            json.dump(db, f)
        cmd += ["-p", cdir, "a.cu"]
    else:
        cmd += ["--no-database"] + sources
    r = subprocess.run(cmd, cwd=cdir, capture_output=True, text=True)
    out = r.stdout + r.stderr
    after = {fn: open(os.path.join(cdir, fn)).read() for fn in files}
    rewritten = "kernel 'sum_map' reads descriptor 'map' through global memory; now passed by value" in out
    refused = "descriptor 'map' of kernel 'sum_map' is left by reference" in out
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    if safe:
        problems += form_problems((files[fn], after[fn]) for fn in files)
        if not rewritten or refused:
            problems.append("the safe program was not rewritten")
        elif a.nvcc:
            err = compiles(a.nvcc, cdir, sources)
            if err:
                problems.append("nvcc rejects the rewrite: " + err + original_verdict(a.nvcc, cdir, files, sources))
                compile_failures += 1
    else:
        if rewritten or not refused:
            problems.append("WRONG REWRITE: another unit uses the storage as device memory")
        if after != files:
            problems.append("a file of the unsafe program changed")
    return problems, compile_failures, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--nvcc")
    ap.add_argument("--nvcc-all", action="store_true",
                    help="also compile the unsafe programs (left unchanged) before the run")
    ap.add_argument("--keep")
    ap.add_argument("--only")
    ap.add_argument("--cover", action="store_true",
                    help="only the cells that show every value of every dimension (covering.py)")
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1))
    a = ap.parse_args()
    a.tool = os.path.abspath(a.tool)
    todo = [c for c in cells() if not a.only or a.only in name_of(c)]
    if a.cover:
        todo = covering(todo, [lambda c: c[1], lambda c: c[2], lambda c: (c[0], c[3])])
    work = a.keep or tempfile.mkdtemp(prefix="units-matrix-")
    bad_safe = bad_unsafe = compile_failures = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        for cell, (problems, cf, out) in zip(todo, pool.map(lambda c: check(a, c, work), todo)):
            compile_failures += cf
            if problems:
                if cell[3]:
                    bad_safe += 1
                else:
                    bad_unsafe += 1
            print(("FAIL " if problems else "ok   ") + name_of(cell), flush=True)
            for p in problems:
                print("     " + p)
            if problems:
                print("     " + out.replace("\n", "\n     "))
    safe = sum(1 for c in todo if c[3])
    unsafe = len(todo) - safe
    print(f"units-matrix: {safe - bad_safe}/{safe} safe rewritten, {unsafe - bad_unsafe}/{unsafe} unsafe "
          f"refused, {compile_failures} compile failures")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad_safe or bad_unsafe or compile_failures else 0


if __name__ == "__main__":
    sys.exit(main())
