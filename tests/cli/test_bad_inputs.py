#!/usr/bin/python3
"""Bad-input matrix (issue 10): every broken or hostile input gives a clear message naming the file
and what is wrong, exit status 2 (sextant::Error), no traceback/abort/sanitizer report, and no
output file (neither --json nor anything under --csv).

Commands covered: analyze (Kineto JSON, plain and gzip), estimate (scenario YAML), catalog show
(Hugging Face config.json), validate (validation CSV), goodput --fit (incident CSV) and infer serve
(request-trace CSV). The 10^7-event bounded-memory case is in test_bad_inputs_slow.py."""
import gzip
import json
import os
import re
import shutil
import subprocess
import stat
import threading
import tempfile
import unittest

BIN = os.path.abspath(os.environ.get("SEXTANT_BIN", "build/sextant"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("SEXTANT_DATA_DIR", os.path.join(ROOT, "data"))
SCENARIO = os.path.join(DATA, "examples", "llama3-70b-h100.yaml")
GOODPUT = os.path.join(DATA, "examples", "goodput-llama3-405b-16k.yaml")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()
TRAINING_CSV = os.path.join(DATA, "validation", "training.csv")
CRASH_MARKERS = ("Traceback", "internal error", "terminate called", "AddressSanitizer", "runtime error:",
                 "Segmentation fault", "core dumped", "LeakSanitizer")


def event(name, ts, dur, cat="kernel", **extra):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
         "args": {"stream": 7, "correlation": 1}}
    e.update(extra)
    return e


def kineto(events, rank=0, world=1):
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world},
            "traceEvents": events}


def good_trace_text(rank=0, world=1):
    evs = [event("ProfilerStep#1", 1000, 500, cat="user_annotation", tid=1, args={}),
           event("cudaLaunchKernel", 1010, 5, cat="cuda_runtime", tid=1, args={"correlation": 1}),
           event("gemm_kernel", 1020, 100)]
    return json.dumps(kineto(evs, rank, world), indent=1)


class BadInputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sextant-bad-")
        self.out = os.path.join(self.tmp, "out")
        os.mkdir(self.out)

    def tearDown(self):
        for dirpath, dirnames, filenames in os.walk(self.tmp):
            for n in dirnames + filenames:
                try:
                    os.chmod(os.path.join(dirpath, n), 0o700, follow_symlinks=False)
                except OSError:
                    pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, content, mode="w"):
        p = os.path.join(self.tmp, name)
        with open(p, mode) as f:
            f.write(content)
        return p

    def run_cli(self, args, timeout=120):
        return subprocess.run([BIN, *args], capture_output=True, timeout=timeout)

    def assert_fails(self, args, names, what, with_outputs=True, timeout=120):
        """Runs `sextant ARGS --json OUT --csv DIR`; asserts exit 2, a message naming each of
        `names` and each of `what` (case-insensitive), no crash marker and no output written."""
        shutil.rmtree(self.out)
        os.mkdir(self.out)
        json_out = os.path.join(self.out, "result.json")
        csv_out = os.path.join(self.out, "csv")
        extra = ["--json", json_out, "--csv", csv_out] if with_outputs else []
        p = self.run_cli([*args, *extra], timeout)
        err = p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 2, f"{args}: exit {p.returncode}, stderr: {err[:2000]}")
        for m in CRASH_MARKERS:
            self.assertNotIn(m, err, f"{args}: {err[:2000]}")
        self.assertTrue(err.startswith("sextant: error: "), err[:2000])
        self.assertLess(len(err) - sum(len(n) for n in names), 4000, "message too long to read")
        for n in names:
            self.assertIn(n, err, f"{args}: message does not name {n!r}: {err}")
        for w in what:
            self.assertIn(w.lower(), err.lower(), f"{args}: message does not say {w!r}: {err}")
        if with_outputs:
            self.assertFalse(os.path.exists(json_out), "partial --json output left behind")
            self.assertFalse(os.path.exists(csv_out) and os.listdir(csv_out), "partial --csv output left behind")
        self.assertEqual([n for n in os.listdir(self.out) if ".tmp" in n], [], "temporary files left behind")
        return err

    # ---------------------------------------------------------------- analyze (Kineto JSON)
    def test_csv_to_standard_output_is_refused(self):
        # Several tables cannot share standard output: --csv - created a folder named '-' before
        # 2026-12-02.
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            self.assert_fails(["estimate", SCENARIO, "--csv", "-"], ["--csv"], ["folder", "--json -"], with_outputs=False)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "-")))
        finally:
            os.chdir(cwd)

    def test_analyze_empty_file(self):
        p = self.write("rank0.json", "")
        self.assert_fails(["analyze", p], [p], ["empty"])

    def test_analyze_truncated_json(self):
        text = good_trace_text()
        p = self.write("rank0.json", text[: len(text) // 2])
        self.assert_fails(["analyze", p], [p], ["truncated", "byte offset"])

    def test_analyze_truncated_gzip(self):
        data = gzip.compress(good_trace_text().encode() * 1)
        p = self.write("rank0.json.gz", data[: len(data) // 2], "wb")
        self.assert_fails(["analyze", p], [p], ["truncated gzip"])

    def test_analyze_corrupt_gzip(self):
        data = bytearray(gzip.compress(good_trace_text().encode()))
        for i in range(20, len(data) - 8):
            data[i] ^= 0x5A
        p = self.write("rank0.json.gz", bytes(data), "wb")
        self.assert_fails(["analyze", p], [p], ["gzip"])

    def test_analyze_not_json(self):
        p = self.write("rank0.json", "this is not JSON\n")
        self.assert_fails(["analyze", p], [p], ["not a readable JSON trace"])

    def test_analyze_syntax_error_names_line_and_column(self):
        # Where in an indented (json.dump(indent=...)) trace the text stops being JSON: the line and
        # column an editor jumps to, for a plain file and for the same text gzipped.
        good = json.dumps(kineto([event("k", 1000, 10), event("k2", 2000, 10)]), indent=1)
        bad = good.replace('"ts": 2000', '"ts": 2000 x', 1)
        self.assertNotEqual(bad, good)
        before = bad[: bad.index(" x") + 1]
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        p = self.write("rank0.json", bad)
        self.assert_fails(["analyze", p], [f"{p}:{line}:{column}"], ["expected", "byte offset"])
        g = self.write("rank0.json.gz", gzip.compress(bad.encode()), "wb")
        self.assert_fails(["analyze", g], [f"{g}:{line}:{column}"], ["expected", "byte offset"])

    def test_analyze_wrong_json_types(self):
        cases = {
            "events-object": {"traceEvents": {"ph": "X"}},
            "events-numbers": {"traceEvents": [1, 2, 3]},
            "ts-strings": kineto([event("k", "1000", "10"), event("k2", "2000", "10")]),
        }
        for name, doc in cases.items():
            with self.subTest(name):
                p = self.write(f"{name}.json", json.dumps(doc))
                self.assert_fails(["analyze", p], [p], ["no usable events"])
        p = self.write("top-level-string.json", json.dumps("traceEvents"))
        self.assert_fails(["analyze", p], [p], ["expected a JSON object or array", "byte offset 0"])

    def test_analyze_negative_and_overflowing_timestamps(self):
        """An event whose time no profiler writes (negative, beyond 64-bit nanoseconds, infinite
        as a double, NaN or Infinity as Python's json writes them) is dropped and counted, with a
        note, and the rest of the file analysed: one such event had rejected the whole file
        (before 2026-12-04; NaN and Infinity before 2026-12-05)."""
        for name, lit, what in (("nan", "NaN", "ts out of range"), ("inf", "Infinity", "ts out of range"),
                                ("neginf", "-Infinity", "ts out of range"),
                                ("negative", "-1020", "negative ts: event dropped"),
                                ("overflow", "99999999999999999999", "ts out of range"),
                                ("overflow-ns", "9223372036854776", "out of range"),
                                ("overflow-frac", "9223372036854775807.5", "ts out of range"),
                                ("huge-exp", "1e999", "ts out of range")):
            with self.subTest(name):
                text = good_trace_text().replace('"ts": 1020', f'"ts": {lit}')
                p = self.write(f"{name}.json", text)
                out = os.path.join(self.out, f"{name}.json")
                r = self.run_cli(["analyze", p, "--json", out, "-q"])
                self.assertEqual(r.returncode, 0, r.stderr.decode()[:2000])
                with open(out) as f:
                    res = json.load(f)
                diag = res["tables"]["diagnostics"]["columns"]
                rows = [i for i, k in enumerate(diag["name"]) if what in k]
                self.assertEqual(len(rows), 1, diag["name"])
                self.assertEqual(diag["severity"][rows[0]], "error")
                self.assertEqual(diag["count"][rows[0]], 1)
                self.assertTrue(any(n.startswith("1 event with corrupt times dropped") for n in res["notes"]), res["notes"])
        # --diff notes the dropped events of the side that had them.
        good = self.write("good.json", good_trace_text())
        bad = self.write("bad-side.json", good_trace_text().replace('"ts": 1020', '"ts": -1020'))
        out = os.path.join(self.out, "diff.json")
        r = self.run_cli(["analyze", "--diff", good, bad, "--json", out, "-q"])
        self.assertEqual(r.returncode, 0, r.stderr.decode()[:2000])
        with open(out) as f:
            notes = json.load(f)["notes"]
        self.assertTrue(any(n.startswith("side b: 1 event with corrupt times dropped") for n in notes), notes)
        # A file whose every event is corrupt has nothing to analyse: an error naming why.
        text = good_trace_text()
        for ts in ("1000", "1010", "1020"):
            text = text.replace(f'"ts": {ts}', '"ts": -5')
        p = self.write("all-negative.json", text)
        self.assert_fails(["analyze", p], [p], ["no usable events", "negative ts"])

    def test_analyze_negative_duration_is_a_counted_diagnostic(self):
        """PyTorch writes dur -1 for a CPU event unfinished when the profiler stopped
        (pytorch/pytorch#150131): such a trace is analysed, the event dropped and counted (it
        rejected the whole job before)."""
        trace = kineto([event("ProfilerStep#1", 1000, 500, cat="user_annotation", tid=1, args={}),
                        event("aten::unfinished", 1400, -1, cat="cpu_op", tid=1, args={}),
                        event("cudaLaunchKernel", 1010, 5, cat="cuda_runtime", tid=1, args={"correlation": 1}),
                        event("gemm_kernel", 1020, 100)])
        p = self.write("rank0.json", json.dumps(trace))
        out = os.path.join(self.out, "r.json")
        r = self.run_cli(["analyze", p, "--json", out, "-q"])
        self.assertEqual(r.returncode, 0, r.stderr.decode()[:2000])
        with open(out) as f:
            diag = json.load(f)["tables"]["diagnostics"]["columns"]
        rows = [i for i, k in enumerate(diag["name"]) if k.startswith("negative dur")]
        self.assertEqual(len(rows), 1, diag["name"])
        self.assertEqual(diag["count"][rows[0]], 1)
        self.assertIn("aten::unfinished", diag["example"][rows[0]])

    def test_analyze_missing_rank_is_reported(self):
        """Two ranks of a job whose distributedInfo.world_size is 3: the missing rank is named in
        the diagnostics (the cross-rank analyses silently covered two ranks before)."""
        d = os.path.join(self.tmp, "job")
        os.mkdir(d)
        for rank in (0, 2):
            with open(os.path.join(d, f"rank-{rank}.json"), "w") as f:
                f.write(good_trace_text(rank=rank, world=3))
        out = os.path.join(self.out, "r.json")
        r = self.run_cli(["analyze", d, "--json", out, "-q"])
        self.assertEqual(r.returncode, 0, r.stderr.decode()[:2000])
        with open(out) as f:
            diag = json.load(f)["tables"]["diagnostics"]["columns"]
        rows = [i for i, k in enumerate(diag["name"]) if "world_size" in k]
        self.assertEqual(len(rows), 1, diag["name"])
        self.assertEqual(diag["severity"][rows[0]], "warning")
        self.assertIn("1 missing: 1", diag["example"][rows[0]])

    def test_analyze_duplicate_ranks(self):
        d = os.path.join(self.tmp, "job")
        os.mkdir(d)
        for n in ("a.json", "b.json"):
            with open(os.path.join(d, n), "w") as f:
                f.write(good_trace_text(rank=3, world=2))
        self.assert_fails(["analyze", d], [os.path.join(d, "a.json"), os.path.join(d, "b.json")],
                          ["rank 3", "same rank"])

    def test_analyze_directory_without_traces(self):
        d = os.path.join(self.tmp, "empty-dir")
        os.mkdir(d)
        with open(os.path.join(d, "notes.txt"), "w") as f:
            f.write("no traces here\n")
        self.assert_fails(["analyze", d], [d], ["no trace files"])

    def test_analyze_missing_file(self):
        p = os.path.join(self.tmp, "nope.json")
        self.assert_fails(["analyze", p], [p], ["no such"])

    def test_analyze_unreadable_file(self):
        # /proc/self/mem opens but every read at offset 0 fails (EIO), even for root.
        self.assert_fails(["analyze", "/proc/self/mem"], ["/proc/self/mem"], ["read error at byte offset 0: Input/output error"])
        if os.geteuid() == 0:
            self.skipTest("chmod 000 is readable by root; covered by /proc/self/mem above")
        p = self.write("rank0.json", good_trace_text())
        os.chmod(p, 0)
        self.assert_fails(["analyze", p], [p], ["permission denied"])

    def test_fifo_and_devices_do_not_hang(self):
        # A FIFO without a writer would block open(2); /dev/zero never ends: both are refused.
        fifo = os.path.join(self.tmp, "rank0.json")
        os.mkfifo(fifo)
        self.assert_fails(["analyze", fifo], [fifo], ["not a regular file"], timeout=30)
        yfifo = os.path.join(self.tmp, "scenario.yaml")
        os.mkfifo(yfifo)
        self.assert_fails(["estimate", yfifo], [yfifo], ["not a regular file"], timeout=30)
        self.assert_fails(["analyze", "/dev/zero"], ["/dev/zero"], ["not a regular file"], timeout=30)
        self.assert_fails(["validate", "/dev/urandom"], ["/dev/urandom"], ["not a regular file"], timeout=30)

    def test_analyze_gzip_bomb(self):
        # 4 MiB of compressed data inflating to 4 GiB of blanks inside a JSON array: far above the
        # default ratio limit. Built from repeated copies of one deflate block (fast to make).
        p = os.path.join(self.tmp, "bomb.json.gz")
        chunk = gzip.compress(b" " * (64 << 20), compresslevel=9)
        with open(p, "wb") as f:
            f.write(gzip.compress(b'{"traceEvents": ['))
            for _ in range(64):
                f.write(chunk)
        err = self.assert_fails(["analyze", p], [p], ["decompression limit", "--max-inflate-bytes"], timeout=120)
        self.assertIn("bytes", err)
        # The explicit override takes a number of bytes: a small limit trips on a normal file too.
        g = os.path.join(self.tmp, "rank0.json.gz")
        with open(g, "wb") as f:
            f.write(gzip.compress(good_trace_text().encode()))
        self.assert_fails(["analyze", g, "--max-inflate-bytes", "100"], [g], ["decompression limit"])
        ok = self.run_cli(["analyze", g, "--max-inflate-bytes", "0", "-q"])
        self.assertEqual(ok.returncode, 0, ok.stderr.decode())

    def test_analyze_non_utf8_and_long_names(self):
        # Invalid UTF-8 inside event names and in the file name: the analysis runs, and the JSON
        # output is valid UTF-8 (invalid bytes replaced), never an exception.
        raw = good_trace_text().replace("gemm_kernel", "gemm_\udcff\udcfe_kernel").encode("utf-8", "surrogateescape")
        name = os.path.join(self.tmp.encode(), b"rank0-\xff\xfe.json")
        with open(name, "wb") as f:
            f.write(raw)
        js = os.path.join(self.out, "r.json")
        cs = os.path.join(self.out, "csv")
        p = subprocess.run([BIN.encode(), b"analyze", name, b"--json", js.encode(), b"--csv", cs.encode(), b"-q"], capture_output=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr.decode("utf-8", "replace"))
        with open(js, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))  # strict: raises on invalid UTF-8
        self.assertEqual(doc["command"], "analyze")
        # The CSVs are valid UTF-8 too, with the names as the JSON writes them (raw bytes before
        # 2026-12-03), and scalars.csv opens with the command and the schema version.
        kernels = [k for k in doc["tables"]["gpu_kernel_breakdown_by_kernel"]["columns"]["name"] if k.startswith("gemm_")]
        self.assertTrue(kernels and "\ufffd" in kernels[0], kernels)
        with open(os.path.join(cs, "gpu_kernel_breakdown_by_kernel.csv"), "rb") as f:
            text = f.read().decode("utf-8")  # strict
        self.assertIn(kernels[0], text)
        with open(os.path.join(cs, "scalars.csv"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[:3], ["name,value", "command,analyze", "schema_version,%d" % doc["schema_version"]])
        # A 1 MB kernel name is kept whole; a path longer than PATH_MAX is refused by name.
        long_kernel = "k" * (1 << 20)
        p2 = self.write("long.json", good_trace_text().replace("gemm_kernel", long_kernel))
        r = self.run_cli(["analyze", p2, "--json", "-"])
        self.assertEqual(r.returncode, 0, r.stderr.decode()[:2000])
        self.assertIn(long_kernel, r.stdout.decode())
        long_path = os.path.join(self.tmp, *(["d" * 200] * 25), "rank0.json")
        self.assert_fails(["analyze", long_path], [long_path], ["no such trace file"])

    # ---------------------------------------------------------------- outputs
    def test_output_directory_not_writable(self):
        p = self.write("rank0.json", good_trace_text())
        under_file = os.path.join(p, "csv")  # a directory under a regular file
        r = self.run_cli(["analyze", p, "--csv", under_file, "-q"])
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, err)
        self.assertIn(under_file, err)
        self.assertIn("is a file, not a folder", err)  # found before the run (2026-12-03; "cannot create output directory" after it before)
        r = self.run_cli(["analyze", p, "--json", os.path.join(p, "x.json"), "-q"])
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn(os.path.join(p, "x.json"), r.stderr.decode())
        self.assertIn("is a file, not a folder", r.stderr.decode())
        # a missing folder of --json is made, as --csv's is
        made = os.path.join(self.tmp, "new-out", "x.json")
        r = self.run_cli(["analyze", p, "--json", made, "-q"])
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertTrue(os.path.isfile(made))

    def test_disk_full(self):
        p = self.write("rank0.json", good_trace_text())
        csv_out = os.path.join(self.out, "csv")
        r = self.run_cli(["analyze", p, "--json", "/dev/full", "--csv", csv_out, "-q"])
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, err)
        self.assertIn("/dev/full", err)
        self.assertIn("No space left on device", err)
        # All or nothing: the CSVs that would have succeeded are not left behind either.
        self.assertFalse(os.path.exists(csv_out) and os.listdir(csv_out), os.listdir(csv_out) if os.path.exists(csv_out) else "")
        for cmd in (["estimate", SCENARIO], ["catalog", "show", "h100-sxm-80gb"]):
            r = self.run_cli([*cmd, "--json", "/dev/full", "-q"])
            self.assertEqual(r.returncode, 2, r.stderr.decode())
            self.assertIn("No space left on device", r.stderr.decode())

    def test_threads_that_cannot_start_are_not_fatal(self):
        """--threads far above what the process's memory limit lets start: the threads that start
        do the work, with the same bytes as --threads 2 (before 2026-12-03 std::terminate, exit
        134, a Python interpreter too). A sanitizer build reserves more address space than the
        limit: skipped there."""
        with open(BIN, "rb") as f:
            if b"AddressSanitizer" in f.read():
                self.skipTest("a sanitizer build cannot run under an address-space limit")
        import resource

        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (1500 << 20, 1500 << 20))

        outs = []
        for threads, pre in (("400", limited), ("2", None)):
            out = os.path.join(self.out, f"goodput-{threads}.json")
            p = subprocess.run([BIN, "goodput", GOODPUT, "--replicas", "20000", "--threads", threads, "--no-search", "--json", out, "-q"],
                               capture_output=True, timeout=300, preexec_fn=pre)
            self.assertEqual(p.returncode, 0, p.stderr.decode()[:2000])
            outs.append(read_bytes(out))
        self.assertEqual(outs[0], outs[1])
        # Trace loading's own threads (the second scanner, the inflater of a .json.gz): a 4 GB
        # stack per thread under a 3 GB address space leaves none to start; the trace is read on
        # the calling thread (an internal error, exit 3, before 2026-12-03).
        synth = os.path.join(self.tmp, "synth-threads")
        p = subprocess.run([BIN, "trace", "synth", "--out", synth, "--ranks", "1", "--steps", "200", "-q"], capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr.decode()[:2000])
        subprocess.run(["gzip", "-k", os.path.join(synth, "rank-0.json")], check=True)
        os.makedirs(synth + "-gz")
        os.rename(os.path.join(synth, "rank-0.json.gz"), os.path.join(synth + "-gz", "rank-0.json.gz"))

        def no_threads():
            resource.setrlimit(resource.RLIMIT_STACK, (4 << 30, 4 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

        for d, threads in ((synth, "2"), (synth + "-gz", "1")):
            p = subprocess.run([BIN, "analyze", d, "--threads", threads, "-q"], capture_output=True, timeout=300, preexec_fn=no_threads)
            self.assertEqual(p.returncode, 0, p.stderr.decode()[:2000])

    def test_trace_synth_write_failure_leaves_no_rank_files(self):
        """A write that fails (here a file-size limit, as a full disk) is an error naming the file,
        and no rank file is left (a partial job would read as ranks missing); before 2026-12-03 the
        writer threw again while unwinding: std::terminate, truncated files left."""
        import resource
        import signal

        def limited():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (200 << 10, 200 << 10))

        out = os.path.join(self.tmp, "synth-full")
        p = subprocess.run([BIN, "trace", "synth", "--out", out, "--ranks", "2", "--steps", "20", "-q"], capture_output=True,
                           timeout=120, preexec_fn=limited)
        err = p.stderr.decode()
        self.assertEqual(p.returncode, 2, err[:2000])
        self.assertIn("write failed", err)
        self.assertIn("rank-", err)
        self.assertEqual([n for n in os.listdir(out) if n.startswith("rank-")] if os.path.isdir(out) else [], [])

    def test_previous_outputs_survive_a_failed_run(self):
        p = self.write("rank0.json", good_trace_text())
        js = os.path.join(self.out, "r.json")
        ok = self.run_cli(["analyze", p, "--json", js, "-q"])
        self.assertEqual(ok.returncode, 0, ok.stderr.decode())
        with open(js, "rb") as f:
            before = f.read()
        bad = self.write("bad.json", "{\"traceEvents\": [")
        r = self.run_cli(["analyze", bad, "--json", js, "-q"])
        self.assertEqual(r.returncode, 2)
        with open(js, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_interrupted_run_keeps_previous_outputs(self):
        # A long Monte Carlo run interrupted by SIGINT / SIGTERM: it dies of the signal, the
        # previous --json and --csv outputs are untouched and no temporary file is left.
        import signal
        import time
        example = os.path.join(DATA, "examples", "goodput-llama3-405b-16k.yaml")
        js = os.path.join(self.out, "r.json")
        csv_dir = os.path.join(self.out, "csv")
        os.mkdir(csv_dir)
        for sig in (signal.SIGINT, signal.SIGTERM):
            with open(js, "w") as f:
                f.write("previous\n")
            with open(os.path.join(csv_dir, "scalars.csv"), "w") as f:
                f.write("name,value\nprevious,1\n")
            p = subprocess.Popen([BIN, "goodput", example, "--replicas", "300000", "--no-search", "--threads", "1", "--json", js,
                                  "--csv", csv_dir, "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(1.0)
            self.assertIsNone(p.poll(), "the run finished before the signal: make it longer")
            p.send_signal(sig)
            p.wait(timeout=60)
            self.assertEqual(p.returncode, -sig, p.stderr.read().decode()[-2000:])
            with open(js) as f:
                self.assertEqual(f.read(), "previous\n")
            self.assertEqual(os.listdir(csv_dir), ["scalars.csv"])
            with open(os.path.join(csv_dir, "scalars.csv")) as f:
                self.assertEqual(f.read(), "name,value\nprevious,1\n")
            self.assertEqual([n for n in os.listdir(self.out) if ".tmp" in n], [])

    # ---------------------------------------------------------------- estimate (scenario YAML)
    def scenario_text(self):
        with open(SCENARIO) as f:
            return f.read()

    def test_estimate_bad_scenarios(self):
        base = self.scenario_text()
        cases = [
            ("empty", "", ["empty"]),
            ("truncated", base[: base.index("parallel:") + 14] + "\"unterminated", ["parallel"]),
            ("unclosed-flow-map", base + "extra: {tp: 8\n", ["YAML syntax error"]),
            ("wrong-type", base.replace("tp: 8", "tp: eight"), ["parallel.tp", "integer"]),
            ("list-type", base.replace("tp: 8", "tp: [8]"), ["parallel.tp"]),
            ("nan", base.replace("global_batch: 1024", "global_batch: .nan"), ["global_batch"]),
            ("inf", base.replace("seq_len: 8192", "seq_len: .inf"), ["seq_len"]),
            ("negative", base.replace("num_gpus: 1024", "num_gpus: -1024"), ["num_gpus"]),
            ("overflow", base.replace("num_gpus: 1024", "num_gpus: 99999999999999999999999"), ["num_gpus"]),
            ("non-utf8", base.replace("name: llama3-70b-h100-1k", "name: llama\udcff"), None),
            ("top-level-list", "- a\n- b\n", ["mapping"]),
            ("unknown-key", base.replace("num_gpus:", "num_gpu:"), ["num_gpu"]),
            # A width the heads do not divide needs head_dim (GPT-3 1.3B's 2048 over 24 was
            # floored to 85 silently).
            # More GPUs than a system without a scale-out network holds (costed at NVLink rates).
            ("no-scale-out", base.replace("system: dgx-h100", "system: mosaic-h100"), ["num_gpus", "no scale-out network"]),
            ("head-width", base.replace("model: llama3-70b\n", "model: {id: odd, source: test, layers: 2, hidden: 2048, heads: 24, "
                                        "ffn_hidden: 8192, vocab: 1000}\n"), ["head_dim", "not a multiple of heads 24"]),
            ("binary", "\x00\x01\x02\x7f", None),
        ]
        for name, text, what in cases:
            with self.subTest(name):
                p = os.path.join(self.tmp, f"{name}.yaml")
                with open(p, "wb") as f:
                    f.write(text.encode("utf-8", "surrogateescape"))
                if what is None:
                    # Either accepted with valid UTF-8 output, or refused with a clear message.
                    r = self.run_cli(["estimate", p, "--json", "-", "-q"])
                    err = r.stderr.decode("utf-8", "replace")
                    for m in CRASH_MARKERS:
                        self.assertNotIn(m, err)
                    if r.returncode == 0:
                        json.loads(r.stdout.decode("utf-8"))
                    else:
                        self.assertEqual(r.returncode, 2, err)
                        self.assertIn(p, err)
                    continue
                self.assert_fails(["estimate", p], [p], what)

    def test_estimate_plan_errors_offer_the_valid_values(self):
        """docs/scenario.md: an impossible plan's error names the valid choices (review of
        2026-12-06: these named only the fault)."""
        cases = [
            # dp that fits the 1,024 GPUs over tp*pp*cp = 32, or the GPUs this plan has
            (["--set", "parallel.dp=16"], "parallel.dp", ["tp*pp*dp*cp = 8*4*16*1 = 512", "parallel.dp = 32", "num_gpus = 512"]),
            (["--set", "parallel.ep=2"], "parallel.ep", ["has no experts", "parallel.ep: 1"]),
            # multiples of 32 that interleaved-1f1b over pp 4 also takes (992 is 31 micro-batches)
            (["--set", "training.global_batch=1000"], "training.global_batch",
             ["not divisible by micro_batch*dp = 1*32", "multiple of pp x micro_batch x dp = 128", "the nearest 896 or 1024"]),
            (["--set", "parallel.stage_layers=[27,27,26]"], "parallel.stage_layers",
             ["has 3 entries, expected pp*vpp = 20", "20 entries (17 more)", "4 layers in each of the 20 entries, which leaving stage_layers out gives"]),
            (["--set", "parallel.stage_layers=[" + ",".join(["4"] * 16 + ["3"] * 4) + "]"], "parallel.stage_layers",
             ["sums to 76 layers, the model has 80", "add 4 layers", "4 layers in each of the 20 entries"]),
        ]
        for sets, key, what in cases:
            with self.subTest(sets[1]):
                self.assert_fails(["estimate", SCENARIO, *sets], [f"{SCENARIO} (--set): key '{key}'"], what)

    def test_estimate_inline_accelerator_field_is_named_at_its_line(self):
        """An inline accelerator's unknown memory_gib at its own line and key, and at FILE (--set)
        where an override wrote it (review of 2026-12-06: "key 'hardware.accelerators'" at the
        list's line, whoever wrote it)."""
        acc = ("hardware:\n  accelerators:\n    - id: xpu-1\n      name: XPU\n      vendor: nvidia\n      kind: gpu\n"
               "      peak_tflops:\n        bf16: {value: 989.4, estimated: x}\n"
               "      memory_gib: unknown\n"
               "      memory_bandwidth_gb_per_s: {value: 3350, estimated: x}\n")
        base = self.scenario_text().replace("system: dgx-h100\n", "system: dgx-h100\naccelerator: xpu-1\n" + acc)
        lines = base.splitlines()
        line = next(i for i, t in enumerate(lines, 1) if "memory_gib" in t)
        p = self.write("inline-unknown-memory.yaml", base)
        self.assert_fails(["estimate", p], [f"{p}:{line}:19: key 'hardware.accelerators[0].memory_gib'"], ["no known memory capacity"])
        known = self.write("inline-known-memory.yaml", base.replace("memory_gib: unknown", "memory_gib: {value: 80, estimated: x}"))
        self.assert_fails(["estimate", known, "--set", "hardware.accelerators.0.memory_gib=unknown"],
                          [f"{known} (--set): key 'hardware.accelerators[0].memory_gib'"], ["no known memory capacity"])
        self.assert_fails(["estimate", known, "--set", "hardware.accelerators.0.memory_bandwidth_gb_per_s=unknown"],
                          [f"{known} (--set): key 'hardware.accelerators[0].memory_bandwidth_gb_per_s'"], ["no memory bandwidth"])
        # A field the entry lacks: at the entry's line, with the field's key.
        entry = next(i for i, t in enumerate(lines, 1) if "- id: xpu-1" in t)
        missing = self.write("inline-missing-memory.yaml", base.replace("      memory_gib: unknown\n", ""))
        self.assert_fails(["estimate", missing], [f"{missing}:{entry}:7: key 'hardware.accelerators[0].memory_gib'"],
                          ["no known memory capacity"])

    def test_estimate_unreadable_and_directory(self):
        self.assert_fails(["estimate", "/proc/self/mem"], ["/proc/self/mem"], ["read error"])
        d = os.path.join(self.tmp, "a-dir.yaml")
        os.mkdir(d)
        self.assert_fails(["estimate", d], [d], ["directory"])

    # ---------------------------------------------------------------- catalog show (HF config.json)
    def test_catalog_show_hf_config(self):
        good = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4,
                "num_key_value_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
                "max_position_embeddings": 128}
        p = self.write("config.json", json.dumps(good))
        r = self.run_cli(["catalog", "show", p, "--json", "-"])
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(json.loads(r.stdout)["scalars"]["kind"], "model")
        cases = [
            ("empty", "", ["invalid JSON"]),
            ("truncated", json.dumps(good)[:40], ["invalid JSON"]),
            ("array", "[1, 2]", ["JSON object"]),
            ("wrong-type", json.dumps({**good, "hidden_size": "256"}), ["hidden_size", "integer"]),
            ("float", json.dumps({**good, "hidden_size": 256.5}), ["hidden_size", "integer"]),
            ("nan", json.dumps(good).replace("256", "NaN"), ["invalid JSON"]),
            ("negative", json.dumps({**good, "num_hidden_layers": -2}), ["layers", "positive"]),
            ("overflow", json.dumps({**good, "vocab_size": 2 ** 40}), ["vocab_size", "range"]),
            ("overflow-u64", json.dumps({**good, "vocab_size": 2 ** 70}), ["vocab_size"]),
            ("zero-heads", json.dumps({**good, "num_attention_heads": 0}), ["heads", "positive"]),
            ("non-utf8", json.dumps({**good, "model_type": "llama\udcff"}, ensure_ascii=False), ["invalid JSON", "UTF-8"]),
        ]
        for name, text, what in cases:
            with self.subTest(name):
                q = os.path.join(self.tmp, name, "config.json")
                os.makedirs(os.path.dirname(q))
                with open(q, "wb") as f:
                    f.write(text.encode("utf-8", "surrogateescape"))
                self.assert_fails(["catalog", "show", q], [q], what)
        d = os.path.join(self.tmp, "dir.json")
        os.mkdir(d)
        self.assert_fails(["catalog", "show", d], [d], ["is a folder without a config.json"])

    # ---------------------------------------------------------------- validate (training CSV)
    def test_validate_bad_csvs(self):
        with open(TRAINING_CSV) as f:
            lines = f.read().splitlines(keepends=True)
        header, row = lines[0], lines[1]
        cols = header.rstrip("\n").split(",")
        ti = cols.index("num_gpus")

        def with_cell(value, column="num_gpus"):
            import csv
            import io
            rec = next(csv.reader([row]))
            rec[cols.index(column)] = value
            s = io.StringIO()
            csv.writer(s, lineterminator="\n").writerow(rec)
            return header + s.getvalue()

        cases = [
            ("empty", "", ["empty"]),
            ("header-only-truncated", header[: len(header) // 2], ["columns"]),
            # Cut after the third field (a cut inside a quoted field is the unterminated-quote case).
            ("truncated-row", header + ",".join(row.split(",")[:3]) + "\n", ["fields"]),
            ("unterminated-quote", header + row.rstrip("\n") + ',"open\n', ["unterminated quoted field"]),
            ("nan", with_cell("nan"), ["num_gpus"]),
            ("inf", with_cell("inf"), ["num_gpus"]),
            ("text", with_cell("many"), ["num_gpus"]),
            ("negative", with_cell("-8"), ["num_gpus"]),
            ("overflow", with_cell("1e300"), ["num_gpus"]),
            ("non-utf8", with_cell("8\udcff"), ["num_gpus"]),
            ("header-only", header, ["no data rows"]),
            # Zero divides (SIGFPE before 2026-12-01), past INT_MAX wraps (4294967297 read as 1).
            ("pp-zero", with_cell("0", "pp"), ["pp", "from 1"]),
            ("heads-zero", with_cell("0", "heads"), ["heads", "from 1"]),
            ("vpp-negative", with_cell("-1", "vpp"), ["vpp", "from 1"]),
            ("micro-batch-zero", with_cell("0", "micro_batch"), ["micro_batch", "from 1"]),
            ("layers-wraps", with_cell("4294967297", "layers"), ["layers", "2147483647"]),
            ("seq-len-negative", with_cell("-1", "seq_len"), ["seq_len", "from 1"]),
            ("zero-stage-5", with_cell("5", "zero_stage"), ["zero_stage", "0, 1, 2 or 3"]),
            ("recompute-unknown", with_cell("abc", "recompute"), ["recompute", "selective"]),
            ("sequence-parallel-unknown", with_cell("abc", "sequence_parallel"), ["sequence_parallel", "true"]),
            ("target-zero", with_cell("0", "target_step_time_s"), ["target_step_time_s", "positive"]),
            ("target-negative", with_cell("-1", "target_step_time_s"), ["target_step_time_s", "positive"]),
            # Review of 2026-12-05: a node size other than the system's, and an empty id or source.
            ("gpus-per-node-other", with_cell("3", "gpus_per_node"), ["gpus_per_node 3", "8 GPUs per node"]),
            ("id-empty", with_cell(" ", "id"), ["key 'id'", "empty"]),
            ("source-empty", with_cell("", "source"), ["key 'source'", "empty"]),
            # An id padded with blanks is the same id (it had made a second row of it).
            ("id-padded-twice", with_cell(" " + next(__import__("csv").reader([row]))[0] + " ", "id") + row, ["given twice"]),
        ]
        for name, text, what in cases:
            with self.subTest(name):
                p = os.path.join(self.tmp, f"{name}.csv")
                with open(p, "wb") as f:
                    f.write(text.encode("utf-8", "surrogateescape"))
                self.assert_fails(["validate", p], [p], what)
        self.assert_fails(["validate", "/proc/self/mem"], ["/proc/self/mem"], ["read error"])

    # ---------------------------------------------------------------- messages name what the user gave
    def test_messages_name_the_users_file_not_internals(self):
        # An unwritable --report names the report, not its staged temporary.
        blocker = os.path.join(self.tmp, "a-file")
        with open(blocker, "w") as f:
            f.write("x")
        target = os.path.join(blocker, "x.html")  # its folder cannot be made
        p = self.run_cli(["simulate", SCENARIO, "--report", target, "-q"])
        err = p.stderr.decode(errors="replace")
        self.assertEqual(p.returncode, 2, err)
        self.assertIn(target + ":", err)
        self.assertNotIn(".tmp.", err)
        # A NUL in a YAML string does not cut the message (what() is a C string).
        y = os.path.join(self.tmp, "nul.yaml")
        with open(y, "w") as f:
            f.write(open(SCENARIO).read().replace("model: llama3-70b", 'model: "llama3-70b\\u0000x"'))
        p = self.run_cli(["estimate", y])
        err = p.stderr.decode(errors="replace")
        self.assertEqual(p.returncode, 2, err)
        self.assertIn("\\u0000x", err)
        self.assertIn("valid", err)
        # A config.json byte that is not UTF-8, echoed by the JSON parser, prints escaped: the
        # message is text (valid UTF-8 in it stays).
        hf = os.path.join(self.tmp, "latin1.json")
        with open(hf, "wb") as f:
            f.write(b'{"model_type": "llama\xff", "name": "\xc3\xa9"}')
        p = self.run_cli(["estimate", SCENARIO, "--set", "model=" + hf])
        self.assertEqual(p.returncode, 2, p.stderr)
        p.stderr.decode("utf-8")  # strict: raises on a raw byte
        self.assertIn(b"\\xff", p.stderr)
        self.assertNotIn(b"\xff", p.stderr)

    # ---------------------------------------------------------------- validate (inference CSV)
    def test_validate_bad_inference_csvs(self):
        import csv
        import io
        with open(os.path.join(DATA, "validation", "inference.csv")) as f:
            lines = f.read().splitlines(keepends=True)
        header = lines[0]
        cols = next(csv.reader([header]))
        rows = [next(csv.reader([l])) for l in lines[1:]]
        prefill = next(r for r in rows if r[cols.index("metric")] == "prefill_tokens_per_s")
        decode = next(r for r in rows if r[cols.index("metric")] == "decode_tokens_per_s")

        def with_cell(base, column, value):
            rec = list(base)
            rec[cols.index(column)] = value
            s = io.StringIO()
            csv.writer(s, lineterminator="\n").writerow(rec)
            return header + s.getvalue()

        def with_cells(base, **cells):
            rec = list(base)
            for k, v in cells.items():
                rec[cols.index(k)] = v
            return rec

        cases = [
            ("header-only", header, ["no data rows"]),
            ("prompt-negative", with_cell(prefill, "prompt_len", "-1"), ["prompt_len", "from 0"]),
            ("prefill-without-prompt", with_cell(prefill, "prompt_len", "0"), ["prompt_len >= 1"]),
            ("decode-without-tokens", with_cell(decode, "gen_len", "0"), ["gen_len >= 1"]),
            ("tp-wraps", with_cell(prefill, "tp", "4294967297"), ["tp", "2147483647"]),
            ("value-negative", with_cell(prefill, "value", "-1"), ["value", "positive"]),
            ("engine-unknown", with_cell(prefill, "engine", "abc"), ["engine", "llama.cpp"]),
            # Review of 2026-12-05: an empty format had run the checkpoint's own at -68%; an id given
            # twice; tp not dividing the devices is named at tp.
            ("weight-format-empty", with_cell(prefill, "weight_format", " "), ["key 'weight_format'", "empty"]),
            ("id-twice", with_cell(prefill, "value", "1") + with_cell(prefill, "value", "2").split("\n", 1)[1], ["given twice"]),
            ("tp-not-dividing", with_cell(with_cells(prefill, tp="4"), "num_devices", "2"), ["key 'tp'", "does not divide num_devices 2"]),
        ]
        for name, text, what in cases:
            with self.subTest(name):
                p = os.path.join(self.tmp, f"inf-{name}.csv")
                with open(p, "w") as f:
                    f.write(text)
                self.assert_fails(["validate", p], [p], what)

    # ---------------------------------------------------------------- goodput --fit (incident CSV)
    def test_goodput_bad_incident_csvs(self):
        header = "time_h,category,component,node_lost\n"
        good = "".join(f"{i * 50 + 7.5},gpu,gpu,true\n" for i in range(5))
        cases = [
            ("empty", "", ["empty"]),
            ("no-rows", header, ["no incidents"]),
            ("truncated", header + good + "300", ["fields"]),
            ("nan", header + good + "nan,gpu,gpu,true\n", ["time_h"]),
            ("inf", header + good + "inf,gpu,gpu,true\n", ["time_h"]),
            ("negative", header + good + "-5,gpu,gpu,true\n", ["time_h"]),
            ("overflow", header + good + "1e400,gpu,gpu,true\n", ["time_h"]),
            ("bad-bool", header + good + "12,gpu,gpu,maybe\n", ["node_lost"]),
            ("missing-column", "time_h\n1\n", ["category"]),
            ("non-utf8", header + good + "12,gpu\udcff,gpu,true\n", None),
        ]
        for name, text, what in cases:
            with self.subTest(name):
                p = os.path.join(self.tmp, f"{name}.csv")
                with open(p, "wb") as f:
                    f.write(text.encode("utf-8", "surrogateescape"))
                args = ["goodput", "--fit", p, "--fit-nodes", "100", "--fit-days", "30"]
                if what is None:
                    r = self.run_cli([*args, "--json", "-"])
                    self.assertEqual(r.returncode, 0, r.stderr.decode("utf-8", "replace"))
                    json.loads(r.stdout.decode("utf-8"))
                    continue
                self.assert_fails(args, [p], what)

    # ---------------------------------------------------------------- infer serve (request trace)
    def test_infer_bad_request_traces(self):
        header = "arrival_s,prompt_tokens,output_tokens\n"
        good = "".join(f"{i * 0.5},{100 + i},{20 + i}\n" for i in range(10))
        cases = [
            ("empty", "", ["empty"]),
            ("no-rows", header, ["no requests"]),
            ("truncated", header + good + "5.5,10", ["fields"]),
            ("nan", header + good + "nan,10,10\n", ["arrival_s"]),
            ("inf", header + good + "inf,10,10\n", ["arrival_s"]),
            ("negative-tokens", header + good + "6,-10,10\n", ["prompt_tokens"]),
            ("overflow-tokens", header + good + "6,4294967297,10\n", ["prompt_tokens"]),
            ("overflow-i64", header + good + "6,99999999999999999999999,10\n", ["prompt_tokens"]),
            ("text", header + good + "6,ten,10\n", ["prompt_tokens"]),
            ("missing-column", "arrival_s,prompt_tokens\n1,2\n", ["output_tokens"]),
        ]
        for name, text, what in cases:
            with self.subTest(name):
                t = os.path.join(self.tmp, f"{name}.csv")
                with open(t, "w") as f:
                    f.write(text)
                study = os.path.join(self.tmp, f"{name}.yaml")
                with open(study, "w") as f:
                    f.write("deployment: {model: llama3.1-8b, accelerator: h100-sxm-80gb, engine: vllm}\n"
                            "serving: {policy: continuous, max_batch_seqs: 64, max_batch_tokens: 8192}\n"
                            f"workload: {{arrival: trace, trace_file: {t}}}\n"
                            "slo: {ttft_s: 1.0, tpot_s: 0.05}\n")
                self.assert_fails(["infer", "serve", study], [t], what)

    def test_infer_study_values_out_of_range(self):
        """A power, price or cache size that cannot be one is refused with its key; before
        2026-12-03 a negative value was dropped for the catalog's (energy unchanged, exit 0), and
        an idle power above the busy one gave a negative dynamic energy. KV heads that TP neither
        splits nor replicates are refused too."""
        study = os.path.join(DATA, "examples", "infer-llama3-8b-h100.yaml")
        cases = [
            ("power.busy_w=-300", ["power.busy_w"], ["> 0"]),
            ("power.idle_w=-1", ["power.idle_w"], [">= 0"]),
            ("power.idle_w=900", ["power.idle_w"], ["above the busy power of 700 w"]),
            ("cost.usd_per_device_hour=-2", ["cost.usd_per_device_hour"], ["> 0"]),
            ("serving.kv_capacity_tokens=-5", ["serving.kv_capacity_tokens"], [">= 0"]),
            # Sizes far beyond practice are typos: refused, not hours of simulation or an allocation
            # failure (exit 3, std::bad_alloc, before 2026-12-03).
            ("serving.max_batch_seqs=2147483647", ["serving.max_batch_seqs"], ["from 1 to 65536"]),
            ("serving.replicas=2147483647", ["serving.replicas"], ["from 1 to 100000"]),
            ("serving.timeline_points=2147483647", ["serving.timeline_points"], ["from 1 to 1000000"]),
            # The serving model's errors name the study's file and the figures of the verdict.
            ("deployment.model=llama3.1-70b", ["deployment"], ["no room for a kv cache", "gb of weights", "usable of"]),
        ]
        for kv, names, what in cases:
            with self.subTest(kv):
                self.assert_fails(["infer", "serve", study, "--set", "workload.requests=20", "--set", kv], [study, *names], what)
        cfg = os.path.join(self.tmp, "odd-kv.json")
        with open(cfg, "w") as f:
            json.dump({"model_type": "llama", "hidden_size": 3072, "num_attention_heads": 24, "num_key_value_heads": 6,
                       "num_hidden_layers": 8, "intermediate_size": 8192, "vocab_size": 32000}, f)
        self.assert_fails(["infer", "estimate", "--model", cfg, "--accelerator", "h100-sxm-80gb", "--tp", "4"],
                          ["--tp"], ["6 kv heads", "split or replicated"])

    # ---------------------------------------------------------------- command-line options
    def test_option_values_are_input_errors(self):
        """An option value CLI11 refuses (range, conversion, a missing positional) is an input
        error like any other: "sextant: error:", exit 2, no output (it exited 105/106 with
        CLI11's own text before, "Value abc not in range 0.000000 to 1797693...")."""
        cases = [
            (["simulate", SCENARIO, "--jitter", "1e300"], ["--jitter"], ["from 0 to 1"]),
            (["simulate", SCENARIO, "--jitter", "2"], ["--jitter"], ["from 0 to 1"]),
            (["simulate", SCENARIO, "--seed", "-1"], ["--seed"], ["9223372036854775807", "'-1'"]),
            (["simulate", SCENARIO, "--seed", "18446744073709551616"], ["--seed"], ["from 0 to"]),
            # Seeds are reported as signed 64-bit integers: 2^63 printed as a negative number before.
            (["simulate", SCENARIO, "--seed", "9223372036854775808"], ["--seed"], ["2^63-1"]),
            (["simulate", SCENARIO, "--jitter", "nan"], ["--jitter"], ["finite"]),
            # A batch three zeros too long: a budget error, not hours and gigabytes.
            (["simulate", SCENARIO, "--set", "training.global_batch=102400000"], ["training.global_batch"], ["budget", "estimate"]),
            # ... named at its --set (line 0 of the file before)
            (["simulate", SCENARIO, "--set", "training.global_batch=102400000"], [SCENARIO + " (--set)"], ["budget"]),
            (["plan", SCENARIO, "--headroom-gib", "inf"], ["--headroom-gib"], ["finite"]),
            (["simulate", SCENARIO, "--straggler", "17=1.3x"], ["--straggler"], ["'1.3x' is not a number"]),
            # review of 2026-12-07: a blank or sign before the rank or the factor, or a hexadecimal
            # factor, had been taken (std::stoll / std::stod), where "3 =1.5" was refused
            (["simulate", SCENARIO, "--straggler", "+3=1.5"], ["--straggler"], ["'+3' is not an integer", "RANK=FACTOR, the rank in digits without blanks or signs"]),
            (["simulate", SCENARIO, "--straggler", " 3=1.5"], ["--straggler"], ["' 3' is not an integer"]),
            (["simulate", SCENARIO, "--straggler", "3=+1.5"], ["--straggler"], ["'+1.5' is not a number"]),
            (["simulate", SCENARIO, "--straggler", "3= 1.5"], ["--straggler"], ["' 1.5' is not a number"]),
            (["simulate", SCENARIO, "--straggler", "3=0x1.8p0"], ["--straggler"], ["'0x1.8p0' is not a number"]),
            (["simulate", SCENARIO, "--straggler", "3=-2"], ["--straggler"], ["0.01"]),
            (["simulate", SCENARIO, "--timeline-rows", "abc"], ["--timeline-rows"], ["an integer from 0", "'abc'"]),
            # review of 2026-12-05: a whole count (1e3 was refused as "no number >= 0"), an empty
            # rank list (read as every unit), a seed with nothing to draw
            (["simulate", SCENARIO, "--timeline-rows", "1e3"], ["--timeline-rows"], ["an integer from 0", "'1e3'"]),
            (["simulate", SCENARIO, "--timeline-ranks", "0,,1"], ["--timeline-ranks"], ["empty entry"]),
            (["simulate", SCENARIO, "--jitter", "0", "--seed", "5"], ["--seed"], ["--jitter 0 draws none"]),
            (["simulate", SCENARIO, "--timeline-ranks", "0-200000"], ["--timeline-ranks"], ["at most 100000"]),
            # Out of the job without --timeline or --json too (it was accepted silently).
            (["simulate", SCENARIO, "--timeline-ranks", "5000"], ["--timeline-ranks"], ["outside the job"]),
            (["analyze", SCENARIO, "--top", "0"], ["--top"], ["integer from 1 to"]),
            (["analyze", SCENARIO, "--stragglers", "0"], ["--stragglers"], ["integer from 1 to"]),
            (["simulate"], ["scenario"], ["required"]),
            # Option values are not pasted into YAML (a comma or brace was read as YAML before
            # 2026-12-03), and the error names the option; a negative count is not "missing".
            (["plan", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "64", "--seq-len", "4096",
              "--precision", "fp8, seq_len: 128"], ["--precision"], ["not a valid choice"]),
            (["plan", "--model", "llama3-8b, x: 1", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "64", "--seq-len", "4096"],
             ["--model"], ["unknown model"]),
            (["plan", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "-8", "--global-batch", "64", "--seq-len", "4096"],
             ["--num-gpus"], ["positive integer", "-8"]),
            (["trace", "synth", "--out", os.path.join(self.tmp, "synth"), "--steps", "0"], ["--steps"], ["number > 0"]),
        ]
        for args, names, what in cases:
            with self.subTest(args=args):
                self.assert_fails(args, names, what)
        # An empty output path wrote nothing and exited 0 (before 2026-12-03).
        for opt in ("--json", "--csv", "--report"):
            with self.subTest(opt=opt):
                self.assert_fails(["estimate", SCENARIO, opt, ""], [opt], ["empty path"], with_outputs=False)

    def test_a_set_key_given_twice_is_refused(self):
        """A key given twice by --set is refused by every command that takes --set, naming the key
        and both values, as a key twice in a file and a repeated --fix are: the last had won
        silently (review of 2026-12-06). processes[0] is processes.0."""
        study = os.path.join(DATA, "examples", "infer-llama3-8b-h100.yaml")
        twice = ["--set", "training.seq_len=4096", "--set", "training.seq_len=2048"]
        seq = ["--set: key 'training.seq_len'"]
        said = ["is given twice: '4096', then '2048'", "give each key once"]
        cases = [
            (["estimate", SCENARIO, *twice], seq, said),
            (["simulate", SCENARIO, *twice], seq, said),
            (["plan", SCENARIO, *twice], seq, said),
            (["sweep", SCENARIO, "--vary", "parallel.tp=4,8", *twice], seq, said),
            (["sweep", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "64", "--seq-len", "4096", *twice],
             seq, said),
            (["goodput", GOODPUT, "--set", "failures.processes[0].shape=3", "--set", "failures.processes.0.shape=2"],
             ["--set: key 'failures.processes.0.shape'"], ["is given twice: '3' (as failures.processes[0].shape), then '2'"]),
            (["infer", "serve", study, "--set", "deployment.tp=1", "--set", "deployment.tp=2"], ["--set: key 'deployment.tp'"],
             ["is given twice: '1', then '2'"]),
            (["infer", "estimate", study, "--set", "deployment.tp=1", "--set", "deployment.tp=2"], ["--set: key 'deployment.tp'"],
             ["is given twice: '1', then '2'"]),
        ]
        for args, names, what in cases:
            with self.subTest(args=args):
                self.assert_fails(args, names, what)

    def test_a_whole_value_set_after_a_key_inside_it_is_refused(self):
        """--set parallel.tp=4 --set parallel={tp: 8, ...} ran at tp 8 and dropped the first
        without a word (review of 2026-12-06): refused, naming both. The whole value first and
        then a key inside it edits that value, and runs."""
        whole = "parallel={tp: 8, pp: 4, vpp: 5, schedule: interleaved-1f1b}"
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.tp=4", "--set", whole], ["--set: key 'parallel'"],
                          ["replaces the whole of 'parallel' after --set parallel.tp=4", "give the whole value first"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.overlap.tp_comm=true", "--set", "parallel.overlap={grad_reduce: true}"],
                          ["--set: key 'parallel.overlap'"], ["after --set parallel.overlap.tp_comm=true"])
        p = self.run_cli(["estimate", SCENARIO, "--set", whole, "--set", "parallel.tp=4", "--json", "-"])
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertIn("tp4", json.loads(p.stdout)["scalars"]["plan"])
        # A key that only starts like another is no key inside it.
        p = self.run_cli(["estimate", SCENARIO, "--set", "parallel.overlap.tp_comm=true", "--set", "parallel.overlap.tp_comm_bulk=false", "-q"])
        self.assertNotIn(b"replaces the whole", p.stderr)

    def test_simulation_budget_names_the_line_of_the_batch(self):
        y = os.path.join(self.tmp, "big.yaml")
        text = open(SCENARIO).read()
        with open(y, "w") as f:
            f.write(re.sub(r"global_batch: \d+", "global_batch: 1024000", text))
        line = next(i for i, l in enumerate(open(y).read().split("\n"), 1) if "global_batch: 1024000" in l)
        p = self.run_cli(["simulate", y])
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"{y}:{line}:", p.stderr.decode())

    def test_simulate_timeline_is_committed_with_the_other_outputs(self):
        """--timeline is one of the run's outputs: when another output cannot be written, the
        previous timeline file stays as it was."""
        timeline = self.write("step.json", "OLD")
        blocker = self.write("not-a-dir", "")
        p = self.run_cli(["simulate", SCENARIO, "-q", "--timeline", timeline, "--json", os.path.join(blocker, "r.json")])
        self.assertEqual(p.returncode, 2, p.stderr.decode()[:2000])
        with open(timeline) as f:
            self.assertEqual(f.read(), "OLD")

    def test_review_of_2026_12_05_outputs_and_bounds(self):
        """A report written to a FIFO keeps the FIFO; report reads no FIFO; an empty report --out,
        a trace synth beyond one rank's memory, --num-gpus -1 and a tie fraction above 1 are
        refused by name (a FIFO had hung, the report replaced a device by a file, --steps 2^63 grew
        until killed, -1 read "missing --num-gpus")."""
        fifo = os.path.join(self.tmp, "report.fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(read_bytes(fifo)))
        reader.start()
        p = self.run_cli(["estimate", SCENARIO, "-q", "--report", fifo])
        reader.join(60)
        self.assertEqual(p.returncode, 0, p.stderr.decode()[:2000])
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
        self.assertIn(b"<html", got[0][:4096].lower())
        self.assertEqual([n for n in os.listdir(self.tmp) if "tmp" in n], [])
        result = os.path.join(self.tmp, "r.json")
        self.assertEqual(self.run_cli(["estimate", SCENARIO, "-q", "--json", result]).returncode, 0)
        self.assert_fails(["report", fifo, "-o", os.path.join(self.tmp, "r.html")], [fifo], ["not a regular file"], with_outputs=False, timeout=30)
        self.assert_fails(["report", result, "-o", ""], ["--out"], ["empty"], with_outputs=False)
        self.assert_fails(["trace", "synth", "--out", os.path.join(self.tmp, "t"), "--ranks", "1", "--steps", "9223372036854775807"],
                          ["--steps"], ["65,536 MB per rank"], timeout=30)
        self.assert_fails(["trace", "synth", "--out", os.path.join(self.tmp, "t"), "--size-mb", "1e18"], ["--size-mb"], ["at most 65,536 MB"])
        job = ["plan", "--model", "llama3-8b", "--system", "dgx-h100", "--global-batch", "64", "--seq-len", "4096"]
        self.assert_fails([*job, "--num-gpus", "-1"], ["--num-gpus"], ["must be a positive integer"])
        self.assert_fails([*job, "--num-gpus", "8", "--tie-fraction", "1e308"], ["--tie-fraction"], ["from 0 to 1"])

    def test_review_of_2026_12_06_plan_keys_model_files_and_fabric_notes(self):
        """A failed fewer-first-last layout and tp*pp*cp above the GPUs name the --set key with the
        values that work; a stage_layers entry is named by its index; a model file with entries is
        read whole; fabric keys on one scale-up domain are noted as without effect, and not where
        they matter (review of 2026-12-06)."""
        e405 = os.path.join(ROOT, "examples", "llama3-405b-h100-16k.yaml")
        self.assert_fails(["estimate", e405, "--set", "parallel.vpp=3"], [e405 + " (--set): key 'parallel.vpp'"],
                          ["fewer-first-last needs pp*vpp = 48", "with pp = 16, parallel.vpp among 2, 4"])
        one_f1b = ["--set", "parallel.vpp=1", "--set", "parallel.schedule=1f1b"]
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.pp=16", *one_f1b, "--set", "parallel.stage_rule=fewer-first-last"],
                          [SCENARIO + " (--set): key 'parallel.stage_rule'"], ["stage_rule: even", "parallel.pp among 2"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.pp=256", *one_f1b], [SCENARIO + " (--set): key 'parallel.pp'"],
                          ["exceeds num_gpus = 1024", "parallel.pp among 1, 2, 4, 8, 16 ("])
        self.assert_fails(["estimate", SCENARIO, "--set", "num_gpus=16"], [SCENARIO + " (--set): key 'num_gpus'"],
                          ["exceeds num_gpus = 16", "a multiple of tp*pp*cp = 32"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.cp=256"], [SCENARIO + " (--set): key 'parallel.cp'"],
                          ["parallel.cp among 1, 2, 4, 8, 16, 32 ("])
        self.assert_fails(["estimate", SCENARIO, "--set", "model=llama3-8b", "--set", "num_gpus=4", "--set", "parallel.tp=3",
                           "--set", "parallel.pp=1", *one_f1b, "--set", "training.global_batch=4"],
                          ["key 'parallel.tp'"], ["the 4 GPUs left by pp*cp: 1, 2, 4)"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.stage_layers=[41,20,20,-1]", *one_f1b],
                          [SCENARIO + " (--set): key 'parallel.stage_layers.3'"], ["negative layer count"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.stage_layers=[4294967376,0,0,-4294967296]", *one_f1b],
                          [SCENARIO + " (--set): key 'parallel.stage_layers.0'"], ["out of range"])
        entry = ("  - id: tiny2\n    source: test\n    layers: 12\n    hidden: 768\n    heads: 12\n    ffn_hidden: 3072\n"
                 "    vocab: 32000\n")
        cat = self.write("mcat.yaml", "sourcse:\n  x: \"y\"\nbogus_top: 42\nentries:\n" + entry)
        job = "system: dgx-h100\nnum_gpus: 4\nparallel: {tp: 4}\ntraining: {global_batch: 4, seq_len: 4096}\n"
        sc = self.write("mc.yaml", "model: mcat.yaml\n" + job)
        self.assert_fails(["estimate", sc], [cat + ":1:1: key 'sourcse'"], ["unknown key (valid: entries, sources; did you mean 'sources'?)"])
        cat2 = self.write("mcat2.yaml", "entries:\n" + entry + entry.replace("tiny2", "tiny3").replace("layers: 12", "layers: -5"))
        sc2 = self.write("mc2.yaml", "model: mcat2.yaml#tiny2\n" + job)
        self.assert_fails(["estimate", sc2], [cat2 + ":"], ["layers"])

        def idle_notes(*sets):
            p = self.run_cli(["estimate", SCENARIO, *[a for kv in sets for a in ("--set", kv)], "--json", "-"])
            self.assertEqual(p.returncode, 0, p.stderr.decode()[-2000:])
            j = json.loads(p.stdout)
            return j["scalars"]["step_time_s"], " ".join(n for n in j["notes"] if n.startswith("stated but without effect"))
        node = ["model=llama3-8b", "system=dgx-a100", "num_gpus=8", "parallel.tp=8", "parallel.pp=1", "parallel.vpp=1",
                "parallel.schedule=1f1b", "training.global_batch=8"]
        _, n = idle_notes(*node, "parallel.collective_nic_aggregation=false")
        self.assertIn("parallel.collective_nic_aggregation (false, with all 8 GPUs in one scale-up domain", n)
        _, n = idle_notes(*node, "parallel.collective_algorithms=[ring]")
        self.assertIn("parallel.collective_algorithms ([ring]: what it leaves out could not have been taken here", n)
        # Where they matter, no note: NVLS on one H100 node, the NICs across 1,024 GPUs.
        h100 = [kv.replace("dgx-a100", "dgx-h100") for kv in node]
        every, _ = idle_notes(*h100)
        ring, n = idle_notes(*h100, "parallel.collective_algorithms=[ring]")
        self.assertNotEqual(every, ring)
        self.assertNotIn("collective_algorithms", n)
        tp4pp8 = ["parallel.tp=4", "parallel.pp=8", "parallel.vpp=1", "parallel.schedule=1f1b"]
        agg, _ = idle_notes(*tp4pp8, "parallel.collective_nic_aggregation=true")
        no_agg, n = idle_notes(*tp4pp8, "parallel.collective_nic_aggregation=false")
        self.assertGreater(no_agg, agg * 1.005)
        self.assertNotIn("collective_nic_aggregation", n)


    def test_review_of_2026_12_06_csv_cells_by_one_rule(self):
        """Every CSV reader takes numbers as decimals and integers as integer text, and names the
        cell's line and column: the incident, request-trace and inference readers had read 0x1000
        as 4096, the incident CSV's own tokenizer put every error at column 1, took an unterminated
        quote and yes/1 for node_lost and refused CR-only endings, and the training CSV read layers
        24.0 as 24 with no column in its errors (review of 2026-12-06)."""
        import csv
        import io
        fit = ["--fit-nodes", "100", "--fit-days", "90"]
        for name, text, where, what in [
            ("inc-hex", "category,time_h\ngpu,1\ngpu,0x1000\n", ":3:2: key 'time_h'", "decimal"),
            ("inc-nan", "category,time_h\ngpu,nan\n", ":2:2: key 'time_h'", "decimal"),
            ("inc-dup", "category,time_h,category\ngpu,1,x\n", ":1:3: key 'category'", "named twice"),
            ("inc-yes", "time_h,category,node_lost\n1,gpu,yes\n", ":2:3: key 'node_lost'", "true or false"),
            ("inc-unterm", "category,time_h\ngpu,\"5\ngpu,7\n", ":2", "unterminated quoted field"),
        ]:
            with self.subTest(name):
                p = self.write(name + ".csv", text)
                self.assert_fails(["goodput", "--fit", p, *fit], [p + where], [what])
        cr = self.write("inc-cr.csv", "category,time_h\rgpu,1\rgpu,2\r")
        r = self.run_cli(["goodput", "--fit", cr, *fit, "--json", "-"])
        self.assertEqual(r.returncode, 0, r.stderr.decode()[:2000])
        self.assertEqual(json.loads(r.stdout)["scalars"]["incidents_count"], 2)
        # Request trace: an arrival of 0x10 had been 16 s.
        t = self.write("trace-hex.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,10\n0x10,100,10\n")
        study = self.write("trace-hex.yaml", "deployment: {model: llama3.1-8b, accelerator: h100-sxm-80gb, engine: vllm}\n"
                           "serving: {policy: continuous, max_batch_seqs: 64, max_batch_tokens: 8192}\n"
                           f"workload: {{arrival: trace, trace_file: {t}}}\nslo: {{ttft_s: 1.0, tpot_s: 0.05}}\n")
        self.assert_fails(["infer", "serve", study], [t + ":3:1: key 'arrival_s'"], ["decimal"])

        def with_cell(path, column, value):
            with open(path) as f:
                lines = f.read().splitlines(keepends=True)
            cols = next(csv.reader([lines[0]]))
            rec = next(csv.reader([lines[1]]))
            rec[cols.index(column)] = value
            s = io.StringIO()
            csv.writer(s, lineterminator="\n").writerow(rec)
            return lines[0] + s.getvalue(), cols.index(column) + 1
        # Inference validation CSV: value 0x6C had been 108 tok/s, params_b 0x1p+2 4 B parameters.
        for column, value in (("value", "0x6C"), ("params_b", "0x1p+2")):
            with self.subTest(column):
                text, c = with_cell(os.path.join(DATA, "validation", "inference.csv"), column, value)
                p = self.write(f"inf-{column}.csv", text)
                self.assert_fails(["validate", p], [f"{p}:2:{c}: key '{column}'"], ["decimal"])
        # Training CSV: integer columns take integer text; errors give the column number.
        for value in ("24.0", "2.4e1", "0x18"):
            with self.subTest(value):
                text, c = with_cell(TRAINING_CSV, "layers", value)
                p = self.write("tr-layers.csv", text)
                self.assert_fails(["validate", p], [f"{p}:2:{c}: key 'layers'"], ["expected an integer"])

    def test_review_of_2026_12_07_every_failed_layout_lists_the_pp_values(self):
        """A stage layout that fails under the even rule, or exceeds the layers, lists the pp values
        that lay the layers out at this vpp and divide the GPUs left by tp*cp, as fewer-first-last
        did (docs/errors.md: "the vpp, rule and pp values"; review of 2026-12-07)."""
        one_f1b = ["--set", "parallel.vpp=1", "--set", "parallel.schedule=1f1b"]
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.pp=32", *one_f1b],
                          [SCENARIO + " (--set): key 'parallel.pp'"],
                          ["pp*vpp = 32 does not divide the 80 layers", "with vpp = 1, parallel.pp among 2, 4, 8, 16; or parallel.stage_layers"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.pp=64", "--set", "parallel.schedule=dualpipev", "--set", "parallel.vpp=2"],
                          [SCENARIO + " (--set): key 'parallel.pp'"],
                          ["pp*vpp = 128 exceeds the 80 layers", "with vpp = 2, parallel.pp among 2, 4, 8"])
        self.assert_fails(["estimate", SCENARIO, "--set", "model=gpt3-1.3b", "--set", "num_gpus=16", "--set", "parallel.tp=1",
                           "--set", "parallel.pp=16", "--set", "training.seq_len=2048", *one_f1b],
                          [SCENARIO + " (--set): key 'parallel.pp'"],
                          ["pp*vpp = 16 does not divide the 24 layers", "with vpp = 1, parallel.pp among 2, 4, 8; or parallel.stage_layers"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.pp=32", "--set", "parallel.stage_rule=fewer-first-last", *one_f1b],
                          [SCENARIO + " (--set): key 'parallel.pp'"], ["with vpp = 1, parallel.pp among 2; or parallel.stage_layers"])

    def test_review_of_2026_12_07_an_expert_grid_that_does_not_tile_lists_ep_and_etp(self):
        """An expert grid (etp x ep) that does not tile a stage's ranks lists the ep values at this
        etp that divide the experts and tile the stage, and the etp values at this ep, as the ep
        that does not divide the experts lists its own (docs/errors.md; review of 2026-12-07: no
        valid value had been listed)."""
        hybridep = os.path.join(DATA, "examples", "qwen3-30b-a3b-h100-hybridep.yaml")
        self.assert_fails(["estimate", hybridep, "--set", "parallel.ep=32"], [hybridep + " (--set): key 'parallel.ep'"],
                          ["etp*ep = 1*32 does not divide the 16 ranks",
                           "at etp = 1, parallel.ep among the divisors of the 128 experts whose grids tile the 16 ranks: 1, 2, 4, 8, 16"])
        mix = self.write("mix.yaml", "name: mix\nmodel: mixtral-8x7b\nsystem: dgx-h100\nnum_gpus: 16\n"
                                     "parallel: {tp: 1, pp: 1, ep: 8}\ntraining: {global_batch: 64, micro_batch: 1, seq_len: 4096}\n")
        self.assert_fails(["estimate", mix, "--set", "parallel.tp=2", "--set", "parallel.etp=2", "--set", "parallel.ep=8",
                           "--set", "num_gpus=8"], [mix + " (--set): key 'parallel.etp'"],
                          ["etp*ep = 2*8 does not divide the 8 ranks",
                           "at ep = 8, parallel.etp among those up to tp = 2 that divide the expert width and tile the 8 ranks: 1",
                           "or at etp = 2, parallel.ep among the divisors of the 8 experts whose grids tile the 8 ranks: 1, 2, 4"])

    def test_review_of_2026_12_07_set_degrees_that_do_not_divide_and_missing_lists(self):
        """A --set degree whose product does not divide the GPUs names that --set with the values
        that divide them (it named the file's num_gpus line, with no pp that fits), and an index
        into a list the file lacks says so (it read "expected a list of integers"; review of
        2026-12-07)."""
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.pp=3"], [SCENARIO + " (--set): key 'parallel.pp'"],
                          ["num_gpus 1024 is not divisible by tp*pp*cp = 24",
                           "parallel.pp among 1, 2, 4, 8, 16 (the divisors of the 128 GPUs left by the other degrees"])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.cp=5"], [SCENARIO + " (--set): key 'parallel.cp'"],
                          ["parallel.cp among 1, 2, 4, 8, 16, 32 ("])
        self.assert_fails(["estimate", SCENARIO, "--set", "parallel.stage_layers.0=6"],
                          [SCENARIO + " (--set): key 'parallel.stage_layers.0'"],
                          ["the file has no parallel.stage_layers list to index", "give the whole list"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
