// Lowering: Scenario -> Workload. Megatron-style layout: rank order tp (innermost), cp, dp,
// pp (outermost); experts carved out of the tp*cp*dp ranks (ep consecutive with stride etp).
// FLOP and byte formulas are in docs/models.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <string_view>
#include <tuple>

#include "ir/moe_dispatch.hpp"
#include "ir/schedule.hpp"
#include "ir/workload.hpp"

namespace sextant::ir {

std::string to_string(OpClass c) {
  static const char* n[] = {"gemm", "attention", "elementwise", "norm", "embedding", "logits", "router", "optimizer", "memcpy"};
  return n[static_cast<int>(c)];
}
std::string to_string(CollKind k) {
  static const char* n[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv", "broadcast"};
  return n[static_cast<int>(k)];
}
std::string to_string(GroupKind g) {
  static const char* n[] = {"tp", "cp", "ep", "etp", "dp", "edp", "pp"};
  return n[static_cast<int>(g)];
}
std::string to_string(Pass p) {
  static const char* n[] = {"forward", "backward_input", "backward_weight", "recompute"};
  return n[static_cast<int>(p)];
}

double bus_factor(CollKind k, int n) {
  if (n <= 1) return 0;
  const double f = static_cast<double>(n - 1) / n;
  switch (k) {
    case CollKind::AllReduce: return 2 * f;
    case CollKind::AllGather:
    case CollKind::ReduceScatter:
    case CollKind::AllToAll: return f;
    case CollKind::SendRecv:
    case CollKind::Broadcast: return 1;
  }
  return 1;
}

Collective pp_send(const Workload& w, const char* name, double bytes, int from, int to) {
  Collective c;
  c.name = name;
  c.kind = CollKind::SendRecv;
  c.group = GroupKind::PP;
  c.bytes = bytes;
  // Member r of the group sits at rank r * stride (plus the replica's offset): its domain is
  // (r * stride) / domain_size, which is r / per_domain only when the stride divides the domain
  // (GB200 NVL72 at stride 16: PP ranks 7 and 8 share a domain, 8 and 9 do not).
  // The hop stays in a domain only if it does for every instance of the group (every data-
  // parallel replica): the slowest sets the step (hop_crosses_blocks). Replica 0 alone had been
  // checked: on GB200 NVL72 at tp 8 pp 4, 24 of 32 replicas send stage 1 -> 2 across racks and
  // were priced at NVLink rates (2026-12-04).
  const Group& g = w.group(GroupKind::PP);
  c.traffic.hop_from = from;
  c.traffic.hop_to = to;
  if (g.domains > 1 && g.domain_size > 0) {
    const bool inside = !hop_crosses_blocks(g.domain_size, g.stride, g.size, w.scenario().num_gpus, from, to);
    if (inside) {
      c.traffic.intra = 1.0;
      c.traffic.inter = 0.0;
    }
  }
  return c;
}

bool hop_crosses_blocks(int64_t block, int stride, int size, int64_t world, int from, int to) {
  // With a = min(from, to) stride and d = |to - from| stride < block, offset o's hop crosses iff
  // (o + a) mod block >= block - d; over i < stride that is r_j + stride - 1 >= block - d with r_j =
  // (j L + a) mod block, which repeats after block / gcd(L, block) values of j.
  if (block <= 0) return false;
  const int64_t st = std::max(1, stride);
  const int64_t a = static_cast<int64_t>(std::min(from, to)) * st, d = static_cast<int64_t>(std::abs(to - from)) * st;
  if (d == 0) return false;
  if (d >= block) return true;
  const int64_t L = st * std::max(1, size);
  const int64_t instances_j = std::max<int64_t>(1, std::max(L, world) / L);
  const int64_t period = block / std::gcd(L, block);
  const int64_t n = std::min(instances_j, period);
  for (int64_t j = 0; j < n; ++j)
    if ((j * (L % block) + a) % block + st - 1 >= block - d) return true;
  return false;
}

const Group& Workload::group(GroupKind k) const {
  for (const auto& g : groups)
    if (g.kind == k) return g;
  static const Group one{};  // immutable size-1 group
  return one;
}

namespace {
// One pipeline stage and one chunk: every schedule is the same forward-backward sequence.
bool one_stage_plan(const ParallelPlan& p) { return p.pp == 1 && p.vpp == 1; }

// A group of `size` members `stride` ranks apart; its instances sit at offsets i + j * L (L =
// stride * size, i < stride from the dimensions inside it, j < world / L from those outside), and
// a domain holds ranks [d D, (d + 1) D). Where every instance lies the same way on the domains
// (the domain is a multiple of L, or L a multiple of the domain and of the stride) the group is
// uniform. Otherwise some instances straddle a domain boundary unevenly (EP 16 or TP 16 on an
// NVL72 rack: ranks 64-79 are 8 and 8; DP 256 at stride 8 on 29 racks: 4 in the last), and the
// slowest instance sets the step: the group is placed as its worst instance, the fewest members
// one domain holds (they alone carry the group's traffic in and out of it: ring hops through
// their NICs, the all-to-all share leaving it) with the domains that instance spans. Then
// per_domain * domains may differ from size.
Group place(GroupKind kind, int size, int stride, int domain, int64_t world) {
  Group g;
  g.kind = kind;
  g.size = size;
  g.stride = stride;
  g.domain_size = domain;
  if (size <= 1) return g;
  const int64_t n = size, st = stride, D = domain, L = st * n;
  if (D <= 0 || st >= D) {  // not placed, or every member in a domain of its own
    g.per_domain = 1;
    g.domains = size;
    return g;
  }
  if (L <= D && D % L == 0) {
    g.per_domain = size;
    g.domains = 1;
    return g;
  }
  if (L > D && L % D == 0 && D % st == 0) {
    g.per_domain = static_cast<int>(D / st);
    g.domains = static_cast<int>(L / D);
    return g;
  }
  // Uneven: the offsets j L mod D repeat every D / gcd(L, D) instances; walk them with every i.
  const int64_t classes = std::min(std::max<int64_t>(1, world / L), D / std::gcd(L, D));
  const int64_t spans = (L + st) / D + 2;  // domains one instance can span
  if (classes * st * spans > 200000) {     // far beyond real layouts: the aligned estimate
    g.per_domain = static_cast<int>(std::max<int64_t>(1, std::min(n, D / st)));
    g.domains = static_cast<int>((n + g.per_domain - 1) / g.per_domain);
    return g;
  }
  int64_t worst_min = n + 1, worst_domains = 1;
  for (int64_t j = 0; j < classes; ++j)
    for (int64_t i = 0; i < st; ++i) {
      const int64_t b = (j * L) % D + i;  // first member's rank, relative to its domain's start
      const int64_t d0 = b / D, d1 = (b + (n - 1) * st) / D;
      int64_t fewest = n;
      for (int64_t d = d0; d <= d1 && d1 > d0; ++d) {
        const int64_t lo = d * D - b, hi = (d + 1) * D - b;  // member offsets r st in [lo, hi)
        const int64_t r0 = lo <= 0 ? 0 : (lo + st - 1) / st, r1 = std::min(n, (hi + st - 1) / st);
        fewest = std::min(fewest, r1 - r0);
      }
      const int64_t spanned = d1 - d0 + 1;
      if (fewest < worst_min || (fewest == worst_min && spanned > worst_domains)) {
        worst_min = fewest;
        worst_domains = spanned;
      }
    }
  g.per_domain = static_cast<int>(worst_min);
  g.domains = static_cast<int>(worst_domains);
  return g;
}

// The embedding group: the first pipeline stage's rank i (0 <= i < per, per = tp cp dp) with the
// last stage's rank i + (pp - 1) per. Placed by its own instances: place() assumes instances at
// every offset below the stride, which here do not exist, and had put two ranks of one node in two
// (gpt3-1.3b tp2 pp4 on one DGX: 4.39 ms where 0.57 ms is right; review of 2026-12-03). Both in
// one domain for every instance: one domain; otherwise the slowest instance's two.
Group place_pipeline_ends(int pp, int per, int domain) {
  Group g;
  g.kind = GroupKind::PP;
  if (pp <= 1) return g;
  g.size = 2;
  g.stride = (pp - 1) * per;
  g.domain_size = domain;
  // Rank i (< per) and i + (pp - 1) per share a domain for every i exactly when the first domain
  // holds them all: pp per <= domain (O(1): lowering runs per plan in the search).
  const bool all_inside = domain > 0 && static_cast<int64_t>(pp) * per <= domain;
  g.per_domain = all_inside ? 2 : 1;
  g.domains = all_inside ? 1 : 2;
  return g;
}

// The pipeline rank holding virtual stage vs under the scenario's schedule (the inverse of
// virtual_stage_of: c p + r interleaved, r and 2p - 1 - r in dualpipev's V). O(1): lowering runs
// per plan in the search.
int virtual_stage_rank(const Scenario& s, int vs) {
  const int p = s.plan.pp;
  if (s.plan.schedule == "dualpipev") return vs < p ? vs : 2 * p - 1 - vs;
  return vs % p;
}
// Whether one rank holds both the embedding (stage 0) and the loss head (the last stage).
bool ends_on_one_rank(const Scenario& s) {
  return s.plan.pp == 1 || virtual_stage_rank(s, 0) == virtual_stage_rank(s, s.plan.pp * s.plan.vpp - 1);
}

}  // namespace

// Average keys attended per query.
// A window on some layers only (windowed_fraction) weighs the two by their layer shares.
double attention_keys_per_query(const Scenario& s) {
  const auto& m = s.model;
  const double seq = s.train.seq_len;
  const double full = 0.5 * (seq + 1);  // causal
  if (!(m.sliding_window > 0 && m.sliding_window < seq)) return full;
  const double w = m.sliding_window;
  const double windowed = (w * (w + 1) / 2 + (seq - w) * w) / seq;
  const double f = m.windowed_fraction();
  return f * windowed + (1.0 - f) * full;
}

namespace {
struct Lowerer {
  const Scenario& s;
  const ModelConfig& m;
  int t, cp, ep, etp;
  bool sp;
  DType dt;          // GEMM dtype
  double ab = 2;     // activation bytes per element (16-bit activations; 4 when training in fp32/tf32)
  // Bytes per element of a GEMM input saved for the backward: with FP8 (or FP4) GEMMs Transformer
  // Engine saves the quantised copy it multiplied (te.Linear / LayerNormLinear / GroupedLinear:
  // the cast input, ln_out as uint8), not the 16-bit tensor (docs/models.md).
  double gb = 2;
  double wb;         // weight bytes per element as read by GEMMs
  double T;          // tokens per micro-batch per rank along the sequence (b*s/cp)
  double Tsp;        // tokens held outside TP regions (T/t with SP)
  bool dropout;
  bool zero3;
  bool zero2;  // ZeRO-2, micro_batch sync: gradients reduce-scattered every micro-batch (no full buffer to accumulate in)
  bool split_wgrad;  // the schedule defers weight gradients to their own pass (ZB-H1, DualPipeV)
  int edp;           // expert-data-parallel group size (ranks sharing the same experts)
  A2ATraffic moe_traffic;  // destinations of the EP dispatch/combine bytes (the plan's dispatcher)
  // HBM bytes per element of quantising a 16-bit GEMM operand for FP8/FP4 GEMMs (0 in 16 bits):
  // read it (2), write the row-wise and the transposed copy (2 x the low-precision width), and
  // with current scaling read it once more for its amax (2). docs/models.md, "FP8".
  double quant_bytes = 0;
  bool block_scaled_fp8 = false;  // FP8 GEMMs with block scales (training.fp8_recipe: blockwise)

  explicit Lowerer(const Scenario& sc)
      : s(sc), m(sc.model), t(sc.plan.tp), cp(sc.plan.cp), ep(sc.plan.ep),
        etp(sc.plan.etp > 0 ? sc.plan.etp : sc.plan.tp), sp(sc.plan.sequence_parallel && sc.plan.tp > 1),
        dt(sc.train.precision), wb(dtype_bytes(sc.train.precision)),
        T(static_cast<double>(sc.train.micro_batch) * sc.train.seq_len / sc.plan.cp),
        Tsp(sp ? T / sc.plan.tp : T), dropout(sc.train.dropout), zero3(sc.plan.zero_stage == 3), zero2(sc.plan.zero_stage == 2 && sc.plan.zero2_grad_sync == "micro_batch"),
        edp(std::max(1, sc.plan.tp * sc.plan.cp * sc.plan.dp / (sc.plan.ep * etp))) {
    static const ScheduleRegistry schedules;  // immutable, as the dispatchers below
    split_wgrad = !one_stage_plan(sc.plan) && schedules.get(sc.plan.schedule).splits_weight_gradient();
    if (full_precision(dt)) ab = 4;  // fp32/tf32 training keeps fp32 activations
    // The saved quantised copy carries its scales: MXFP8's E8M0 per 32 elements, blockwise FP8's
    // fp32 per 1x128 tile (both 1/32 byte per element), NVFP4's E4M3 per 16 (before 2026-12-05
    // they were left out: 3% of an MXFP8 set's GEMM inputs, 12.5% of an NVFP4 one's).
    gb = low_precision() ? std::min(ab, lowp_element_bytes()) : std::min(ab, wb);
    // NVFP4's two-level scaling needs the tensor's own amax for its per-tensor scale every time
    // (TE's NVFP4BlockScaling; TensorRT-LLM's fp4Quantize: global scale 448 * 6 / amax): one more
    // read pass whatever training.fp8_recipe says (before 2026-12-05 FP4 casts were charged it only
    // under fp8_recipe current).
    if (low_precision())
      quant_bytes = 2.0 + 2.0 * dtype_bytes(dt) + (sc.train.fp8_recipe == "current" || dt == DType::FP4 ? 2.0 : 0.0);
    block_scaled_fp8 = dt == DType::FP8 && sc.train.fp8_recipe == "blockwise";
    if (m.moe && ep > 1) {
      static const MoeDispatcherRegistry dispatchers;  // immutable: no per-plan allocation in plan search
      const Group g = place(GroupKind::EP, ep, etp, sc.system.scale_up_domain, sc.num_gpus);
      moe_traffic = dispatchers.get(sc.plan.moe_dispatcher).traffic(MoeRoute{m.moe->num_experts, m.moe->topk, m.moe->router_groups, m.moe->router_groups_per_token}, g);
    }
  }

  bool low_precision() const { return dt == DType::FP8 || dt == DType::FP4; }
  // A GEMM outside Transformer Engine's FP8 region: Megatron-Core's output layer
  // (tensor_parallel.ColumnParallelLinear) and the MoE router's gating linear run in 16 bits
  // whatever the training precision.
  ComputeOp gemm16(const char* name, double mm, double nn, double kk) const {
    ComputeOp op = gemm(name, mm, nn, kk);
    if (low_precision()) {
      op.dtype = DType::BF16;
      op.block_scaled = false;
      op.bytes = mm * kk * ab + kk * nn * 2.0 + mm * nn * ab;
    }
    return op;
  }
  // Bytes per element of a tensor gathered in the GEMMs' low precision: FP8 (one byte; MXFP8 and
  // blockwise scaling add a scale byte per 32 elements: E8M0 per 32, fp32 per 1x128) and NVFP4
  // (half a byte and an FP8 scale per 16 elements).
  double lowp_element_bytes() const {
    if (dt == DType::FP4) return 0.5 + 1.0 / 16;
    return 1.0 + (s.train.fp8_recipe == "mxfp8" || s.train.fp8_recipe == "blockwise" ? 1.0 / 32 : 0.0);
  }
  // Transformer Engine casts a GEMM operand before its sequence-parallel TP all-gather and gathers
  // the low-precision copy (layernorm_linear: ln_out allocated as FP8 and gathered; backward:
  // "FP8 case with gather: ... cast, transpose for efficient gather" of the output gradient, and
  // the saved FP8 input re-gathered for the weight gradient). So every TP all-gather written
  // right before an FP8/FP4 GEMM moves the low-precision width; the reduce-scatters and
  // all-reduces of GEMM outputs stay in 16 bits. Before 2026-12-05 these gathers moved 16 bits
  // while their casts already ran on the shard (review of 2026-12-05: 0.65 s of the 70B
  // example's 2.2 s of TP traffic).
  void lowp_gathers(std::vector<Step>& steps) const {
    if (quant_bytes <= 0) return;
    const double scale = lowp_element_bytes() / ab;
    for (size_t i = 0; i < steps.size(); ++i) {
      const auto* op = std::get_if<ComputeOp>(&steps[i]);
      if (!op || op->cls != OpClass::Gemm || (op->dtype != DType::FP8 && op->dtype != DType::FP4)) continue;
      for (size_t j = i; j > 0; --j) {
        auto* c = std::get_if<Collective>(&steps[j - 1]);
        if (!c || c->group != GroupKind::TP) break;
        if (c->kind == CollKind::AllGather) c->bytes *= scale;
      }
    }
  }
  // Insert the quantisation of each FP8/FP4 GEMM's 16-bit operand before it: the input of a
  // forward GEMM, the output gradient before a data-gradient GEMM (the weight-gradient GEMM uses
  // the transposed copies of both, made by the same casts). One kernel per GEMM (a grouped GEMM's
  // experts are cast by one multi-tensor kernel). An operand that reaches its GEMM through a
  // sequence-parallel TP all-gather is cast on this rank's shard (1/tp of it) before the gather,
  // as Transformer Engine does.
  void add_quantize(std::vector<Step>& steps, bool backward) const {
    if (quant_bytes <= 0) return;
    std::vector<Step> out;
    out.reserve(steps.size() + 8);
    for (auto& st : steps) {
      if (const auto* op = std::get_if<ComputeOp>(&st);
          op && op->cls == OpClass::Gemm && (op->dtype == DType::FP8 || op->dtype == DType::FP4) &&
          (!backward || op->grad == ComputeOp::Grad::Input)) {
        // Forward: the m x k input; dgrad (n and k swapped): the m x n output gradient.
        double elements = static_cast<double>(op->m) * static_cast<double>(op->k) * static_cast<double>(op->batch);
        const char* name = backward ? "fp8.quantize_grad" : "fp8.quantize";
        // The TP collectives written right before the GEMM stay next to it: the all-gather of its
        // operand (cast on the shard before it), a re-gather of the saved input for the weight
        // gradient, and under TP communication overlap the reduction pipelined with this GEMM
        // (written before it, beside it). The cast goes before all of them; only the operand's
        // own gather divides it by tp. (Cast between a pipelined reduction and its GEMM, the
        // reduction hid behind the 10-25 us cast and the GEMM waited for it: fp8 with tp_comm
        // exposed 0.70 s of the 70B example's TP traffic where bf16 exposed 0.02 s.)
        size_t pos = out.size();
        bool via_gather = false;
        while (pos > 0) {
          const auto* c = std::get_if<Collective>(&out[pos - 1]);
          if (!c || c->group != GroupKind::TP) break;
          if (c->kind == CollKind::AllGather) {
            via_gather = via_gather || std::string_view(c->name).find("regather") == std::string_view::npos;
          } else if (!c->hides_behind_next) {
            break;  // a blocking reduction of an earlier GEMM's output
          }
          --pos;
        }
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(pos),
                   mem(name, OpClass::Elementwise, (via_gather ? elements / t : elements) * quant_bytes));
      }
      out.push_back(std::move(st));
    }
    steps.swap(out);
  }

  ComputeOp gemm(const char* name, double mm, double nn, double kk, double batch = 1) const {
    ComputeOp op;
    op.name = name;
    op.cls = OpClass::Gemm;
    // A dimension below one (an expert that sees half a token per micro-batch on average) runs as
    // GEMMs of at least one row: truncating it to 0 gave a zero shape efficiency and an infinite step.
    auto dim = [](double v) { return v > 0 ? std::max<int64_t>(1, static_cast<int64_t>(v)) : int64_t{0}; };
    op.m = dim(mm);
    op.n = dim(nn);
    op.k = dim(kk);
    op.batch = static_cast<int64_t>(batch);
    op.flops = 2.0 * mm * nn * kk * batch;
    op.bytes = batch * (mm * kk * ab + kk * nn * wb + mm * nn * ab);
    op.dtype = dt;
    op.block_scaled = block_scaled_fp8;
    return op;
  }
  static ComputeOp mem(const char* name, OpClass cls, double bytes, double flops = 0) {
    ComputeOp op;
    op.name = name;
    op.cls = cls;
    op.bytes = bytes;
    op.flops = flops;
    return op;
  }
  static Collective coll(const char* name, CollKind k, GroupKind g, double bytes, bool overlap = false) {
    Collective c;
    c.name = name;
    c.kind = k;
    c.group = g;
    c.bytes = bytes;
    c.overlappable = overlap;
    return c;
  }
  // Ring attention's exchange hides behind the attention it feeds, not behind the rest of the layer.
  static Collective ring_beside_attention(Collective c) {
    c.hides_behind_next = true;
    return c;
  }
  // Ring attention (Transformer Engine's AttnFuncWithCPAndKVP2P) step by step: cp steps, each the
  // attention of one K/V chunk (1/cp of the work), with the exchange for the next step beside it.
  // Forward: a K/V send beside each step but the last. Backward: K/V at the first step, K/V and the
  // accumulated dK/dV at the middle ones, dK/dV at the last. Each step hides only its own exchange
  // (the exchange had been pooled against the whole attention: max(0, (cp-1)X - A) where a step
  // leaves (cp-1) max(0, X - A/cp) exposed, up to A/cp too little; 2026-12-04 review).
  void ring_attention(std::vector<Step>& v, const ComputeOp& core, const char* name, double kv_bytes, bool backward) const {
    ComputeOp piece = core;
    piece.flops /= cp;
    piece.bytes /= cp;
    for (int i = 0; i < cp; ++i) {
      const double sends = backward ? (i == 0 || i == cp - 1 ? 1.0 : 2.0) : (i + 1 < cp ? 1.0 : 0.0);
      if (sends > 0) v.push_back(ring_beside_attention(coll(name, CollKind::SendRecv, GroupKind::CP, sends * kv_bytes, true)));
      v.push_back(piece);
    }
  }
  // A collective issued just before the compute step that follows it and run beside that step only.
  static Collective beside_next(Collective c) {
    c.overlappable = true;
    c.hides_behind_next = true;
    return c;
  }
  // EP overlap (Megatron-Core's combined 1F1B, --overlap-moe-expert-parallel-comm; DualPipe) hides
  // one micro-batch's all-to-all behind another micro-batch's compute. With one micro-batch per
  // step a pipeline rank has nothing to pair it with, and it blocks: before 2026-12-06 it hid
  // whole (review: Qwen3-30B-A3B at ep 8 with one micro-batch read 0.529 s where its all-to-alls
  // leave 0.622 s). With m >= 2 the first forward's and the last backward's, about 1/m of them,
  // are unpaired too and still counted hidden (docs/models.md).
  bool ep_overlap() const { return s.plan.ep_comm_overlap && s.num_microbatches() >= 2; }
  Collective moe_a2a(const char* name, double bytes) const {
    Collective c = coll(name, CollKind::AllToAll, GroupKind::EP, bytes, ep_overlap());
    c.traffic = moe_traffic;
    return c;
  }

  double kv_len() const { return attention_keys_per_query(s); }
  double attn_qk_dim() const { return m.mla ? m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim : m.head_dim; }
  double attn_v_dim() const { return m.mla ? m.mla->v_head_dim : m.head_dim; }

  // Attention forward FLOPs per micro-batch on this rank (QK^T and PV).
  double attn_flops() const {
    const double heads_local = static_cast<double>(m.heads) / t;
    return 2.0 * T * kv_len() * heads_local * (attn_qk_dim() + attn_v_dim());
  }

  // TP communication around a tensor-parallel region: entering (AG with SP) and leaving (RS with
  // SP, AR without). With TP communication overlap (Megatron --tp-comm-overlap, Transformer
  // Engine's userbuffers) each is pipelined with its GEMM chunk by chunk: the all-gather with the
  // GEMM that consumes it, the reduce-scatter with the GEMM that produces it. Each is therefore
  // written right before that GEMM, beside it alone (beside_next): what outlasts the GEMM is
  // exposed, and the step after waits for it. Before 2026-12-02 they hid behind the whole pass's
  // compute, and in simulate the residual add and the next norm ran before the reduce-scatter of
  // their input had finished.
  void tp_enter(std::vector<Step>& v, const char* ag_name) const {
    if (t <= 1 || !sp) return;
    const Collective ag = coll(ag_name, CollKind::AllGather, GroupKind::TP, T * m.hidden * ab, s.plan.tp_comm_overlap);
    v.push_back(s.plan.tp_comm_overlap ? beside_next(ag) : ag);
  }
  void tp_leave(std::vector<Step>& v, const char* rs_name, const char* ar_name) const {
    if (t <= 1) return;
    const Collective c = sp ? coll(rs_name, CollKind::ReduceScatter, GroupKind::TP, T * m.hidden * ab, s.plan.tp_comm_overlap)
                            : coll(ar_name, CollKind::AllReduce, GroupKind::TP, T * m.hidden * ab, s.plan.tp_comm_overlap);
    after_producer(v, c);
  }
  // A TP reduction of the output of the GEMM last in v: pipelined with it under TP communication
  // overlap (written before it, beside it), else after it.
  void after_producer(std::vector<Step>& v, const Collective& c) const {
    const auto* producer = v.empty() ? nullptr : std::get_if<ComputeOp>(&v.back());
    if (s.plan.tp_comm_overlap && producer && producer->cls == OpClass::Gemm) {
      v.insert(v.end() - 1, beside_next(c));
      return;
    }
    v.push_back(c);
  }
  // The gradient of a leaving reduce-scatter: an all-gather the input-gradient GEMM after it
  // consumes (pipelined with it under TP communication overlap, as tp_enter).
  Collective tp_leave_grad(const char* name) const {
    const Collective ag = coll(name, CollKind::AllGather, GroupKind::TP, T * m.hidden * ab, s.plan.tp_comm_overlap);
    return s.plan.tp_comm_overlap ? beside_next(ag) : ag;
  }

  // The names of a forward GEMM's input- and weight-gradient GEMMs (static strings: the IR is
  // built per plan in plan search). Before 2026-12-04 every one was gemm.dgrad / gemm.wgrad, and
  // the ops table's rows of different layers' gradients could not be told apart.
  static std::pair<const char*, const char*> grad_names(const char* forward) {
    static constexpr std::array<std::array<const char*, 3>, 15> names = {{
        {"attn.qkv", "attn.qkv.dgrad", "attn.qkv.wgrad"},
        {"attn.out_proj", "attn.out_proj.dgrad", "attn.out_proj.wgrad"},
        {"attn.q_down", "attn.q_down.dgrad", "attn.q_down.wgrad"},
        {"attn.kv_down", "attn.kv_down.dgrad", "attn.kv_down.wgrad"},
        {"attn.q_up", "attn.q_up.dgrad", "attn.q_up.wgrad"},
        {"attn.kv_up", "attn.kv_up.dgrad", "attn.kv_up.wgrad"},
        {"mlp.up", "mlp.up.dgrad", "mlp.up.wgrad"},
        {"mlp.down", "mlp.down.dgrad", "mlp.down.wgrad"},
        {"moe.router", "moe.router.dgrad", "moe.router.wgrad"},
        {"moe.expert_up", "moe.expert_up.dgrad", "moe.expert_up.wgrad"},
        {"moe.expert_down", "moe.expert_down.dgrad", "moe.expert_down.wgrad"},
        {"moe.shared_up", "moe.shared_up.dgrad", "moe.shared_up.wgrad"},
        {"moe.shared_down", "moe.shared_down.dgrad", "moe.shared_down.wgrad"},
        {"head.logits", "head.logits.dgrad", "head.logits.wgrad"},
        {"mtp.eh_proj", "mtp.eh_proj.dgrad", "mtp.eh_proj.wgrad"},  // (gemm.dgrad / wgrad before 2026-12-05)
    }};
    for (const auto& n : names)
      if (std::strcmp(n[0], forward) == 0) return {n[1], n[2]};
    return {"gemm.dgrad", "gemm.wgrad"};
  }
  // Backward of a GEMM: input gradient and weight gradient (same FLOPs each).
  static std::pair<ComputeOp, ComputeOp> gemm_grads(const ComputeOp& f) {
    ComputeOp dx = f, dw = f;
    std::tie(dx.name, dw.name) = grad_names(f.name);
    dx.grad = ComputeOp::Grad::Input;
    dw.grad = ComputeOp::Grad::Weight;
    std::swap(dx.n, dx.k);  // dX = dY W^T: (m x n)(n x k)
    dw.m = f.k;  // dW = X^T dY: (k x m)(m x n)
    dw.k = f.m;
    return {dx, dw};
  }
  static void gemm_backward(const ComputeOp& f, std::vector<Step>& bi, std::vector<Step>& bw) {
    auto [dx, dw] = gemm_grads(f);
    bi.push_back(dx);
    bw.push_back(dw);
  }

  // Backward of the column-parallel GEMM that opens a TP region (QKV, FC1, the shared experts'
  // FC1, the head), as Megatron-Core's LinearWithGradAccumulationAndAsyncCommunication and
  // Transformer Engine's Linear/LayerNormLinear run it:
  //  * with SP the forward saved only its sequence shard of the input (the activation memory
  //    counts h/t per token), so the backward all-gathers it again for the weight gradient,
  //    issued before and run beside the input-gradient GEMM;
  //  * the input gradient's reduce-scatter (all-reduce without SP) is issued before the
  //    weight-gradient GEMM and runs beside it (TE: "overlap dgrad-RS/AR with wgrad").
  // Under a schedule that defers weight gradients (ZB-H1, DualPipeV) the weight gradient is in
  // its own pass, so the reduction has nothing beside it and blocks as before. Without
  // plan.tp_backward_overlap (Megatron-LM of 2021: the region's entry f all-reduces in its
  // backward, synchronously) both block. Before 2026-12-02 the re-gather was missing and the
  // reduction always blocked (docs/models.md).
  void column_backward(const ComputeOp& f, std::vector<Step>& bi, std::vector<Step>& bw, const char* regather_name,
                       const char* rs_name, const char* ar_name) const {
    column_backward(f, T * m.hidden * ab, bi, bw, regather_name, rs_name, ar_name);
  }
  // bytes: the input gradient reduced per micro-batch (the hidden state's, or an MLA latent's);
  // regather_bytes, when >= 0, the input re-gathered for the weight gradient if it differs.
  void column_backward(const ComputeOp& f, double bytes, std::vector<Step>& bi, std::vector<Step>& bw,
                       const char* regather_name, const char* rs_name, const char* ar_name, double regather_bytes = -1) const {
    auto [dx, dw] = gemm_grads(f);
    if (t > 1 && sp) dw.input_shards = t;
    // TE's userbuffers (overlap.tp_comm) overlap both in bulk with the GEMMs beside them
    // (ub_bulk_dgrad, ub_bulk_wgrad) whatever the framework's own asynchronous backward says: with
    // tp_comm and not tp_backward, estimate had hidden the reduction behind the input-gradient
    // GEMM and simulate had blocked on it, 13% apart (2026-12-05 review).
    const bool async = s.plan.tp_backward_overlap || s.plan.tp_comm_overlap;
    std::optional<Collective> regather;
    if (t > 1 && sp) {
      const Collective g = coll(regather_name, CollKind::AllGather, GroupKind::TP, regather_bytes >= 0 ? regather_bytes : bytes,
                                s.plan.tp_comm_overlap);
      regather = async ? beside_next(g) : g;
    }
    // A deferred weight gradient (ZB-H1, DualPipeV) gathers its input in its own pass, beside
    // itself: the input-gradient pass neither holds the gathered tensor until then nor counts its
    // GEMM as cover for the gather and the reduction both (review of 2026-12-02).
    if (regather && !split_wgrad) bi.push_back(*regather);
    if (t <= 1) {
      bi.push_back(dx);
      bw.push_back(dw);
      return;
    }
    Collective red = coll(sp ? rs_name : ar_name, sp ? CollKind::ReduceScatter : CollKind::AllReduce, GroupKind::TP, bytes,
                          s.plan.tp_comm_overlap);
    if (split_wgrad) {
      // With TE's userbuffers the reduction is pipelined with the input-gradient GEMM that
      // produces it (chunk by chunk): beside that GEMM, written before it as the pipelined
      // collective it is. Otherwise it blocks.
      if (s.plan.tp_comm_overlap) {
        bi.push_back(beside_next(red));
        bi.push_back(dx);
      } else {
        bi.push_back(dx);
        bi.push_back(red);
      }
      if (regather) bw.push_back(*regather);
      bw.push_back(dw);
      return;
    }
    bi.push_back(dx);
    if (!async) {
      bi.push_back(red);
      bw.push_back(dw);
      return;
    }
    red.overlappable = true;
    bi.push_back(beside_next(red));
    bi.push_back(dw);
  }

  void attention_block(Block& b, std::vector<Step>& fwd, std::vector<Step>& bi, std::vector<Step>& bw,
                       std::vector<Step>& rc) const {
    const double h = m.hidden;
    const double q = static_cast<double>(m.heads) * attn_qk_dim();
    const double kv_local = m.mla ? 0 : static_cast<double>(std::max(m.kv_heads, t)) * m.head_dim / t;
    const ComputeOp norm = mem("attn.norm", OpClass::Norm, Tsp * h * ab * 2);
    fwd.push_back(norm);
    ComputeOp qkv;
    std::vector<ComputeOp> mla_down, mla_up;
    if (m.mla) {
      // Megatron-Core's MLA (MLASelfAttention with the TE layer spec): the down projections are
      // duplicated linears (TELinear, parallel_mode "duplicated") on the layer's input as it is,
      // the sequence shard under SP; the up projections are column-parallel and, under SP, gather
      // the latents (q_lora_rank + kv_lora_rank elements per token, and the rope key) instead of
      // the hidden state. Without SP every rank runs the down projections on the whole sequence.
      // Before 2026-12-03 the hidden state was gathered under SP and the down projections ran on
      // the gathered tokens: 3.4x the gather bytes and t x the down-projection FLOPs (DeepSeek-V3).
      const auto& a = *m.mla;
      const double qin = a.q_lora_rank > 0 ? a.q_lora_rank : h;
      mla_down.push_back(gemm("attn.kv_down", Tsp, a.kv_lora_rank + a.qk_rope_head_dim, h));
      if (a.q_lora_rank > 0) mla_down.push_back(gemm("attn.q_down", Tsp, a.q_lora_rank, h));
      for (const auto& d : mla_down) fwd.push_back(d);
      qkv = mla_down.front();
      mla_up.push_back(gemm("attn.q_up", T, q / t, qin));
      mla_up.push_back(gemm("attn.kv_up", T, static_cast<double>(m.heads) / t * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank));
      for (size_t i = 0; i < mla_up.size(); ++i) {
        if (t > 1 && sp) {
          const Collective ag = coll(i == 0 ? "attn.q_up.tp_all_gather" : "attn.kv_up.tp_all_gather", CollKind::AllGather,
                                     GroupKind::TP, T * mla_up_input_elems(i) * ab, s.plan.tp_comm_overlap);
          fwd.push_back(s.plan.tp_comm_overlap ? beside_next(ag) : ag);
        }
        fwd.push_back(mla_up[i]);
      }
    } else {
      tp_enter(fwd, "attn.tp_all_gather");
      qkv = gemm("attn.qkv", T, (q + 2 * kv_local * t) / t, h);
      fwd.push_back(qkv);
      // QK-norm (Qwen3, OLMo 2, Gemma 3; Megatron-Core's qk_layernorm): an RMSNorm of each head's
      // query and key before RoPE, which reads and writes this rank's Q and K.
      if (m.qk_norm) fwd.push_back(mem("attn.qk_norm", OpClass::Norm, T * (q / t + kv_local) * ab * 2));
    }
    ComputeOp core;
    core.name = "attn.core";
    core.cls = OpClass::Attention;
    core.flops = attn_flops();
    core.bytes = T * (2 * q / t + 2 * std::max(kv_local, q / t)) * ab;
    // Flash attention runs in 16-bit even with fp8/fp4 GEMMs (bf16 there); fp32/tf32 and fp16
    // training run it in their own precision (review of 2026-12-07: fp16 training's attention had
    // been bf16, timed at the bf16 peak).
    core.dtype = low_precision() ? DType::BF16 : dt;
    core.peak_fraction_cap = s.train.attention_peak_fraction;
    // Ring attention: cp-1 exchanges of this rank's K and V chunk, each overlapped with the
    // attention of the chunk already present (ring_attention, below).
    // Without flash attention the scores are materialised: QK^T and PV run over every key (the
    // causal mask is applied to the whole score matrix, not skipped), and the b x a/t x s x s
    // matrix passes through HBM between the kernels (docs/models.md, Attention without flash).
    ComputeOp scores_f, scores_b;
    if (!flash_attention()) {
      core.flops *= s.train.seq_len / kv_len();
      const double n = T * static_cast<double>(m.heads) / t * s.train.seq_len;  // scores per micro-batch on this rank
      const double d = dropout ? 1.0 : 0.0;
      // Forward: QK^T writes the scores, softmax reads and writes them, dropout reads them and
      // writes its output and 1-byte mask, PV reads them. Backward: dP written, P read for dV,
      // dropout's backward reads dP and the mask and writes, softmax's reads its output and the
      // gradient and writes dS, which the dQ and dK GEMMs read.
      scores_f = mem("attn.scores", OpClass::Elementwise, n * (ab * (4.0 + 2.0 * d) + d));
      scores_b = mem("attn.scores.bwd", OpClass::Elementwise, n * (ab * (7.0 + 2.0 * d) + d));
    }
    if (cp > 1) ring_attention(fwd, core, "attn.cp_ring_kv", T * ring_kv_elems() * ab, false);
    else fwd.push_back(core);
    if (!flash_attention()) fwd.push_back(scores_f);
    const double o_dim = static_cast<double>(m.heads) * attn_v_dim();
    // Ring attention computes one partial output per ring step and folds it into the running
    // output with its log-sum-exp (Transformer Engine's AttnFuncWithCPAndKVP2P: out_per_step, then
    // flash_attn_fwd_out_correction): per step after the first, the partial output is written and
    // read back and the running output read and written. Its backward accumulates dQ the same way
    // and adds each received dK, dV. Memory-bound work that a single attention kernel does not
    // have (before 2026-12-02 CP's attention cost what the same tokens cost without CP).
    std::optional<ComputeOp> cp_merge, cp_merge_b;
    if (cp > 1) {
      const double q_local = static_cast<double>(m.heads) / t * attn_qk_dim(), o_local = o_dim / t;
      const double kv_local_w = m.mla ? static_cast<double>(m.heads) / t * (attn_qk_dim() + attn_v_dim()) : 2 * kv_local;
      cp_merge = mem("attn.cp_merge", OpClass::Elementwise, (cp - 1) * 4.0 * T * o_local * ab);
      cp_merge_b = mem("attn.cp_merge.bwd", OpClass::Elementwise, (cp - 1) * 3.0 * T * (q_local + kv_local_w) * ab);
      fwd.push_back(*cp_merge);
    }
    ComputeOp proj = gemm("attn.out_proj", T, h, o_dim / t);
    fwd.push_back(proj);
    tp_leave(fwd, "attn.tp_reduce_scatter", "attn.tp_all_reduce");
    // With dropout, the residual add is Megatron's fused bias-dropout-add: it writes the 1-byte
    // mask (which the memory holds) and its backward reads it (the kernel had moved no mask bytes:
    // dropout changed no time with flash attention; review of 2026-12-05).
    const double hidden_mask = dropout ? Tsp * h : 0.0;
    fwd.push_back(mem("attn.residual", OpClass::Elementwise, Tsp * h * ab * 3 + hidden_mask));

    // Backward (reverse order).
    bi.push_back(mem("attn.residual.bwd", OpClass::Elementwise, Tsp * h * ab * 3 + hidden_mask));
    // The gradient of a leaving RS is an AG, and of an entering AG an RS. Without SP, Megatron's
    // g (all-reduce forward) has an identity backward and f (identity forward) all-reduces in
    // backward: one all-reduce per region each way (Shoeybi et al. 2019, Sec. 3; before
    // 2026-12-02 the backward had two).
    if (t > 1 && sp) bi.push_back(tp_leave_grad("attn.tp_all_gather.bwd"));
    gemm_backward(proj, bi, bw);
    ComputeOp core_b = core;
    core_b.name = "attn.core.bwd";
    // Flash attention's backward recomputes QK^T: 5 matmuls against 2; materialised scores: 4.
    core_b.flops = (flash_attention() ? 2.5 : 2.0) * core.flops;
    core_b.bytes = 2 * core.bytes;
    if (cp > 1) ring_attention(bi, core_b, "attn.cp_ring_dkv.bwd", T * ring_kv_elems() * ab, true);
    else bi.push_back(core_b);
    if (cp_merge_b) bi.push_back(*cp_merge_b);
    if (!flash_attention()) bi.push_back(scores_b);
    if (!m.mla) {
      if (m.qk_norm) bi.push_back(mem("attn.qk_norm.bwd", OpClass::Norm, T * (q / t + kv_local) * ab * 3));
      column_backward(qkv, bi, bw, "attn.tp_regather.bwd", "attn.tp_reduce_scatter.bwd", "attn.tp_all_reduce.bwd_in");
    } else {
      // MLA: each up projection is column-parallel on its latent (re-gathered under SP for its
      // weight gradient; its input gradient reduce-scattered, all-reduced without SP); the
      // duplicated down projections then run their backward on the local tokens with no
      // collective (their weight gradients are summed over TP once per step, StepWork).
      // KV's re-gather is of the KV latent alone (its GEMM's input); the rope key gathered beside
      // it in the forward has its gradient reduced with the latent's.
      column_backward(mla_up[1], T * mla_up_input_elems(1) * ab, bi, bw, "attn.kv_up.tp_regather.bwd",
                      "attn.kv_up.tp_reduce_scatter.bwd", "attn.kv_up.tp_all_reduce.bwd_in",
                      T * static_cast<double>(m.mla->kv_lora_rank) * ab);
      column_backward(mla_up[0], T * mla_up_input_elems(0) * ab, bi, bw, "attn.q_up.tp_regather.bwd",
                      "attn.q_up.tp_reduce_scatter.bwd", "attn.q_up.tp_all_reduce.bwd_in");
      for (auto it = mla_down.rbegin(); it != mla_down.rend(); ++it) gemm_backward(*it, bi, bw);
    }
    bi.push_back(mem("attn.norm.bwd", OpClass::Norm, Tsp * h * ab * 3));

    if (s.train.recomputes(kRecomputeLayerNorm)) rc.push_back(norm);
    // mla_up_proj recomputes the up projections from the saved latents: under SP they gather
    // their latents again (Megatron-Core checkpoints qkv_up_proj_and_rope_apply whole).
    if (s.train.recomputes(kRecomputeMlaUpProj))
      for (const auto& st : fwd) {
        const char* name = std::visit([](const auto& x) { return x.name; }, st);
        if (std::string_view(name).starts_with("attn.q_up") || std::string_view(name).starts_with("attn.kv_up")) rc.push_back(st);
      }
    if (s.train.recomputes(kRecomputeCoreAttn)) {
      // Recomputing the attention of a context-parallel layer exchanges K and V around the ring again.
      if (cp > 1) ring_attention(rc, core, "attn.cp_ring_kv", T * ring_kv_elems() * ab, false);
      else rc.push_back(core);
      if (cp_merge) rc.push_back(*cp_merge);
      if (!flash_attention()) rc.push_back(scores_f);
    }

    // Parameters on this rank.
    double p_attn;
    if (m.mla) {
      const auto& a = *m.mla;
      const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
      const double qp = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * m.heads * qk : h * m.heads * qk;
      const double kvp = h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim);
      // The down projections (hidden to the latents) are replicated across tensor parallelism
      // (Megatron-Core's MLA layer specs build them as duplicated linears); the up projections
      // and the output are split. The two latent norms add their weights.
      const double down = h * (a.q_lora_rank > 0 ? a.q_lora_rank : 0.0) + h * (a.kv_lora_rank + a.qk_rope_head_dim);
      const double split = qp + kvp - down + m.heads * a.v_head_dim * h;
      p_attn = down + split / t + a.q_lora_rank + a.kv_lora_rank;
      b.tp_replicated_params += down + a.q_lora_rank + a.kv_lora_rank;
    } else {
      p_attn = (h * q + 2 * h * kv_local * t + q * h) / t;
      if (m.qk_norm) {  // one weight vector of head_dim each for the query and the key norm
        p_attn += 2.0 * m.head_dim;
        b.tp_replicated_params += 2.0 * m.head_dim;
      }
    }
    b.params += p_attn + h;  // + norm
    b.tp_replicated_params += h;

    // Saved activations (Korthikanti et al. generalised; docs/models.md).
    const double div_sp = sp ? t : 1;
    double act = 0, remat = 0;  // saved, and rematerialised by selective recompute during the backward
    act += h * ab / div_sp;                     // norm input
    (s.train.recomputes(kRecomputeLayerNorm) ? remat : act) += h * gb / div_sp;  // QKV input (the GEMM's saved copy)
    // MLA's query down projection casts the same input again under FP8 (each TE linear quantises
    // its own input, as the time model casts it): a second FP8 copy (2026-12-05 review: one was
    // counted for the two). In 16 bits both save the one norm output.
    if (m.mla && m.mla->q_lora_rank > 0 && gb < ab) (s.train.recomputes(kRecomputeLayerNorm) ? remat : act) += h * gb / div_sp;
    if (m.mla) {
      // MLA: the latents' norms save their inputs and the up projections theirs (the latents are
      // whole on every TP rank, sequence-sharded under SP like the hidden state: the up
      // projections re-gather theirs in the backward); attention saves Q and K (heads x qk dim)
      // and V (heads x v dim) as built by the up projections. The latent norms are not
      // Megatron-Core's "layernorm" recompute module (that is the layer's two input norms); their
      // outputs go with mla_up_proj, whose checkpoint holds the norms (or the TE norm+linear
      // fused into the up projection) and keeps only the pre-norm latents.
      const auto& a = *m.mla;
      const double latents = (a.q_lora_rank > 0 ? a.q_lora_rank : 0.0) + a.kv_lora_rank;
      act += latents * ab / div_sp;
      (s.train.recomputes(kRecomputeMlaUpProj) ? remat : act) += latents * gb / div_sp;
      // mla_up_proj (Megatron-Core's recompute module; DeepSeek-V3 Sec. 3.2.3 recomputes the MLA
      // up projections): Q, K and V are rebuilt from the latents during the backward.
      (s.train.recomputes(kRecomputeMlaUpProj) ? remat : act) += (2 * q + static_cast<double>(m.heads) * a.v_head_dim) / t * ab;
    } else {
      act += (q + 2 * kv_local * t) / t * ab;   // Q, K, V
      if (m.qk_norm) act += (q / t + kv_local) * ab;  // the QK-norm's input: Q and K before the norm
    }
    if (!flash_attention()) {  // full recompute: in the recomputed set
      // softmax output (+ dropout mask of 1 byte and dropout output) per score, scores per token:
      // a local query scores every key of the sequence, also under CP (ring attention passes the
      // other ranks' keys by; before 2026-12-02 this was divided by cp as well, half the scores at cp 2)
      const double scores = (dropout ? 2.0 * ab + 1.0 : ab) * m.heads / t * s.train.seq_len;
      (s.train.recomputes(kRecomputeCoreAttn) ? remat : act) += scores;
    }
    // Attention output = projection input. Flash attention keeps its 16-bit output for its own
    // backward; with FP8 GEMMs the projection saves its FP8 copy besides.
    act += o_dim / t * (gb < ab ? (flash_attention() ? ab + gb : gb) : ab);
    if (flash_attention()) act += 4.0 * m.heads / t;  // softmax statistics (fp32)
    if (dropout) act += h * 1.0 / div_sp;       // dropout mask
    b.activation_bytes += act * T;
    b.recompute_bytes += remat * T;
  }

  bool flash_attention() const { return s.train.flash_attention; }

  // Elements per token of the input of MLA's up projection i (0: Q, the query latent or, without
  // one, the hidden state; 1: KV, the KV latent and the rope key, which Megatron-Core gathers
  // beside it under SP).
  double mla_up_input_elems(size_t i) const {
    const auto& a = *m.mla;
    if (i == 0) return a.q_lora_rank > 0 ? a.q_lora_rank : static_cast<double>(m.hidden);
    return static_cast<double>(a.kv_lora_rank) + a.qk_rope_head_dim;
  }

  // Elements of K and V per token that ring attention passes around the CP group: kv heads x head
  // dim twice (GQA heads replicated up to t), or for MLA the expanded K (heads x qk dim) and V
  // (heads x v dim) of this rank's heads.
  double ring_kv_elems() const {
    if (m.mla) return static_cast<double>(m.heads) * (attn_qk_dim() + m.mla->v_head_dim) / t;
    return 2.0 * static_cast<double>(std::max(m.kv_heads, t)) * m.head_dim / t;
  }

  void mlp_block(Block& b, std::vector<Step>& fwd, std::vector<Step>& bi, std::vector<Step>& bw,
                 std::vector<Step>& rc, bool moe) const {
    const double h = m.hidden;
    const double div_sp = sp ? t : 1;
    const int mats = m.gated() ? 3 : 2;
    const ComputeOp norm = mem("mlp.norm", OpClass::Norm, Tsp * h * ab * 2);
    fwd.push_back(norm);
    if (s.train.recomputes(kRecomputeLayerNorm)) rc.push_back(norm);
    // (MLA's up projections are recomputed by attention_block; this block scanned the layer's
    // forward for them as well and recomputed them twice before 2026-12-03.)
    std::vector<Step> local;  // forward steps of this block (for the backward mirror)
    double act = h * ab / div_sp;  // norm input
    double remat = 0;              // rematerialised by selective recompute during the backward
    // The norm's output, when a GEMM or the router saves it as its input.
    double& norm_out = s.train.recomputes(kRecomputeLayerNorm) ? remat : act;
    if (!moe) {
      const double f = m.ffn_hidden;
      const size_t mlp_begin = fwd.size();
      tp_enter(fwd, "mlp.tp_all_gather");
      ComputeOp up = gemm("mlp.up", T, (mats - 1) * f / t, h);
      ComputeOp down = gemm("mlp.down", T, h, f / t);
      fwd.push_back(up);
      fwd.push_back(mem("mlp.act", OpClass::Elementwise, T * (mats - 1) * f / t * ab + T * f / t * ab));
      fwd.push_back(down);
      tp_leave(fwd, "mlp.tp_reduce_scatter", "mlp.tp_all_reduce");
      bi.push_back(mem("mlp.residual.bwd", OpClass::Elementwise, Tsp * h * ab * 3 + (dropout ? Tsp * h : 0.0)));
      if (t > 1 && sp) bi.push_back(tp_leave_grad("mlp.tp_all_gather.bwd"));
      gemm_backward(down, bi, bw);
      bi.push_back(mem("mlp.act.bwd", OpClass::Elementwise, 2 * T * (mats - 1) * f / t * ab + T * f / t * ab));
      column_backward(up, bi, bw, "mlp.tp_regather.bwd", "mlp.tp_reduce_scatter.bwd", "mlp.tp_all_reduce.bwd_in");
      b.params += mats * h * f / t + h;
      b.tp_replicated_params += h;  // the norm
      norm_out += h * gb / div_sp;  // fc1 input (the GEMM's saved copy)
      // fc1 output(s); activation output = fc2 input. Recomputing the MLP repeats its forward
      // from the saved fc1 input, TP collectives included.
      (s.train.recomputes(kRecomputeMlp) ? remat : act) += (mats - 1) * f / t * ab + f / t * gb;
      if (s.train.recomputes(kRecomputeMlp)) rc.insert(rc.end(), fwd.begin() + static_cast<std::ptrdiff_t>(mlp_begin), fwd.end());
    } else {
      const auto& x = *m.moe;
      const double f = x.expert_ffn_hidden;
      // Tokens of this rank entering the MoE layer (sharded over TP by sequence parallelism).
      // Tokens of this rank entering the routing: its sequence-parallel shard (or its split of the
      // replicated tokens without SP). Megatron-Core's dispatcher routes and all-to-alls only
      // these, then all-gathers the received tokens over the expert-TP group (reduce-scatter
      // before the combine): the experts see etp x as many, with weights split etp ways.
      const double Tin = t > 1 ? T / t : T;
      const double Tl = Tin * etp;
      // Selective recompute of the whole routed part (Megatron-Core's `moe` module) repeats
      // its forward, all-to-alls included; otherwise its activation function or shared experts.
      const bool rc_moe = s.train.recomputes(kRecomputeMoe);
      const bool rc_act = !rc_moe && s.train.recomputes(kRecomputeMoeAct);
      const bool rc_shared = !rc_moe && s.train.recomputes(kRecomputeSharedExperts);
      const size_t moe_begin = fwd.size();
      if (t > 1 && !sp) fwd.push_back(mem("moe.token_split", OpClass::Memcpy, T * h * ab));
      ComputeOp router = gemm16("moe.router", Tin, x.num_experts, h);
      router.cls = OpClass::Router;
      fwd.push_back(router);
      // Token-expert pairs processed on the busiest expert-parallel rank, which sets the pace of
      // every all-to-all and expert GEMM of the layer: the balanced share times the load factor
      // (training.moe_load_imbalance, capped or fixed by a capacity factor; docs/models.md).
      // An imbalance across EP ranks is at most ep (every pair on one rank; 1 without EP), whatever
      // was asked; padding to capacity is per expert and applies at any ep.
      // A rank holding e = E / ep experts receives at most min(topk, e) of a token's topk copies,
      // so its share is at most ep x min(topk, e) / topk times the mean (DeepSeek-V3 at ep 64:
      // 32, not 64; Mixtral at ep 8: 4, where 8 made 65,536 expert rows of 32,768 tokens;
      // 2026-12-04 review).
      const double load = s.moe_rank_load();
      const double routed = Tl * x.topk * load;
      const double a2a = Tin * x.topk * load * h * ab;  // sent (and received) per rank: before 2026-12-01, etp x this
      // With FP8 dispatch (training.moe_fp8_dispatch, FP8/FP4 GEMMs only) the forward dispatch and
      // the backward combine, with the permutes beside them, move one byte per element plus one
      // scale byte per 32 (fp32 per 128 or E8M0 per 32): the tokens are cast before they are sent.
      // Without EP there is no dispatch to cast for: the permutes move the 16-bit tokens (the
      // setting is noted as without effect; it had shortened them, 2026-12-04 review).
      const double a2a_fp8 = s.train.moe_fp8_dispatch && low_precision() && ep > 1 ? Tin * x.topk * load * h * (1.0 + 1.0 / 32) : a2a;
      if (ep > 1) fwd.push_back(moe_a2a("moe.dispatch", a2a_fp8));
      fwd.push_back(mem("moe.permute", OpClass::Memcpy, 2 * a2a_fp8));
      const double etp_bytes = routed * h * ab;  // the gathered tokens (output of the all-gather)
      if (etp > 1) fwd.push_back(coll("moe.etp_all_gather", CollKind::AllGather, GroupKind::ETP, etp_bytes));
      const double local_experts = static_cast<double>(x.num_experts) / ep;
      const double per_expert = routed / local_experts;
      ComputeOp up = gemm("moe.expert_up", per_expert, (mats - 1) * f / etp, h, local_experts);
      ComputeOp down = gemm("moe.expert_down", per_expert, h, f / etp, local_experts);
      fwd.push_back(up);
      const ComputeOp expert_act = mem("moe.act", OpClass::Elementwise, routed * ((mats - 1) * f + f) / etp * ab);
      fwd.push_back(expert_act);
      if (rc_act) rc.push_back(expert_act);
      fwd.push_back(down);
      if (etp > 1) fwd.push_back(coll("moe.etp_reduce_scatter", CollKind::ReduceScatter, GroupKind::ETP, etp_bytes));
      if (ep > 1) fwd.push_back(moe_a2a("moe.combine", a2a));
      fwd.push_back(mem("moe.unpermute", OpClass::Memcpy, 2 * a2a));
      ComputeOp sup, sdown;
      const bool shared = x.shared_experts > 0;
      if (shared) {
        // Shared experts are a dense MLP on the layer's tensor-parallel group (Megatron-Core's
        // SharedExpertMLP), not on the expert-TP group: weights split t ways over all T tokens,
        // with their own TP all-gather and reduce-scatter (all-reduce without SP), whatever etp is.
        // Before 2026-12-01 they were split etp ways: with etp 1 and tp 8, eight times the weights.
        const double fs = static_cast<double>(x.shared_experts) * f;
        const size_t shared_begin = fwd.size();
        tp_enter(fwd, "moe.shared.tp_all_gather");
        sup = gemm("moe.shared_up", T, (mats - 1) * fs / t, h);
        sdown = gemm("moe.shared_down", T, h, fs / t);
        fwd.push_back(sup);
        fwd.push_back(sdown);
        tp_leave(fwd, "moe.shared.tp_reduce_scatter", "moe.shared.tp_all_reduce");
        if (rc_shared) rc.insert(rc.end(), fwd.begin() + static_cast<std::ptrdiff_t>(shared_begin), fwd.end());
        b.params += mats * h * fs / t;
        (rc_shared || rc_moe ? remat : act) += ((mats - 1) * fs * ab + fs * gb) / t;
        // Under FP8 its fc1 saves its own FP8 copy of the layer's normed input (the local shard
        // under SP, re-gathered in the backward), which the time model casts; in 16 bits fc1 and
        // the router save one tensor (2026-12-05 review: the FP8 copy was not counted).
        if (gb < ab) (rc_shared || rc_moe ? remat : act) += h * gb / div_sp;
      }
      if (rc_moe) rc.insert(rc.end(), fwd.begin() + static_cast<std::ptrdiff_t>(moe_begin), fwd.end());
      // Backward.
      bi.push_back(mem("moe.residual.bwd", OpClass::Elementwise, Tsp * h * ab * 3 + (dropout ? Tsp * h : 0.0)));
      if (shared) {
        if (t > 1 && sp) bi.push_back(tp_leave_grad("moe.shared.tp_all_gather.bwd"));
        gemm_backward(sdown, bi, bw);
        column_backward(sup, bi, bw, "moe.shared.tp_regather.bwd", "moe.shared.tp_reduce_scatter.bwd", "moe.shared.tp_all_reduce.bwd_in");
      }
      if (ep > 1) bi.push_back(moe_a2a("moe.combine.bwd", a2a_fp8));
      bi.push_back(mem("moe.unpermute.bwd", OpClass::Memcpy, 2 * a2a_fp8));
      if (etp > 1) bi.push_back(coll("moe.etp_reduce_scatter.bwd", CollKind::AllGather, GroupKind::ETP, etp_bytes));
      gemm_backward(down, bi, bw);
      bi.push_back(mem("moe.act.bwd", OpClass::Elementwise, 2 * routed * ((mats - 1) * f + f) / etp * ab));
      gemm_backward(up, bi, bw);
      if (etp > 1) bi.push_back(coll("moe.etp_all_gather.bwd", CollKind::ReduceScatter, GroupKind::ETP, etp_bytes));
      if (ep > 1) bi.push_back(moe_a2a("moe.dispatch.bwd", a2a));
      bi.push_back(mem("moe.permute.bwd", OpClass::Memcpy, 2 * a2a));
      gemm_backward(router, bi, bw);
      const double p_expert = local_experts * mats * h * f / etp;
      b.params += p_expert + h * x.num_experts + h;
      b.expert_params += p_expert;
      b.tp_replicated_params += h * x.num_experts + h;  // the router and the norm
      norm_out += h * ab / div_sp;  // router input
      // Per routed token: the dispatched token (the expert GEMM's saved input), the expert
      // outputs when the router probabilities multiply them at the combine (the multiply saves
      // them for the probabilities' gradient; weighting inside the experts' activation saves
      // nothing more), and the expert activations (fc1 outputs; the activation output is the
      // fc2 GEMM's saved input). The combine's multiply (Megatron-Core's unpermute with probs)
      // runs after the expert-TP reduce-scatter and the all-to-all, on this rank's own Tin
      // tokens: before 2026-12-03 it was counted at the etp-times larger gathered count. Those are
      // the rank's own Tin x topk token copies whatever the busiest expert rank processed (padded
      // rows are dropped before it): not scaled by the load factor, as it was before 2026-12-04
      // (moe_load_imbalance 1.5 held 1.07 GB too much on Mixtral at 4,096 tokens).
      const double weighted_out = s.train.moe_weighting_in_expert ? 0.0 : ab;
      (rc_moe ? remat : act) += Tl / T * load * (x.topk * h * gb + x.topk * (mats - 1) * f * ab / etp) +
                                Tin / T * x.topk * h * weighted_out;
      (rc_moe || rc_act ? remat : act) += Tl / T * load * x.topk * f * gb / etp;  // activation output = fc2 input
    }
    fwd.push_back(mem("mlp.residual", OpClass::Elementwise, Tsp * h * ab * 3 + (dropout ? Tsp * h : 0.0)));  // bias-dropout-add's mask
    bi.push_back(mem("mlp.norm.bwd", OpClass::Norm, Tsp * h * ab * 3));
    if (dropout) act += h * 1.0 / div_sp;
    b.activation_bytes += act * T;
    b.recompute_bytes += remat * T;
    (void)local;
  }

  Block layer(bool moe, bool full) const {  // full: this layer is recomputed in full
    Block b;
    b.name = moe ? "moe_layer" : "dense_layer";
    std::vector<Step> fwd, bi, bw, rc;
    fwd.reserve(32);  // a layer has about 20 steps per pass: avoid regrowth (plan search lowers millions)
    bi.reserve(40);
    bw.reserve(16);
    // FSDP / ZeRO-3: gather this layer's parameters before use, in forward and again in backward.
    // Only what is sharded: the dense weights over the DP group where it has more than one member,
    // the expert weights over the expert-data-parallel group (EDP) where it has (Megatron-FSDP with
    // EP). Before 2026-12-07 the dense ones were gathered and reduce-scattered over a DP group of one
    // too (review: 0 s rows of 218 MB in the op table, as no other collective over a group of one
    // is emitted; the memory had counted nothing gathered there already).
    const bool dense_gather = zero3 && dp_ranks() > 1;
    const bool expert_gather = zero3 && moe && edp > 1;
    const auto n_g = static_cast<std::ptrdiff_t>((dense_gather ? 1 : 0) + (expert_gather ? 1 : 0));
    // Sizes are filled in after the parameter count is known.
    if (dense_gather) fwd.push_back(coll("zero3.param_all_gather", CollKind::AllGather, GroupKind::DP, 0, s.plan.overlap_param_gather));
    if (expert_gather)
      fwd.push_back(coll("zero3.expert_param_all_gather", CollKind::AllGather, GroupKind::EDP, 0, s.plan.overlap_param_gather));
    attention_block(b, fwd, bi, bw, rc);
    mlp_block(b, fwd, bi, bw, rc, moe);
    if (full) {
      rc = fwd;
      b.recompute_bytes = b.activation_bytes;                  // rematerialised during its backward
      b.activation_bytes = m.hidden * ab / (sp ? t : 1) * T;  // the layer input only
    }
    // Selective recompute: the blocks above put the modules of training.recompute_modules into
    // rc, left their saved outputs out of activation_bytes and counted them in recompute_bytes.
    // Backward runs in reverse: mlp part then attention part. bi holds attention first (built
    // first), so put the MLP part before it.
    std::vector<Step> bi_ordered;
    bi_ordered.reserve(bi.size() + 1);
    // The MLP backward steps were appended after the attention ones; find the split point.
    size_t split = 0;
    for (size_t i = 0; i < bi.size(); ++i) {
      const std::string_view n = std::visit([](const auto& x) { return std::string_view(x.name); }, bi[i]);
      if (n.substr(0, 4) == "mlp." || n.substr(0, 4) == "moe.") {
        split = i;
        break;
      }
    }
    bi_ordered.insert(bi_ordered.end(), bi.begin() + static_cast<long>(split), bi.end());
    bi_ordered.insert(bi_ordered.end(), bi.begin(), bi.begin() + static_cast<long>(split));
    if (n_g > 0) {
      // ZeRO-3 gathers (and reduce-scatters) each parameter tensor of the layer separately:
      // weights of the attention and MLP matrices, their biases (GPT-style models) and norms.
      // Frameworks gather either a layer at a time (FSDP flat parameters, coalesced prefetch:
      // one call) or tensor by tensor (plan.zero3_gather, from the framework catalog).
      const int tensors = s.plan.zero3_gather == "tensor" ? 4 + 2 + (m.mlp == "gelu" ? 6 : 0) : 1;
      const double gather = (b.params - b.expert_params) * param_bytes();  // the whole (TP-sharded) layer
      const double expert_gather_bytes = b.expert_params * param_bytes();  // this rank's experts
      const size_t expert_at = dense_gather ? 1 : 0;  // the expert gather's place among the leading gathers
      if (dense_gather) {
        auto& g0 = std::get<Collective>(fwd.front());
        g0.bytes = gather;
        g0.calls = tensors;
        // The backward's gather is prefetched like the forward's, and only with overlap.param_gather:
        // before 2026-12-06 it was overlappable whatever that said (review: param_gather false left
        // 0.074 s of Llama 3 8B's backward gathers hidden while the memory held no prefetched layer).
        Collective gb = coll("zero3.param_all_gather.bwd", CollKind::AllGather, GroupKind::DP, gather, s.plan.overlap_param_gather);
        gb.calls = tensors;
        bi_ordered.insert(bi_ordered.begin(), gb);
        Collective rs = coll("zero3.grad_reduce_scatter", CollKind::ReduceScatter, GroupKind::DP,
                             gather * grad_bytes() / param_bytes(), s.plan.overlap_grad_reduce);
        rs.calls = tensors;
        bw.push_back(rs);
      }
      if (expert_gather) {
        auto& e0 = std::get<Collective>(fwd[expert_at]);
        e0.bytes = expert_gather_bytes;
        bi_ordered.insert(bi_ordered.begin() + static_cast<std::ptrdiff_t>(expert_at),
                          coll("zero3.expert_param_all_gather.bwd", CollKind::AllGather, GroupKind::EDP, expert_gather_bytes,
                               s.plan.overlap_param_gather));
        bw.push_back(coll("zero3.expert_grad_reduce_scatter", CollKind::ReduceScatter, GroupKind::EDP,
                          expert_gather_bytes * grad_bytes() / param_bytes(), s.plan.overlap_grad_reduce));
      }
      if (full) {  // rc is a copy of fwd, whose first steps are the gathers
        if (s.plan.zero3_regather_for_recompute) {
          if (dense_gather) {
            auto& gr = std::get<Collective>(rc.front());
            gr.name = "zero3.param_all_gather.recompute";
            gr.bytes = gather;
            gr.calls = tensors;
          }
          if (expert_gather) {
            auto& er = std::get<Collective>(rc[expert_at]);
            er.name = "zero3.expert_param_all_gather.recompute";
            er.bytes = expert_gather_bytes;
          }
        } else {
          // The backward's gathers serve the recompute too, and so come before it: the
          // recompute is the first pass of the layer's backward (before 2026-12-02 they opened
          // the input-gradient pass, and simulate ran the recompute before its gather).
          rc.erase(rc.begin(), rc.begin() + n_g);
          rc.insert(rc.begin(), bi_ordered.begin(), bi_ordered.begin() + n_g);
          bi_ordered.erase(bi_ordered.begin(), bi_ordered.begin() + n_g);
        }
      } else if (std::any_of(rc.begin(), rc.end(), [](const Step& st) {
                   const auto* op = std::get_if<ComputeOp>(&st);
                   return op && op->cls == OpClass::Gemm;
                 })) {
        // Selective recompute of modules with weights (mlp, moe, shared_experts, mla_up_proj):
        // the backward's gathers come before it too.
        rc.insert(rc.begin(), bi_ordered.begin(), bi_ordered.begin() + n_g);
        bi_ordered.erase(bi_ordered.begin(), bi_ordered.begin() + n_g);
      }
    }
    if (zero2) zero2_reduce(b.params - b.expert_params, moe ? b.expert_params : 0.0, bw);
    for (auto* v : {&fwd, &rc, &bi_ordered, &bw}) lowp_gathers(*v);
    add_quantize(fwd, false);
    add_quantize(rc, false);
    add_quantize(bi_ordered, true);
    b.forward = std::move(fwd);
    b.backward_input = std::move(bi_ordered);
    b.backward_weight = std::move(bw);
    b.recompute = std::move(rc);
    return b;
  }

  double grad_bytes() const { return dtype_bytes(s.train.grad_reduce_dtype); }
  // The ranks of the DP group (dp x cp), over which the dense parameters are sharded and reduced.
  int dp_ranks() const { return s.plan.dp * s.plan.cp; }
  // The bytes of a parameter as the optimizer's gather moves it: 16-bit weights under mixed
  // precision, fp32 ones in fp32/tf32 training (memory holds them so: estimate's weights_bytes).
  // Before 2026-12-03 every gather moved 2 bytes a parameter, and fp32 ZeRO-3 half its traffic.
  // FP8 training holds FP8 parameters (Megatron's fp8_param_gather, which the memory accounting
  // assumes: estimate's stage_memory, docs/models.md "FP8"), and those are what the gather moves:
  // "conducts the parameter all-gather in fp8, reducing the all-gather overhead by half"
  // (Megatron-Bridge performance guide). Before 2026-12-05 it moved 16 bits while memory held
  // FP8 parameters. NVFP4 training keeps 16-bit parameters (Megatron has no FP4 parameter gather).
  double param_bytes() const { return full_precision(dt) ? 4.0 : dt == DType::FP8 ? lowp_element_bytes() : 2.0; }
  // The embedding's and the head's parameters: 16-bit in every mixed precision.
  double root_param_bytes() const { return full_precision(dt) ? 4.0 : 2.0; }

  // ZeRO-2 keeps only its shard of the gradients, so every micro-batch's gradients are
  // reduce-scattered as the backward produces them (DeepSpeed stage 2 reduces each micro-step into
  // the partition; torch FSDP SHARD_GRAD_OP outside no_sync), overlapped with the backward. With
  // one micro-batch this is ZeRO-1's traffic; with m it is m times it. Before 2026-12-01 ZeRO-2 had
  // ZeRO-1's single reduce-scatter and the sharded gradient memory both.
  void zero2_reduce(double dense_params, double expert_params, std::vector<Step>& bw) const {
    if (dense_params > 0 && s.plan.dp * s.plan.cp > 1)  // the DP group spans dp x cp ranks
      bw.push_back(coll("zero2.grad_reduce_scatter", CollKind::ReduceScatter, GroupKind::DP, dense_params * grad_bytes(),
                        s.plan.overlap_grad_reduce));
    if (expert_params > 0 && edp > 1)
      bw.push_back(coll("zero2.expert_grad_reduce_scatter", CollKind::ReduceScatter, GroupKind::EDP, expert_params * grad_bytes(),
                        s.plan.overlap_grad_reduce));
  }

  // The op names of an embedding lookup (static strings: the IR is built per plan in plan search).
  struct EmbeddingNames {
    const char *block, *lookup, *tp_reduce_scatter, *tp_all_reduce, *tp_all_gather_bwd, *grad, *zero3_gather, *zero3_reduce;
  };
  Block embedding() const {
    static constexpr EmbeddingNames names{"embedding", "embedding.lookup", "embedding.tp_reduce_scatter", "embedding.tp_all_reduce",
                                          "embedding.tp_all_gather.bwd", "embedding.grad", "embedding.zero3.param_all_gather",
                                          "embedding.zero3.grad_reduce_scatter"};
    return embedding_lookup(names, true, true);
  }
  // The next token's embedding of a multi-token-prediction module (Megatron-Core's
  // MultiTokenPredictionLayer embeds the input ids shifted by one with the model's embedding).
  // `own_copy`: the first stage sits on another rank, and the MTP stage keeps a copy of the word
  // embedding (GPTModel builds its embedding where pre_process or mtp_process), its gradient
  // all-reduced with the first stage's over the embedding group once a step
  // (finalize_model_grads._allreduce_word_embedding_grads, for tied embeddings or MTP; the
  // once-per-step work below). Review of 2026-12-07: DeepSeek-V3 under 1F1B at pp 8 had left out
  // the copy (0.93 B parameters, 5.7 GB at ZeRO-1 on the last stage), its all-reduce, and the
  // lookup itself (with its TP reduction) under every plan.
  Block mtp_embedding(bool own_copy) const {
    static constexpr EmbeddingNames names{"mtp_embedding", "mtp.embedding.lookup", "mtp.embedding.tp_reduce_scatter",
                                          "mtp.embedding.tp_all_reduce", "mtp.embedding.tp_all_gather.bwd", "mtp.embedding.grad",
                                          "mtp.embedding.zero3.param_all_gather", "mtp.embedding.zero3.grad_reduce_scatter"};
    return embedding_lookup(names, own_copy, false);
  }
  // `params`: the block holds the word embedding (and learned positions, on the first stage);
  // false: it reads a table held by another block of the rank. `first_unit`: nothing runs before
  // it to hide a ZeRO-3 gather.
  Block embedding_lookup(const EmbeddingNames& n, bool params, bool first_unit) const {
    Block b;
    b.name = n.block;
    const double h = m.hidden;
    std::vector<Step> fwd, bw;
    fwd.push_back(mem(n.lookup, OpClass::Embedding, T * h * ab * 2));
    if (t > 1) {  // vocab-parallel embedding: partial sums reduced over TP
      fwd.push_back(coll(sp ? n.tp_reduce_scatter : n.tp_all_reduce, sp ? CollKind::ReduceScatter : CollKind::AllReduce, GroupKind::TP, T * h * ab));
    }
    // With SP the forward's reduce-scatter has an all-gather for its gradient (without SP the
    // all-reduce's gradient passes through).
    if (t > 1 && sp) bw.push_back(coll(n.tp_all_gather_bwd, CollKind::AllGather, GroupKind::TP, T * h * ab));
    bw.push_back(mem(n.grad, OpClass::Embedding, T * h * ab * 2 + T * h * 4));
    if (params) {
      b.params = static_cast<double>(m.vocab) * h / t + (first_unit && m.learned_position ? static_cast<double>(s.train.seq_len) * h : 0);
      zero3_root(b.params, fwd, bw, n.zero3_gather, n.zero3_reduce, first_unit);
      if (zero2) zero2_reduce(b.params, 0.0, bw);
    }
    b.forward = std::move(fwd);
    b.backward_weight = std::move(bw);
    b.activation_bytes = 0;
    return b;
  }

  // FSDP / ZeRO-3 for the parameters outside the layers (embedding, final norm, output head): the
  // root unit gathers them before its forward and keeps them through its backward (torch FSDP's
  // root is not resharded after forward), then reduce-scatters their gradients. Before 2026-12-01
  // they were sharded in memory but never gathered or reduced.
  // The embedding's gather opens its forward: nothing runs before it to hide it (FSDP prefetches
  // the next unit's parameters during a unit's compute, and no unit precedes the first), so it is
  // not overlapped; the head's is prefetched during the last layers.
  // Kept through the backward, the unit stays gathered while any micro-batch of its chunk is in
  // flight on the rank: it is gathered when a run of overlapping micro-batches opens and reduced
  // when the run closes (Collective::per_run, run_edges): under a pipeline once a step on every
  // stage (torch.distributed.pipelining defers FSDP's reshard and reduce-scatter to the stage's last
  // backward; second review of 2026-12-07, which found 1F1B's last stage regathering it every
  // micro-batch where ZB-H1 and GPipe did once), without one every micro-batch (FSDP reshards the
  // root after each backward). Before 2026-12-07 it was gathered and reduced every micro-batch
  // under pipelines too while the memory held one copy (review). A stack that
  // releases parameters after each use (zero3_regather_for_recompute, DeepSpeed) holds the unit
  // only while it runs (stage_memory): gathered every micro-batch there, as before.
  // Nothing where the DP group is one rank (nothing sharded; 2026-12-07 review).
  void zero3_root(double params, std::vector<Step>& fwd, std::vector<Step>& bw, const char* gather_name, const char* reduce_name,
                  bool first_unit) const {
    if (!zero3 || params <= 0 || dp_ranks() <= 1) return;
    const bool per_run = !s.plan.zero3_regather_for_recompute;
    Collective g = coll(gather_name, CollKind::AllGather, GroupKind::DP, params * root_param_bytes(), s.plan.overlap_param_gather && !first_unit);
    g.per_run = per_run;
    fwd.insert(fwd.begin(), g);
    Collective rs = coll(reduce_name, CollKind::ReduceScatter, GroupKind::DP, params * grad_bytes(), s.plan.overlap_grad_reduce);
    rs.per_run = per_run;
    bw.push_back(rs);
  }

  // A multi-token-prediction module's input: RMSNorm of the hidden state and of the next token's
  // embedding, concatenated and projected 2h -> h (Megatron-Core's MultiTokenPredictionLayer
  // eh_proj, tensor-parallel over its input: a row-parallel GEMM whose output is reduced over TP).
  Block mtp_projection() const {
    Block b;
    b.name = "mtp_proj";
    const double h = m.hidden;
    std::vector<Step> fwd, bi, bw;
    fwd.push_back(mem("mtp.norms", OpClass::Norm, 2 * Tsp * h * ab * 2));
    tp_enter(fwd, "mtp.tp_all_gather");
    ComputeOp proj = gemm("mtp.eh_proj", T, h, 2 * h / t);
    fwd.push_back(proj);
    tp_leave(fwd, "mtp.tp_reduce_scatter", "mtp.tp_all_reduce");
    if (t > 1 && sp) bi.push_back(tp_leave_grad("mtp.tp_all_gather.bwd"));
    gemm_backward(proj, bi, bw);
    bi.push_back(mem("mtp.norms.bwd", OpClass::Norm, 2 * Tsp * h * ab * 3));
    b.params = 2 * h * h / t + 2 * h;
    b.tp_replicated_params = 2 * h;
    if (zero2) zero2_reduce(b.params, 0.0, bw);
    b.forward = std::move(fwd);
    b.backward_input = std::move(bi);
    b.backward_weight = std::move(bw);
    b.activation_bytes = T * 2 * h * ab / (sp ? t : 1) * 2;  // the norms' inputs and the GEMM's input
    return b;
  }

  // The output head; `shared`: a multi-token-prediction module's, which shares the main head's
  // weights (DeepSeek-V3: "MTP modules share the embedding layer and output head with the main
  // model"): its work and activations, no parameters of its own, its gradient accumulated into
  // the main head's.
  Block head(bool shared = false) const {
    Block b;
    b.name = shared ? "mtp_head" : "head";
    const double h = m.hidden, V = m.vocab;
    std::vector<Step> fwd, bi, bw;
    fwd.push_back(mem("head.final_norm", OpClass::Norm, Tsp * h * ab * 2));
    tp_enter(fwd, "head.tp_all_gather");
    ComputeOp logits = gemm16("head.logits", T, V / t, h);
    logits.cls = OpClass::Logits;
    fwd.push_back(logits);
    fwd.push_back(mem("head.cross_entropy", OpClass::Elementwise, T * V / t * (ab + 4)));
    bi.push_back(mem("head.cross_entropy.bwd", OpClass::Elementwise, T * V / t * (ab + 4)));
    // The column-parallel head's input gradient is a partial sum over TP (f's backward).
    column_backward(logits, bi, bw, "head.tp_regather.bwd", "head.tp_reduce_scatter.bwd", "head.tp_all_reduce.bwd_in");
    // Tied embeddings share one weight where the embedding and the head sit on one rank (no
    // pipeline, or dualpipev's V, which puts both ends on rank 0).
    b.params = (m.tied_embeddings && ends_on_one_rank(s)) ? h : V * h / t + h;
    b.tp_replicated_params = h;  // the final norm
    if (shared) {
      b.params = h;  // its own final norm
      b.tp_replicated_params = h;
    } else {
      zero3_root(b.params, fwd, bw, "head.zero3.param_all_gather", "head.zero3.grad_reduce_scatter", false);
      if (zero2) zero2_reduce(b.params, 0.0, bw);
    }
    b.forward = std::move(fwd);
    b.backward_input = std::move(bi);
    b.backward_weight = std::move(bw);
    b.activation_bytes = T * (V / t * 4 + 2 * h * ab / (sp ? t : 1));  // fp32 logits for the loss
    return b;
  }
};

}  // namespace

RunEdges run_edges(const std::vector<ScheduleItem>& order, int v, bool split, bool whole_step) {
  RunEdges e;
  e.opens.assign(order.size(), 0);
  e.closes.assign(order.size(), 0);
  e.runs.assign(static_cast<size_t>(std::max(1, v)), 0);
  std::vector<int64_t> in_flight(e.runs.size(), 0);
  const auto closing = split ? ScheduleItem::Weight : ScheduleItem::Backward;
  if (whole_step) {  // one run a chunk: its first Forward to its last gradient pass
    const size_t none = order.size();
    std::vector<size_t> first(e.runs.size(), none), last(e.runs.size(), none);
    for (size_t k = 0; k < order.size(); ++k) {
      const ScheduleItem& it = order[k];
      if (it.chunk < 0 || static_cast<size_t>(it.chunk) >= e.runs.size()) continue;
      const auto c = static_cast<size_t>(it.chunk);
      if (it.kind == ScheduleItem::Forward && first[c] == none) first[c] = k;
      if (it.kind == closing) last[c] = k;
    }
    for (size_t c = 0; c < e.runs.size(); ++c) {
      if (first[c] == none) continue;
      e.opens[first[c]] = 1;
      ++e.runs[c];
      if (last[c] != none && last[c] > first[c]) e.closes[last[c]] = 1;
    }
    return e;
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const ScheduleItem& it = order[k];
    if (it.chunk < 0 || static_cast<size_t>(it.chunk) >= e.runs.size()) continue;
    const auto c = static_cast<size_t>(it.chunk);
    if (it.kind == ScheduleItem::Forward) {
      if (in_flight[c]++ == 0) {
        e.opens[k] = 1;
        ++e.runs[c];
      }
    } else if (it.kind == closing && in_flight[c] > 0 && --in_flight[c] == 0) {
      e.closes[k] = 1;
    }
  }
  return e;
}

double Workload::model_flops_per_step() const {
  const auto& m = scenario().model;
  // Matmul parameters active per token (embedding lookup excluded, logits included).
  double mm = 0;
  const double h = m.hidden;
  const ModelConfig& c = m;
  int moe_layers = 0;
  for (int l = 0; l < c.layers; ++l) moe_layers += c.is_moe_layer(l) ? 1 : 0;
  for (int kind = 0; kind < 2; ++kind) {  // dense layers, then MoE layers: count x per-layer parameters
    const int n_layers = kind == 0 ? c.layers - moe_layers : moe_layers;
    if (n_layers == 0) continue;
    double attn;
    if (c.mla) {
      const auto& a = *c.mla;
      const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
      attn = (a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * c.heads * qk : h * c.heads * qk) +
             h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank * c.heads * (a.qk_nope_head_dim + a.v_head_dim) +
             c.heads * a.v_head_dim * h;
    } else {
      attn = h * c.q_dim() * 2 + 2 * h * c.kv_dim();
    }
    const int mats = c.gated() ? 3 : 2;
    double mlp;
    if (kind == 1) mlp = (c.moe->topk + c.moe->shared_experts) * mats * h * c.moe->expert_ffn_hidden;
    else mlp = mats * h * c.ffn_hidden;
    mm += n_layers * (attn + mlp);
  }
  mm += h * c.vocab;  // logits
  const double tokens = static_cast<double>(scenario().tokens_per_step());
  // Attention: QK^T and PV forward 2*kv_len*(d_qk + d_v) per head per token, x3 for training.
  // (The Lowerer's kv_len and attention dims, read directly: building a Lowerer here had worked
  // out the plan's MoE dispatch traffic again on every estimate, 2026-12-07 review.)
  const double qk_dim = m.mla ? m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim : m.head_dim;
  const double v_dim = m.mla ? m.mla->v_head_dim : m.head_dim;
  const double attn_per_token = 3.0 * 2.0 * attention_keys_per_query(scenario()) * c.heads * (qk_dim + v_dim) * c.layers;
  return tokens * (6.0 * mm + attn_per_token);
}

const std::vector<Step>& StepList::empty_steps() {
  static const std::vector<Step> none;
  return none;
}

Workload lower(const Scenario& s) {
  // A system without a scale-out network is one scale-up domain (one node, or one NVL rack):
  // more GPUs than it holds have no fabric between them. make_fabric would cost their traffic at
  // NVLink rates (Llama 3 70B on 1,024 "mosaic-h100" GPUs ran faster than on DGX H100).
  // The same for a domain smaller than its node (the node's other GPUs sit behind PCIe or a NIC).
  if (!s.scale_out && s.num_gpus > s.system.scale_up_domain)
    throw Error(SourceLocation{"", 0, 0, "num_gpus"},
                "system '" + s.system.id + "' has no scale-out network, so it holds at most " + std::to_string(s.system.scale_up_domain) +
                    " GPUs (one scale-up domain" +
                    (s.system.scale_up_domain < s.system.gpus_per_node ? " of its " + std::to_string(s.system.gpus_per_node) + "-GPU node" : std::string()) +
                    "); got " + std::to_string(s.num_gpus),
                "choose a system with a scale-out network (catalog list systems), or give the system a scale_out network");
  Workload w;
  w.scenario_ptr = &s;
  const auto& p = s.plan;
  const int domain = s.system.scale_up_domain;
  w.groups.reserve(7);  // plan search lowers millions of plans: no regrowth
  w.groups.push_back(place(GroupKind::TP, p.tp, 1, domain, s.num_gpus));
  w.groups.push_back(place(GroupKind::CP, p.cp, p.tp, domain, s.num_gpus));
  // Gradients and ZeRO shards span the data- and context-parallel ranks.
  w.groups.push_back(place(GroupKind::DP, p.dp * p.cp, p.tp, domain, s.num_gpus));
  w.groups.push_back(place(GroupKind::PP, p.pp, p.tp * p.cp * p.dp, domain, s.num_gpus));
  w.pipeline_ends = place_pipeline_ends(p.pp, p.tp * p.cp * p.dp, domain);
  if (p.ep > 1 || s.model.moe) {
    const int etp = p.etp > 0 ? p.etp : p.tp;
    w.groups.push_back(place(GroupKind::EP, p.ep, etp, domain, s.num_gpus));
    w.groups.push_back(place(GroupKind::ETP, etp, 1, domain, s.num_gpus));
    const int edp = std::max(1, p.tp * p.cp * p.dp / (p.ep * etp));
    w.groups.push_back(place(GroupKind::EDP, edp, p.ep * etp, domain, s.num_gpus));
  }
  w.microbatches = s.num_microbatches();
  // On one pipeline stage every schedule runs the same forward-backward sequence: ZB-H1's deferred
  // weight pass had kept its inputs and split its GEMMs there, 2% slower and 1.2% more memory,
  // beside the note that the schedule is without effect (2026-12-03 review).
  w.schedule = one_stage_plan(p) ? "1f1b" : p.schedule;

  const Lowerer L(s);
  // Layer templates: dense and MoE, each stored and (under full recompute) recomputed.
  const bool full = s.train.recompute == Recompute::Full;
  const bool some_stored = !full || s.train.recompute_block;
  std::optional<Block> dense, moe, dense_rc, moe_rc;
  if (some_stored) {
    dense = L.layer(false, false);
    dense->template_id = 0;
    if (s.model.moe) {
      moe = L.layer(true, false);
      moe->template_id = 1;
    }
  }
  if (full) {
    dense_rc = L.layer(false, true);
    dense_rc->template_id = 2;
    if (s.model.moe) {
      moe_rc = L.layer(true, true);
      moe_rc->template_id = 3;
    }
  }
  const auto layout = s.stage_layout();
  const int nvs = p.pp * p.vpp;
  // Layer index ranges of each virtual stage, to know which layers are MoE.
  std::vector<int> first(nvs, 0);
  for (int i = 1; i < nvs; ++i) first[i] = first[i - 1] + layout[i - 1];

  w.stages.reserve(static_cast<size_t>(p.pp));
  for (int r = 0; r < p.pp; ++r) {
    Stage st;
    st.pp_rank = r;
    st.chunks.reserve(static_cast<size_t>(p.vpp));
    for (int c = 0; c < p.vpp; ++c) {
      Chunk ch;
      ch.blocks.reserve(4);  // embedding, dense layers, MoE layers, head
      ch.virtual_stage = virtual_stage_of(p.schedule, r, c, p.pp, p.vpp);
      const int vs = ch.virtual_stage;
      if (vs == 0) ch.blocks.push_back(L.embedding());
      // Dense and MoE layers of this chunk, and how many of each are recomputed: all (uniform),
      // or those among its first recompute_num_layers (block).
      int n_dense = 0, n_moe = 0, rc_dense = 0, rc_moe = 0;
      for (int l = first[vs]; l < first[vs] + layout[vs]; ++l) {
        const bool is_moe = s.model.is_moe_layer(l);
        (is_moe ? n_moe : n_dense)++;
        if (full && (!s.train.recompute_block || l - first[vs] < s.train.recompute_num_layers)) (is_moe ? rc_moe : rc_dense)++;
      }
      const int n = n_dense + n_moe;
      auto add = [&](const std::optional<Block>& tmpl, int count) {
        if (count <= 0) return;
        Block b = *tmpl;
        b.count = count;
        ch.blocks.push_back(std::move(b));
      };
      if (full && !s.train.recompute_block && s.train.recompute_num_layers > 1 && n > 0) {
        // Uniform groups of g layers: the chunk saves one input per group, and a group's whole
        // set is rematerialised while its backward runs.
        const int g = std::min(n, s.train.recompute_num_layers);
        const double groups = std::ceil(static_cast<double>(n) / g);
        for (auto* tmpl : {&dense_rc, &moe_rc}) {
          if (!*tmpl) continue;
          const int count = tmpl == &dense_rc ? rc_dense : rc_moe;
          if (count <= 0) continue;
          Block b = **tmpl;
          b.count = count;
          b.activation_bytes *= groups / n;
          b.recompute_bytes *= g;  // its step lists are the template's: template_id kept
          ch.blocks.push_back(std::move(b));
        }
      } else {
        add(dense_rc, rc_dense);
        add(dense, n_dense - rc_dense);
        add(moe_rc, rc_moe);
        add(moe, n_moe - rc_moe);
      }
      if (vs == nvs - 1) {
        ch.blocks.push_back(L.head());
        // Multi-token prediction after the last layer and the head: per module a projection,
        // one transformer layer (an MoE one where the model's last layer is), and the shared head.
        for (int d = 0; d < s.model.mtp_layers; ++d) {
          // Every module embeds its next tokens; the first holds the rank's copy of the table.
          ch.blocks.push_back(L.mtp_embedding(d == 0 && !ends_on_one_rank(s)));
          ch.blocks.push_back(L.mtp_projection());
          const bool moe_last = s.model.moe.has_value() && s.model.is_moe_layer(s.model.layers - 1);
          Block mtp = L.layer(moe_last, full && !s.train.recompute_block);
          mtp.name = "mtp_layer";
          mtp.template_id = -1;
          ch.blocks.push_back(std::move(mtp));
          ch.blocks.push_back(L.head(true));
        }
      }
      for (const auto& b : ch.blocks) {
        st.params += b.params * b.count;
        st.expert_params += b.expert_params * b.count;
        st.tp_replicated_params += b.tp_replicated_params * b.count;
      }
      st.chunks.push_back(std::move(ch));
    }
    st.boundary_activation_bytes = L.T * s.model.hidden * L.ab / (L.sp ? p.tp : 1);
    w.stages.push_back(std::move(st));
  }

  // Once-per-step work for each stage. Tied embeddings on two ranks (the first and the last
  // stage's) all-reduce their gradient.
  const bool ends_together = ends_on_one_rank(s);
  const int last_rank = virtual_stage_rank(s, p.pp * p.vpp - 1);
  w.step_per_stage.reserve(w.stages.size());
  for (const auto& st : w.stages) {
    StepWork sw;
    sw.grad_sync.reserve(4);
    sw.param_gather.reserve(2);
    const double dense_params = st.params - st.expert_params;
    const double gb = L.grad_bytes();
    const double grad_dense = dense_params * gb, grad_expert = st.expert_params * gb;
    // Megatron-core sizes a bucket at max(40M, 1M x DP size) elements (training.py, ddp_bucket_size
    // unset) so that each rank's shard of a bucket stays >= 1M elements and NCCL bandwidth-bound.
    // grad_bucket_mb counts 2-byte elements: the default 80 is Megatron's 40M elements (before
    // 2026-12-02 it was 40, half of it); the floor of 1M per DP rank is Megatron's.
    const double bucket_bytes = std::max(p.grad_bucket_bytes * gb / 2, 1e6 * w.group(GroupKind::DP).size * gb);
    sw.grad_buckets = std::max(1, static_cast<int>(std::ceil(grad_dense / bucket_bytes)));
    // Expert gradients sit in their own buffer, bucketed the same way over the expert-data-parallel
    // group (Megatron-Core's expert_parallel_buffers): their buckets join the dense ones (before
    // 2026-12-02 only the dense buffer was counted: Mixtral 8x7B at ep 8 on 64 GPUs reduced in 26
    // buckets, not 167, and its last one, exposed after the backward, was 6x too large).
    const int edp_size = w.group(GroupKind::EDP).size;
    if (st.expert_params > 0 && edp_size > 1 && p.zero_stage < 3) {
      sw.grad_buckets_expert = std::max(1, static_cast<int>(std::ceil(grad_expert / std::max(p.grad_bucket_bytes * gb / 2, 1e6 * edp_size * gb))));
      sw.grad_buckets += sw.grad_buckets_expert;
    }
    if (p.zero_stage < 3) {
      const CollKind k = p.zero_stage == 0 ? CollKind::AllReduce : CollKind::ReduceScatter;
      // ZeRO-2 with micro_batch sync reduce-scatters every micro-batch in the backward
      // (Lowerer::zero2_reduce); with step sync, once here as ZeRO-1.
      if (w.group(GroupKind::DP).size > 1 && !L.zero2)
        sw.grad_sync.push_back(L.coll("dp.grad_sync", k, GroupKind::DP, grad_dense, p.overlap_grad_reduce));
      if (st.expert_params > 0 && w.group(GroupKind::EDP).size > 1 && !L.zero2)
        sw.grad_sync.push_back(L.coll("edp.grad_sync", k, GroupKind::EDP, grad_expert, p.overlap_grad_reduce));
      if (p.zero_stage >= 1) {
        if (w.group(GroupKind::DP).size > 1) {
          // The embedding and the head are no FP8 parameters (outside Transformer Engine's
          // modules): gathered at 16 bits whatever the layers' width.
          double root = 0;
          for (const auto& ch : st.chunks)
            for (const auto& b : ch.blocks)
              if (is_root_block(b)) root += (b.params - b.expert_params) * b.count;
          root = std::min(root, dense_params);
          sw.param_gather.push_back(L.coll("dp.param_all_gather", CollKind::AllGather, GroupKind::DP,
                                           root * L.root_param_bytes() + (dense_params - root) * L.param_bytes(), p.overlap_param_gather));
        }
        if (st.expert_params > 0 && w.group(GroupKind::EDP).size > 1)
          sw.param_gather.push_back(L.coll("edp.param_all_gather", CollKind::AllGather, GroupKind::EDP, st.expert_params * L.param_bytes(), p.overlap_param_gather));
      }
    }  // ZeRO-3: every layer reduce-scatters its own gradients, expert ones over EDP (Lowerer::layer)
    // Under SP the parameters replicated across TP (norms, routers, MLA's down projections) see
    // only their sequence shard: Megatron-Core sums their gradients over TP once per step, after
    // the backward (finalize_model_grads, the params marked sequence_parallel), one coalesced
    // all-reduce. Exposed whole, as the tied embedding's below.
    if (L.sp && st.tp_replicated_params > 0)
      sw.grad_sync.push_back(L.coll("tp.sp_replicated_grad_all_reduce", CollKind::AllReduce, GroupKind::TP, st.tp_replicated_params * gb));
    // So does the word embedding an MTP stage copies (Lowerer::mtp_embedding; 2026-12-07 review).
    if ((s.model.tied_embeddings || s.model.mtp_layers > 0) && !ends_together && (st.pp_rank == 0 || st.pp_rank == last_rank))
    {
      // On the embedding group, the first and the last stage alone (Megatron's embedding group):
      // before 2026-12-03 it was costed as a ring over all pp ranks, 2(p-1)/p where 1 is right.
      Collective c = L.coll("embedding.tied_grad_all_reduce", CollKind::AllReduce, GroupKind::PP,
                            static_cast<double>(s.model.vocab) * s.model.hidden / p.tp * gb);
      c.pipeline_ends = true;
      sw.grad_sync.push_back(c);
    }
    // Optimizer: Adam reads fp32 master, grad, m, v and writes master, m, v and the 16-bit copy;
    // the moments in training.optimizer_moments' precision (fp32 had been taken always). SGD with
    // momentum reads and writes its momentum buffer as Adam its moments: before 2026-12-06 the
    // buffer was in its memory but not in the step's traffic (8 + 6 bytes a parameter; review).
    const double shard_dense = p.zero_stage >= 1 ? dense_params / w.group(GroupKind::DP).size : dense_params;
    const double shard_expert = p.zero_stage >= 1 ? st.expert_params / std::max(1, w.group(GroupKind::EDP).size) : st.expert_params;
    // The weights it updates are the fp32 master beside 16-bit (or FP8) weights, rewritten as well;
    // in fp32/tf32 training the fp32 weights are their own master and there is no 16-bit copy
    // (TrainingConfig::weight_bytes_per_param, optimizer_state_bytes_per_param, which the memory
    // holds). The gradient is read in fp32 (Megatron's main_grad). Before 2026-12-07 the step moved
    // 30 bytes a parameter in fp32 training too, a master copy and a 16-bit one that do not exist
    // (review: 28).
    const double moments = s.train.optimizer_moment_bytes();
    const double master = s.train.optimizer_state_bytes_per_param() - moments;  // 4, or 0 beside fp32 weights
    const double updated = master > 0 ? master : s.train.weight_bytes_per_param();
    const double written_copy = master > 0 ? s.train.weight_bytes_per_param() : 0.0;
    const double bytes_per_param = (updated + 4.0 + moments) + (updated + written_copy + moments);
    sw.optimizer.push_back(Lowerer::mem("optimizer.step", OpClass::Optimizer, (shard_dense + shard_expert) * bytes_per_param,
                                        (shard_dense + shard_expert) * 12.0));
    w.step_per_stage.push_back(std::move(sw));
  }
  w.step = w.step_per_stage.front();
  return w;
}

}  // namespace sextant::ir
