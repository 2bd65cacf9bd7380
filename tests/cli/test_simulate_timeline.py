#!/usr/bin/env python3
"""Questions: is the Chrome trace of `sextant simulate --timeline` valid JSON whatever the
scenario's name holds, and does every pipeline send carry the item that produced it (micro-batch,
chunk and pass captured when it was sent, not when it arrived) and its bytes? Does an op that
needs a TP collective's result wait for it under TP communication overlap?"""
import json, os, subprocess, sys, tempfile, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))


def simulate(text, tmp, *extra):
    path = os.path.join(tmp, "s.yaml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(tmp, "t.json")
    subprocess.run([BIN, "simulate", path, "--timeline", out, "-q", *extra], check=True, capture_output=True)
    with open(out) as f:
        return json.load(f)  # fails on an unescaped control character


class SimulateTimeline(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sextant-tl-")

    def test_interleaved_sends_carry_their_item_and_bytes(self):
        d = simulate('name: "tab\\there\\nnewline"\nmodel: gpt3-1.3b\nsystem: dgx-h100\nnum_gpus: 4\n'
                     "parallel: {tp: 1, pp: 4, zero_stage: 0, schedule: interleaved-1f1b, vpp: 2,"
                     " overlap: {grad_reduce: false, param_gather: false}}\n"
                     "training: {global_batch: 8, micro_batch: 1, seq_len: 2048, precision: bf16}\n", self.tmp)
        self.assertEqual(d["otherData"]["scenario"], "tab\there\nnewline")
        ev = d["traceEvents"]
        sends = {(e["pid"], e["ts"]): e for e in ev if e.get("name") == "pp.send_recv"}
        starts = {e["id"]: e for e in ev if e.get("ph") == "s"}
        ends = {e["id"]: e for e in ev if e.get("ph") == "f"}
        checked = 0
        for i, s in starts.items():
            x = sends.get((s["pid"], s["ts"]))
            if x is None:
                continue
            src, dst, a = s["pid"], ends[i]["pid"], x["args"]
            self.assertGreater(a["bytes"], 0, a)
            # Activations go to the next stage (3 -> 0 into the second chunk), gradients back
            # (0 -> 3 out of the second chunk's backward).
            if dst == (src + 1) % 4 and dst != (src - 1) % 4:
                self.assertEqual(a["pass"], "forward", (src, dst, a))
            if dst == (src - 1) % 4 and dst != (src + 1) % 4:
                self.assertEqual(a["pass"], "backward", (src, dst, a))
            checked += 1
        self.assertEqual(checked, 112)

    def test_links_are_full_duplex(self):
        # A send that shares neither its sender's way out nor its receiver's way in with another
        # transfer runs at its idle speed, whatever arrives at its sender meanwhile (DualPipeV's
        # both-way traffic: a send slowed to half while two transfers arrived before 2026-12-02).
        d = simulate("model: gpt3-1.3b\nsystem: dgx-h100\nnum_gpus: 4\n"
                     "parallel: {tp: 1, pp: 4, zero_stage: 0, schedule: dualpipev, vpp: 2,"
                     " overlap: {grad_reduce: false, param_gather: false}}\n"
                     "training: {global_batch: 16, micro_batch: 1, seq_len: 2048, precision: bf16}\n", self.tmp)
        ev = d["traceEvents"]
        sends = {(e["pid"], e["ts"]): e for e in ev if e.get("name") == "pp.send_recv"}
        ends = {e["id"]: e["pid"] for e in ev if e.get("ph") == "f"}
        xfers = []
        for e in ev:
            if e.get("ph") == "s" and (e["pid"], e["ts"]) in sends:
                x = sends[(e["pid"], e["ts"])]
                xfers.append((e["pid"], ends[e["id"]], x["ts"], x["ts"] + x["dur"], x["args"]["bytes"]))
        self.assertGreater(len(xfers), 20)
        idle = min(t1 - t0 for _, _, t0, t1, _ in xfers)
        alone = 0
        for i, (src, dst, t0, t1, b) in enumerate(xfers):
            shared = any(j != i and (s2 == src or d2 == dst) and u0 < t1 and u1 > t0
                         for j, (s2, d2, u0, u1, _) in enumerate(xfers))
            if not shared:
                alone += 1
                self.assertAlmostEqual(t1 - t0, idle, delta=0.01 * idle + 0.002, msg=(src, dst, t0, t1))
        self.assertGreater(alone, 0)

    def test_tp_overlap_consumers_wait_for_the_collective(self):
        for precision in ("bf16", "fp8"):
            d = simulate("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 8\n"
                         "parallel: {tp: 8, pp: 1, zero_stage: 0, overlap: {tp_comm: true}}\n"
                         "training: {global_batch: 1, micro_batch: 1, seq_len: 4096, precision: %s}\n" % precision, self.tmp)
            ev = [e for e in d["traceEvents"] if e.get("ph") == "X" and e["pid"] == 0]
            by = lambda n: sorted((e for e in ev if e["name"] == n), key=lambda e: e["ts"])
            rs, residual, proj = by("attn.tp_reduce_scatter"), by("attn.residual"), by("attn.out_proj")
            self.assertEqual(len(rs), len(residual))
            for r, x, g in zip(rs, residual, proj):
                self.assertGreaterEqual(x["ts"] + 1e-3, r["ts"] + r["dur"])  # the residual adds the reduced output
                # Pipelined with the GEMM that produces it: they start together (in fp8 the cast
                # was put between them, and the GEMM waited for the reduce-scatter).
                self.assertAlmostEqual(r["ts"], g["ts"], delta=1e-3, msg=precision)


if __name__ == "__main__":
    unittest.main()
