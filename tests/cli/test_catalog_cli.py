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

# relu2 under a gated-MLP type (LlamaMLP: down(act(gate(x)) * up(x))) is an error at hidden_act with
# its line: it had been read as Nemotron's ungated relu2, the gate matrix dropped (Llama-3-8B 6.15B
# for 8.03B). A key that extends a read key (moe_layer_frequency) or params.json's n_kv_heads is a
# near miss, not an ignored key under which the default applied (review of 2026-12-07).
with tempfile.TemporaryDirectory() as tmp:
    cfg = json.load(open(os.path.join(DATA, "llama3-8b-instruct.config.json")))
    cfg["hidden_act"] = "relu2"
    path = os.path.join(tmp, "lrelu2.json")
    json.dump(cfg, open(path, "w"), indent=1)
    p = show(path)
    check(p.returncode != 0 and re.search(r"lrelu2\.json:\d+:\d+: key 'hidden_act'", p.stderr)
          and "gated ReLU^2 MLP is not representable" in p.stderr, f"llama relu2: exit {p.returncode}: {p.stderr}{p.stdout[:300]}")
    cfg["hidden_act"] = "silu"
    kv = cfg.pop("num_key_value_heads")
    cfg["n_kv_heads"] = kv
    json.dump(cfg, open(path, "w"), indent=1)
    p = show(path)
    check(p.returncode != 0 and "key 'n_kv_heads'" in p.stderr and "did you mean 'num_key_value_heads'" in p.stderr,
          f"n_kv_heads: exit {p.returncode}: {p.stderr}")

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

# docs/catalog.md's systems table gives each system as `catalog show` has it: accelerator, GPUs per
# node, scale-up network and domain, scale-out network with its NIC count and topology, the NIC rate
# where the entry overrides the network's own ("dcn-100g at 50 Gb/s x4"), `~` after the NIC count
# exactly where the catalog's nic_bandwidth is estimated, and the file. hgx-h200-8gpu and mi300x-8gpu
# had shown an estimated NIC build unmarked, tpu-v5p-slice twice its modelled 50 Gb/s per chip
# (review of 2026-12-07).
systems_md = catalog_md.split("### Systems", 1)[1].split("\n### ", 1)[0]
srows = [line for line in systems_md.splitlines() if line.startswith("| `")]
sl = subprocess.run([BIN, "catalog", "list", "systems", "--json", "-"], capture_output=True, text=True)
check(sl.returncode == 0, sl.stderr)
if sl.returncode == 0:
    listed = set(json.loads(sl.stdout)["tables"]["systems"]["columns"]["id"])
    shown = [line.split("`", 2)[1] for line in srows]
    check(sorted(shown) == sorted(listed),
          f"docs/catalog.md systems table: missing {sorted(listed - set(shown))}, extra or repeated "
          f"{sorted(i for i in set(shown) if shown.count(i) > 1 or i not in listed)}")
net_gbit = {}


def network_gbit_per_s(nid):
    if nid not in net_gbit:
        p = subprocess.run([BIN, "catalog", "show", nid, "--json", "-"], capture_output=True, text=True)
        f = json.loads(p.stdout)["tables"]["fields"]["columns"] if p.returncode == 0 else {"field": [], "value": [], "unit": []}
        bw = {n: (v, u) for n, v, u in zip(f["field"], f["value"], f["unit"])}.get("bandwidth", ("nan", ""))
        check(bw[1].startswith("GB/s"), f"catalog show {nid}: bandwidth unit '{bw[1]}'")
        net_gbit[nid] = float(bw[0]) * 8.0
    return net_gbit[nid]


scale_out_re = re.compile(r"^([a-z0-9.\-]+)(?: at ([0-9.]+) Gb/s)? x(\d+)(~?), ([a-z\-]+)$")
for line in srows:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    sid = cells[0].strip("`")
    p = subprocess.run([BIN, "catalog", "show", sid, "--json", "-"], capture_output=True, text=True)
    if p.returncode != 0 or len(cells) != 6:
        check(False, f"docs/catalog.md systems table names {sid} ({len(cells)} cells): {p.stderr.strip()}")
        continue
    j = json.loads(p.stdout)
    sc = j["scalars"]
    f = j["tables"]["fields"]["columns"]
    fields = {n: (v, src) for n, v, src in zip(f["field"], f["value"], f["source"])}
    where = f"docs/catalog.md systems table {sid}"
    check(cells[1] == f"`{sc['accelerator']}`", f"{where}: accelerator {cells[1]}, the catalog {sc['accelerator']}")
    check(cells[2] == str(sc["gpus_per_node"]), f"{where}: GPUs/node {cells[2]}, the catalog {sc['gpus_per_node']}")
    want_up = f"{sc['scale_up_network']} ({sc['scale_up_domain_gpus']})"
    check(cells[3] == want_up, f"{where}: scale-up '{cells[3]}', the catalog '{want_up}'")
    check(cells[5] == os.path.basename(sc["file"]), f"{where}: file {cells[5]}, the catalog {sc['file']}")
    # The legend says every system is modelled non-blocking.
    check(sc["oversubscription_ratio"] == 1, f"{where}: oversubscription {sc['oversubscription_ratio']}, the legend says 1")
    if not sc.get("scale_out_network"):
        check(cells[4] == "(not published)", f"{where}: scale-out '{cells[4]}', the catalog has none")
        continue
    m = scale_out_re.match(cells[4])
    if not m:
        check(False, f"{where}: scale-out '{cells[4]}' is not 'NETWORK [at R Gb/s] xN[~], TOPOLOGY'")
        continue
    net, rate, nics, tilde, topo = m.groups()
    check(net == sc["scale_out_network"], f"{where}: scale-out network {net}, the catalog {sc['scale_out_network']}")
    check(int(nics) == sc["nics_per_node"], f"{where}: {nics} NICs, the catalog {sc['nics_per_node']}")
    check(topo == sc["topology"], f"{where}: topology {topo}, the catalog {sc['topology']}")
    nic = fields.get("nic_bandwidth", ("unknown", ""))
    if nic[0] == "unknown":
        check(rate is None and tilde == "", f"{where}: '{cells[4]}', the catalog has no NIC rate")
        continue
    overridden = abs(float(nic[0]) - network_gbit_per_s(net)) > 1e-6
    check((rate is not None) == overridden and (rate is None or float(rate) == float(nic[0])),
          f"{where}: '{cells[4]}', the catalog {nic[0]} Gb/s per NIC on {net} of {network_gbit_per_s(net):g} Gb/s")
    estimated = nic[1].startswith("estimated")
    check((tilde == "~") == estimated,
          f"{where}: '{cells[4]}', the catalog's nic_bandwidth {nic[0]}{'~' if estimated else ''} ({nic[1][:60]})")

# The validation READMEs describe a part's figures as the catalog sources them (review of 2026-12-07):
# the b200 row had called 8 TB/s "the GB200 part's" where NVIDIA's DGX B200 datasheet prints it for
# the B200 too (64 TB/s per 8 GPUs), so the row names every TB/s figure the b200 entry's source weighs;
# inference-README.md had called the M1's 68.25 GB/s (estimated, Apple states none) Apple's
# specification, and said Apple publishes no FLOPS where the catalog cites Apple's figures.


def catalog_fields(aid):
    p = subprocess.run([BIN, "catalog", "show", aid, "--json", "-"], capture_output=True, text=True)
    check(p.returncode == 0, f"catalog show {aid}: {p.stderr.strip()}")
    if p.returncode != 0:
        return {}
    f = json.loads(p.stdout)["tables"]["fields"]["columns"]
    return {n: (v, src) for n, v, src in zip(f["field"], f["value"], f["source"])}


with open(os.path.join(ROOT, "data", "validation", "README.md")) as f:
    val_readme = f.read()
b200_row = next((line for line in val_readme.splitlines() if line.startswith("| b200 |")), "")
bw = catalog_fields("b200").get("memory_bandwidth", ("0", ""))
for tb in set(re.findall(r"(\d+(?:\.\d+)?) TB/s", bw[1])) | {f"{float(bw[0]) / 1000:g}"}:
    check(f"{tb} TB/s" in b200_row, f"data/validation/README.md b200 row does not give {tb} TB/s (b200 source: {bw[1]})")
with open(os.path.join(ROOT, "data", "validation", "inference-README.md")) as f:
    inf_readme = f.read()
hw = inf_readme.split("## Hardware facts", 1)[1].split("\n## ", 1)[0]
for line in hw.splitlines():
    m = re.match(r"\| `(apple-[a-z0-9\-]+)` \| ([^|]+?) \|", line)
    if not m:
        continue
    mb = catalog_fields(m.group(1)).get("memory_bandwidth", ("", ""))
    if mb[1].startswith("estimated"):
        check(f"Apple states no bandwidth for the {m.group(2)}" in hw,
              f"inference-README.md, Hardware facts: {m.group(1)}'s {mb[0]} GB/s is estimated in the catalog, the text does not say so")
al = subprocess.run([BIN, "catalog", "list", "accelerators", "--json", "-"], capture_output=True, text=True)
if al.returncode == 0:
    ids = [i for i in json.loads(al.stdout)["tables"]["accelerators"]["columns"]["id"] if i.startswith("apple-")]
    sourced = [i for i in ids if not catalog_fields(i).get("peak_fp32", ("", "estimated"))[1].startswith(("estimated", "unknown"))]
    check(not sourced or "publishes no FLOPS" not in hw,
          f"inference-README.md says Apple publishes no FLOPS; the catalog cites Apple's FP32 figure for {sourced}")
else:
    check(False, al.stderr)

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

# A system, network or framework catalog file given by path is read by id from a catalog folder:
# the error lists the file's ids and how to show one (review of 2026-12-07: it went to the model
# reader, "holds systems, not models", and told the user to name a model).
sys_file = os.path.join(ROOT, "data", "catalog", "systems", "nvidia-dgx.yaml")
p = show(sys_file)
check(p.returncode != 0, "catalog show of a systems file succeeded")
check("holds systems (" in p.stderr and "dgx-h100" in p.stderr and "catalog show reads systems by id" in p.stderr, f"systems file: {p.stderr.strip()}")
check("not models" not in p.stderr and "name a model" not in p.stderr, f"systems file read as a model: {p.stderr.strip()}")
with tempfile.TemporaryDirectory() as d:
    lone = os.path.join(d, "my-system.yaml")
    with open(lone, "w") as f:
        f.write("id: my-sys\nname: x\naccelerator: h100-sxm-80gb\ngpus_per_node: 8\n")
    p = show(lone)
    check(p.returncode != 0 and "holds systems (my-sys)" in p.stderr and "catalog show my-sys --catalog F" in p.stderr,
          f"lone system file: {p.stderr.strip()}")
# FILE#ID of the catalog's own system, network or framework file shows that entry, as its id does;
# an id the file lacks is named with the file's ids.
for ref, kind, eid in [(sys_file + "#dgx-h100", "system", "dgx-h100"),
                       (os.path.join(ROOT, "data", "catalog", "networks", "nvlink.yaml") + "#nvlink4", "network", "nvlink4"),
                       (os.path.join(ROOT, "data", "catalog", "frameworks", "frameworks.yaml") + "#megatron-core", "framework", "megatron-core")]:
    p = show(ref)
    check(p.returncode == 0, f"catalog show {ref}: {p.stderr.strip()}")
    if p.returncode == 0:
        sc = json.loads(p.stdout)["scalars"]
        check(sc.get("kind") == kind and sc.get("id") == eid, f"catalog show {ref}: {sc.get('kind')} {sc.get('id')}")
p = show(sys_file + "#dgx-h10")
check(p.returncode != 0 and "no system of that id in the file" in p.stderr and "did you mean 'dgx-h100'" in p.stderr, f"FILE#bad id: {p.stderr.strip()}")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("catalog CLI: all checks passed")
