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
                       ["iteration-time"]),
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
    trace = evil_trace(os.path.join(out_dir, "xss-trace"))
    path = os.path.join(out_dir, "xss.html")
    run("analyze", trace, "--report", path, "-q")
    written["xss"] = (path, ["top-kernels"])
    return written


def embedded_data(html):
    start = html.index('<script type="application/json" id="sextant-data">') + len(
        '<script type="application/json" id="sextant-data">')
    return json.loads(html[start:html.index("</script>", start)])
