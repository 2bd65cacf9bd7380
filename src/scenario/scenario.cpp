#include "scenario/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>

#include "core/atomic_file.hpp"
#include "core/paths.hpp"
#include "core/result.hpp"

namespace sextant {
namespace fs = std::filesystem;

namespace {
// The divisors of n that `also` accepts (the other rules a degree must keep: a cp that also
// divides the GPUs left by tp and pp): a remedy that fails when applied is none (review of
// 2026-12-05: "a cp that divides 4097: 1, 17, 241, 4097" of which only 1 divided the GPUs).
template <class Pred>
std::string divisors_text_where(int64_t n, Pred also) {
  std::string out;
  for (int64_t d = 1; d <= n && d <= (int64_t{1} << 20); ++d)
    if (n % d == 0 && also(d)) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out.empty() ? "none" : out;
}

// Products of parallel degrees are computed in 128 bits so they cannot wrap (GCC's extension).
__extension__ typedef __int128 int128;
// As decimal text.
std::string int128_text(int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  __extension__ typedef unsigned __int128 uint128;
  uint128 u = neg ? static_cast<uint128>(-(v + 1)) + 1 : static_cast<uint128>(v);
  std::string out;
  while (u > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + out : out;
}
}  // namespace

std::string recompute_modules_text(uint32_t modules) {
  const auto& names = recompute_module_names();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    if (modules & (1u << i)) out += (out.empty() ? "" : ",") + names[i];
  return out;
}

uint32_t applicable_recompute_modules(const ModelConfig& m) {
  uint32_t out = kRecomputeCoreAttn | kRecomputeLayerNorm;
  if (!m.all_layers_moe()) out |= kRecomputeMlp;
  if (m.moe) {
    out |= kRecomputeMoeAct | kRecomputeMoe;
    if (m.moe->shared_experts > 0) out |= kRecomputeSharedExperts;
  }
  if (m.mla) out |= kRecomputeMlaUpProj;
  return out;
}

const std::vector<std::string>& fp8_recipe_names() {
  static const std::vector<std::string> names{"delayed", "current", "blockwise", "mxfp8"};
  return names;
}

const std::vector<std::string>& moe_dispatcher_names() {
  static const std::vector<std::string> names{"alltoall", "deepep", "hybridep"};
  return names;
}

std::string plan_text(const Scenario& s) {
  const auto& p = s.plan;
  const auto& t = s.train;
  std::string out = "tp" + std::to_string(p.tp) + " pp" + std::to_string(p.pp);
  if (p.vpp > 1) out += " vpp" + std::to_string(p.vpp);
  out += " dp" + std::to_string(p.dp);
  if (p.cp > 1) out += " cp" + std::to_string(p.cp);
  if (p.ep > 1) out += " ep" + std::to_string(p.ep);
  if (const int etp = !s.model.moe ? 1 : p.etp > 0 ? p.etp : p.tp; etp > 1) out += " etp" + std::to_string(etp);
  out += " mb" + std::to_string(t.micro_batch) + " zero" + std::to_string(p.zero_stage);
  if (p.sequence_parallel && p.tp > 1) out += " sp";
  if (p.tp_comm_overlap && p.tp > 1) out += " tpov";
  if (!p.overlap_grad_reduce) out += " no-grad-overlap";
  if (!p.overlap_param_gather) out += " no-gather-overlap";
  out += " rc:" + to_string(t.recompute);
  if (t.recompute == Recompute::Selective && t.recompute_modules != 0 && t.recompute_modules != kRecomputeCoreAttn)
    out += "(" + recompute_modules_text(t.recompute_modules) + ")";
  if (t.recompute == Recompute::Full && t.recompute_block) out += "(block " + std::to_string(t.recompute_num_layers) + ")";
  else if (t.recompute == Recompute::Full && t.recompute_num_layers > 1) out += "(groups of " + std::to_string(t.recompute_num_layers) + ")";
  if (p.pp > 1) out += " " + p.schedule;
  out += stage_layout_text(p.stage_layers, p.stage_rule);
  if (s.model.moe) {
    out += " " + p.moe_dispatcher;  // named for every MoE plan, the default all-to-all too
    if (p.ep > 1 && p.ep_comm_overlap) out += " ep-overlap";
  }
  return out;
}

std::string stage_layout_text(const std::vector<int>& stage_layers, const std::string& stage_rule) {
  if (!stage_layers.empty()) {
    std::string out = " layers ";
    for (size_t k = 0; k < stage_layers.size(); ++k) out += (k ? "/" : "") + std::to_string(stage_layers[k]);
    return out;
  }
  return stage_rule == "fewer-first-last" ? " fewer-first-last" : "";
}

std::string to_string(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "none";
}

double Scenario::moe_rank_load() const {
  double load = train.moe_load_factor();
  if (!model.moe || train.moe_pad_to_capacity) return load;
  const int eps = std::max(1, plan.ep);
  const auto& x = *model.moe;
  if (x.topk <= 0) return load;
  const double experts_here = static_cast<double>(x.num_experts) / eps;
  return std::min(load, eps * std::min(static_cast<double>(x.topk), experts_here) / x.topk);
}

int64_t Scenario::num_microbatches() const {
  const int64_t denom = static_cast<int64_t>(plan.dp) * train.micro_batch;
  return denom > 0 ? train.global_batch / denom : 0;
}

std::vector<int> Scenario::stage_layout() const {
  const int n = plan.pp * plan.vpp;
  if (!plan.stage_layers.empty()) return plan.stage_layers;
  std::vector<int> out(n, 0);
  const int L = model.layers;
  if (plan.stage_rule == "fewer-first-last" && n >= 2) {
    // One layer fewer on the first and last stage (Llama 3 405B: 126 layers on 16 stages).
    const int base = (L + 2) / n;
    int rem = (L + 2) - base * n;
    for (int i = 0; i < n; ++i) out[i] = base;
    out[0] -= 1;
    out[n - 1] -= 1;
    for (int i = 1; i < n - 1 && rem > 0; ++i, --rem) out[i] += 1;
    return out;
  }
  // even: as even as possible, the remainder spread over the middle stages first.
  const int base = L / n;
  int rem = L % n;
  for (int i = 0; i < n; ++i) out[i] = base;
  for (int i = 1; i < n && rem > 0; ++i, --rem) out[i] += 1;
  if (rem > 0) out[0] += rem;
  return out;
}

// ---------------------------------------------------------------- parsing
void apply_framework_defaults(ParallelPlan& p, const Framework& f) {
  p.zero3_gather = f.zero3_gather.value;
  p.zero3_regather_for_recompute = f.zero3_regather_for_recompute.value == "true";
  p.zero3_max_live_params = f.zero3_max_live_params.known ? f.zero3_max_live_params.value : 0.0;
  p.collective_nic_aggregation = f.collective_nic_aggregation.value == "true";
  if (!f.tp_backward_overlap.value.empty()) p.tp_backward_overlap = f.tp_backward_overlap.value == "true";
}

static ParallelPlan parse_plan(const YamlMap& m, const ParallelPlan& base, bool framework_has_sp) {
  ParallelPlan p = base;
  p.tp = m.i32("tp", 1);
  p.pp = m.i32("pp", 1);
  p.dp = m.i32("dp", 0);
  p.cp = m.i32("cp", 1);
  p.ep = m.i32("ep", 1);
  // Megatron-Core's default: expert_tensor_parallel_size = tensor_model_parallel_size when unset
  // (megatron/training/arguments.py). It was 1 before 2026-12-03: a tp 2 MoE plan held every
  // expert whole on each TP rank (Mixtral at tp 2: 282 GiB where Megatron holds 157).
  p.etp_stated = m.has("etp");
  p.etp = p.etp_stated ? m.i32("etp") : p.tp;
  p.vpp = m.i32("vpp", 1);
  p.sequence_parallel = m.boolean("sequence_parallel", p.tp > 1 && framework_has_sp);
  p.zero_stage_stated = m.has("zero_stage");
  p.zero_stage = m.i32("zero_stage", 1);
  p.schedule = m.choice("schedule", {"gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "dualpipev"},
                        p.vpp > 1 ? "interleaved-1f1b" : "1f1b");
  // DualPipeV holds two chunks per rank (a V): vpp 2 unless stated (and checked below).
  if (p.schedule == "dualpipev" && !m.has("vpp")) p.vpp = 2;
  // The stage sizes or a rule, not both in one place (the rule was dropped silently). A --set of one
  // replaces the file's other (`--set parallel.stage_layers=[...]` on a file with a stage_rule, as
  // docs/scenario.md shows), and stage_layers [] means no sizes: the rule lays the stages out.
  auto from_set = [&](const char* k) { return m.has(k) && m.raw(k).Mark().line < 0; };
  // An empty list states no sizes: beside a rule (in the file, or from a --set) it is no conflict
  // and the rule stays (before 2026-12-05 the two were refused together in a file, and a --set []
  // reset the file's fewer-first-last to even).
  const bool no_sizes = m.has("stage_layers") && m.raw("stage_layers").IsSequence() && m.raw("stage_layers").size() == 0;
  const bool both = m.has("stage_layers") && !no_sizes && m.has("stage_rule");
  if (both && from_set("stage_layers") == from_set("stage_rule"))
    m.fail("stage_rule", "is given with stage_layers, which sets the stage sizes itself", "give stage_layers or stage_rule, not both");
  const bool rule_replaced = both && from_set("stage_layers");
  const bool layers_replaced = both && from_set("stage_rule");
  std::vector<int64_t> layers;
  if (!layers_replaced) layers = m.i64_list("stage_layers");
  else (void)m.raw("stage_layers");  // read, replaced by the --set rule
  for (size_t k = 0; k < layers.size(); ++k) {
    const int64_t l = layers[k];
    // Beyond an int the value was truncated (4294967312 read as 16) before 2026-12-03.
    // At the entry itself (parallel.stage_layers.K, its own line or "(--set)"), as a type error
    // is: the whole list had been named (review of 2026-12-06).
    if (l > INT32_MAX || l < INT32_MIN) {
      const YAML::Mark mk = m.raw("stage_layers")[k].Mark();
      const std::string key = m.key_path("stage_layers") + "." + std::to_string(k);
      throw Error(mk.line < 0 ? SourceLocation{m.file() + " (--set)", 0, 0, key} : SourceLocation{m.file(), mk.line + 1, mk.column + 1, key},
                  "entry " + std::to_string(l) + " is out of range (a layer count)");
    }
    p.stage_layers.push_back(static_cast<int>(l));
  }
  p.stage_rule = m.choice("stage_rule", {"even", "fewer-first-last"}, "even");
  if (rule_replaced) p.stage_rule = "even";  // the --set stage sizes replace the file's rule
  if (auto o = m.opt_map("overlap")) {
    p.overlap_grad_reduce_stated = o->has("grad_reduce");
    p.overlap_grad_reduce = o->boolean("grad_reduce", true);
    p.overlap_param_gather = o->boolean("param_gather", true);
    p.tp_comm_overlap = o->boolean("tp_comm", false);
    p.tp_backward_overlap_stated = o->has("tp_backward");
    p.tp_backward_overlap = o->boolean("tp_backward", base.tp_backward_overlap);
    p.tp_backward_overlap_changed = p.tp_backward_overlap != base.tp_backward_overlap;
    // DualPipe runs each forward beside a backward of the other chunk, one micro-batch's expert
    // all-to-all under the other's compute: overlapped by default under dualpipev.
    p.ep_comm_overlap_stated = o->has("ep_comm");
    p.ep_comm_overlap = o->boolean("ep_comm", p.schedule == "dualpipev");
    o->finish();
  } else if (p.schedule == "dualpipev") {
    p.ep_comm_overlap = true;
  }
  p.grad_bucket_stated = m.has("grad_bucket_mb");
  const double bucket_mb = m.f64("grad_bucket_mb", 80.0);
  // Bounded before the conversion (1e308 MB overflowed to infinity and read as "not finite").
  if (!(bucket_mb > 0) || !(bucket_mb <= 1e9))
    m.fail("grad_bucket_mb", "must be a size in MB from above 0 to 1e9, at 2 bytes per element (default 80: Megatron-core's 40M elements)");
  p.grad_bucket_bytes = bucket_mb * 1e6;
  p.zero3_keys_stated = m.has("zero3_gather") || m.has("zero3_regather_for_recompute") || m.has("zero3_max_live_params");
  p.zero3_max_live_params = m.f64("zero3_max_live_params", base.zero3_max_live_params);
  if (!(p.zero3_max_live_params >= 0) || !(p.zero3_max_live_params <= 1e15))
    m.fail("zero3_max_live_params", "must be a number of parameters from 0 (whole layers) to 1e15 (DeepSpeed's stage3_max_live_parameters)");
  p.zero3_gather = m.choice("zero3_gather", {"layer", "tensor"}, base.zero3_gather);
  p.zero3_regather_for_recompute = m.boolean("zero3_regather_for_recompute", base.zero3_regather_for_recompute);
  p.zero3_keys_changed = p.zero3_gather != base.zero3_gather || p.zero3_regather_for_recompute != base.zero3_regather_for_recompute ||
                         p.zero3_max_live_params != base.zero3_max_live_params;
  p.zero3_changed_keys.clear();
  for (const auto& [key, changed] : {std::pair<const char*, bool>{"zero3_gather", p.zero3_gather != base.zero3_gather},
                                     {"zero3_regather_for_recompute", p.zero3_regather_for_recompute != base.zero3_regather_for_recompute},
                                     {"zero3_max_live_params", p.zero3_max_live_params != base.zero3_max_live_params}})
    if (changed) p.zero3_changed_keys += (p.zero3_changed_keys.empty() ? "" : " / ") + std::string(key);
  p.zero2_grad_sync = m.choice("zero2_grad_sync", {"micro_batch", "step"}, base.zero2_grad_sync);
  p.collective_nic_aggregation = m.boolean("collective_nic_aggregation", base.collective_nic_aggregation);
  p.collective_nic_aggregation_changed = p.collective_nic_aggregation != base.collective_nic_aggregation;
  // NCCL_ALGO's choice, by name (2026-12-06: the algorithms were chosen by name in code only, a
  // what-if such as "NVLS off" or "ring only" had no key).
  if (m.has("collective_algorithms")) {
    const std::vector<std::string> valid{"ring", "tree", "nvls"};
    p.collective_algorithms.clear();
    for (const auto& name : m.str_list("collective_algorithms")) {
      if (std::find(valid.begin(), valid.end(), name) == valid.end())
        m.fail("collective_algorithms", "unknown algorithm '" + name + "'", valid_choices_hint(name, valid));
      if (std::find(p.collective_algorithms.begin(), p.collective_algorithms.end(), name) != p.collective_algorithms.end())
        m.fail("collective_algorithms", "names '" + name + "' twice");
      p.collective_algorithms.push_back(name);
    }
    if (std::find(p.collective_algorithms.begin(), p.collective_algorithms.end(), "ring") == p.collective_algorithms.end())
      m.fail("collective_algorithms", "leaves out ring",
             "list ring (with tree and/or nvls): it carries every all-gather, reduce-scatter and broadcast, and the groups tree "
             "(across nodes only) and nvls (inside one NVLink domain with in-network reduction) cannot");
  }
  p.moe_dispatcher = m.choice("moe_dispatcher", moe_dispatcher_names(), base.moe_dispatcher);
  for (const auto& [key, v] : {std::pair<const char*, int>{"tp", p.tp}, {"pp", p.pp}, {"cp", p.cp}, {"ep", p.ep},
                               {"etp", p.etp}, {"vpp", p.vpp}})
    if (v < 1) m.fail(key, "must be at least 1, got " + std::to_string(v));
  // dp is derived from num_gpus when left out; written, it is a degree as the others (0 was taken
  // as "derive" and ran dp 16).
  if (m.has("dp") && p.dp < 1) m.fail("dp", "must be at least 1, got " + std::to_string(p.dp), "or leave it out: num_gpus / (tp*pp*cp)");
  if (p.zero_stage < 0 || p.zero_stage > 3) m.fail("zero_stage", "must be 0, 1, 2 or 3");
  m.finish();
  return p;
}

// fw: the scenario's framework (nullptr when it names none): its gradient dtype and MoE router
// weighting, where set, are the defaults.
static TrainingConfig parse_training(const YamlMap& m, const Framework* fw, bool moe_model, bool mla_model, double model_capacity_factor,
                                     bool dropout_default) {
  const std::string fw_grad_dtype = fw ? fw->grad_reduce_dtype.value : std::string();
  const std::string fw_weighting = fw && !fw->moe_router_weighting.value.empty() ? fw->moe_router_weighting.value : "at_combine";
  TrainingConfig t;
  t.global_batch = m.i64("global_batch");
  t.micro_batch_given = m.has("micro_batch");
  t.micro_batch = m.i32("micro_batch", 1);
  t.seq_len = m.i32("seq_len");
  const auto prec = m.choice("precision", {"fp32", "tf32", "bf16", "fp16", "fp8", "fp4"}, "bf16");
  t.precision = parse_dtype(prec, m.loc("precision"));
  const auto rc = m.choice("recompute", {"none", "selective", "full"}, "none");
  t.recompute = rc == "full" ? Recompute::Full : rc == "selective" ? Recompute::Selective : Recompute::None;
  if (m.has("recompute_modules")) {
    if (t.recompute != Recompute::Selective)
      m.fail("recompute_modules", "names the modules of selective recompute, but recompute is '" + rc + "'",
             "set training.recompute: selective");
    const auto& names = recompute_module_names();
    t.recompute_modules = 0;
    for (const auto& name : m.str_list("recompute_modules")) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end())
        m.fail("recompute_modules", "unknown module '" + name + "'", valid_choices_hint(name, names));
      const uint32_t bit = 1u << static_cast<uint32_t>(it - names.begin());
      if (t.recompute_modules & bit) m.fail("recompute_modules", "names '" + name + "' twice");
      t.recompute_modules |= bit;
    }
    if (t.recompute_modules == 0) m.fail("recompute_modules", "is empty", "list at least one module, or set recompute: none");
    if ((t.recompute_modules & (kRecomputeMoeAct | kRecomputeSharedExperts | kRecomputeMoe)) && !moe_model)
      m.fail("recompute_modules", "moe_act, shared_experts and moe apply to MoE models only");
    if ((t.recompute_modules & kRecomputeMlaUpProj) && !mla_model)
      m.fail("recompute_modules", "mla_up_proj applies to models with multi-head latent attention (DeepSeek-V2/V3) only");
  }
  for (const char* key : {"recompute_method", "recompute_num_layers"})
    if (m.has(key) && t.recompute != Recompute::Full)
      m.fail(key, "applies to full recompute, but recompute is '" + rc + "'", "set training.recompute: full");
  t.recompute_block = m.choice("recompute_method", {"uniform", "block"}, "uniform") == "block";
  t.recompute_num_layers = m.i32("recompute_num_layers", 1);
  if (t.recompute_num_layers < (t.recompute_block ? 0 : 1))
    m.fail("recompute_num_layers", t.recompute_block ? "must be >= 0 (layers recomputed per model chunk)"
                                                     : "must be >= 1 (layers per recomputed group)");
  t.optimizer = m.choice("optimizer", {"adam", "sgd"}, "adam");
  t.optimizer_moments = parse_dtype(m.choice("optimizer_moments", {"fp32", "bf16"}, "fp32"), m.loc("optimizer_moments"));
  t.flash_attention = m.boolean("flash_attention", fw ? framework_has_flash_attention(*fw) : true);
  t.dropout = m.boolean("dropout", dropout_default);
  const double fw_attention = fw && fw->attention_peak_fraction.known ? fw->attention_peak_fraction.value : 0.0;
  if (m.has("attention_peak_fraction")) {
    t.attention_peak_fraction = m.f64("attention_peak_fraction");
    if (!(t.attention_peak_fraction > 0 && t.attention_peak_fraction <= 1))
      m.fail("attention_peak_fraction", "must be a fraction of the accelerator's dense 16-bit peak in (0, 1]",
             "e.g. 0.325 for FlashAttention 1 on an A100 (25-40% of peak); omit it for the accelerator's attention rate");
  } else {
    t.attention_peak_fraction = fw_attention;
  }
  const std::string grad_default = !fw_grad_dtype.empty() ? fw_grad_dtype : t.precision == DType::FP16 ? "fp16" : "fp32";
  t.grad_reduce_dtype_stated = m.has("grad_reduce_dtype");
  const auto grad = m.choice("grad_reduce_dtype", {"fp32", "bf16", "fp16"}, grad_default);
  t.grad_reduce_dtype = parse_dtype(grad, m.loc("grad_reduce_dtype"));
  t.moe_weighting_in_expert = m.choice("moe_router_weighting", {"in_expert", "at_combine"}, fw_weighting) == "in_expert";
  t.fp8_recipe = m.choice("fp8_recipe", fp8_recipe_names(), "delayed");
  // MoE routing load (docs/models.md, MoE load): dropless by default, balanced by default.
  for (const char* key : {"moe_load_imbalance", "moe_capacity_factor", "moe_pad_to_capacity", "moe_fp8_dispatch", "moe_router_weighting"})
    if (m.has(key) && !moe_model) m.fail(key, "the model has no experts: this key applies to MoE models only");
  t.moe_load_imbalance = m.f64("moe_load_imbalance", 1.0);
  // The model's own capacity factor (its catalog entry's moe.capacity_factor, which infer reads
  // too) unless the training states one: a model entry's 1.0 had been accepted and left unused
  // by estimate, 2026-12-04 review. Below 1 it is no capacity a training run can take.
  t.moe_capacity_factor = m.f64("moe_capacity_factor", model_capacity_factor >= 1.0 ? model_capacity_factor : 0.0);
  t.moe_capacity_factor_stated = m.has("moe_capacity_factor");
  t.moe_pad_to_capacity = m.boolean("moe_pad_to_capacity", false);
  t.moe_fp8_dispatch = m.boolean("moe_fp8_dispatch", false);
  if (!(t.moe_load_imbalance >= 1.0) || !std::isfinite(t.moe_load_imbalance))
    m.fail("moe_load_imbalance", "must be a finite ratio >= 1 (the busiest expert-parallel rank's token-expert pairs over the mean; 1 = balanced)");
  if (!(t.moe_capacity_factor >= 0.0) || !std::isfinite(t.moe_capacity_factor) || (t.moe_capacity_factor > 0 && t.moe_capacity_factor < 1.0))
    m.fail("moe_capacity_factor", "must be 0 (dropless) or a finite factor >= 1 (token drop: each expert takes at most this multiple of its mean share)");
  if (t.moe_pad_to_capacity && t.moe_capacity_factor == 0.0)
    m.fail("moe_pad_to_capacity", "padding to capacity needs a capacity: set training.moe_capacity_factor");
  if (t.global_batch < 1) m.fail("global_batch", "must be at least 1, got " + std::to_string(t.global_batch));
  if (t.micro_batch < 1) m.fail("micro_batch", "must be at least 1, got " + std::to_string(t.micro_batch));
  if (t.seq_len < 1) m.fail("seq_len", "must be at least 1, got " + std::to_string(t.seq_len));
  // Tokens per step are int64 (global_batch x seq_len): 9.2e18 sequences wrapped to a negative
  // throughput before 2026-12-03. 2^53 tokens is far beyond any run and exact in a double.
  constexpr int64_t kMaxTokens = int64_t{1} << 53;
  if (t.global_batch > kMaxTokens / t.seq_len)
    m.fail("global_batch", "global_batch x seq_len exceeds 2^53 tokens per step");
  m.finish();
  return t;
}

// The keys of the parallel: and training: sections, as their readers ask for them (an empty
// section: every optional key is asked about; training's required keys given placeholders).
static std::vector<std::string> section_keys(const std::string& section) {
  YAML::Node n(YAML::NodeType::Map);
  if (section == "training") {
    n["global_batch"] = 1;
    n["seq_len"] = 1;
  }
  YamlMap m(n, "(keys)", section);
  try {
    if (section == "parallel") (void)parse_plan(m, ParallelPlan{}, true);
    else (void)parse_training(m, nullptr, true, true, 0.0, false);
  } catch (const Error&) {
    // a reader stopping early leaves the keys asked so far
  }
  return m.known_keys();
}

// Rethrows e; an "unknown key" error whose key belongs to another section (or the top level)
// gets a hint naming where it goes.
[[noreturn]] static void rethrow_with_section_hint(const Error& e, const std::string& here, const YamlMap& root) {
  if (e.message() != "unknown key") throw e;
  const std::string& path = e.where().key;
  const std::string key = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  auto has = [&](const std::vector<std::string>& keys) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  for (const std::string other : {"parallel", "training", ""}) {
    if (other == here) continue;
    if (other.empty() ? has(root.known_keys()) : has(section_keys(other))) {
      const std::string where = other.empty() ? "the top level" : other + ":";
      throw Error(e.where(), "unknown key", "'" + key + "' is a key of " + where + ", not of " + (here.empty() ? "the top level" : here + ":") +
                                                " (" + (other.empty() ? key : other + "." + key) + ")");
    }
  }
  throw e;
}

static void check_own_plan(Scenario& s, const YamlMap& root);
[[noreturn]] static void rethrow_at_key_line(const Error& e, const YamlMap& root);

// The node of a dotted key below root, through mappings and, by index, lists
// (parallel.stage_layers.3); undefined where the path leads nowhere. `through_list`: a list was
// indexed on the way. Reads keys already read (raw marks them used).
// An index may also be written as the error messages write it (hardware.accelerators[0].memory_gib).
// `deepest`: the last node the path reached (the list entry of a field it lacks).
static YAML::Node node_at(const YamlMap& root, const std::string& dotted_in, bool* through_list = nullptr, YAML::Node* deepest = nullptr) {
  if (through_list) *through_list = false;
  std::string dotted;
  for (const char c : dotted_in)
    if (c == '[') dotted += '.';
    else if (c != ']') dotted += c;
  const auto dot = dotted.find('.');
  const std::string head = dotted.substr(0, dot);
  if (!root.has(head)) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node n = root.raw(head);
  if (deepest) deepest->reset(n);
  std::string rest = dot == std::string::npos ? std::string() : dotted.substr(dot + 1);
  while (!rest.empty()) {
    const auto d = rest.find('.');
    const std::string part = rest.substr(0, d);
    rest = d == std::string::npos ? std::string() : rest.substr(d + 1);
    // const: operator[] reads, it does not create; reset, not `=`, which would write the child
    // into the parent's place in the document (yaml-cpp's assignment).
    const YAML::Node here = n;
    const bool index = here.IsSequence() && !part.empty() && part.size() < 10 && part.find_first_not_of("0123456789") == std::string::npos;
    if (index && through_list) *through_list = true;
    // Copy-constructed (a key the map lacks is an invalid node, which assignment and reset refuse).
    const YAML::Node child = here.IsMap() ? here[part]
                             : index && std::stoul(part) < here.size() ? here[std::stoul(part)]
                                                                       : YAML::Node(YAML::NodeType::Undefined);
    if (!child.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    n.reset(child);
    if (deepest) deepest->reset(n);
  }
  return n;
}

// Whether an override (--set) wrote the dotted key (a node of no position in the file).
static bool written_by_set(const YamlMap& root, const std::string& dotted) {
  const YAML::Node n = node_at(root, dotted);
  return n.IsDefined() && n.Mark().line < 0;
}

// Where a dotted key is: an entry of a list (parallel.stage_layers.3) at its own line, or
// "FILE (--set)" when an override wrote it (review of 2026-12-06: the list's line had been
// named, without the index); any other key as root.locate finds it.
// A field of a list's entry (hardware.accelerators[0].memory_gib) at its own line too, a sourced
// value whose number an override wrote as "FILE (--set)", and a field the entry lacks at the
// entry's line (review of 2026-12-06: an inline accelerator's memory_gib had been named as the
// list, "key 'hardware.accelerators'" at the list's line, whether the file or a --set wrote it).
static SourceLocation locate_key(const YamlMap& root, const std::string& dotted) {
  bool through_list = false;
  YAML::Node deepest(YAML::NodeType::Undefined);
  const YAML::Node n = node_at(root, dotted, &through_list, &deepest);
  const bool indexed = through_list || dotted.find('[') != std::string::npos;
  if (!indexed) return root.locate(dotted);
  const YAML::Node at = n.IsDefined() ? n : deepest;
  if (!at.IsDefined()) return root.locate(dotted);
  YAML::Mark mk = at.Mark();
  if (n.IsDefined() && n.IsMap() && n["value"].IsDefined() && n["value"].Mark().line < 0) mk = n["value"].Mark();
  if (mk.line < 0) return SourceLocation{root.file() + " (--set)", 0, 0, root.key_path(dotted)};
  return SourceLocation{root.file(), mk.line + 1, mk.column + 1, root.key_path(dotted)};
}
static void check_stage_layers(const std::vector<int>& stage_layers, int64_t nstages, int64_t layers, const SourceLocation& where_in);

static Scenario parse_root_keys(const YamlMap& root, const Catalog& cat, bool for_search);

// A scenario's errors, with the near miss of a top-level key first: "hardwre:" had been reported
// as the unknown accelerator its inline entry defines, "num_gpu" as the unknown system beside it
// (docs/errors.md: a near miss is reported even when another check would have failed first;
// review of 2026-12-05).
static Scenario parse_root(const YamlMap& root, const Catalog& cat, bool for_search = false) {
  try {
    return parse_root_keys(root, cat, for_search);
  } catch (const Error&) {
    root.check_typos({"name", "model", "hardware", "system", "accelerator", "num_gpus", "framework", "parallel", "training", "seed"});
    throw;
  }
}

static Scenario parse_root_keys(const YamlMap& root, const Catalog& cat, bool for_search) {
  Scenario s;
  s.file = root.file();
  s.name = root.str("name", fs::path(root.file()).stem().string());
  // A blank name labels nothing (the result's scenario read as empty, 2026-12-05 review).
  if (s.name.find_first_not_of(" \t") == std::string::npos) root.fail("name", "is empty", "leave it out to use the file's name");
  // model: catalog id, file path or inline mapping
  if (root.has("model") && root.raw("model").IsMap()) {
    const YamlMap inline_model = root.map("model");
    s.model = parse_model(inline_model);
    // As for inline hardware: an inline model with a catalog id ran with the inline figures under
    // the catalog model's name (layers 40 as "llama3-70b": 4.5 s where the model takes 8.6 s;
    // review of 2026-12-06).
    if (cat.has_model(s.model.id))
      inline_model.fail("id", "model '" + s.model.id + "' is already in the catalog; an inline entry needs an id of its own",
                        "name it, e.g., '" + s.model.id + "-custom', or write model: " + s.model.id + " for the catalog's");
  } else {
    s.model = load_model_ref(cat, root.str("model"), root.loc("model"));
  }
  // system: catalog id or inline mapping; inline accelerators and networks may come with it
  Catalog local = cat;
  std::set<std::string> acc_ids, net_ids;  // inline hardware ids
  if (auto hw = root.opt_map("hardware")) {
    // An id given twice in one list is an error (it had silently taken the last; docs/catalog.md).
    int index = 0;
    for (auto& a : hw->map_list("accelerators")) {
      Accelerator x = parse_accelerator(a, {});
      if (!acc_ids.insert(x.id).second) a.fail("id", "accelerator '" + x.id + "' is given twice in hardware.accelerators");
      s.inline_accelerator_keys[x.id] = "hardware.accelerators[" + std::to_string(index++) + "]";
      // An inline entry with a catalog id would replace the catalog's silently, and the result
      // would carry the catalog part's name and validated figures (review of 2026-12-04).
      if (cat.has_accelerator(x.id))
        a.fail("id", "accelerator '" + x.id + "' is already in the catalog; an inline entry needs an id of its own",
               "name it, e.g., '" + x.id + "-custom', and refer to it with accelerator: or from an inline system");
      local.add(std::move(x));
    }
    for (auto& n : hw->map_list("networks")) {
      NetworkTech x = parse_network(n, {});
      if (!net_ids.insert(x.id).second) n.fail("id", "network '" + x.id + "' is given twice in hardware.networks");
      if (cat.has_network(x.id))
        n.fail("id", "network '" + x.id + "' is already in the catalog; an inline entry needs an id of its own",
               "name it, e.g., '" + x.id + "-custom', and refer to it from an inline system");
      local.add(std::move(x));
    }
    hw->finish();
  }
  // Where a system's reference is written: its own key in an inline system (system.scale_up.network),
  // the system: line for a catalog one (errors had pointed at an inline system's first key).
  const bool inline_system = root.has("system") && root.raw("system").IsMap();
  auto system_loc = [&](const std::string& sub) { return inline_system ? root.locate("system." + sub) : root.loc("system"); };
  if (inline_system) {
    const YamlMap inline_sys = root.map("system");
    s.system = parse_system(inline_sys, {});
    // (an inline dgx-h100 with another network read as the catalog's system; review of 2026-12-06)
    if (cat.has_system(s.system.id))
      inline_sys.fail("id", "system '" + s.system.id + "' is already in the catalog; an inline entry needs an id of its own",
                      "name it, e.g., '" + s.system.id + "-custom', or write system: " + s.system.id + " for the catalog's");
  } else {
    const auto id = root.str("system");
    if (!local.has_system(id))
      throw Error(root.loc("system"), "unknown system '" + id + "'", valid_choices_hint(id, local.system_ids()));
    s.system = local.system(id);
  }
  // `--set accelerator.memory_bandwidth_bytes_per_s=...` (sweep's key) makes the id a map: say how
  // to change one figure of a part (it read "expected a string"; 2026-12-05 review).
  if (root.has("accelerator") && root.raw("accelerator").IsMap())
    root.fail("accelerator", "is a catalog id or an accelerator file, not a set of figures: " +
                                 std::string("one figure of a catalog part cannot be changed in place"),
              "vary it with `sextant sweep SCENARIO --vary accelerator.<key>=V` (one value is a one-point sweep; "
              "`sextant sweep --help` lists the keys), or describe the part inline under hardware.accelerators with an id of its own "
              "and name it with accelerator: (docs/scenario.md)");
  const std::string acc_id = root.str("accelerator", s.system.accelerator);
  if (!local.has_accelerator(acc_id) && !root.has("accelerator"))
    throw Error(system_loc("accelerator"), "unknown accelerator '" + acc_id + "'", valid_choices_hint(acc_id, local.accelerator_ids()));
  // A catalog id, or the path of an accelerator file (what `sextant calibrate --out` writes).
  s.accelerator = load_accelerator_ref(local, acc_id, root.loc("accelerator"));
  // An inline system's node power is checked against its boards as a catalog one is (a node of
  // 3,000 W for eight 700 W boards had been taken for an unknown power, 2026-12-05 review).
  if (inline_system && s.accelerator.id == s.system.accelerator) check_node_power(s.system, s.accelerator, system_loc("node_power_w"));
  if (!local.has_network(s.system.scale_up_network))
    throw Error(system_loc("scale_up.network"), "unknown network '" + s.system.scale_up_network + "'",
                valid_choices_hint(s.system.scale_up_network, local.network_ids()));
  s.scale_up = local.network(s.system.scale_up_network);
  if (!s.system.scale_out_network.empty()) {
    if (!local.has_network(s.system.scale_out_network))
      throw Error(system_loc("scale_out.network"), "unknown network '" + s.system.scale_out_network + "'",
                  valid_choices_hint(s.system.scale_out_network, local.network_ids()));
    s.scale_out = local.network(s.system.scale_out_network);
  }
  // Each network's kind and bandwidth at its own key, the scale-up one alone first, as the catalog
  // names them: an inline system's had been named at its `system:` line (review of 2026-12-07).
  check_system_networks(s.system, s.scale_up, nullptr, system_loc("scale_up.network"));
  if (s.scale_out) check_system_networks(s.system, s.scale_up, &*s.scale_out, system_loc("scale_out.network"));
  for (const auto& id : acc_ids)
    if (id != s.accelerator.id) s.unused_inline_hardware.push_back("accelerator " + id);
  for (const auto& id : net_ids)
    if (id != s.system.scale_up_network && id != s.system.scale_out_network) s.unused_inline_hardware.push_back("network " + id);
  s.num_gpus = root.i32("num_gpus");
  if (s.num_gpus < 1) root.fail("num_gpus", "must be at least 1, got " + std::to_string(s.num_gpus));
  // Without a scale-out network the GPUs beyond one scale-up domain have no fabric, even within a
  // node (a domain of 2 on an 8-GPU node was costed at NVLink rates before 2026-12-03).
  if (const int domain = s.system.scale_up_domain; !s.scale_out && s.num_gpus > domain)
    root.fail("num_gpus",
              "system '" + s.system.id + "' has no scale-out network, so it holds at most " + std::to_string(domain) +
                  " GPUs (one scale-up domain); got " + std::to_string(s.num_gpus),
              "choose a system with a scale-out network (catalog list systems), or give the system a scale_out network");
  ParallelPlan base;
  if (root.has("framework")) {
    s.framework = root.str("framework");
    if (!cat.has_framework(s.framework))
      throw Error(root.loc("framework"), "unknown framework '" + s.framework + "'",
                  valid_choices_hint(s.framework, cat.framework_ids()));
    apply_framework_defaults(base, cat.framework(s.framework));
  }
  root.reject_blank("parallel");  // `parallel:` without a value ran the default plan (before 2026-12-03)
  root.raw("parallel");  // an optional key: known to the unknown-key check even when absent
  const bool fw_sp = s.framework.empty() || framework_has_sequence_parallel(cat.framework(s.framework));
  // A key unknown in its section but known in another (`training: {tp: 8}`, a top-level `tp`) is
  // named with the section it belongs to (it listed only its own section's keys).
  auto in_section = [&](const char* here, auto&& parse) {
    try {
      parse();
    } catch (const Error& e) {
      rethrow_with_section_hint(e, here, root);
    }
  };
  in_section("parallel", [&] {
    s.plan = root.has("parallel") ? parse_plan(root.map("parallel"), base, fw_sp)
                                  : parse_plan(YamlMap(YAML::Node(YAML::NodeType::Map), root.file(), "parallel"), base, fw_sp);
  });
  in_section("training", [&] {
    const Framework* fw = s.framework.empty() ? nullptr : &cat.framework(s.framework);
    s.train = parse_training(root.map("training"), fw, s.model.moe.has_value(), s.model.mla.has_value(),
                             s.model.moe ? s.model.moe->capacity_factor : 0.0, dropout_default(s.model, fw));
  });
  const int64_t seed = root.i64("seed", 0);
  if (seed < 0) root.fail("seed", "must be an integer from 0 to 2^63-1");
  s.seed = static_cast<uint64_t>(seed);
  in_section("", [&] { root.finish(); });
  if (for_search) {
    try {
      check_own_plan(s, root);
    } catch (const Error& e) {
      // Only the plan's own faults (its degrees against the GPUs and the model, its micro-batch
      // against the batch); the job's (a sequence beyond the model's positions) stay errors.
      const std::string& key = e.where().key;
      const bool plan_key = key == "parallel" || key.rfind("parallel.", 0) == 0 || key == "num_gpus" || key == "training.micro_batch" ||
                            key == "training.global_batch";
      if (!plan_key) throw;
      s.invalid_plan = e.what();
      ParallelPlan& p = s.plan;
      p.tp = p.pp = p.cp = p.ep = p.etp = p.vpp = 1;
      p.dp = s.num_gpus;
      p.schedule = "1f1b";
      p.stage_layers.clear();
      p.idle_pipeline.clear();
      // The job's own checks, over one GPU with the placeholder, as for a job without a file.
      Scenario one = s;
      one.num_gpus = 1;
      one.plan.dp = 1;
      one.train.micro_batch = 1;
      try {
        check_plan(one, root.loc("parallel"));
      } catch (const Error& job) {
        rethrow_at_key_line(job, root);  // at its own line, as estimate names it
      }
    }
    return s;
  }
  check_own_plan(s, root);
  return s;
}

// The derived data-parallel degree and the plan's checks, errors at the keys' own lines.
static void check_own_plan(Scenario& s, const YamlMap& root) {
  // Derived dp.
  // In 64 bits: tp 65536 x pp 65536 wrapped an int to 0 and divided by it (before 2026-12-03).
  const int128 inner128 = static_cast<int128>(s.plan.tp) * s.plan.pp * s.plan.cp;
  if (s.plan.dp == 0) {
    const bool exceeds = inner128 > s.num_gpus;
    // A tp that cannot split the attention heads is the plan's fault whatever the GPU count: say
    // so first (the GPU count had been blamed, and after changing it the heads were, 2026-12-03).
    if (!exceeds && s.num_gpus % static_cast<int64_t>(inner128) != 0 && (s.model.heads % s.plan.tp != 0 || s.model.kv_heads % s.plan.tp != 0))
      throw Error(root.locate("parallel.tp"),
                  "tp = " + std::to_string(s.plan.tp) + " does not divide the " + std::to_string(s.model.heads) + " attention heads and " +
                      std::to_string(s.model.kv_heads) + " key/value heads of " + s.model.id + " (and num_gpus " +
                      std::to_string(s.num_gpus) + " is not divisible by tp*pp*cp = " + int128_text(inner128) + ")",
                  // Those that also divide the GPUs left by pp*cp (8 had been offered on 4 GPUs,
                  // then refused as tp*pp*cp > num_gpus; review of 2026-12-06).
                  "choose parallel.tp among the common divisors of the heads that divide the " +
                      std::to_string(s.num_gpus / (static_cast<int64_t>(s.plan.pp) * s.plan.cp)) + " GPUs left by pp*cp: " +
                      divisors_text_where(std::gcd(s.model.heads, s.model.kv_heads), [&](int64_t d) {
                        return s.num_gpus % (d * s.plan.pp * s.plan.cp) == 0;
                      }));
    if (exceeds || s.num_gpus % static_cast<int64_t>(inner128) != 0) {
      // Named by the key an override (--set) changed, with the values of it that fit: a degree
      // set, the largest first, else num_gpus; in the file, the largest degree where the product
      // exceeds the GPUs, num_gpus where it does not divide them. The error had pointed at the
      // file's `parallel:` line whatever the --set (review of 2026-12-06), and a product that does
      // not divide the GPUs (--set parallel.pp=3 over 1,024) at the file's num_gpus line, with no
      // pp that fits (review of 2026-12-07).
      const ParallelPlan& p = s.plan;
      const std::vector<std::pair<std::string, int>> degrees{{"tp", p.tp}, {"pp", p.pp}, {"cp", p.cp}};
      std::string key;
      int widest = 0;
      for (const auto& [k, v] : degrees)
        if (written_by_set(root, "parallel." + k) && v > widest) key = k, widest = v;
      if (key.empty() && (written_by_set(root, "num_gpus") || !exceeds)) key = "num_gpus";
      if (key.empty())
        for (const auto& [k, v] : degrees)
          if (v > widest) key = k, widest = v;
      // The GPUs left to the named degree by the other two, and the values that divide them and
      // keep the degree's own rules (heads for tp, layers for pp, the sequence's 2*cp chunks for cp).
      auto others = [&](const std::string& k) {
        int128 prod = 1;
        for (const auto& [o, v] : degrees)
          if (o != k) prod *= v;
        return prod;
      };
      const int64_t stages_max = s.model.layers + (p.stage_layers.empty() ? 0 : 2);
      auto keeps_own_rule = [&](const std::string& k, int64_t d) {
        if (k == "tp") return s.model.heads % d == 0 && s.model.kv_heads % d == 0 && (s.model.all_layers_moe() || s.model.ffn_hidden % d == 0);
        if (k == "pp") {
          const int64_t n = d * p.vpp;
          if (!p.stage_layers.empty() || n == 1) return n <= stages_max;
          return p.stage_rule == "fewer-first-last" ? (s.model.layers + 2) % n == 0 && n <= s.model.layers : s.model.layers % n == 0;
        }
        return d == 1 || s.train.seq_len % (2 * d) == 0;  // cp
      };
      // A degree other than the named one that breaks its own rule is named first, the more
      // fundamental fault: the values listed for the named one would all fail on it (tp 32 over 8
      // key/value heads with --set parallel.pp=64 had been answered "parallel.pp among 1, 2, 4, 8,
      // 16", each then refused for the tp; review of 2026-12-06). tp first, then cp, then pp.
      std::string message = exceeds ? "tp*pp*cp = " + int128_text(inner128) + " exceeds num_gpus = " + std::to_string(s.num_gpus)
                                    : "num_gpus " + std::to_string(s.num_gpus) + " is not divisible by tp*pp*cp = " + int128_text(inner128);
      for (const std::string k : {"tp", "cp", "pp"}) {
        const int v = k == "tp" ? p.tp : k == "cp" ? p.cp : p.pp;
        if (k == key || keeps_own_rule(k, v)) continue;
        const std::string also = " (and " + message + ")";
        const int64_t n = static_cast<int64_t>(p.pp) * p.vpp;
        if (k == "tp")
          message = "tp = " + std::to_string(v) + " does not divide the " +
                    (s.model.heads % v != 0     ? std::to_string(s.model.heads) + " attention heads of " + s.model.id
                     : s.model.kv_heads % v != 0 ? std::to_string(s.model.kv_heads) + " key/value heads of " + s.model.id +
                                                       " (Megatron-Core splits the query groups over tp)"
                                                 : "FFN width " + std::to_string(s.model.ffn_hidden) + " of " + s.model.id) +
                    also;
        else if (k == "cp")
          message = "seq_len " + std::to_string(s.train.seq_len) + " must be divisible by 2*cp = " + std::to_string(2 * static_cast<int64_t>(v)) +
                    " (load-balanced ring attention splits the sequence in 2*cp chunks)" + also;
        else if (!p.stage_layers.empty() || n > stages_max)
          message = "pp*vpp = " + std::to_string(n) + " exceeds the " + std::to_string(s.model.layers) + " layers" +
                    (p.stage_layers.empty() ? std::string() : " and the two ends") + also;
        else if (p.stage_rule == "fewer-first-last")
          message = "fewer-first-last needs pp*vpp = " + std::to_string(n) + " to divide layers+2 = " + std::to_string(s.model.layers + 2) + also;
        else
          message = "pp*vpp = " + std::to_string(n) + " does not divide the " + std::to_string(s.model.layers) + " layers" + also;
        key = k;
        break;
      }
      std::string hint = "the product of the parallel degrees must equal the GPU count";
      if (key == "num_gpus") {
        hint = exceeds ? hint + ": num_gpus a multiple of tp*pp*cp = " + int128_text(inner128) + ", or smaller degrees"
                       : "choose num_gpus as a multiple of " + int128_text(inner128) + " or change the plan";
      } else {
        const int128 rest = others(key);
        // No value of the named degree fits where the other two alone exceed the GPUs or do not
        // divide them.
        const int64_t left = rest > s.num_gpus || s.num_gpus % rest != 0 ? 0 : static_cast<int64_t>(s.num_gpus / rest);
        const std::string values =
            left > 0 ? divisors_text_where(left, [&](int64_t d) { return s.num_gpus % (rest * d) == 0 && keeps_own_rule(key, d); })
            : rest > s.num_gpus
                ? std::string("none (the other degrees alone exceed the GPUs)")
                : "none (the other degrees' product " + int128_text(rest) + " does not divide the " + std::to_string(s.num_gpus) + " GPUs)";
        hint += ": parallel." + key + " among " + values;
        if (left > 0)
          hint += " (the divisors of the " + std::to_string(left) + " GPUs left by the other degrees" +
                  (key == "tp" ? std::string(" that split the heads") : key == "pp" ? std::string(" that lay out the layers") : std::string(" that split the sequence")) +
                  ")";
        hint += exceeds ? ", or a larger num_gpus" : ", or num_gpus a multiple of " + int128_text(inner128);
        key = "parallel." + key;
      }
      throw Error(root.locate(key), message, hint);
    }
    const int64_t inner = static_cast<int64_t>(inner128);
    s.plan.dp = static_cast<int>(s.num_gpus / inner);
  }
  try {
    // Without a pipeline a schedule or vpp runs as one stage, with a note: normalised before the
    // plan's checks (interleaved-1f1b's vpp >= 2 and pp x vpp dividing the layers had refused
    // `--set parallel.pp=1 --set parallel.vpp=1` on an interleaved file; 2026-12-04 review).
    if (s.plan.pp == 1 && (s.plan.schedule != "1f1b" || s.plan.vpp > 1)) {
      s.plan.idle_pipeline = s.plan.schedule + ", vpp " + std::to_string(s.plan.vpp);
      // DualPipeV's default EP overlap comes from its paired forward and backward: without a
      // pipeline there is none (a dualpipev file at pp 1 had kept it, 2.6% faster than the 1F1B
      // it says it runs as; review of 2026-12-05). A stated ep_comm stays.
      if (s.plan.schedule == "dualpipev" && !s.plan.ep_comm_overlap_stated) s.plan.ep_comm_overlap = false;
      // A stated list is checked against the plan as written before it is set aside with the
      // rest (an invalid list, [-5, 3] under zb-h1 at pp 1, had passed unchecked; 2026-12-05
      // review), and named in the note.
      if (!s.plan.stage_layers.empty()) {
        check_stage_layers(s.plan.stage_layers, static_cast<int64_t>(s.plan.pp) * s.plan.vpp, s.model.layers, root.loc("parallel"));
        std::string list;
        for (const int l : s.plan.stage_layers) list += (list.empty() ? "" : ", ") + std::to_string(l);
        s.plan.idle_pipeline += ", stage_layers [" + list + "]";
      }
      s.plan.schedule = "1f1b";
      s.plan.vpp = 1;
      s.plan.stage_layers.clear();
    }
    check_plan(s, root.loc("parallel"));
  } catch (const Error& e) {
    rethrow_at_key_line(e, root);
  }
}

// check_plan knows the key, not where it was written: point at the key's own line (or at
// "FILE (--set)" when an override set it), falling back to its section's.
// A nested key (parallel.overlap.tp_comm) is found in its own mapping.
[[noreturn]] static void rethrow_at_key_line(const Error& e, const YamlMap& root) {
  const std::string& key = e.where().key;
  const auto dot = key.find('.');
  // A top-level key (the accelerator a file names) at its own line: it had been named without
  // one (2026-12-05 review).
  if (dot == std::string::npos) {
    if (e.where().line == 0 && !key.empty() && root.has(key)) throw Error(root.locate(key), e.message(), e.hint());
    throw e;
  }
  const std::string section = key.substr(0, dot);
  if ((section != "parallel" && section != "training" && section != "hardware") || !root.has(section)) throw e;
  throw Error(locate_key(root, key), e.message(), e.hint());
}

std::optional<SourceLocation> scenario_key_location(const std::string& file, const std::string* text, const std::string& dotted,
                                                    const std::vector<std::string>& set_keys) {
  for (const auto& k : set_keys)
    if (k == dotted) return SourceLocation{file + " (--set)", 0, 0, dotted};
  try {
    YAML::Node n = text ? YAML::Load(*text) : YAML::LoadFile(file);
    std::string rest = dotted;
    while (true) {
      const auto dot = rest.find('.');
      const std::string part = rest.substr(0, dot);
      if (!n.IsMap() || !n[part]) return std::nullopt;
      n = n[part];
      if (dot == std::string::npos) break;
      rest = rest.substr(dot + 1);
    }
    const YAML::Mark m = n.Mark();
    if (m.line < 0) return std::nullopt;
    return SourceLocation{file, m.line + 1, m.column + 1, dotted};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A file whose lines end in CR alone (classic Mac OS) reads as one line of YAML, a scalar: said
// (the error had named no cause; review of 2026-12-05).
static std::string cr_only_hint(const std::string& text) {
  return text.find('\r') != std::string::npos && text.find('\n') == std::string::npos
             ? "the file's lines end in a carriage return alone (CR), which YAML does not read as a line break: convert them to LF or CRLF"
             : std::string();
}

// The overrides in order. An entry of a list named by its index where the file (with the
// overrides before it) has no such list: the override had made a mapping of the missing list and
// read "expected a list of integers" (`--set parallel.stage_layers.0=6` on a file without
// stage_layers; review of 2026-12-07), where goodput names the missing list.
static void apply_scenario_overrides(YAML::Node n, const std::vector<std::pair<std::string, std::string>>& overrides,
                                     const std::string& name) {
  for (const auto& [k, v] : overrides) {
    // Walk the path to its first index (key.N or key[N]), noting whether the key before it is absent.
    std::vector<std::string> parts{std::string()};
    for (const char c : k)
      if (c == '.' || c == '[') parts.emplace_back();
      else if (c != ']') parts.back() += c;
    std::string list;
    YAML::Node at = n;
    bool absent = false, missing = false;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
      if (index && i > 0) {
        missing = absent;
        break;
      }
      if (!absent) {
        if (!at.IsMap()) break;  // a scalar or a list on the way: apply_yaml_override says what is wrong
        const YAML::Node here = at;  // const: operator[] reads, it does not create
        const YAML::Node child = here[part];
        if (!child.IsDefined() || child.IsNull()) absent = true;
        else at.reset(child);
      }
      list += (list.empty() ? "" : ".") + part;
    }
    // Only a key that is a list of the scenario: another absent key is unknown, which the reader says.
    static const std::set<std::string> kLists{"parallel.stage_layers", "parallel.collective_algorithms", "training.recompute_modules",
                                              "hardware.accelerators", "hardware.networks"};
    if (missing && kLists.count(list)) {
      const bool stages = list == "parallel.stage_layers";
      // The stage list's length from the file's pp and vpp (as the overrides before this one left
      // them): a fixed four-entry example had been refused on the README's own pp 4 vpp 5 scenario
      // ("has 4 entries, expected pp*vpp = 20"; review of 2026-12-07).
      auto degree = [&](const char* key) -> long long {
        try {
          const YAML::Node p = YAML::Node(n)["parallel"];
          if (p.IsMap() && p[key] && p[key].IsScalar()) {
            const long long v = p[key].as<long long>();
            return v >= 1 && v <= 1000000 ? v : 0;
          }
          return 1;  // unstated: 1
        } catch (const std::exception&) {
          return 0;  // not an integer: the reader says so
        }
      };
      const long long pp = degree("pp"), vpp = degree("vpp");
      std::string how = "give the whole list, one layer count per pipeline stage (pp x vpp entries summing to the model's layers)";
      if (pp > 0 && vpp > 0)
        how += ": " + std::to_string(pp * vpp) + (pp * vpp == 1 ? " entry" : " entries") + " here (pp " + std::to_string(pp) + ", vpp " + std::to_string(vpp) +
               "), e.g. --set 'parallel.stage_layers=[" + (pp * vpp <= 2 ? std::string(pp * vpp == 1 ? "L" : "L1, L2") : "L1, L2, ..., L" + std::to_string(pp * vpp)) +
               "]'";
      throw Error(SourceLocation{name + " (--set)", 0, 0, k}, "the file has no " + list + " list to index",
                  stages ? how : "give the whole list, e.g. --set '" + list + "=[...]'");
    }
    apply_yaml_override(n, k, v, name);
  }
}

Scenario parse_scenario(const std::string& text, const std::string& name, const Catalog& cat,
                        const std::vector<std::pair<std::string, std::string>>& overrides) {
  YAML::Node n;
  n = parse_yaml_document(text, name);
  if (!n.IsMap()) throw Error(SourceLocation{name}, "a scenario must be a YAML mapping (model:, system:, num_gpus:, parallel:, training:)", cr_only_hint(text));
  apply_scenario_overrides(n, overrides, name);
  return parse_root(YamlMap(n, name), cat);
}

Scenario load_scenario_for_search(const std::string& path, const Catalog& cat,
                                  const std::vector<std::pair<std::string, std::string>>& overrides) {
  const std::string resolved = resolve_data_path(path);
  std::error_code ec;
  if (!fs::exists(resolved, ec)) throw Error(SourceLocation{path}, "scenario file not found" + (ec ? " (" + ec.message() + ")" : std::string()), not_found_hint(path));
  return parse_scenario_for_search(read_file(resolved), resolved, cat, overrides);
}

Scenario parse_scenario_for_search(const std::string& text, const std::string& name, const Catalog& cat,
                                   const std::vector<std::pair<std::string, std::string>>& overrides) {
  YAML::Node n = parse_yaml_document(text, name);
  if (!n.IsMap()) throw Error(SourceLocation{name}, "a scenario must be a YAML mapping (model:, system:, num_gpus:, parallel:, training:)", cr_only_hint(text));
  apply_scenario_overrides(n, overrides, name);
  return parse_root(YamlMap(n, name), cat, /*for_search=*/true);
}

Scenario parse_scenario_node(const YAML::Node& node, const std::string& file, const std::string& key_path, const Catalog& cat) {
  if (!node.IsMap())
    throw Error(SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1, key_path},
                "a scenario must be a YAML mapping (model:, system:, num_gpus:, parallel:, training:)");
  return parse_root(YamlMap(node, file, key_path), cat);
}

Scenario load_scenario(const std::string& path, const Catalog& cat,
                       const std::vector<std::pair<std::string, std::string>>& overrides) {
  const std::string resolved = resolve_data_path(path);
  std::error_code ec;
  if (!fs::exists(resolved, ec)) throw Error(SourceLocation{path}, "scenario file not found" + (ec ? " (" + ec.message() + ")" : std::string()), not_found_hint(path));
  return parse_scenario(read_file(resolved), resolved, cat, overrides);
}

// ---------------------------------------------------------------- plan checks
// A stated list of virtual-stage sizes: pp*vpp entries, none negative, an empty one only at either
// end, summing to the model's layers.
static void check_stage_layers(const std::vector<int>& stage_layers, int64_t nstages, int64_t layers, const SourceLocation& where_in) {
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    SourceLocation w = where_in;
    w.key = "parallel.stage_layers";
    throw Error(w, msg, hint);
  };
  // An entry's fault at the entry, parallel.stage_layers.K (review of 2026-12-06: the whole list
  // had been named, without the index).
  auto fail_entry = [&](size_t k, const std::string& msg, const std::string& hint = {}) {
    SourceLocation w = where_in;
    w.key = "parallel.stage_layers." + std::to_string(k);
    throw Error(w, msg, hint);
  };
  // What would be valid, with the error (review of 2026-12-06: only the count and the target had
  // been given): the entries needed, the difference to mend, and the even split of the layers.
  auto even_split = [&] {
    if (nstages <= 0 || layers < nstages) return std::string();
    const int64_t each = layers / nstages, more = layers % nstages;
    // The even rule lays out exactly this: leaving the list out is then a remedy too.
    if (more == 0)
      return "the even split is " + std::to_string(each) + " layers in each of the " + std::to_string(nstages) +
             " entries, which leaving stage_layers out gives (stage_rule even)";
    return "a near-even split is " + std::to_string(each + 1) + " layers in the first " + std::to_string(more) + " entries and " +
           std::to_string(each) + " in the other " + std::to_string(nstages - more);
  };
  auto with_split = [&](const std::string& h) {
    const std::string split = even_split();
    return h + (split.empty() ? std::string() : "; " + split);
  };
  if (static_cast<int64_t>(stage_layers.size()) != nstages) {
    const int64_t have = static_cast<int64_t>(stage_layers.size());
    fail("has " + std::to_string(have) + " entries, expected pp*vpp = " + std::to_string(nstages),
         with_split("one layer count per virtual stage: " + std::to_string(nstages) + " entries (" +
                    (have < nstages ? std::to_string(nstages - have) + " more" : std::to_string(have - nstages) + " fewer") +
                    ") summing to the model's " + std::to_string(layers) + " layers"));
  }
  for (size_t k = 0; k < stage_layers.size(); ++k) {
    const int l = stage_layers[k];
    if (l < 0) fail_entry(k, "a stage cannot have a negative layer count, got " + std::to_string(l));
    // An empty virtual stage is one that carries the embedding (the first) or the loss head (the
    // last) alone, as Megatron-Core's pipeline layouts allow ("E|t*4|...|L"); an empty stage in
    // between would relay activations and hold nothing (it was accepted, 2026-12-03 review).
    if (l == 0 && k != 0 && k + 1 != stage_layers.size())
      fail_entry(k, "virtual stage " + std::to_string(k) + " has 0 layers",
                 "only the first and the last virtual stage may hold no transformer layer (the embedding or the loss head alone)");
  }
  const int64_t sum = std::accumulate(stage_layers.begin(), stage_layers.end(), int64_t{0});
  if (sum != layers)
    fail("sums to " + std::to_string(sum) + " layers, the model has " + std::to_string(layers),
         with_split((sum < layers ? "add " + std::to_string(layers - sum) : "remove " + std::to_string(sum - layers)) +
                    " layers across the " + std::to_string(nstages) + " entries so that they sum to " + std::to_string(layers)));
}

void check_plan(const Scenario& s, const SourceLocation& where_in) {
  const auto& p = s.plan;
  const auto& m = s.model;
  auto fail_at = [&](const std::string& full_key, const std::string& msg, const std::string& hint = {}) {
    SourceLocation w = where_in;
    w.key = full_key;
    throw Error(w, msg, hint);
  };
  auto fail = [&](const std::string& key, const std::string& msg, const std::string& hint = {}) { fail_at("parallel." + key, msg, hint); };
  // In 128 bits: four degrees of up to 2^31 each wrapped 64 bits, and a product of 2^64 + 26 had
  // passed as 26 GPUs (2026-12-03 review).
  const int128 prod = static_cast<int128>(p.tp) * p.pp * p.dp * p.cp;
  if (prod != s.num_gpus) {
    // With the dp that fits and the num_gpus that matches (review of 2026-12-06: the hint had
    // named neither).
    const int128 inner = static_cast<int128>(p.tp) * p.pp * p.cp;
    std::string hint = "the product of the parallel degrees must equal the GPU count: ";
    if (inner > 0 && inner <= s.num_gpus && s.num_gpus % inner == 0)
      hint += "parallel.dp = " + int128_text(s.num_gpus / inner) + " = num_gpus / (tp*pp*cp) = " + std::to_string(s.num_gpus) + " / " +
              int128_text(inner) + ", or leave dp out to derive it";
    else
      hint += "no dp fits (num_gpus " + std::to_string(s.num_gpus) + (inner > s.num_gpus ? " is below" : " is not divisible by") +
              " tp*pp*cp = " + int128_text(inner) + ")";
    if (prod > 0 && prod <= std::numeric_limits<int32_t>::max()) hint += "; or num_gpus = " + int128_text(prod) + " for this plan";
    fail("dp", "tp*pp*dp*cp = " + std::to_string(p.tp) + "*" + std::to_string(p.pp) + "*" + std::to_string(p.dp) + "*" +
                   std::to_string(p.cp) + " = " + int128_text(prod) + " but num_gpus = " + std::to_string(s.num_gpus),
         hint);
  }
  // Each divisibility error lists the valid values (some listed none, 2026-12-05 review), of them
  // only those that also divide the GPUs left by pp*cp, as the cp and ep hints do (tp 8 had been
  // offered on 4 GPUs and then refused as tp*pp*cp > num_gpus; review of 2026-12-06).
  // (built only for an error: the search checks many plans)
  auto tp_fits_gpus = [&](int64_t d) { return s.num_gpus % (d * p.pp * p.cp) == 0; };
  auto tp_gpus_text = [&] {
    return " and the " + std::to_string(s.num_gpus / std::max<int64_t>(1, static_cast<int64_t>(p.pp) * p.cp)) + " GPUs left by pp*cp";
  };
  if (m.heads % p.tp != 0)
    fail("tp", "tp = " + std::to_string(p.tp) + " does not divide the " + std::to_string(m.heads) + " attention heads",
         "a tp that divides the heads, the " + std::to_string(m.kv_heads) + " key/value heads" + tp_gpus_text() + ": " +
             divisors_text_where(std::gcd(m.heads, m.kv_heads), tp_fits_gpus));
  // Megatron-Core splits the key/value heads (query groups) over tp: divide(num_query_groups,
  // world_size) in its attention module. tp beyond the kv heads (replicating them) had been
  // accepted (2026-12-03 review).
  if (m.kv_heads % p.tp != 0)
    fail("tp", "tp = " + std::to_string(p.tp) + " does not divide the " + std::to_string(m.kv_heads) +
                   " key/value heads (Megatron-Core splits the query groups over tp)",
         "a tp that divides the " + std::to_string(m.heads) + " heads, the " + std::to_string(m.kv_heads) +
             " key/value heads" + tp_gpus_text() + ": " + divisors_text_where(std::gcd(m.heads, m.kv_heads), tp_fits_gpus));
  // Megatron's divide() assertions: a column-parallel FFN splits its width over tp, the experts'
  // over etp, and sequence parallelism the sequence (of each CP rank) over tp. Llama-2-13B at tp 5
  // ran with a 5529.6-wide shard truncated.
  const bool dense_ffn = !m.all_layers_moe();
  if (dense_ffn && m.ffn_hidden % p.tp != 0)
    fail("tp", "tp = " + std::to_string(p.tp) + " does not divide the FFN width " + std::to_string(m.ffn_hidden),
         "a tp that divides it, the heads" + tp_gpus_text() + ": " +
             divisors_text_where(std::gcd(std::gcd(m.heads, m.kv_heads), m.ffn_hidden), tp_fits_gpus));
  if (m.moe && m.moe->expert_ffn_hidden % (p.etp > 0 ? p.etp : p.tp) != 0) {
    // An etp is at most tp; where tp itself does not divide the width, etp is the remedy, not tp.
    const int64_t width = m.moe->expert_ffn_hidden;
    fail(p.etp > 0 ? "etp" : "tp", "the expert tensor-parallel degree " + std::to_string(p.etp > 0 ? p.etp : p.tp) +
                                       " does not divide the expert width " + std::to_string(width),
         "parallel.etp among the divisors of it up to tp = " + std::to_string(p.tp) + ": " +
             divisors_text_where(width, [&](int64_t d) { return d <= p.tp; }));
  }
  if (m.learned_position && m.max_seq_len > 0 && s.train.seq_len > m.max_seq_len) {
    SourceLocation w = where_in;
    w.key = "training.seq_len";
    throw Error(w, "seq_len " + std::to_string(s.train.seq_len) + " is beyond the " + std::to_string(m.max_seq_len) +
                       " learned positions of model '" + m.id + "'",
                "a seq_len of at most max_seq_len, or a model with rotary positions");
  }
  // Megatron-Core refuses both (megatron/training/arguments.py): the TP overlap pipelines the
  // all-gather and reduce-scatter of sequence parallelism, and the MoE token dispatcher with TP
  // expects the sequence-parallel layout.
  if (p.tp_comm_overlap && p.tp > 1 && !p.sequence_parallel)
    fail("overlap.tp_comm", "TP communication overlap needs sequence parallelism (it overlaps SP's all-gathers and reduce-scatters)",
         "set parallel.sequence_parallel: true, or parallel.overlap.tp_comm: false");
  // A model without experts first: ep on it is the fault, whatever sequence parallelism (a dense
  // model at tp 8 with ep 2 and SP off had been told to turn SP on, and then that it has no
  // experts; 2026-12-06 review).
  // With the value that is valid (review of 2026-12-06: no hint had been given).
  const std::string ep_dense_hint = "parallel.ep: 1, or leave it out: expert parallelism splits an MoE model's experts";
  if (p.ep > 1 && !m.moe) fail("ep", "ep = " + std::to_string(p.ep) + " but model '" + m.id + "' has no experts", ep_dense_hint);
  if (p.ep > 1 && p.tp > 1 && !p.sequence_parallel)
    fail("sequence_parallel", "expert parallelism with tp > 1 needs sequence parallelism (Megatron-Core: \"When using expert "
                              "parallelism and tensor parallelism, sequence parallelism must be used\")",
         "set parallel.sequence_parallel: true");
  // At ep 1 too: Megatron-Core's MoELayer raises "During training, performance may degrade if MoE
  // and tensor parallelism are enabled without also enabling sequence parallelism", and the token
  // split of the MoE layer assumes the sequence-parallel layout (the plan ran without the gather
  // that would rebuild the tokens, before 2026-12-03).
  if (m.moe && p.tp > 1 && !p.sequence_parallel)
    fail("sequence_parallel", "an MoE model with tp > 1 needs sequence parallelism (Megatron-Core's MoELayer refuses to train "
                              "\"MoE and tensor parallelism ... without also enabling sequence parallelism\")",
         "set parallel.sequence_parallel: true");
  if (p.cp > 1 && s.train.seq_len % (2 * static_cast<int64_t>(p.cp)) != 0)
    fail("cp", "seq_len " + std::to_string(s.train.seq_len) + " must be divisible by 2*cp = " + std::to_string(2 * static_cast<int64_t>(p.cp)) +
                   " (load-balanced ring attention splits the sequence in 2*cp chunks)",
         s.train.seq_len % 2 == 0
             ? "a cp that divides " + std::to_string(s.train.seq_len / 2) + " and the " + std::to_string(s.num_gpus / (static_cast<int64_t>(p.tp) * p.pp)) +
                   " GPUs left by tp*pp" + (p.sequence_parallel && p.tp > 1 ? " and leaves a sequence share tp divides" : "") + ": " +
                   // With sequence parallelism tp splits each rank's seq_len / cp tokens (checked
                   // below): a cp that breaks it is no remedy (2026-12-05 review: cp 4 and 8 were
                   // offered for 8,208 tokens over tp 8, and both failed that check).
                   divisors_text_where(s.train.seq_len / 2, [&](int64_t d) {
                     return s.num_gpus % (static_cast<int64_t>(p.tp) * p.pp * d) == 0 &&
                            (!(p.sequence_parallel && p.tp > 1) || (s.train.seq_len / d) % p.tp == 0);
                   })
             : std::string("an even seq_len"));
  // Transformer Engine's DotProductAttention asserts "Context parallelism is only implemented
  // with Flash Attention and Fused Attention!": ring attention exchanges key/value blocks between
  // flash-attention passes, and the materialised-scores path has no such split.
  if (p.cp > 1 && !s.train.flash_attention)
    fail("cp", "context parallelism (ring attention) runs on flash attention, but training.flash_attention is false "
               "(Transformer Engine: \"Context parallelism is only implemented with Flash Attention and Fused Attention!\")",
         "set training.flash_attention: true, or parallel.cp: 1");
  // Sliding-window layers under ring (p2p) context parallelism: Transformer Engine refuses it
  // ("assert not sliding_window_attn or cp_comm_type in [a2a, all_gather]"), and ring attention is
  // the CP this model prices (a windowed layer would need only its neighbour's last keys, not
  // cp - 1 full chunks; gpt-oss at cp 2 was priced a full ring on every layer, 2026-12-04 review).
  if (p.cp > 1 && m.sliding_window > 0 && static_cast<int64_t>(m.sliding_window) < s.train.seq_len)
    fail("cp", "context parallelism here is ring attention (p2p), which Transformer Engine does not run on sliding-window layers "
               "(model '" + m.id + "' has a " + std::to_string(m.sliding_window) + "-token window)",
         "parallel.cp: 1 (the all-to-all and all-gather CP variants it supports are not modelled)");
  if (p.sequence_parallel && p.tp > 1 && (s.train.seq_len % p.cp != 0 || (s.train.seq_len / p.cp) % p.tp != 0))
    fail("sequence_parallel", "sequence parallelism splits the " + std::to_string(s.train.seq_len / std::max(1, p.cp)) +
                                  " tokens of a rank's sequence over tp = " + std::to_string(p.tp) + ", which does not divide them",
         "a seq_len that is a multiple of tp x cp, or sequence_parallel: false");
  // The experts first: an ep that does not divide them had been reported as an expert-grid
  // problem of etp, a key the file never wrote (2026-12-03 review).
  if (p.ep > 1 && m.moe && m.moe->num_experts % p.ep != 0)
    fail("ep", "ep = " + std::to_string(p.ep) + " does not divide the " + std::to_string(m.moe->num_experts) + " experts",
         "a divisor of the experts whose expert grid (etp x ep) tiles the " + std::to_string(static_cast<int64_t>(p.dp) * p.tp * p.cp) +
             " ranks of a stage: " + divisors_text_where(m.moe->num_experts, [&](int64_t d) {
               return (static_cast<int64_t>(p.dp) * p.tp * p.cp) % ((p.etp > 0 ? p.etp : p.tp) * d) == 0;
             }));
  // The expert grid next: with etp not dividing the stage's ranks, dp*tp*cp/etp truncated and the
  // message below reported a quotient that is not one (16/3 read as 5), before 2026-12-03.
  // Only where there are experts: on a dense model etp is without effect (a note), and a file reused
  // with --set parallel.tp had been refused for it (review of 2026-12-06).
  if (m.moe && p.etp > p.tp)
    fail("etp", "etp = " + std::to_string(p.etp) + " must not exceed tp = " + std::to_string(p.tp),
         "an etp from 1 to " + std::to_string(p.tp) + " that divides the expert width" +
             (!m.moe || m.moe->expert_ffn_hidden % p.tp == 0 ? std::string(", or leave it unset (etp = tp)") : std::string()));
  // Megatron-Core's initialize_model_parallel: world_size % (etp * ep * pp) == 0, i.e. the expert
  // grid etp x ep tiles a stage's dp*tp*cp ranks (checked whatever ep is: etp 3 on 8 ranks had
  // run with collectives over 3 ranks).
  if (m.moe || p.ep > 1) {
    const int etp = p.etp > 0 ? p.etp : p.tp;
    const int128 stage_ranks = static_cast<int128>(p.dp) * p.tp * p.cp, grid = static_cast<int128>(etp) * p.ep;
    if (grid > 0 && stage_ranks % grid != 0) {
      // Named by what the user wrote: ep when etp is tp's default.
      const bool etp_given = p.etp_stated;
      // With the values that fit (review of 2026-12-07: the hint had listed none): the ep values
      // at this etp that divide the experts (checked above) and tile the stage, the etp values at
      // this ep that are at most tp, divide the expert width (checked above) and tile it; the
      // named key's first. Where neither fits alone, the ep values at etp 1 (which always fits).
      // dp*tp*cp = num_gpus / pp (the product was checked above): within 64 bits.
      const int64_t stage = static_cast<int64_t>(stage_ranks);
      const int64_t experts = m.moe ? m.moe->num_experts : 1;
      const std::string ranks_text = " tile the " + std::to_string(stage) + " ranks";
      auto ep_list = [&](int64_t at_etp) {
        return divisors_text_where(experts, [&](int64_t d) { return stage % (at_etp * d) == 0; });
      };
      const std::string eps = ep_list(etp);
      const std::string etps = m.moe ? divisors_text_where(m.moe->expert_ffn_hidden, [&](int64_t d) {
        return d <= p.tp && stage % (d * p.ep) == 0;
      })
                                     : std::string("none");
      const std::string ep_part = "at etp = " + std::to_string(etp) + ", parallel.ep among the divisors of the " +
                                  std::to_string(experts) + " experts whose grids" + ranks_text + ": " + eps;
      const std::string etp_part = "at ep = " + std::to_string(p.ep) + ", parallel.etp among those up to tp = " + std::to_string(p.tp) +
                                   " that divide the expert width and" + ranks_text + ": " + etps;
      std::string remedy;
      if (eps != "none" && etps != "none")
        remedy = etp_given ? etp_part + "; or " + ep_part : ep_part + "; or " + etp_part;
      else if (eps != "none")
        remedy = ep_part;
      else if (etps != "none")
        remedy = etp_part;
      else
        remedy = "no ep fits at etp = " + std::to_string(etp) + " nor etp at ep = " + std::to_string(p.ep) +
                 "; at parallel.etp = 1, parallel.ep among " + ep_list(1);
      fail(etp_given ? "etp" : "ep",
           "etp*ep = " + std::to_string(etp) + "*" + std::to_string(p.ep) + " does not divide the " + int128_text(stage_ranks) +
               " ranks of a pipeline stage (dp*tp*cp)",
           "the expert grid (etp x ep) must tile the stage's ranks, as Megatron-Core requires: " + remedy);
    }
  }
  if (p.ep > 1) {
    if (!m.moe) fail("ep", "ep = " + std::to_string(p.ep) + " but model '" + m.id + "' has no experts", ep_dense_hint);
    const int128 expert_domain = static_cast<int128>(p.dp) * p.tp * p.cp / p.etp;
    if (expert_domain % p.ep != 0)
      fail("ep", "ep = " + std::to_string(p.ep) + " must divide dp*tp*cp/etp = " + int128_text(expert_domain),
           "expert parallelism is carved out of the data- (and tensor-) parallel ranks");
  }

  // The busiest EP rank holds at most every token-expert pair, ep times the mean, and ep is at most
  // the expert count: beyond that no plan can have the load (1e300 gave an infinite step). Below
  // it, a plan with a smaller ep (the search's, or one given by --set after the job) is capped at
  // its ep when lowered (ir/lower.cpp), as no rank can hold more than every pair.
  if (m.moe && s.train.moe_load_imbalance > m.moe->num_experts) {
    SourceLocation w = where_in;
    w.key = "training.moe_load_imbalance";
    throw Error(w, "moe_load_imbalance " + format_double(s.train.moe_load_imbalance) + " exceeds the " +
                       std::to_string(m.moe->num_experts) + " experts",
                "the busiest expert-parallel rank can hold at most every token-expert pair: ep times the mean, and ep <= experts");
  }
  // A capacity beyond every token-expert pair of a rank pads to nothing real (1e300 with padding
  // found no collective algorithm for its all-to-all, before 2026-12-03).
  // An expert's capacity is factor x tokens x topk / experts, and it takes each token at most once:
  // the factor is at most experts / topk (the bound was the expert count, and Mixtral at 6 of its
  // 8 / 2 = 4 padded an expert past every token; 2026-12-06 review).
  if (m.moe && s.train.moe_capacity_factor * std::max(1, m.moe->topk) > m.moe->num_experts) {
    SourceLocation w = where_in;
    w.key = "training.moe_capacity_factor";
    throw Error(w, "moe_capacity_factor " + format_double(s.train.moe_capacity_factor) + " exceeds the " +
                       std::to_string(m.moe->num_experts) + " experts over top-" + std::to_string(m.moe->topk) + " routing (" +
                       format_double(static_cast<double>(m.moe->num_experts) / std::max(1, m.moe->topk)) + ")",
                "an expert's capacity (factor x tokens x topk / experts) can hold at most every token: a factor of at most experts / topk (0: dropless)");
  }
  const int64_t mb_dp = static_cast<int64_t>(s.train.micro_batch) * p.dp;
  if (s.train.global_batch % mb_dp != 0) {
    // The nearest valid batches (review of 2026-12-06: none had been offered), of them those the
    // schedule's checks below take too: interleaved-1f1b wants a multiple of pp micro-batches,
    // dualpipev at least 2 pp.
    const bool interleaved = p.schedule == "interleaved-1f1b" && p.pp > 1;
    const int128 step = static_cast<int128>(mb_dp) * (interleaved ? p.pp : 1);
    const int128 least = p.schedule == "dualpipev" && p.pp > 1 ? static_cast<int128>(mb_dp) * 2 * p.pp : step;
    const int128 down = s.train.global_batch / step * step;
    const int128 up = std::max(down + step, (least + step - 1) / step * step);
    std::string near;
    if (down >= least) near = int128_text(down);
    if (up <= std::numeric_limits<int64_t>::max()) near += (near.empty() ? "" : " or ") + int128_text(up);
    std::string hint = "each data-parallel replica needs a whole number of micro-batches";
    if (interleaved)
      hint += ", and interleaved-1f1b (vpp " + std::to_string(p.vpp) + ") a multiple of pp = " + std::to_string(p.pp) +
              " of them: training.global_batch a multiple of pp x micro_batch x dp = " + int128_text(step);
    else
      hint += ": training.global_batch a multiple of micro_batch x dp = " + std::to_string(mb_dp);
    if (least > step) hint += " of at least " + int128_text(least) + " (dualpipev: 2 pp micro-batches)";
    if (!near.empty()) hint += ", the nearest " + near;
    fail_at("training.global_batch", "global_batch " + std::to_string(s.train.global_batch) + " is not divisible by micro_batch*dp = " +
                   std::to_string(s.train.micro_batch) + "*" + std::to_string(p.dp),
         hint);
  }
  // Checked first, in 64 bits (pp 65536 x vpp 65536 wrapped to 0 before 2026-12-03): a stage
  // without layers cannot be mended by stage_layers or a stage rule.
  // Stated sizes may leave the first and the last virtual stage empty (the embedding or the loss
  // head alone, checked below): two stages more than the layers (pp 34 over Llama 3 8B's 32 layers
  // as [0, 1 x 32, 0] had been refused, 2026-12-05 review).
  // DualPipeV's two chunks per rank first: a vpp of 3 had been told its pp*vpp does not divide
  // the layers, a remedy that leads only to this (2026-12-04 review).
  if (p.schedule == "dualpipev" && p.vpp != 2)
    fail("vpp", "dualpipev holds two model chunks per rank (a V), so vpp must be 2, got " + std::to_string(p.vpp),
         "set parallel.vpp: 2 or leave it out");
  // Interleaving splits a pipeline rank's layers into vpp chunks that take turns with the other
  // ranks': without a pipeline there is nothing to interleave with. A scenario file's vpp at pp 1
  // is set aside before these checks (check_own_plan: it runs as 1F1B at vpp 1, with a note, as
  // docs/scenario.md says); a plan built otherwise (a validation row) had run interleaved over one
  // stage, its step time changed by a schedule that cannot run (2026-12-06 review). DualPipeV's
  // vpp 2 is its V: its own check below names the missing pipeline.
  // The pp values (2 and up) that would lay pp*vpp virtual stages out under the stage rule (or
  // match a stated list) at this vpp, and pass the other checks at the dp they leave: they divide
  // the GPUs left by tp*cp, the replicas split the global batch, the schedule gets its micro-batches
  // (interleaved-1f1b a multiple of pp, dualpipev at least 2 pp), and the expert grid tiles a
  // stage's ranks. One list for every stage-layout error (review of 2026-12-07: only vpp at pp 1
  // and fewer-first-last had listed pp values, the even rule's "does not divide" and the
  // "exceeds the layers" errors none, though docs/errors.md promises them).
  auto pp_values = [&] {
    std::string pps;
    const int64_t inner = static_cast<int64_t>(p.tp) * p.cp;
    if (inner <= 0 || s.num_gpus % inner != 0) return pps;
    const int64_t left = s.num_gpus / inner;
    for (int64_t d = 2; d <= left && d * p.vpp <= static_cast<int64_t>(m.layers) + 2 && d <= (int64_t{1} << 20); ++d) {
      if (left % d != 0) continue;
      const int64_t n = d * p.vpp;
      const bool lays_out = !p.stage_layers.empty() ? n == static_cast<int64_t>(p.stage_layers.size())
                            : p.stage_rule == "fewer-first-last" ? n <= m.layers && (m.layers + 2) % n == 0
                                                                  : m.layers % n == 0;
      if (!lays_out) continue;
      const int64_t dp = left / d;
      const int128 mb_dp = static_cast<int128>(s.train.micro_batch) * dp;
      if (mb_dp <= 0 || s.train.global_batch % mb_dp != 0) continue;
      const int128 micro_batches = s.train.global_batch / mb_dp;
      if (p.schedule == "interleaved-1f1b" && micro_batches % d != 0) continue;
      if (p.schedule == "dualpipev" && micro_batches < 2 * d) continue;
      if (m.moe || p.ep > 1) {
        const int64_t grid = static_cast<int64_t>(p.etp > 0 ? p.etp : p.tp) * p.ep;
        if (grid <= 0 || (dp * inner) % grid != 0) continue;
      }
      pps += (pps.empty() ? "" : ", ") + std::to_string(d);
    }
    return pps;
  };
  // The hint's part for them ("with vpp = V, parallel.pp among ..."), empty where none fits.
  auto pp_remedy = [&] {
    const std::string pps = pp_values();
    return pps.empty() ? pps : "with vpp = " + std::to_string(p.vpp) + ", parallel.pp among " + pps;
  };
  auto or_join = [](const std::string& a, const std::string& b) { return a.empty() ? b : b.empty() ? a : a + "; or " + b; };
  if (p.pp == 1 && p.vpp > 1 && p.schedule != "dualpipev") {
    // The pipelines that would give the vpp a meaning.
    const std::string pps = pp_values();
    fail("vpp", "vpp = " + std::to_string(p.vpp) + " with pp = 1: interleaving (virtual pipeline stages) needs pipeline parallelism",
         "parallel.vpp: 1 (no interleaving without a pipeline), or pp > 1" +
             (pps.empty() ? std::string(" (no pp fits the GPUs, the layers and the batch with vpp = " + std::to_string(p.vpp) + ")")
                          : " (with vpp = " + std::to_string(p.vpp) + ", parallel.pp among " + pps + ")"));
  }
  const int64_t most_stages = m.layers + (p.stage_layers.empty() ? 0 : 2);
  // The vpp values that lay this pp's virtual stages out under the stage rule (with stated
  // sizes, any up to the bound: the list of sizes follows pp*vpp). The interleaved schedule takes
  // vpp 2 or more (vpp 1 had been offered, then refused).
  auto vpp_values = [&] {
    std::string vs;
    const int from = p.schedule == "interleaved-1f1b" ? 2 : 1;
    for (int v = from; v <= most_stages / p.pp && v <= 64; ++v) {
      const int64_t n = static_cast<int64_t>(p.pp) * v;
      const bool fits = !p.stage_layers.empty() || (p.stage_rule == "fewer-first-last" ? (m.layers + 2) % n == 0 : m.layers % n == 0);
      if (fits) vs += (vs.empty() ? "" : ", ") + std::to_string(v);
    }
    return "with pp = " + std::to_string(p.pp) + ", parallel.vpp among " + (vs.empty() ? std::string("none") : vs);
  };
  // Where pp alone fits, the vpp is what overflows: its key is named, with the values that fit (a
  // --set parallel.vpp=9 over pp 4 and 32 layers had been pointed at the file's valid pp line;
  // 2026-12-06 review). DualPipeV's vpp is 2 whatever the layers: there pp is the cause.
  const int64_t stages_wanted = static_cast<int64_t>(p.pp) * p.vpp;
  if (stages_wanted > most_stages) {
    const bool vpp_cause = p.vpp > 1 && p.schedule != "dualpipev" && p.pp <= most_stages;
    const std::string other_pp = pp_remedy();
    fail(vpp_cause ? "vpp" : "pp", "pp*vpp = " + std::to_string(stages_wanted) + " exceeds the " + std::to_string(m.layers) + " layers" +
                                       (p.stage_layers.empty() ? std::string() : " and the two ends"),
         (p.stage_layers.empty() ? "each pipeline stage (and each virtual stage) holds at least one layer: pp*vpp <= " + std::to_string(m.layers)
                                 : "each virtual stage holds at least one layer, the first and the last aside: pp*vpp <= " + std::to_string(most_stages)) +
             (vpp_cause ? "; " + vpp_values() : std::string()) + (other_pp.empty() ? std::string() : "; or " + other_pp));
  }
  const int nstages = p.pp * p.vpp;
  if (!p.stage_layers.empty()) {
    check_stage_layers(p.stage_layers, nstages, m.layers, where_in);
  } else if (p.stage_rule == "even") {
    // Where pp alone divides the layers, the vpp is what breaks it: its key is named (a --set
    // parallel.vpp=3 had been pointed at the file's pp line; review of 2026-12-05).
    if (m.layers % nstages != 0)
      fail(p.vpp > 1 && p.schedule != "dualpipev" && m.layers % p.pp == 0 ? "vpp" : "pp", "pp*vpp = " + std::to_string(nstages) + " does not divide the " + std::to_string(m.layers) + " layers" +
                     (p.schedule == "dualpipev" ? std::string(" (dualpipev: vpp 2, two chunks per rank)") : std::string()),
           [&] {
             // Only the remedies that work for this model (fewer-first-last had been suggested where
             // it fails too, 2026-12-03 review): the vpp values that divide, then the rule, then a list.
             std::string h;
             if (p.schedule != "dualpipev" && m.layers % p.pp == 0) h = vpp_values();
             if ((m.layers + 2) % nstages == 0) h = or_join(h, "stage_rule: fewer-first-last");
             h = or_join(h, pp_remedy());
             return or_join(h, "parallel.stage_layers (a list of pp*vpp layer counts summing to " + std::to_string(m.layers) + ")");
           }());
  } else if (p.stage_rule == "fewer-first-last") {
    // As for the even rule (review of 2026-12-06: the file's stage_rule line had been named for a
    // --set parallel.vpp=3, without a valid value): where pp alone fits, vpp is named, with the vpp
    // values that fit; where the even rule fits, the rule; else pp. The hint lists each remedy
    // that works: those vpp, stage_rule even, the pp values that fit the rule and the GPUs.
    if ((m.layers + 2) % nstages != 0) {
      const bool pp_fits = (m.layers + 2) % p.pp == 0;
      const bool vpp_cause = p.vpp > 1 && p.schedule != "dualpipev" && pp_fits;
      const bool even_fits = m.layers % nstages == 0;
      std::string h;
      if (p.schedule != "dualpipev" && pp_fits) h = vpp_values();
      if (even_fits) h = or_join(h, "stage_rule: even");
      h = or_join(h, pp_remedy());
      h = or_join(h, "parallel.stage_layers (a list of pp*vpp layer counts summing to " + std::to_string(m.layers) + ")");
      fail(vpp_cause ? "vpp" : even_fits ? "stage_rule" : "pp",
           "fewer-first-last needs pp*vpp = " + std::to_string(nstages) + " to divide layers+2 = " + std::to_string(m.layers + 2) +
               (p.schedule == "dualpipev" ? std::string(" (dualpipev: vpp 2, two chunks per rank)") : std::string()),
           h);
    }
  }
  if (p.schedule == "interleaved-1f1b" && p.vpp < 2)
    fail("schedule", "interleaved-1f1b needs vpp >= 2", "set parallel.vpp or use schedule 1f1b");
  if (p.schedule == "dualpipev") {
    if (p.vpp != 2)
      fail("vpp", "dualpipev holds two model chunks per rank (a V), so vpp must be 2, got " + std::to_string(p.vpp),
           "set parallel.vpp: 2 or leave it out");
    if (p.pp < 2) fail("schedule", "dualpipev needs a pipeline (pp >= 2)", "set parallel.pp or use schedule 1f1b");
    if (s.num_microbatches() < 2 * static_cast<int64_t>(p.pp))
      fail("schedule", "dualpipev needs at least 2 pp = " + std::to_string(2 * p.pp) + " micro-batches per step, got " +
                           std::to_string(s.num_microbatches()),
           "raise training.global_batch or lower training.micro_batch");
  } else if (p.vpp > 1 && p.schedule != "interleaved-1f1b") {
    fail("schedule", "vpp = " + std::to_string(p.vpp) + " needs the interleaved-1f1b (or, with vpp 2, dualpipev) schedule");
  }
  if (p.schedule == "interleaved-1f1b" && p.pp > 1 && s.num_microbatches() % p.pp != 0) {
    // The remedy with its numbers (the message had none), at the global batch: the schedule may
    // be no key of the file but follow from vpp (it had pointed at parallel.schedule on the line of
    // the file's first parallel key; 2026-12-06 review).
    const int64_t per_mb = static_cast<int64_t>(p.dp) * s.train.micro_batch;
    const int64_t up = (s.num_microbatches() / p.pp + 1) * p.pp * per_mb;
    fail_at("training.global_batch", "interleaved-1f1b (vpp " + std::to_string(p.vpp) + ") needs the micro-batch count (" + std::to_string(s.num_microbatches()) +
                         " = global_batch / (micro_batch x dp)) to be a multiple of pp (" + std::to_string(p.pp) + ")",
         "set training.global_batch to a multiple of pp x micro_batch x dp = " + std::to_string(p.pp * per_mb) + " (e.g. " + std::to_string(up) +
             "), or parallel.vpp: 1 with schedule 1f1b");
  }
  if (p.zero_stage > 0 && p.dp == 1) {
    // ZeRO over one replica shards nothing; allowed.
  }
  {
    // Every precision the step runs in needs a published peak: the GEMMs' own, and, below 32
    // bits, a 16-bit one (bf16 or fp16) for attention and the 16-bit activations (fp32/tf32
    // training runs everything in its own precision: a CPU calibrated in fp32 is usable).
    std::vector<std::string> have;
    // (fp64 and int8 are listed too, though no training runs in them: a CPU entry calibrated
    // from fp64 GEMMs read "its peaks: none" before 2026-12-03.)
    for (DType d : {DType::FP64, DType::FP32, DType::TF32, DType::BF16, DType::FP16, DType::FP8, DType::FP4, DType::INT8})
      if (s.accelerator.has_peak(d)) have.push_back(to_string(d));
    std::string list;
    for (const auto& h : have) list += (list.empty() ? "" : ", ") + h;
    const bool has16 = s.accelerator.has_peak(DType::BF16) || s.accelerator.has_peak(DType::FP16) || full_precision(s.train.precision);
    // What to use instead: the next lower-precision training dtypes the accelerator can run, each
    // with a 16-bit peak beside it (a V100 asked for fp8 or fp4: fp16, not bf16).
    const bool any16 = s.accelerator.has_peak(DType::BF16) || s.accelerator.has_peak(DType::FP16);
    std::vector<DType> instead;
    if (s.train.precision == DType::FP4) instead.push_back(DType::FP8);
    instead.push_back(DType::BF16);
    instead.push_back(DType::FP16);
    std::string use;
    for (DType d : instead)
      if (d != s.train.precision && s.accelerator.has_peak(d) && any16) use += (use.empty() ? "" : " or ") + to_string(d);
    if (use.empty() && s.accelerator.has_peak(DType::FP32) && s.train.precision != DType::FP32) use = "fp32";
    std::string advice = use.empty() ? "" : "; use " + use;
    const bool only_non_training = std::all_of(have.begin(), have.end(), [](const std::string& h) { return h == "fp64" || h == "int8"; });
    if (use.empty() && !have.empty() && only_non_training)
      advice = "; none of them is a training precision (a calibrated CPU needs an fp32 GEMM run: sextant bench --gemm-dtype fp32)";
    if (!s.accelerator.has_peak(s.train.precision) || !has16)
      throw Error(SourceLocation{where_in.file, 0, 0, "training.precision"},
                  "accelerator '" + s.accelerator.id + "' has no published " +
                      (s.accelerator.has_peak(s.train.precision) ? std::string("16-bit (bf16 or fp16)") : to_string(s.train.precision)) +
                      " peak",
                  "its peaks: " + (list.empty() ? std::string("none") : list) + advice);
  }
  // An accelerator written in the scenario (hardware.accelerators) is pointed at there, with its
  // field; a catalog one by the scenario's accelerator key.
  // (the scenario's own file too: where_in names "FILE (--set)" when an override wrote parallel:)
  const bool inline_accel = !s.accelerator.file.empty() && (s.accelerator.file == where_in.file || s.accelerator.file == s.file);
  // The field itself, in its entry (hardware.accelerators[0].memory_gib): the list had been named,
  // at the list's line (review of 2026-12-06).
  const auto inline_key = s.inline_accelerator_keys.find(s.accelerator.id);
  auto accel_loc_of = [&](const std::string& field) {
    if (!inline_accel) return SourceLocation{where_in.file, 0, 0, "accelerator"};
    if (inline_key == s.inline_accelerator_keys.end()) return SourceLocation{where_in.file, 0, 0, "hardware.accelerators"};
    return SourceLocation{where_in.file, 0, 0, inline_key->second + "." + field};
  };
  // An entry defined in another file (accelerator: acc.yaml, or a catalog folder's) names that
  // file, where the field is missing (2026-12-05 review: only the scenario was named).
  const std::string accel_from = !inline_accel && !s.accelerator.file.empty() ? " (defined in " + s.accelerator.file + ")" : "";
  if (!(s.accelerator.memory_bandwidth_bytes_per_s.value > 0) || !std::isfinite(s.accelerator.memory_bandwidth_bytes_per_s.value))
    throw Error(accel_loc_of("memory_bandwidth_gb_per_s"),
                "accelerator '" + s.accelerator.id + "'" + accel_from + " has no memory bandwidth: every memory-bound op would take forever",
                "a calibrated entry gets it from the memory_bandwidth suite (sextant bench --suite memory_bandwidth, then "
                "calibrate), or give memory_bandwidth_gb_per_s");
  // (an unknown capacity was read as 0 GiB: "does not fit: needs 21.5 GiB per GPU of 0 GiB")
  if (!s.accelerator.memory_bytes.known || !(s.accelerator.memory_bytes.value > 0))
    throw Error(accel_loc_of("memory_gib"),
                "accelerator '" + s.accelerator.id + "'" + accel_from + " has no known memory capacity: the memory fit of a training step cannot be checked",
                "give the accelerator's memory_gib");
  // The recipes the part runs, for the remedies below: per-tensor scaling wherever FP8 runs at all,
  // block scaling unless the entry says it has none (fp8_block_scaling: false, Ada), MX formats with
  // the fp4 generation. The mxfp8 error had offered blockwise on an L40S, which cannot run it, and
  // blockwise ran there at the per-tensor FP8 rate without a word (review, 2026-12-07).
  const bool block_ok = !s.accelerator.lacks_fp8_block_scaling(), mx_ok = s.accelerator.has_peak(DType::FP4);
  auto recipes_for_part = [&](const std::string& but) {
    std::vector<std::string> ok;
    for (const char* r : {"current", "delayed", "blockwise", "mxfp8"})
      if (r != but && (std::string(r) != "blockwise" || block_ok) && (std::string(r) != "mxfp8" || mx_ok)) ok.push_back(r);
    std::string out;
    for (size_t i = 0; i < ok.size(); ++i) out += (i == 0 ? "" : i + 1 == ok.size() ? " or " : ", ") + ok[i];
    return out;
  };
  if (s.train.precision == DType::FP8 && s.train.fp8_recipe == "mxfp8" && !mx_ok)
    throw Error(SourceLocation{where_in.file, 0, 0, "training.fp8_recipe"},
                "mxfp8 needs tensor cores with MX (block-scaled) formats, which came with the fp4 generation (Blackwell); '" +
                    s.accelerator.id + "' has none",
                "use fp8_recipe " + recipes_for_part("mxfp8"));
  if (s.train.precision == DType::FP8 && s.train.fp8_recipe == "blockwise" && !block_ok)
    throw Error(SourceLocation{where_in.file, 0, 0, "training.fp8_recipe"},
                "blockwise (Transformer Engine's Float8BlockScaling) needs FP8 GEMMs with block scales, which accelerator '" +
                    s.accelerator.id + "'" + accel_from + " does not run (its fp8_block_scaling is false: " +
                    (s.accelerator.fp8_block_scaling.estimated.empty() ? s.accelerator.fp8_block_scaling.source
                                                                       : "estimated: " + s.accelerator.fp8_block_scaling.estimated) +
                    ")",
                "use fp8_recipe " + recipes_for_part("blockwise"));
}

}  // namespace sextant
