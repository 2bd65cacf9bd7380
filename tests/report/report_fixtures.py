"""Reports of every command kind, written with the real `sextant` binary (shared by the CLI test of
reports and the browser test). Also the trace whose kernel name is markup, for the escaping tests."""
import glob
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
EVIL = "<img src=x onerror=alert(1)>"

# kind -> (arguments before --report, charts the page must have)
KINDS = {
    "estimate": (["estimate", "data/examples/llama3-70b-h100.yaml"],
                 ["step-breakdown", "communication", "memory", "roofline"]),
    "analyze": (["analyze", "tests/data/trace/param/dlrm_8rank"],
                ["temporal-breakdown", "idle-causes", "top-kernels", "overlap", "collective-skew", "stragglers"]),
    "goodput": (["goodput", "data/examples/goodput-llama3-405b-16k.yaml", "--replicas", "60", "--search-replicas", "20"],
                ["lost-time", "ettr-vs-interval", "strategies", "failure-processes"]),
    "infer-serve": (["infer", "serve", "data/examples/infer-llama3-8b-h100.yaml", "--set", "workload.requests=400"],
                    ["latency", "latency-cdf", "throughput-vs-load", "latency-vs-load", "kv-timeline"]),
    "infer-estimate": (["infer", "estimate", "--model", "llama3.1-8b", "--accelerator", "h100-sxm-80gb"],
                       # decode and prefill apart: a prefill is 100x a decode step (review of 2026-12-07)
                       ["iteration-time", "prefill-iteration-time"]),
    "infer-plan": (["infer", "plan", "data/examples/infer-plan-llama3-70b.yaml", "--set", "plan.requests=300"],
                   ["plan-candidates"]),
    "simulate": (["simulate", "data/examples/llama3-70b-h100.yaml"],
                 ["step-breakdown", "timeline", "per-rank", "critical-path"]),
    "plan": (["plan", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "16",
              "--seq-len", "2048", "--threads", "1", "--no-progress"],
             ["plan-ranking", "plan-memory-vs-time", "winner-vs-runner-up"]),
    "sweep": (["sweep", "--model", "llama3-8b", "--system", "dgx-h100", "--num-gpus", "8", "--global-batch", "16",
               "--seq-len", "2048", "--threads", "1", "--no-progress", "--fix", "tp=2",
               "--vary", "accelerator.memory_bandwidth_bytes_per_s=2e12,3e12,4e12",
               "--pareto", "step_time_s,tokens_per_joule", "--elasticity"],
              ["pareto", "tornado", "sweep-step-time"]),
    "generic": (["catalog", "list", "accelerators"], ["table-accelerators-0"]),
}


BIG_SEED = 9007199254740993  # 2^53 + 1: a double holds 2^53 (…992) instead
NUMBERS_RESULT = {
    "schema_version": 1, "command": "numbers check",
    "scalars": {"seed": BIG_SEED, "met_fraction": 0.9999999},
    "tables": {"draws": {"description": "integers and shares at the edge of a double's digits",
                         "types": {"name": "str", "seed": "i64", "met_fraction": "f64"},
                         "columns": {"name": ["a", "b", "c"], "seed": [BIG_SEED, BIG_SEED - 1, 5],
                                     "met_fraction": [0.9999999, 0.5, 0.25]}}},
    "notes": []}


def run(*args, env=None, check=True):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT, env=env)
    if check and p.returncode != 0:
        raise AssertionError(f"sextant {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p


def evil_trace(out_dir):
    """Two-rank synthetic trace in which one kernel is named with HTML markup."""
    run("trace", "synth", "--out", out_dir, "--ranks", "2", "--steps", "3", "--layers", "4", "-q")
    for f in sorted(glob.glob(os.path.join(out_dir, "*.json"))):
        with open(f) as fh:
            doc = json.load(fh)
        for e in doc["traceEvents"]:
            if e.get("cat") == "kernel" and "Gelu" in e.get("name", ""):
                e["name"] = EVIL
        with open(f, "w") as fh:
            json.dump(doc, fh)
    return out_dir


def write_reports(out_dir):
    """Writes <kind>.html for every kind plus xss.html; returns {kind: (path, expected chart ids)}."""
    os.makedirs(out_dir, exist_ok=True)
    written = {}
    for kind, (args, charts) in KINDS.items():
        path = os.path.join(out_dir, kind + ".html")
        run(*args, "--report", path, "-q")
        written[kind] = (path, charts)
    # A saved result whose numbers a browser formats badly unless told (review of 2026-12-06): an
    # integer past 2^53 (JSON.parse rounds it; it had read "9.007e+15") and a share just below the
    # whole (six significant digits had made 0.9999999 "1" and 99.99999% "100").
    numbers = os.path.join(out_dir, "numbers.json")
    with open(numbers, "w") as f:
        json.dump(NUMBERS_RESULT, f)
    path = os.path.join(out_dir, "numbers.html")
    run("report", numbers, "-o", path)
    written["numbers"] = (path, ["table-draws-0"])
    trace = evil_trace(os.path.join(out_dir, "xss-trace"))
    path = os.path.join(out_dir, "xss.html")
    run("analyze", trace, "--report", path, "-q")
    written["xss"] = (path, ["top-kernels"])
    return written


def embedded_data(html):
    start = html.index('<script type="application/json" id="sextant-data">') + len(
        '<script type="application/json" id="sextant-data">')
    return json.loads(html[start:html.index("</script>", start)])
