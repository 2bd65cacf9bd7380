#!/usr/bin/env python3
"""Question: does `sextant catalog show` accept a Hugging Face config.json as a model, map its keys
per model_type, list the keys it ignores, and reject an unknown model_type with a clear message?"""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
DATA = os.path.join(ROOT, "tests", "data", "catalog")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def show(path):
    return subprocess.run([BIN, "catalog", "show", path, "--json", "-"], capture_output=True, text=True)


# Llama 3 8B: dense GQA model; values from its config.json.
p = show(os.path.join(DATA, "llama3-8b-instruct.config.json"))
check(p.returncode == 0, f"llama config: exit {p.returncode}: {p.stderr}")
if p.returncode == 0:
    j = json.loads(p.stdout)
    s = j["scalars"]
    cfg = json.load(open(os.path.join(DATA, "llama3-8b-instruct.config.json")))
    check(s["layers"] == cfg["num_hidden_layers"], f"layers {s['layers']}")
    check(s["hidden"] == cfg["hidden_size"], f"hidden {s['hidden']}")
    check(s["kv_heads"] == cfg["num_key_value_heads"], f"kv_heads {s['kv_heads']}")
    check(s["ffn_hidden"] == cfg["intermediate_size"], f"ffn {s['ffn_hidden']}")
    check(s["mlp"] == "swiglu", f"mlp {s['mlp']}")
    check(7.9e9 < s["params_total_count"] < 8.1e9, f"params {s['params_total_count']}")
    ignored = j["tables"].get("ignored_keys", {}).get("columns", {}).get("key", [])
    # Keys with no performance effect are listed, not silently dropped; used keys are not.
    check("bos_token_id" in ignored, f"bos_token_id not reported as ignored: {ignored}")
    check("hidden_size" not in ignored, "hidden_size reported as ignored")

# Mixtral: MoE keys mapped.
p = show(os.path.join(DATA, "mixtral-8x7b.config.json"))
check(p.returncode == 0, f"mixtral: {p.stderr}")
if p.returncode == 0:
    s = json.loads(p.stdout)["scalars"]
    check(s.get("moe_num_experts") == 8 and s.get("moe_topk") == 2, f"mixtral moe {s}")
    check(45e9 < s["params_total_count"] < 48e9 and 12e9 < s["params_active_count"] < 14e9,
          f"mixtral params {s['params_total_count']} {s['params_active_count']}")

# Unknown model_type: an error naming the file, the key and the valid choices.
p = show(os.path.join(DATA, "unknown-model-type.config.json"))
check(p.returncode != 0, "unknown model_type accepted")
check("unknown-model-type.config.json" in p.stderr and "model_type" in p.stderr, f"message: {p.stderr}")
check("llama" in p.stderr, f"valid choices not listed: {p.stderr}")

# A config's rope_scaling sets the context window as vLLM derives it, and `show` says where it came
# from: Qwen2.5-7B-Instruct with YaRN (32,768 x 4) had shown 32,768 (review of 2026-12-06).
with tempfile.TemporaryDirectory() as tmp:
    q25 = {"model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
           "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 32768,
           "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}}
    os.makedirs(os.path.join(tmp, "q25"))
    with open(os.path.join(tmp, "q25", "config.json"), "w") as f:
        json.dump(q25, f)
    p = show(os.path.join(tmp, "q25", "config.json"))
    check(p.returncode == 0, f"q25 yarn: {p.stderr}")
    if p.returncode == 0:
        s = json.loads(p.stdout)["scalars"]
        check(s["max_seq_len"] == 131072, f"yarn window {s['max_seq_len']}")
        check("rope_scaling yarn" in s.get("max_seq_len_source", ""), f"window source {s.get('max_seq_len_source')}")

# The bundled catalog prints the same bytes on every machine: entry files relative to the catalog
# folder, the folder as "bundled" (the checkout's absolute paths had been printed).
sh = subprocess.run([BIN, "catalog", "show", "h100-sxm-80gb", "--json", "-"], capture_output=True, text=True)
check(sh.returncode == 0 and json.loads(sh.stdout)["scalars"]["file"] == "accelerators/nvidia-hopper.yaml", sh.stdout[:300] + sh.stderr)
# Integer peaks are tera-operations per second, floating-point ones TFLOP/s (docs/catalog.md; every
# peak had been labelled TFLOP/s before 2026-12-06).
if sh.returncode == 0:
    f = json.loads(sh.stdout)["tables"]["fields"]["columns"]
    units = dict(zip(f["field"], f["unit"]))
    check(units.get("peak_int8") == "TOPS" and units.get("peak_bf16") == "TFLOP/s", str(units))
ls = subprocess.run([BIN, "catalog", "list", "models", "--json", "-"], capture_output=True, text=True)
check(ls.returncode == 0 and json.loads(ls.stdout)["scalars"]["catalog_dir"] == "bundled", ls.stdout[:300] + ls.stderr)
check(os.path.abspath(ROOT) not in sh.stdout + ls.stdout, "an absolute path of the checkout in catalog output")

# A system's shape (GPUs per node, NICs per node, oversubscription) is plain values whose
# provenance the description gives, citing the file's sources: `show` lists those citations; a
# network shows its topology and NVLS's measured group size (review of 2026-12-05).
sy = subprocess.run([BIN, "catalog", "show", "dgx-h100", "--json", "-"], capture_output=True, text=True)
if sy.returncode == 0:
    src = json.loads(sy.stdout)["tables"]["sources"]["columns"]
    check("dgxh100" in src["id"] and any("ConnectX-7 400 Gb/s" in c for c in src["citation"]), str(src)[:300])
else:
    check(False, sy.stderr)
nw = subprocess.run([BIN, "catalog", "show", "nvlink4", "--json", "-"], capture_output=True, text=True)
if nw.returncode == 0:
    j = json.loads(nw.stdout)
    check(j["scalars"]["topology"] == "switch", str(j["scalars"]))
    f = j["tables"]["fields"]["columns"]
    check("in_network_reduction_measured_gpus" in f["field"], str(f["field"]))
else:
    check(False, nw.stderr)

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("catalog CLI: all checks passed")
