#!/usr/bin/env python3
"""Markdown table of `sextant plan --practice` per published plan, for docs/plan.md.

Reads the practice.csv that `sextant plan --practice FILE --csv DIR` writes and the exceptions CSV
of scripts/plan_practice_exceptions.py, and prints one row per published plan: the within-stack
columns first (status, rank among the stack's fitting plans, predicted and best step time, best
plan, speed-up), then the unrestricted best plan and speed-up, then the exception kind.
Usage: plan_practice_table.py PRACTICE_CSV EXCEPTIONS_CSV"""
import csv
import sys


def sig3(x):
    """Three significant digits, as the table has always shown step times."""
    return f"{float(x):.3g}"


def label(exc):
    if exc is None:
        return ""
    kind = exc["kind"].replace("_", " ")
    what = exc["reason"].split(":")[0]
    if what.startswith("TP communication overlap"):
        what = "TP overlap"
    return f"{kind}: {what}"


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[2], newline="") as f:
        exceptions = {r["id"]: r for r in csv.DictReader(f)}
    print("| id | framework | published plan | status | rank | predicted (s) | best in stack (s) | best plan in stack "
          "| speed-up | unrestricted best plan | unrestricted speed-up | exception |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with open(argv[1], newline="") as f:
        for r in csv.DictReader(f):
            print(f"| {r['id']} | {r['framework']} | {r['published_plan']} | {r['published_status']} | {r['published_rank']} "
                  f"| {sig3(r['published_step_time_s'])} | {sig3(r['best_step_time_s'])} | {r['best_plan']} "
                  f"| {float(r['predicted_speedup_ratio']):.2f} | {r['unrestricted_best_plan']} "
                  f"| {float(r['unrestricted_speedup_ratio']):.2f} | {label(exceptions.get(r['id']))} |")


if __name__ == "__main__":
    main(sys.argv)
