#include "infer/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace sextant::infer {
namespace {
double attn_params(const ModelConfig& c) {
  const double h = c.hidden;
  if (c.mla) {
    const auto& a = *c.mla;
    const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const double q = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * c.heads * qk : h * c.heads * qk;
    const double kv = h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank * c.heads * (a.qk_nope_head_dim + a.v_head_dim);
    return q + kv + static_cast<double>(c.heads) * a.v_head_dim * h;
  }
  return h * c.q_dim() + 2.0 * h * c.kv_dim() + static_cast<double>(c.q_dim()) * h;
}
double mlp_params(const ModelConfig& c, double ffn) { return (c.gated() ? 3.0 : 2.0) * c.hidden * ffn; }
}  // namespace

void Deployment::check() const {
  SourceLocation w{"", 0, 0, "parallel"};
  const auto& p = par;
  if (p.tp < 1 || p.pp < 1 || p.ep < 1) throw Error(w, "tp, pp and ep must be >= 1");
  if (model.heads % p.tp != 0)
    throw Error(SourceLocation{"", 0, 0, "parallel.tp"}, "tp=" + std::to_string(p.tp) + " does not divide the " +
                std::to_string(model.heads) + " attention heads of " + model.id);
  if (p.pp > model.layers)
    throw Error(SourceLocation{"", 0, 0, "parallel.pp"}, "pp=" + std::to_string(p.pp) + " exceeds the layers of " + model.id);
  if (kv_share_layers < 1 || kv_share_layers > model.layers)
    throw Error(SourceLocation{"", 0, 0, "kv_share_layers"}, "kv_share_layers must be in 1.." + std::to_string(model.layers));
  if (p.tp % p.ep != 0)
    throw Error(SourceLocation{"", 0, 0, "parallel.ep"}, "ep=" + std::to_string(p.ep) + " must divide tp=" + std::to_string(p.tp));
  if (p.ep > 1 && (!model.moe || model.moe->num_experts % p.ep != 0))
    throw Error(SourceLocation{"", 0, 0, "parallel.ep"},
                model.moe ? "ep must divide the " + std::to_string(model.moe->num_experts) + " experts"
                          : "ep > 1 needs a mixture-of-experts model; " + model.id + " is dense");
  if (p.devices() > 1 && link.bandwidth_bytes_per_s <= 0)
    throw Error(SourceLocation{"", 0, 0, "link"}, "a replica of several devices needs a link bandwidth");
}

CostModel::CostModel(Deployment d) : d_(std::move(d)) {
  d_.check();
  const auto& m = d_.model;
  const auto& a = d_.accel;
  if (!a.memory_bandwidth_bytes_per_s.known)
    throw Error(SourceLocation{a.file, 0, 0, a.id + ".memory_bandwidth_gb_per_s"}, "accelerator '" + a.id + "' has no memory bandwidth");
  cdtype_ = compute_dtype(d_.weight, d_.activation, a);
  apply_engine();

  const double wb = d_.weight.bytes();
  const double attn = attn_params(m);
  const double norms = 2.0 * m.hidden;
  double dense = 0, active = 0;
  moe_layers_ = 0;
  for (int l = 0; l < m.layers; ++l) {
    dense += attn + norms;
    active += attn;
    if (m.is_moe_layer(l)) {
      ++moe_layers_;
      const double ex = mlp_params(m, m.moe->expert_ffn_hidden);
      dense += m.moe->shared_experts * ex + static_cast<double>(m.hidden) * m.moe->num_experts;  // + router
      active += (m.moe->topk + m.moe->shared_experts) * ex + static_cast<double>(m.hidden) * m.moe->num_experts;
    } else {
      dense += mlp_params(m, m.ffn_hidden);
      active += mlp_params(m, m.ffn_hidden);
    }
  }
  expert_bytes_ = m.moe ? mlp_params(m, m.moe->expert_ffn_hidden) * wb : 0;
  head_params_ = static_cast<double>(m.vocab) * m.hidden;
  linear_params_active_ = active;
  // Streamed per iteration: layers + LM head (tied or not, the head matrix is read once).
  dense_read_bytes_ = (dense + head_params_ + m.hidden) * wb;
  weight_bytes_total_ = m.params_total() * wb;

  const double kvb = d_.kv.bytes();
  const int tp = d_.par.tp;
  if (m.mla) {
    kv_token_layer_bytes_ = (m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * kvb;
    kv_token_layer_bytes_rank_ = kv_token_layer_bytes_;  // the latent is replicated over TP
    const double qk = m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim;
    attn_flops_pair_layer_ = 2.0 * m.heads * qk + 2.0 * m.heads * m.mla->v_head_dim;
  } else {
    kv_token_layer_bytes_ = 2.0 * m.kv_heads * m.head_dim * kvb;
    const double heads_rank = std::ceil(static_cast<double>(m.kv_heads) / tp);
    kv_token_layer_bytes_rank_ = 2.0 * heads_rank * m.head_dim * kvb;
    attn_flops_pair_layer_ = 4.0 * m.heads * m.head_dim;
  }
  kv_token_layer_bytes_ /= d_.kv_share_layers;
  kv_token_layer_bytes_rank_ /= d_.kv_share_layers;
}

void CostModel::set_engine(const EngineProfile& e) {
  d_.engine = e;
  apply_engine();
}

void CostModel::apply_engine() {
  const auto& a = d_.accel;
  const auto& e = d_.engine;
  // Defaults when the engine does not say: the accelerator's own efficiency, then documented values.
  const double gf = value_or(e.gemm_fraction, a.gemm_fraction(cdtype_));
  const double bwf = value_or(e.bandwidth_fraction, value_or(a.memory_bandwidth_fraction, 0.8));
  const double dq = d_.weight.block_quantized ? value_or(e.dequant_fraction, 1.0) : 1.0;
  compute_rate_ = a.peak(cdtype_) * gf * dq;
  attn_rate_ = a.peak(cdtype_) * gf * value_or(a.attention_fraction, 1.0);
  memory_rate_ = a.memory_bandwidth_bytes_per_s.value * bwf;
  overlap_ = value_or(e.overlap_fraction, 1.0);
  iter_overhead_s_ = value_or(e.iteration_overhead_s, 0.0);
  seq_overhead_s_ = value_or(e.sequence_overhead_s, 0.0);
}

double CostModel::weight_bytes_per_device() const { return weight_bytes_total_ / d_.par.devices(); }

double CostModel::kv_bytes_per_token_per_device() const {
  const int layers_stage = (d_.model.layers + d_.par.pp - 1) / d_.par.pp;
  return kv_token_layer_bytes_rank_ * layers_stage;
}

int CostModel::attended(double context) const {
  const int w = d_.model.sliding_window;
  return static_cast<int>(w > 0 ? std::min<double>(context, w) : context);
}

double CostModel::attention_pairs(double past, double n) const {
  // sum_{i=1..n} min(past + i, W)
  const double w = d_.model.sliding_window > 0 ? d_.model.sliding_window : 1e300;
  if (n <= 0) return 0;
  const double full_until = std::clamp(w - past, 0.0, n);  // i <= full_until: past + i <= w
  const double s1 = full_until * past + full_until * (full_until + 1) / 2;
  return s1 + (n - full_until) * std::min(w, past + n);
}

Batch CostModel::prefill(int64_t seqs, int64_t prompt, int64_t past) const {
  Batch b;
  b.prefill_seqs = seqs;
  b.prefill_tokens = static_cast<double>(seqs) * prompt;
  b.prefill_attention_pairs = seqs * attention_pairs(static_cast<double>(past), static_cast<double>(prompt));
  b.prefill_past_tokens = static_cast<double>(seqs) * attended(static_cast<double>(past));
  b.logits_tokens = seqs;
  return b;
}

Batch CostModel::decode(int64_t seqs, double context) const {
  Batch b;
  b.decode_seqs = seqs;
  b.decode_tokens = static_cast<double>(seqs);
  // The new token attends to the context and to itself.
  b.decode_context_tokens = static_cast<double>(seqs) * attended(context + 1);
  b.logits_tokens = seqs;
  return b;
}

IterationCost CostModel::iteration(const Batch& b) const {
  IterationCost c;
  const auto& m = d_.model;
  const auto& p = d_.par;
  const double tokens = b.tokens();
  if (tokens <= 0) return c;
  const double tp = p.tp;
  // Weights read (per TP rank, all stages).
  double wbytes = dense_read_bytes_;
  if (m.moe) {
    const double E = m.moe->num_experts, k = m.moe->topk;
    const double touched = E * (1.0 - std::pow(1.0 - k / E, tokens));
    wbytes += moe_layers_ * touched * expert_bytes_;
  }
  wbytes /= tp;
  // KV read and write.
  const double kv_rank_tok = kv_token_layer_bytes_rank_ * m.layers;
  const double kv_read = (b.decode_context_tokens + b.prefill_past_tokens) * kv_rank_tok;
  const double kv_write = tokens * kv_rank_tok;
  c.memory_bytes = wbytes + kv_read + kv_write;
  c.memory_s = c.memory_bytes / memory_rate_;
  // FLOPs.
  const double lin = 2.0 * linear_params_active_ * tokens + 2.0 * head_params_ * b.logits_tokens;
  const double pairs = b.decode_context_tokens + b.prefill_attention_pairs;
  const double att = attn_flops_pair_layer_ * m.layers * pairs;
  c.flops = (lin + att) / tp;
  c.compute_s = lin / tp / compute_rate_ + att / tp / attn_rate_;
  // Communication.
  const double act = d_.activation.bytes();
  const double msg = tokens * m.hidden * act;
  if (p.tp > 1) {
    const double n = p.tp;
    const double per_ar_bytes = 2.0 * (n - 1) / n * msg;
    c.comm_bytes += 2.0 * m.layers * per_ar_bytes;
    c.comm_s += 2.0 * m.layers * (per_ar_bytes / d_.link.bandwidth_bytes_per_s + 2.0 * (n - 1) * d_.link.latency_s);
  }
  if (p.ep > 1 && m.moe) {
    const double n = p.ep;
    const double a2a = msg * m.moe->topk * (n - 1) / n;  // dispatch; combine is the same again
    c.comm_bytes += 2.0 * moe_layers_ * a2a;
    c.comm_s += 2.0 * moe_layers_ * (a2a / d_.link.bandwidth_bytes_per_s + (n - 1) * d_.link.latency_s);
  }
  if (p.pp > 1) {
    c.comm_bytes += (p.pp - 1) * msg / tp;
    c.comm_s += (p.pp - 1) * (msg / tp / d_.link.bandwidth_bytes_per_s + d_.link.latency_s);
  }
  c.overhead_s = iter_overhead_s_ + seq_overhead_s_ * b.seqs();
  c.total_s = std::max(c.memory_s, c.compute_s) + (1.0 - overlap_) * std::min(c.memory_s, c.compute_s) + c.comm_s +
              c.overhead_s;
  return c;
}

Link scale_up_link(const Catalog& cat, const System& s) {
  const auto& n = cat.network(s.scale_up_network);
  Link l;
  l.bandwidth_bytes_per_s = n.bandwidth_bytes_per_s.value * value_or(n.achievable_fraction, 1.0);
  l.latency_s = value_or(n.latency_s, 0.0);
  return l;
}

}  // namespace sextant::infer
