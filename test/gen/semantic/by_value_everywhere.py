#!/usr/bin/env python3
"""A stand-in for the tool that is wrong on purpose, to test the oracle
(test/lit/generated/semantic.test): it passes the host map by value at every
launch of a semantic.py program (each statement marked `// site N`),
whatever happened to it since the copy, and says so in its report (or,
with STAND_IN_REPORT=FORM, says FORM: a report that lies). Usage as the
tool's: by_value_everywhere.py --no-database --report=FILE.json FILE."""
import json, os, re, sys

path = sys.argv[-1]
report = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--report="))
lines = open(path).read().split("\n")
launches = {}
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from semantic import DEVICE_NAMES  # every spelling of the device copy

DEVICE = r"(?:\(void \*\)&)?(?<![\w.])(?:" + "|".join(
    re.escape(spelling.format(n="NUMBER")).replace("NUMBER", r"\d+")
    for _, spelling in sorted(DEVICE_NAMES.values(), key=lambda v: -len(v[1]))) + r")(?![\w])"
for i, line in enumerate(lines):
    if "// site " not in line:
        continue
    m = re.search(r"\b(?:k|launch)_(\d+)\b", line)
    n = m.group(1)
    lines[i] = re.sub(DEVICE, f"h_{n}", line)
    launches.setdefault(n, []).append({"form": os.environ.get("STAND_IN_REPORT", "by value"),
                                       "argument": f"h_{n}", "location": {"line": i + 1}})
open(path, "w").write("\n".join(lines))
json.dump({"descriptors": [{"kernel": f"k_{n}", "launches": l} for n, l in launches.items()]},
          open(report, "w"))
