#!/usr/bin/env python3
"""Checks a SARIF file against the structure SARIF 2.1.0 requires (the
properties the schema marks required, their types, and that every result's
ruleId is a declared rule), and prints one line per result."""
import json
import sys

def fail(msg):
    print("sarif: invalid: " + msg)
    sys.exit(1)

doc = json.load(open(sys.argv[1]))
if doc.get("version") != "2.1.0":
    fail("version must be 2.1.0")
if not isinstance(doc.get("runs"), list) or not doc["runs"]:
    fail("runs must be a non-empty array")
for run in doc["runs"]:
    driver = run.get("tool", {}).get("driver")
    if not isinstance(driver, dict) or not isinstance(driver.get("name"), str):
        fail("runs[].tool.driver.name is required")
    rules = {r["id"] for r in driver.get("rules", [])}
    for r in driver.get("rules", []):
        if not isinstance(r.get("id"), str):
            fail("rule without id")
        if r.get("defaultConfiguration", {}).get("level", "warning") not in ("none", "note", "warning", "error"):
            fail("bad rule level")
    for res in run.get("results", []):
        if not isinstance(res.get("message", {}).get("text"), str):
            fail("results[].message.text is required")
        if res.get("ruleId") not in rules:
            fail("ruleId %r is not a declared rule" % res.get("ruleId"))
        if res.get("level") not in ("none", "note", "warning", "error"):
            fail("bad result level")
        for loc in res.get("locations", []) + res.get("relatedLocations", []):
            phys = loc.get("physicalLocation", {})
            uri = phys.get("artifactLocation", {}).get("uri", "")
            if not uri.startswith("file://"):
                fail("artifactLocation.uri must be a file URI")
            region = phys.get("region", {})
            if region.get("startLine", 0) < 1 or region.get("startColumn", 0) < 1:
                fail("region.startLine/startColumn must be >= 1")
        for fix in res.get("fixes", []):
            for change in fix.get("artifactChanges", []):
                if not change.get("replacements"):
                    fail("artifactChanges[].replacements is required")
                for rep in change["replacements"]:
                    if "charOffset" not in rep.get("deletedRegion", {}):
                        fail("deletedRegion needs charOffset")
        loc = res["locations"][0]["physicalLocation"]
        print("result %s %s:%d:%d fixes=%d" % (res["ruleId"], loc["artifactLocation"]["uri"].rsplit("/", 1)[-1],
              loc["region"]["startLine"], loc["region"]["startColumn"], len(res.get("fixes", []))))
print("sarif: valid 2.1.0, %d rules, %d results" % (len(rules), sum(len(r.get("results", [])) for r in doc["runs"])))
