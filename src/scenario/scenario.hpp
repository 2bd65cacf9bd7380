#pragma once
// The scenario: one training job = model + system (catalog id or inline) + GPU count + parallel
// plan + training settings. Written as YAML (docs/scenario.md); every key can be overridden with
// --set key=value. A Scenario is self-contained (it holds copies of the catalog entries it
// uses), immutable after load, and checked: impossible plans are Errors with the reason.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"

namespace YAML {
class Node;
}

namespace sextant {

enum class Recompute { None, Selective, Full };

// The parts of a layer that selective recompute rematerialises (training.recompute_modules;
// Megatron-Core's --recompute-modules, docs/models.md "Recompute"): bit flags.
enum RecomputeModule : uint32_t {
  kRecomputeCoreAttn = 1u << 0,       // the attention core (the default, and Megatron's)
  kRecomputeLayerNorm = 1u << 1,      // the two norms: their outputs are not saved
  kRecomputeMlp = 1u << 2,            // a dense layer's whole MLP
  kRecomputeMoeAct = 1u << 3,         // the experts' activation function
  kRecomputeSharedExperts = 1u << 4,  // an MoE layer's shared experts
  kRecomputeMoe = 1u << 5,            // an MoE layer's whole routed part (dispatch to combine)
  kRecomputeMlaUpProj = 1u << 6,      // MLA's up projections: Q, K, V rebuilt from the saved latents
};
inline constexpr uint32_t kAllRecomputeModules = (1u << 7) - 1;
// Names in flag order: recompute_module_names() (catalog.hpp, which framework capabilities use).
// "core_attn,layernorm" for a flag set, in flag order ("" for none).
std::string recompute_modules_text(uint32_t modules);
// The modules that exist in a model's layers: core_attn and layernorm always; mlp with dense
// MLP layers (a dense model, or an MoE model's dense_layers or layers between MoE layers);
// moe_act and moe with experts;
// shared_experts with shared experts; mla_up_proj with multi-head latent attention.
uint32_t applicable_recompute_modules(const ModelConfig& m);

// The names parallel.moe_dispatcher accepts: those of ir::MoeDispatcherRegistry (a test checks
// that the two lists agree; the scenario module cannot depend on the IR module).
const std::vector<std::string>& moe_dispatcher_names();
// The names training.fp8_recipe accepts (TrainingConfig::fp8_recipe).
const std::vector<std::string>& fp8_recipe_names();
std::string to_string(Recompute r);

struct ParallelPlan {
  int tp = 1;   // tensor parallel
  int pp = 1;   // pipeline parallel
  int dp = 1;   // data parallel (derived from num_gpus when not given); includes ep
  int cp = 1;   // context parallel
  int ep = 1;   // expert parallel, carved out of dp (and of tp when etp < tp)
  int etp = 1;  // tensor parallel inside an expert (0 = same as tp)
  int vpp = 1;  // virtual (interleaved) stages per pipeline rank
  bool sequence_parallel = false;
  int zero_stage = 0;  // 0 plain DP, 1 distributed optimizer, 2 + gradients, 3 + parameters (FSDP)
  std::string schedule = "1f1b";  // pipeline schedule (registry name): gpipe, 1f1b, interleaved-1f1b, zb-h1
  std::vector<int> stage_layers;  // layers per pipeline stage (pp*vpp entries); empty = rule
  // A schedule or vpp stated for a plan without pipeline parallelism (pp 1): "SCHEDULE, vpp V" as
  // written, noted as without effect; the plan itself runs 1f1b at vpp 1 (the lowering had cut
  // the layers into vpp chunks anyway: 13.54 s where 1f1b gave 13.12 s, 2026-12-04 review).
  std::string idle_pipeline;
  std::string stage_rule = "even";  // even | fewer-first-last (one layer fewer on the first and last stage)
  bool overlap_grad_reduce = true;   // DP gradient reduction overlaps backward
  bool overlap_grad_reduce_stated = false;  // overlap.grad_reduce was given
  bool overlap_param_gather = true;  // ZeRO/FSDP parameter all-gather overlaps forward
  bool tp_comm_overlap = false;      // TP communication overlapped with GEMMs (userbuffers)
  // The backward of a column-parallel GEMM runs its input gradient's reduction (reduce-scatter
  // with SP, all-reduce without) beside the weight-gradient GEMM, and SP's re-gather of the saved
  // input shard beside the input-gradient GEMM (Megatron-LM's asynchronous TP communication
  // since 2022, Transformer Engine's Linear); false: both block (Megatron-LM of 2021).
  bool tp_backward_overlap = true;
  // MoE dispatch/combine all-to-alls overlapped with compute (Megatron-Core's
  // overlap_moe_expert_parallel_comm: one micro-batch's forward runs with another's backward).
  bool ep_comm_overlap = false;
  bool etp_stated = false;  // etp was given; otherwise tp (Megatron-Core's default)
  bool zero3_keys_stated = false;  // zero3_gather or zero3_regather_for_recompute was given
  bool zero3_keys_changed = false;  // ... at a value other than the framework's (or the built-in) default
  std::string zero3_changed_keys;   // which of them, "zero3_gather / zero3_max_live_params" (for the idle note)
  bool zero_stage_stated = false;   // zero_stage was given (not the framework's or the default)
  bool grad_bucket_stated = false;  // grad_bucket_mb was given
  bool ep_comm_overlap_stated = false;  // overlap.ep_comm was given; otherwise the schedule's default (on under dualpipev)
  bool tp_backward_overlap_stated = false;  // overlap.tp_backward was given; otherwise the framework's default
  bool tp_backward_overlap_changed = false;  // ... at the other value than that default
  double grad_bucket_bytes = 80e6;   // DP gradient bucket at 2 bytes/element (Megatron-core's 40M elements)
  // Framework-dependent implementation choices (defaults from the scenario's `framework:` entry
  // of the catalog when named; see data/catalog/frameworks/):
  std::string zero3_gather = "layer";        // layer | tensor: one ZeRO-3 gather per layer or per tensor
  bool zero3_regather_for_recompute = false;  // full recompute gathers the parameters once more
  // The most ZeRO-3-gathered parameters resident at once (elements; DeepSpeed's
  // stage3_max_live_parameters), never below the largest tensor; 0: whole units (the layer in use
  // and the prefetched one).
  double zero3_max_live_params = 0;
  // ZeRO-2 gradient synchronisation: micro_batch (DeepSpeed stage 2, FSDP SHARD_GRAD_OP: every
  // micro-batch's gradients reduce-scattered into the shard, only the shard held) | step (FSDP
  // under pipelining, no_sync: gradients accumulate unsharded in the reduction dtype and are
  // reduce-scattered once per step: ZeRO-1's traffic and gradient memory).
  std::string zero2_grad_sync = "micro_batch";
  bool collective_nic_aggregation = true;     // inter-node collectives use all NICs of the node
  // collective_nic_aggregation was stated at a value other than the framework's default (for the
  // note "stated but without effect" where no collective crosses a scale-up domain).
  bool collective_nic_aggregation_changed = false;
  // The collective algorithms the communication library may take (NCCL_ALGO), by their
  // CollectiveRegistry names: ring (always: it carries every all-gather, reduce-scatter and
  // broadcast, and the groups the others cannot), tree, nvls. The fastest of those listed that
  // supports a collective is taken (estimate/collective.hpp).
  std::vector<std::string> collective_algorithms = {"ring", "tree", "nvls"};
  // MoE token dispatcher (registry name, ir/moe_dispatch.hpp): alltoall (one copy per token and
  // expert, NCCL all-to-all) | deepep | hybridep (one copy per destination rank and domain).
  std::string moe_dispatcher = "alltoall";
};

struct TrainingConfig {
  int64_t global_batch = 0;  // sequences per optimizer step
  int micro_batch = 1;       // sequences per micro-batch per model replica
  int seq_len = 0;
  DType precision = DType::BF16;  // GEMM precision
  Recompute recompute = Recompute::None;
  uint32_t recompute_modules = kRecomputeCoreAttn;  // with Recompute::Selective: RecomputeModule flags
  bool recomputes(RecomputeModule mod) const { return recompute == Recompute::Selective && (recompute_modules & mod) != 0; }
  // With Recompute::Full, which layers of each model chunk (virtual pipeline stage) are
  // recomputed (Megatron's --recompute-method / --recompute-num-layers): uniform: every layer, in
  // groups of recompute_num_layers whose input alone is saved (1: each layer); block: only the
  // first recompute_num_layers layers of the chunk, each on its own, the others save their
  // activations. docs/models.md, Recompute.
  bool recompute_block = false;    // recompute_method: block (false: uniform)
  int recompute_num_layers = 1;    // uniform: layers per group; block: layers recomputed per chunk
  std::string optimizer = "adam";  // adam | sgd
  // Precision of the optimizer's moments (training.optimizer_moments): fp32, or bf16 as
  // DeepSeek-V3 keeps AdamW's (arXiv:2412.19437, Sec. 3.3.3), beside fp32 master weights either
  // way. Before 2026-12-06 they were fp32 always (12 bytes a parameter with the master, 8 with
  // bf16 moments; review).
  DType optimizer_moments = DType::FP32;
  // Bytes a parameter of the optimizer's moments: Adam's two, SGD's momentum buffer. stage_memory
  // (estimate and simulate) and the optimizer step's traffic (ir::lower) read it.
  double optimizer_moment_bytes() const { return (optimizer == "adam" ? 2.0 : 1.0) * dtype_bytes(optimizer_moments); }
  // Bytes a parameter of the weights as held (2026-12-07 review: one rule for stage_memory, the
  // plan search's memory model and goodput's checkpoint, which had hard-coded 2 + 4 + 8):
  // fp32/tf32 training holds fp32 weights that are their own master copy; mixed precision 16-bit
  // weights (FP8 parameters too: the FP8 weight and its transpose, 2 bytes). Transformer Engine's
  // cast copies of 16-bit parameters are apart (weight_cast_bytes_per_element, estimate.hpp).
  double weight_bytes_per_param() const { return full_precision(precision) ? 4.0 : 2.0; }
  // Bytes a parameter of the optimizer state: the fp32 master copy beside 16-bit weights (none
  // beside fp32 weights) and the moments in optimizer_moments.
  double optimizer_state_bytes_per_param() const {
    return optimizer_moment_bytes() + (full_precision(precision) ? 0.0 : 4.0);
  }
  bool flash_attention = true;     // attention without materialised scores (FlashAttention)
  // Attention-probability and hidden dropout: 1-byte masks saved per element and their kernels.
  // Default (dropout_default): the model's statement, else the framework's, else yes for a GELU
  // model (GPT-2/GPT-3 and Megatron's GPT recipes train with dropout 0.1; LLaMA-style models
  // without). Before 2026-12-04 it was the GELU rule alone: MPT, trained without, saved masks.
  bool dropout = false;
  // The attention kernel reaches at most this fraction of the accelerator's dense 16-bit peak
  // (training.attention_peak_fraction; default: the framework's, where it sets one). 0: no cap,
  // the accelerator's attention rate. docs/models.md, Compute.
  double attention_peak_fraction = 0;
  DType grad_reduce_dtype = DType::FP32;  // Megatron accumulates and reduces bf16 gradients in fp32
  bool grad_reduce_dtype_stated = false;
  // MoE: router probabilities applied inside the experts' activation (true) or on the expert
  // outputs at the combine (false: those outputs are saved for the probabilities' gradient).
  bool moe_weighting_in_expert = false;
  // FP8/FP4 scaling recipe of Transformer Engine (training.fp8_recipe): delayed (per-tensor
  // scale from the amax history, fused into the cast) | current (per-tensor scale from the
  // tensor's own amax: one more read pass) | blockwise | mxfp8 (block scales computed in the cast).
  std::string fp8_recipe = "delayed";
  // MoE routing load. moe_load_imbalance: the busiest expert-parallel rank's token-expert pairs
  // per layer over the mean (>= 1; 1 = balanced, as forced by benchmark recipes). A capacity
  // factor > 0 drops tokens beyond that multiple of an expert's mean share (0 = dropless);
  // padding to capacity makes every expert process exactly its capacity.
  double moe_load_imbalance = 1.0;
  double moe_capacity_factor = 0.0;
  bool moe_capacity_factor_stated = false;  // given in the training (otherwise the model's, or 0)
  bool moe_pad_to_capacity = false;
  // MoE: the tokens of the forward dispatch and the output gradients of the backward combine travel
  // in FP8 with one scale per 128 elements (DeepSeek-V3 Sec. 3.3.2; DeepEP's FP8 dispatch,
  // torchtitan's MXFP8 all-to-all: 1/32 byte of scale per element either way); the forward combine
  // and the backward dispatch stay in 16 bits. Needs FP8/FP4 expert GEMMs to be of any use.
  bool moe_fp8_dispatch = false;
  // The busiest rank's routed load over the balanced mean, from the three above.
  double moe_load_factor() const {
    if (moe_capacity_factor <= 0) return moe_load_imbalance;
    return moe_pad_to_capacity ? moe_capacity_factor : std::min(moe_load_imbalance, moe_capacity_factor);
  }
  bool micro_batch_given = true;   // false when the input did not state it (validation rows)
};

struct Scenario {
  std::string file;  // where it was read from ("" for programmatic scenarios)
  // Inline hardware entries nothing refers to ("accelerator my-gpu"): said in a note, as a user who
  // forgot `accelerator: my-gpu` would otherwise run on the catalog's part without a word.
  std::vector<std::string> unused_inline_hardware;
  // Where each inline accelerator is written: id -> its entry's key ("hardware.accelerators[0]"),
  // so that a check of its figures after parsing names the field at its own line (review of
  // 2026-12-06: the list's line had been named, "key 'hardware.accelerators'").
  std::map<std::string, std::string> inline_accelerator_keys;
  std::string name;
  std::string framework;  // catalog framework id ("" = none named: the plan's own defaults)
  ModelConfig model;
  System system;
  Accelerator accelerator;
  NetworkTech scale_up;
  std::optional<NetworkTech> scale_out;
  int num_gpus = 0;
  ParallelPlan plan;
  TrainingConfig train;
  uint64_t seed = 0;
  // Read for a plan search (load_scenario_for_search): why the file's own plan is not a valid plan
  // for this job (its error, with where), "" when it is. The plan is then a placeholder (tp = pp =
  // cp = 1, dp = num_gpus) that the search ignores.
  std::string invalid_plan;

  int64_t num_microbatches() const;  // per pipeline per step = global_batch / (dp * micro_batch)
  int64_t tokens_per_step() const { return train.global_batch * train.seq_len; }
  std::vector<int> stage_layout() const;              // pp*vpp entries, in virtual-stage order
  // MoE: the load factor the busiest expert-parallel rank runs at (train.moe_load_factor()),
  // capped dropless at what routing can produce: a rank holding e = E / ep experts receives at
  // most min(topk, e) of a token's topk copies, so at most ep x min(topk, e) / topk times the mean
  // (docs/models.md). The lowering, the hardware FLOPs and the capping note all read this one.
  double moe_rank_load() const;
};

// Load a scenario file; overrides are (dotted key, value) pairs applied before parsing.
Scenario load_scenario(const std::string& path, const Catalog& cat,
                       const std::vector<std::pair<std::string, std::string>>& overrides = {});
// As load_scenario, for a plan search: a plan that is not valid for the job (a GPU count below its
// degrees, a batch its micro-batches do not divide, ...) is no error; it is said in
// Scenario::invalid_plan and replaced by a placeholder (plan and sweep search the plan anyway;
// they had refused a --set num_gpus that `sweep --vary num_gpus` accepted; review of 2026-12-05).
Scenario load_scenario_for_search(const std::string& path, const Catalog& cat,
                                  const std::vector<std::pair<std::string, std::string>>& overrides = {});
Scenario parse_scenario_for_search(const std::string& yaml_text, const std::string& name, const Catalog& cat,
                                   const std::vector<std::pair<std::string, std::string>>& overrides = {});
// Parse from YAML text (name is used in messages).
Scenario parse_scenario(const std::string& yaml_text, const std::string& name, const Catalog& cat,
                        const std::vector<std::pair<std::string, std::string>>& overrides = {});
// Parse a scenario mapping that sits inside another file (goodput's inline `training:`): its
// errors name that file, the node's own lines and the key below `key_path` (training.num_gpus).
Scenario parse_scenario_node(const YAML::Node& node, const std::string& file, const std::string& key_path, const Catalog& cat);
// Set the plan's framework-dependent fields from a catalog framework entry.
void apply_framework_defaults(ParallelPlan& p, const Framework& f);
// The plan in `sextant plan`'s notation (tp8 pp4 vpp5 dp32 mb1 zero1 sp tpov rc:none
// interleaved-1f1b ...), so that estimate's, simulate's and plan's texts of one plan are equal:
// degrees of 1 for vpp, cp, ep and etp left out, TP overlap (tpov) and DP overlap turned off
// (no-grad-overlap, no-gather-overlap) named, recompute as rc:MODE with its modules or layers, the
// schedule where there is a pipeline, and an MoE model's dispatcher and EP overlap.
std::string plan_text(const Scenario& s);
// The stage layout in plan_text: "" for the even split, " fewer-first-last" for that rule,
// " layers 26/27/27" for stated stage sizes (so that a plan text says how to reproduce it).
std::string stage_layout_text(const std::vector<int>& stage_layers, const std::string& stage_rule);
// Where a dotted scenario key (training.global_batch) is written: its line and column in the file
// (or in `text` when the scenario was given as text under the name `file`), or "FILE (--set)" when
// one of the override keys `set_keys` set it; nullopt when neither holds it. For errors raised
// after parsing that know the key only (the simulator's budget checks).
std::optional<SourceLocation> scenario_key_location(const std::string& file, const std::string* text, const std::string& dotted,
                                                    const std::vector<std::string>& set_keys);
// Check the plan against the model and system; throws Error naming the rule broken.
void check_plan(const Scenario& s, const SourceLocation& where = {});

}  // namespace sextant
