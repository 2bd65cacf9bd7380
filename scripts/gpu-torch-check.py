#!/usr/bin/env python3
# Independent cross-check of Sextant's GPU suite on a machine with an NVIDIA GPU and PyTorch, and
# real Kineto traces (tests/data/bench/h200/ and tests/data/trace/h200/ were made with it):
#   python3 scripts/gpu-torch-check.py OUT_DIR
#  1. torch.matmul bf16/fp16/fp32/tf32 over the GPU suite's full shape list, CUDA events, random operands.
#  2. A profiler trace (record_shapes) of Linear layers forward+backward over transformer-like shapes.
#  3. A profiler trace of two training steps of a small GPT-2 (random weights) in bf16 autocast.
import json, os, sys, time
import torch
out = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")
os.makedirs(out, exist_ok=True)
dev = torch.device("cuda")
torch.manual_seed(0)
res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda, "gemm": []}
shapes = [(256,256,256),(512,512,512),(1024,1024,1024),(2048,2048,2048),(4096,4096,4096),(8192,8192,8192),
          (16384,8192,1280),(128,8192,8192),(8192,128,8192),(4096,14336,4096),(1024,8192,28672)]
for dt_name, dt, tf32 in [("bf16", torch.bfloat16, False), ("fp16", torch.float16, False), ("tf32", torch.float32, True), ("fp32", torch.float32, False)]:
    torch.backends.cuda.matmul.allow_tf32 = tf32
    for (m, n, k) in shapes:
        a = torch.rand(m, k, device=dev, dtype=dt) * 2 - 1
        b = torch.rand(k, n, device=dev, dtype=dt) * 2 - 1
        c = a @ b
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); c = a @ b; e.record(); e.synchronize()
        one = s.elapsed_time(e) * 1e-3
        iters = max(1, min(100000, int(0.05 / max(one, 1e-7)) + 1))
        rates = []
        for r in range(6):
            s.record()
            for _ in range(iters): torch.matmul(a, b, out=c)
            e.record(); e.synchronize()
            t = s.elapsed_time(e) * 1e-3
            if r > 0: rates.append(2.0 * m * n * k * iters / t)
        rates.sort()
        res["gemm"].append({"dtype": dt_name, "m": m, "n": n, "k": k, "iterations": iters,
                            "median_flops_per_s": rates[len(rates) // 2], "min": rates[0], "max": rates[-1]})
        del a, b, c
torch.backends.cuda.matmul.allow_tf32 = False
json.dump(res, open(os.path.join(out, "torch_gemm.json"), "w"), indent=1)
print("torch bf16 8192^3: %.1f TFLOP/s" % ([g for g in res["gemm"] if g["dtype"] == "bf16" and g["m"] == 8192 and g["k"] == 8192][0]["median_flops_per_s"] / 1e12))

from torch.profiler import profile, ProfilerActivity
# 2. Linear layers, forward + backward, bf16, transformer-like projections.
layers = []
for h, tokens in [(1024, 8192), (2048, 8192), (4096, 4096), (8192, 2048), (5120, 4096)]:
    layers.append((tokens, torch.nn.Linear(h, 3 * h, bias=False, device=dev, dtype=torch.bfloat16),
                   torch.nn.Linear(h, int(3.5 * h), bias=False, device=dev, dtype=torch.bfloat16),
                   torch.nn.Linear(int(3.5 * h), h, bias=False, device=dev, dtype=torch.bfloat16), h))
def lin_step():
    for tokens, qkv, up, down, h in layers:
        x = torch.randn(tokens, h, device=dev, dtype=torch.bfloat16, requires_grad=True)
        y = down(torch.nn.functional.gelu(up(x))) + qkv(x)[:, :h]
        y.float().sum().backward()
for _ in range(3): lin_step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
    for _ in range(3): lin_step()
    torch.cuda.synchronize()
p.export_chrome_trace(os.path.join(out, "h200_linear_trace.json"))

# 3. Small GPT-2 training steps (random weights), bf16 autocast, AdamW.
try:
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=6, n_embd=1024, n_head=16, n_positions=1024, vocab_size=32768)
    model = GPT2LMHeadModel(cfg).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device=dev)
    def train_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    for _ in range(3): train_step()
    torch.cuda.synchronize()
    t0 = time.time()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
        for _ in range(2): train_step()
        torch.cuda.synchronize()
    p.export_chrome_trace(os.path.join(out, "h200_gpt2_train_trace.json"))
    print("gpt2 trace written, profiled steps took %.3f s" % (time.time() - t0))
except Exception as ex:
    print("gpt2 trace skipped:", repr(ex))
