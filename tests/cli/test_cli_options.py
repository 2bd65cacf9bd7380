#!/usr/bin/python3
"""End-to-end tests of the command line's options (review of 2026-12-03).

Questions: is a misspelt subcommand named with the closest ones; is an option that only qualifies
another refused without it, rather than ignored with exit 0; are outputs that would collide (a CSV
folder at the JSON's path, an HTML report to standard output or onto a folder) refused before
anything is written, and outputs that cannot be written (no charting library, a folder that is a file
or read-only) before the command runs; does a CSV folder reused by another run keep none of the earlier run's notes;
is a SEXTANT_DATA_DIR without a catalog an error rather than a silent fallback; does simulate read
the scenario's seed; is an input after a repeatable option (--set, --straggler) the input; are negative counts and seeds refused rather than wrapped; does every
subcommand's --help label its values from one vocabulary (cli.hpp) and write defaults as
"(default X)"?
"""
import json
import os
import shutil
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
SCENARIO = os.path.join(ROOT, "data", "examples", "llama3-70b-h100.yaml")


def small_scenario(folder):
    """A 16-GPU scenario that simulates in a fraction of a second; its path."""
    path = os.path.join(folder, "small.yaml")
    with open(path, "w") as f:
        f.write("model: gpt3-1.3b\nsystem: dgx-h100\nnum_gpus: 16\nparallel: {tp: 2, pp: 2}\n"
                "training: {global_batch: 32, micro_batch: 1, seq_len: 2048}\n")
    return path


def run(*args, env=None, check=False):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    if check and p.returncode != 0:
        raise AssertionError(f"sextant {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p


class CliOptions(unittest.TestCase):
    def refused(self, args, *words, env=None):
        p = run(*args, env=env)
        self.assertEqual(p.returncode, 2, f"{args}: {p.stdout[:200]} {p.stderr}")
        for w in words:
            self.assertIn(w, p.stderr, args)
        return p

    def test_help_labels_and_defaults_read_alike_in_every_subcommand(self):
        # INT:INT >= 2, FLOAT:FINITE >= 0, FLOAT:GiB > 0 and infer's CLI11-style "--tp INT=1" stood
        # beside INT:POSITIVE and "(default 1)" elsewhere (review of 2026-12-03).
        label = re.compile(r"^\s+(?:-\w,)?--[\w-]+ (?:TEXT|INT|UINT|FLOAT)(\S*)")
        allowed = re.compile(r"^(|:POSITIVE|:NONNEGATIVE|:SEED|:COUNT|:\{[\w,.-]+\}|:[\[(].*|:>=|=.*)$")
        seen = 0
        pending = [[]]
        while pending:
            cmd = pending.pop()
            h = run(*cmd, "--help", check=True).stdout
            in_sub = False
            for line in h.splitlines():
                if line.startswith("Subcommands:"):
                    in_sub = True
                    continue
                if in_sub:
                    m = re.match(r"^  ([a-z][\w-]*)\s", line)
                    if m:
                        pending.append(cmd + [m.group(1)])
                    continue
                m = label.match(line)
                if not m:
                    continue
                seen += 1
                suffix = m.group(1)
                self.assertNotRegex(suffix, r"^=", f"{cmd}: CLI11-style default in {line.strip()!r}: write (default X)")
                self.assertRegex(suffix, allowed, f"{cmd}: label outside the vocabulary in {line.strip()!r}")
        self.assertGreater(seen, 100)

    def test_an_empty_item_of_a_list_option_is_refused_not_dropped(self):
        # "--zero 1,,2" searched stages 1 and 2 with exit 0: CLI11 drops an empty item when it
        # splits the list (2026-12-05 fuzz review).
        for args, name, fixed in (
            (["plan", SCENARIO, "--zero", "1,,2"], "--zero", "'1,2'"),
            (["plan", SCENARIO, "--schedules=1f1b,"], "--schedules", "'1f1b'"),
            (["plan", SCENARIO, "--recompute", ",full"], "--recompute", "'full'"),
            (["analyze", "x.json", "--only", "overview,,kernels"], "--only", "'overview,kernels'"),
            (["sweep", SCENARIO, "--pareto", "step_time_s,,tokens_per_joule"], "--pareto", "'step_time_s,tokens_per_joule'"),
        ):
            self.refused(args, name + ": the list", "has an empty item", fixed)
        # A list without an empty item still runs.
        p = run("plan", SCENARIO, "--zero", "1,2", "--fix", "tp=8", "--fix", "pp=4", "--top", "1", "-q")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_sizes_and_prices_that_would_overflow_are_refused(self):
        # 1e308 GiB and 1e308 USD a GPU-hour had overflowed to an infinite memory and job cost
        # (2026-12-05 fuzz review).
        self.refused(["infer", "estimate", "--model", "llama3-8b", "--accelerator", "h100-sxm-80gb", "--memory-gib", "1e308"],
                     "--memory-gib", "up to 1e9")
        self.refused(["sweep", "examples/llama3-70b-h100-1k.yaml", "--vary", "accelerator.memory_bandwidth_bytes_per_s=2e12",
                      "--price-usd-per-gpu-hour", "1e308"], "--price-usd-per-gpu-hour", "up to 1e6 USD")
        # A rank from 1: 0 had been answered with DBL_MAX written out in 300 digits.
        p = self.refused(["plan", SCENARIO, "--write-rank", "0", "--write-scenario", "x.yaml"], "--write-rank", "an integer from 1")
        self.assertLess(len(p.stderr), 300, p.stderr)

    def test_a_misspelt_subcommand_is_named_with_the_closest(self):
        self.refused(["estimat", SCENARIO], "'estimat' is not a subcommand of sextant", "did you mean 'estimate'?")
        self.refused(["catalog", "lst"], "'lst' is not a subcommand of sextant catalog", "did you mean 'list'?")
        self.refused(["infer", "serv", "x.yaml"], "did you mean 'serve'?")
        self.refused(["history", "lsit"], "did you mean 'list'?")

    def test_an_option_that_qualifies_another_is_refused_without_it(self):
        self.refused(["goodput", "examples/goodput-llama3-405b-16k.yaml", "--fit-out", "x.yaml"], "--fit-out requires --fit")
        self.refused(["goodput", "examples/goodput-llama3-405b-16k.yaml", "--no-search", "--search-replicas", "50"], "--search-replicas")
        self.refused(["calibrate", "--network-kind", "pcie"], "--network-kind requires --network-out")
        self.refused(["calibrate", "--memory-peak-source", "x"], "--memory-peak-source", "none is given")
        self.refused(["validate", "data/validation/inference.csv", "--engine", "simulate"], "'--engine'", "applies to training CSVs")
        self.refused(["validate", "data/validation/inference.csv", "--leave-one-source-out"], "applies to training CSVs")
        self.refused(["analyze", "tests/data/trace/param/dlrm_8rank", "--stragglers", "3"], "--stragglers", "--compat hta")
        # --diff compares kernels and operators: the analyses' options are refused with it (ignored before).
        d = "tests/data/trace/param/dlrm_8rank/"
        self.refused(["analyze", "--diff", d + "rank-0.json.gz", d + "rank-1.json.gz", "--compat", "hta"], "--compat", "--diff")
        self.refused(["analyze", "--diff", d + "rank-0.json.gz", d + "rank-1.json.gz", "--only", "idle_time"], "--only", "--diff")

    def test_leave_one_source_out_with_nothing_held_out_gives_no_figure(self):
        # One source: no row can be refitted from another, so no held-out figure (it read 0%, a
        # perfect score; review of 2026-12-05).
        with tempfile.TemporaryDirectory() as d:
            lines = open(os.path.join(ROOT, "data", "validation", "training.csv")).read().splitlines(keepends=True)
            path = os.path.join(d, "one.csv")
            open(path, "w").write(lines[0] + lines[1])
            p = run("validate", path, "--leave-one-source-out", "--json", "-", check=True)
            j = json.loads(p.stdout)
            self.assertEqual(j["scalars"]["loso_held_out_rows_count"], 0)
            self.assertIsNone(j["scalars"]["loso_held_out_median_abs_error_pct"])
            self.assertTrue(any("held no row out" in n for n in j["notes"]), j["notes"])

    def test_colliding_outputs_are_refused_before_writing(self):
        with tempfile.TemporaryDirectory() as d:
            x = os.path.join(d, "x")
            self.refused(["estimate", SCENARIO, "--json", x, "--csv", x, "-q"], "is also the path of --json")
            self.assertFalse(os.path.exists(x))
            self.refused(["estimate", SCENARIO, "--report", "-"], "not to standard output")
            self.assertFalse(os.path.exists(os.path.join(ROOT, "-")))
            self.refused(["estimate", SCENARIO, "--report", d], "is a folder")
            # The same place spelt two ways, and a file output naming a folder (existing, or to be
            # made by a trailing '/'): refused before the run, leaving no empty folder behind.
            self.refused(["estimate", SCENARIO, "--csv", x, "--json", os.path.join(d, ".", "x"), "-q"], "is also the path of --json")
            self.refused(["estimate", SCENARIO, "--json", d, "-q"], "--json", "names a folder")
            self.refused(["estimate", SCENARIO, "--json", os.path.join(d, "new") + "/", "-q"], "--json", "names a folder")
            self.assertEqual(os.listdir(d), [])
            # A saved result is not overwritten by its own report.
            r = os.path.join(d, "r.json")
            run("estimate", SCENARIO, "-q", "--json", r, check=True)
            self.refused(["report", r, "-o", os.path.join(d, ".", "r.json")], "--out", "is the result file being read")
            with open(r) as f:
                self.assertEqual(f.read(1), "{")

    def test_json_to_standard_output_by_any_name_prints_the_json_alone(self):
        """`--json /dev/stdout` printed the document and then the table on the same stream, and a
        special file (/dev/null, a shell pipe) was refused when its folder could not take a file."""
        for target in ("-", "/dev/stdout"):
            p = run("estimate", SCENARIO, "--json", target, check=True)
            self.assertEqual(json.loads(p.stdout)["command"], "estimate", target)
        if os.geteuid() == 0 and shutil.which("runuser"):
            p = subprocess.run(["runuser", "-u", "nobody", "--", os.path.abspath(BIN), "estimate", SCENARIO, "-q", "--json", "/dev/null"],
                               capture_output=True, text=True, timeout=300, cwd="/")
            if "Permission denied" not in p.stderr or "/dev/null" in p.stderr:  # nobody may not read the repository
                self.assertEqual(p.returncode, 0, p.stderr)

    def test_outputs_that_cannot_be_written_are_refused_before_the_run(self):
        """A missing charting library or an unwritable folder is found before the command runs:
        plan had searched for minutes, then failed at --report and written no --json either."""
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "p.json")
            env = dict(os.environ, SEXTANT_ECHARTS_JS=os.path.join(d, "missing.js"))
            p = self.refused(["plan", SCENARIO, "--top", "3", "--no-progress", "--json", j, "--report", os.path.join(d, "p.html")],
                             "SEXTANT_ECHARTS_JS", env=env)
            self.assertEqual(p.stdout, "")
            self.assertFalse(os.path.exists(j))
            f = os.path.join(d, "file")
            open(f, "w").close()
            self.refused(["estimate", SCENARIO, "--json", os.path.join(f, "x.json")], "--json", "is a file, not a folder")
            self.refused(["estimate", SCENARIO, "--csv", os.path.join(f, "csv")], "--csv", "is a file, not a folder")
            if os.path.isdir("/proc"):
                self.refused(["estimate", SCENARIO, "--report", "/proc/x.html"], "--report", "cannot write into the folder '/proc'")
            # A folder that does not exist yet is made.
            run("estimate", SCENARIO, "--csv", os.path.join(d, "a", "b"), "-q", check=True)
            self.assertTrue(os.path.exists(os.path.join(d, "a", "b", "scalars.csv")))
            self.assertEqual([x for x in os.listdir(d) if x.startswith(".sextant-probe")], [])

    def test_simulates_timeline_is_checked_before_the_run_as_json_is(self):
        """--timeline is an output like --json: an unwritable path had failed after the whole
        simulation without naming the option, a trailing '/' had left an empty folder behind, a
        path shared with --json had been found only when the files were staged, and an empty path
        had run to exit 0 writing nothing (review of 2026-12-05)."""
        with tempfile.TemporaryDirectory() as d:
            if os.path.isdir("/proc"):
                self.refused(["simulate", SCENARIO, "--timeline", "/proc/x.json", "-q"], "--timeline", "cannot write into the folder '/proc'")
            f = os.path.join(d, "file")
            open(f, "w").close()
            self.refused(["simulate", SCENARIO, "--timeline", os.path.join(f, "t.json"), "-q"], "--timeline", "is a file, not a folder")
            os.remove(f)
            self.refused(["simulate", SCENARIO, "--timeline", os.path.join(d, "nd_t") + "/", "-q"], "--timeline", "names a folder")
            self.refused(["simulate", SCENARIO, "--timeline", d, "-q"], "--timeline", "names a folder")
            x = os.path.join(d, "x.json")
            self.refused(["simulate", SCENARIO, "--timeline", x, "--json", os.path.join(d, ".", "x.json"), "-q"],
                         "--timeline", "is also the path of --json")
            self.refused(["simulate", SCENARIO, "--timeline", x, "--csv", x, "-q"], "--csv", "is also the path of --timeline")
            self.refused(["simulate", SCENARIO, "--timeline", "-", "--json", "/dev/stdout"], "--json", "standard output")
            for extra in ([], ["--timeline-ranks", "3"]):
                self.refused(["simulate", SCENARIO, "--timeline", "", "-q", *extra], "--timeline", "an empty path")
            self.assertEqual(os.listdir(d), [])
            # /dev/null takes any number of outputs, and a folder to be made is made.
            run("simulate", SCENARIO, "--timeline", "/dev/null", "--json", "/dev/null", "-q", check=True)
            run("simulate", SCENARIO, "--timeline", os.path.join(d, "a", "t.json"), "-q", check=True)
            self.assertTrue(os.path.isfile(os.path.join(d, "a", "t.json")))

    def test_is_an_output_onto_a_file_the_command_reads_refused_before_it_is_replaced(self):
        """`simulate job.yaml --timeline job.yaml` replaced the scenario with the trace and exited 0;
        --json and --report did the same, and so would an output onto a file given to --set
        (review of 2026-12-06)."""
        with tempfile.TemporaryDirectory() as d:
            job = os.path.join(d, "job.yaml")
            shutil.copy(SCENARIO, job)
            with open(job, "rb") as f:
                before = f.read()
            self.refused(["simulate", job, "--timeline", job, "-q"], "--timeline", "is also the input", "give the output another path")
            self.refused(["estimate", job, "--json", os.path.join(d, ".", "job.yaml"), "-q"], "--json", "is also the input")
            self.refused(["simulate", job, "--report", job, "-q"], "--report", "is also the input")
            acc = os.path.join(d, "acc.yaml")
            with open(acc, "w") as f:
                f.write("x: 1\n")
            self.refused(["estimate", SCENARIO, "--set", "accelerator=" + acc, "--json", acc, "-q"], "--json", "is also the input")
            with open(job, "rb") as f:
                self.assertEqual(f.read(), before)
            # Another path next to it is written as before.
            run("estimate", job, "--json", os.path.join(d, "out.json"), "-q", check=True)

    def test_a_reused_csv_folder_keeps_no_notes_of_the_earlier_run(self):
        with tempfile.TemporaryDirectory() as d:
            run("estimate", "examples/llama3-405b-h100-16k.yaml", "--csv", d, "-q", check=True)
            with open(os.path.join(d, "notes.csv")) as f:
                self.assertGreater(len(f.read().splitlines()), 1)
            run("estimate", SCENARIO, "--csv", d, "-q", check=True)
            with tempfile.TemporaryDirectory() as fresh:
                run("estimate", SCENARIO, "--csv", fresh, "-q", check=True)
                with open(os.path.join(d, "notes.csv")) as f, open(os.path.join(fresh, "notes.csv")) as g:
                    self.assertEqual(f.read(), g.read())

    def test_a_reused_csv_folder_keeps_no_tables_of_the_earlier_run_but_keeps_the_users_files(self):
        with tempfile.TemporaryDirectory() as d:
            run("estimate", SCENARIO, "--csv", d, "-q", check=True)
            self.assertTrue(os.path.exists(os.path.join(d, "breakdown.csv")))
            with open(os.path.join(d, "mine.csv"), "w") as f:
                f.write("a\n1\n")
            run("goodput", "data/examples/goodput-llama3-405b-16k.yaml", "--no-search", "--csv", d, "-q", check=True)
            with open(os.path.join(d, "tables.csv")) as f:
                index = [line.split(",")[1] for line in f.read().splitlines()[1:]]
            self.assertTrue(index)
            left = sorted(n for n in os.listdir(d) if n not in ("scalars.csv", "notes.csv", "tables.csv", "mine.csv"))
            self.assertEqual(left, sorted(index))
            self.assertFalse(os.path.exists(os.path.join(d, "breakdown.csv")))
            with open(os.path.join(d, "mine.csv")) as f:
                self.assertEqual(f.read(), "a\n1\n")

    def test_a_data_folder_without_a_catalog_is_an_error(self):
        env = dict(os.environ, SEXTANT_DATA_DIR="/nonexistent/sextant-data")
        self.refused(["estimate", SCENARIO, "-q"], "SEXTANT_DATA_DIR", "not a Sextant data folder", env=env)

    def test_simulate_reads_the_scenarios_seed(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        small = small_scenario(tmp.name)

        def step(*args):
            p = run("simulate", small, "--jitter", "0.1", "--timeline-rows", "0", "--json", "-", "-q", *args, check=True)
            return json.loads(p.stdout)["scalars"]["step_time_s"]
        self.assertEqual(step("--set", "seed=5"), step("--seed", "5"))
        self.assertNotEqual(step("--set", "seed=5"), step())
        self.assertEqual(step("--set", "seed=5", "--seed", "0"), step())
        # The result records how it was made (none of it was before 2026-12-03).
        p = run("simulate", small, "--jitter", "0.1", "--seed", "5", "--straggler", "3=1.5", "--no-contention", "--json", "-", "-q",
                check=True)
        sc = json.loads(p.stdout)["scalars"]
        self.assertEqual((sc["jitter_sigma"], sc["seed"], sc["stragglers"], sc["contention"], sc["interference"]),
                         (0.1, 5, "3=1.5", False, True))
        self.assertEqual(sc["interference_fraction"], 0.0)  # no catalog H100 gives one
        # --seed draws the jitter only: alone it is refused (it changed nothing, exit 0); and
        # --no-interference on such a device says it changes nothing (2026-12-04 review).
        p = run("simulate", small, "--seed", "5", "-q")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--jitter", p.stderr)
        p = run("simulate", small, "--no-interference", "--json", "-", "-q", check=True)
        self.assertTrue(any("--no-interference changes nothing" in n for n in json.loads(p.stdout)["notes"]))

    def test_an_input_after_a_repeatable_option_is_the_input(self):
        # --set and --straggler take one value per use: `simulate --straggler 3=1.2 s.yaml` had read
        # the scenario as a second straggler and failed "scenario is required", and `estimate --set
        # k=v s.yaml` likewise (review of 2026-12-06).
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        small = small_scenario(tmp.name)
        examples = os.path.join(ROOT, "data", "examples")
        goodput = os.path.join(examples, "goodput-llama3-405b-16k.yaml")
        study = os.path.join(examples, "infer-llama3-8b-h100.yaml")
        cases = [
            (["simulate"], small, ["--straggler", "3=1.2", "--straggler", "5=1.1", "--set", "training.global_batch=64"]),
            (["estimate"], small, ["--set", "parallel.tp=4", "--set", "parallel.pp=1"]),
            (["plan"], small, ["--top", "2", "--set", "training.global_batch=64"]),
            (["goodput"], goodput, ["--set", "checkpoint.interval_minutes=30"]),
            (["infer", "estimate"], study, ["--set", "deployment.tp=2"]),
            (["infer", "serve"], study, ["--set", "workload.requests=20"]),
            # --fix, --vary and the comma lists had taken the scenario as a second value and failed
            # "missing --model" (2026-12-06 review); a value with commas is still one value.
            (["plan"], small, ["--top", "2", "--fix", "tp=2", "--fix", "pp=2"]),
            (["plan"], small, ["--top", "2", "--zero", "0,1", "--schedules", "1f1b,gpipe", "--recompute", "none,full"]),
            (["sweep"], small, ["--no-progress", "--fix", "tp=2", "--vary", "num_gpus=8,16"]),
            (["sweep"], small, ["--no-progress", "--fix", "tp=2", "--vary", "num_gpus=8,16", "--pareto", "step_time_s,tokens_per_joule"]),
        ]
        for cmd, path, opts in cases:
            with self.subTest(cmd=cmd):
                before = run(*cmd, *opts, path, "--json", "-", "-q")
                self.assertEqual(before.returncode, 0, f"{cmd} {opts} {path}: {before.stderr}")
                after = run(*cmd, path, *opts, "--json", "-", "-q", check=True)
                self.assertEqual(json.loads(before.stdout)["scalars"], json.loads(after.stdout)["scalars"])
        # Several values after one flag are not taken as overrides: the second is an argument of its own.
        self.refused(["estimate", "--set", "parallel.tp=4", "parallel.pp=1", small, "-q"], "not expected")
        self.refused(["simulate", "--straggler", "3=1.2", "5=1.1", small, "-q"], "not expected")
        self.refused(["plan", "--fix", "tp=2", "pp=2", small, "-q"], "not expected")
        self.refused(["sweep", "--vary", "num_gpus=8", "num_gpus=16", small, "-q"], "not expected")
        # --pareto is two objectives in one value, X,Y: one or three are refused by count.
        self.refused(["sweep", small, "--vary", "num_gpus=8,16", "--pareto", "step_time_s"], "--pareto", "takes two objectives", "got 1")
        self.refused(["sweep", small, "--vary", "num_gpus=8,16", "--pareto", "step_time_s,tokens_per_joule,mfu_fraction"], "--pareto", "got 3")
        # A key with nothing after '=' says no values were given (it read "'' is not a number").
        p = self.refused(["sweep", small, "--vary", "num_gpus=", "-q"], "no values given for num_gpus, expected num_gpus=V1,V2")
        self.assertNotIn("not a number", p.stderr)

    def test_negative_counts_and_seeds_are_refused_not_wrapped(self):
        self.refused(["plan", SCENARIO, "--rerank-top", "-5"], "--rerank-top")
        self.refused(["plan", SCENARIO, "--top", "-1"], "--top")
        with tempfile.TemporaryDirectory() as d:
            self.refused(["trace", "synth", "--out", d, "--seed", "-1"], "--seed")

    def test_catalog_is_taken_after_the_subcommand_and_by_analyze(self):
        cat = os.path.join(ROOT, "data", "catalog")
        run("catalog", "list", "accelerators", "--catalog", cat, "-q", check=True)
        run("catalog", "show", "h100-sxm-80gb", "--catalog", cat, "-q", check=True)
        p = run("analyze", "tests/data/trace/param/dlrm_8rank", "--only", "workload", "--catalog", cat, "--device", "h100-sxm-80gb",
                "--json", "-", "-q", check=True)
        self.assertEqual(json.loads(p.stdout)["scalars"]["workload_device"], "h100-sxm-80gb")
        with tempfile.TemporaryDirectory() as d:
            # An empty folder is no catalog (2026-12-05); one with an accelerators/ folder lacks the device.
            self.refused(["analyze", "tests/data/trace/param/dlrm_8rank", "--only", "workload", "--catalog", d, "--device",
                          "h100-sxm-80gb", "-q"], "not a catalog folder")
            os.mkdir(os.path.join(d, "accelerators"))
            self.refused(["analyze", "tests/data/trace/param/dlrm_8rank", "--only", "workload", "--catalog", d, "--device",
                          "h100-sxm-80gb", "-q"], "unknown device 'h100-sxm-80gb'")

if __name__ == "__main__":
    unittest.main()
