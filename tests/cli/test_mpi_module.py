#!/usr/bin/env python3
"""Does a plain sextant run load no MPI and no BLAS library, and does sextant under mpirun open its
MPI module (libsextant_mpi.so beside the executable) or, when the module is missing, stop with an
error naming it rather than crash or run N copies? (cli/mpi_world.cpp, docs/architecture.md)"""
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


if __name__ == "__main__":
    unittest.main()
