#!/usr/bin/env python3
"""Do the figures the documentation quotes still come out of the build? A declarative table, in
the manner of Perfetto's diff tests: each row names a doc, the text it quotes (whitespace-
insensitive), the number in that text, the sextant command that gives it and where in the
command's JSON result the number is. The test checks that the quote is still in the doc (so a
doc edit that leaves this table behind fails) and that the command's value, rounded as the quote
shows it, is the quoted number (so a model change that moves a figure fails until the doc says
what the build gives). The 2026-12-06 review found a dozen figures in models.md, simulate.md,
validation.md and plan.md that no longer reproduced after the day's estimate changes, and two
docs giving the same plan different figures.

Only figures whose commands take about a second are here (the fast tier); a dated historical
figure ("before 2026-12-03 X") is not a row, as it is meant to stay when the model moves."""
import json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


# Where a row's number is in the result: a scalar, a table cell (the row whose key column has the
# key), the first number a note's pattern captures, or a figure derived from the result (`then`).
def scalar(name, then=None):
    return ("scalar", name, then)


def cell(table, column, key_column, key, then=None):
    return ("cell", (table, column, key_column, key), then)


def note(pattern, then=None):
    return ("note", pattern, then)


def derived(what, fn):
    return ("derived", what, fn)


def _row_of(j, table, column, key_column, key):
    cols = j["tables"][table]["columns"]
    return cols[column][cols[key_column].index(key)]


def pick(j, sel):
    kind, what, then = sel
    if kind == "scalar":
        v = j["scalars"][what]
    elif kind == "cell":
        v = _row_of(j, *what)
    elif kind == "note":
        hits = [m for n in j["notes"] for m in [re.search(what, n)] if m]
        if not hits:
            raise KeyError(f"no note matches {what!r}")
        v = float(hits[0].group(1))
    else:
        return then(j)
    return then(v) if then else v


def err(row_id, then=None):  # a validation row's signed error, percent
    return cell("validation_rows", "error_pct", "id", row_id, then)


def pred(row_id):  # a validation row's predicted step time, s
    return cell("validation_rows", "predicted_step_time_s", "id", row_id)


# The commands (arguments to sextant; each runs once, with --json - -q).
QWEN = ["data/examples/qwen3-30b-a3b-h100-hybridep.yaml"]
QWEN32 = QWEN + ["--set", "num_gpus=32", "--set", "training.global_batch=128", "--set", "parallel.moe_dispatcher=alltoall"]
LLAMA70_Z3 = ["data/examples/llama3-70b-h100.yaml", "--set", "num_gpus=128", "--set", "parallel.pp=1", "--set", "parallel.vpp=1",
              "--set", "parallel.schedule=1f1b", "--set", "parallel.zero_stage=3", "--set", "training.recompute=full",
              "--set", "training.global_batch=128"]
MIXTRAL_GOLDEN = ["tests/golden/scenarios/mixtral-8x7b-h100-ep8.yaml", "--catalog", "tests/data/catalog-frozen"]
# Qwen3-30B-A3B at ep 8 on 32 H800 (4 nodes) with ZeRO-3, both overlaps, 64 sequences of 1024 (the
# review's scenario of 2026-12-07, docs/simulate.md), bundled catalog.
def H800_MOE_Z3_ON(system):
    return ["tests/golden/scenarios/mixtral-8x7b-h100-ep8.yaml", "--set", "model=qwen3-30b-a3b", "--set", f"system={system}",
            "--set", "parallel.zero_stage=3", "--set", "parallel.overlap.grad_reduce=true", "--set",
            "parallel.overlap.param_gather=true", "--set", "training.global_batch=64", "--set", "training.seq_len=1024",
            "--set", "training.recompute=selective"]


H800_MOE_Z3 = H800_MOE_Z3_ON("h800-ib-400g")
EP16 = ["--set", "parallel.ep=16"]
QWEN_CSV = ["validate", "data/validation/training-qwen3-30b-a3b.csv"]
TRAIN_CSV = ["validate", "data/validation/training.csv"]
DSV3 = ["infer", "estimate", "--model", "deepseek-v3", "--accelerator", "h200-sxm-141gb", "--tp", "8"]
GOODPUT = ["goodput", "data/examples/goodput-llama3-405b-16k.yaml"]
MOE_NOTE = r"MoE validation rows are predicted with median \|error\| ([\d.]+)%"


def z(stage):
    return ["--set", f"parallel.zero_stage={stage}"]


LLAMA70 = ["estimate", "data/examples/llama3-70b-h100.yaml"]
NO_GATHER_OVERLAP = ["--set", "parallel.overlap.param_gather=false"]
WEIGHTS_GB = cell("memory", "bytes", "item", "weights", lambda v: v / 1e9)
# Llama 3 8B at tp 1, one micro-batch per GPU, no sequence parallelism (rows set the rest).
LLAMA8 = [*LLAMA70, "--set", "model=llama3-8b", "--set", "parallel.tp=1", "--set", "parallel.vpp=1", "--set", "parallel.cp=1",
          "--set", "parallel.sequence_parallel=false", "--set", "training.micro_batch=1"]
PP1 = ["--set", "parallel.pp=1", "--set", "parallel.schedule=1f1b"]


def prec(p):
    return ["--set", f"training.precision={p}"]


def measured_mfu(row_id):  # the model's FLOPs over a row's measured step, as validated_mfu_max reads it
    return cell("validation_rows", "measured_mfu_fraction", "id", row_id)


def predicted_mfu(row_id):  # the model's FLOPs over a row's predicted step
    return cell("validation_rows", "predicted_mfu_fraction", "id", row_id)

# Llama 3 8B at 16384 tokens (rows set the plan): CP's merge bytes and its ring across nodes.
LLAMA8_16K = [*LLAMA70, "--set", "model=llama3-8b", "--set", "parallel.vpp=1", *PP1, "--set", "training.global_batch=16",
              "--set", "training.seq_len=16384"]
CP16_Z3 = [*LLAMA8_16K, "--set", "num_gpus=16", "--set", "parallel.tp=1", "--set", "parallel.cp=16",
           "--set", "parallel.sequence_parallel=false", *z(3)]
TP2_CP4 = [*LLAMA8_16K, "--set", "num_gpus=8", "--set", "parallel.tp=2", "--set", "parallel.cp=4"]


def op_bytes_mb(name):  # an op row's bytes per call, MB
    return cell("ops", "bytes", "op", name, lambda v: v / 1e6)


def ops_group_s(group):  # the op table's rows of a group, time per step summed
    def total(j):
        c = j["tables"]["ops"]["columns"]
        return sum(t for g, t in zip(c["group"], c["step_time_s"]) if g == group)
    return derived(f"ops rows of {group}", total)


# Llama 3 8B at tp 2 pp 4 (dp 8) with ZeRO-3 under 1F1B: the root unit gathered once a run (review of 2026-12-07).
LLAMA8_Z3_PP4 = [*LLAMA70, "--set", "model=llama3-8b", "--set", "num_gpus=64", "--set", "parallel.tp=2", "--set", "parallel.pp=4",
                 "--set", "parallel.vpp=1", "--set", "parallel.schedule=1f1b", *z(3), "--set", "training.global_batch=64",
                 "--set", "training.seq_len=4096"]

# GPT-3 1.3B at tp 16 over two B200 nodes with ZeRO-3 and both overlaps: hidden TP collectives
# stretched on the shared card (review of 2026-12-07: the page still gave 2026-12-06's -4%).
GPT13_TP16 = [*LLAMA70, "--set", "model=gpt3-1.3b", "--set", "system=dgx-b200", "--set", "num_gpus=64", "--set", "parallel.tp=16",
              "--set", "parallel.pp=1", "--set", "parallel.vpp=1", "--set", "parallel.schedule=1f1b", *z(3),
              "--set", "training.global_batch=4", "--set", "training.seq_len=2048"]
GPT13_TP16_SIM = ["simulate", *GPT13_TP16[1:]]
TP_COMM = ["--set", "parallel.overlap.tp_comm=true"]

# docs/inference.md's pipeline-batch table: Llama 3 8B served at pp 4 with 8 passes in flight.
PP4_8_PASSES = ["infer", "serve", "data/examples/infer-llama3-8b-h100.yaml", "--set", "workload.requests=2000", "--set", "deployment.pp=4",
                "--set", "serving.pipeline_batches=8"]
# Llama 3.1 70B FP8 at tp 2 with an 8B draft (k 4, acceptance 0.7), one request in flight.
SPD_STUDY = os.path.join(ROOT, "tests", "data", "infer", "speculative-70b-tp2.yaml")

# (doc, quoted text, the number as quoted, command, where the value is)
# calibrate --trace of the H200 GPT-2 training step: a gemm_fit row's error, percent, and the
# fitted kernel model's total GEMM time over the traced.
GPT2_CAL = ["calibrate", "--trace", "tests/data/trace/h200/h200_gpt2_train_trace.json.gz"]


def gemm_error_pct(m, n, k):
    def of(j):
        c = j["tables"]["gemm_fit"]["columns"]
        i = next(i for i in range(len(c["m"])) if (c["m"][i], c["n"][i], c["k"][i]) == (m, n, k))
        return c["error_fraction"][i] * 100
    return derived(f"gemm_fit error of {m}x{n}x{k}", of)


def fitted_over_traced_pct(j):
    c = j["tables"]["gemm_fit"]["columns"]
    traced = sum(c["traced_time_s"])
    return (sum(t / (1 + e) for t, e in zip(c["traced_time_s"], c["error_fraction"])) / traced - 1) * 100


FIGURES = [
    ("docs/models.md", "regathering the head, its step time is 0.7211 s", "0.7211", LLAMA8_Z3_PP4, scalar("step_time_s")),
    ("docs/models.md", "with 0.039 s of exposed `dp` on the critical first stage", "0.039", LLAMA8_Z3_PP4,
     cell("breakdown", "time_s", "item", "dp")),
    # The merge's bytes with their element size (the doc's formula had none: review of 2026-12-07).
    ("docs/models.md", "moves 3 x 4 x 4096 x 2048 x 2 = 201.3 MB a layer forward", "201.3", TP2_CP4, op_bytes_mb("attn.cp_merge")),
    ("docs/models.md", "3 x 3 x 4096 x 3072 x 2 = 226.5 MB backward", "226.5", TP2_CP4, op_bytes_mb("attn.cp_merge.bwd")),
    # The ring's rows carry their stretch on the shared card: they sum to the cp total (review of 2026-12-07).
    # 3.659 s until each ring took the card for its share of it only (review of 2026-12-07).
    ("docs/models.md", "(3.623 s since the card shares below, 2026-12-07;", "3.623", CP16_Z3,
     cell("communication", "total_s", "group", "cp")),
    ("docs/models.md", "(3.623 s since the card shares below, 2026-12-07;", "3.623", CP16_Z3, ops_group_s("cp")),
    ("README.md", "# 26.0 s (measured 24.7 s)", "26.0", ["estimate", *QWEN], scalar("step_time_s")),
    ("README.md", "(124 published runs;", "124", TRAIN_CSV, scalar("rows_count")),
    ("docs/models.md", "(estimate now 11.75 s, simulate 11.75 s;", "11.75", ["estimate", *LLAMA70_Z3], scalar("step_time_s")),
    ("docs/models.md", "(estimate now 11.75 s, simulate 11.75 s;", "11.75", ["simulate", *LLAMA70_Z3], scalar("step_time_s")),
    ("docs/models.md", "1.463 s with its sends stretched, next item), simulate 1.463 s", "1.463",
     ["estimate", "data/examples/llama3-70b-h100.yaml", "--set", "model=llama3-8b", "--set", "num_gpus=256", "--set", "parallel.pp=1",
      "--set", "parallel.vpp=1", "--set", "parallel.schedule=1f1b", "--set", "parallel.cp=4", "--set", "parallel.zero_stage=3",
      "--set", "training.global_batch=64"], scalar("step_time_s")),
    ("docs/models.md", "simulate 10.56 s (+15%, from +27%); with the stretch below it reads 10.52 s (2026-12-06)", "10.52",
     ["estimate", *QWEN, "--set", "num_gpus=128", "--set", "parallel.cp=4", "--set", "parallel.zero_stage=3", "--set", "training.recompute=full",
      "--set", "training.global_batch=512", "--set", "training.seq_len=8192", "--set", "parallel.moe_dispatcher=alltoall"], scalar("step_time_s")),
    ("docs/models.md", "(`--no-contention` 2.479 s), now 2.840 s", "2.840", ["estimate", *QWEN32, *z(3)], scalar("step_time_s")),
    ("docs/models.md", "with ZeRO-2 2.480 s, now 2.817 s (simulate 2.816 s", "2.817", ["estimate", *QWEN32, *z(2)], scalar("step_time_s")),
    ("docs/models.md", "with ZeRO-2 2.480 s, now 2.817 s (simulate 2.816 s", "2.816", ["simulate", *QWEN32, *z(2)], scalar("step_time_s")),
    ("docs/models.md", "with ZeRO-1 read 2.469 s against 2.544 s (2.552 s with the first walk, now 2.535 s)", "2.535", ["estimate", *QWEN32, *z(1)], scalar("step_time_s")),
    ("docs/models.md", "with ZeRO-1 read 2.469 s against 2.544 s (2.552 s with the first walk, now 2.535 s)", "2.544", ["simulate", *QWEN32, *z(1)], scalar("step_time_s")),
    ("docs/models.md", "MBS-5225-*: +5.1% without and +2.4% with EP overlap", "+5.1", QWEN_CSV, err("MBS-5225-H100-EP16")),
    ("docs/models.md", "MBS-5225-*: +5.1% without and +2.4% with EP overlap", "+2.4", QWEN_CSV, err("MBS-5225-H100-EP16-OVERLAP")),
    # Against the measured 24.71 s of MBS-5225-H100-EP16.
    ("docs/models.md", "the all-to-all dispatcher would be 58% slow", "58",
     ["estimate", *QWEN, "--set", "parallel.moe_dispatcher=alltoall"], scalar("step_time_s", lambda s: (s / 24.71 - 1) * 100)),
    ("docs/models.md", "The Mixtral golden 5.342 s (`simulate` 5.345 s;", "5.342", ["estimate", *MIXTRAL_GOLDEN], scalar("step_time_s")),
    ("docs/models.md", "The Mixtral golden 5.342 s (`simulate` 5.345 s;", "5.345", ["simulate", *MIXTRAL_GOLDEN], scalar("step_time_s")),
    # The step's wait for its buckets booked to the groups still running (review of 2026-12-07).
    ("docs/simulate.md", "reads exposed dp 0.00139 s and edp 0.0364 s", "0.00139", ["simulate", *MIXTRAL_GOLDEN],
     cell("communication", "exposed_s", "group", "dp")),
    ("docs/simulate.md", "reads exposed dp 0.00139 s and edp 0.0364 s", "0.0364", ["simulate", *MIXTRAL_GOLDEN],
     cell("communication", "exposed_s", "group", "edp")),
    ("docs/simulate.md", "`estimate` 0.02506 s against 0.02508 s (-0.09%;", "0.02506", GPT13_TP16, scalar("step_time_s")),
    ("docs/simulate.md", "`estimate` 0.02506 s against 0.02508 s (-0.09%;", "0.02508", GPT13_TP16_SIM, scalar("step_time_s")),
    ("docs/simulate.md", "with `overlap.tp_comm` 0.02326 s against 0.02359 s", "0.02326", [*GPT13_TP16, *TP_COMM], scalar("step_time_s")),
    ("docs/simulate.md", "with `overlap.tp_comm` 0.02326 s against 0.02359 s", "0.02359", [*GPT13_TP16_SIM, *TP_COMM], scalar("step_time_s")),
    ("docs/simulate.md", "exposed TP time (0.01562 s against 0.01596 s;", "0.01562", [*GPT13_TP16, *TP_COMM],
     cell("communication", "exposed_s", "group", "tp")),
    ("docs/simulate.md", "exposed TP time (0.01562 s against 0.01596 s;", "0.01596", [*GPT13_TP16_SIM, *TP_COMM],
     cell("communication", "exposed_s", "group", "tp")),
    ("docs/simulate.md", "2.840 s and 2.817 s on those plans", "2.840", ["estimate", *QWEN32, *z(3)], scalar("step_time_s")),
    ("docs/simulate.md", "2.840 s and 2.817 s on those plans", "2.817", ["estimate", *QWEN32, *z(2)], scalar("step_time_s")),
    # estimate against simulate on MoE ZeRO-3 over H800 nodes, whose dense DP ring is bound by NVLink
    # and draws 0.43 of the card (review of 2026-12-07: estimate read 1.0800 s and 0.6261 s).
    ("docs/simulate.md", "read 1.0800 s against 1.0186 s, now 1.0291 s", "1.0291", ["estimate", *H800_MOE_Z3], scalar("step_time_s")),
    ("docs/simulate.md", "read 1.0800 s against 1.0186 s, now 1.0291 s", "1.0186", ["simulate", *H800_MOE_Z3], scalar("step_time_s")),
    ("docs/simulate.md", "0.6261 s against 0.5783 s, now 0.5799 s", "0.5799", ["estimate", *H800_MOE_Z3, *EP16], scalar("step_time_s")),
    ("docs/simulate.md", "0.6261 s against 0.5783 s, now 0.5799 s", "0.5783", ["simulate", *H800_MOE_Z3, *EP16], scalar("step_time_s")),
    ("docs/simulate.md", "0.5523 s against 0.5547 s, now 0.5517 s", "0.5517",
     ["estimate", *H800_MOE_Z3_ON("dgx-h100"), *EP16, "--set", "accelerator=h800-sxm-80gb"], scalar("step_time_s")),
    ("docs/simulate.md", "0.5523 s against 0.5547 s, now 0.5517 s", "0.5547",
     ["simulate", *H800_MOE_Z3_ON("dgx-h100"), *EP16, "--set", "accelerator=h800-sxm-80gb"], scalar("step_time_s")),
    ("docs/simulate.md", "that plan at ZeRO-1 2.535 s against 2.544 s", "2.535", ["estimate", *QWEN32, *z(1)], scalar("step_time_s")),
    ("docs/validation.md", "| all rows, fitted constants | 4.05% | 14.30% | 56.0% |", "14.30", TRAIN_CSV, scalar("p90_abs_error_pct")),
    ("docs/validation.md", "median 14.7%, from 2.3% to 64.3%", "14.7", QWEN_CSV, scalar("median_abs_error_pct")),
    ("docs/validation.md", "The model predicts them +5.1% and +2.4%", "+5.1", QWEN_CSV, err("MBS-5225-H100-EP16")),
    ("docs/validation.md", "predicted 9.2% fast and 6.2% slow (2026-12-07", "9.2", QWEN_CSV, err("MLM-5728-H100-FP8", abs)),
    ("docs/validation.md", "predicted 9.2% fast and 6.2% slow (2026-12-07", "6.2", QWEN_CSV, err("MLM-5728-H100-BF16")),
    ("docs/validation.md", "0.51 s of gain per step (3.316 - 2.810 s", "0.51", QWEN_CSV,
     derived("BF16 less FP8 predicted step", lambda j: pick(j, pred("MLM-5728-H100-BF16")) - pick(j, pred("MLM-5728-H100-FP8")))),
    ("docs/validation.md", "0.28 s (2.810 s predicted, 3.095 s measured)", "2.810", QWEN_CSV, pred("MLM-5728-H100-FP8")),
    ("docs/validation.md", "(MBRIDGE-ARCHIVE-28) ran the same 25.11 software on H100 and is predicted 11.6% slow", "11.6", TRAIN_CSV,
     err("MBRIDGE-ARCHIVE-28")),
    ("docs/plan.md", "(13.6% over 20 rows, against 4.0% over the whole set, 2026-12-06;", "13.6", ["estimate", *QWEN], note(MOE_NOTE)),
    ("docs/plan.md", "(13.6% over 20 rows, against 4.0% over the whole set, 2026-12-06;", "4.0", ["estimate", *QWEN],
     note(r"against ([\d.]+)% over the whole training set")),
    ("docs/plan.md", "in fp8 the 11 MoE rows have median 15.4%", "15.4", ["estimate", *QWEN, "--set", "training.precision=fp8"],
     note(r"rows in 8-bit precisions \(fp8, fp4, int8\) have median \|error\| ([\d.]+)%")),
    ("docs/plan.md", "where the model gives 2.81 s and 3.32 s", "2.81", QWEN_CSV, pred("MLM-5728-H100-FP8")),
    ("docs/plan.md", "where the model gives 2.81 s and 3.32 s", "3.32", QWEN_CSV, pred("MLM-5728-H100-BF16")),
    # The dense ladder's {mlp} without the norms (review of 2026-12-07): Llama 3 8B on 8 GPUs at 16k.
    ("docs/plan.md", "where `rc:selective(mlp)` fits at 9.051 s", "9.051",
     [*LLAMA70, "--set", "model=llama3-8b", "--set", "num_gpus=8", "--set", "parallel.tp=2", *PP1, "--set", "parallel.vpp=1",
      "--set", "parallel.dp=2", "--set", "parallel.cp=2", *z(0), "--set", "parallel.overlap.tp_comm=true", "--set", "training.global_batch=32",
      "--set", "training.seq_len=16384", "--set", "training.recompute=selective", "--set", "training.recompute_modules=[mlp]"],
     scalar("step_time_s")),
    # Sextant's MFU of a validation row over its measured step (causal attention; the published
    # figure counts the full score matrix: review of 2026-12-06).
    ("docs/plan.md", "reach 0.47 by Sextant's count (MLM-README-H100-03,", "0.47", ["estimate", "data/examples/llama3-70b-h100.yaml"],
     scalar("validated_mfu_max_fraction")),
    # The row table's two MFUs (review of 2026-12-06: the doc had called the predicted one "over the
    # measured step"); the measured one is also checked against its definition.
    ("docs/validation.md", "(0.4943), and reads 0.4708 here", "0.4708", TRAIN_CSV, measured_mfu("MLM-README-H100-03")),
    ("docs/validation.md", "(0.4943), and reads 0.4708 here", "0.4708", TRAIN_CSV, derived("MLM-README-H100-03 MFU over the measured step",
     lambda j: pick(j, predicted_mfu("MLM-README-H100-03")) * pick(j, pred("MLM-README-H100-03"))
     / pick(j, cell("validation_rows", "target_step_time_s", "id", "MLM-README-H100-03")))),
    ("docs/validation.md", "MLM-README-H100-03 reads 0.4510 predicted and 0.4708 measured, its step predicted 4.4% slow", "0.4510",
     TRAIN_CSV, predicted_mfu("MLM-README-H100-03")),
    ("docs/validation.md", "MLM-README-H100-03 reads 0.4510 predicted and 0.4708 measured, its step predicted 4.4% slow", "0.4708",
     TRAIN_CSV, measured_mfu("MLM-README-H100-03")),
    ("docs/validation.md", "MLM-README-H100-03 reads 0.4510 predicted and 0.4708 measured, its step predicted 4.4% slow", "4.4",
     TRAIN_CSV, err("MLM-README-H100-03")),
    ("docs/validation.md", "56.3% published, 0.559 here", "0.559", TRAIN_CSV, measured_mfu("KORTH22-T5-08")),
    ("docs/validation.md", "(`predicted_mfu_fraction` 0.5315)", "0.5315", TRAIN_CSV, predicted_mfu("KORTH22-T5-08")),
    # The fitted constants' effect on the whole set (docs/validation.md, Fitted constants).
    ("docs/validation.md", "optimum would move the whole set's median from 4.05% to 4.15% (all three: 4.31%)", "4.31",
     [*TRAIN_CSV, "--fit"], scalar("median_abs_error_pct")),
    ("docs/validation.md", "optimum would move the whole set's median from 4.05% to 4.15% (all three: 4.31%)", "4.05",
     TRAIN_CSV, scalar("median_abs_error_pct")),
    # Transformer Engine's cast weight copies beside 16-bit parameters (review of 2026-12-06).
    ("docs/models.md", "held 4.54 GB of weights on stage 0, now 8.82 GB", "8.82", [*LLAMA70, *z(0), *NO_GATHER_OVERLAP, *prec("fp8")], WEIGHTS_GB),
    ("docs/models.md", "held 4.54 GB of weights on stage 0, now 8.82 GB", "4.54", [*LLAMA70, *z(0), *NO_GATHER_OVERLAP, *prec("bf16")], WEIGHTS_GB),
    ("docs/models.md", "in fp4 on `dgx-b200` 4.54 GB, now 6.95 GB", "6.95", [*LLAMA70, "--set", "system=dgx-b200", *prec("fp4")], WEIGHTS_GB),
    # Per-GPU memory of Llama 3 8B plans (review of 2026-12-06: the recomputed layer after the loss
    # head's logits, ZeRO-3 without gradient buckets, ZB-H1's last rank).
    ("docs/models.md", "where its last rank holds 66.9 GB (`estimate`, 2026-12-06)", "66.9",
     [*LLAMA8, "--set", "num_gpus=32", "--set", "parallel.pp=4", "--set", "parallel.schedule=zb-h1", "--set", "training.global_batch=32",
      "--set", "training.recompute=none", "--set", "training.seq_len=8192"], cell("stages", "memory_bytes", "stage", 3, lambda v: v / 1e9)),
    ("docs/models.md", "where it holds 79.5 GiB", "79.5",
     [*LLAMA8, *PP1, "--set", "num_gpus=8", "--set", "training.global_batch=8", "--set", "training.recompute=full", "--set", "training.seq_len=28672"],
     scalar("memory_per_gpu_bytes", lambda v: v / 2**30)),
    ("docs/models.md", "logged against 50.3 then, 45.8 since 2026-12-06", "45.8",
     [*LLAMA8, *PP1, "--set", "num_gpus=8", "--set", "training.global_batch=8", "--set", "training.recompute=full", "--set", "training.seq_len=32768",
      *z(3)], scalar("memory_per_gpu_bytes", lambda v: v / 2**30)),
    # Re-measured 2026-12-07 (review: the decode steps' contexts and the speculative step count).
    ("docs/inference.md", "| 4 | 8 | 59.76 | 36.55 ms |", "59.76", PP4_8_PASSES, scalar("saturation_requests_per_s")),
    ("docs/inference.md", "| 4 | 8 | 59.76 | 36.55 ms |", "36.55", PP4_8_PASSES, scalar("tpot_p50_s", lambda v: v * 1e3)),
    ("docs/inference.md", "estimate 8.43 ms per token, serve's median 8.40 ms", "8.43",
     ["infer", "estimate", SPD_STUDY, "--prompt", "1000", "--output", "200"], scalar("time_per_output_token_s", lambda v: v * 1e3)),
    ("docs/inference.md", "H200 takes 0.179 s instead of bf16's 0.257 s", "0.179", [*DSV3, "--prompt", "8192", "--output", "1"],
     scalar("prefill_time_s")),
    ("docs/inference.md", "H200 takes 0.179 s instead of bf16's 0.257 s", "0.257",
     [*DSV3, "--prompt", "8192", "--output", "1", "--activations", "bf16"], scalar("prefill_time_s")),
    # fp8 weights on vLLM run W8A8 on an H100 where no activation format is given (review of 2026-12-07).
    ("docs/inference.md", "gives `compute_dtype` fp8 and a prefill of 0.0475 s", "0.0475",
     ["infer", "estimate", "--model", "llama3-8b", "--accelerator", "h100-sxm-80gb", "--engine", "vllm", "--prompt", "4000",
      "--weights", "fp8"], scalar("prefill_time_s")),
    # W4A8 (int4 weights, fp8 activations) runs fp8 GEMMs (review of 2026-12-07).
    ("docs/inference.md", "a prefill of 0.170 s, against 0.282 s for `--activations bf16`", "0.170",
     ["infer", "estimate", "--model", "llama3-70b", "--accelerator", "h100-sxm-80gb", "--tp", "4", "--weights", "int4",
      "--activations", "fp8", "--prompt", "4096"], scalar("prefill_time_s")),
    ("docs/inference.md", "a prefill of 0.170 s, against 0.282 s for `--activations bf16`", "0.282",
     ["infer", "estimate", "--model", "llama3-70b", "--accelerator", "h100-sxm-80gb", "--tp", "4", "--weights", "int4",
      "--activations", "bf16", "--prompt", "4096"], scalar("prefill_time_s")),
    ("docs/inference.md", "gives 3.31 ms a token (302 tokens/s", "3.31", [*DSV3, "--prompt", "128", "--output", "256"],
     scalar("time_per_output_token_s", lambda s: s * 1e3)),
    ("docs/inference.md", "| calibrated, all 57 rows | 4.2% | 7.4% | 13.0% |", "4.2", ["infer", "validate", "data/validation/inference.csv"],
     scalar("median_abs_error_pct")),
    ("docs/inference.md", "| leave-one-chip-out (2026-12-04) | 5.9% | 21.3% | 26.6% |", "21.3",
     ["infer", "validate", "data/validation/inference.csv"], scalar("lodo_p90_abs_error_pct")),
    # The closed forms (Young, Daly, Meta, the mean restart) do not depend on the replicas; the
    # simulated ETTR does, so it runs with the doc's 10,000 (about a second on 2 cores).
    ("docs/goodput.md", "the Young interval went from 72.9 s to 76.9 s and Meta's ETTR from 0.900 to 0.901", "76.9",
     [*GOODPUT, "--replicas", "10000", "--seed", "1"], scalar("young_interval_s")),
    ("docs/goodput.md", "(simulated 0.901; 0.9013 and 0.9014 with `--replicas 10000 --seed 1`)", "0.9014",
     [*GOODPUT, "--replicas", "10000", "--seed", "1"], scalar("ettr_fraction")),
    ("docs/goodput.md", "with M = 10,012 s, R = 2,518 s", "2,518",
     [*GOODPUT, "--replicas", "20", "--set", "checkpoint.write_s=1800", "--set", "checkpoint.read_s=1800"], scalar("mean_restart_s")),
    # Daly 0.197 and Meta 0.179 until the closed forms counted the planned maintenance's notice
    # (1,800 s, 0.27 s short of the final save; review of 2026-12-07).
    ("docs/goodput.md", "the simulation gives 0.224, Daly 0.199 and Meta 0.182", "0.182",
     [*GOODPUT, "--replicas", "20", "--set", "checkpoint.write_s=1800", "--set", "checkpoint.read_s=1800"],
     scalar("meta_expected_ettr_fraction")),
    # The restart knob's needed value at a 0.91 target (about 1.5 s): it read 592.178 (x0.847229)
    # in the doc where the build gave 592.475 (x0.847656) (review of 2026-12-07); 595.744
    # (x0.852356) since the knobs correct the search replicas' offset from the headline (2026-12-07).
    ("docs/goodput.md", "`595.744 (x0.852356 on recovery.detection_s,", "595.744", [*GOODPUT, "--target-ettr", "0.91"],
     cell("knobs", "required", "knob", "mean_restart_s", lambda s: float(s.split()[0]))),
    ("docs/goodput.md", "`595.744 (x0.852356 on recovery.detection_s,", "0.852356", [*GOODPUT, "--target-ettr", "0.91"],
     cell("knobs", "required", "knob", "mean_restart_s", lambda s: float(s.split()[1].lstrip("(x")))),
    ("docs/goodput.md", "598 s to 377 s (0.910; 370.5 s", "377", [*GOODPUT, "--target-ettr", "0.91"],
     cell("knobs", "required_value", "knob", "checkpoint_interval_s")),
    # The GEMM fit of the H200 training-step trace (calibrate --trace, about half a second): the page
    # had given f 0.791, h 27, t0 3.4 us, +0.0% and +5.0%, none of which the build gave (review of
    # 2026-12-07); re-measured once one slow shape could no longer hold the others down.
    ("docs/bench.md", "now `f` 0.8273, half-dimension 91.4, `t0` 2.13 us", "0.8273", GPT2_CAL, scalar("gemm_peak_fraction_bf16")),
    ("docs/bench.md", "now `f` 0.8273, half-dimension 91.4, `t0` 2.13 us", "91.4", GPT2_CAL, scalar("gemm_half_dim_bf16")),
    ("docs/bench.md", "now `f` 0.8273, half-dimension 91.4, `t0` 2.13 us", "2.13", GPT2_CAL,
     scalar("gemm_kernel_fixed_time_s", lambda s: s * 1e6)),
    ("docs/bench.md", "2.13 us, -0.4% and +3.0% (the cap)", "-0.4", GPT2_CAL, gemm_error_pct(8192, 32768, 1024)),
    ("docs/bench.md", "2.13 us, -0.4% and +3.0% (the cap)", "+3.0", GPT2_CAL, gemm_error_pct(8192, 4096, 1024)),
    ("docs/bench.md", "its 12 shapes' fitted total time 5.1% above the traced", "5.1", GPT2_CAL,
     derived("fitted over traced GEMM time, less 1, percent", fitted_over_traced_pct)),
    ("docs/bench.md", "faster: 8192 x 1024 x 32768 -11.5%;", "-11.5", GPT2_CAL, gemm_error_pct(8192, 1024, 32768)),
    # Against the other ranks' median since the 2026-12-07 review (0.43 against the median of all ranks).
    ("docs/trace-analysis.md", "mean start is 0.59 ms after the other ranks' median", "0.59",
     ["analyze", "tests/data/trace/param/dlrm_8rank", "--only", "collectives"],
     cell("stragglers", "mean_lateness_vs_median_us", "rank", 2, lambda us: us / 1000)),
]


def as_quoted(value, shown):
    """value written the way `shown` is: its decimals, its sign, its thousands separators."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    spec = ("+" if shown[0] in "+-" else "") + ("," if "," in shown else "") + f".{decimals}f"
    return format(value, spec)


def quote_line(doc_text, quote):
    """The 1-based line where the quote starts in the doc (whitespace-insensitive), or None."""
    m = re.search(r"\s+".join(re.escape(w) for w in quote.split()), doc_text)
    return doc_text[:m.start()].count("\n") + 1 if m else None


_results = {}


def run(args):
    key = tuple(args)
    if key not in _results:
        r = subprocess.run([BIN, *args, "--json", "-", "-q"], capture_output=True, text=True, cwd=ROOT)
        _results[key] = json.loads(r.stdout) if r.returncode == 0 else RuntimeError(f"exit {r.returncode}: {r.stderr[-400:]}")
    return _results[key]


docs = {}
for doc, quote, shown, args, where in FIGURES:
    if doc not in docs:
        with open(os.path.join(ROOT, doc)) as f:
            docs[doc] = f.read()
    line = quote_line(docs[doc], quote)
    cmd = "sextant " + " ".join(args)
    name = f"{doc}:{line or '?'} '{shown}'"
    if line is None:
        check(name, False, f"the quote \"{quote}\" is no longer in {doc}: update this table's row (test_doc_figures.py) "
              f"with the doc's new text, and re-run `{cmd}` to check its figure")
        continue
    if shown not in quote:
        check(name, False, f"this table's row quotes '{shown}', which is not in \"{quote}\"")
        continue
    j = run(args)
    if isinstance(j, Exception):
        check(name, False, f"`{cmd}` failed: {j}")
        continue
    try:
        value = pick(j, where)
    except (KeyError, ValueError, IndexError) as e:
        check(name, False, f"`{cmd}` has no {where[:2]}: {e}")
        continue
    got = as_quoted(value, shown)
    check(name, got == shown,
          f"{doc} line {line} quotes {shown} in \"{quote}\" but `{cmd}` gives {value!r} ({where[0]} {where[1]}), "
          f"i.e. {got}: update the doc line (keeping any dated history) and this table's row together")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
