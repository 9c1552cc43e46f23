#!/usr/bin/env python3
"""Edit scope, generated (issue 33): no edit may break a build the run did
not see. Composes small projects from five shapes and their variants, runs
the tool on each as a user would, and compiles every source of the project
with nvcc in every configuration the project names, before and after
(only the units whose text or included files the run changed, as the
others compile as they did; and the original of one that fails, to see
whether it compiled before):

  header     a kernel declared in a library header, defined and launched
             with a device copy in a.cu; b.cu includes the header and
             launches the kernel with a pointer it is handed, or only
             includes it, or is absent; b.cu is a unit of the compile
             database, or a source under the root that the database does not
             build (another program, another Makefile); c.cu only includes
             the header; the run is over a.cu alone
  branch     a.cu has an #ifdef WITH_PY half that launches the kernel with a
             pointer, or names something else; both configurations compile
  namespace  two same-named caches (M2::d_map in a.cu, M10::d_map in b.cu);
             c.cu clears M2's cache as device memory, or is absent
  helper     an upload helper in a header, called from a.cu, b.cu and c.cu;
             the run is over the three, or over a.cu alone
  (every shape's kernel names and values come from the seed)

The oracle: every (source, configuration) that compiled before the run
still compiles after it; where the case has a build the edit would break,
the tool changes nothing of that kernel and its message names the file or
the branch; where it has none, the kernel is rewritten.

  scope.py --tool PATH --nvcc PATH [--seed S] [--keep DIR]
"""
import argparse, concurrent.futures, json, os, random, re, shutil, subprocess, sys, tempfile

HEAD = "#include <cuda.h>\n#include <cuda_runtime.h>\n"


def kernel(name, slot):
    return (f"__global__ void {name}(const CUtensorMap *map, int *out) {{\n"
            f"  asm volatile(\"prefetch.tensormap [%0];\" :: \"l\"(map) : \"memory\");\n"
            f"  out[{slot}] = (int)map->opaque[0];\n}}\n")


def launch_with_copy(fn, k):
    return (f"void {fn}(const CUtensorMap &h, int *out) {{\n  CUtensorMap *d;\n"
            f"  cudaMalloc(&d, sizeof(CUtensorMap));\n"
            f"  cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n"
            f"  {k}<<<1, 1>>>(d, out);\n  cudaFree(d);\n}}\n")


def header_case(rng, other, in_db):
    k = f"tile_{rng.randrange(1000)}"
    files = {"lib/maps.cuh": "#pragma once\n" + HEAD + f"__global__ void {k}(const CUtensorMap *map, int *out);\n",
             "a.cu": '#include "lib/maps.cuh"\n' + kernel(k, 0) + launch_with_copy("run_a", k),
             "c.cu": '#include "lib/maps.cuh"\nint tiles_in_use() { return 1; }\n'}
    if other == "launches":
        files["b.cu"] = ('#include "lib/maps.cuh"\n'
                         f"void replay(const CUtensorMap *d, int *out) {{ {k}<<<1, 1>>>(d, out); }}\n")
    elif other == "includes":
        files["b.cu"] = '#include "lib/maps.cuh"\nint other_tool() { return 2; }\n'
    db = ["a.cu", "c.cu"] + (["b.cu"] if in_db and "b.cu" in files else [])
    return dict(name=f"header-{other}-{'db' if in_db else 'outside'}", files=files, db=db,
                run=["a.cu"], configs=[[]], kernels=[k],
                breaker="b.cu" if other == "launches" else None)


def branch_case(rng, names_kernel):
    k = f"tile_{rng.randrange(1000)}"
    half = (f"void py_entry(const CUtensorMap *d, int *out) {{ {k}<<<1, 1>>>(d, out); }}\n"
            if names_kernel else "int py_version() { return 3; }\n")
    files = {"a.cu": HEAD + kernel(k, 0) + launch_with_copy("run_a", k) + "#ifdef WITH_PY\n" + half + "#endif\n"}
    return dict(name=f"branch-{'kernel' if names_kernel else 'other'}", files=files, db=["a.cu"],
                run=["a.cu"], configs=[[], ["-DWITH_PY"]], kernels=[k],
                breaker="preprocessor branch" if names_kernel else None)


def cache_unit(ns, k, slot):
    return ('#include "kernels.cuh"\n' + kernel(k, slot) +
            f"namespace {ns} {{\nCUtensorMap *d_map = nullptr;\n"
            "void upload(const CUtensorMap &h) {\n  if (!d_map)\n    cudaMalloc(&d_map, sizeof(CUtensorMap));\n"
            "  cudaMemcpy(d_map, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n}\n"
            f"void run(int *out) {{ {k}<<<1, 1>>>(d_map, out); }}\n}} // namespace {ns}\n")


def namespace_case(rng, clearer):
    ka, kb = f"tile_a{rng.randrange(1000)}", f"tile_b{rng.randrange(1000)}"
    files = {"kernels.cuh": "#pragma once\n" + HEAD, "a.cu": cache_unit("M2", ka, 0), "b.cu": cache_unit("M10", kb, 1)}
    if clearer:
        files["c.cu"] = (HEAD + "namespace M2 {\nextern CUtensorMap *d_map;\n}\n"
                         "void clear_cache() { cudaMemset(M2::d_map, 0, sizeof(CUtensorMap)); }\n")
    return dict(name=f"namespace-{'cleared' if clearer else 'alone'}", files=files, db=sorted(f for f in files if f.endswith(".cu")),
                run=["a.cu", "b.cu"], configs=[[]], kernels=[ka, kb],
                breaker="c.cu" if clearer else None, breaks=[ka] if clearer else [])


def helper_case(rng, run_all):
    k = f"tile_{rng.randrange(1000)}"
    files = {"maps.cuh": "#pragma once\n" + HEAD + f"__global__ void {k}(const CUtensorMap *map, int *out);\n"
             "inline CUtensorMap *upload(const CUtensorMap &host) {\n  CUtensorMap *dev;\n"
             "  cudaMalloc(&dev, sizeof(CUtensorMap));\n"
             "  cudaMemcpy(dev, &host, sizeof(CUtensorMap), cudaMemcpyHostToDevice);\n  return dev;\n}\n"}
    for i, u in enumerate("abc"):
        files[f"{u}.cu"] = ('#include "maps.cuh"\n' + (kernel(k, 0) if u == "a" else "") +
                            f"void run_{u}(const CUtensorMap &h, int *out) {{\n  CUtensorMap *d = upload(h);\n"
                            f"  {k}<<<1, 1>>>(d, out);\n  cudaFree(d);\n}}\n")
    return dict(name=f"helper-{'all' if run_all else 'one'}", files=files, db=["a.cu", "b.cu", "c.cu"],
                run=["a.cu", "b.cu", "c.cu"] if run_all else ["a.cu"], configs=[[]], kernels=[k],
                breaker=None if run_all else "unit of the compile database")


def cases(seed):
    rng = random.Random(seed)
    out = [header_case(rng, other, in_db) for other in ("launches", "includes", "absent") for in_db in (True, False)]
    out += [branch_case(rng, names) for names in (True, False)]
    out += [namespace_case(rng, c) for c in (True, False)]
    out += [helper_case(rng, a) for a in (True, False)]
    return out


def write_tree(root, case):
    for rel, text in case["files"].items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump([{"directory": root, "file": u, "arguments": ["nvcc", "-c", u]} for u in case["db"]], f)


def compiles(nvcc, root, unit, config):
    r = subprocess.run([nvcc, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-c", "-o", os.devnull]
                       + config + [unit], cwd=root, capture_output=True, text=True)
    return r.returncode == 0


def builds(nvcc, root, case, pool, units=None):
    """The (unit, configuration) pairs that compile, over UNITS (default:
    every unit of the case)."""
    if units is None:
        units = sorted(rel for rel in case["files"] if rel.endswith(".cu"))
    jobs = {(u, " ".join(c)): pool.submit(compiles, nvcc, root, u, c) for u in units for c in case["configs"]}
    return {key for key, job in jobs.items() if job.result()}


def read_tree(root, case):
    return {rel: open(os.path.join(root, rel)).read() for rel in case["files"]}


def touched_units(case, before, after):
    """The units whose text, or that of a file they include (by a quoted
    #include naming a file of the case, followed), the run changed: every
    other unit compiles after the run exactly as it did before it."""
    changed = {rel for rel in before if before[rel] != after[rel]}

    def reaches(rel, seen):
        if rel in changed:
            return True
        seen.add(rel)
        for inc in re.findall(r'#\s*include\s*"([^"]+)"', after.get(rel, "")):
            dep = next((f for f in after if f == inc or f.endswith("/" + inc)), None)
            if dep and dep not in seen and reaches(dep, seen):
                return True
        return False

    return sorted(u for u in after if u.endswith(".cu") and reaches(u, set()))


def rewritten(root, case, k):
    text = "".join(open(os.path.join(root, rel)).read() for rel in case["files"])
    return re.search(r"\b%s\(const __grid_constant__ CUtensorMap map" % re.escape(k), text) is not None


def check(case, tool, nvcc, work, pool):
    """The case's failures (empty: it passes)."""
    root = os.path.join(work, case["name"])
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    write_tree(root, case)
    text_before = read_tree(root, case)
    r = subprocess.run([tool, "-p", "."] + case["run"], cwd=root, capture_output=True, text=True)
    # Only what the run changed can stop compiling: the units it touched are
    # compiled after it, and the original of one that fails, to see whether
    # it compiled before (a unit the run left compiles as it did).
    touched = touched_units(case, text_before, read_tree(root, case))
    pairs = {(u, " ".join(c)) for u in touched for c in case["configs"]}
    failing = pairs - builds(nvcc, root, case, pool, touched)
    original = os.path.join(work, case["name"] + ".original")
    shutil.rmtree(original, ignore_errors=True)
    os.makedirs(original)
    write_tree(original, case)
    before = builds(nvcc, original, case, pool, sorted({u for u, _ in failing}))
    problems = [f"{u} {c or '(no flags)'} compiled before the run and not after"
                for u, c in sorted(failing & before)]
    if r.returncode not in (0, 1):
        problems.append(f"exit status {r.returncode}")
    breaks = case.get("breaks", case["kernels"] if case["breaker"] else [])
    for k in case["kernels"]:
        if k in breaks and rewritten(root, case, k):
            problems.append(f"{k} rewritten although {case['breaker']} would break")
        elif k in breaks and case["breaker"] not in r.stderr:
            problems.append(f"{k} refused without naming {case['breaker']}")
        elif k not in breaks and not rewritten(root, case, k):
            problems.append(f"{k} not rewritten although no build breaks")
    if problems:
        problems.append("tool said: " + r.stderr.strip().replace("\n", "\n     "))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="scope-")
    failed = 0
    all_cases = cases(a.seed)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for case in all_cases:
            problems = check(case, os.path.abspath(a.tool), a.nvcc, work, pool)
            print(("FAIL " if problems else "ok   ") + case["name"])
            for p in problems:
                print("     " + p)
            failed += bool(problems)
    print(f"scope: seed {a.seed}, {len(all_cases)} projects, {len(all_cases) - failed} kept every build, {failed} failed")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
