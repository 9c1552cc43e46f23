# lit configuration for tma-modernize: one test per pattern and per refusal.
import os
import zlib
import lit.formats

config.name = "tma-modernize"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cu", ".test"]
config.excludes = ["Inputs", "check_sarif.py", "sharded"]
config.test_source_root = os.path.dirname(__file__)
config.recursiveExpansionLimit = 4

config.environment["PATH"] = os.pathsep.join(
    [config.tma_bin, config.llvm_tools_dir, config.environment.get("PATH", "/usr/bin:/bin")])

tma = os.path.join(config.tma_bin, "tma-modernize")
# `--param sharded=1` (ctest's project-sharded): every run of the tool goes
# through shards and a plan step, compared byte for byte with one process
# (sharded/tma-sharded.py); its outputs go to their own folder.
if lit_config.params.get("sharded"):
    import sys
    tma = " ".join([sys.executable, os.path.join(os.path.dirname(__file__), "sharded",
                                                 "tma-sharded.py"), tma])
    config.test_exec_root = os.path.join(os.path.dirname(config.tma_bin), "test", "lit-sharded")
    config.available_features.add("sharded")
    # The tests whose runs span units that the shards split and the plan
    # step joins (a launcher, a storage, a header or a helper across units,
    # whole programs). The others test one process's own features (the facts
    # cache, the source root, the pre-filter, a CMake build, the plan step,
    # which tests shards itself) and cost as much again: the plain run
    # checks them.
    SHARDED_PROJECT_TESTS = {
        "cross-tu-launcher.test", "cross-tu-rule-callers.test", "cross-tu-storage.test",
        "header-three-tus.test", "helper-three-units.test", "namespaces.test",
        "shared-header-refused.test", "whole-program.test",
    }
    config.excludes += [
        name for name in os.listdir(os.path.join(os.path.dirname(__file__), "project"))
        if name.endswith(".test") and name not in SHARDED_PROJECT_TESTS
    ]
config.substitutions.append(("%tma", tma))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%apply-replacements", config.apply_replacements))
# The input without its RUN/CHECK lines (kept as empty comments so that line
# numbers stay those of the test file, as check_clang_tidy.py does), plus a
# pristine copy to compare against.
config.substitutions.append(
    ("%prep", "sed -E 's#// *(RUN|CHECK)[A-Za-z0-9-]*:.*#//#' %s > %t.cu && cp %t.cu %t.orig.cu"))
# The rewritten file must compile with nvcc for Hopper. The sanitizer build
# (scripts/test.sh runs both) checks the tool's memory, not nvcc: the same
# compile of the same output already ran in the plain build, so there it is
# skipped to keep the test command's time down; so it is in the quick tier
# (--param quick=1), whose change the whole command checks again.
config.substitutions.append(
    ("%nvcc-compile",
     "true" if config.sanitized or lit_config.params.get("quick") else
     config.nvcc + " -std=c++17 -gencode=arch=compute_90a,code=sm_90a -c -o %t.o"))
# clang-tidy-22 with the plugin, on one CUDA file.
config.substitutions.append(
    ("%tidy",
     "clang-tidy-22 -load " + os.path.join(config.tma_lib, "TmaModernizeTidy.so") +
     " -checks='-*,cuda-tma-by-value'"))
config.substitutions.append(
    ("%cuda-args",
     "-x cuda --cuda-gpu-arch=sm_90a --cuda-path=/usr/local/cuda -Wno-unknown-cuda-version"
     " -isystem /usr/local/cuda/include/cccl -std=c++17"))
# The project itself (for tests that configure it).
config.substitutions.append(("%{source-root}", config.source_root))
config.substitutions.append(("%inputs", os.path.join(os.path.dirname(__file__), "Inputs")))

if os.path.exists(config.nvcc):
    config.available_features.add("nvcc")
# The generated matrices (test/gen/) run a covering sample by default: the
# fewest cells that show every value of every dimension. TMA_FULL_MATRIX=1
# (or --param full_matrix=1) runs each whole, as docs/performance.md times them.
if os.environ.get("TMA_FULL_MATRIX", "0") not in ("", "0") or lit_config.params.get("full_matrix"):
    config.available_features.add("full-matrix")
# scripts/test.sh --quick: no nvcc compiles, neither %nvcc-compile (above)
# nor the matrices' (the whole command compiles every output).
if lit_config.params.get("quick"):
    config.available_features.add("quick")
import shutil
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")
if shutil.which("flock"):
    config.available_features.add("flock")
if shutil.which("cmake"):
    config.available_features.add("cmake")
config.substitutions.append(("%nvcc-bin", config.nvcc))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(__file__), "..", "..", "examples")))
# The plugin cannot be loaded into clang-tidy from a sanitizer build (the
# sanitizer runtime must come first in the process).
if not config.sanitized:
    config.available_features.add("plugin")
else:
    config.available_features.add("sanitized")
    # LLVM keeps some allocations until exit on purpose.
    config.environment["ASAN_OPTIONS"] = "detect_leaks=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    # The sanitizer run checks the tool's memory on every CLI and report
    # test, on the semantic fuzzer's sample (random programs, rewritten in
    # place: the widest reach per minute), on the two project tests of code
    # only they reach (the plan step and the facts cache's serialisation),
    # and on a fixed third of the hardening tests (picked by a hash of the
    # name, so that a new test does not move the others). The behaviour
    # snapshot (ctest's snapshot, run on this build by scripts/test.sh)
    # runs the tool on every pattern and refusal input, so their lit tests
    # are left out here. The generated matrices, the other project tests and
    # hardening tests feed the same code more inputs of the shapes those
    # already show (the plain run checks their answers); under ASan they
    # cost as much time as the whole plain run, which CI's 90 minutes cannot
    # hold. TMA_SANITIZE_ALL=1 runs them all (docs/performance.md, "The test
    # command").
    if os.environ.get("TMA_SANITIZE_ALL", "0") in ("", "0"):
        here = os.path.dirname(__file__)
        config.excludes += [
            "alias-matrix.test", "paths-matrix.test", "storage-matrix.test",
            "units-matrix.test", "scope.test",
        ] + [
            name for name in os.listdir(os.path.join(here, "project"))
            if name.endswith(".test") and name not in ("plan-step.test", "facts-cache.test")
        ] + [
            name for folder in ("patterns", "refusals")
            for name in os.listdir(os.path.join(here, folder)) if name.endswith((".cu", ".test"))
        ] + [
            name for name in os.listdir(os.path.join(here, "hardening"))
            if name.endswith((".cu", ".test")) and zlib.crc32(name.encode()) % 3
        ]

