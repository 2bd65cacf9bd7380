#!/usr/bin/env python3
"""Question: does `sextant catalog show` accept a Hugging Face config.json as a model, map its keys
per model_type, list the keys it ignores, and reject an unknown model_type with a clear message?"""
import json, os, re, subprocess, sys, tempfile

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

# docs/catalog.md's accelerator table ("What is in the catalog") gives each value as the catalog
# has it, marked `~` exactly where the catalog's value is estimated: the Apple M1's 68.25 GB/s,
# estimated from its LPDDR4X bus, had been printed as a sourced value (review of 2026-12-06).
with open(os.path.join(ROOT, "docs", "catalog.md")) as f:
    catalog_md = f.read()
table = catalog_md.split("### Accelerators", 1)[1].split("\n### ", 1)[0]
columns = {2: "peak_bf16", 3: "peak_fp8", 4: "peak_fp4", 5: "peak_fp32", 6: "peak_int8", 7: "memory",
           8: "memory_bandwidth", 9: "tdp", 10: "gemm_peak_fraction_bf16"}
rows = [line for line in table.splitlines() if line.startswith("| `")]
check(len(rows) >= 60, f"accelerator table of docs/catalog.md: {len(rows)} rows")
# The policy on estimated values lists, under each reference part, the parts that carry its fit
# (the MI250X had carried none while the page said that every data-center part did; 2026-12-06).
policy = catalog_md.split("### Policy on estimated and unknown values", 1)[1].split("\n## ", 1)[0]
carriers = {}
for chunk in policy.split("\n  * `")[1:]:
    carriers[chunk.split("`", 1)[0]] = set(re.findall(r"`([a-z0-9.\-]+)`", chunk))
for line in rows:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    aid = cells[0].strip("`")
    p = subprocess.run([BIN, "catalog", "show", aid, "--json", "-"], capture_output=True, text=True)
    if p.returncode != 0:
        check(False, f"docs/catalog.md names {aid}: {p.stderr.strip()}")
        continue
    f = json.loads(p.stdout)["tables"]["fields"]["columns"]
    fields = {n: (v, src) for n, v, src in zip(f["field"], f["value"], f["source"])}
    carried = re.match(r"estimated: as ([a-z0-9.\-]+)'s fit", fields.get("sustained_compute_fraction", ("", ""))[1])
    if carried:
        check(aid in carriers.get(carried.group(1), set()),
              f"docs/catalog.md, Policy on estimated values: {aid} carries {carried.group(1)}'s fit but is not listed under it")
    for i, name in columns.items():
        want = fields.get(name, ("unknown", ""))
        if name == "gemm_peak_fraction_bf16" and want[0] == "unknown":  # fp16 on parts without bf16
            want = fields.get("gemm_peak_fraction_fp16", want)
        cell = cells[i]
        if want[0] == "unknown":
            check(cell == "", f"docs/catalog.md {aid} {name}: '{cell}', the catalog has none")
            continue
        estimated = want[1].startswith("estimated")
        check(cell.rstrip("~") != "" and float(cell.rstrip("~")) == float(want[0]) and cell.endswith("~") == estimated,
              f"docs/catalog.md {aid} {name}: '{cell}', the catalog {want[0]}{'~' if estimated else ''}")

# Every property a framework entry may set is described in docs/catalog.md's Frameworks section
# (moe_router_weighting, printed by `catalog show megatron-core`, had been left out; review of
# 2026-12-06). The capability flags are named there as a range, so only the properties are checked.
frameworks_md = catalog_md.split("## Frameworks", 1)[1].split("\n## ", 1)[0]
fl = subprocess.run([BIN, "catalog", "list", "frameworks", "--json", "-"], capture_output=True, text=True)
check(fl.returncode == 0, fl.stderr)
if fl.returncode == 0:
    for fid in json.loads(fl.stdout)["tables"]["frameworks"]["columns"]["id"]:
        p = subprocess.run([BIN, "catalog", "show", fid, "--json", "-"], capture_output=True, text=True)
        if p.returncode != 0:
            check(False, f"catalog show {fid}: {p.stderr.strip()}")
            continue
        for prop in json.loads(p.stdout)["tables"]["properties"]["columns"]["property"]:
            if not prop.startswith("capabilities."):
                check(f"`{prop}`" in frameworks_md, f"docs/catalog.md, Frameworks: framework property {prop} ({fid}) is not described")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("catalog CLI: all checks passed")
