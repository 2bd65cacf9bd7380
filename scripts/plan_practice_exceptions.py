#!/usr/bin/env python3
"""Classify the published plans that `sextant plan --practice` predicts to be more than 15%
slower than the best plan *their own software stack* could run (the row's framework and its
catalog capabilities), from the practice.csv it writes (--csv DIR), into
data/validation/plan-practice-exceptions.csv
(id, framework, kind, predicted_speedup_ratio, unrestricted_speedup_ratio, reason).

predicted_speedup_ratio is the within-stack figure the slow test holds to 15%;
unrestricted_speedup_ratio is the same published plan against the best plan with every feature
the search knows (today's Megatron-Core features plus the zero-bubble schedule), for reference.

The kind and reason come from comparing the published plan with the best plan of its stack:
 - the published plan does not fit by the model's memory accounting although it ran:
   a model weakness (memory), with the view it fails in (a stack without flash attention is
   searched with attention scores materialised);
 - the best plan drops full (or selective) recompute: an opportunity within the stack, which
   offered the mode the best plan uses;
 - a data-parallel-only published plan (ZeRO-3/FSDP without model parallelism) against a best plan
   with TP or PP that the same stack offered: an opportunity (the run was a baseline or a choice);
 - the best plan adds TP communication overlap the published plan does not state: an
   opportunity for rows that did not use it, a CSV gap for rows that did;
 - otherwise the difference is in the layout (tp/pp/dp/micro-batch/ZeRO) and is listed as a
   model weakness to examine.
Usage: plan_practice_exceptions.py PRACTICE_CSV OUT_CSV"""
import csv, sys


def field(plan, key):
    for tok in plan.split():
        if tok.startswith(key) and tok[len(key):].isdigit():
            return int(tok[len(key):])
    return None


def classify(r):
    pub, best, fw = r["published_plan"], r["best_plan"], r["framework"]
    if r["published_status"] != "fits":
        if r["unrestricted_published_status"] == "fits":
            return ("model_weakness", f"memory: within {fw}, which has no flash attention, the model materialises the attention "
                    f"scores and puts the published plan over the GPU's capacity ({r['published_status']}) although it ran (so does "
                    "validate, which models the stack's materialised scores); with flash attention it fits: the no-flash "
                    "working set of a recomputed layer over-counts for this run (docs/plan.md)")
        return ("model_weakness", "memory: the model puts the published plan over the GPU's capacity "
                f"({r['published_status']}) although it ran; the run used memory savings the row does not state or the "
                "model cannot express (module-level recompute of Megatron-Bridge recipes; docs/plan.md)")
    if "rc:full" in pub and "rc:full" not in best:
        mode = "selective recompute with sequence parallelism" if "rc:selective" in best else "no recompute"
        return ("opportunity", f"recompute: the published plan recomputes every layer; {fw} offered {mode}, and the model "
                f"fits the job with it ({best})")
    if "rc:selective" in pub and "rc:none" in best:
        return ("opportunity", f"recompute: the model fits the job without selective recompute, which {fw} allows ({best})")
    if (field(pub, "tp") or 1) == 1 and (field(pub, "pp") or 1) == 1 and "zero3" in pub and \
            ((field(best, "tp") or 1) > 1 or (field(best, "pp") or 1) > 1):
        return ("opportunity", f"model parallelism: the published run is data-parallel only (ZeRO-3 without tensor or "
                f"pipeline parallelism, a baseline of its paper); {fw} also offered TP/PP, and the model prefers {best}")
    if "tpov" in best and "tpov" not in pub:
        return ("opportunity", "TP communication overlap, which the published plan does not state (" + best + ")")
    return ("model_weakness", "layout: the model prefers " + best + "; to examine (parallel layout costs)")


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    out = []
    for r in rows:
        ratio = float(r["predicted_speedup_ratio"])
        if ratio > 1.15 or r["published_status"] != "fits":  # a memory weakness is listed whatever the speed-up
            kind, reason = classify(r)
            out.append({"id": r["id"], "framework": r["framework"], "kind": kind, "predicted_speedup_ratio": f"{ratio:.3f}",
                        "unrestricted_speedup_ratio": f"{float(r['unrestricted_speedup_ratio']):.3f}", "reason": reason})
    with open(sys.argv[2], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["id", "framework", "kind", "predicted_speedup_ratio", "unrestricted_speedup_ratio", "reason"])
        w.writeheader()
        w.writerows(out)
    beyond = sum(float(r["predicted_speedup_ratio"]) > 1.15 for r in rows)
    beyond_u = sum(float(r["unrestricted_speedup_ratio"]) > 1.15 for r in rows)
    print(f"{len(out)} of {len(rows)} published plans listed: {beyond} predicted more than 15% slower than the best plan "
          f"their stack could run (unrestricted: {beyond_u}), plus memory weaknesses within 15%")


if __name__ == "__main__":
    main()
