#!/usr/bin/env python3
"""Generated tests of the object proof (issue 19): every hazard through
another name (a reference, a pointer, a [&] lambda, an escaped address, an
alias of the device copy, a pointer to the pointer variable) crossed with
an alias of the device copy kept by a helper and used by a later call,
every launch form the tool rewrites (<<<>>>, cudaLaunchKernelEx, an argument
array, a launcher function, a launch in a loop), each with its unsafe twin
(must be refused, file unchanged) and its safe neighbour (must be rewritten).

  alias_matrix.py --tool PATH [--nvcc PATH] [--cover] [--sample N --seed S] [--keep DIR]

Without --sample or --cover the whole matrix runs (7 hazards x 5 forms x 2
twins). --cover (the test command's default sample, covering.py) runs the
fewest cells that show every form, and every hazard both safe and unsafe;
--sample then picks from those. With
--nvcc, every rewritten program is compiled for sm_90a.
"""
import argparse, os, random, re, subprocess, sys, tempfile
from covering import covering
from output_forms import form_problems

PRELUDE = r'''#include <cuda.h>
#include <cuda_runtime.h>

__global__ void consume(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[0] = 1; }
static void encode_tile(CUtensorMap *m, int tile) { m->opaque[0] = tile; }
static CUtensorMap *g_watched;
static void watch(CUtensorMap *m) { g_watched = m; }
static void refresh(int tile) { g_watched->opaque[0] = tile; }
'''
# Only what a program uses: an unused kernel or launcher is refused (no launch).
ALSO_READS = '''__global__ void also_reads(const CUtensorMap *map, int *out) { asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory"); out[1] = 1; }
'''
RETARGET = '''__global__ void retarget_on_device(CUtensorMap *map, unsigned long long base) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(map), "l"(base) : "memory");
}
'''
# A device copy whose pointer a helper keeps, and a helper that later hands
# the kept pointer to a kernel that rewrites the map.
DEVICE_KEEP = '''static CUtensorMap *g_kept;
static void keep_device(CUtensorMap *m) { g_kept = m; }
static void retune_kept() { retarget_on_device<<<1, 1>>>(g_kept, 0ull); }
'''
LAUNCHER = '''static void launch(const CUtensorMap *m, int *out) { consume<<<1, 1>>>(m, out); }
'''

# hazard -> (statement before the copy, statement between copy and launch,
#            safe variant: (before, between, after the launch))
HAZARDS = {
    "reference": dict(pre="CUtensorMap &r = h;", mid="encode_tile(&r, 2);",
                      safe=("CUtensorMap &r = h;", "", "encode_tile(&r, 2);")),
    "pointer": dict(pre="CUtensorMap *p = &h;", mid="p->opaque[0] = 3;",
                    safe=("CUtensorMap *p = &h;", "", "p->opaque[0] = 3;")),
    "lambda": dict(pre="auto retile = [&] { encode_tile(&h, 3); };", mid="retile();",
                   safe=("auto retile = [&] { encode_tile(&h, 3); };", "", "retile();")),
    "escape": dict(pre="watch(&h);", mid="refresh(4);",
                   safe=("watch(&spare);", "refresh(4);", "")),
    "device-alias": dict(pre="CUtensorMap *alias = d;",
                         mid="retarget_on_device<<<1, 1>>>(alias, 0ull);",
                         safe=("CUtensorMap *alias = d;", "also_reads<<<1, 1>>>(alias, out);", "")),
    "device-escape": dict(pre="keep_device(d);", mid="retune_kept();",
                          safe=("keep_device(d);", "", "retune_kept();")),
    "slot": dict(pre="CUtensorMap **slot = &d;", mid="retarget_on_device<<<1, 1>>>(*slot, 0ull);",
                 safe=("CUtensorMap **slot = &d;", "", "retarget_on_device<<<1, 1>>>(*slot, 0ull);")),
}

FORMS = {
    "chevron": "consume<<<1, 1>>>(d, out);",
    "launch-ex": "cudaLaunchConfig_t cfg = {};\n  cfg.gridDim = dim3(1);\n  cfg.blockDim = dim3(1);\n"
                 "  cudaLaunchKernelEx(&cfg, consume, d, out);",
    "argument-array": "void *args[] = {&d, &out};\n  cudaLaunchKernel((const void *)consume, dim3(1), dim3(1), args, 0, 0);",
    "launcher": "launch(d, out);",
    "loop": None,  # the launch in a loop, the copy before it
}


def program(hazard, form, safe):
    h = HAZARDS[hazard]
    pre, mid, post = h["safe"] if safe else (h["pre"], h["mid"], "")
    body = ["CUtensorMap h{}, spare{};", "CUtensorMap *d;", "cudaMalloc(&d, sizeof(CUtensorMap));"]
    body.append(pre)
    body.append("cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);")
    if form == "loop":
        body.append("for (int i = 0; i < 2; ++i) {")
        if mid:
            body.append("  " + mid)
        body.append("  consume<<<1, 1>>>(d, out);")
        body.append("}")
    else:
        if mid:
            body.append(mid)
        body.append(FORMS[form])
    if post:
        body.append(post)
    body += ["cudaFree(d);", "(void)spare;", "return 0;"]
    text = "\n".join(body + [post])
    prelude = PRELUDE + (ALSO_READS if "also_reads" in text else "") + \
        (RETARGET if "retarget_on_device" in text or "keep_device" in text else "") + \
        (DEVICE_KEEP if "keep_device" in text else "") + (LAUNCHER if form == "launcher" else "")
    return (prelude + "\nint run(int *out) {\n" + "".join("  " + s + "\n" for s in body if s) +
            "}\n\nint main() {\n  int *out;\n  cudaMalloc(&out, 2 * sizeof(int));\n  return run(out);\n}\n")


def check(tool, nvcc, hazard, form, safe, work):
    name = f"{hazard}-{form}-{'safe' if safe else 'unsafe'}"
    path = os.path.join(work, name + ".cu")
    src = program(hazard, form, safe)
    with open(path, "w") as f:
        f.write(src)
    r = subprocess.run([tool, "--no-database", path], cwd=work, capture_output=True, text=True)
    out = r.stderr
    after = open(path).read()
    rewritten = "kernel 'consume' reads descriptor 'map' through global memory; now passed by value" in out
    refused = "descriptor 'map' of kernel 'consume' is left by reference" in out
    problems = []
    if r.returncode not in (0,):
        problems.append(f"exit status {r.returncode}")
    if after != src:
        problems += form_problems([(src, after)])
    if safe:
        if not rewritten:
            problems.append("the safe neighbour was not rewritten")
        if hazard == "device-alias" and "kernel 'also_reads' reads descriptor" not in out:
            problems.append("the alias's own kernel was not rewritten")
        if nvcc and rewritten:
            c = subprocess.run([nvcc, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-c",
                                "-o", path + ".o", path], capture_output=True, text=True)
            if c.returncode:
                problems.append("nvcc rejects the rewrite:\n" + c.stderr[-2000:])
    elif hazard in HOST_HAZARDS and retargeted(out, after):
        # The storage rule keeps the device copy's storage, now in host
        # memory, and turns the copy into an assignment: the launch passes
        # what was copied, not the host descriptor that changed since.
        if nvcc:
            c = subprocess.run([nvcc, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-c",
                                "-o", path + ".o", path], capture_output=True, text=True)
            if c.returncode:
                problems.append("nvcc rejects the rewrite:\n" + c.stderr[-2000:])
    else:
        if not refused or rewritten:
            problems.append("the unsafe twin was rewritten")
        if after != src:
            problems.append("the unsafe twin's file changed")
    return name, problems, out


# Hazards that change the host descriptor after the copy: passing it by
# value would be wrong, keeping the copy (retargeted) is not.
HOST_HAZARDS = {"reference", "pointer", "lambda", "escape"}


def retargeted(out, after):
    """Rewritten by the storage rule: the copy became an assignment into the
    retargeted storage and no launch passes the host descriptor `h`."""
    passes_host = re.search(r"consume<<<[^>]*>>>\(h\b|consume, h\b|launch\(&?h\b|&h, &out", after)
    return ("now holds the descriptor in host memory" in out and "*d = h;" in after and
            not passes_host)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--nvcc")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--cover", action="store_true",
                    help="only the cells that show every value of every dimension (covering.py)")
    ap.add_argument("--keep")
    a = ap.parse_args()
    a.tool = os.path.abspath(a.tool)
    cells = [(h, f, s) for h in HAZARDS for f in FORMS for s in (False, True)]
    if a.cover:
        cells = covering(cells, [lambda c: c[1], lambda c: (c[0], c[2])])
    if a.sample:
        cells = random.Random(a.seed).sample(cells, min(a.sample, len(cells)))
    work = a.keep or tempfile.mkdtemp(prefix="alias-matrix-")
    os.makedirs(work, exist_ok=True)
    failed = 0
    failures = []
    compile_failures = 0
    retargets = 0
    for h, f, s in cells:
        name, problems, out = check(a.tool, a.nvcc, h, f, s, work)
        retargets += (not s and "now holds the descriptor in host memory" in out and not problems)
        compile_failures += sum(1 for p in problems if p.startswith("nvcc rejects"))
        if problems:
            failures.append((h, f, s))
        print(("FAIL " if problems else "ok   ") + name)
        for p in problems:
            print("     " + p)
        if problems:
            failed += 1
            print("     " + out.replace("\n", "\n     "))
    safe = [c for c in cells if c[2]]
    print(f"matrix: {len(safe) - sum(1 for c in failures if c[2])}/{len(safe)} safe rewritten, "
          f"{len(cells) - len(safe) - sum(1 for c in failures if not c[2])}/{len(cells) - len(safe)} "
          f"unsafe refused or retargeted ({retargets} retargeted), {compile_failures} compile failures")
    print(f"alias-matrix: {len(cells) - failed}/{len(cells)} cells as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
