#!/usr/bin/env python3
"""The semantic fuzzer (issue 40): random host programs from a grammar, a
model that says what every launch reads, and an oracle that compares the
tool's rewrite of every launch with the model.

  semantic.py --tool PATH [--seed S] [--programs N] [--pack K] [--survey]
              [--known FILE]... [--update-known FILE] [--update-careful FILE]
              [--emit DIR] [--keep DIR]
              [--notes] [--census]

Grammar. Each program has two host maps `h` and
`o`, filled from seeds, and one device copy `d` (cudaMalloc), then a random
sequence of

  copy          cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
                (or from &o; COPIES: cudaMemcpy, cudaMemcpyAsync on the
                legacy stream, cudaMemcpy2D, the driver's cuMemcpyHtoD)
  write         a word of h, through a name and a writer (HOST_WRITES: the
                variable, a pointer, a reference, a [&] lambda, a helper
                given its address; assignment, std::memcpy, std::memset,
                re-encoding, h = o; a const method, a `mutable` member, an
                overloaded operator on a temporary, a call through a
                function pointer the tool cannot resolve, a destructor at
                the end of the block or of a temporary, a conversion
                operator; library wrappers, handles, structured bindings,
                an inherited member, accessors of a global or a static;
                std::fill_n and std::copy. Half the programs use only the
                plain names and writers: PLAIN_WRITES. A quarter of the
                plain assignments are spelled through a `const` name cast
                back: CONST_RESPELLINGS; a quarter of the rest through a
                library holder of a reference, assigned or swapped:
                HOLDER_RESPELLINGS)
  device-write  a word of d (DEVICE_WRITES: cudaMemset, a kernel given d, a
                one-word cudaMemcpy, a memset behind a function pointer)
                (a copy, a device write and a launch each reach d through
                `d` or the program's other name for it, DEVICE_NAMES)
  graph         a launch captured into a graph, a block, the replay (one
                pack in four: the tool refuses some copies in a unit with
                a graph)
  launch        k<<<1, 1>>>(d, out, SLOT);        (the kernel checksums its map;
                LAUNCHES: the chevrons, cudaLaunchKernel with an argument
                array, cudaLaunchKernelEx, a host launcher given d)

  if/for/...    a block under `if (gate[j])` (with an else block),
                `for (i < gate[j])`, `switch (gate[j])` (case 0 falling
                through to the default or not) or skipped by
                `if (gate[j]) goto`, the gates read at run time (volatile),
                nested two deep; `if (gate[j]) break;`, continue and an
                early return (the cleanup, then return)
  held         a block whose work on a non-blocking stream (launches, a
                kernel writing d, cudaMemcpyAsync from a pinned map that
                `stage` refills from h, a host function writing a word of
                h) waits behind a kernel spinning on a mapped flag,
                released (flag set, stream synchronised) at the block's end

that starts with a copy from h and holds at least one launch, and ends with
cudaFree(d). A launch writes its checksum to out[slot++], so one in a loop
writes one slot per run. Every program has its own kernel and names, so many are packed
into one translation unit and a run of the tool costs one parse.

The model runs a program abstractly, in stream order (one stream here, so
the order in which the statements run, the gates known): it keeps the host maps H and O, the device copy D and the
value S the last copy into D read, as word tuples; a copy sets D = S = its
source, a host write changes H (a destructor's where its block is left: its
end, a jump, a return; the last declared first), a device write changes D
(and S, where the host can make the same write on a snapshot at the call:
a memset or synchronous copy of a word, HOST_REPEATABLE; a held copy
from the staging map sets S at its call, where the retargeted `*d = *pin`
runs, and D when the stream runs it; L, the value form's value where it
leaves such copies on the device copy as landing after every launch, is S
but for them),
and a launch records what the kernel reads in the original (D; a held
launch's when the stream is released, a captured one's at the replay), what
a by-value launch would read (H or O at the launch call) and what a
snapshot would read (the copy taken where D was last copied into: S; the
value form's, L, where its text assigns the value after no held copy).

The oracle reads each launch's form from the tool's JSON report (the
descriptor's `launches[]`, found by line: by value with the host map it
passes, snapshot, or refused), checks it against the rewritten text (each
launch statement ends in `// site N`; its argument: a host map is by value,
`*d` (or, in an argument array, `d`) a snapshot, `d` (`&d`) left by
reference; a report that says otherwise is a disagreement of its own) and
classifies it:

  wrong          by value or snapshot, and the model says that value is not
                 what the original launch reads; "... on another run" where
                 that holds on a run with other gate values only;
  over-careful   refused, and the model says that every launch statement of
                 the program's kernel has a rewrite (by value or a snapshot)
                 that reads what the original does on every run.

The tool cannot know the gates, so "every run" is every assignment of the
gates (64 drawn at random, seeded by the program, where there are more):
the model runs the program on each (correct_forms).

A program with a disagreement that is not listed is run again alone, and the
alone verdict is the one reported (--survey, for long runs: only a wrong
rewrite is). Disagreements are compared with the known
lists (lines `SEED PROGRAM LAUNCH CLASS`; known-failures.txt for wrong
rewrites, over-careful.txt for over-careful refusals): a new one or a listed
one that no longer happens fails the run, so the lists only shrink. The last line
measures issue 41's goal: over-careful launches as a share of the launches
of programs whose every launch has a correct rewrite (the safe ones), by
the reason (`reasonId`) the tool's report gives, and the line after it the
same without the programs no tool may prove safe (Program.provable: a
launch reads the device copy after it was handed to a call through a
pointer the text does not resolve, which the closed world takes for a write
at any time after it), those counted apart; --notes adds them grouped
by the storage rule's own note (the use it could not classify), one line
each; --census counts the programs with over-careful launches by the
grammar's dimensions they use (each kind of device write, held blocks,
graphs, the device copy's other name, the writers' set), alone and in the
combinations of device writes, held blocks and graphs: what a rule must
handle to lift them. --emit DIR writes
the packed originals and rewrites, each with the model's prediction of its
output (a rewrite's from the form of each launch: a wrong rewrite prints
the value it passes), for test/gpu/ (each program prints `slot checksum`
per launch).
"""
import argparse, itertools, json, os, random, re, shutil, subprocess, sys, tempfile

MASK = (1 << 64) - 1
WORDS = 16

PRELUDE = r'''#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>

static void fill(CUtensorMap *m, unsigned long long seed) {
  for (int i = 0; i < 16; ++i)
    m->opaque[i] = seed * 0x9E3779B97F4A7C15ull + i;
}
'''

# Holds a stream until the host sets the flag (mapped host memory): the work
# queued behind it runs later than it is written.
HOLD = r'''__global__ void hold_until(const volatile int *flag) {
  while (!*flag) {
  }
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


# How a write of one word of the host map is spelled: the name it goes
# through (the variable, a pointer, a reference, a [&] lambda, a helper
# given its address), the writer (assignment, std::memcpy, std::memset,
# re-encoding the whole map, assigning another map to it) and the C++ that
# runs it: a const method through a pointer member, a const method that
# keeps the pointer in a `mutable` member, an overloaded operator on a
# temporary, a call through a function pointer the tool cannot resolve (an
# API it has no row for), and a destructor that writes at the end of the
# enclosing block. Each is (file-scope code, declarations it needs,
# statement); {n} is the program, {w} the word, {v} the value, {b} a byte,
# {s} the statement's number.
HOST_WRITES = {
    "assign": ("", "", "h_{n}.opaque[{w}] = {v:#x}ull;"),
    "pointer": ("", "  CUtensorMap *p_{n} = &h_{n};\n", "p_{n}->opaque[{w}] = {v:#x}ull;"),
    "reference": ("", "  CUtensorMap &r_{n} = h_{n};\n", "r_{n}.opaque[{w}] = {v:#x}ull;"),
    "lambda": ("", "  auto set_{n} = [&](int w, unsigned long long v) {{ h_{n}.opaque[w] = v; }};\n",
               "set_{n}({w}, {v:#x}ull);"),
    "helper": ("static void set_word_{n}(CUtensorMap *m, int w, unsigned long long v) {{ m->opaque[w] = v; }}\n",
               "", "set_word_{n}(&h_{n}, {w}, {v:#x}ull);"),
    "memcpy": ("", "", "{{ unsigned long long v = {v:#x}ull; std::memcpy(&h_{n}.opaque[{w}], &v, sizeof v); }}"),
    "memset": ("", "", "std::memset(&h_{n}.opaque[{w}], {b}, sizeof(unsigned long long));"),
    "re-encode": ("", "", "fill(&h_{n}, {v}ull);"),
    "assign-map": ("", "", "h_{n} = o_{n};"),
    "const-method": ("struct View_{n} {{\n  CUtensorMap *m;\n"
                     "  void set(int w, unsigned long long v) const {{ m->opaque[w] = v; }}\n}};\n",
                     "  const View_{n} view_{n}{{&h_{n}}};\n", "view_{n}.set({w}, {v:#x}ull);"),
    "mutable": ("struct Lazy_{n} {{\n  CUtensorMap *target;\n  mutable CUtensorMap *m = nullptr;\n"
                "  void set(int w, unsigned long long v) const {{\n    if (!m)\n      m = target;\n"
                "    m->opaque[w] = v;\n  }}\n}};\n",
                "  const Lazy_{n} lazy_{n}{{&h_{n}}};\n", "lazy_{n}.set({w}, {v:#x}ull);"),
    "operator": ("struct Word_{n} {{\n  CUtensorMap *m;\n  int w;\n"
                 "  void operator=(unsigned long long v) const {{ m->opaque[w] = v; }}\n}};\n",
                 "", "Word_{n}{{&h_{n}, {w}}} = {v:#x}ull;"),
    "opaque-call": ("static void touch_impl_{n}(CUtensorMap *m, int w, unsigned long long v) {{ m->opaque[w] = v; }}\n"
                    "static void (*volatile touch_{n})(CUtensorMap *, int, unsigned long long) = touch_impl_{n};\n",
                    "", "touch_{n}(&h_{n}, {w}, {v:#x}ull);"),
    "destructor": ("struct Restore_{n} {{\n  CUtensorMap *m;\n  int w;\n  unsigned long long v;\n"
                   "  ~Restore_{n}() {{ m->opaque[w] = v; }}\n}};\n",
                   "", "Restore_{n} g{s}_{n}{{&h_{n}, {w}, {v:#x}ull}};"),
    # Names of the map the library holds: wrappers, handles, bindings.
    "reference-wrapper": ("", "  std::reference_wrapper<CUtensorMap> rw_{n} = std::ref(h_{n});\n",
                          "rw_{n}.get().opaque[{w}] = {v:#x}ull;"),
    "pair": ("", "  std::pair<CUtensorMap *, int> pr_{n}{{&h_{n}, 0}};\n", "pr_{n}.first->opaque[{w}] = {v:#x}ull;"),
    "tuple": ("", "  std::tuple<int, CUtensorMap &> tu_{n}{{0, h_{n}}};\n",
              "std::get<1>(tu_{n}).opaque[{w}] = {v:#x}ull;"),
    "optional": ("", "  std::optional<CUtensorMap *> op_{n} = &h_{n};\n", "(*op_{n})->opaque[{w}] = {v:#x}ull;"),
    "std-array": ("", "  std::array<CUtensorMap *, 2> ar_{n}{{&o_{n}, &h_{n}}};\n",
                  "ar_{n}[1]->opaque[{w}] = {v:#x}ull;"),
    "void-handle": ("", "  void *vh_{n} = &h_{n};\n", "static_cast<CUtensorMap *>(vh_{n})->opaque[{w}] = {v:#x}ull;"),
    "integer-handle": ("", "  std::uintptr_t ih_{n} = reinterpret_cast<std::uintptr_t>(&h_{n});\n",
                       "reinterpret_cast<CUtensorMap *>(ih_{n})->opaque[{w}] = {v:#x}ull;"),
    "binding": ("", "  auto [bm_{n}, bk_{n}] = std::pair<CUtensorMap *, int>(&h_{n}, 0);\n",
                "bm_{n}->opaque[{w}] = {v:#x}ull;"),
    "binding-reference": ("struct Ref_{n} {{\n  CUtensorMap &m;\n}};\n", "  auto [rb_{n}] = Ref_{n}{{h_{n}}};\n",
                          "rb_{n}.opaque[{w}] = {v:#x}ull;"),
    "inherited": ("struct Base_{n} {{\n  CUtensorMap *m;\n}};\nstruct Derived_{n} : Base_{n} {{\n  int k;\n}};\n",
                  "  Derived_{n} dv_{n}{{{{&h_{n}}}, 0}};\n", "dv_{n}.m->opaque[{w}] = {v:#x}ull;"),
    "lambda-pointer": ("", "  auto setp_{n} = [p = &h_{n}](int w, unsigned long long v) {{ p->opaque[w] = v; }};\n",
                       "setp_{n}({w}, {v:#x}ull);"),
    "global-accessor": ("static CUtensorMap *g_{n};\nstatic CUtensorMap *&global_{n}() {{ return g_{n}; }}\n",
                        "  global_{n}() = &h_{n};\n", "global_{n}()->opaque[{w}] = {v:#x}ull;"),
    "static-accessor": ("static CUtensorMap *&kept_{n}() {{\n  static CUtensorMap *p;\n  return p;\n}}\n",
                        "  kept_{n}() = &h_{n};\n", "kept_{n}()->opaque[{w}] = {v:#x}ull;"),
    # Code that runs implicitly: a temporary's destructor at the end of the
    # full expression, a conversion operator.
    "temporary": ("struct Poke_{n} {{\n  CUtensorMap *m;\n  int w;\n  unsigned long long v;\n"
                  "  ~Poke_{n}() {{ m->opaque[w] = v; }}\n}};\n",
                  "", "Poke_{n}{{&h_{n}, {w}, {v:#x}ull}};"),
    "conversion": ("struct Handle_{n} {{\n  CUtensorMap *m;\n  operator CUtensorMap *() const {{ return m; }}\n}};\n"
                   "static void put_{n}(CUtensorMap *m, int w, unsigned long long v) {{ m->opaque[w] = v; }}\n",
                   "  const Handle_{n} hd_{n}{{&h_{n}}};\n", "put_{n}(hd_{n}, {w}, {v:#x}ull);"),
    # Library algorithms.
    "fill_n": ("", "", "std::fill_n(&h_{n}.opaque[{w}], 1, {v:#x}ull);"),
    "copy": ("", "", "{{ const unsigned long long v[1] = {{{v:#x}ull}}; std::copy(v, v + 1, &h_{n}.opaque[{w}]); }}"),
}
# Spellings of a plain word write (`assign`) through a name that says
# `const` and does not keep the promise: a helper that casts it away, a
# local const reference cast back, a std::function whose lambda casts it
# away, a local pointer to const cast back. Each writes the word as
# `assign` does, so the model is the same; they replace a quarter of the
# `assign` writes, chosen by an RNG of their own (Program.respell), so
# that every other choice of a program stays as it was.
CONST_RESPELLINGS = {
    "const-cast": ("static void stamp_{n}(const CUtensorMap *m, int w, unsigned long long v) {{\n"
                   "  const_cast<CUtensorMap *>(m)->opaque[w] = v;\n}}\n",
                   "", "stamp_{n}(&h_{n}, {w}, {v:#x}ull);"),
    "const-reference": ("", "  const CUtensorMap &cr_{n} = h_{n};\n",
                        "((CUtensorMap &)cr_{n}).opaque[{w}] = {v:#x}ull;"),
    "const-function": ("", "  std::function<void(const CUtensorMap &, int, unsigned long long)> cf_{n} =\n"
                       "      [](const CUtensorMap &m, int w, unsigned long long v) {{\n"
                       "        const_cast<CUtensorMap &>(m).opaque[w] = v;\n      }};\n",
                       "cf_{n}(h_{n}, {w}, {v:#x}ull);"),
    "const-pointer": ("", "  const CUtensorMap *cp_{n} = &h_{n};\n",
                      "((CUtensorMap *)cp_{n})->opaque[{w}] = {v:#x}ull;"),
}
# Spellings of a plain word write through a library holder of a reference
# to the map, which writes it when the holder itself is assigned or swapped
# (issue 41: the holder's operator= is library code, and no statement names
# the map). Each writes the word as `assign` does; a quarter of the `assign`
# writes the const spellings leave get one, by an RNG of their own.
HOLDER_RESPELLINGS = {
    "holder-assign": ("", "  std::tuple<CUtensorMap &> th_{n}{{h_{n}}};\n",
                      "{{ CUtensorMap t = h_{n}; t.opaque[{w}] = {v:#x}ull; th_{n} = std::tie(t); }}"),
    "holder-swap": ("", "  std::pair<CUtensorMap &, int> ph_{n}{{h_{n}, 0}};\n",
                    "{{ CUtensorMap t = h_{n}; t.opaque[{w}] = {v:#x}ull; std::pair<CUtensorMap &, int> pt{{t, 0}}; "
                    "ph_{n}.swap(pt); }}"),
}
HOST_WRITES.update(CONST_RESPELLINGS)
HOST_WRITES.update(HOLDER_RESPELLINGS)
CHOSEN_WRITES = [k for k in HOST_WRITES if k not in CONST_RESPELLINGS and k not in HOLDER_RESPELLINGS]
# The writers and names of half the programs: each row of the others makes
# most programs that use it refused, and a refused program tells nothing
# about the rewrites.
PLAIN_WRITES = ["assign", "pointer", "reference", "lambda", "helper", "memcpy", "memset", "re-encode",
                "assign-map", "fill_n", "copy"]
# Host writes that happen at the end of the block they are written in.
AT_BLOCK_END = {"destructor"}
# Writes of the device copy: a memset of one word, a kernel that writes a
# word through the pointer it is given, a copy of one word, and a memset in
# a function called through a pointer the tool cannot resolve.
# (file-scope code, statement)
DEVICE_WRITES = {
    "cudaMemset": ("", "cudaMemset(&{dn}->opaque[{w}], {b}, sizeof(unsigned long long));"),
    "kernel": ("__global__ void poke_{n}(CUtensorMap *m, int w, unsigned long long v) {{ m->opaque[w] = v; }}\n",
               "poke_{n}<<<1, 1>>>({dn}, {w}, {v:#x}ull);"),
    "partial-copy": ("", "{{ unsigned long long v = {v:#x}ull; cudaMemcpy(&{dn}->opaque[{w}], &v, sizeof v, "
                     "cudaMemcpyHostToDevice); }}"),
    "opaque-call": ("static void clear_impl_{n}(CUtensorMap *m, int w, int b) {{ cudaMemset(&m->opaque[w], b, 8); }}\n"
                    "static void (*volatile clear_{n})(CUtensorMap *, int, int) = clear_impl_{n};\n",
                    "clear_{n}({dn}, {w}, {b});"),
}
# Device writes through code the tool cannot see: the closed world makes
# every launch after them unprovable (Program.provable).
UNSEEN_WRITES = {"opaque-call"}
# Device writes whose word is the byte {b} repeated.
BYTE_WRITES = {"cudaMemset", "opaque-call"}
# Device writes a snapshot takes too: the host makes them on it at the call
# (a memset, a synchronous copy from host memory). A kernel's write, and one
# in a function the tool cannot see, change the device copy only.
HOST_REPEATABLE = {"cudaMemset", "partial-copy"}
# How a whole copy of a host map into the device copy is spelled; each
# copies the map before it returns (pageable memory, the legacy stream).
COPIES = {
    "cudaMemcpy": "cudaMemcpy({dn}, &{src}, sizeof(CUtensorMap), cudaMemcpyHostToDevice);",
    "cudaMemcpyAsync": "cudaMemcpyAsync({dn}, &{src}, sizeof(CUtensorMap), cudaMemcpyHostToDevice, 0);",
    "cudaMemcpy2D": "cudaMemcpy2D({dn}, sizeof(CUtensorMap), &{src}, sizeof(CUtensorMap), sizeof(CUtensorMap), 1, "
                    "cudaMemcpyHostToDevice);",
    "cuMemcpyHtoD": "cuMemcpyHtoD((CUdeviceptr){dn}, &{src}, sizeof(CUtensorMap));",
}
# How a launch of the program's kernel is spelled: the chevrons, the
# runtime's launch with an argument array, cudaLaunchKernelEx, and a host
# launcher the program calls with the pointer. (file-scope code, statement);
# {dn} is the device copy's spelling. Each ends in `// site N`, which the
# oracle finds the launch by in the rewritten text.
LAUNCHES = {
    "chevrons": ("", "k_{n}<<<1, 1>>>({dn}, out, slot_{n}++);"),
    "cudaLaunchKernel": ("", "{{ int slot = slot_{n}++; void *args[] = {{(void *)&{dn}, &out, &slot}}; "
                         "cudaLaunchKernel((const void *)k_{n}, dim3(1), dim3(1), args, 0, 0); }}"),
    "cudaLaunchKernelEx": ("", "{{ cudaLaunchConfig_t cfg = {{}}; cfg.gridDim = dim3(1); cfg.blockDim = dim3(1); "
                           "cudaLaunchKernelEx(&cfg, k_{n}, {dn}, out, slot_{n}++); }}"),
    "launcher": ("static void launch_{n}(const CUtensorMap *m, unsigned long long *out, int slot) {{\n"
                 "  k_{n}<<<1, 1>>>(m, out, slot);\n}}\n",
                 "launch_{n}({dn}, out, slot_{n}++);"),
}

# Names of the device copy (declared after its cudaMalloc): each program
# picks one besides `d`, and every copy into it, write of it and launch
# reads it through either. (declaration, spelling)
DEVICE_NAMES = {
    "d": ("", "d_{n}"),
    "alias": ("  CUtensorMap *e_{n} = d_{n};\n", "e_{n}"),
    "pointer-reference": ("  CUtensorMap *&q_{n} = d_{n};\n", "q_{n}"),
    "member": ("  struct {{ CUtensorMap *p; }} s_{n} = {{d_{n}}};\n", "s_{n}.p"),
    "array": ("  CUtensorMap *a_{n}[1] = {{d_{n}}};\n", "a_{n}[0]"),
    "pair": ("  std::pair<CUtensorMap *, int> dp_{n}{{d_{n}, 0}};\n", "dp_{n}.first"),
    "tuple": ("  std::tuple<int, CUtensorMap *> dt_{n}{{0, d_{n}}};\n", "std::get<1>(dt_{n})"),
    "optional": ("  std::optional<CUtensorMap *> od_{n} = d_{n};\n", "(*od_{n})"),
    "std-array": ("  std::array<CUtensorMap *, 1> da_{n}{{d_{n}}};\n", "da_{n}[0]"),
    "reference-wrapper": ("  std::reference_wrapper<CUtensorMap *> dr_{n} = std::ref(d_{n});\n", "dr_{n}.get()"),
    "binding": ("  auto [db_{n}, dk_{n}] = std::pair<CUtensorMap *, int>(d_{n}, 0);\n", "db_{n}"),
    "inherited": ("  struct DBase_{n} {{ CUtensorMap *p; }};\n  struct DHolder_{n} : DBase_{n} {{ int k; }};\n"
                  "  DHolder_{n} dh_{n}{{{{d_{n}}}, 0}};\n", "dh_{n}.p"),
    "static-accessor": ("  device_{n}() = d_{n};\n", "device_{n}()"),
}
PLAIN_DEVICE_NAMES = ["d", "alias", "pointer-reference", "member", "array"]
# File-scope code a device name needs.
DEVICE_NAME_CODE = {
    "static-accessor": "static CUtensorMap *&device_{n}() {{\n  static CUtensorMap *p;\n  return p;\n}}\n",
}


class Break(Exception):
    pass


class Continue(Exception):
    pass


class Return(Exception):
    pass


JUMPS = {"break": Break, "continue": Continue, "return": Return}


class Program:
    """One generated program: its statements and the model's record of every
    launch it runs (what the original reads, what each value a rewrite could
    pass holds: the host maps by value, the snapshot), each with the launch
    statement (its site) that ran it."""

    def __init__(self, rng, n):
        self.n = n
        self.rng = rng
        self.seed = rng.randrange(1, 1 << 32)
        self.other_seed = rng.randrange(1, 1 << 32)
        self.gates = []  # the run-time values of the program's if and for statements
        self.gate_values = []  # how many values each gate may take
        plain = rng.randrange(2)
        self.writes = PLAIN_WRITES if plain else CHOSEN_WRITES
        self.device_name = rng.choice(PLAIN_DEVICE_NAMES if plain else list(DEVICE_NAMES))
        # The tool refuses some copies in a translation unit with a graph,
        # so one pack in four has them (the pack is the default 25).
        self.graph_allowed = n // 25 % 4 == 3
        self.sites = 0
        self.serial = 0  # numbers the statements that declare something
        self.holds = self.held_pokes = False  # has held blocks; pokes on the held stream
        self.callbacks = self.graphs = False  # host functions on the held stream; captured launches
        self.in_graph = 0  # the depth of graph blocks around the block being made
        self.body = [("copy", "h", "d", "cudaMemcpy")] + self.block(0, rng.randint(2, 8), False, False)
        if not self.sites:
            self.body.append(self.launch())
        self.body = self.respell(self.body, random.Random(self.seed * 7919 + 1), CONST_RESPELLINGS)
        self.body = self.respell(self.body, random.Random(self.seed * 7919 + 2), HOLDER_RESPELLINGS)
        self.body = self.patch_pokes(self.body, random.Random(self.seed * 7919 + 3))
        del self.rng
        self.launches = []
        self.slots = []  # where each launch writes, numbered within its pack
        self.model()
        self.correct = self.correct_forms()

    # The runs the model checks a rewrite on besides the program's own: every
    # assignment of the gates where there are at most this many, else this
    # many drawn at random (seeded by the program, so a run is repeatable).
    OTHER_RUNS = 64

    def runs_of_gates(self):
        """Gate values of the runs a rewrite must be right on: the tool
        cannot know the gates (they are read at run time), so a form it
        picks for a launch statement must read what the original does on
        every run, not only on the one the program makes."""
        total = 1
        for v in self.gate_values:
            total *= v
        if total <= self.OTHER_RUNS:
            return list(itertools.product(*(range(v) for v in self.gate_values)))
        r = random.Random(self.seed)
        return [tuple(r.randrange(v) for v in self.gate_values) for _ in range(self.OTHER_RUNS)]

    def records_under(self, gates):
        """The launch records of a run with these gate values."""
        saved = self.gates, self.launches
        self.gates, self.launches = list(gates), []
        try:
            self.model()
            return self.launches
        finally:
            self.gates, self.launches = saved

    def correct_forms(self):
        """For each launch statement (site), the forms (by value with a
        host map, the snapshot) that read what the original does on every
        run checked: this run's and those of runs_of_gates."""
        ok = [{"h", "o", "p", "snapshot", "late"} for _ in range(self.sites)]
        self.unseen = False
        for run in [self.launches] + [self.records_under(g) for g in self.runs_of_gates()]:
            for l in run:
                ok[l["site"]] = {f for f in ok[l["site"]] if l[f] == l["original"]}
                self.unseen = self.unseen or l["unseen"]
        return ok

    def statically_safe(self):
        """Every launch statement has a form that is right on every run:
        what a tool that cannot know the gates may rewrite. The value
        form's late snapshot (L) only judges a rewrite that passes it: the
        safe programs, and so issue 41's measure, stay those a by-value
        form or the snapshot S serves."""
        return all(c - {"late"} for c in self.correct)

    def respell(self, block, alt, spellings):
        """The block with a quarter of its `assign` writes (in nested blocks
        too) spelled one of the ways of spellings, chosen by alt."""
        out = []
        for st in block:
            if st[0] == "write" and st[1] == "assign":
                if alt.randrange(4) == 0:
                    st = (st[0], alt.choice(sorted(spellings))) + st[2:]
            else:
                st = tuple(self.respell(x, alt, spellings) if isinstance(x, list) else x for x in st)
            out.append(st)
        return out

    def patch_pokes(self, block, alt):
        """The block with half of its held kernel pokes of the device copy
        made as a one-word cudaMemcpyAsync on the held stream from
        page-locked memory that keeps the word ("held-patch"): the same
        write at the same time, made by the CUDA API where the poke is a
        kernel (issue 41: a write enqueued on the held stream before a copy
        runs after it). By an RNG of its own, so no other choice moves."""
        out = []
        for st in block:
            if st[0] == "held-poke":
                if alt.randrange(2) == 0:
                    st = ("held-patch",) + st[1:]
            else:
                st = tuple(self.patch_pokes(x, alt) if isinstance(x, list) else x for x in st)
            out.append(st)
        return out

    def provable(self):
        """Safe, and provably so under the closed world: no launch reads
        the device copy after it was handed to a function the tool cannot
        see (on some run). A tool must refuse the others (issue 41: an
        unclassified use is a write that may happen at any time after it),
        so their refusals are over-careful only as the model knows more
        than the text says; they are counted apart."""
        return self.statically_safe() and not self.unseen

    def launch(self):
        self.sites += 1
        return ("launch", self.sites - 1, self.device(), self.rng.choice(list(LAUNCHES)))

    def device(self):
        """The name a statement reaches the device copy by."""
        return self.rng.choice(("d", self.device_name))

    def gate(self, values):
        """A new run-time condition, its value chosen now."""
        self.gates.append(self.rng.randrange(values))
        self.gate_values.append(values)
        return len(self.gates) - 1

    def block(self, depth, length, held, in_loop):
        """A random statement list; an if, a switch, a for, a block a goto
        may skip or a held block nests another (depth 2 at most). In a held
        block, work on the held stream (HELD) is queued until the block's
        end releases it, and no jump leaves it (the release must run); a
        break or continue is written only where it leaves a loop."""
        rng, out = self.rng, []
        for _ in range(length):
            kinds = ["copy", "copy", "write", "write", "write", "launch", "launch", "launch",
                     "device-write", "copy-other"]
            if depth < 2:
                kinds += ["if", "for", "switch", "goto"] + ([] if held else ["held"])
                kinds += ["graph"] if self.graph_allowed and not held else []
            if held:
                kinds += ["held-copy", "held-poke", "held-launch", "held-launch", "stage", "held-callback"]
            else:
                kinds += ([] if self.in_graph else ["return"]) + (["break", "continue"] if in_loop else [])
            kind = rng.choice(kinds)
            if kind in ("copy", "copy-other"):
                out.append(("copy", "h" if kind == "copy" else "o", self.device(),
                            rng.choice(list(COPIES))))
            elif kind == "write":
                self.serial += 1
                out.append(("write", rng.choice(self.writes), rng.randrange(WORDS),
                            rng.randrange(1, 1 << 64), rng.randrange(1, 256), self.serial))
            elif kind == "device-write":
                out.append(("device-write", rng.choice(list(DEVICE_WRITES)), rng.randrange(WORDS),
                            rng.randrange(1, 1 << 64), rng.randrange(1, 256), self.device()))
            elif kind == "if":
                gate = self.gate(2)
                then = self.block(depth + 1, rng.randint(1, 3), held, in_loop)
                other = self.block(depth + 1, rng.randint(0, 2), held, in_loop)
                out.append(("if", gate, then, other))
            elif kind == "switch":
                # case 0, then (falling through or not) the default; a
                # break in a case would leave the switch, so none is written.
                gate = self.gate(3)
                first = self.block(depth + 1, rng.randint(1, 3), held, False)
                second = self.block(depth + 1, rng.randint(0, 2), held, False)
                out.append(("switch", gate, first, second, rng.randrange(2)))
            elif kind == "goto":
                out.append(("goto", self.gate(2), self.block(depth + 1, rng.randint(1, 3), held, in_loop)))
            elif kind in ("break", "continue", "return"):
                out.append((kind, self.gate(2)))
            elif kind == "for":
                gate = self.gate(3)
                out.append(("for", gate, self.block(depth + 1, rng.randint(1, 3), held, True)))
            elif kind == "held":
                self.holds = True
                out.append(("held", self.block(depth + 1, rng.randint(2, 5), True, False)))
            elif kind == "held-callback":
                self.callbacks = True
                out.append(("held-callback", rng.randrange(WORDS), rng.randrange(1, 1 << 64)))
            elif kind == "graph":
                # A launch captured into a graph, the block, and the replay.
                self.sites += 1
                self.graphs = True
                site, dn = self.sites - 1, self.device()
                self.in_graph += 1  # no return skips the replay
                out.append(("graph", site, dn, self.block(depth + 1, rng.randint(1, 3), held, False)))
                self.in_graph -= 1
            elif kind == "held-copy":
                out.append(("held-copy", self.device()))
            elif kind == "held-poke":
                self.held_pokes = True
                out.append(("held-poke", rng.randrange(WORDS), rng.randrange(1, 1 << 64), self.device()))
            elif kind == "held-launch":
                self.sites += 1
                out.append(("held-launch", self.sites - 1, self.device()))
            elif kind == "stage":
                out.append(("stage",))
            else:
                out.append(self.launch())
        return out

    def model(self):
        """One stream, so stream order is execution order: H and O are the
        host maps, D the device copy, S what the last copy into D read (the
        value a snapshot taken at that copy holds)."""
        env = {"h": fill(self.seed), "o": fill(self.other_seed), "d": None, "s": None, "l": None}
        env["p"] = env["h"]  # the pinned staging map, a copy of h when made
        env["queue"] = []  # work on the held stream, run when it is released
        # The device copy has been handed to a function the tool cannot see
        # (the device write behind a pointer): under the closed world it may
        # be written at any time after, so no launch that reads it later can
        # be proven safe, whatever the function really does.
        env["unseen"] = False
        try:
            self.run(self.body, env)
        except Return:
            pass

    def run(self, block, env):
        """Runs a block; the writes of the destructors of the objects it
        declares happen where it is left (its end, a jump, a return), the
        last declared first."""
        at_end = []
        try:
            self.run_statements(block, env, at_end)
        finally:
            for st in reversed(at_end):
                self.write_host(st, env)

    def run_statements(self, block, env, at_end):
        for st in block:
            if st[0] == "copy":
                env["d"] = env["s"] = env["l"] = env[st[1]]
            elif st[0] == "write" and st[1] in AT_BLOCK_END:
                at_end.append(st)
            elif st[0] == "write":
                self.write_host(st, env)
            elif st[0] == "device-write":
                _, how, w, v, b, _ = st
                word = int.from_bytes(bytes([b]) * 8, "little") if how in BYTE_WRITES else v
                env["d"] = env["d"][:w] + (word,) + env["d"][w + 1:]
                if how in HOST_REPEATABLE:
                    env["s"] = env["s"][:w] + (word,) + env["s"][w + 1:]
                    env["l"] = env["l"][:w] + (word,) + env["l"][w + 1:]
                if how in UNSEEN_WRITES:
                    env["unseen"] = True
            elif st[0] == "held":
                self.run(st[1], env)
                self.release(env)
            elif st[0] == "held-launch":
                record = self.record(st[1], env)
                record["original"] = None  # what D holds when the stream runs it
                env["queue"].append(st[:1] + (record,))
            elif st[0] == "held-copy":
                # The retargeted copy (`*d = *pin`) reads the staging map at
                # its call; the device copy changes when the stream runs it.
                # The value form's value does not take a held copy that
                # lands after every launch (L: the "late" snapshot).
                env["s"] = env["p"]
                env["queue"].append(st)
            elif st[0] in ("held-poke", "held-patch", "held-callback"):
                env["queue"].append(st)
            elif st[0] == "graph":
                # The captured launch's arguments are taken at the capture;
                # the kernel reads D when the graph is replayed.
                record = self.record(st[1], env)
                self.run(st[3], env)
                record["original"] = checksum(env["d"])
                record["unseen"] = env["unseen"]
            elif st[0] == "stage":
                env["p"] = env["h"]
            elif st[0] == "if":
                self.run(st[2] if self.gates[st[1]] else st[3], env)
            elif st[0] == "for":
                for _ in range(self.gates[st[1]]):
                    try:
                        self.run(st[2], env)
                    except Continue:
                        continue
                    except Break:
                        break
            elif st[0] == "switch":
                _, gate, first, second, falls = st
                if self.gates[gate] == 0:
                    self.run(first, env)
                if self.gates[gate] != 0 or falls:
                    self.run(second, env)
            elif st[0] == "goto":
                if not self.gates[st[1]]:
                    self.run(st[2], env)
            elif st[0] in JUMPS:
                if self.gates[st[1]]:
                    raise JUMPS[st[0]]()
            else:
                self.record(st[1], env)

    def record(self, site, env):
        """A launch of `site`: what the original reads (D now; a held
        launch's is filled in at the release), what each value a rewrite
        could pass holds at the launch call."""
        record = {"site": site, "original": checksum(env["d"]), "h": checksum(env["h"]),
                  "o": checksum(env["o"]), "p": checksum(env["p"]), "snapshot": checksum(env["s"]),
                  "late": checksum(env["l"]),
                  "unseen": env["unseen"]}
        self.launches.append(record)
        return record

    @staticmethod
    def release(env):
        """The held stream runs its queue in order, after the legacy
        stream's work (the release synchronises it first)."""
        for st in env["queue"]:
            if st[0] == "held-copy":
                env["d"] = env["p"]
            elif st[0] in ("held-poke", "held-patch"):
                _, w, v, _ = st
                env["d"] = env["d"][:w] + (v,) + env["d"][w + 1:]
            elif st[0] == "held-callback":
                _, w, v = st
                env["h"] = env["h"][:w] + (v,) + env["h"][w + 1:]
            else:
                st[1]["original"] = checksum(env["d"])
                st[1]["unseen"] = env["unseen"]
        env["queue"] = []

    @staticmethod
    def write_host(st, env):
        _, how, w, v, b, _ = st
        h = env["h"]
        if how == "re-encode":
            h = fill(v)
        elif how == "assign-map":
            h = env["o"]
        else:
            word = int.from_bytes(bytes([b]) * 8, "little") if how == "memset" else v
            h = h[:w] + (word,) + h[w + 1:]
        env["h"] = h

    def statements(self, block, indent):
        n, pad, lines = self.n, "  " * indent, []
        for st in block:
            if st[0] == "copy":
                _, src, dn, how = st
                lines.append(pad + COPIES[how].format(dn=self.spell(dn), src=f"{src}_{n}"))
            elif st[0] == "write":
                _, how, w, v, b, serial = st
                lines.append(pad + HOST_WRITES[how][2].format(n=n, w=w, v=v, b=b, s=serial))
            elif st[0] == "device-write":
                _, how, w, v, b, dn = st
                lines.append(pad + DEVICE_WRITES[how][1].format(n=n, w=w, v=v, b=b, dn=self.spell(dn)))
            elif st[0] == "if":
                lines.append(f"{pad}if (gate_{n}[{st[1]}]) {{")
                lines += self.statements(st[2], indent + 1)
                if st[3]:
                    lines.append(f"{pad}}} else {{")
                    lines += self.statements(st[3], indent + 1)
                lines.append(f"{pad}}}")
            elif st[0] == "held":
                lines.append(f"{pad}hold_until<<<1, 1, 0, st_{n}>>>(dflag_{n});")
                lines.append(f"{pad}{{")
                lines += self.statements(st[1], indent + 1)
                lines += [f"{pad}}}", f"{pad}cudaStreamSynchronize(0);", f"{pad}*flag_{n} = 1;",
                          f"{pad}cudaStreamSynchronize(st_{n});", f"{pad}*flag_{n} = 0;"]
            elif st[0] == "held-copy":
                lines.append(f"{pad}cudaMemcpyAsync({self.spell(st[1])}, pin_{n}, sizeof(CUtensorMap), "
                             f"cudaMemcpyHostToDevice, st_{n});")
            elif st[0] == "held-poke":
                _, w, v, dn = st
                lines.append(f"{pad}poke_{n}<<<1, 1, 0, st_{n}>>>({self.spell(dn)}, {w}, {v:#x}ull);")
            elif st[0] == "held-patch":
                # Page-locked memory that keeps the word: the copy reads it
                # when the stream runs it, and nothing changes it after.
                _, w, v, dn = st
                lines.append(f"{pad}{{ unsigned long long *pw = nullptr; cudaMallocHost(&pw, sizeof *pw); "
                             f"*pw = {v:#x}ull; cudaMemcpyAsync(&{self.spell(dn)}->opaque[{w}], pw, sizeof *pw, "
                             f"cudaMemcpyHostToDevice, st_{n}); }}")
            elif st[0] == "held-launch":
                lines.append(f"{pad}k_{n}<<<1, 1, 0, st_{n}>>>({self.spell(st[2])}, out, slot_{n}++);"
                             f"  // site {st[1]}")
            elif st[0] == "stage":
                lines.append(f"{pad}*pin_{n} = h_{n};")
            elif st[0] == "held-callback":
                _, w, v = st
                lines.append(f"{pad}cudaLaunchHostFunc(st_{n}, later_{n}, new Later_{n}{{&h_{n}, {w}, {v:#x}ull}});")
            elif st[0] == "graph":
                _, site, dn, body = st
                lines += [f"{pad}{{", f"{pad}  cudaStream_t cs;", f"{pad}  cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);",
                          f"{pad}  cudaGraph_t g;", f"{pad}  cudaGraphExec_t ge;",
                          f"{pad}  cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);",
                          f"{pad}  k_{n}<<<1, 1, 0, cs>>>({self.spell(dn)}, out, slot_{n}++);  // site {site}",
                          f"{pad}  cudaStreamEndCapture(cs, &g);", f"{pad}  cudaGraphInstantiate(&ge, g, 0);"]
                lines += self.statements(body, indent + 1)
                lines += [f"{pad}  cudaGraphLaunch(ge, 0);", f"{pad}  cudaStreamSynchronize(0);",
                          f"{pad}  cudaGraphExecDestroy(ge);", f"{pad}  cudaGraphDestroy(g);",
                          f"{pad}  cudaStreamDestroy(cs);", f"{pad}}}"]
            elif st[0] == "switch":
                _, gate, first, second, falls = st
                lines += [f"{pad}switch (gate_{n}[{gate}]) {{", f"{pad}case 0: {{"]
                lines += self.statements(first, indent + 1)
                lines += [f"{pad}}}", f"{pad}  " + ("[[fallthrough]];" if falls else "break;"),
                          f"{pad}default: {{"]
                lines += self.statements(second, indent + 1)
                lines += [f"{pad}}}", f"{pad}}}"]
            elif st[0] == "goto":
                lines += [f"{pad}if (gate_{n}[{st[1]}])", f"{pad}  goto skip_{n}_{st[1]};", f"{pad}{{"]
                lines += self.statements(st[2], indent + 1)
                lines += [f"{pad}}}", f"{pad}skip_{n}_{st[1]}:;"]
            elif st[0] in ("break", "continue"):
                lines += [f"{pad}if (gate_{n}[{st[1]}])", f"{pad}  {st[0]};"]
            elif st[0] == "return":
                lines.append(f"{pad}if (gate_{n}[{st[1]}]) {{")
                lines += [pad + line for line in self.cleanup()]
                lines += [f"{pad}  return;", f"{pad}}}"]
            elif st[0] == "for":
                i = f"i{st[1]}"
                lines.append(f"{pad}for (int {i} = 0; {i} < gate_{n}[{st[1]}]; ++{i}) {{")
                lines += self.statements(st[2], indent + 1)
                lines.append(f"{pad}}}")
            else:
                _, site, dn, how = st
                lines.append(pad + LAUNCHES[how][1].format(n=n, dn=self.spell(dn)) + f"  // site {site}")
        return lines

    def cleanup(self):
        """The program's last statements, and an early return's."""
        n = self.n
        lines = ["  cudaDeviceSynchronize();", f"  cudaFree(d_{n});"]
        if self.holds:
            lines += [f"  cudaStreamDestroy(st_{n});", f"  cudaFreeHost(pin_{n});",
                      f"  cudaFreeHost((void *)flag_{n});"]
        return lines

    def spell(self, name):
        return DEVICE_NAMES[name][1].format(n=self.n)

    def walk(self, block):
        for st in block:
            yield st
            if st[0] == "if":
                yield from self.walk(st[2])
                yield from self.walk(st[3])
            elif st[0] in ("for", "held", "goto", "graph"):
                yield from self.walk(st[-1])
            elif st[0] == "switch":
                yield from self.walk(st[2])
                yield from self.walk(st[3])

    def source(self):
        n = self.n
        stmts = list(self.walk(self.body))
        used = {st[1] for st in stmts if st[0] == "write"}
        decls = "".join(HOST_WRITES[k][1].format(n=n) for k in HOST_WRITES if k in used)
        first = self.slots[0] if self.slots else 0
        lines = [f"static void prog_{n}(unsigned long long *out) {{",
                 f"  CUtensorMap h_{n}, o_{n};", f"  fill(&h_{n}, {self.seed}ull);",
                 f"  fill(&o_{n}, {self.other_seed}ull);",
                 f"  CUtensorMap *d_{n};", f"  cudaMalloc(&d_{n}, sizeof(CUtensorMap));",
                 f"  int slot_{n} = {first};"]
        decls = DEVICE_NAMES[self.device_name][0].format(n=n) + decls
        if self.holds:
            decls += (f"  cudaStream_t st_{n};\n  cudaStreamCreateWithFlags(&st_{n}, cudaStreamNonBlocking);\n"
                      f"  CUtensorMap *pin_{n};\n  cudaMallocHost(&pin_{n}, sizeof(CUtensorMap));\n"
                      f"  *pin_{n} = h_{n};\n  volatile int *flag_{n};\n"
                      f"  cudaHostAlloc((void **)&flag_{n}, sizeof(int), cudaHostAllocMapped);\n"
                      f"  *flag_{n} = 0;\n  int *dflag_{n};\n"
                      f"  cudaHostGetDevicePointer((void **)&dflag_{n}, (void *)flag_{n}, 0);\n")
        if decls:
            lines.append(decls.rstrip("\n"))
        lines += self.statements(self.body, 1)
        lines += self.cleanup()
        lines += ["}", ""]
        # The gates are read at run time (volatile): the tool cannot know them.
        head = ""
        if self.gates:
            head += f"static volatile int gate_{n}[] = {{{', '.join(map(str, self.gates))}}};\n"
        head += "".join(HOST_WRITES[k][0].format(n=n) for k in HOST_WRITES if k in used)
        head += DEVICE_NAME_CODE.get(self.device_name, "").format(n=n)
        device_used = {st[1] for st in stmts if st[0] == "device-write"}
        launch_forms = {st[3] for st in stmts if st[0] == "launch"}
        head += "".join(LAUNCHES[k][0].format(n=n) for k in LAUNCHES if k in launch_forms)
        if self.held_pokes:
            device_used.add("kernel")
        if self.callbacks:
            head += (f"struct Later_{n} {{\n  CUtensorMap *m;\n  int w;\n  unsigned long long v;\n}};\n"
                     f"static void CUDART_CB later_{n}(void *p) {{\n  Later_{n} *l = static_cast<Later_{n} *>(p);\n"
                     f"  l->m->opaque[l->w] = l->v;\n  delete l;\n}}\n")
        head += "".join(DEVICE_WRITES[k][0].format(n=n) for k in DEVICE_WRITES if k in device_used)
        return KERNEL.format(n=n) + head + "\n".join(lines)

    def expected_output(self, forms=None):
        """What the program prints: as written, or, given the form of each
        launch in a rewrite, what the rewrite prints (a refused launch reads
        what the original does; a wrong rewrite, the value it passes)."""
        def value(l):
            form = forms[l["site"]] if forms and len(forms) == self.sites else "refused"
            return l[form] if form in ("h", "o", "p", "snapshot", "late") else l["original"]
        return "".join(f"{slot} {value(l):016x}\n" for slot, l in zip(self.slots, self.launches))


def translation_unit(programs):
    slots = sum(len(p.slots) for p in programs)
    calls = "".join(f"  prog_{p.n}(out);\n" for p in programs)
    return (PRELUDE + "\n" + HOLD + "\n" + "\n".join(p.source() for p in programs) +
            f"\nint main() {{\n  unsigned long long *out, host[{slots}] = {{0}};\n"
            f"  cudaMalloc(&out, sizeof(host));\n{calls}"
            "  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);\n"
            f"  for (int i = 0; i < {slots}; ++i)\n"
            '    std::printf("%d %016llx\\n", i, host[i]);\n  return 0;\n}\n')


def reported_forms(report, program, source):
    """What the report says each launch of the program passes, by site:
    "h", "o" or "p" by value, "snapshot", or "refused". A report's launch
    is found by its line in the original: a site's, or the launch in the
    program's launcher, which stands for every call of the launcher."""
    n = program.n
    site_at, launcher_line = {}, None
    for number, line in enumerate(source.splitlines(), 1):
        m = re.search(r"// site (\d+)$", line)
        if m and re.search(r"\b(k|launch)_%d\b" % n, line):
            site_at[number] = int(m.group(1))
        if line.startswith(f"static void launch_{n}("):
            launcher_line = number + 1
    launcher_sites = [site for number, site in site_at.items()
                      if source.splitlines()[number - 1].lstrip().startswith(f"launch_{n}(")]
    forms = ["missing"] * program.sites
    for desc in report.get("descriptors", []) if report else []:
        if desc["kernel"] != f"k_{n}":
            continue
        for launch in desc["launches"]:
            form = launch["form"]
            if form == "by value":
                arg = re.sub(r"[\s()]", "", launch.get("argument", ""))
                form = {f"h_{n}": "h", f"o_{n}": "o", f"*pin_{n}": "p"}.get(arg, "unknown: " + arg)
            line = launch["location"]["line"]
            for site in ([site_at[line]] if line in site_at else
                         launcher_sites if line == launcher_line else []):
                forms[site] = form
    return forms


def storage_note(report, program):
    """The storage rule's own reason for refusing the program's kernel (its
    note "the storage rule cannot retarget it: ...", with the names it
    quotes and its numbers made generic), or the refusal's message where it
    has none: what --notes groups the over-careful launches by."""
    for desc in report.get("descriptors", []) if report else []:
        if desc["kernel"] == f"k_{program.n}" and desc.get("decision") == "refused":
            messages = [n["message"] for n in desc.get("notes", [])]
            found = [m.split("cannot retarget it: ", 1)[1] for m in messages if "cannot retarget it: " in m]
            text = found[0] if found else desc.get("message", "")
            text = re.sub(r"'[^']*'", "'X'", text)  # the device copy's many names
            return re.sub(r"\b\d+\b", "N", text)[:160]
    return "none"


def dimensions(program):
    """The dimensions of the grammar a program uses that the tool's rules
    turn on (--census): each kind of device write, held blocks, graphs,
    the device copy's other name, the host writers' set."""
    def walk(statements):
        for st in statements:
            yield st
            for part in st[1:]:
                if isinstance(part, list):
                    yield from walk(part)
    found = {"name " + program.device_name, "plain writers" if program.writes is PLAIN_WRITES else "all writers"}
    for st in walk(program.body):
        if st[0] == "device-write":
            found.add("device write " + st[1])
        elif st[0] == "held-poke":
            found.add("device write kernel")
        elif st[0] == "held-patch":
            found.add("device write held copy")
        if st[0].startswith("held"):
            found.add("held")
        elif st[0] == "graph":
            found.add("graph")
    return found


def refusal_reason(report, program):
    """The reason the report gives for refusing the program's kernel (its
    `reasonId`), or "none"."""
    for desc in report.get("descriptors", []) if report else []:
        if desc["kernel"] == f"k_{program.n}" and desc.get("decision") == "refused":
            return desc.get("reasonId", "unknown")
    return "none"


def forms_of(source, text, report, program):
    """What each launch of the program passes, by site, from the report,
    or the difference between the report and the rewritten text."""
    said, written = reported_forms(report, program, source), written_forms(text, program)
    if said != written:
        return ["report says " + ", ".join(said) + "; the text, " + ", ".join(written)] * program.sites
    return value_form_late(text, program, said)


def value_form_late(text, program, forms):
    """The value form (`d_N_value` beside the device copy) takes what each
    copy copies, at its call, except a held copy that lands after every
    launch, which it leaves on the device copy: where the value form is
    used and no held copy of the program is followed by the value's
    assignment, its snapshot is the late one ("late": the model's L, which
    no held copy sets). Where some are and some are not, the model has no
    value for it ("value form mixed")."""
    n = program.n
    body = re.search(r"static void prog_%d\(.*?\n}\n" % n, text, re.S)
    body = body.group(0) if body else ""
    if not re.search(r"(?<![\w.])d_%d_value\d*(?![\w])" % n, body):
        return forms
    held = re.findall(r"cudaMemcpyAsync\([^;]*, pin_%d, sizeof\(CUtensorMap\), cudaMemcpyHostToDevice, "
                      r"st_%d\);(\s*d_%d_value\d* = \*pin_%d;)?" % (n, n, n, n), body)
    taken = [bool(t) for t in held]
    if not taken or all(taken):
        return forms
    if any(taken):
        return [("value form mixed" if f == "snapshot" else f) for f in forms]
    return [("late" if f == "snapshot" else f) for f in forms]


def written_forms(text, program):
    """What each launch of the program passes in the rewritten text, in
    order: a host map by value ("h" or "o"), the snapshot, or the device
    copy left by reference."""
    n = program.n
    body = re.search(r"static void prog_%d\(.*?\n}\n" % n, text, re.S)
    sites = dict((int(site), stmt) for stmt, site in
                 re.findall(r"^\s*(.*?)\s*// site (\d+)$", body.group(0) if body else "", re.M))
    forms = [form_in(sites.get(i, ""), n) for i in range(program.sites)]
    # A launcher whose launch passes `*m` is given the storage of a snapshot.
    if re.search(r"k_%d<<<1, 1>>>\(\s*\*\s*m\s*," % n, text):
        forms = [("snapshot" if f == "refused" and sites.get(i, "").startswith(f"launch_{n}(") else f)
                 for i, f in enumerate(forms)]
    return forms


def form_in(stmt, n):
    """What a launch statement passes: a host map by value ("h", "o", "p"
    for the pinned staging map), the snapshot (`*` and a name of the device
    copy, or the value beside it that the value form declares), or the
    device copy by reference."""
    t = re.sub(r"\s+", "", stmt)
    word = lambda name: r"(?<![\w.])" + re.escape(name) + r"(?![\w])"
    if not t:
        return "missing"
    for name, form in ((f"*pin_{n}", "p"), (f"h_{n}", "h"), (f"o_{n}", "o")):
        if re.search(word(name), t):
            return form
    # The value form: a map beside the device copy that each copy assigns.
    if re.search(r"(?<![\w.])d_%d_value\d*(?![\w])" % n, t):
        return "snapshot"
    device = [spelling.format(n=n) for _, spelling in DEVICE_NAMES.values()]
    if "args[]" in t:
        # An argument array holds the argument's address: `&d` is d by
        # reference, `d` itself (a retargeted storage) the snapshot.
        if any(re.search(r"\(void\*\)&" + re.escape(d) + r"(?![\w\[.])", t) for d in device):
            return "refused"
        if any(re.search(r"\(void\*\)" + re.escape(d) + r"(?![\w\[.])", t) for d in device):
            return "snapshot"
    if any(re.search(r"\*\(?" + re.escape(d) + r"(?![\w\[.])", t) for d in device):
        return "snapshot"
    if any(re.search(word(d) + r"(?![\[.])", t) for d in device):
        return "refused"
    return "unknown: " + stmt


FORM_NAMES = {"h": "by value", "o": "by value", "p": "by value", "snapshot": "snapshot", "late": "snapshot",
              "refused": "refused"}


def verdicts(program, forms):
    """(launch index, class) for every launch the tool got wrong, or refused
    where the model says a rewrite reads the same. The kernel's parameter is
    one for all its launches: a refusal is over-careful only when every
    launch of the program has a correct rewrite."""
    out = []
    if len(forms) != program.sites:
        return [(-1, "launches not found in the output")]
    safe = program.statically_safe()
    wrong_sites = set()
    for i, l in enumerate(program.launches):
        form = forms[l["site"]]
        if form in ("h", "o", "p", "snapshot", "late"):
            if l[form] != l["original"]:
                out.append((i, "wrong " + FORM_NAMES[form]))
                wrong_sites.add(l["site"])
        elif form == "refused":
            if safe:
                out.append((i, "over-careful"))
        else:
            out.append((i, form))
    # A form right on this run may be wrong on another (other gate values):
    # listed by the first launch of its site on this run, or by 1000 + the
    # site where this run does not reach it.
    first = {}
    for i, l in enumerate(program.launches):
        first.setdefault(l["site"], i)
    for site, form in enumerate(forms):
        if form in ("h", "o", "p", "snapshot", "late") and site not in wrong_sites and form not in program.correct[site]:
            out.append((first.get(site, 1000 + site), "wrong " + FORM_NAMES[form] + " on another run"))
    return out


def read_known(paths, seed, programs):
    """The listed disagreements of this seed's first `programs` programs, in
    every list of `paths`: {(seed, program, launch): class}."""
    known = {}
    for path in paths or []:
        if not os.path.exists(path):
            continue
        for line in open(path):
            line = line.split("#")[0].strip()
            if line:
                s, prog, launch, cls = line.split(None, 3)
                if int(s) == seed and int(prog) < programs:
                    known[(int(s), int(prog), int(launch))] = cls
    return known


def write_list(path, header, entries):
    with open(path, "w") as f:
        f.write(header)
        for (seed, prog, launch), cls in sorted(entries.items()):
            f.write(f"{seed} {prog} {launch} {cls}\n")


def run_tool(tool, work, name, programs):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, name + ".cu")
    src = translation_unit(programs)
    with open(path, "w") as f:
        f.write(src)
    report = os.path.join(work, name + ".json")
    r = subprocess.run([tool, "--no-database", "--report=" + report, path], cwd=work,
                       capture_output=True, text=True)
    r.report = json.load(open(report)) if os.path.exists(report) else None
    return src, open(path).read(), r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--programs", type=int, default=100)
    ap.add_argument("--pack", type=int, default=25, help="programs per translation unit")
    ap.add_argument("--known", action="append",
                    help="a list of known disagreements to compare with (repeat for several)")
    ap.add_argument("--update-known", help="write this run's wrong rewrites to this file")
    ap.add_argument("--update-careful", help="write this run's over-careful refusals to this file")
    ap.add_argument("--emit", help="write the packs, original and rewritten, with expected outputs")
    ap.add_argument("--keep")
    ap.add_argument("--notes", action="store_true",
                    help="also group the over-careful launches by the storage rule's own note")
    ap.add_argument("--census", action="store_true",
                    help="also count the programs with over-careful launches by the grammar's dimensions "
                         "they use, alone and in the combinations of device writes, held blocks and graphs")
    ap.add_argument("--survey", action="store_true",
                    help="long runs: re-check alone only the wrong rewrites, not the over-careful refusals")
    a = ap.parse_args()
    tool = os.path.abspath(a.tool)
    rng = random.Random(a.seed)
    programs = [Program(rng, i) for i in range(a.programs)]
    work = a.keep or tempfile.mkdtemp(prefix="semantic-")
    known = read_known(a.known, a.seed, a.programs)
    counts = {"by value": 0, "snapshot": 0, "refused": 0}
    found = {}
    failed_runs = 0
    careful = {}  # over-careful launches by the reason the tool gave
    notes = {}  # the same by the storage rule's note (--notes)
    reason_programs = {}  # the programs of each reason (--notes)
    census, combos = {}, {}  # programs with over-careful launches (--census)
    safe = 0  # launches of programs whose every launch has a correct rewrite
    unseen_safe = unseen_careful = 0  # of these, in programs that are not provable (Program.provable)
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
            with open(os.path.join(a.emit, "rewritten", name + ".expected"), "w") as f:
                f.write("".join(p.expected_output(forms_of(src, after, r.report, p)) for p in pack))
        for p in pack:
            alone_checked = False
            forms = forms_of(src, after, r.report, p)
            bad = verdicts(p, forms)
            if any(known.get((a.seed, p.n, i)) != cls and (cls.startswith("wrong") or not a.survey)
                   for i, cls in bad):
                # A disagreement not listed is re-checked alone: a pack must
                # not change a program's verdict.
                p.slots = list(range(len(p.launches)))
                alone_src, alone, r1 = run_tool(tool, os.path.join(work, f"{name}-alone-{p.n}"), "alone", [p])
                alone_checked = r1.returncode == 0
                forms = forms_of(alone_src, alone, r1.report, p) if alone_checked else forms
                bad = verdicts(p, forms)
            for l in p.launches:
                f = FORM_NAMES.get(forms[l["site"]], "unknown") if len(forms) == p.sites else "unknown"
                counts[f] = counts.get(f, 0) + 1
            for i, cls in bad:
                found[(a.seed, p.n, i)] = cls
                if cls == "over-careful":
                    unseen_careful += not p.provable()
                    why = refusal_reason(r1.report if alone_checked else r.report, p)
                    careful[why] = careful.get(why, 0) + 1
                    reason_programs.setdefault(why, set()).add(p.n)
                    if a.notes:
                        note = storage_note(r1.report if alone_checked else r.report, p)
                        notes[note] = notes.get(note, 0) + 1
            if a.census and any(cls == "over-careful" for _, cls in bad):
                dims = dimensions(p)
                for d in dims:
                    census[d] = census.get(d, 0) + 1
                key = ", ".join(sorted(d for d in dims if d.startswith("device write") or d in ("held", "graph")))
                combos.setdefault(key or "none of these", []).append(p.n)
            if p.statically_safe():
                safe += len(p.launches)
                unseen_safe += len(p.launches) * (not p.provable())
    new = {k: v for k, v in found.items() if known.get(k) != v}
    gone = {k: v for k, v in known.items() if found.get(k) != v}
    for (seed, prog, launch), cls in sorted(new.items()):
        print(f"FAIL new disagreement: seed {seed} program {prog} launch {launch}: {cls}")
        print("     " + "\n     ".join(programs[prog].source().splitlines()))
    for (seed, prog, launch), cls in sorted(gone.items()):
        print(f"FAIL listed disagreement no longer happens (take it off the list): "
              f"seed {seed} program {prog} launch {launch}: {cls}")
    if a.update_known:
        write_list(a.update_known, "# SEED PROGRAM LAUNCH CLASS: wrong rewrites of the tool by the model "
                   "(test/gen/semantic/semantic.py); the list only shrinks.\n",
                   {k: v for k, v in found.items() if v != "over-careful"})
    if a.update_careful:
        write_list(a.update_careful, "# SEED PROGRAM LAUNCH CLASS: over-careful refusals of the tool by the "
                   "model (test/gen/semantic/semantic.py); the list only shrinks.\n",
                   {k: v for k, v in found.items() if v == "over-careful"})
    classes = {}
    for cls in found.values():
        classes[cls] = classes.get(cls, 0) + 1
    launches = sum(len(p.launches) for p in programs)
    print(f"semantic: seed {a.seed}, {len(programs)} programs, {launches} launches: "
          f"{counts['by value']} by value, {counts['snapshot']} snapshot, {counts['refused']} refused; "
          f"disagreements {len(found)} ({', '.join(f'{v} {k}' for k, v in sorted(classes.items())) or 'none'}), "
          f"{len(new)} new, {len(gone)} fixed, {failed_runs} failed runs")
    # Issue 41's measure: over-careful launches as a share of those the
    # model calls safe, by the reason the tool gave.
    over = sum(careful.values())
    print(f"over-careful: {over} of {safe} safe launches ({100.0 * over / max(safe, 1):.1f} %); by reason: " +
          (", ".join(f"{k} {v}" for k, v in sorted(careful.items(), key=lambda kv: (-kv[1], kv[0])))
           or "none"))
    # The same without the launches no tool may prove: those that read the
    # device copy after a call the text does not resolve was given it.
    print(f"over-careful, provable: {over - unseen_careful} of {safe - unseen_safe} launches safe and provable "
          f"({100.0 * (over - unseen_careful) / max(safe - unseen_safe, 1):.1f} %); apart: {unseen_careful} of "
          f"{unseen_safe} safe launches that read the device copy after a call through an unresolved pointer "
          f"was given it (closed world)")
    for note, count in sorted(notes.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"over-careful by note: {count:6d}  {note}")
    if a.notes:
        for why, progs in sorted(reason_programs.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"over-careful programs by reason: {why}: " + ", ".join(map(str, sorted(progs)[:12])) +
                  (", ..." if len(progs) > 12 else ""))
    for dim, count in sorted(census.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"over-careful programs using: {count:6d}  {dim}")
    for key, programs in sorted(combos.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"over-careful programs with exactly: {len(programs):6d}  {key} (programs " +
              ", ".join(map(str, programs[:8])) + (", ..." if len(programs) > 8 else "") + ")")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if new or gone or failed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
