"""Reads `ctest --show-only=json-v1` of a build folder configured away from
<source>/build, and fails when any test's command, working directory or
environment names <source>/build (where nothing was built), or when a test
that runs the tool is not given this folder's binary."""
import json
import sys

source, build, listing = sys.argv[1], sys.argv[2], sys.argv[3]
stale = source.rstrip("/") + "/build/"
tests = json.load(open(listing))["tests"]
problems = []
by_name = {}
for t in tests:
    words = list(t.get("command") or [])
    env = {}
    for p in t.get("properties", []):
        if p["name"] == "ENVIRONMENT":
            env.update(v.split("=", 1) for v in p["value"])
            words += [v.split("=", 1)[-1] for v in p["value"]]
        elif p["name"] == "WORKING_DIRECTORY":
            words.append(p["value"])
    by_name[t["name"]] = (words, env)
    for w in words:
        if stale in w + "/" and not (w + "/").startswith(build.rstrip("/") + "/"):
            problems.append("%s names %s" % (t["name"], w))
tool = build.rstrip("/") + "/bin/tma-modernize"
if "snapshot" not in by_name or tool not in by_name["snapshot"][0]:
    problems.append("snapshot does not run " + tool)
if "gpu-compile" in by_name:
    env = by_name["gpu-compile"][1]
    if env.get("TMA_MODERNIZE") != tool:
        problems.append("gpu-compile gets TMA_MODERNIZE=%r" % env.get("TMA_MODERNIZE"))
    for var in ("GPU_BUNDLE", "GPU_CI_BUILD"):
        if not env.get(var, "").startswith(build.rstrip("/") + "/"):
            problems.append("gpu-compile writes %s=%r outside the build folder" % (var, env.get(var)))
print("\n".join(problems) if problems else "ctest paths: %d tests, all in %s" % (len(tests), build))
sys.exit(1 if problems else 0)
