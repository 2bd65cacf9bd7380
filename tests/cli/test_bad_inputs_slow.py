#!/usr/bin/python3
"""Slow tier of the bad-input matrix (issue 10): a 10^7-event trace is analysed with bounded
memory, and an interrupted long analysis (SIGINT, SIGTERM) leaves the previous outputs intact and
no temporary file. Registered with the label "slow" (make test-slow)."""
import gzip
import json
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

BIN = os.path.abspath(os.environ.get("SEXTANT_BIN", "build/sextant"))
EVENTS = 10_000_000


def child_peak_rss_bytes(cmd):
    """Runs cmd in a fresh child; returns (CompletedProcess, its peak RSS in bytes)."""
    code = ("import resource, subprocess, sys, json\n"
            "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
            "ru = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(json.dumps({'rc': p.returncode, 'rss_kib': ru.ru_maxrss, 'out': p.stdout[-200000:],"
            " 'err': p.stderr[-4000:]}))\n")
    p = subprocess.run(["/usr/bin/python3", "-c", code, *cmd], capture_output=True, text=True, timeout=1800)
    r = json.loads(p.stdout)
    return r, r["rss_kib"] * 1024


class HugeTrace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sextant-huge-")
        cls.dir = os.path.join(cls.tmp, "trace")
        # One rank; the synthesizer writes about 126 events per step with 40 layers.
        probe = os.path.join(cls.tmp, "probe")
        p = subprocess.run([BIN, "trace", "synth", "--out", probe, "--ranks", "1", "--steps", "10", "--json", "-"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        per_step = json.loads(p.stdout)["tables"]["files"]["columns"]["events_count"][0] / 10
        cls.steps = int(EVENTS / per_step) + 1
        t0 = time.time()
        p = subprocess.run([BIN, "trace", "synth", "--out", cls.dir, "--ranks", "1", "--steps", str(cls.steps),
                            "--gzip", "--json", "-"], capture_output=True, text=True, timeout=1800)
        assert p.returncode == 0, p.stderr
        synth = json.loads(p.stdout)
        cls.events = synth["tables"]["files"]["columns"]["events_count"][0]
        cls.raw_bytes = synth["tables"]["files"]["columns"]["raw_bytes"][0]
        cls.synth_s = time.time() - t0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_ten_million_events_with_bounded_memory(self):
        self.assertGreaterEqual(self.events, EVENTS)
        t0 = time.time()
        js = os.path.join(self.tmp, "huge.json")
        r, rss = child_peak_rss_bytes([BIN, "analyze", self.dir, "--json", js, "-q"])
        wall = time.time() - t0
        self.assertEqual(r["rc"], 0, r["err"])
        with open(js) as f:
            doc = json.load(f)
        self.assertEqual(doc["scalars"]["raw_json_bytes"], self.raw_bytes)
        # Memory grows with the events and the result rows, not with the text or the gzip stream.
        # Measured 2026-11-30 with every default analysis on the plain 2.90 GB file: 178 B/event,
        # 0.61x the JSON size (was 361 B/event, 1.24x, before the replay graphs were built one
        # iteration at a time, operator shapes interned and --json rendered without a JSON tree;
        # docs/robustness.md). The bounds guard against a return of those (about 1.45x the figure).
        print(f"\n{self.events} events, {self.raw_bytes / 1e9:.2f} GB JSON: analyze {wall:.1f} s, "
              f"peak RSS {rss / 1e6:.0f} MB ({rss / self.raw_bytes:.2f}x JSON, {rss / self.events:.0f} B/event)")
        self.assertLess(rss, 0.9 * self.raw_bytes)
        self.assertLess(rss / self.events, 260)

    def test_interrupted_analysis_keeps_previous_outputs(self):
        out = os.path.join(self.tmp, "out")
        csv_dir = os.path.join(out, "csv")
        js = os.path.join(out, "result.json")
        os.makedirs(csv_dir)
        previous = {"result.json": b'{"previous": true}\n', "csv/scalars.csv": b"name,value\nprevious,1\n"}
        for sig in (signal.SIGINT, signal.SIGTERM):
            for n, content in previous.items():
                with open(os.path.join(out, n), "wb") as f:
                    f.write(content)
            for delay in (0.5, 2.0, 5.0):
                with self.subTest(sig=sig, delay=delay):
                    p = subprocess.Popen([BIN, "analyze", self.dir, "--json", js, "--csv", csv_dir, "-q"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                    time.sleep(delay)
                    finished_first = p.poll() is not None
                    p.send_signal(sig)
                    _, err = p.communicate(timeout=120)
                    names = sorted(os.listdir(out)) + ["csv/" + n for n in sorted(os.listdir(csv_dir))]
                    self.assertEqual([n for n in names if ".tmp" in n], [], "temporaries left behind")
                    if finished_first:
                        continue
                    self.assertEqual(p.returncode, -sig, err.decode()[-2000:])
                    for n, content in previous.items():
                        with open(os.path.join(out, n), "rb") as f:
                            self.assertEqual(f.read(), content, f"{n} changed by an interrupted run")
                    self.assertEqual(sorted(os.listdir(csv_dir)), ["scalars.csv"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
