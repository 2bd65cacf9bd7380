#!/usr/bin/env python3
"""Golden diff tests of `sextant simulate`: for small scenarios (16-64 GPUs) the whole --json result
(step time, breakdown, per-class and critical-path tables) and the first lines of the --timeline
trace, computed with the frozen test catalog (tests/data/catalog-frozen). Also checks that the
timeline is valid Chrome trace-event JSON and that the result has estimate's schema.
Run with --update to rewrite the expected files after a reviewed model change."""
import json, os, subprocess, sys, tempfile

from golden import BIN, CAT, GOLDEN, close

CASES = ["llama3-8b-h100-zero3", "mixtral-8x7b-h100-ep8", "gpt175b-a100-tp8pp8-v3"]
TIMELINE_LINES = 40
TIMELINE_ROWS = 120


def run(scenario, timeline, *extra):
    # A small timeline table (--timeline-rows) keeps the golden files short and merges spans.
    out = subprocess.run([BIN, "simulate", scenario, "--catalog", CAT, "--json", "-", "--timeline", timeline,
                          "--timeline-rows", str(TIMELINE_ROWS), *extra],
                         capture_output=True, text=True, check=True).stdout
    j = json.loads(out)
    j["scalars"]["scenario"] = os.path.basename(scenario)
    return j


def check_schema(name, got, errors):
    est = json.loads(subprocess.run([BIN, "estimate", os.path.join(GOLDEN, "scenarios", name + ".yaml"), "--catalog", CAT,
                                     "--json", "-"], capture_output=True, text=True, check=True).stdout)
    missing = [k for k in est["scalars"] if k not in got["scalars"]]
    if missing:
        errors.append(f"{name}: scalars of estimate missing from simulate: {missing}")
    tables = {t["name"] for t in got["tables"]} if isinstance(got["tables"], list) else set(got["tables"])
    for t in ("breakdown", "communication", "memory", "rank_classes", "critical_path"):
        if t not in tables:
            errors.append(f"{name}: table {t} missing")


def check_timeline(name, path, errors):
    with open(path) as f:
        text = f.read()
    j = json.loads(text)
    events = j["traceEvents"]
    phases = {e["ph"] for e in events}
    for ph in ("M", "X"):
        if ph not in phases:
            errors.append(f"{name}: timeline has no '{ph}' events")
    for e in events:
        if e["ph"] == "X" and (e["dur"] < 0 or "pid" not in e or "tid" not in e):
            errors.append(f"{name}: malformed event {e}")
            break
    lines = text.splitlines()
    # The opening lines (metadata: processes and tracks) and the first complete events.
    return lines[:TIMELINE_LINES] + [l for l in lines if '"ph": "X"' in l][:TIMELINE_LINES]


def main():
    update = "--update" in sys.argv
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            sc = os.path.join(GOLDEN, "scenarios", name + ".yaml")
            tl = os.path.join(tmp, name + ".json")
            got = run(sc, tl)
            errors = []
            head = check_timeline(name, tl, errors)
            check_schema(name, got, errors)
            exp_json = os.path.join(GOLDEN, f"simulate-{name}.json")
            exp_tl = os.path.join(GOLDEN, f"simulate-{name}.timeline-head.txt")
            if not update and not (os.path.exists(exp_json) and os.path.exists(exp_tl)):
                # A missing golden fails (it had been written and counted as passed).
                errors.append(f"{name}: no expected output {exp_json} or {exp_tl} (review it, then run with --update)")
            elif update:
                with open(exp_json, "w") as f:
                    json.dump(got, f, indent=2)
                    f.write("\n")
                with open(exp_tl, "w") as f:
                    f.write("\n".join(head) + "\n")
                print(f"wrote {exp_json} and {exp_tl}")
            else:
                close(got, json.load(open(exp_json)), name, errors)
                want = open(exp_tl).read().splitlines()
                for i, (a, b) in enumerate(zip(head, want)):
                    if a != b:
                        errors.append(f"{name}: timeline line {i + 1}:\n    {a}\n  expected\n    {b}")
                        break
                if len(head) != len(want):
                    errors.append(f"{name}: timeline head has {len(head)} lines, expected {len(want)}")
            if errors:
                failed += 1
                print(f"FAIL {name}:\n  " + "\n  ".join(errors[:20]))
            else:
                print(f"ok   {name}")
        # A straggler slows the step; the all-ranks mode agrees with the classes when ranks are uniform.
        sc = os.path.join(GOLDEN, "scenarios", "gpt175b-a100-tp8pp8-v3.yaml")
        base = run(sc, os.path.join(tmp, "a.json"))["scalars"]["step_time_s"]
        slow = run(sc, os.path.join(tmp, "b.json"), "--straggler", "9=1.5")["scalars"]["step_time_s"]
        allr = run(sc, os.path.join(tmp, "c.json"), "--all-ranks", "--timeline-ranks", "0,8-9")["scalars"]["step_time_s"]
        if not slow > base * 1.05:
            failed += 1
            print(f"FAIL straggler: {slow} not above {base}")
        if abs(allr / base - 1) > 0.01:
            failed += 1
            print(f"FAIL all ranks: {allr} vs classes {base}")
        bad = subprocess.run([BIN, "simulate", sc, "--catalog", CAT, "--straggler", "999999=2"], capture_output=True, text=True)
        if bad.returncode == 0 or "--straggler" not in bad.stderr:
            failed += 1
            print(f"FAIL bad straggler rank: rc {bad.returncode}, stderr {bad.stderr!r}")
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
