#!/usr/bin/python3
"""End-to-end tests of `sextant analyze` and `sextant trace synth`.

Questions: does --compat hta --csv DIR write HTA's file names and column names (so the two can be
compared file by file); are the numbers HTA's on a bundled trace; does an unreadable file give an
error naming the file and the byte offset; does a synthetic job with an injected straggler show
that rank first in the straggler table?
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
DATA = os.path.join(ROOT, "tests", "data", "trace")


def run(*args, check=True):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"sextant {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class AnalyzeCli(unittest.TestCase):
    def test_hta_csv_names_and_values(self):
        ref = os.path.join(DATA, "param", "hta-reference", "dlrm_8rank")
        with tempfile.TemporaryDirectory() as out:
            run("analyze", os.path.join(DATA, "param", "dlrm_8rank"), "--compat", "hta", "--csv", out, "--quiet")
            for name in sorted(os.listdir(ref)):
                if name == "load_facts.csv":
                    continue  # not an HTA output
                mine = os.path.join(out, name)
                self.assertTrue(os.path.exists(mine), f"{name} not written")
                with open(os.path.join(ref, name)) as a, open(mine) as b:
                    self.assertEqual(a.readline().strip(), b.readline().strip(), f"header of {name}")
            # Temporal breakdown of every rank equals HTA's to within 0.5%.
            refrows = {r["rank"]: r for r in read_csv(os.path.join(ref, "temporal_breakdown.csv"))}
            for r in read_csv(os.path.join(out, "temporal_breakdown.csv")):
                for col in ("idle_time(us)", "compute_time(us)", "kernel_time(us)"):
                    a, b = float(r[col]), float(refrows[r["rank"]][col])
                    self.assertLessEqual(abs(a - b), 0.005 * abs(b), (r["rank"], col, a, b))
            st = [int(float(r["potential_straggler_rank"])) for r in read_csv(os.path.join(out, "potential_stragglers.csv"))]
            self.assertEqual(sorted(st), [2, 7])

    def test_json_output_and_diagnostics(self):
        p = run("analyze", os.path.join(DATA, "hta", "cpu_only", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"),
                "--json", "-")
        doc = json.loads(p.stdout)
        names = list(doc["tables"])
        self.assertIn("diagnostics", names)
        self.assertIn("temporal_breakdown", names)

    def test_unreadable_file_names_file_and_offset(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "rank-0.json")
            with open(bad, "w") as f:
                f.write('{"traceEvents": [{"ph": "X", "ts": 1, "dur": 2}, {"ph": ')
            p = run("analyze", bad, check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn(bad, p.stderr)
            self.assertIn("byte offset", p.stderr)
            p = run("analyze", os.path.join(d, "missing.json"), check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("missing.json", p.stderr)

    def test_synth_straggler_is_found(self):
        with tempfile.TemporaryDirectory() as d:
            run("trace", "synth", "--out", d, "--ranks", "4", "--steps", "4", "--layers", "8", "--straggler", "3",
                "--quiet")
            self.assertEqual(sorted(os.listdir(d)), [f"rank-{i}.json" for i in range(4)])
            p = run("analyze", d, "--only", "collectives", "--json", "-")
            doc = json.loads(p.stdout)
            strag = doc["tables"]["stragglers"]["columns"]
            self.assertEqual(strag["rank"][0], 3)
            self.assertEqual(strag["last_arrivals_count"][0], 4)

    def test_ranks_of_different_jobs_are_flagged(self):
        # A synthetic job with one rank's clock moved two days: the traces no longer overlap in
        # time, which no job's ranks do (a rank 381 days away was "corrected" and named the worst
        # straggler, without a word).
        with tempfile.TemporaryDirectory() as d:
            run("trace", "synth", "--out", d, "--ranks", "2", "--steps", "2", "--layers", "2", "--quiet")
            p = run("analyze", d, "--json", "-")
            self.assertNotIn("different jobs", p.stdout)
            path = os.path.join(d, "rank-1.json")
            with open(path) as f:
                doc = json.load(f)
            for e in doc["traceEvents"]:
                if "ts" in e:
                    e["ts"] += 2 * 86400 * 1e6
            with open(path, "w") as f:
                json.dump(doc, f)
            diag = json.loads(run("analyze", d, "--json", "-").stdout)["tables"]["diagnostics"]["columns"]
            hit = [i for i, m in enumerate(diag["name"]) if "different jobs" in m]
            self.assertEqual(len(hit), 1, diag["name"])
            self.assertEqual(diag["severity"][hit[0]], "warning")

    def test_ranks_without_a_stated_rank_text_after_the_trace_and_a_missing_rank(self):
        """Files without distributedInfo and with PyTorch's default names are distinct ranks (all were
        rank 0, merged in the cross-rank tables); text after the trace's top-level value is a warning
        (dropped silently); a rank's trace missing leaves the bus bandwidth the communicator's (its
        factor used the ranks loaded), all before 2026-12-02."""
        with tempfile.TemporaryDirectory() as d:
            run("trace", "synth", "--out", d, "--ranks", "4", "--steps", "2", "--layers", "2", "--quiet")
            full = json.loads(run("analyze", d, "--only", "collectives", "--json", "-").stdout)
            os.unlink(os.path.join(d, "rank-3.json"))
            part = json.loads(run("analyze", d, "--only", "collectives", "--json", "-").stdout)
            c = part["tables"]["collectives"]["columns"]
            i = c["operation"].index("AllReduce")
            self.assertEqual(c["ranks_count"][i], 3)
            algbw = c["size_bytes"][i] / (c["sync_duration_us"][i] * 1e-6)
            self.assertAlmostEqual(c["bus_bandwidth_bytes_per_s"][i] / algbw, 2 * 3 / 4, places=9)  # 2(n-1)/n, n = 4
            self.assertEqual(full["tables"]["collectives"]["columns"]["ranks_count"][i], 4)
            # No stated rank: strip distributedInfo, use host_pid names.
            for r in range(3):
                src = os.path.join(d, f"rank-{r}.json")
                with open(src) as f:
                    doc = json.load(f)
                doc.pop("distributedInfo", None)
                with open(os.path.join(d, f"node{r}_1234{r}.1700000000.pt.trace.json"), "w") as f:
                    json.dump(doc, f)
                    if r == 2:
                        f.write("\ngarbage{{{")
                os.unlink(src)
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-").stdout)
            facts = doc["tables"]["load_summary"]["columns"]
            self.assertEqual(sorted(facts["rank"]), [0, 1, 2])
            diag = doc["tables"]["diagnostics"]["columns"]["name"]
            self.assertIn("rank not stated: numbered in file-name order after the stated ranks", diag)
            self.assertIn("text after the top-level JSON value: ignored", diag)
            self.assertEqual(len(doc["tables"]["stragglers"]["columns"]["rank"]), 3)

    def test_gpu_side_step_range_is_not_a_second_iteration(self):
        # ROCm/PyTorch traces carry each ProfilerStep#N twice: the CPU range and its GPU-side copy
        # (gpu_user_annotation). The copy counted as a second step 1 and took half its kernels.
        p = run("analyze", os.path.join(DATA, "hta", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
                "--only", "iterations", "--json", "-")
        it = json.loads(p.stdout)["tables"]["iterations"]["columns"]
        self.assertEqual(it["step"].count(1), 1, it["step"])
        self.assertEqual(it["gpu_events_count"][it["step"].index(1)], 16)


if __name__ == "__main__":
    unittest.main()
