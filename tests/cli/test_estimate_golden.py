#!/usr/bin/env python3
"""Golden diff tests: scenario + `sextant estimate --json` against the reviewed expected output,
computed with the frozen test catalog (tests/data/catalog-frozen) so catalog updates do not churn
them. Run with --update to rewrite the expected files after a reviewed model change."""
import json, math, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
CAT = os.path.join(ROOT, "tests", "data", "catalog-frozen")
GOLDEN = os.path.join(ROOT, "tests", "golden")
CASES = [os.path.join(ROOT, "data", "examples", "llama3-70b-h100.yaml")] + sorted(
    os.path.join(GOLDEN, "scenarios", f) for f in os.listdir(os.path.join(GOLDEN, "scenarios")))


def run(scenario):
    out = subprocess.run([BIN, "estimate", scenario, "--catalog", CAT, "--json", "-"],
                         capture_output=True, text=True, check=True).stdout
    j = json.loads(out)
    j["scalars"]["scenario"] = os.path.basename(scenario)
    return j


def close(a, b, path, errors):
    if isinstance(a, dict):
        if list(a) != list(b):
            errors.append(f"{path}: keys differ: {list(a)} vs {list(b)}")
            return
        for k in a:
            close(a[k], b[k], f"{path}.{k}", errors)
    elif isinstance(a, list):
        if len(a) != len(b):
            errors.append(f"{path}: length {len(a)} vs {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, f"{path}[{i}]", errors)
    elif isinstance(a, float) or isinstance(b, float):
        if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            errors.append(f"{path}: {a} vs expected {b}")
    elif a != b:
        errors.append(f"{path}: {a!r} vs expected {b!r}")


def main():
    update = "--update" in sys.argv
    failed = 0
    for sc in CASES:
        name = os.path.splitext(os.path.basename(sc))[0]
        expected_path = os.path.join(GOLDEN, f"estimate-{name}.json")
        got = run(sc)
        if update or not os.path.exists(expected_path):
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
