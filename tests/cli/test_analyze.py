#!/usr/bin/python3
"""End-to-end tests of `sextant analyze` and `sextant trace synth`.

Questions: does --compat hta --csv DIR write HTA's file names and column names (so the two can be
compared file by file); are the numbers HTA's on a bundled trace; does an unreadable file give an
error naming the file and the byte offset; does a synthetic job with an injected straggler show
that rank first in the straggler table? Do collectives without Seq pair the same ProfilerStep when
the ranks' windows are shifted, is a rank that skipped a collective named (and only on pairings and
clocks that can tell), does a what-if that scales waiting communication say so?
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


def write_allreduce_job(d, compute_us, steps=None, seq=True, skip=(), world_sizes=None, profiler_steps=True, clock_us=None):
    """A Kineto job on one clock, one all-reduce per ProfilerStep: in step s rank r computes
    compute_us[s][r] us, then runs the all-reduce, which ends 500 us after the last rank's compute.
    steps[r]: the step numbers rank r's trace holds (default: all); skip: (rank, step) pairs whose
    all-reduce the rank did not run; seq: the kernels carry Seq; world_sizes[r]: its world_size;
    profiler_steps: the ProfilerStep#N ranges are written; clock_us[r]: how far rank r's clock runs
    ahead (added to its timestamps)."""
    n = len(compute_us[0])
    ev = {r: [] for r in range(n)}
    t = 100000
    for s, comp in enumerate(compute_us):
        end = t + 30 + max(comp) + 500
        for r in range(n):
            if steps is not None and s not in steps[r]:
                continue

            def x(cat, name, ts, dur, tid=1, **args):
                ts += clock_us[r] if clock_us else 0
                ev[r].append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": args})
            if profiler_steps:
                x("user_annotation", f"ProfilerStep#{s}", t, end + 10 - t)
            x("cpu_op", "aten::mm", t + 10, 30)
            x("cuda_runtime", "cudaLaunchKernel", t + 15, 10, correlation=3 * s + 1)
            x("kernel", "sm90_xmma_gemm_f32f32_tn", t + 30, comp[r], tid=7, stream=7, correlation=3 * s + 1)
            if (r, s) not in skip:
                a = {"stream": 7, "correlation": 3 * s + 2, "Collective name": "allreduce", "In msg nelems": 1048576,
                     "Out msg nelems": 1048576, "dtype": "Float", "Group size": n, "Process Group Name": "0"}
                if seq:
                    a["Seq"] = s
                x("cuda_runtime", "cudaLaunchKernel", t + 50, 10, correlation=3 * s + 2)
                x("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", t + 30 + comp[r], end - (t + 30 + comp[r]), tid=7, **a)
            x("cuda_runtime", "cudaStreamSynchronize", t + 100, end + 5 - (t + 100), correlation=3 * s + 3)
        t = end + 50
    for r in range(n):
        w = world_sizes[r] if world_sizes else n
        with open(os.path.join(d, f"rank-{r}.json"), "w") as f:
            json.dump({"traceEvents": ev[r], "distributedInfo": {"backend": "nccl", "rank": r, "world_size": w}}, f)


def diagnostics(doc):
    """The diagnostics table of a JSON result as {name: (severity, count, example)}."""
    c = doc["tables"]["diagnostics"]["columns"]
    return {n: (s, k, e) for n, s, k, e in zip(c["name"], c["severity"], c["count"], c["example"])}


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

    def test_load_summary_counts_htas_rows(self):
        """Under --compat hta the load summary counts HTA's load_facts rows: rows after load, and
        GPU rows as HTA's stream != -1, cuda_sync waits included (they had been left out)."""
        refdir = os.path.join(DATA, "hta", "hta-reference")
        checked = 0
        for group, name in [("critical_path/cuda_event_sync", "event_sync_trace"), ("timeline_analysis", "sampled_rank-0"),
                            ("amd_trace", "mi250_minitoy_train_ROCm6_2_kineto"), ("triton_example", "triton_example")]:
            ref = read_csv(os.path.join(refdir, group.replace("/", "__") + "__" + name, "load_facts.csv"))[0]
            out = json.loads(run("analyze", os.path.join(DATA, "hta", group, name + ".json.gz"), "--compat", "hta",
                                 "--only", "iterations", "--json", "-", "--quiet").stdout)
            ls = out["tables"]["load_summary"]["columns"]
            self.assertEqual(ls["rows_after_load"][0], int(ref["rows_after_load"]), name)
            self.assertEqual(ls["gpu_rows"][0], int(ref["gpu_rows(stream!=-1)"]), name)
            checked += 1
        self.assertEqual(checked, 4)

    def test_top_is_htas_num_kernels(self):
        """Question (review of 2026-12-05): does --top bound the named kernels of HTA's kernel
        breakdown (its num_kernels) under --compat hta? It had no effect there."""
        rows = {}
        for top in ("2", "10"):
            doc = json.loads(run("analyze", os.path.join(DATA, "param", "dlrm_8rank"), "--compat", "hta", "--only", "kernel_breakdown",
                                 "--top", top, "--json", "-").stdout)
            rows[top] = len(doc["tables"]["gpu_kernel_breakdown_by_kernel"]["columns"]["name"])
        self.assertLess(rows["2"], rows["10"], rows)

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
            # Every file of a job unreadable: the error names the others too, not the first alone.
            bad1 = os.path.join(d, "rank-1.json")
            with open(bad1, "w") as f:
                f.write('{"traceEvents": [')
            p = run("analyze", d, check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("and 1 other file could not be read: " + bad1, p.stderr)

    def test_a_simulated_timeline_is_refused_not_read_as_zeros(self):
        # simulate's --timeline is trace JSON of modelled spans by category: read as a profile it
        # gave one rank, no GPU rows and every table zero with exit 0 (review of 2026-12-05). With
        # --cache the refusal holds on the cached read too.
        scenario = os.path.join(ROOT, "data", "examples", "llama3-70b-h100.yaml")
        with tempfile.TemporaryDirectory() as d:
            tl = os.path.join(d, "timeline.json")
            run("simulate", scenario, "--timeline", tl, "-q")
            for extra in ([], ["--cache"], ["--cache"]):
                p = run("analyze", tl, *extra, check=False)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(tl, p.stderr)
                self.assertIn("sextant simulate --timeline", p.stderr)
                self.assertIn("Kineto", p.stderr)

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

    def test_the_wait_a_straggler_causes_is_the_others_wait(self):
        # Review of 2026-12-04: with two ranks the median start is their midpoint, and the wait rank 1
        # caused read half the 1,000 us per collective rank 0 waited; a start shared by every rank
        # made the lowest rank "last".
        def job(d, n, late_at):
            for r in range(n):
                ev = []
                for c in range(3):
                    base = c * 10000
                    st = base + (1100 if (r, c) in late_at else 100)
                    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % c, "pid": 1, "tid": 1, "ts": base,
                               "dur": 5000, "args": {}})
                    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": st - 10, "dur": 5,
                               "args": {"correlation": c + 1}})
                    ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 9,
                               "ts": st, "dur": base + 1200 - st,
                               "args": {"stream": 9, "correlation": c + 1, "Collective name": "allreduce", "In msg nelems": 1000000,
                                        "Out msg nelems": 1000000, "Group size": n, "dtype": "Float", "Process Group Name": "0",
                                        "Seq": c}})
                with open(os.path.join(d, f"rank-{r}.json"), "w") as f:
                    json.dump({"traceEvents": ev, "distributedInfo": {"rank": r, "world_size": n}}, f)
        with tempfile.TemporaryDirectory() as d:
            job(d, 2, {(1, 0), (1, 1), (1, 2)})
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-", "-q").stdout)
            st = doc["tables"]["stragglers"]["columns"]
            self.assertEqual((st["rank"][0], st["caused_wait_us"][0], st["last_arrivals_count"][0]), (1, 3000, 3))
            self.assertEqual(st["waited_for_others_us"][st["rank"].index(0)], 3000)
        with tempfile.TemporaryDirectory() as d:
            job(d, 4, {(3, 0)})
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-", "-q").stdout)
            st = doc["tables"]["stragglers"]["columns"]
            self.assertEqual(dict(zip(st["rank"], st["last_arrivals_count"])), {0: 0, 1: 0, 2: 0, 3: 1})
            self.assertEqual(doc["tables"]["collectives"]["columns"]["last_rank"], [3, -1, -1])

    def test_overlapping_and_repeated_steps_are_diagnostics(self):
        # Review of 2026-12-04: ProfilerSteps overlapping the next, or a step number twice, had
        # passed without a word (GPU work moves between the rows; one step gets two rows).
        def x(cat, name, ts, dur, **args):
            return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 7 if cat == "kernel" else 1, "ts": ts, "dur": dur,
                    "args": args}
        ev = [x("user_annotation", "ProfilerStep#1", 0, 200), x("user_annotation", "ProfilerStep#2", 100, 200),
              x("user_annotation", "ProfilerStep#2", 400, 100),
              x("cuda_runtime", "cudaLaunchKernel", 10, 5, correlation=1), x("kernel", "gemm", 20, 100, stream=7, correlation=1)]
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "t.json")
            with open(f, "w") as fh:
                json.dump({"traceEvents": ev}, fh)
            doc = json.loads(run("analyze", f, "--only", "iterations", "--json", "-", "-q").stdout)
            diags = dict(zip(doc["tables"]["diagnostics"]["columns"]["name"], doc["tables"]["diagnostics"]["columns"]["count"]))
            self.assertEqual(diags.get("iterations: ProfilerSteps overlapping the next one (GPU work launched in the overlap is placed "
                                       "in the later step)"), 1, diags)
            self.assertEqual(diags.get("iterations: ProfilerStep numbers seen more than once (each occurrence is a row of its own)"), 1,
                             diags)

    def test_pipeline_sends_are_not_matched_as_collectives(self):
        # Review of 2026-12-04: a 4-stage pipeline (SendRecv kernels with a Seq and a process group,
        # as PyTorch writes them) with perfect clocks and rank 2 late 500 us at every all-reduce.
        # The sends were matched as collectives: clock offsets of -750 and +625 us, and rank 3
        # named the straggler.
        with tempfile.TemporaryDirectory() as d:
            for r in range(4):
                ev, corr, seq = [], [0], {"p": 0, "c": 0}

                def kernel(name, ts, dur, coll, p2p):
                    corr[0] += 1
                    seq["p" if p2p else "c"] += 1
                    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts - 5,
                               "dur": 3, "args": {"correlation": corr[0]}})
                    ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 20, "ts": ts, "dur": dur,
                               "args": {"stream": 20, "correlation": corr[0], "Collective name": coll, "In msg nelems": 1000,
                                        "Out msg nelems": 1000, "dtype": "Float", "Group size": 4, "Process Group Name": "0",
                                        "Seq": seq["p" if p2p else "c"]}})
                for it in range(3):
                    t0 = 1700000000000000 + it * 20000
                    ev.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t0 + r * 1000, "dur": 900,
                               "args": {"stream": 7}})
                    sr = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
                    if r > 0:
                        kernel(sr, t0 + r * 1000 - 100, 100, "recv", True)
                    if r < 3:
                        kernel(sr, t0 + r * 1000 + 900, 100, "send", True)
                    start = t0 + 10000 + (500 if r == 2 else 0)
                    kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", start, t0 + 11000 - start,
                           "allreduce", False)
                with open(os.path.join(d, f"rank-{r}.json"), "w") as f:
                    json.dump({"traceEvents": ev, "distributedInfo": {"rank": r, "world_size": 4}}, f)
            doc = json.loads(run("analyze", d, "--only", "collectives,clock_skew", "--json", "-", "-q").stdout)
            self.assertEqual(doc["tables"]["clock_skew"]["columns"]["offset_us"], [0, 0, 0, 0])
            strag = doc["tables"]["stragglers"]["columns"]
            self.assertEqual((strag["rank"][0], strag["caused_wait_us"][0]), (2, 1500))
            diags = doc["tables"]["diagnostics"]["columns"]
            i = [k for k, n in enumerate(diags["name"]) if "point-to-point" in n]
            self.assertEqual(len(i), 1)
            self.assertEqual(diags["count"][i[0]], 18)

    def test_unequal_counts_of_unsequenced_collectives_are_warned(self):
        # Without Seq, collectives pair by their order on each rank: a rank whose profiler started
        # one collective later was paired off by one, silently (review of 2026-12-04). With every
        # kernel in a ProfilerStep they pair by (step, order in the step) since 2026-12-05: the
        # rank lacking step 0's all-reduce is named, and the later steps pair as they ran.
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            run("trace", "synth", "--out", src, "--ranks", "4", "--size-mb", "1", "--quiet")
            for steps in (True, False):
                dst = os.path.join(d, "steps" if steps else "nosteps")
                os.makedirs(dst)
                for r in range(4):
                    with open(os.path.join(src, f"rank-{r}.json")) as f:
                        doc = json.load(f)
                    out, dropped = [], False
                    for e in doc["traceEvents"]:
                        a = e.get("args", {})
                        a.pop("Seq", None)
                        a.pop("Process Group Name", None)
                        if r == 1 and not dropped and "ncclDevKernel" in e.get("name", ""):
                            dropped = True
                            continue
                        if not steps and e.get("name", "").startswith("ProfilerStep#"):
                            continue
                        out.append(e)
                    doc["traceEvents"] = out
                    with open(os.path.join(dst, f"rank-{r}.json"), "w") as f:
                        json.dump(doc, f)
                for extra in ([], ["--no-clock-sync"]):
                    res = json.loads(run("analyze", dst, "--only", "collectives", "--json", "-", "-q", *extra).stdout)
                    diags = res["tables"]["diagnostics"]["columns"]
                    names = diags["name"]
                    self.assertTrue(any("ran different counts" in n for n in names), names)
                    self.assertEqual(any("do not overlap in time" in n for n in names), bool(extra) and not steps, (steps, names))
                    if steps:
                        i = [k for k, n in enumerate(names) if "did not run a collective" in n]
                        self.assertEqual(len(i), 1, names)
                        self.assertEqual(diags["example"][i[0]], "rank 1 did not run AllReduce sequence 0 that 3 of its 4 group members ran")

    def test_a_window_shifted_by_a_step_pairs_the_same_iterations(self):
        # Review of 2026-12-05: without Seq, rank 1 holding ProfilerStep#1-3 and the others #0-2
        # (one clock; rank 2 computes 6 ms in step 0, everyone else 1 ms) were paired by their order
        # in the trace: rank 1 read a clock offset of one step period (1580 us) and was named a
        # straggler tied with rank 2, without a word.
        compute = [[1000, 1000, 6000, 1000]] + [[1000] * 4] * 3
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, compute, steps=[{0, 1, 2}, {1, 2, 3}, {0, 1, 2}, {0, 1, 2}], seq=False)
            doc = json.loads(run("analyze", d, "--only", "collectives,clock_skew", "--json", "-", "-q").stdout)
            self.assertEqual(doc["tables"]["clock_skew"]["columns"]["offset_us"], [0, 0, 0, 0])
            st = doc["tables"]["stragglers"]["columns"]
            self.assertEqual(dict(zip(st["rank"], st["caused_wait_us"])), {0: 0, 1: 0, 2: 5000, 3: 0})
            c = doc["tables"]["collectives"]["columns"]
            self.assertEqual(c["ranks_count"], [3, 4, 4])  # step 3 is rank 1's alone: unmatched
            self.assertEqual(doc["scalars"]["collectives_unmatched_count"], 1)
            diags = diagnostics(doc)
            partial = [v for k, v in diags.items() if "some steps are in only some ranks' traces" in k]
            self.assertEqual(partial, [("info", 2, "process group 0, AllReduce in ProfilerStep#0: run by ranks 0, 2, 3; not in the "
                                        "trace of rank 1")])
            self.assertFalse([k for k in diags if "did not run" in k], diags)  # rank 1's trace does not cover step 0
        # Where a kernel lies in no step (rank 1's last step unannotated), the order pairs different
        # steps: said, naming the ranks and the steps.
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, compute, steps=[{0, 1, 2}, {1, 2, 3}, {0, 1, 2}, {0, 1, 2}], seq=False)
            with open(os.path.join(d, "rank-1.json")) as f:
                r1 = json.load(f)
            r1["traceEvents"] = [e for e in r1["traceEvents"] if e["name"] != "ProfilerStep#3"]
            with open(os.path.join(d, "rank-1.json"), "w") as f:
                json.dump(r1, f)
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-", "-q").stdout)
            cross = [v for k, v in diagnostics(doc).items() if "pairs kernels of different ProfilerStep numbers" in k]
            self.assertEqual(cross, [("warning", 2, "process group 0, AllReduce sequence 0: ranks 0, 2, 3 in ProfilerStep#0; "
                                      "rank 1 in ProfilerStep#1")])

    def test_a_rank_that_skipped_a_collective_is_a_desync(self):
        # Review of 2026-12-05: rank 2 did not run the all-reduce Seq 1 that ranks 0, 1 and 3 ran
        # (Group size 4, all four traces loaded): no word, and the others' wait read as a bus
        # bandwidth. Where rank 2's trace does not hold that step it is not blamed.
        compute = [[1000] * 4] * 3
        for steps, blamed in ((None, True), ([{0, 1, 2}, {0, 1, 2}, {0}, {0, 1, 2}], False)):
            with tempfile.TemporaryDirectory() as d:
                write_allreduce_job(d, compute, steps=steps, skip={(2, 1)})
                doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-", "-q").stdout)
                c = doc["tables"]["collectives"]["columns"]
                self.assertEqual(c["ranks_count"], [4, 3, 3] if steps else [4, 3, 4])
                desync = [v for k, v in diagnostics(doc).items() if "did not run a collective" in k]
                if blamed:
                    self.assertEqual(desync, [("warning", 1, "rank 2 did not run AllReduce sequence 1 of process group 0 that 3 of its 4 "
                                               "group members ran")])
                    self.assertIsNone(c["bus_bandwidth_bytes_per_s"][1])
                else:
                    self.assertEqual(desync, [])
                    self.assertIsNotNone(c["bus_bandwidth_bytes_per_s"][1])

    def test_a_rank_whose_trace_starts_a_step_later_is_no_desync_where_order_pairs_them(self):
        # Review of 2026-12-05: without Seq or ProfilerSteps, collectives pair by their order on each
        # rank; rank 1's trace lacks step 0, so it ran 2 all-reduces to the others' 3 (a warning),
        # and rank 1 was also said not to have run sequence 2 (step 2's, which it ran as its second)
        # and that row lost its bus bandwidth. That pairing is off: no desync is judged on it.
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, [[1000] * 4] * 3, steps=[{0, 1, 2}, {1, 2}, {0, 1, 2}, {0, 1, 2}], seq=False, profiler_steps=False)
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-", "-q").stdout)
            diags = diagnostics(doc)
            unequal = [v for k, v in diags.items() if "ran different counts of them" in k]
            self.assertEqual(unequal, [("warning", 1, "process group 0, AllReduce: rank 1 ran 2, rank 0 3")])
            self.assertFalse([k for k in diags if "did not run a collective" in k], diags)
            c = doc["tables"]["collectives"]["columns"]
            self.assertEqual(c["ranks_count"], [4, 4, 3])
            self.assertNotIn(None, c["bus_bandwidth_bytes_per_s"])

    def test_a_rank_is_said_to_span_a_collective_on_the_corrected_clock(self):
        # Review of 2026-12-05: with Seq and no ProfilerSteps a rank's trace covers a collective it
        # did not run where its time span holds it. Rank 3's clock runs 2 ms ahead and its profile
        # ends a step early: on its raw clock it spanned step 2's all-reduce and was blamed for it
        # though clock_skew put its offset at 2000 us. On the corrected clock it is not; a rank that
        # skipped a collective inside its span still is.
        for steps, skip, desync in (([{0, 1, 2}] * 3 + [{0, 1}], (), []),
                                    (None, {(3, 1)}, [("warning", 1, "rank 3 did not run AllReduce sequence 1 of process group 0 "
                                                                 "that 3 of its 4 group members ran")])):
            with tempfile.TemporaryDirectory() as d:
                write_allreduce_job(d, [[1000] * 4] * 3, steps=steps, skip=skip, profiler_steps=False, clock_us=[0, 0, 0, 2000])
                doc = json.loads(run("analyze", d, "--only", "collectives,clock_skew", "--json", "-", "-q").stdout)
                self.assertEqual(doc["tables"]["clock_skew"]["columns"]["offset_us"], [0, 0, 0, 2000])
                self.assertEqual([v for k, v in diagnostics(doc).items() if "did not run a collective" in k], desync)
                c = doc["tables"]["collectives"]["columns"]
                self.assertEqual(c["ranks_count"], [4, 4, 3] if steps else [4, 3, 4])
                self.assertEqual([b is None for b in c["bus_bandwidth_bytes_per_s"]], [False, bool(desync), False])

    def test_whatif_says_when_scaled_communication_was_waiting(self):
        # Review of 2026-12-05: ranks 0, 2 and 3 wait 5 ms a step for rank 1 at the all-reduce;
        # comm=0.5 predicted them 42% faster, though rank 1 bounds the step, without a word.
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, [[1000, 6000, 1000, 1000]] * 3)
            for scale, noted in (("comm=0.5", True), ("kernel:allreduce=0.5", True), ("compute=0.5", False)):
                doc = json.loads(run("analyze", d, "--only", "whatif", "--scale", scale, "--json", "-", "-q").stdout)
                notes = [n for n in doc["notes"] if "waiting for other ranks" in n]
                if not noted:
                    self.assertEqual(notes, [], scale)
                    continue
                self.assertEqual(len(notes), 1, (scale, doc["notes"]))
                # 5,000 of each step's 5,500 us of all-reduce is the wait for rank 1.
                self.assertIn(": rank 0 90.9%, rank 2 90.9%, rank 3 90.9%.", notes[0])
                self.assertIn("predicted_us is a lower bound on the step, which the rank waited for (rank 1) bounds", notes[0])
            # Review of 2026-12-07: slower communication stretches the wait, and the replay then
            # overstates the step, not a lower bound.
            doc = json.loads(run("analyze", d, "--only", "whatif", "--scale", "comm=2", "--json", "-", "-q").stdout)
            notes = [n for n in doc["notes"] if "waiting for other ranks" in n]
            self.assertEqual(len(notes), 1, doc["notes"])
            self.assertIn("predicted_us overstates the step (an upper estimate; the rank waited for (rank 1) sets", notes[0])
            self.assertNotIn("lower bound", notes[0])

    def test_the_critical_path_says_when_its_communication_was_waiting(self):
        # Review of 2026-12-05: the paths of ranks 0, 2 and 3 read 84% "communication" that is
        # rank 1's compute, documented only. With every rank equal there is nothing to say.
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, [[1000, 6000, 1000, 1000]] * 3)
            doc = json.loads(run("analyze", d, "--only", "critical_path", "--json", "-", "-q").stdout)
            notes = [n for n in doc["notes"] if n.startswith("critical_path:") and "waiting for other ranks" in n]
            self.assertEqual(len(notes), 1, doc["notes"])
            self.assertIn(": rank 0 90.9%, rank 2 90.9%, rank 3 90.9%.", notes[0])
            self.assertIn("what they waited for is the work of rank 1", notes[0])
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, [[1000, 1000, 1000, 1000]] * 3)
            doc = json.loads(run("analyze", d, "--only", "critical_path", "--json", "-", "-q").stdout)
            self.assertFalse(any("waiting for other ranks" in n for n in doc["notes"]), doc["notes"])

    def test_different_world_sizes_name_the_files(self):
        # Review of 2026-12-05: the warning had an empty example. Since 2026-12-07 (review) world
        # sizes that disagree are decisive: the collectives are not matched.
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, [[1000, 1000]], world_sizes=[2, 4])
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-", "-q").stdout)
            sev, _, example = diagnostics(doc)["ranks from different jobs: the traces state different world sizes; cross-rank analyses skipped"]
            self.assertEqual((sev, example), ("warning", f"world_size 2 in {d}/rank-0.json; world_size 4 in {d}/rank-1.json"))
            self.assertNotIn("collectives", doc["tables"])

    def test_ranks_of_different_jobs_get_no_cross_rank_analyses(self):
        # Review of 2026-12-07: two jobs' rank files in one directory, flagged by the loader, still
        # got a clock offset of 372 days, collectives paired across the jobs with a bus bandwidth, a
        # straggler, exposed-communication findings of "waiting for the last rank" and a
        # critical-path note of waiting for other ranks. Here a job whose rank 1 arrives 5 ms late at
        # each all-reduce, then the same ranks as two jobs: rank 1's clock 2 days on, or the world
        # sizes disagreeing. Different GPU models alone stay one job.
        cross = ("clock_skew", "collectives", "collective_arrivals", "stragglers")
        skipped = ("cross-rank analyses skipped, the ranks are not one job: clock_skew, collectives and stragglers; "
                   "findings without straggler and collective-wait parts; critical_path and whatif without notes on "
                   "waits for other ranks (the per-rank analyses ran)")
        per_rank = ("temporal_breakdown", "gpu_kernel_breakdown_by_kernel", "idle_time_breakdown", "queue_length_summary")

        def analyze(d):
            return json.loads(run("analyze", d, "--json", "-", "-q").stdout)

        def waits(doc):
            ev = doc["tables"]["findings"]["columns"]["evidence"]
            return (sum("waiting for the last rank" in e for e in ev) + doc["tables"]["findings"]["columns"]["rule"].count("straggler"),
                    sum("waiting for other ranks" in n for n in doc["notes"]))

        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, [[1000, 6000]] * 3)
            one = analyze(d)
            for t in cross:
                self.assertIn(t, one["tables"])
            self.assertNotIn(skipped, diagnostics(one))
            self.assertGreater(waits(one)[0], 0)
            self.assertGreater(waits(one)[1], 0)
        for how, kw, why in (("far", {"clock_us": [0, 2 * 86400 * 10 ** 6]}, "their traces are more than an hour apart in time"),
                             ("worlds", {"world_sizes": [2, 8]}, "they state different world sizes")):
            with self.subTest(how=how), tempfile.TemporaryDirectory() as d:
                write_allreduce_job(d, [[1000, 6000]] * 3, **kw)
                two = analyze(d)
                for t in cross:
                    self.assertNotIn(t, two["tables"])
                self.assertEqual(waits(two), (0, 0))
                sev, count, example = diagnostics(two)[skipped]
                self.assertEqual((sev, count), ("warning", 1))
                self.assertEqual(example, why + ": analyse each job on its own (its rank files in a directory of their own, "
                                                "or named as the inputs)")
                # The per-rank analyses ran, with what they read as one job.
                for t in per_rank:
                    self.assertEqual(two["tables"][t], one["tables"][t], t)
                # Each rank on its own (as the example says) has its tables as before.
                for r in range(2):
                    alone = json.loads(run("analyze", os.path.join(d, f"rank-{r}.json"), "--json", "-", "-q").stdout)
                    self.assertNotIn(skipped, diagnostics(alone))
        with tempfile.TemporaryDirectory() as d:
            write_allreduce_job(d, [[1000, 6000]] * 3)
            for r, gpu in enumerate(("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe")):
                path = os.path.join(d, f"rank-{r}.json")
                with open(path) as f:
                    doc = json.load(f)
                doc["deviceProperties"] = [{"id": 0, "name": gpu}]
                with open(path, "w") as f:
                    json.dump(doc, f)
            mixed = analyze(d)
            self.assertIn("ranks from different jobs? the traces name different GPU models (not decisive alone: cross-rank "
                          "analyses still run)", diagnostics(mixed))
            self.assertNotIn(skipped, diagnostics(mixed))
            for t in cross:
                self.assertEqual(mixed["tables"][t], one["tables"][t], t)

    def test_synth_traces_sit_below_the_roof_of_the_part_they_name(self):
        # "NVIDIA H100 80GB HBM3" is an H100 SXM (it tied the PCIe entry); the synthetic GEMMs
        # carry their dtype and run at 60% of its bf16 peak (they read 17.9x the fp32 roof);
        # a GELU runs under aten::gelu; stale rank files and out-of-range options are refused.
        with tempfile.TemporaryDirectory() as d:
            run("trace", "synth", "--out", d, "--ranks", "2", "--steps", "3", "--layers", "9", "--quiet")
            doc = json.loads(run("analyze", d, "--only", "workload", "--json", "-").stdout)
            self.assertEqual(doc["scalars"]["workload_device"], "h100-sxm-80gb")
            roof = doc["tables"]["roofline"]["columns"]
            mm = [i for i, op in enumerate(roof["op"]) if op == "aten::mm"]
            self.assertTrue(mm)
            for i in mm:
                self.assertEqual(roof["dtype"][i], "bf16")
                self.assertLess(roof["roofline_fraction"][i], 1.0)
            self.assertNotIn("above the device roof", " ".join(doc["notes"]))
            p = run("trace", "synth", "--out", d, "--ranks", "1", "--steps", "3", "--quiet", check=False)
            self.assertEqual(p.returncode, 2)
            self.assertIn("rank files this run would not replace (rank-1.json)", p.stderr)
            for opt, v in (("--clock-skew-us", "1e20"), ("--allreduce-bytes", "1e30"), ("--straggler-delay-us", "1e20"), ("--ranks", "3000000000"),
                           ("--straggler", "4294967296")):
                p = run("trace", "synth", "--out", os.path.join(d, "x"), opt, v, "--quiet", check=False)
                self.assertEqual(p.returncode, 2, opt)
                self.assertIn(opt, p.stderr)

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
            # On the job's clock, as the collectives align ranks (review of 2026-12-02): a
            # baseTimeNanoseconds two days earlier brings the moved rank back, a base 30 days later
            # on an unmoved rank takes it away.
            doc["baseTimeNanoseconds"] = 10 ** 18 - 2 * 86400 * 10 ** 9
            with open(path, "w") as f:
                json.dump(doc, f)
            with open(os.path.join(d, "rank-0.json")) as f:
                doc0 = json.load(f)
            doc0["baseTimeNanoseconds"] = 10 ** 18
            with open(os.path.join(d, "rank-0.json"), "w") as f:
                json.dump(doc0, f)
            p = run("analyze", d, "--json", "-")
            self.assertNotIn("different jobs", p.stdout)
            doc["baseTimeNanoseconds"] = 10 ** 18 + 30 * 86400 * 10 ** 9
            with open(path, "w") as f:
                json.dump(doc, f)
            self.assertIn("different jobs", run("analyze", d, "--json", "-").stdout)

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
            # Without distributedInfo the world size is unknown: null, not a world of 0 ranks.
            self.assertEqual(facts["world_size_ranks_count"], [None, None, None])
            diag = doc["tables"]["diagnostics"]["columns"]["name"]
            self.assertIn("rank not stated: numbered in file-name order after the stated ranks", diag)
            # The files' provisional "rank 0 assumed" is withdrawn (both had been reported).
            self.assertFalse([n for n in diag if "rank 0 assumed" in n], diag)
            self.assertIn("text after the top-level JSON value: ignored", diag)
            # Other compressions are named, not a JSON syntax error at byte 0 (review of 2026-12-03).
            bz = os.path.join(d, "x.json.bz2")
            with open(bz, "wb") as f:
                f.write(b"BZh91AY&SY")
            p = run("analyze", bz, check=False)
            self.assertEqual(p.returncode, 2)
            self.assertIn("compressed as bzip2", p.stderr)
            self.assertEqual(len(doc["tables"]["stragglers"]["columns"]["rank"]), 3)

    def test_recorded_stream_waits_are_the_cross_stream_dependencies(self):
        """A consumer on stream 24 waits (a recorded cuda_sync Stream Wait Event) for the CUDA event
        recorded after a 1,000 us producer on stream 20; an unrelated NCCL kernel on stream 30 ends
        3 us before the consumer starts. The critical path runs through the producer, and halving
        it moves the step; the inferred dependency ("the latest kernel on another stream that
        ended just before") took the NCCL kernel, and the producer's what-if changed nothing
        (before 2026-12-02). Without the recorded wait the inference still applies."""
        def ev(cat, name, ts, dur, tid, **args):
            e = {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "pid": 0 if cat in ("kernel", "cuda_sync") else 1,
                 "tid": tid}
            if args:
                e["args"] = args
            return e
        events = [ev("user_annotation", "ProfilerStep#1", 0, 1400, 1),
                  ev("cuda_runtime", "cudaLaunchKernel", 200, 4, 1, correlation=1),
                  ev("kernel", "producer_gemm", 206, 1000, 20, stream=20, correlation=1, device=0),
                  ev("cuda_runtime", "cudaEventRecord", 205, 2, 1, correlation=2),
                  ev("cuda_runtime", "cudaStreamWaitEvent", 208, 2, 1, correlation=3),
                  ev("cuda_sync", "Stream Wait Event", 209, 1, 24, correlation=3, stream=24, wait_on_stream=20,
                     wait_on_cuda_event_record_corr_id=2, device=0),
                  ev("cuda_runtime", "cudaLaunchKernel", 211, 4, 1, correlation=4),
                  ev("kernel", "consumer", 1212, 100, 24, stream=24, correlation=4, device=0),
                  ev("cuda_runtime", "cudaLaunchKernel", 216, 4, 1, correlation=5),
                  ev("kernel", "ncclDevKernel_AllReduce_RING_LL(x)", 1100, 109, 30, stream=30, correlation=5, device=0),
                  ev("cuda_runtime", "cudaDeviceSynchronize", 221, 1093, 1, correlation=6),
                  # Queued on the waiting stream before the wait, run by the lagging GPU after the
                  # wait's (host-time) timestamp: not a consumer of the wait. Matching the wait by
                  # GPU start time gave it the dependency (and the replay a 6% error).
                  ev("cuda_runtime", "cudaLaunchKernel", 190, 4, 1, correlation=0),
                  ev("kernel", "early", 300, 50, 24, stream=24, correlation=0, device=0)]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rank-0.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": events}, f)
            doc = json.loads(run("analyze", path, "--only", "critical_path", "--only", "whatif",
                                 "--scale", "kernel:producer.*=0.5", "--json", "-").stdout)
            path_events = doc["tables"]["critical_path"]["columns"]["longest_event"]
            self.assertIn("producer_gemm", path_events)
            self.assertIn("consumer", path_events)
            self.assertNotIn("ncclDevKernel_AllReduce_RING_LL(x)", path_events)
            change = doc["tables"]["whatif"]["columns"]["predicted_change_fraction"][0]
            self.assertLess(change, -0.05)
            self.assertEqual(doc["tables"]["whatif"]["columns"]["replay_error_fraction"][0], 0)
            self.assertFalse(any("cycle" in n for n in doc["tables"]["diagnostics"]["columns"]["name"]))
            # The same trace without the recorded wait: the dependency is inferred, the NCCL kernel.
            with open(path, "w") as f:
                json.dump({"traceEvents": [e for e in events if e["cat"] != "cuda_sync"]}, f)
            doc = json.loads(run("analyze", path, "--only", "critical_path", "--json", "-").stdout)
            self.assertIn("ncclDevKernel_AllReduce_RING_LL(x)", doc["tables"]["critical_path"]["columns"]["longest_event"])

    def test_a_recorded_wait_that_did_not_bind_binds_when_the_stream_speeds_up(self):
        """C on stream 7 waits for P (300 us, stream 20) but is held back by A (400 us) on its own
        stream. Shortening A to 100 us makes the recorded wait bind: C starts at P's end (310),
        the step ends at 415. The non-binding wait was dropped before the session-21 review (310)."""
        k = lambda name, ts, dur, stream, corr: {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts,
                                                  "dur": dur, "args": {"correlation": corr, "stream": stream, "device": 0}}
        rt = lambda name, ts, dur, corr: {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts,
                                           "dur": dur, "args": {"correlation": corr}}
        events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 0, "dur": 510},
                  rt("cudaLaunchKernel", 0, 3, 100), k("A", 5, 400, 7, 100),
                  rt("cudaLaunchKernel", 5, 3, 101), k("P", 10, 300, 20, 101),
                  rt("cudaEventRecord", 10, 1, 102), rt("cudaStreamWaitEvent", 12, 1, 103),
                  {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 12, "dur": 0,
                   "args": {"cuda_sync_kind": "Stream Wait Event", "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 102,
                            "stream": 7, "correlation": 103, "device": 0}},
                  rt("cudaLaunchKernel", 14, 3, 104), k("C", 405, 100, 7, 104),
                  rt("cudaDeviceSynchronize", 20, 486, 105)]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rank-0.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": events}, f)
            w = json.loads(run("analyze", path, "--only", "whatif", "--scale", "kernel:^A$=0.25", "--json", "-").stdout)
            # --only takes a comma-separated list as well as repeats.
            both = json.loads(run("analyze", path, "--only", "critical_path,whatif", "--json", "-").stdout)
            self.assertIn("critical_path_summary", both["tables"])
            self.assertIn("whatif", both["tables"])
            self.assertNotIn("temporal_breakdown", both["tables"])
        cols = w["tables"]["whatif"]["columns"]
        self.assertEqual(cols["replay_error_fraction"][0], 0)
        self.assertEqual(cols["predicted_us"][0], 415)

    def test_gpu_work_of_another_thread_is_named_by_user_annotations(self):
        """The autograd thread launches the backward's kernels: a `## backward ##` range on the main
        thread holds none of them. A warning gives the share (silent before 2026-12-02)."""
        ev = []
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 1000, "pid": 1, "tid": 1})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "## backward ##", "ts": 100, "dur": 800, "pid": 1, "tid": 1})
        for i in range(4):
            tid = 1 if i == 0 else 2  # one forward kernel from the main thread, three from autograd
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10 + 200 * i, "dur": 5, "pid": 1,
                       "tid": tid, "args": {"correlation": 10 + i}})
            ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "ts": 20 + 200 * i, "dur": 100, "pid": 0, "tid": 7,
                       "args": {"stream": 7, "correlation": 10 + i, "device": 0}})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rank-0.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": ev}, f)
            doc = json.loads(run("analyze", path, "--only", "user_annotations", "--json", "-").stdout)
        diag = doc["tables"]["diagnostics"]["columns"]
        hit = [i for i, n in enumerate(diag["name"]) if n.startswith("user_annotations: GPU work launched from threads other")]
        self.assertEqual(len(hit), 1, diag["name"])
        self.assertEqual(diag["example"][hit[0]], "rank 0: 3 GPU events, 75.0% of the launched GPU time")

    def test_gpu_side_step_range_is_not_a_second_iteration(self):
        # ROCm/PyTorch traces carry each ProfilerStep#N twice: the CPU range and its GPU-side copy
        # (gpu_user_annotation). The copy counted as a second step 1 and took half its kernels.
        p = run("analyze", os.path.join(DATA, "hta", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
                "--only", "iterations", "--json", "-")
        it = json.loads(p.stdout)["tables"]["iterations"]["columns"]
        self.assertEqual(it["step"].count(1), 1, it["step"])
        self.assertEqual(it["gpu_events_count"][it["step"].index(1)], 16)

    def write_trace(self, d, name, ev):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            json.dump({"traceEvents": ev}, f)
        return path

    def test_kernel_breakdown_rows_keep_their_launches_statistics(self):
        """More kernel names than --num-kernels fold the tail into 'others'; the named rows kept
        HTA's statistics over totals outside --compat hta (max = min = mean = the sum)."""
        ev = []
        t = 0
        for k in range(12):  # 12 names, k0 with three launches of 30, 40 and 50 us
            durs = [30, 40, 50] if k == 0 else [10 - k // 2]
            for dur in durs:
                ev.append({"ph": "X", "cat": "kernel", "name": f"k{k}", "ts": t, "dur": dur, "pid": 0, "tid": 7,
                           "args": {"stream": 7, "device": 0}})
                t += 100
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "rank-0.json", ev)
            kb = json.loads(run("analyze", path, "--only", "kernel_breakdown", "--json", "-").stdout)
        c = kb["tables"]["gpu_kernel_breakdown_by_kernel"]["columns"]
        names = c[next(k for k in c if k.startswith("name") or k == "kernel_name")]
        i = names.index("k0")
        row = {k: v[i] for k, v in c.items()}
        vals = sorted(v for k, v in row.items() if isinstance(v, (int, float)) and k != "rank")
        self.assertIn(120, vals, row)  # sum
        self.assertIn(50, vals, row)   # max
        self.assertIn(30, vals, row)   # min
        self.assertIn(40, vals, row)   # mean
        self.assertIn("others", names)

    def test_send_recv_bus_bandwidth_is_its_algorithm_bandwidth(self):
        """nccl-tests' sendrecv_perf prints busbw = algbw; (n-1)/n had halved it on two ranks."""
        with tempfile.TemporaryDirectory() as d:
            for r in range(2):
                ev = [{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
                       "ts": 1000, "dur": 1000, "pid": 0, "tid": 7,
                       "args": {"stream": 7, "device": r, "correlation": 5, "Collective name": "send",
                                "In msg nelems": 25000000, "Out msg nelems": 25000000, "Group size": 2,
                                "dtype": "Float", "Process Group Name": "0"}}]
                self.write_trace(d, f"rank-{r}.json", ev)
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-").stdout)
        c = doc["tables"]["collectives"]["columns"]
        bw = [v for k, v in c.items() if "bus" in k and "bandwidth" in k]
        self.assertTrue(bw and bw[0], c.keys())
        self.assertAlmostEqual(bw[0][0], 1e11, delta=1e9)

    def test_a_profiler_step_number_beyond_int64_is_not_a_step(self):
        ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#99999999999999999999", "ts": 0, "dur": 1000, "pid": 1, "tid": 1},
              {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 1000, "dur": 1000, "pid": 1, "tid": 1},
              {"ph": "X", "cat": "kernel", "name": "k", "ts": 1100, "dur": 100, "pid": 0, "tid": 7, "args": {"stream": 7, "device": 0}}]
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "rank-0.json", ev)
            p = run("analyze", path, "--json", "-")  # 'internal error: stoll' before
        it = json.loads(p.stdout)["tables"]["iterations"]["columns"]
        self.assertEqual(it["step"], [2])

    def test_diff_top_and_the_diagnostics_of_each_side(self):
        base = os.path.join(DATA, "hta", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz")
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            os.makedirs(a)
            os.makedirs(b)
            for r in range(2):
                os.symlink(base, os.path.join(a, f"rank-{r}.json.gz"))
            os.symlink(base, os.path.join(b, "rank-0.json.gz"))
            with open(os.path.join(b, "rank-1.json.gz"), "wb") as f:
                f.write(b"\x1f\x8b not gzip")
            for top, rows in (("3", 3), ("10", 10), ("11", 11)):
                doc = json.loads(run("analyze", "--diff", a, b, "--top", top, "--json", "-").stdout)
                self.assertLessEqual(len(doc["tables"]["diff_kernels"]["columns"]["name"]), rows)
            dg = doc["tables"]["diagnostics"]["columns"]
            self.assertIn("b", dg["side"])
            self.assertTrue(any("unreadable or corrupt" in n for n in dg["name"]), dg["name"])
            self.assertTrue(any("different numbers of ranks" in n for n in doc["notes"]), doc["notes"])

    def test_a_step_peak_counts_the_memory_it_starts_with(self):
        # 3,000 B allocated in step 1, freed to 1,000 in step 2: step 2 held 3,000 at its start (1,000 before)
        mem = lambda ts, alloc: {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                                 "args": {"Total Reserved": 4000, "Total Allocated": alloc, "Bytes": 1, "Addr": 1,
                                          "Device Id": 0, "Device Type": 1}}
        ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
              {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
              # Step 3 has no sample of its own: it holds the 1,000 B carried in (it had no row
              # before 2026-12-03).
              {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 300, "dur": 100},
              mem(150, 3000), mem(250, 1000),
              {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 120, "dur": 10, "args": {"stream": 7}}]
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "rank-0.json", ev)
            doc = json.loads(run("analyze", path, "--only", "memory_timeline", "--json", "-").stdout)
        it = doc["tables"]["memory_per_iteration"]["columns"]
        self.assertEqual(dict(zip(it["step"], it["peak_allocated_bytes"])), {1: 3000, 2: 3000, 3: 1000})

    def test_hta_queue_length_counts_a_launch_once_per_gpu_event_of_its_correlation(self):
        """Question (review of 2026-12-03): with two kernels on one correlation, does --compat hta
        count the launch twice as HTA's join of calls and kernels does? One +1 for two -1s made the
        queue negative (min -1, 11 change points where HTA has 12)."""
        ev = []
        for i in range(5):
            ev.append({"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 1, "tid": 1, "ts": 1000 + 100 * i, "dur": 5,
                       "args": {"correlation": i + 1}})
            ev.append({"ph": "X", "name": "k%d" % (i % 2), "cat": "kernel", "pid": 0, "tid": 7, "ts": 1010 + 100 * i, "dur": 20,
                       "args": {"stream": 7, "correlation": i + 1, "device": 0}})
        ev.append({"ph": "X", "name": "k0", "cat": "kernel", "pid": 0, "tid": 7, "ts": 1050, "dur": 10,
                   "args": {"stream": 7, "correlation": 1, "device": 0}})
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "rank-0.json", ev)
            doc = json.loads(run("analyze", path, "--compat", "hta", "--only", "queue_length", "--json", "-").stdout)
        q = doc["tables"]["queue_length_summary"]["columns"]
        self.assertEqual(q["queue_length_count"], [12])
        self.assertEqual(q["queue_length_min"], [0])

    def test_communication_on_one_gpu_is_not_hidden_by_computation_on_another(self):
        """Question (review of 2026-12-03): a process drives two GPUs, NCCL on device 0 and GEMMs on
        device 1 at the same times. Is device 0's communication exposed? It read 100% overlapped
        (the union of both devices' busy time); --compat hta keeps HTA's union."""
        nccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
        ev = []
        for i in range(5):
            for dev, name in ((0, nccl), (1, "gemm_kernel")):
                corr = 2 * i + dev + 1
                ev.append({"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 100, "tid": 100, "ts": 200 * i + dev,
                           "dur": 5, "args": {"correlation": corr}})
                ev.append({"ph": "X", "name": name, "cat": "kernel", "pid": dev, "tid": 7, "ts": 200 * i + 10, "dur": 100,
                           "args": {"stream": 7, "correlation": corr, "device": dev}})
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "rank-0.json", ev)
            doc = json.loads(run("analyze", path, "--only", "comm_comp_overlap", "--only", "temporal_breakdown", "--only", "kernel_breakdown",
                                 "--json", "-").stdout)
            hta = json.loads(run("analyze", path, "--compat", "hta", "--only", "comm_comp_overlap", "--json", "-").stdout)
        self.assertEqual(doc["tables"]["comm_comp_overlap"]["columns"]["comp_comm_overlap_percent"], [0])
        ex = doc["tables"]["exposed_time"]["columns"]
        self.assertEqual(ex["exposed_communication_us"], ex["communication_us"])
        self.assertTrue(any("several GPUs" in n for n in doc["tables"]["diagnostics"]["columns"]["name"]))
        kinds = doc["tables"]["gpu_kernel_breakdown_by_type"]["columns"]["kernel_type"]
        self.assertFalse(any("overlapping" in k for k in kinds), kinds)  # per device: no overlap of types
        self.assertEqual(hta["tables"]["comm_comp_overlap"]["columns"]["comp_comm_overlap_pctg"], [100])

    def test_a_cuda_graph_launch_is_one_launch_of_all_its_kernels(self):
        ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "ts": 0, "dur": 10, "pid": 1, "tid": 1,
               "args": {"correlation": 9}},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 20, "dur": 5, "pid": 1, "tid": 1,
               "args": {"correlation": 10}}]
        for i in range(3):  # the graph's three kernels, then the plain launch's
            ev.append({"ph": "X", "cat": "kernel", "name": f"g{i}", "ts": 100 + 50 * i, "dur": 40, "pid": 0, "tid": 7,
                       "args": {"stream": 7, "correlation": 9, "device": 0}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "ts": 300, "dur": 40, "pid": 0, "tid": 7,
                   "args": {"stream": 7, "correlation": 10, "device": 0}})
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "rank-0.json", ev)
            doc = json.loads(run("analyze", path, "--only", "launch_stats", "--only", "queue_length", "--json", "-").stdout)
        self.assertEqual(doc["tables"]["launch_summary"]["columns"]["launches_count"], [2])
        q = doc["tables"]["queue_length_summary"]["columns"]
        self.assertEqual(q["queue_length_max_count"], [4])  # the graph's three kernels and the plain launch queued before 100 us

    def test_skewed_or_repeated_events_leave_the_queue_and_collectives_sound(self):
        """Review of 2026-12-02: a kernel the trace starts before its launch (clock skew), a second
        kernel on one launch's correlation id, and a rank that ran one (group, op, sequence) twice
        had made the queue length -1 and matched the rank against itself (sync time -200 us, the
        rank its own straggler); each is now a counted diagnostic and the numbers stay sound."""
        def launch(ts, corr):
            return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts, "dur": 2, "pid": 1, "tid": 1,
                    "args": {"correlation": corr}}

        def kernel(name, ts, corr, **args):
            return {"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": 40, "pid": 0, "tid": 7,
                    "args": {"stream": 7, "correlation": corr, "device": 0, **args}}
        with tempfile.TemporaryDirectory() as d:
            ev = [launch(100, 1), kernel("early", 80, 1), launch(200, 2), kernel("a", 210, 2), kernel("b", 260, 2)]
            doc = json.loads(run("analyze", self.write_trace(d, "q.json", ev), "--only", "queue_length", "--json", "-").stdout)
            self.assertEqual(doc["tables"]["queue_length_summary"]["columns"]["queue_length_min_count"], [0])
            kinds = " | ".join(doc["tables"]["diagnostics"]["columns"]["name"])
            self.assertIn("starts at or before its launch", kinds)
            self.assertIn("beyond the first of one launch", kinds)
            nccl = dict(dtype="Float", **{"In msg nelems": 1000, "Out msg nelems": 1000, "Group size": 2,
                                          "Process Group Name": "0", "Collective name": "allreduce"})
            name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
            for rank, kernels in ((0, [(100, 1), (400, 1)]), (1, [(110, 1)])):
                ev = []
                for i, (ts, seq) in enumerate(kernels):
                    ev += [launch(ts - 5, i + 1), kernel(name, ts, i + 1, Seq=seq, **nccl)]
                with open(os.path.join(d, f"rank-{rank}.json"), "w") as f:
                    json.dump({"distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": ev}, f)
            os.remove(os.path.join(d, "q.json"))
            doc = json.loads(run("analyze", d, "--only", "collectives", "--json", "-").stdout)
        c = doc["tables"]["collectives"]["columns"]
        self.assertEqual(c["ranks_count"], [2])
        self.assertGreaterEqual(c["sync_duration_us"][0], 0)
        self.assertEqual(sorted(doc["tables"]["collective_arrivals"]["columns"]["rank"]), [0, 1])
        self.assertIn("repeats a (process group, operation, sequence)", " | ".join(doc["tables"]["diagnostics"]["columns"]["name"]))

    def test_hta_compat_rounds_epoch_timestamps_in_float64_as_hta(self):
        """HTA reads ts and dur as float64 and takes ceil(ts), floor(ts + dur) there. At epoch
        microseconds (1.69e15) a double's step is 0.25 us: 957.104 is 957.0, so the kernel starts
        at 957 (the exact decimal gives 958) and ends at floor(957.0 + 10.5) = 967 (2026-12-03
        review: 9,614 of 82,026 starts of a synthetic trace rounded otherwise)."""
        base = 1690000000000000
        kernel = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "args": {"stream": 7, "correlation": 1, "device": 0}}
        text = json.dumps({"traceEvents": [dict(kernel, ts=0, dur=0)]})
        # Written by hand: json.dumps would print the float, not the decimal a profiler writes.
        text = text.replace('"ts": 0, "dur": 0', f'"ts": {base + 957}.104, "dur": 10.5')
        self.assertIn("957.104", text)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "epoch.json")
            with open(path, "w") as f:
                f.write(text)
            hta = json.loads(run("analyze", path, "--compat", "hta", "--only", "temporal_breakdown", "--json", "-").stdout)
            exact = json.loads(run("analyze", path, "--only", "temporal_breakdown", "--json", "-").stdout)
        self.assertEqual(hta["tables"]["temporal_breakdown"]["columns"]["kernel_time(us)"], [10])
        self.assertAlmostEqual(exact["tables"]["temporal_breakdown"]["columns"]["gpu_span_us"][0], 10.5, places=6)

    def test_a_nameless_event_is_kept_and_counted(self):
        """An event without a string name is kept under the empty name, as HTA keeps it, and
        counted in the diagnostics (it was kept silently, 2026-12-03 review)."""
        ev = [{"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"stream": 7}},
              {"ph": "X", "cat": "kernel", "name": {"x": 1}, "pid": 0, "tid": 7, "ts": 20, "dur": 5, "args": {"stream": 7}}]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "noname.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": ev}, f)
            doc = json.loads(run("analyze", path, "--only", "temporal_breakdown", "--json", "-").stdout)
        diag = doc["tables"]["diagnostics"]["columns"]
        i = diag["name"].index("complete event without a string name (kept under the empty name)")
        self.assertEqual(diag["count"][i], 2)
        self.assertEqual(doc["tables"]["temporal_breakdown"]["columns"]["gpu_span_us"], [15.0])

    def test_odd_but_readable_files_are_read(self):
        """Review of 2026-12-02: a UTF-8 BOM, NaN / Infinity / inf as an arg value (Python's json,
        older Kineto's zero-duration memcpy bandwidth), zero padding after a gzip stream, and the
        same file named twice were refused or doubled; a multi-letter ph had become a complete
        event by its first letter; a [memory] sample without Total Allocated left a final level of -1."""
        import gzip
        kernel = {"ph": "X", "cat": "kernel", "name": "k", "ts": 100, "dur": 40, "pid": 0, "tid": 7,
                  "args": {"stream": 7, "correlation": 1, "device": 0, "blocks per SM": float("inf"), "est. occupancy %": float("nan")}}
        junk = dict(kernel, ph="Xjunk", name="phantom", ts=300, dur=400)
        mem = [{"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "ts": t, "pid": 1, "tid": 1, "s": "t",
                "args": {"Device Id": 0, "Bytes": 10, **({"Total Allocated": a, "Total Reserved": 9000} if a else {})}}
               for t, a in ((50, 5000), (60, 7000), (70, None))]
        text = json.dumps({"traceEvents": [kernel, junk] + mem})  # json.dumps writes Infinity and NaN
        with tempfile.TemporaryDirectory() as d:
            bom = os.path.join(d, "bom.json")
            with open(bom, "w", encoding="utf-8-sig") as f:
                f.write(text)
            padded = os.path.join(d, "pad.json.gz")
            with open(padded, "wb") as f:
                f.write(gzip.compress(text.encode()) + b"\0" * 512)
            for path in (bom, padded):
                doc = json.loads(run("analyze", path, path, "--only", "temporal_breakdown", "--only", "memory_timeline",
                                     "--json", "-").stdout)
                self.assertEqual(doc["scalars"]["ranks_count"], 1, path)  # named twice, one rank
                self.assertEqual(doc["tables"]["temporal_breakdown"]["columns"]["gpu_span_us"], [40.0], path)
                self.assertIn("ph of more than one character (not a trace-event phase)",
                              doc["tables"]["diagnostics"]["columns"]["name"])
                m = doc["tables"]["memory_summary"]["columns"]
                self.assertEqual((m["peak_allocated_bytes"], m["final_allocated_bytes"]), ([7000.0], [7000.0]))

    def test_one_process_driving_two_gpus_keeps_their_streams_apart(self):
        # Kernels of device 0 (pid 0) and device 1 (pid 1) on the same stream id 7: they were one
        # stream before 2026-12-02 (idle time 10 us of kernel_wait, and shrinking device 0's
        # kernels shortened device 1's chain in the what-if: 155 us where 200 is right).
        P = 4242
        ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": P, "tid": P, "ts": 1000, "dur": 200}]
        def launch(c, ts):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": P, "tid": P, "ts": ts, "dur": 2,
                       "args": {"correlation": c}})
        def kern(c, ts, dur, name, dev):
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": dev, "tid": "stream 7", "ts": ts, "dur": dur,
                       "args": {"correlation": c, "stream": 7, "device": dev}})
        launch(1, 1002); kern(1, 1010, 50, "a_dev0", 0)
        launch(2, 1005); kern(2, 1012, 100, "b_dev1", 1)
        launch(3, 1008); kern(3, 1100, 50, "a_dev0", 0)
        launch(4, 1011); kern(4, 1120, 47, "b_dev1", 1)
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": P, "tid": P, "ts": 1015, "dur": 152})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "two_gpus.json")
            json.dump({"traceEvents": ev}, open(path, "w"))
            j = json.loads(run("analyze", path, "--only", "idle_time,whatif", "--scale", "kernel:a_dev0=0.1", "--json", "-").stdout)
            idle = j["tables"]["idle_time_breakdown"]["columns"]
            per_stream = {}
            for st, us in zip(idle["stream"], idle["idle_time_us"]):
                per_stream[st] = per_stream.get(st, 0) + us
            self.assertEqual(per_stream, {7: 40, 1000007: 8})  # device 1's stream 7 is device x 1,000,000 + 7
            self.assertEqual(j["tables"]["whatif"]["columns"]["predicted_us"], [200])

    def test_gpu_streams_whose_tids_are_not_int64_integers_stay_apart(self):
        # Review of 2026-12-06: kernels without a stream arg on tids 7.5 and 8.5 (or 2^70 and 2^71,
        # 2^64 - 1 and 2^63) read as one stream "-2147483648" with no diagnostic; each is its own
        # stream, under a code, counted in "pid or tid not a 32-bit integer ...".
        P = 4242
        for a, b in (("7.5", "8.5"), ("1e20", "2e20"), ("1180591620717411303424", "2361183241434822606848"),
                     ("18446744073709551615", "9223372036854775808")):
            rows = ['{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": %d, "tid": %d, "ts": 1000, "dur": 300}' % (P, P)]
            for c, (ts, tid) in enumerate(((1010, a), (1012, b), (1100, a), (1120, b)), start=1):
                rows.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, "ts": %d, "dur": 2, '
                            '"args": {"correlation": %d}}' % (P, P, ts - 8, c))
                rows.append('{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": %s, "ts": %d, "dur": 50, "args": {"correlation": %d}}'
                            % (tid, ts, c))
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "streams.json")
                with open(path, "w") as f:
                    f.write('{"traceEvents": [' + ",\n".join(rows) + "]}")
                j = json.loads(run("analyze", path, "--only", "idle_time", "--json", "-").stdout)
                streams = set(j["tables"]["idle_time_breakdown"]["columns"]["stream"])
                self.assertEqual(len(streams), 2, (a, b, streams))
                self.assertNotIn(-2147483648, streams, (a, b))
                diags = diagnostics(j)
                coded = [v for k, v in diags.items() if k.startswith("pid or tid not a 32-bit integer")]
                self.assertEqual(len(coded), 1, (a, b, diags))
                self.assertEqual(coded[0][0], "info")
                self.assertEqual(coded[0][1], 4, (a, b))
                self.assertTrue(coded[0][2].startswith(a + " reads as "), coded[0])

    def test_a_rank_file_without_events_is_left_out_of_a_job(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(DATA, "param", "dlrm_8rank")
            first = sorted(f for f in os.listdir(src) if f.startswith("rank"))[0]
            with open(os.path.join(src, first), "rb") as a, open(os.path.join(d, first), "wb") as b:
                b.write(a.read())
            json.dump({"distributedInfo": {"rank": 7}, "traceEvents": []}, open(os.path.join(d, "rank-7.json"), "w"))
            p = run("analyze", d, "--only", "temporal_breakdown", "--json", "-")
            j = json.loads(p.stdout)
            self.assertTrue(any("file without usable events: skipped" in str(x) for x in json.dumps(j).split("\n")), p.stdout[-500:])
            # Two files read, one skipped, one rank (files_count counted the ranks before 2026-12-02).
            self.assertEqual((j["scalars"]["files_count"], j["scalars"]["skipped_files_count"], j["scalars"]["ranks_count"]), (2, 1, 1))
            # Alone, it is the error.
            q = run("analyze", os.path.join(d, "rank-7.json"), check=False)
            self.assertEqual(q.returncode, 2)
            self.assertIn("no usable events", q.stderr)

    def test_a_diagnostic_of_a_job_names_the_file_of_its_example(self):
        good = [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 10, "pid": 0, "tid": 7, "args": {"stream": 7}}]
        bad = good + [{"ph": "X", "cat": "kernel", "name": "nots", "dur": 10, "pid": 0, "tid": 7, "args": {"stream": 7}}]
        with tempfile.TemporaryDirectory() as d:
            self.write_trace(d, "rank-0.json", good)
            b = self.write_trace(d, "rank-1.json", bad)
            doc = json.loads(run("analyze", d, "--json", "-").stdout)
        dg = doc["tables"]["diagnostics"]["columns"]
        i = dg["name"].index("complete event without numeric ts")
        self.assertTrue(dg["example"][i].startswith(b + ": "), dg["example"][i])

    def test_a_fractional_kernel_delay_is_a_threshold_and_a_bad_count_names_the_option_and_range(self):
        """Review of 2026-12-06: --kernel-delay-us 2.5 (HTA's cutoff is any Python number) was refused
        with "Could not convert: --kernel-delay-us = 2.5" while -5 was told "must be a number >= 0";
        the count options refused 2.5 or 1e3 the same way, naming no rule."""
        # k2 starts 2 us after k1 ends and was launched before: a kernel wait under a 2.5 us threshold,
        # not under 2 (nor under 2.5 cut or rounded to an integer).
        ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 50, "dur": 5, "args": {"correlation": 1}},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 60, "dur": 5, "args": {"correlation": 2}},
              {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"stream": 7, "correlation": 1}},
              {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 112, "dur": 10, "args": {"stream": 7, "correlation": 2}}]
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "rank-0.json", ev)
            for compat in ("sextant", "hta"):
                for delay, category in (("2.5", "kernel_wait"), ("2", "other"), ("1e3", "kernel_wait")):
                    doc = json.loads(run("analyze", path, "--compat", compat, "--only", "idle_time", "--kernel-delay-us", delay,
                                         "--json", "-").stdout)
                    c = doc["tables"]["idle_time_breakdown"]["columns"]
                    rows = dict(zip(c["idle_category"], c["idle_time" if compat == "hta" else "idle_time_us"]))
                    self.assertEqual(rows.get(category), 2.0, (compat, delay, rows))
            for option, value, rule in (("--kernel-delay-us", "-5", "a finite number >= 0"),
                                        ("--kernel-delay-us", "nan", "a finite number >= 0"),
                                        ("--top", "2.5", "an integer from 1 to 2147483647"),
                                        ("--stragglers", "2.5", "an integer from 1 to 2147483647"),
                                        ("--threads", "1e3", "an integer from 0 to 2147483647"),
                                        ("--critical-path-rows", "2.5", "an integer from 0 to 2147483647"),
                                        ("--sequence-depth", "0.5", "an integer from 0 to 9223372036854775807"),
                                        ("--max-inflate-bytes", "1e9", "an integer from 0 to 9223372036854775807")):
                p = run("analyze", path, option, value, "-q", check=False)
                self.assertEqual(p.returncode, 2, (option, value, p.stderr))
                self.assertIn(f"{option}: must be {rule}, got '{value}'", p.stderr)
                self.assertNotIn("Could not convert", p.stderr)

    # --- review of 2026-12-06 ---

    def test_a_trace_without_categories_is_refused_saying_why(self):
        # A JAX/TensorFlow trace-viewer export (ph X, numeric ts and dur, no cat) gave every table
        # zero and exit 0: its events are stored but none is analysable.
        p = run("analyze", os.path.join(DATA, "odd", "jax_like.trace.json"), check=False)
        self.assertEqual(p.returncode, 2, p.stdout[-300:])
        self.assertIn("no usable events", p.stderr)
        self.assertIn("without `cat`", p.stderr)
        self.assertIn("not a PyTorch/Kineto trace", p.stderr)

    def test_diagnostics_count_events_and_hours_apart_are_rounded(self):
        with tempfile.TemporaryDirectory() as d:
            run("trace", "synth", "--out", d, "--ranks", "4", "--steps", "6", "--straggler", "2", "--quiet")
            doc = json.loads(run("analyze", d, "--only", "kernel_sequences", "--json", "-").stdout)
            c = doc["tables"]["kernel_sequences_summary"]["columns"]
            outside = sum(c["gpu_events_outside_operators_count"])
            _, count, example = diagnostics(doc)["GPU events launched outside any cpu_op at the sequence depth"]
            self.assertGreater(outside, 4)
            self.assertEqual(count, outside)  # the events, not the 4 ranks that had them
            self.assertIn("on rank 0", example)
        with tempfile.TemporaryDirectory() as d:
            # Rank r's clock 2 h ahead of rank r - 1's: 2 h less the job's span apart (it read "1 h").
            run("trace", "synth", "--out", d, "--ranks", "4", "--steps", "6", "--clock-skew-us", "7.2e9", "--quiet")
            doc = json.loads(run("analyze", d, "--only", "clock_skew", "--json", "-").stdout)
            far = [v for k, v in diagnostics(doc).items() if "different jobs: their traces do not overlap" in k]
            self.assertEqual(len(far), 1, list(diagnostics(doc)))
            self.assertIn("rank 0 is 2.0 h from the nearest other rank", far[0][2])

    def test_hta_negative_idle_time_of_overlapping_kernels_is_a_diagnostic(self):
        """Review of 2026-12-07: one kernel event written twice gives HTA's kernel-wait gap of minus
        the kernel's length. --compat hta keeps that value for parity, and had said nothing of it,
        while the default mode counts the overlap; both count it now."""
        launch = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 1,
                  "args": {"correlation": 1}}
        kernel = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 3,
                  "args": {"stream": 7, "correlation": 1}}
        with tempfile.TemporaryDirectory() as d:
            path = self.write_trace(d, "dup.json", [launch, kernel, dict(kernel)])
            out = os.path.join(d, "hta")
            run("analyze", path, "--compat", "hta", "--only", "idle_time", "--csv", out, "-q")
            stats = {r["idle_category"]: r for r in read_csv(os.path.join(out, "idle_time_interval_stats.csv"))}
            self.assertEqual(float(stats["kernel_wait"]["min"]), -3.0)  # HTA's value, unchanged
            rows = [r for r in read_csv(os.path.join(out, "diagnostics.csv"))
                    if r["name"].startswith("idle_time: kernels starting before the previous one ended")]
            self.assertEqual(len(rows), 1, rows)
            self.assertIn("HTA's value, kept for parity", rows[0]["name"])
            self.assertEqual(int(rows[0]["count"]), 1)
            self.assertIn("stream 7: 1 kernels, negative gaps sum to -3 us", rows[0]["example"])
            doc = json.loads(run("analyze", path, "--only", "idle_time", "--json", "-").stdout)
            dflt = [v for k, v in diagnostics(doc).items() if k.startswith("idle_time: kernels starting before")]
            self.assertEqual([v[1] for v in dflt], [1])
        # The figures docs/trace-analysis.md quotes for HTA's trace_diff/test trace (where present).
        hta = os.path.join(os.path.dirname(ROOT), "shared", "data", "traces", "hta", "trace_diff", "test", "test.json.gz")
        if os.path.exists(hta):
            for flags, count, example in ((["--compat", "hta"], 30, "rank 1 stream 7: 30 kernels, negative gaps sum to -114 us"),
                                          ([], 31, "rank 1 stream 7: 31 kernels")):
                doc = json.loads(run("analyze", hta, *flags, "--only", "idle_time", "--json", "-").stdout)
                got = [v for k, v in diagnostics(doc).items() if k.startswith("idle_time: kernels starting before")]
                self.assertEqual([(v[1], v[2]) for v in got], [(count, example)], flags)

    def test_damaged_ends_of_files_are_named(self):
        ev = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"stream": 7}}
        with tempfile.TemporaryDirectory() as d:
            def write(name, data):
                path = os.path.join(d, name)
                with open(path, "wb") as f:
                    f.write(data)
                return path
            # A file of zeros (`truncate -s`), or one starting with NUL bytes: not "empty file".
            for name, data, want in (("zeros.json", b"\0" * 65536, "the file is zero-filled"),
                                     ("nulhead.json", b"\0\0\0" + b'{"traceEvents": []}', "3 NUL bytes")):
                p = run("analyze", write(name, data), check=False)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(want, p.stderr)
                self.assertIn("byte offset 0", p.stderr)
                self.assertNotIn("empty file", p.stderr)
            # A bare array without its closing ']' (a writer that stopped), with or without a
            # trailing comma: read, with a note; a cut inside an event is still a truncation.
            body = "[" + ",\n".join(json.dumps(ev) for _ in range(3))
            for tail in ("", ",", ",\n", ",]"):
                doc = json.loads(run("analyze", write("arr.json", (body + tail).encode()), "--only", "temporal_breakdown",
                                     "--json", "-").stdout)
                self.assertEqual(doc["tables"]["load_summary"]["columns"]["rows_after_load"], [3], tail)
                names = " ".join(diagnostics(doc))
                self.assertIn("trailing comma after the last event" if tail == ",]" else "without its closing ']'", names)
            p = run("analyze", write("cut.json", (body + ', {"ph": "X", "ts": 1').encode()), check=False)
            self.assertEqual(p.returncode, 2)
            self.assertIn("unexpected end of data", p.stderr)
            # Cut right after a top-level ',': a truncation, not "expected a key string".
            p = run("analyze", write("comma.json", b'\n{\n  "schemaVersion": 1,\n  '), check=False)
            self.assertEqual(p.returncode, 2)
            self.assertIn("unexpected end of data (truncated file?) at byte offset 27", p.stderr)

    def test_operators_that_start_and_end_together_nest_the_same_in_any_file_order(self):
        """aten::to and its aten::_to_copy (aten::matmul and its aten::mm, two record_function
        ranges) with the same ts and dur on one thread: the one recorded first (the smaller
        External id) encloses the other, whatever the order of the events in the file. Before the
        review of 2026-12-06 the file's order decided: the sampled DLRM trace shuffled or reversed
        counted 30 to 34 instances of its top kernel sequence's operator, and the roofline listed
        141 smaller shapes for 140."""
        import random

        def x(cat, name, ts, dur, pid=1, tid=1, **args):
            return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}
        dims = {"Input Dims": [[64, 128], [128, 256]], "Input type": ["float", "float"]}
        ev = [
            x("user_annotation", "zz_outer_range", 100, 300, **{"External id": 1}),
            x("user_annotation", "aa_inner_range", 100, 300, **{"External id": 2}),
            x("cpu_op", "aten::to", 110, 50, **{"External id": 3}),
            x("cpu_op", "aten::_to_copy", 110, 50, **{"External id": 4}),
            x("cuda_runtime", "cudaMemcpyAsync", 120, 5, correlation=1),
            x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 130, 10, pid=0, tid=7, stream=7, correlation=1),
            x("cpu_op", "aten::matmul", 170, 50, **{"External id": 5}, **dims),
            x("cpu_op", "aten::mm", 170, 50, **{"External id": 6}, **dims),
            x("cuda_runtime", "cudaLaunchKernel", 180, 5, correlation=2),
            x("kernel", "sm90_xmma_gemm_f32f32_tn", 190, 20, pid=0, tid=7, stream=7, correlation=2),
        ]
        shuffled = ev[:]
        random.Random(7).shuffle(shuffled)
        tables = ("kernel_sequences", "kernel_sequences_summary", "roofline", "user_annotations")
        out = []
        with tempfile.TemporaryDirectory() as d:
            for i, order in enumerate((ev, ev[::-1], shuffled)):
                path = self.write_trace(d, f"order{i}.json", order)
                doc = json.loads(run("analyze", path, "--only", "kernel_sequences", "--only", "workload", "--only",
                                     "user_annotations", "--json", "-").stdout)
                out.append({t: doc["tables"][t]["columns"] for t in tables})
        self.assertEqual(out[1], out[0])
        self.assertEqual(out[2], out[0])
        ks = out[0]["kernel_sequences"]
        self.assertEqual(sorted(ks["operator"]), ["aten::matmul", "aten::to"])  # the callers, at depth 0
        self.assertEqual(out[0]["roofline"]["op"], ["aten::mm"])  # the innermost shaped operator
        ua = out[0]["user_annotations"]
        inner = ua["annotation"].index("aa_inner_range")
        self.assertEqual(ua["gpu_events_exclusive_count"][inner], 2, ua)
        self.assertEqual(ua["gpu_events_exclusive_count"][ua["annotation"].index("zz_outer_range")], 0, ua)


if __name__ == "__main__":
    unittest.main()
