#!/usr/bin/python3
"""Counts the g_test cases (TAP lines) of meson test logs: 'N passed, N failed, N skipped'."""
import json
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            entry = json.loads(line)
            cases = [l for l in entry.get("stdout", "").splitlines()
                     if l.startswith(("ok ", "not ok "))]
            if not cases:  # not a TAP test: count the test itself
                result = entry["result"]
                passed += result == "OK"
                skipped += result == "SKIP"
                failed += result not in ("OK", "SKIP", "EXPECTEDFAIL")
                continue
            for c in cases:
                if c.startswith("not ok"):
                    failed += "# TODO" not in c
                elif "# SKIP" in c:
                    skipped += 1
                else:
                    passed += 1
            if entry["result"] not in ("OK", "SKIP") and not any(c.startswith("not ok") for c in cases):
                failed += 1  # crashed or timed out after its last case
print(f"{passed} passed, {failed} failed, {skipped} skipped")
