#!/usr/bin/env python3
"""Does a plain sextant run load no MPI and no BLAS library, and does sextant under mpirun open its
MPI module (libsextant_mpi.so beside the executable) or, when the module is missing, stop with an
error naming it rather than crash or run N copies? Are ranks that read different inputs (another
catalog, scenario or trace files) refused rather than merged into one result? (cli/mpi_world.cpp,
docs/architecture.md, docs/plan.md, docs/trace-analysis.md)"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
MODULE = os.path.join(os.path.dirname(os.path.abspath(BIN)), "libsextant_mpi.so")
DLRM = os.path.join(ROOT, "tests", "data", "trace", "param", "dlrm_8rank")
EX70 = os.path.join(ROOT, "examples", "llama3-70b-h100-1k.yaml")
# -x: no leak checking in a sanitizer build's MPI ranks (Open MPI's own allocations; docs/robustness.md).
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-x", "ASAN_OPTIONS=detect_leaks=0", "-np", "2"]
PLAN8 = ["plan", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "64", "--seq-len", "4096"]
# Each rank runs in its own folder, r0 or r1 under the given one: the same relative paths name
# other files there, as on two nodes without a shared file system.
PER_RANK_DIR = 'cd "$SEXTANT_TEST_DIR/r$OMPI_COMM_WORLD_RANK" && exec "$0" "$@"'


def loaded_objects(binary):
    """The shared objects the dynamic loader maps at start (glibc's LD_TRACE_LOADED_OBJECTS, what ldd uses)."""
    env = dict(os.environ, LD_TRACE_LOADED_OBJECTS="1")
    p = subprocess.run([binary], capture_output=True, text=True, env=env, timeout=60)
    return p.returncode, p.stdout


class MpiModule(unittest.TestCase):
    def test_plain_run_loads_no_mpi_or_blas(self):
        rc, objs = loaded_objects(BIN)
        self.assertEqual(rc, 0, objs)
        self.assertIn("libc.so", objs)  # the listing worked
        for lib in ("libmpi", "libopen-pal", "libopen-rte", "libopenblas", "libgfortran"):
            self.assertNotIn(lib, objs, f"{lib} is loaded at start; it should be opened on demand")

    def test_usage_and_command_line_errors_print_once_under_mpirun(self):
        # Review of 2026-12-07: `mpirun -np 4 sextant plan --help` printed the usage 4 times, and a
        # mistyped option its error once per rank. Rank 0 alone prints them; the others end with
        # the same status. mpirun's environment is set by hand: no MPI is started before parsing.
        def run(rank, *args):
            env = dict(os.environ, OMPI_COMM_WORLD_SIZE="2", OMPI_COMM_WORLD_RANK=str(rank))
            return subprocess.run([BIN, *args], capture_output=True, text=True, env=env, timeout=60)
        for args, code in ((["plan", "--help"], 0), (["--version"], 0), (["plan", "--no-such-option"], 2),
                           (["estimat"], 2), (["plan", "--zero", "1,,2"], 2), (["plan", "--threads", "x"], 2)):
            r0, r1 = run(0, *args), run(1, *args)
            self.assertEqual(r0.returncode, code, (args, r0.stderr))
            self.assertEqual(r1.returncode, code, (args, r1.stderr))
            self.assertTrue(r0.stdout.strip() or r0.stderr.strip(), args)
            self.assertEqual((r1.stdout, r1.stderr), ("", ""), args)

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_module_exports_its_entry_and_links_mpi(self):
        if not os.path.exists(MODULE):
            self.skipTest("this sextant was built without MPI (no libsextant_mpi.so beside it)")
        rc, objs = loaded_objects(BIN)
        self.assertNotIn("libmpi", objs)
        nm = shutil.which("nm")
        if nm:
            p = subprocess.run([nm, "-D", "--defined-only", MODULE], capture_output=True, text=True)
            self.assertIn("sextant_mpi_module_v1", p.stdout)

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_missing_module_under_mpirun_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as d:
            lone = os.path.join(d, "sextant")
            shutil.copy2(BIN, lone)  # the executable alone, without its MPI module
            p = subprocess.run([*MPIRUN, lone, "plan", EX70, "--fix", "tp=8", "--fix", "pp=4", "--json", "-"],
                               capture_output=True, text=True, timeout=120)
        self.assertNotEqual(p.returncode, 0, "ran under mpirun without the MPI module")
        self.assertNotIn("Segmentation", p.stderr)
        self.assertNotIn("signal", p.stderr.lower())
        self.assertEqual(p.stdout.count('"command"'), 0, "a rank ran the whole search alone")
        if "without MPI" in p.stderr:
            self.assertFalse(os.path.exists(MODULE))  # a build without MPI says so instead
        else:
            self.assertIn("launched by mpirun with 2 ranks, but the MPI module " + os.path.join(d, "libsextant_mpi.so") +
                          " cannot be loaded", p.stderr)
            self.assertIn("keep libsextant_mpi.so beside the sextant executable", p.stderr)

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_module_beside_a_copied_executable_is_found(self):
        if not os.path.exists(MODULE):
            self.skipTest("this sextant was built without MPI (no libsextant_mpi.so beside it)")
        single = subprocess.run([BIN, "analyze", DLRM, "--only", "temporal_breakdown", "--json", "-"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(single.returncode, 0, single.stderr)
        with tempfile.TemporaryDirectory() as d:
            shutil.copy2(BIN, os.path.join(d, "sextant"))
            shutil.copy2(MODULE, os.path.join(d, "libsextant_mpi.so"))  # as installed: side by side
            p = subprocess.run([*MPIRUN, os.path.join(d, "sextant"), "analyze", DLRM, "--only", "temporal_breakdown",
                                "--json", "-"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count('"command"'), 1, "each process printed: the ranks did not form one world")
        self.assertEqual(json.loads(p.stdout)["tables"], json.loads(single.stdout)["tables"])  # scalars hold wall times

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_a_command_that_does_not_divide_runs_once(self):
        """estimate and goodput do not divide their work across ranks: rank 0 runs them alone and
        says so, the others end at once (each rank had printed the whole result, 2026-12-03)."""
        single = subprocess.run([BIN, "estimate", EX70, "--json", "-"], capture_output=True, text=True, timeout=120)
        self.assertEqual(single.returncode, 0, single.stderr)
        p = subprocess.run([*MPIRUN, BIN, "estimate", EX70, "--json", "-"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count('"command"'), 1, p.stdout[:500])
        self.assertEqual(p.stdout, single.stdout)
        self.assertEqual(p.stderr.count("does not divide its work across MPI ranks"), 1, p.stderr)

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_analyze_diff_runs_once(self):
        """analyze divides its rank files across MPI ranks, but --diff does not: rank 0 runs it
        alone (every rank had printed the diff, 2026-12-04)."""
        d = os.path.join(ROOT, "tests", "data", "trace", "param", "dlrm_8rank")
        args = ["analyze", "--diff", os.path.join(d, "rank-0.json.gz"), os.path.join(d, "rank-1.json.gz"), "--top", "2", "--json", "-"]
        single = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
        self.assertEqual(single.returncode, 0, single.stderr)
        p = subprocess.run([*MPIRUN, BIN, *args], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, single.stdout)
        self.assertEqual(p.stderr.count("does not divide its work across MPI ranks"), 1, p.stderr)


@unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
class RanksReadTheSameInputs(unittest.TestCase):
    """Ranks whose inputs differ (mpirun forwards no environment to other nodes without -x, and a
    relative path names other files there) had their shares merged into one result with exit 0
    (review of 2026-12-06): they are refused, rank 0 naming what differs, exit status 2."""

    def setUp(self):
        if not os.path.exists(MODULE):
            self.skipTest("this sextant was built without MPI (no libsextant_mpi.so beside it)")
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def per_rank(self, args, data_dirs=None):
        """mpirun -np 2 with rank r in folder tmp/r<r> and, given data_dirs, SEXTANT_DATA_DIR=data_dirs[r]."""
        script = PER_RANK_DIR
        if data_dirs:
            script = 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then export SEXTANT_DATA_DIR="%s"; else export SEXTANT_DATA_DIR="%s"; fi; %s' % (
                *data_dirs, script)
        for r in ("r0", "r1"):
            os.makedirs(os.path.join(self.tmp, r), exist_ok=True)
        env = dict(os.environ, SEXTANT_TEST_DIR=self.tmp)
        return subprocess.run([*MPIRUN, "-x", "SEXTANT_TEST_DIR", "sh", "-c", script, BIN, *args], capture_output=True, text=True,
                              timeout=120, env=env)

    def assert_refused(self, p, *what):
        self.assertEqual(p.returncode, 2, p.stderr[-1500:])
        self.assertEqual(p.stdout.count('"command"'), 0, "a result was printed")
        self.assertEqual(p.stderr.count("sextant: error:"), 1, p.stderr)  # rank 0 alone says it
        self.assertIn("the 2 ranks do not read the same inputs", p.stderr)
        for w in what:
            self.assertIn(w, p.stderr)

    def data_copy(self, name, bf16_tflops=None):
        """A copy of the data folder, the H100's bf16 peak changed when given."""
        d = os.path.join(self.tmp, name)
        shutil.copytree(os.path.join(ROOT, "data", "catalog"), os.path.join(d, "catalog"))
        if bf16_tflops is not None:
            f = os.path.join(d, "catalog", "accelerators", "nvidia-hopper.yaml")
            with open(f) as fh:
                text = fh.read()
            changed = text.replace("bf16: {value: 989.4,", "bf16: {value: %s," % bf16_tflops, 1)
            self.assertNotEqual(changed, text, "the H100's bf16 peak moved in the catalog")
            with open(f, "w") as fh:
                fh.write(changed)
        return d

    def test_plan_with_another_catalog_on_one_rank_is_refused(self):
        p = self.per_rank([*PLAN8, "--json", "-"], data_dirs=(os.path.join(ROOT, "data"), self.data_copy("data2", 500.0)))
        self.assert_refused(p, "rank 1 in the catalog files", "mpirun -x SEXTANT_DATA_DIR")

    def test_plan_of_another_scenario_file_on_one_rank_is_refused(self):
        with open(EX70) as f:
            text = f.read()
        self.assertIn("seq_len: 8192", text)
        for r, job in (("r0", text), ("r1", text.replace("seq_len: 8192", "seq_len: 4096"))):
            os.makedirs(os.path.join(self.tmp, r))
            with open(os.path.join(self.tmp, r, "job.yaml"), "w") as f:
                f.write(job)
        for cmd in (["plan", "job.yaml", "--fix", "tp=8", "--fix", "pp=4", "--json", "-"],
                    ["sweep", "job.yaml", "--fix", "tp=8", "--fix", "pp=4", "--vary", "num_gpus=512,1024", "--json", "-"]):
            with self.subTest(cmd=cmd[0]):
                self.assert_refused(self.per_rank(cmd), "rank 1 in the job as read")

    def test_scenario_files_that_differ_only_in_what_steers_the_search_are_refused(self):
        """A framework line changes the plans searched but not the file's own plan's estimate: the
        ranks had split two different searches and merged them (an internal 'unknown plan index'
        error, or a plan costed under another rank's dispatcher with exit 0; review of 2026-12-06)."""
        job = ("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 8\nparallel: {tp: 1, pp: 1}\n"
               "training: {global_batch: 64, micro_batch: 1, seq_len: 4096, precision: bf16}\n")
        for r, text in (("r0", "framework: megatron-core\n" + job), ("r1", job)):
            os.makedirs(os.path.join(self.tmp, r))
            with open(os.path.join(self.tmp, r, "job.yaml"), "w") as f:
                f.write(text)
        for r in ("r0", "r1"):  # the two files' own plans estimate alike
            e = subprocess.run([BIN, "estimate", os.path.join(self.tmp, r, "job.yaml"), "--json", "-"], capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(e.returncode, 0, e.stderr)
            if r == "r0":
                first = json.loads(e.stdout)["scalars"]["step_time_s"]
            else:
                self.assertEqual(json.loads(e.stdout)["scalars"]["step_time_s"], first)
        p = self.per_rank(["plan", "job.yaml", "--max-micro-batch", "1", "--json", "-"])
        self.assert_refused(p, "rank 1 in the job as read")

    def test_plan_with_the_same_catalog_in_another_folder_prints_the_single_process_bytes(self):
        single = subprocess.run([BIN, *PLAN8, "--json", "-"], capture_output=True, text=True, timeout=120)
        self.assertEqual(single.returncode, 0, single.stderr)
        p = self.per_rank([*PLAN8, "--json", "-"], data_dirs=(os.path.join(ROOT, "data"), self.data_copy("data2")))
        self.assertEqual(p.returncode, 0, p.stderr[-1500:])
        self.assertEqual(p.stdout, single.stdout)

    def trace_folders(self, swap_on_rank1):
        """job/rank-{0,1}.json.gz in r0 and r1; rank 1's two files swapped when asked (same names and sizes in all)."""
        for r in ("r0", "r1"):
            os.makedirs(os.path.join(self.tmp, r, "job"))
            for i in (0, 1):
                src = 1 - i if (r == "r1" and swap_on_rank1) else i
                shutil.copy(os.path.join(DLRM, "rank-%d.json.gz" % src), os.path.join(self.tmp, r, "job", "rank-%d.json.gz" % i))

    def test_analyze_of_other_trace_files_on_one_rank_is_refused(self):
        self.trace_folders(swap_on_rank1=True)
        p = self.per_rank(["analyze", "job", "--only", "temporal_breakdown", "--json", "-"])
        self.assert_refused(p, "rank 1 in the trace file job/rank-0.json.gz and the trace file job/rank-1.json.gz")

    def test_analyze_of_the_same_trace_files_in_other_folders_prints_the_single_process_tables(self):
        self.trace_folders(swap_on_rank1=False)
        args = ["analyze", "job", "--only", "temporal_breakdown", "--json", "-"]
        single = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120, cwd=os.path.join(self.tmp, "r0"))
        self.assertEqual(single.returncode, 0, single.stderr)
        p = self.per_rank(args)
        self.assertEqual(p.returncode, 0, p.stderr[-1500:])
        self.assertEqual(json.loads(p.stdout)["tables"], json.loads(single.stdout)["tables"])  # scalars hold wall times


if __name__ == "__main__":
    unittest.main()
