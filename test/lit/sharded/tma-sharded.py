#!/usr/bin/env python3
"""Runs one tma-modernize command line as shards plus a plan step.

lit substitutes this for %tma under `--param sharded=1` (ctest's
`project-sharded`), so every project test runs through --export-facts and
--plan-from. For each command line it:

1. runs it as one process with --dry-run, --export-fixes and --report;
2. runs it as SHARDS --export-facts shards (--shard=k/SHARDS) and plans
   from their facts with the same three outputs;
3. fails (exit 99, naming what differs) unless the diff on stdout, the fix
   YAML, the JSON report, the exit status and stderr (without the progress
   lines of the analysis) are byte-identical;
4. then runs the command itself as --plan-from on those facts, so the test's
   own checks (FileCheck, diff of the files written) see the plan step.

Command lines that are no run (--recover, --help, --version, or already a
facts step) are passed through unchanged.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SHARDS = 2
PASS_THROUGH = ("--recover", "--help", "-h", "--version")
OWN_OUTPUTS = ("--dry-run", "--check")
OWN_PREFIXES = ("--export-fixes=", "--report=")
PROGRESS = re.compile(rb"^\[\d+/\d+\] .*\n", re.M)


def split_args(args):
    """The tool's options and sources, and what follows '--'."""
    if "--" in args:
        i = args.index("--")
        return args[:i], args[i:]
    return args, []


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def with_outputs(tma, own, rest, tmp, name, extra):
    """The command as a dry run that also writes fixes and a JSON report."""
    kept = [a for a in own if a not in OWN_OUTPUTS and not a.startswith(OWN_PREFIXES)]
    fixes = os.path.join(tmp, name + ".yaml")
    report = os.path.join(tmp, name + ".json")
    cmd = [tma] + kept + extra + ["--dry-run", "--export-fixes=" + fixes,
                                  "--report=" + report] + rest
    return run(cmd), fixes, report


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def differences(ref, plan):
    (r, rfix, rrep), (p, pfix, prep) = ref, plan
    found = []
    if r.returncode != p.returncode:
        found.append("exit status %d vs %d" % (r.returncode, p.returncode))
    if r.stdout != p.stdout:
        found.append("stdout (the diff)")
    if PROGRESS.sub(b"", r.stderr) != p.stderr:
        found.append("stderr")
    if read(rfix) != read(pfix):
        found.append("--export-fixes YAML")
    if read(rrep) != read(prep):
        found.append("--report JSON")
    return found


def show(result):
    sys.stdout.buffer.write(result.stdout)
    sys.stderr.buffer.write(result.stderr)


def main():
    tma, args = sys.argv[1], sys.argv[2:]
    if any(a in PASS_THROUGH or a.startswith(("--export-facts", "--plan-from", "--shard"))
           for a in args):
        os.execv(tma, [tma] + args)
    own, rest = split_args(args)
    tmp = tempfile.mkdtemp(prefix="tma-sharded-")
    try:
        facts = os.path.join(tmp, "facts")
        ref = with_outputs(tma, own, rest, tmp, "one-process", [])
        for k in range(1, SHARDS + 1):
            shard = run([tma] + own + ["--export-facts=" + facts,
                                       "--shard=%d/%d" % (k, SHARDS)] + rest)
            if shard.returncode != 0:  # a usage error, a pending journal...
                show(shard)
                return shard.returncode
        plan = with_outputs(tma, own, rest, tmp, "plan", ["--plan-from=" + facts])
        found = differences(ref, plan)
        if found:
            sys.stderr.write("tma-sharded: the plan step differs from one process in: %s\n"
                             % ", ".join(found))
            sys.stderr.buffer.write(b"--- one process stderr:\n" + ref[0].stderr +
                                    b"--- plan step stderr:\n" + plan[0].stderr)
            return 99
        final = run([tma] + own + ["--plan-from=" + facts] + rest)
        show(final)
        return final.returncode
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
