#!/usr/bin/env python3
"""A stand-in for the tool that is wrong on purpose, to test the oracle
(test/lit/generated/semantic.test): it passes the host map by value at every
launch of a semantic.py program, whatever happened to it since the copy.
Usage as the tool's: by_value_everywhere.py --no-database FILE."""
import re, sys

path = sys.argv[-1]
text = open(path).read()
text = re.sub(r"(k_(\d+)<<<1, 1>>>\()[^,]+,", r"\1h_\2,", text)
open(path, "w").write(text)
