#!/usr/bin/env python3
"""Golden diff tests: scenario + `sextant estimate --json` against the reviewed expected output,
computed with the frozen test catalog (tests/data/catalog-frozen) so catalog updates do not churn
them. Run with --update to rewrite the expected files after a reviewed model change."""
import json, os, subprocess, sys

from golden import BIN, CAT, GOLDEN, ROOT, close

CASES = [os.path.join(ROOT, "data", "examples", "llama3-70b-h100.yaml")] + sorted(
    os.path.join(GOLDEN, "scenarios", f) for f in os.listdir(os.path.join(GOLDEN, "scenarios")))


def run(scenario):
    out = subprocess.run([BIN, "estimate", scenario, "--catalog", CAT, "--json", "-"],
                         capture_output=True, text=True, check=True).stdout
    j = json.loads(out)
    j["scalars"]["scenario"] = os.path.basename(scenario)
    return j


def main():
    update = "--update" in sys.argv
    failed = 0
    for sc in CASES:
        name = os.path.splitext(os.path.basename(sc))[0]
        expected_path = os.path.join(GOLDEN, f"estimate-{name}.json")
        got = run(sc)
        if not update and not os.path.exists(expected_path):
            # A golden is reviewed by hand once: a missing one fails (it had been written and
            # counted as passed, so a deleted or new case was never checked).
            failed += 1
            print(f"FAIL {name}: no expected output {expected_path} (review it, then run with --update)")
            continue
        if update:
            with open(expected_path, "w") as f:
                json.dump(got, f, indent=2)
                f.write("\n")
            print(f"wrote {expected_path}")
            continue
        errors = []
        close(got, json.load(open(expected_path)), name, errors)
        if errors:
            failed += 1
            print(f"FAIL {name}:\n  " + "\n  ".join(errors[:20]))
        else:
            print(f"ok   {name}")
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
