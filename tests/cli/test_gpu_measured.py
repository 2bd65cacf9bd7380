#!/usr/bin/python3
"""Sextant's GPU path against GEMMs measured on a real NVIDIA H200 (tests/data/bench/h200/README.md).

Questions: calibrated from the bench run, does the GPU model (shape factor, memory roofline and
per-kernel overhead, the one estimate evaluates) fit the 18 measured shapes of every dtype, and
predict the shapes held out for being larger or more skewed than any fitted one within 20%?
Does the entry it writes load, with the measured achievable memory bandwidth? Do the same
session's profiler traces calibrate (34 traced bf16 GEMM shapes) and analyse without error
diagnostics, naming the H200 from the trace's deviceProperties?
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

BIN = os.environ.get("SEXTANT_BIN", "build/sextant")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")


def sextant(*args, check=True):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"sextant {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def as_json(*args):
    return json.loads(sextant(*args, "--json", "-").stdout)


def rows(result, name):
    t = result["tables"][name]
    cols = t["columns"]
    n = len(next(iter(cols.values())))
    return [{k: v[i] for k, v in cols.items()} for i in range(n)]


class MeasuredH200(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sextant-h200-")
        self.db = os.path.join(self.dir, "h200.db")
        shutil.copy(os.path.join(DATA, "bench", "h200", "h200-gpu-bench.db"), self.db)  # calibrate opens it read-write

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_gpu_model_predicts_held_out_gemm_shapes_within_20_percent(self):
        r = as_json("calibrate", "--db", self.db, "--suite", "gpu", "--peak-from", "h200-sxm-141gb", "--id", "h200-holdout",
                    "--max-fit-dim", "8192", "--max-fit-skew", "8")
        s = r["scalars"]
        points = rows(r, "gemm_fit")
        held = [p for p in points if p["role"] == "held-out"]
        self.assertEqual(len(held), 4 * 5)  # 16384x8192x1280, 128/8192 skinny pair, 4096x14336x4096, 1024x8192x28672
        for dt in ("fp32", "tf32", "bf16", "fp16"):
            with self.subTest(dtype=dt):
                self.assertLessEqual(s[f"held_out_max_error_fraction_{dt}"], 0.20)
        for p in held:
            self.assertLessEqual(abs(p["error_fraction"]), 0.20, p)
        # A per-kernel time of a few microseconds (the 256^3 GEMMs take 7-9 us whatever the dtype).
        self.assertGreater(s["kernel_overhead_s"], 2e-6)
        self.assertLess(s["kernel_overhead_s"], 15e-6)

    def test_all_shapes_fit_and_the_entry_loads_with_the_measured_bandwidth(self):
        out = os.path.join(self.dir, "catalog", "accelerators", "h200-calibrated.yaml")
        os.makedirs(os.path.dirname(out))
        r = as_json("calibrate", "--db", self.db, "--suite", "gpu", "--peak-from", "h200-sxm-141gb", "--id", "h200-calibrated",
                    "--out", out)
        s = r["scalars"]
        for dt in ("fp32", "tf32", "bf16", "fp16"):
            with self.subTest(dtype=dt):
                self.assertLess(s[f"symmetric_fit_rms_error_fraction_{dt}"], 0.15)
                self.assertGreater(s[f"gemm_peak_fraction_{dt}"], 0.5)
                self.assertLessEqual(s[f"gemm_peak_fraction_{dt}"], 1.0)
        # 2 x the 1 GiB device-to-device copy rate, against the 4.8 TB/s datasheet figure.
        self.assertGreater(s["memory_bandwidth_bytes_per_s"], 0.75 * 4.8e12)
        self.assertLess(s["memory_bandwidth_bytes_per_s"], 4.8e12)
        entry = as_json("catalog", "--catalog", os.path.join(self.dir, "catalog"), "show", "h200-calibrated")
        text = json.dumps(entry)
        self.assertIn("kernel_overhead", text)
        self.assertIn("NVIDIA H200", text)

    def test_trace_calibration_of_the_h200_linear_layers(self):
        r = as_json("calibrate", "--trace", os.path.join(DATA, "trace", "h200", "h200_linear_trace.json.gz"))
        s = r["scalars"]
        self.assertEqual(s["base_accelerator"], "h200-sxm-141gb")  # from deviceProperties
        self.assertGreaterEqual(s["gemm_shapes_count_bf16"], 30)
        self.assertLess(s["fit_rms_error_fraction_bf16"], 0.10)
        # Short bursts of GEMMs between Python steps run before the power cap bites: faster than
        # the bench's sustained rate, below the peak.
        self.assertGreater(s["gemm_peak_fraction_bf16"], 0.7)
        self.assertLess(s["gemm_peak_fraction_bf16"], 1.0)

    def test_a_2026_training_step_trace_analyses_cleanly(self):
        r = as_json("analyze", os.path.join(DATA, "trace", "h200", "h200_gpt2_train_trace.json.gz"))
        s = r["scalars"]
        self.assertEqual(s["workload_device"], "h200-sxm-141gb")
        self.assertEqual(s["workload_trace_device_name"], "NVIDIA H200")
        self.assertGreater(s["workload_shaped_ops_flops"], 1e12)
        diags = rows(r, "diagnostics") if "diagnostics" in r["tables"] else []
        self.assertEqual([d for d in diags if d.get("severity") == "error"], [])
        tb = rows(r, "temporal_breakdown")[0]
        self.assertGreater(tb["compute_time_percent"], 80)


if __name__ == "__main__":
    unittest.main()
