#!/usr/bin/python3
"""Does every number Sextant prints say its unit in its name?

The result schema (docs/architecture.md, "Names and units") names every numeric scalar and column
with its unit: a unit word (`_s`, `_bytes`, `_flops`, `_w`, `_usd`, `tokens`, ...) or a
dimensionless kind (`_fraction`, `_percent`, `_ratio`, `_count`, `_probability`, `_factor`)
somewhere in the name, so the CLI, the reports (which read the unit from the name) and the results
database never have to guess. The exceptions are written down here and in the doc: identifiers and
plan degrees (integers: `rank`, `stage`, `tp`, ...; a plan's place in a ranking, `own_plan_rank`, and a
trace's `correlation` id), the catalog's own structural keys as
`catalog show` echoes them (`hidden`, `layers`, ...), and per-row values whose unit is a column of
the same row (`unit`, `parameter`, `constant`). Booleans and text carry no unit.

The question is answered on the JSON of real runs of every command kind, so a new scalar or column
without a unit fails here, naming the command, the table and the name.
"""
import json
import os
import re
import subprocess
import tempfile
import unittest

BIN = os.environ.get("SEXTANT_BIN", "build/sextant")

# A name carries its unit when one of its underscore-separated words is one of these.
UNIT_WORDS = {
    "s", "us", "ms", "ns", "bytes", "gib", "gb", "flops", "flop", "tflops", "w", "j", "joule", "usd",
    "gbps", "ghz", "day", "days", "hour", "hours", "billions",
    # a size along a tensor dimension, in elements (gemm_half_dim_bf16)
    "dim",
    # a count may name what it counts
    "tokens", "seqs", "requests", "gpus", "nodes", "nics", "steps", "layers", "experts", "heads", "bits",
    "kernels", "rows", "replicas",
    # dimensionless kinds
    "fraction", "percent", "pct", "ratio", "count", "probability", "factor", "flag",
    # an information criterion (corrected Akaike: 2k - 2 ln L + ...), a dimensionless statistic
    "aicc",
}
# Identifiers (indices, plan degrees, scenario sizes echoed as given): integers with no unit.
IDENTIFIERS = {
    "rank", "step", "stage", "stream", "segment", "sequence", "request", "microbatch", "unit",
    "collective_row", "last_rank", "representative_rank", "estimate_rank", "runner_up_rank",
    "critical_stage", "operator_depth", "world_size", "seed", "tp", "dp", "pp", "cp", "ep", "etp",
    "vpp", "zero_stage", "micro_batch", "global_batch", "seq_len", "schema_version", "db_schema_version",
    "run_id", "run_a", "run_b", "best_tp", "best_pp", "closest_tp", "closest_pp",
    # ranks are ordinals: a plan's place in plan's ranking, a published plan's in practice's
    "own_plan_rank", "published_rank", "unrestricted_published_rank",
    # the trace's correlation id, linking a launch to its kernel (analyze --per-launch, as HTA names it)
    "correlation",
    # a GEMM's shape, in elements
    "m", "n", "k",
    # serve's requests table with trace arrivals: the request's row, as its 1-based line in the file
    "trace_line",
}
# Statistical terms that are probabilities by definition.
STATISTICS = {"alpha", "p_value", "min_p_value", "jitter_sigma",
              # a Weibull distribution's shape (its exponent) and its 95% interval
              "weibull_shape", "weibull_shape_ci95_low", "weibull_shape_ci95_high"}
# `catalog show MODEL` echoes the model's structural keys under the catalog's own names.
# Their sizes are in elements (hidden, head_dim, ffn_hidden, vocab, max_seq_len in tokens).
CATALOG_KEYS = {
    "hidden", "ffn_hidden", "head_dim", "vocab", "max_seq_len", "sliding_window", "moe_topk",
    "moe_expert_ffn_hidden", "mla_q_lora_rank", "mla_kv_lora_rank", "mla_qk_nope_head_dim",
    "mla_qk_rope_head_dim", "mla_v_head_dim", "moe_layer_freq",
}
# A column whose unit is named by another column of its row.
UNIT_COLUMNS = {"unit", "parameter", "constant", "metric", "counter"}
ROW_VALUES = {"value", "predicted", "target", "lodo_predicted", "median_a", "median_b"}

COMMANDS = [
    ["estimate", "data/examples/llama3-70b-h100.yaml"],
    ["estimate", "data/examples/qwen3-30b-a3b-h100-hybridep.yaml"],
    ["estimate", "examples/deepseek-v3-h800-2k.yaml"],
    ["simulate", "data/examples/llama3-70b-h100.yaml", "--straggler", "17=1.3"],
    ["simulate", "data/examples/llama3-70b-h100.yaml", "--all-ranks"],
    # --fit: the fitted_constants table too (its objective and bound columns, review of 2026-12-06)
    ["validate", "data/validation/training.csv", "--fit"],
    ["validate", "data/validation/inference.csv"],
    ["plan", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "64",
     "--seq-len", "4096"],
    # a scenario's own plan (own_plan_rank) and plan against practice on two rows (review of 2026-12-06:
    # neither form had been run here)
    ["plan", "data/examples/llama3-70b-h100.yaml", "--top", "3", "--rerank-top", "0", "--no-progress"],
    ["plan", "--practice", "{tmp}/practice.csv", "--no-progress"],
    ["sweep", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "64",
     "--seq-len", "4096", "--vary", "accelerator.memory_bandwidth_bytes_per_s=2e12,4e12", "--elasticity"],
    ["catalog", "list", "accelerators"],
    ["catalog", "list", "models"],
    ["catalog", "list", "systems"],
    ["catalog", "show", "h100-sxm-80gb"],
    ["catalog", "show", "llama3-70b"],
    ["catalog", "show", "deepseek-v3"],
    ["catalog", "show", "dgx-h100"],
    ["catalog", "show", "tpu-ici-v5p"],
    ["analyze", "tests/data/trace/param/dlrm_8rank/", "--scale", "comm=0.5"],
    ["analyze", "tests/data/trace/hta/critical_path/cuda_event_sync/"],
    ["analyze", "tests/data/trace/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "--per-launch"],
    ["goodput", "examples/goodput-llama3-405b-16k.yaml", "--replicas", "60", "--search-replicas", "20"],
    ["infer", "estimate", "--model", "llama3-8b", "--accelerator", "h100-sxm-80gb"],
    ["infer", "serve", "data/examples/infer-llama3-8b-h100.yaml"],
    ["infer", "plan", "data/examples/infer-plan-llama3-70b.yaml"],
    # a plan that finds none: its closest_* scalars (review of 2026-12-07)
    ["infer", "plan", "data/examples/infer-plan-llama3-70b.yaml", "--set", "plan.requests=200", "--set", "slo.ttft_s=0.05",
     "--set", "plan.max_batch_seqs=[128]", "--set", "plan.accelerators=[h100-sxm-80gb]", "--set", "plan.tp=[8]",
     "--set", "plan.max_devices=32"],
    ["infer", "serve", "data/examples/infer-on-device.yaml"],
    ["bench", "--quick", "--suite", "memory_latency", "--reps", "2", "--db", "{db}"],
    ["bench", "--quick", "--suite", "memory_latency", "--reps", "2", "--db", "{db}"],
    ["bench", "run", "--reps", "2", "--db", "{db}", "--", "/bin/sh", "-c", "exit 0"],
    ["history", "list", "--db", "{db}"],
    ["history", "show", "latest", "--params", "--db", "{db}"],
    ["history", "compare", "1", "2", "--db", "{db}"],
    # an imported log's host, whose CPU, memory and kernel are unknown
    ["bench", "import-nccl", "tests/data/bench/all_reduce_perf_8ranks.txt", "--no-db"],
    ["goodput", "--fit", "{tmp}/incidents.csv", "--fit-nodes", "100", "--fit-days", "30"],
    ["calibrate", "--trace", "tests/data/trace/h200/h200_linear_trace.json.gz", "--trace-rates", "burst",
     "--out", "{tmp}/h200.yaml"],
    # A bench run's calibration (its scalars had not been checked: only --trace's were).
    ["calibrate", "--db", "tests/data/bench/h200/h200-gpu-bench.db", "--peak-from", "h200-sxm-141gb",
     "--out", "{tmp}/h200-bench.yaml"],
]


def unitless(name, value_kind, table_text_columns):
    """Why a numeric name lacks a unit, or None when it carries one (or is a documented exception)."""
    words = name.replace(".", "_").split("_")
    if any(w in UNIT_WORDS for w in words):
        return None
    if name in STATISTICS or name.endswith("_p_value"):
        return None
    if name in IDENTIFIERS:
        return None if value_kind == "int" else "an identifier must be an integer"
    if name.endswith("_value") or name in ROW_VALUES:
        return None if table_text_columns & UNIT_COLUMNS else "no unit column names this value's unit"
    return "no unit word in the name"


def kind_of(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float) or v is None:
        return "float"
    return "text"


class ResultNames(unittest.TestCase):
    maxDiff = None

    def test_every_numeric_scalar_and_column_names_its_unit(self):
        bad = []
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.json")
            with open(os.path.join(tmp, "incidents.csv"), "w") as f:  # goodput --fit's input
                f.write("time_h,category\n" + "".join(f"{i * 50 + 7.5},gpu\n" for i in range(12)) + "100,network\n")
            with open("data/validation/training.csv", newline="") as f:  # plan --practice's input: two rows
                lines = f.read().splitlines(keepends=True)
            with open(os.path.join(tmp, "practice.csv"), "w", newline="") as f:
                f.write("".join(lines[:3]))
            for cmd in COMMANDS:
                cmd = [a.format(db=os.path.join(tmp, "runs.db"), tmp=tmp) for a in cmd]
                if "--" in cmd:
                    i = cmd.index("--")
                    argv = [BIN, *cmd[:i], "--json", out, *cmd[i:]]
                else:
                    argv = [BIN, *cmd, "--json", out]
                p = subprocess.run(argv, capture_output=True, text=True, timeout=600,
                                   stdin=subprocess.DEVNULL)
                # history compare exits 1 on a regression, which two quick runs may show
                self.assertIn(p.returncode, (0, 1) if cmd[0] == "history" else (0,), f"{' '.join(cmd)}: {p.stderr}")
                with open(out, encoding="utf-8") as f:
                    doc = json.load(f)
                where = " ".join(cmd[:2])
                in_catalog = cmd[0] == "catalog"
                for name, v in doc["scalars"].items():
                    k = kind_of(v)
                    if k in ("bool", "text") or (in_catalog and name in CATALOG_KEYS):
                        continue
                    why = unitless(name, k, set())
                    if why:
                        bad.append(f"{where}: scalar {name}: {why}")
                for tname, t in doc["tables"].items():
                    text_cols = {c for c, ty in t["types"].items() if ty == "str"}
                    for c, ty in t["types"].items():
                        if ty in ("str", "bool") or (in_catalog and c in CATALOG_KEYS):
                            continue
                        why = unitless(c, "int" if ty == "i64" else "float", text_cols)
                        if why:
                            bad.append(f"{where}: table {tname} column {c}: {why}")
        self.assertEqual(sorted(set(bad)), [], "names without a unit (docs/architecture.md, Names and units)")

    def test_the_rule_rejects_a_bare_quantity(self):
        # The check itself can fail: a bare name, a float identifier and an orphan value are caught.
        self.assertIsNotNone(unitless("ettr", "float", set()))
        self.assertIsNotNone(unitless("queue_length_mean", "float", set()))
        self.assertIsNotNone(unitless("rank", "float", set()))
        self.assertIsNotNone(unitless("design_value", "float", set()))
        self.assertIsNone(unitless("design_value", "float", {"parameter"}))
        self.assertIsNone(unitless("ettr_fraction", "float", set()))
        self.assertIsNone(unitless("time_to_train_s_ci_low", "float", set()))


if __name__ == "__main__":
    unittest.main()
