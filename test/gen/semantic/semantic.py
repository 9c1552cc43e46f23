#!/usr/bin/env python3
"""The semantic fuzzer (issue 40): random host programs from a grammar, a
model that says what every launch reads, and an oracle that compares the
tool's rewrite of every launch with the model.

  semantic.py --tool PATH [--seed S] [--programs N] [--pack K]
              [--known FILE] [--update-known FILE] [--emit DIR] [--keep DIR]

Grammar (step 2 of the issue: straight line). Each program has one host map
`h`, filled from a seed, and one device copy `d` (cudaMalloc), then a random
sequence of

  copy    cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  write   h.opaque[W] = V;                  (an assignment to one word)
  launch  k<<<1, 1>>>(d, out, SLOT);        (the kernel checksums its map)

that starts with a copy and holds at least one launch, and ends with
cudaFree(d). Every program has its own kernel and names, so many are packed
into one translation unit and a run of the tool costs one parse.

The model runs a program abstractly, in stream order (one stream here, so
text order): it keeps the host map H and the device copy D as word
tuples; a copy sets D = H, a write changes a word of H, and a launch
records what the kernel reads in the original (D), what a by-value launch
would read (H at the launch call) and what a snapshot would read (the copy
taken where D was last written: D).

The oracle reads each launch's form from the tool's output (the launch's
descriptor argument: the host map is by value, `*d` a snapshot, `d` left by
reference) and classifies it:

  wrong          by value or snapshot, and the model says that value is not
                 what the original launch reads;
  over-careful   refused, and the model says by value or a snapshot reads
                 what the original does.

A program with a disagreement in a pack is run again alone, and the alone
verdict is the one reported. Disagreements are compared with the known
list (lines `SEED PROGRAM LAUNCH CLASS`): a new one or a listed one that no
longer happens fails the run, so the list only shrinks. --emit DIR writes
the packed originals and rewrites with the model's predicted output, for
test/gpu/ (each program prints `slot checksum` per launch).
"""
import argparse, os, random, re, shutil, subprocess, sys, tempfile

MASK = (1 << 64) - 1
WORDS = 16

PRELUDE = r'''#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

static void fill(CUtensorMap *m, unsigned long long seed) {
  for (int i = 0; i < 16; ++i)
    m->opaque[i] = seed * 0x9E3779B97F4A7C15ull + i;
}
'''

KERNEL = r'''__global__ void k_{n}(const CUtensorMap *map, unsigned long long *out, int slot) {{
  unsigned long long s = 0;
  for (int i = 0; i < 16; ++i)
    s += map->opaque[i] * (i + 1);
  out[slot] = s;
}}
'''


def fill(seed):
    return tuple((seed * 0x9E3779B97F4A7C15 + i) & MASK for i in range(WORDS))


def checksum(words):
    return sum(w * (i + 1) for i, w in enumerate(words)) & MASK


class Program:
    """One generated program: its statements and the model's record of every
    launch (slot, what the original, a by-value and a snapshot launch read)."""

    def __init__(self, rng, n):
        self.n = n
        self.seed = rng.randrange(1, 1 << 32)
        self.stmts = [("copy",)]
        launches = 0
        for _ in range(rng.randint(2, 8)):
            kind = rng.choice(("copy", "write", "write", "launch", "launch"))
            if kind == "write":
                self.stmts.append(("write", rng.randrange(WORDS), rng.randrange(1, 1 << 64)))
            else:
                self.stmts.append((kind,))
            launches += kind == "launch"
        if not launches:
            self.stmts.append(("launch",))
        self.launches = []
        self.slots = []  # where each launch writes, numbered within its pack
        self.model()

    def model(self):
        h, d = fill(self.seed), None
        for s in self.stmts:
            if s[0] == "copy":
                d = h
            elif s[0] == "write":
                h = h[:s[1]] + (s[2],) + h[s[1] + 1:]
            else:
                self.launches.append({"original": checksum(d), "by value": checksum(h),
                                      "snapshot": checksum(d)})

    def source(self):
        n = self.n
        lines = [f"static void prog_{n}(unsigned long long *out) {{",
                 f"  CUtensorMap h_{n};", f"  fill(&h_{n}, {self.seed}ull);",
                 f"  CUtensorMap *d_{n};", f"  cudaMalloc(&d_{n}, sizeof(CUtensorMap));"]
        slots = iter(self.slots)
        for s in self.stmts:
            if s[0] == "copy":
                lines.append(f"  cudaMemcpy(d_{n}, &h_{n}, sizeof(CUtensorMap), cudaMemcpyHostToDevice);")
            elif s[0] == "write":
                lines.append(f"  h_{n}.opaque[{s[1]}] = {s[2]:#x}ull;")
            else:
                lines.append(f"  k_{n}<<<1, 1>>>(d_{n}, out, {next(slots)});")
        lines += ["  cudaDeviceSynchronize();", f"  cudaFree(d_{n});", "}", ""]
        return KERNEL.format(n=n) + "\n".join(lines)

    def expected_output(self):
        return "".join(f"{slot} {l['original']:016x}\n" for slot, l in zip(self.slots, self.launches))


def translation_unit(programs):
    slots = sum(len(p.slots) for p in programs)
    calls = "".join(f"  prog_{p.n}(out);\n" for p in programs)
    return (PRELUDE + "\n" + "\n".join(p.source() for p in programs) +
            f"\nint main() {{\n  unsigned long long *out, host[{slots}] = {{0}};\n"
            f"  cudaMalloc(&out, sizeof(host));\n{calls}"
            "  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);\n"
            f"  for (int i = 0; i < {slots}; ++i)\n"
            '    std::printf("%d %016llx\\n", i, host[i]);\n  return 0;\n}\n')


def forms_of(text, program):
    """The form of each launch of the program in the rewritten text, in order."""
    n = program.n
    body = re.search(r"static void prog_%d\(.*?\n}\n" % n, text, re.S)
    forms = []
    for arg in re.findall(r"k_%d<<<1, 1>>>\((.*?), out, \d+\);" % n, body.group(0) if body else ""):
        arg = arg.strip()
        forms.append("by value" if arg == f"h_{n}" else "refused" if arg == f"d_{n}" else
                     "snapshot" if arg == f"*d_{n}" else "unknown: " + arg)
    return forms


def verdicts(program, forms):
    """(launch index, class) for every launch the tool got wrong or refused
    where the model says a rewrite is correct."""
    out = []
    if len(forms) != len(program.launches):
        return [(-1, "launches not found in the output")]
    for i, (form, l) in enumerate(zip(forms, program.launches)):
        if form in ("by value", "snapshot"):
            if l[form] != l["original"]:
                out.append((i, "wrong " + form))
        elif form == "refused":
            if l["by value"] == l["original"] or l["snapshot"] == l["original"]:
                out.append((i, "over-careful"))
        else:
            out.append((i, form))
    return out


def run_tool(tool, work, name, programs):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, name + ".cu")
    src = translation_unit(programs)
    with open(path, "w") as f:
        f.write(src)
    r = subprocess.run([tool, "--no-database", path], cwd=work, capture_output=True, text=True)
    return src, open(path).read(), r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--programs", type=int, default=100)
    ap.add_argument("--pack", type=int, default=25, help="programs per translation unit")
    ap.add_argument("--known", help="the known-failure list to compare with")
    ap.add_argument("--update-known", help="write this run's disagreements to this file")
    ap.add_argument("--emit", help="write the packs, original and rewritten, with expected outputs")
    ap.add_argument("--keep")
    a = ap.parse_args()
    tool = os.path.abspath(a.tool)
    rng = random.Random(a.seed)
    programs = [Program(rng, i) for i in range(a.programs)]
    work = a.keep or tempfile.mkdtemp(prefix="semantic-")
    counts = {"by value": 0, "snapshot": 0, "refused": 0}
    found = {}
    failed_runs = 0
    for start in range(0, len(programs), a.pack):
        pack = programs[start:start + a.pack]
        # Slots are numbered within a pack (one output array per program run).
        slot = 0
        for p in pack:
            p.slots = list(range(slot, slot + len(p.launches)))
            slot += len(p.launches)
        name = f"pack-{a.seed}-{start // a.pack}"
        src, after, r = run_tool(tool, os.path.join(work, name), name, pack)
        if r.returncode != 0:
            failed_runs += 1
            print(f"FAIL {name}: exit status {r.returncode}\n     " + r.stderr[-2000:].replace("\n", "\n     "))
            continue
        if a.emit:
            for kind, text in (("original", src), ("rewritten", after)):
                os.makedirs(os.path.join(a.emit, kind), exist_ok=True)
                with open(os.path.join(a.emit, kind, name + ".cu"), "w") as f:
                    f.write(text)
            with open(os.path.join(a.emit, "original", name + ".expected"), "w") as f:
                f.write("".join(p.expected_output() for p in pack))
        for p in pack:
            forms = forms_of(after, p)
            bad = verdicts(p, forms)
            if bad:
                # Re-checked alone: a pack must not change a program's verdict.
                p.slots = list(range(len(p.launches)))
                _, alone, r1 = run_tool(tool, os.path.join(work, f"{name}-alone-{p.n}"), "alone", [p])
                forms = forms_of(alone, p) if r1.returncode == 0 else forms
                bad = verdicts(p, forms)
            for f in forms:
                counts[f] = counts.get(f, 0) + 1
            for i, cls in bad:
                found[(a.seed, p.n, i)] = cls
    known = {}
    if a.known and os.path.exists(a.known):
        for line in open(a.known):
            line = line.split("#")[0].strip()
            if line:
                seed, prog, launch, cls = line.split(None, 3)
                known[(int(seed), int(prog), int(launch))] = cls
    # Only the seed and programs of this run are compared with the list.
    known = {k: v for k, v in known.items() if k[0] == a.seed and k[1] < a.programs}
    new = {k: v for k, v in found.items() if known.get(k) != v}
    gone = {k: v for k, v in known.items() if found.get(k) != v}
    for (seed, prog, launch), cls in sorted(new.items()):
        print(f"FAIL new disagreement: seed {seed} program {prog} launch {launch}: {cls}")
        print("     " + "\n     ".join(programs[prog].source().splitlines()))
    for (seed, prog, launch), cls in sorted(gone.items()):
        print(f"FAIL listed disagreement no longer happens (take it off the list): "
              f"seed {seed} program {prog} launch {launch}: {cls}")
    if a.update_known:
        with open(a.update_known, "w") as f:
            f.write("# SEED PROGRAM LAUNCH CLASS: disagreements of the tool with the model "
                    "(test/gen/semantic/semantic.py); the list only shrinks.\n")
            for (seed, prog, launch), cls in sorted(found.items()):
                f.write(f"{seed} {prog} {launch} {cls}\n")
    classes = {}
    for cls in found.values():
        classes[cls] = classes.get(cls, 0) + 1
    launches = sum(len(p.launches) for p in programs)
    print(f"semantic: seed {a.seed}, {len(programs)} programs, {launches} launches: "
          f"{counts['by value']} by value, {counts['snapshot']} snapshot, {counts['refused']} refused; "
          f"disagreements {len(found)} ({', '.join(f'{v} {k}' for k, v in sorted(classes.items())) or 'none'}), "
          f"{len(new)} new, {len(gone)} fixed, {failed_runs} failed runs")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if new or gone or failed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
