#include "infer/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/result.hpp"

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

// Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9).
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}
}  // namespace

void Deployment::check() const {
  SourceLocation w{"", 0, 0, "parallel"};
  const auto& p = par;
  if (p.tp < 1 || p.pp < 1 || p.ep < 1) throw Error(w, "tp, pp and ep must be >= 1");
  // Each TP rank holds an equal slice of the FFN's columns (vLLM's ColumnParallelLinear and
  // FusedMoE assert that the width divides): the dense FFN's over tp, a routed expert's over the
  // tp / ep ranks that share it, the shared experts' (one MLP of shared x expert width) over tp.
  // Before 2026-12-06 only the heads were checked: Qwen2-1.5B (8,960 wide) ran at tp 6, and
  // Qwen2.5-7B's errors offered tp 28, which does not divide its 18,944 (review).
  const bool dense_ffn = !model.all_layers_moe() && model.ffn_hidden > 0;
  // The first FFN whose width `t` ranks do not split evenly: {width, what, ranks}; width 0: none.
  struct Uneven {
    int64_t width = 0;
    std::string what;
    int ranks = 0;
  };
  auto uneven_ffn = [&](int t) -> Uneven {
    if (dense_ffn && model.ffn_hidden % t != 0) return {model.ffn_hidden, "FFN (intermediate_size)", t};
    if (!model.moe || model.moe->expert_ffn_hidden <= 0) return {};
    const int expert_ranks = t % p.ep == 0 ? t / p.ep : t;
    if (model.moe->expert_ffn_hidden % expert_ranks != 0)
      return {model.moe->expert_ffn_hidden, "routed expert FFN (moe_intermediate_size)", expert_ranks};
    const int64_t shared = static_cast<int64_t>(model.moe->shared_experts) * model.moe->expert_ffn_hidden;
    if (shared % t != 0) return {shared, "shared-expert FFN", t};
    return {};
  };
  auto ffn_divides = [&](int t) { return uneven_ffn(t).width == 0; };
  // The valid tensor-parallel degrees, for the messages: the divisors of the heads that divide the
  // KV heads or are a multiple of them, and whose FFN slices are whole (the errors had named no
  // valid value; review of 2026-12-05). Within the scale-up domain where it is known: tensor
  // parallelism is modelled on the scale-up link only, and the list had offered Llama 3 8B tp 16
  // on 8-GPU H100 nodes, which make_deployment then refused (2026-12-06 review).
  auto valid_tp = [&] {
    std::string out;
    const int top = link.domain_devices > 0 ? std::min(model.heads, link.domain_devices) : model.heads;
    for (int t = 1; t <= top && t <= 1024; ++t)
      if (model.heads % t == 0 && (model.mla || model.kv_heads <= 0 || model.kv_heads % t == 0 || t % model.kv_heads == 0) &&
          ffn_divides(t))
        out += (out.empty() ? "valid: " : ", ") + std::to_string(t);
    return out;
  };
  if (model.heads % p.tp != 0)
    throw Error(SourceLocation{"", 0, 0, "parallel.tp"}, "tp=" + std::to_string(p.tp) + " does not divide the " +
                std::to_string(model.heads) + " attention heads of " + model.id, valid_tp());
  // KV heads are split over TP, or replicated where TP exceeds them (tp a multiple of the KV
  // heads, as vLLM does); any other layout is refused by the engines (6 KV heads over tp=4 had
  // stored ceil(6/4) = 2 heads per rank, a third more cache than the model has).
  if (!model.mla && model.kv_heads > 0 && model.kv_heads % p.tp != 0 && p.tp % model.kv_heads != 0)
    throw Error(SourceLocation{"", 0, 0, "parallel.tp"}, "tp=" + std::to_string(p.tp) + " neither divides the " +
                std::to_string(model.kv_heads) + " KV heads of " + model.id + " nor is a multiple of them (KV heads are split or replicated over TP)", valid_tp());
  if (p.tp % p.ep == 0)
    if (const Uneven u = uneven_ffn(p.tp); u.width > 0)
      throw Error(SourceLocation{"", 0, 0, "parallel.tp"},
                  "tp=" + std::to_string(p.tp) + " does not split the " + std::to_string(u.width) + "-wide " + u.what + " of " + model.id +
                      " into whole slices over " + std::to_string(u.ranks) + " ranks" + (u.ranks != p.tp ? " (tp / ep)" : "") +
                      " (vLLM's column-parallel linear layers and fused MoE assert that it divides)",
                  valid_tp());
  if (p.pp > model.layers)
    throw Error(SourceLocation{"", 0, 0, "parallel.pp"}, "pp=" + std::to_string(p.pp) + " exceeds the layers of " + model.id);
  if (kv_share_layers < 1 || kv_share_layers > model.layers)
    throw Error(SourceLocation{"", 0, 0, "kv_share_layers"}, "kv_share_layers must be in 1.." + std::to_string(model.layers));
  if (!(expert_load_factor == 0 || expert_load_factor >= 1))
    throw Error(SourceLocation{"", 0, 0, "expert_load_factor"}, "expert_load_factor must be >= 1 (busiest EP rank over the mean), or 0 for the default");
  // The ep errors name the valid degrees at this tp (they named none before 2026-12-06; review:
  // "ep must divide the 60 experts" at tp 8 left 1, 2 and 4 to be found).
  auto valid_ep = [&] {
    std::string out;
    for (int e : valid_expert_parallel(model, p.tp)) out += (out.empty() ? "valid: " : ", ") + std::to_string(e);
    return out;
  };
  if (p.tp % p.ep != 0)
    throw Error(SourceLocation{"", 0, 0, "parallel.ep"}, "ep=" + std::to_string(p.ep) + " must divide tp=" + std::to_string(p.tp), valid_ep());
  if (p.ep > 1 && (!model.moe || model.moe->num_experts % p.ep != 0))
    throw Error(SourceLocation{"", 0, 0, "parallel.ep"},
                model.moe ? "ep=" + std::to_string(p.ep) + " must divide the " + std::to_string(model.moe->num_experts) + " experts of " + model.id
                          : "ep > 1 needs a mixture-of-experts model; " + model.id + " is dense",
                valid_ep());
  // Bounded by the largest load the routing can give (2026-12-07 review: 3 at a cap of 2, and 1e9,
  // had been costed as given). make_deployment says it at the key's line or the CLI option.
  if (expert_load_factor > 0 && model.moe && p.ep > 1 && expert_load_factor > max_expert_load_factor(model, p.ep) * (1 + 1e-12))
    throw Error(SourceLocation{"", 0, 0, "expert_load_factor"},
                "expert_load_factor " + format_double(expert_load_factor) + " is above " + format_double(max_expert_load_factor(model, p.ep)) +
                    ", the largest load the busiest of " + std::to_string(p.ep) + " expert-parallel ranks can take: " +
                    max_expert_load_factor_text(model, p.ep),
                "at most " + format_double(max_expert_load_factor(model, p.ep)) + ", or leave it out for the routing's expected maximum");
  if (p.devices() > 1 && link.bandwidth_bytes_per_s <= 0)
    throw Error(SourceLocation{"", 0, 0, "link"}, "a replica of several devices needs a link bandwidth");
}

std::vector<int> valid_expert_parallel(const ModelConfig& model, int tp) {
  std::vector<int> out = {1};
  if (model.moe)
    for (int e = 2; e <= tp; ++e)
      if (tp % e == 0 && model.moe->num_experts % e == 0 && (model.moe->expert_ffn_hidden <= 0 || model.moe->expert_ffn_hidden % (tp / e) == 0))
        out.push_back(e);
  return out;
}

double max_expert_load_factor(const ModelConfig& model, int ep) {
  if (!model.moe || ep <= 1 || model.moe->topk <= 0 || model.moe->num_experts <= 0) return 1.0;
  const double k = model.moe->topk, per_rank = static_cast<double>(model.moe->num_experts) / ep;
  return ep * std::min(k, per_rank) / k;
}

std::string max_expert_load_factor_text(const ModelConfig& model, int ep) {
  if (!model.moe || ep <= 1) return "1 (no expert-parallel rank)";
  const std::string k = std::to_string(model.moe->topk), E = std::to_string(model.moe->num_experts), e = std::to_string(ep);
  return "ep x min(k, E/ep) / k = " + e + " x min(" + k + ", " + E + "/" + e + ") / " + k + " (a token's k routed experts, at most E/ep of " +
         "them on one rank, against a mean of k/ep a rank)";
}

CostModel::CostModel(Deployment d) : d_(std::move(d)) {
  d_.check();
  const auto& m = d_.model;
  const auto& a = d_.accel;
  // At the entry's line, with what to write (it had named the file alone and said nothing of the
  // fix; 2026-12-07 review).
  if (!a.memory_bandwidth_bytes_per_s.known)
    throw Error(accelerator_field_location(a, "memory_bandwidth_gb_per_s"),
                "accelerator '" + a.id + "' has no memory bandwidth (memory_bandwidth_gb_per_s is unknown or left out): every "
                "weight and KV-cache read is timed by it",
                "write the entry's memory_bandwidth_gb_per_s in GB/s with its provenance, e.g. memory_bandwidth_gb_per_s: {value: 3350, "
                "source: ID} (an H100 SXM's 3.35 TB/s), or {value: N, estimated: \"basis\"}");
  cdtype_ = compute_dtype(d_.weight, d_.activation, a, d_.engine.matmul_dtypes);
  adtype_ = attention_dtype(d_.kv, d_.activation, a, d_.engine.matmul_dtypes);
  apply_engine();

  // Expert weights in the weight format; the other linear layers in it too, or in 16 bits where
  // the checkpoint quantises its experts only (gpt-oss: before 2026-12-03 its attention was read
  // in 4 bits, a third of the decode bytes missing).
  const double wb_expert = d_.weight.bytes();
  const double wb = d_.weight_experts_only ? 2.0 : wb_expert;
  // The vocabulary matrices in the formats a quantised checkpoint keeps them in (formats.hpp):
  // before 2026-12-02 an int4 Llama 3 8B held its 1.05 GB of embedding and head in 4 bits.
  const double head_b = output_format(d_.weight).bytes();
  const double embed_b = embedding_format(d_.weight).bytes();
  const double vocab_matrix = static_cast<double>(m.vocab) * m.hidden;
  const double positions = m.params_embedding() - vocab_matrix * (m.tied_embeddings ? 1.0 : 2.0);  // learned positions
  // The input embedding: its own matrix, or the head's when tied (one matrix, in the head's format).
  const double embedding_bytes = vocab_matrix * (m.tied_embeddings ? head_b : embed_b) + positions * embed_b;
  const double attn = attn_params(m);
  // What every TP rank holds whole, beside the slices of the rest (2026-12-06 review: every weight
  // had been divided by tp, DeepSeek-V3's decode read 1/8 of its tp-1 bytes at tp 8):
  //  * MLA's down-projections (q_a_proj, kv_a_proj_with_mqa: vLLM's and SGLang's ReplicatedLinear),
  //    7168 x (1536 + 576) a layer of DeepSeek-V3, 0.92 GB in fp8 on every rank;
  //  * the K and V projections of one KV head where tp exceeds the KV heads (kv_heads divides tp,
  //    Deployment::check; each rank holds max(kv_heads / tp, 1) heads, as its KV cache does);
  //  * the MoE router (gate: ReplicatedLinear, unquantised), 16 bits whatever the weight format
  //    (wider where the weights are): DeepSeek-V3's 7168 x 256 x 58 layers, 0.21 GB on every rank.
  // attn_sharded: the attention parameters split over the ranks (the model's); attn_rank: those
  // one rank holds whole (per rank).
  const int tp_ranks = d_.par.tp;
  double attn_rank = 0;
  if (m.mla) {
    attn_rank = static_cast<double>(m.hidden) * (m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) +
                (m.mla->q_lora_rank > 0 ? static_cast<double>(m.hidden) * m.mla->q_lora_rank : 0.0);
  } else if (m.kv_heads > 0 && tp_ranks > m.kv_heads) {
    attn_rank = 2.0 * m.hidden * m.head_dim;  // K and V of one KV head
  }
  const double attn_sharded = m.mla ? attn - attn_rank : attn - (attn_rank > 0 ? 2.0 * m.hidden * m.kv_dim() : 0.0);
  const double router_b = std::max(wb, 2.0);
  const double norms = 2.0 * m.hidden;
  double active = 0;
  moe_layers_ = 0;
  head_params_ = static_cast<double>(m.vocab) * m.hidden;
  stages_.clear();
  const std::vector<int> split = stage_layers();
  int l = 0;
  max_stage_device_weight_bytes_ = 0;
  for (size_t si = 0; si < split.size(); ++si) {
    Stage st;
    st.layers = split[si];
    st.head = si + 1 == split.size();
    // Resident weights of the stage (every expert, the embedding on the first stage, the head and
    // final norm on the last: untied, or tied with a copy there when pp > 1, as Megatron and vLLM
    // keep it): the largest stage sets the memory per device, not the model's mean. Split over the
    // TP ranks (resident) and held whole by each (resident_rank).
    double resident = 0, resident_rank = 0;  // bytes
    if (si == 0) resident += embedding_bytes;
    if (st.head) resident += head_params_ * head_b * (m.tied_embeddings && split.size() == 1 ? 0.0 : 1.0) + m.hidden * wb;
    for (int j = 0; j < st.layers; ++j) {
      const int layer = l + j;
      resident += (attn_sharded + norms) * wb;
      resident_rank += attn_rank * wb;
      if (m.is_moe_layer(layer)) {
        resident += (m.moe->num_experts + m.moe->shared_experts) * mlp_params(m, m.moe->expert_ffn_hidden) * wb_expert;
        resident_rank += static_cast<double>(m.hidden) * m.moe->num_experts * router_b;
      } else {
        resident += mlp_params(m, m.ffn_hidden) * wb;
      }
    }
    max_stage_device_weight_bytes_ = std::max(max_stage_device_weight_bytes_, resident / tp_ranks + resident_rank);
    double st_dense_bytes = 0;  // the stage's sharded weights read every iteration whatever the routing
    for (int j = 0; j < st.layers; ++j, ++l) {
      st_dense_bytes += (attn_sharded + norms) * wb;
      st.rank_read_bytes += attn_rank * wb;
      st.dense_params += attn;
      st.sharded_params += attn_sharded;
      st.rank_params += attn_rank;
      if (m.is_moe_layer(l)) {
        ++st.moe_layers;
        const double ex = mlp_params(m, m.moe->expert_ffn_hidden);
        const double router = static_cast<double>(m.hidden) * m.moe->num_experts;
        st_dense_bytes += m.moe->shared_experts * ex * wb_expert;
        st.rank_read_bytes += router * router_b;
        st.dense_params += m.moe->shared_experts * ex + router;
        st.sharded_params += m.moe->shared_experts * ex;
        st.rank_params += router;
        st.routed_params += m.moe->topk * ex;
      } else {
        st_dense_bytes += mlp_params(m, m.ffn_hidden) * wb;
        st.dense_params += mlp_params(m, m.ffn_hidden);
        st.sharded_params += mlp_params(m, m.ffn_hidden);
      }
    }
    // Streamed per iteration: layers + LM head (tied or not, the head matrix is read once).
    st.dense_read_bytes = st_dense_bytes + (st.head ? m.hidden * wb : 0.0) + (st.head ? head_params_ * head_b : 0.0);
    active += st.dense_params + st.routed_params;
    moe_layers_ += st.moe_layers;
    stages_.push_back(st);
  }
  expert_bytes_ = m.moe ? mlp_params(m, m.moe->expert_ffn_hidden) * wb_expert : 0;
  linear_params_active_ = active;
  const int ep = d_.par.ep;
  z_ep_ = ep > 1 ? normal_quantile((ep - 0.375) / (ep + 0.25)) : 0.0;  // Blom (1958)
  // Group-limited routing, as training's MoE dispatch takes it (ir::moe_grouped_hits): a token
  // picks M of the G groups uniformly and its k experts uniformly among their M E / G. Before
  // 2026-12-06 (review) the ranks were loaded as under unrestricted routing: DeepSeek-V3 at EP8
  // holds one group of 32 experts a rank and a token reaches only 4 of the 8 ranks, so one
  // decoding token's busiest rank carries 3.49x the mean (exact), priced 2.32x.
  if (m.moe && ep > 1 && m.moe->router_groups > 1 && m.moe->router_groups_per_token >= 1 &&
      m.moe->router_groups_per_token < m.moe->router_groups && m.moe->num_experts % m.moe->router_groups == 0) {
    grouped_routing_ = true;
    const double G = m.moe->router_groups, M = m.moe->router_groups_per_token, k = m.moe->topk;
    const int group_experts = m.moe->num_experts / m.moe->router_groups, rank_experts = m.moe->num_experts / ep;
    const double pool = M * group_experts;  // experts a token's k are drawn from
    const double both_in_pool = pool > 1 ? k * (k - 1) / (pool * (pool - 1)) : 0.0;
    pair_same_group_ = M / G * both_in_pool;
    pair_two_groups_ = M * (M - 1) / (G * (G - 1)) * both_in_pool;
    for (int r = 0; r < ep; ++r) {
      double pairs = 0;
      for (int g = 0; g < m.moe->router_groups; ++g) {
        const int held = std::max(0, std::min((g + 1) * group_experts, (r + 1) * rank_experts) - std::max(g * group_experts, r * rank_experts));
        pairs += static_cast<double>(held) * (held - 1);
      }
      rank_same_group_pairs_ = std::max(rank_same_group_pairs_, pairs);
    }
  }
  const std::string source = expert_load_source();
  routing_max_ = source == "uniform top-k routing" || source == "group-limited top-k routing";
  // Every expert of every MoE layer in the expert format, the rest of the linear layers in theirs.
  const double all_expert_params =
      m.moe ? static_cast<double>(m.num_moe_layers()) * (m.moe->num_experts + m.moe->shared_experts) * mlp_params(m, m.moe->expert_ffn_hidden) : 0.0;
  // The routers in their own (16-bit) format.
  const double all_router_params = m.moe ? static_cast<double>(m.num_moe_layers()) * m.hidden * m.moe->num_experts : 0.0;
  weight_bytes_total_ = (m.params_total() - m.params_embedding() - all_expert_params - all_router_params) * wb + all_router_params * router_b +
                        all_expert_params * wb_expert + embedding_bytes + (m.tied_embeddings ? 0.0 : vocab_matrix * head_b);

  const double kvb = d_.kv.bytes();
  const int tp = d_.par.tp;
  if (m.mla) {
    kv_token_layer_bytes_ = (m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * kvb;
    kv_token_layer_bytes_rank_ = kv_token_layer_bytes_;  // the latent is replicated over TP
    const double qk = m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim;
    attn_flops_pair_layer_ = 2.0 * m.heads * qk + 2.0 * m.heads * m.mla->v_head_dim;
    // Decode attends over the cached latent with the up-projections absorbed into the query and
    // the output (DeepSeek-V2 Sec. 2.1.3; FlashMLA): per pair and head a (kv_lora_rank + rope)-wide
    // QK and a kv_lora_rank-wide PV, 278,528 FLOPs per pair and layer for DeepSeek-V3 against the
    // 81,920 of the projected form (which would up-project the whole cache every step, uncounted).
    // Before 2026-12-02 decode used the projected form with the latent's bytes.
    attn_flops_pair_decode_layer_ = 2.0 * m.heads * (m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) +
                                    2.0 * m.heads * m.mla->kv_lora_rank;
    // A prompt chunk after the first attends in the projected form over the cached context too,
    // so the engine up-projects the cached latent (vLLM's MLA prefill with context: kv_b_proj on
    // the cache): 2 kv_lora_rank heads (qk_nope + v) FLOPs per past token and layer, 33.5M for
    // DeepSeek-V3 (uncounted before the session-21 review).
    past_upproj_flops_token_layer_ =
        2.0 * m.mla->kv_lora_rank * m.heads * (m.mla->qk_nope_head_dim + m.mla->v_head_dim);
  } else {
    kv_token_layer_bytes_ = 2.0 * m.kv_heads * m.head_dim * kvb;
    const double heads_rank = std::ceil(static_cast<double>(m.kv_heads) / tp);
    kv_token_layer_bytes_rank_ = 2.0 * heads_rank * m.head_dim * kvb;
    attn_flops_pair_layer_ = 4.0 * m.heads * m.head_dim;
    attn_flops_pair_decode_layer_ = attn_flops_pair_layer_;
  }
  // What a layer's attention reads: its whole K/V, shared or not. Cross-layer attention (Brandon
  // et al. 2024, Apple's on-device models) keeps one cache per group of layers, but every layer of
  // the group still attends over it with its own queries, and each layer's attention kernel
  // streams the cache from HBM again (a decode step's cache is gigabytes, far beyond L2, and the
  // layers run one after another). So sharing divides the KV stored and written, not read. Before
  // 2026-12-06 the reads were divided too: Llama 3 8B on an H100 at batch 32 and an 8,000-token
  // prompt read 48.6 / 31.8 / 23.4 GB a decode step at k = 1 / 2 / 4 (TPOT 21.2 / 14.9 / 11.8 ms)
  // where the attention's reads do not shrink (review).
  kv_token_layer_read_bytes_rank_ = kv_token_layer_bytes_rank_;
  // Groups of kv_share_layers layers share one cache: ceil(L / k) caches for L layers, spread
  // over the layers (a last, smaller group still holds a whole cache).
  const double caches_per_layer = std::ceil(static_cast<double>(m.layers) / d_.kv_share_layers) / m.layers;
  kv_token_layer_bytes_ *= caches_per_layer;
  // A device's stage of S layers holds the caches of the groups that start in it, at most
  // ceil(S / k): one shared cache sits on one stage, not spread over them (pp 4 with one cache
  // for 32 layers had put a quarter of it on each stage; 2026-12-04 review).
  const int stage_layers = kv_layers_per_device();
  const double caches_per_stage_layer =
      std::min(std::ceil(static_cast<double>(stage_layers) / d_.kv_share_layers), std::ceil(static_cast<double>(m.layers) / d_.kv_share_layers)) /
      stage_layers;
  kv_token_layer_bytes_rank_ *= caches_per_stage_layer;
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
  // Weights narrower than the arithmetic are dequantised on the fly: block formats always, and a
  // native 8- or 4-bit format the device cannot multiply in (fp4 on Hopper runs in fp8, fp8 on Ampere in 16
  // bits: a Marlin-style kernel converts every weight tile first), which before 2026-12-01 ran at
  // the wider format's full rate (NVFP4 prefill on an H100 came out faster than bf16).
  const bool widened = dtype_bytes(d_.weight.compute_dtype) <= 1 && dtype_bytes(d_.weight.compute_dtype) < dtype_bytes(cdtype_);
  const double dq = d_.weight.block_quantized || widened ? value_or(e.dequant_fraction, 1.0) : 1.0;
  compute_rate_ = a.peak(cdtype_) * gf * dq;
  attn_rate_ = a.peak(adtype_) * value_or(e.gemm_fraction, a.gemm_fraction(adtype_)) * value_or(a.attention_fraction, 1.0);
  memory_rate_ = a.memory_bandwidth_bytes_per_s.value * bwf;
  overlap_ = value_or(e.overlap_fraction, 1.0);
  // A per-layer fixed cost (overhead_reference_layers given: ggml's kernel dispatch) is scaled to
  // the layers a pass runs. Every layer of the model, under pipeline parallelism too: the host
  // dispatches each stage's kernels in turn and is one resource of the pass (serve's host_free),
  // so a layer split moves no dispatch off it. Before 2026-12-06 llama.cpp's 5.1 ms fitted on
  // 32-layer Llama-2-7B was charged to every model (review).
  const double layer_scale = e.overhead_reference_layers.known && e.overhead_reference_layers.value > 0
                                 ? d_.model.layers / e.overhead_reference_layers.value
                                 : 1.0;
  iter_overhead_s_ = value_or(e.iteration_overhead_s, 0.0) * layer_scale;
  seq_overhead_s_ = value_or(e.sequence_overhead_s, 0.0);
}

std::vector<int> CostModel::stage_layers() const {
  const int pp = d_.par.pp, L = d_.model.layers;
  std::vector<int> n(static_cast<size_t>(pp), L / pp);
  // The remainder goes to the stages before the last (which holds the LM head), second-to-last first.
  for (int r = 0; r < L % pp; ++r) ++n[static_cast<size_t>(pp - 2 - r)];
  return n;
}

double CostModel::expert_load_factor(double tokens) const {
  const auto& m = d_.model;
  const int ep = d_.par.ep;
  if (!m.moe || ep <= 1) return 1.0;
  if (d_.expert_load_factor > 0) return d_.expert_load_factor;
  if (m.moe->capacity_factor > 0) return std::max(1.0, m.moe->capacity_factor);
  if (tokens <= 0) return 1.0;
  const double E = m.moe->num_experts, k = m.moe->topk, g = E / ep;
  const double mu = tokens * k / ep;
  const double var = grouped_routing_ ? tokens * rank_routed_variance_per_token()
                                      : tokens * k * (1.0 / ep) * (1.0 - 1.0 / ep) * (E - k) / (E - 1);
  const double cap = ep * std::min(k, g) / k;
  return std::min(cap, 1.0 + z_ep_ * std::sqrt(var) / mu);
}

// The rank's count is a sum of its e = E/ep experts' indicators, each 1 with probability p = k/E:
// variance e p (1 - p) plus, over ordered pairs of its experts, P(both) - p^2, with P(both) that of
// two experts of one group or of two groups. (Unrestricted routing, one group of E: the
// hypergeometric variance.) Experts of one group are chosen together: their pairs add variance.
double CostModel::rank_routed_variance_per_token() const {
  const auto& moe = *d_.model.moe;
  const double e = static_cast<double>(moe.num_experts) / d_.par.ep, p = static_cast<double>(moe.topk) / moe.num_experts;
  const double same = rank_same_group_pairs_, two = e * (e - 1) - same;
  return e * p * (1 - p) + same * (pair_same_group_ - p * p) + two * (pair_two_groups_ - p * p);
}

// Touched experts of the rank after T independent tokens: expert j is untouched with probability
// u = (1 - p)^T, two experts both untouched with (1 - 2p + P(both))^T. Variance of the rank's
// untouched (so touched) count: e u (1 - u) plus, over ordered pairs, (1 - 2p + P(both))^T - u^2.
double CostModel::rank_touched_variance(double tokens) const {
  const auto& moe = *d_.model.moe;
  const double e = static_cast<double>(moe.num_experts) / d_.par.ep, p = static_cast<double>(moe.topk) / moe.num_experts;
  const double u = std::pow(1 - p, tokens);
  const double same = rank_same_group_pairs_, two = e * (e - 1) - same;
  const double var = e * u * (1 - u) + same * (std::pow(1 - 2 * p + pair_same_group_, tokens) - u * u) +
                     two * (std::pow(1 - 2 * p + pair_two_groups_, tokens) - u * u);
  return std::max(0.0, var);
}

std::string CostModel::expert_load_source() const {
  if (!d_.model.moe || d_.par.ep <= 1) return "";
  if (d_.expert_load_factor > 0) return "deployment";
  if (d_.model.moe->capacity_factor > 0) return "catalog capacity_factor";
  return grouped_routing_ ? "group-limited top-k routing" : "uniform top-k routing";
}

// The largest pipeline stage's resident weights on one of its tp devices: its sharded weights over
// tp plus what every rank holds whole (before 2026-12-01 the model's total over tp x pp, which
// undercounted the first and last stages: Llama 3 8B at pp 32 holds the 1.05 GB embedding and a
// layer on stage 0, 3x the mean; before 2026-12-06 the replicated weights were divided by tp too,
// review).
double CostModel::weight_bytes_per_device() const { return max_stage_device_weight_bytes_; }

double CostModel::kv_bytes_per_token_per_device() const {
  const int layers_stage = (d_.model.layers + d_.par.pp - 1) / d_.par.pp;
  return kv_token_layer_bytes_rank_ * layers_stage;
}

int CostModel::kv_windowed_layers_per_device() const {
  if (d_.model.sliding_window <= 0) return 0;
  const int stage = kv_layers_per_device();
  // The busiest stage: layers are counted, not placed, so a stage takes the fewest windowed layers
  // its share allows (floor), and so the most full-attention ones. Rounding to nearest had put a
  // GPT-OSS stage of one layer at pp 36 on the windowed side, "memory bounds no context", where 18
  // of the 36 stages hold a full layer (2026-12-04 review).
  return std::clamp(static_cast<int>(std::floor(d_.model.windowed_fraction() * stage + 1e-9)), 0, stage);
}

double CostModel::kv_window_held(double context, double new_tokens) const {
  const int w = d_.model.sliding_window;
  if (w <= 0) return context;
  return std::min(context, w - 1 + std::max(1.0, new_tokens));
}

double CostModel::kv_bytes_per_device(double context, double new_tokens) const {
  const int win = kv_windowed_layers_per_device();
  return kv_token_layer_bytes_rank_ *
         ((kv_layers_per_device() - win) * context + (win > 0 ? win * kv_window_held(context, new_tokens) : 0.0));
}

double CostModel::kv_bytes(double context, double new_tokens) const {
  const int win = d_.model.sliding_window > 0
                      ? std::clamp(static_cast<int>(std::lround(d_.model.windowed_fraction() * d_.model.layers)), 0, d_.model.layers)
                      : 0;
  return kv_token_layer_bytes_ *
         ((d_.model.layers - win) * context + (win > 0 ? win * kv_window_held(context, new_tokens) : 0.0));
}

double CostModel::kv_max_context_per_device(double free_bytes, double extra_bytes_per_token) const {
  if (free_bytes <= 0) return 0;
  const int win = kv_windowed_layers_per_device();
  const int full = kv_layers_per_device() - win;
  const double lb = kv_token_layer_bytes_rank_;
  // (extra 0 leaves every figure as it was: x + 0 is x)
  if (win == 0) return std::floor(free_bytes / (lb * full + extra_bytes_per_token));
  const double w = d_.model.sliding_window;
  // Up to the window every layer holds each token; past it only the full layers (and the extra
  // cache) grow.
  const double all_until = free_bytes / (lb * (full + win) + extra_bytes_per_token);
  if (all_until < w) return std::floor(all_until);
  if (full == 0 && !(extra_bytes_per_token > 0)) return INFINITY;
  return std::floor((free_bytes - lb * win * w) / (lb * full + extra_bytes_per_token));
}

// With a window on some layers only, the layer-weighted mean of the windowed and the full count.
double CostModel::attended(double context) const {
  // Whole tokens, in a double: an int overflowed past 2^31 tokens (a negative TPOT).
  const int w = d_.model.sliding_window;
  const double full = std::floor(context);
  if (w <= 0) return full;
  const double f = d_.model.windowed_fraction();
  return f * std::floor(std::min<double>(context, w)) + (1.0 - f) * full;
}

double CostModel::attention_pairs(double past, double n) const {
  // sum_{i=1..n} min(past + i, W)
  if (n <= 0) return 0;
  auto pairs = [&](double w) {
    const double full_until = std::clamp(w - past, 0.0, n);  // i <= full_until: past + i <= w
    const double s1 = full_until * past + full_until * (full_until + 1) / 2;
    return s1 + (n - full_until) * std::min(w, past + n);
  };
  const double full = pairs(1e300);
  if (d_.model.sliding_window <= 0) return full;
  const double f = d_.model.windowed_fraction();
  return f * pairs(d_.model.sliding_window) + (1.0 - f) * full;
}

Batch CostModel::prefill(int64_t seqs, int64_t prompt, int64_t past) const {
  Batch b;
  add_prefill_chunk(b, static_cast<double>(past), static_cast<double>(prompt), true, seqs);
  return b;
}

void CostModel::add_prefill_chunk(Batch& b, double past, double new_tokens, bool completes, int64_t seqs) const {
  if (seqs <= 0) return;
  const double n = static_cast<double>(seqs);
  b.prefill_seqs += seqs;
  b.prefill_tokens += n * new_tokens;
  b.prefill_attention_pairs += n * attention_pairs(past, new_tokens);
  b.prefill_past_tokens += n * attended(past);
  if (completes) b.logits_tokens += seqs;
}

Batch CostModel::decode(int64_t seqs, double context, int tokens_per_seq) const {
  Batch b;
  const double n = std::max(1, tokens_per_seq);
  b.decode_seqs = seqs;
  b.decode_tokens = static_cast<double>(seqs) * n;
  // The new token attends to the context and to itself.
  b.decode_kv_read_tokens = static_cast<double>(seqs) * attended(context + 1);
  b.decode_context_tokens = n * b.decode_kv_read_tokens;
  b.logits_tokens = seqs * static_cast<int64_t>(n);
  return b;
}

IterationCost CostModel::iteration(const Batch& b) const { return iteration(b, nullptr); }

IterationCost CostModel::iteration(const Batch& b, std::vector<double>* stage_s) const {
  IterationCost c;
  const auto& m = d_.model;
  const auto& p = d_.par;
  const double tokens = b.tokens();
  if (stage_s) stage_s->assign(stages_.size(), 0.0);
  if (tokens <= 0) return c;
  const double tp = p.tp;
  // Routed experts touched by the pass and, under EP, the busiest rank's share.
  double touched = 0, load = 1, touched_factor = 1;
  if (m.moe) {
    const double E = m.moe->num_experts, k = m.moe->topk;
    const double hit = 1.0 - std::pow(1.0 - k / E, tokens);  // probability an expert is touched
    touched = E * hit;
    if (p.ep > 1) {
      load = expert_load_factor(tokens);
      // Experts touched on the busiest rank: with a given factor, that share of the mean rank's
      // (at most all of its experts); else the expected maximum over ranks of Binomial(E/ep, hit),
      // or under group-limited routing of the rank's touched count with its experts' pairs
      // (rank_touched_variance; the mean E/ep x hit is the same: an expert is still hit with
      // probability k/E a token, but a group's experts are hit together).
      const double g = E / p.ep, mean = g * hit;
      const double var = grouped_routing_ ? rank_touched_variance(tokens) : g * hit * (1.0 - hit);
      if (mean > 0)
        touched_factor = routing_max_ ? std::min(g, mean + z_ep_ * std::sqrt(var)) / mean : std::min(g, mean * load) / mean;
    }
  }
  c.expert_load_factor = load;
  const double kv_layer_rank = kv_token_layer_bytes_rank_;
  const double kv_read_tokens = b.decode_kv_read_tokens + b.prefill_past_tokens;
  // What crosses a link is the hidden state in 16 bits at least: FP8 (W8A8) GEMMs write bf16
  // outputs, and vLLM's and TensorRT-LLM's all-reduces, pipeline sends and MoE combines move them
  // (sized in fp8 they were half: prefill 27% fast on a Llama 3 70B at TP8).
  const double act = std::max(d_.activation.bytes(), 2.0);
  const double msg = tokens * m.hidden * act;
  // The TP group's and a pipeline pair's share of the scale-up links: on a mesh a TP pair has the
  // one link between them (MI300X: 64 of 448 GB/s), on a torus the axes it spans; before
  // 2026-12-05 every group had the device's whole bandwidth, as training's Fabric::up_share does
  // not (Llama 3 70B at TP2 on MI300X: prefill communication 6x short, TTFT 29% optimistic).
  const double bw = d_.link.group_bandwidth_bytes_per_s(p.tp, p.devices());
  const double bw_pair = d_.link.group_bandwidth_bytes_per_s(2, p.devices());
  // Per-layer communication (per TP rank): two all-reduces per layer (after attention, after the MLP or MoE block).
  // An all-reduce is the faster of a ring (2(n-1)/n x msg over the link, 2(n-1) latency steps) and
  // a one-shot all-reduce (each rank reads the n-1 peers' buffers: (n-1) x msg, a barrier and the
  // read, 2 latency steps: vLLM's and TensorRT-LLM's custom all-reduce on a full NVLink domain,
  // used for the small messages of decode). Equal at n = 2; at TP8 decode the ring's 14 latency
  // steps made the all-reduces half of a Llama 3 70B token (before 2026-12-01).
  double ar_bytes = 0, ar_s = 0;
  if (p.tp > 1) {
    const double n = p.tp;
    // On a torus the ring runs along each axis of the group's block in turn: fewer latency steps
    // than 2(n-1) (TP 8 on a v5e 4 x 2 block: 8, not 14; 2026-12-07 review, as training's).
    const double ring_s = 2.0 * (n - 1) / n * msg / bw + 2.0 * d_.link.ring_hops(p.tp, p.devices()) * d_.link.latency_s;
    // One-shot reads every peer's buffer directly: a switch or a mesh (vLLM's custom all-reduce on
    // NVLink and on MI300X's xGMI); on a torus most peers are hops away: ring only.
    const double one_shot_s = d_.link.torus_dims > 1 ? std::numeric_limits<double>::infinity()
                                                     : (n - 1) * msg / bw + 2.0 * d_.link.latency_s;
    const bool one_shot = one_shot_s < ring_s;
    ar_bytes = 2.0 * (one_shot ? (n - 1) * msg : 2.0 * (n - 1) / n * msg);
    ar_s = 2.0 * std::min(ring_s, one_shot_s);
  }
  // EP (ep divides tp, Deployment::check) moves no tokens of its own: attention is tensor
  // parallel, so after its all-reduce every rank of the TP group holds all T tokens; a rank applies
  // its E/ep experts (split tp/ep ways) to the tokens routed to them and the MoE block's
  // all-reduce above combines the partial outputs (vLLM's TP+EP without data-parallel attention).
  // Before 2026-12-03 a dispatch + combine all-to-all of load x T x hidden x topk was added on
  // top: DeepSeek-V3 prefill at TP8 EP8 read 1.55 s against 0.50 s at EP1. What EP changes is the
  // busiest rank's expert work (load, touched_factor).
  // A pipeline send: each TP rank sends its 1/tp of the hidden states to the same TP rank of the
  // next stage (device s*tp + j to (s+1)*tp + j). When any of those pairs lies in different
  // scale-up domains (replica devices numbered domain by domain) the send crosses the scale-out
  // fabric; before 2026-12-03 every send was priced on the scale-up link (Llama 3 70B at TP8 PP2
  // over two DGX H100, a 4,096-token prefill: 0.026 ms a send instead of 0.18 ms).
  const double p2p_bytes = msg / tp;
  const double p2p_up_s = p2p_bytes / bw_pair + d_.link.latency_s;
  // (No scale-out fabric and a send that crosses domains: make_deployment refuses such a replica
  // since 2026-12-05; it had been priced on the scale-up link below.)
  const double p2p_out_s = d_.link.scale_out_bandwidth_bytes_per_s > 0
                               ? p2p_bytes / d_.link.scale_out_bandwidth_bytes_per_s + d_.link.scale_out_latency_s
                               : p2p_up_s;
  const int domain = d_.link.domain_devices;
  auto crosses_domain = [&](size_t stage) {
    if (domain <= 0) return false;
    const int64_t first = static_cast<int64_t>(stage) * p.tp;
    for (int j = 0; j < p.tp; ++j)
      if ((first + j) / domain != (first + p.tp + j) / domain) return true;
    return false;
  };
  for (size_t si = 0; si < stages_.size(); ++si) {
    const Stage& st = stages_[si];
    // Memory: weights (per TP rank) + KV read and write of the stage's layers.
    const double wbytes = (st.dense_read_bytes + st.moe_layers * touched * touched_factor * expert_bytes_) / tp + st.rank_read_bytes;
    const double kv = kv_layer_rank * st.layers;                           // written: the stage's caches
    const double kv_read = kv_token_layer_read_bytes_rank_ * st.layers;    // read: by every attending layer
    const double mem_bytes = wbytes + kv_read_tokens * kv_read + tokens * kv;
    const double mem_s = mem_bytes / memory_rate_;
    // FLOPs.
    // Linear FLOPs of one rank: the sharded layers' over tp, the replicated ones' (MLA's
    // down-projections, a replicated KV head, the router) whole on every rank.
    const double lin = (2.0 * (st.sharded_params + load * st.routed_params) * tokens + (st.head ? 2.0 * head_params_ * b.logits_tokens : 0.0) +
                        past_upproj_flops_token_layer_ * b.prefill_past_tokens * st.layers) / tp +
                       2.0 * st.rank_params * tokens;
    const double att = (attn_flops_pair_decode_layer_ * b.decode_context_tokens + attn_flops_pair_layer_ * b.prefill_attention_pairs) * st.layers;
    const double comp_s = lin / compute_rate_ + att / tp / attn_rate_;
    // Communication of the stage's layers and the send to the next stage.
    double comm_s = st.layers * ar_s;
    double comm_bytes = st.layers * ar_bytes;
    if (si + 1 < stages_.size()) {
      comm_s += crosses_domain(si) ? p2p_out_s : p2p_up_s;
      comm_bytes += p2p_bytes;
    }
    const double t = std::max(mem_s, comp_s) + (1.0 - overlap_) * std::min(mem_s, comp_s) + comm_s;
    if (stage_s) (*stage_s)[si] = t;
    c.memory_bytes += mem_bytes;
    c.memory_s += mem_s;
    c.flops += lin + att / tp;
    c.flops_device_max = std::max(c.flops_device_max, lin + att / tp);
    c.memory_bytes_device_max = std::max(c.memory_bytes_device_max, mem_bytes);
    c.compute_s += comp_s;
    c.comm_bytes += comm_bytes;
    c.comm_s += comm_s;
    c.stage_max_s = std::max(c.stage_max_s, t);
    c.total_s += t;
  }
  c.overhead_s = iter_overhead_s_ + seq_overhead_s_ * b.seqs();
  c.total_s += c.overhead_s;
  c.bottleneck_s = std::max(c.stage_max_s, c.overhead_s);
  return c;
}

Link scale_up_link(const Catalog& cat, const System& s) {
  const auto& n = cat.network(s.scale_up_network);
  Link l;
  // Unknown achievable fraction: training's 0.8 (estimate/collective.cpp make_fabric); it had been
  // 1.0 here, the line rate, for every mesh and torus network (review of 2026-12-05).
  l.bandwidth_bytes_per_s = n.bandwidth_bytes_per_s.value * value_or(n.achievable_fraction, 0.8);
  l.latency_s = value_or(n.latency_s, 0.0);
  l.domain_devices = s.scale_up_domain;
  l.mesh = n.topology == "mesh";
  l.torus_dims = n.topology == "torus" ? n.torus_dims : 0;
  if (!s.scale_out_network.empty()) {
    const auto& o = cat.network(s.scale_out_network);
    const double port = s.nic_bandwidth_bytes_per_s.known ? s.nic_bandwidth_bytes_per_s.value : o.bandwidth_bytes_per_s.value;
    // The defaults are training's (estimate/collective.cpp make_fabric): 0.9 of line rate, 6 us.
    l.scale_out_bandwidth_bytes_per_s = port * s.nics_per_node * value_or(o.achievable_fraction, 0.9) / std::max(1, s.gpus_per_node);
    l.scale_out_latency_s = value_or(o.latency_s, 6e-6);
  }
  return l;
}

}  // namespace sextant::infer
