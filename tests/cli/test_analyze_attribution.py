#!/usr/bin/python3
"""End-to-end tests of the memcpy_bandwidth, kernel_sequences and user_annotations analyses.

Questions: on a real bundled trace (dlrm_8rank rank 3), do the memcpy/memset calls, bytes and the
median per-call bandwidth match what the trace itself says (its "bytes" args and Kineto's own
"memory bandwidth (GB/s)" arg, read here with json, not by Sextant); do the user-annotation counts
and CPU times match the trace's user_annotation events; does every GPU event of a kernel
sequence come from the trace, and can --only select each analysis by name; is a negative
--sequence-depth rejected?
"""
import collections
import gzip
import json
import os
import statistics
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
TRACE = os.path.join(ROOT, "tests", "data", "trace", "param", "dlrm_8rank", "rank-3.json.gz")


def run(*args, check=True):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"sextant {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p


def table_rows(doc, name):
    t = doc["tables"][name]
    cols = t["columns"]
    if isinstance(cols, dict):
        names = list(cols)
        n = len(cols[names[0]]) if names else 0
        return [{k: cols[k][i] for k in names} for i in range(n)]
    names = [c["name"] for c in cols]
    data = [c["values"] for c in cols]
    n = len(data[0]) if data else 0
    return [{names[j]: data[j][i] for j in range(len(names))} for i in range(n)]


def events():
    with gzip.open(TRACE, "rt") as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]


class AttributionCli(unittest.TestCase):
    def analyze(self, *only):
        args = []
        for o in only:
            args += ["--only", o]
        p = run("analyze", TRACE, *args, "--json", "-")
        return json.loads(p.stdout)

    def test_memcpy_bandwidth_matches_the_trace_args(self):
        doc = self.analyze("memcpy_bandwidth")
        self.assertIn("memcpy_bandwidth", doc["tables"])
        self.assertNotIn("user_annotations", doc["tables"])  # --only selects by name
        rows = {(r["kind"], r["host_memory"]): r for r in table_rows(doc, "memcpy_bandwidth")}
        by = collections.defaultdict(list)
        for e in events():
            if e.get("cat") not in ("gpu_memcpy", "gpu_memset"):
                continue
            by[e["name"]].append(e)
        names = {"Memcpy HtoD (Pageable -> Device)": ("HtoD", "pageable"),
                 "Memcpy HtoD (Pinned -> Device)": ("HtoD", "pinned"),
                 "Memcpy DtoH (Device -> Pageable)": ("DtoH", "pageable"),
                 "Memcpy DtoD (Device -> Device)": ("DtoD", "none"),
                 "Memset (Device)": ("memset", "none")}
        self.assertEqual(set(by), set(names))
        self.assertEqual(len(rows), len(names))
        for name, evs in by.items():
            r = rows[names[name]]
            self.assertEqual(r["calls_count"], len(evs), name)
            self.assertEqual(r["bytes"], sum(e["args"]["bytes"] for e in evs), name)
            self.assertAlmostEqual(r["total_time_us"], sum(e["dur"] for e in evs), places=6)
            bw = [e["args"]["memory bandwidth (GB/s)"] for e in evs if e["dur"] > 0]
            self.assertAlmostEqual(r["median_bandwidth_gb_per_s"], statistics.median(bw), delta=1e-6 * max(bw), msg=name)
            self.assertGreater(r["gpu_span_share_fraction"], 0.0)
            self.assertLess(r["gpu_span_share_fraction"], 1.0)

    def test_user_annotations_match_the_trace(self):
        doc = self.analyze("user_annotations")
        rows = {r["annotation"]: r for r in table_rows(doc, "user_annotations")}
        count, cpu = collections.Counter(), collections.Counter()
        spans = collections.defaultdict(list)
        for e in events():
            if e.get("cat") == "user_annotation":
                count[e["name"]] += 1
                spans[(e["name"], e.get("pid"), e.get("tid"))].append((e["ts"], e["ts"] + e["dur"]))
        # CPU time: the union of a name's ranges per thread (nested ones of one name count once)
        for (name, _, _), v in spans.items():
            v.sort()
            start, end = v[0]
            for a, b in v[1:]:
                if a > end:
                    cpu[name] += end - start
                    start, end = a, b
                else:
                    end = max(end, b)
            cpu[name] += end - start
        self.assertTrue(count)
        for n in count:
            self.assertEqual(rows[n]["count"], count[n], n)
            self.assertAlmostEqual(rows[n]["cpu_time_us"], cpu[n], places=6)
            self.assertLessEqual(rows[n]["gpu_time_exclusive_us"], rows[n]["gpu_time_inclusive_us"] + 1e-9)
        self.assertTrue(any(r["gpu_time_inclusive_us"] > 0 for r in rows.values()))

    def test_kernel_sequences_name_trace_kernels(self):
        doc = self.analyze("kernel_sequences")
        gpu_names = {e["name"] for e in events() if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")}
        op_names = {e["name"] for e in events() if e.get("cat") == "cpu_op"}
        rows = table_rows(doc, "kernel_sequences")
        self.assertTrue(rows)
        counts = [r["occurrences_count"] for r in rows]
        self.assertEqual(counts, sorted(counts, reverse=True))
        for r in rows:
            self.assertIn(r["operator"], op_names)
            seq = r["sequence"].split(" | ")
            self.assertEqual(len(seq), r["kernels_per_sequence"])
            self.assertTrue(set(seq) <= gpu_names, r["sequence"])
            self.assertLessEqual(r["occurrences_count"], r["operator_instances_count"])
            self.assertAlmostEqual(r["mean_gpu_time_us"] * r["occurrences_count"], r["total_gpu_time_us"], places=6)

    def test_negative_sequence_depth_rejected(self):
        p = run("analyze", TRACE, "--only", "kernel_sequences", "--sequence-depth", "-1", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("sequence-depth", p.stderr)


if __name__ == "__main__":
    unittest.main()
