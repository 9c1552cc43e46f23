#!/usr/bin/env python3
"""A stand-in for the tool that is wrong on purpose, to test the oracle
(test/lit/generated/semantic.test): it passes the host map by value at every
launch of a semantic.py program, whatever happened to it since the copy,
and says so in its report (or, with STAND_IN_REPORT=FORM, says FORM: a
report that lies). Usage as the tool's:
by_value_everywhere.py --no-database --report=FILE.json FILE."""
import json, os, re, sys

path = sys.argv[-1]
report = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--report="))
text = open(path).read()
launches = {}
for m in re.finditer(r"k_(\d+)<<<1, 1(?:, 0, st_\d+)?>>>\(", text):
    launches.setdefault(m.group(1), []).append({"form": os.environ.get("STAND_IN_REPORT", "by value"), "argument": f"h_{m.group(1)}"})
text = re.sub(r"(k_(\d+)<<<1, 1(?:, 0, st_\d+)?>>>\()[^,]+,", r"\1h_\2,", text)
open(path, "w").write(text)
json.dump({"descriptors": [{"kernel": f"k_{n}", "launches": l} for n, l in launches.items()]},
          open(report, "w"))
