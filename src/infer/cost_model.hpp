#pragma once
// Cost of one forward pass ("iteration") of an LLM on one model replica: TP x PP devices of one
// accelerator type, running one engine, with given weight / activation / KV-cache formats.
//
// Per iteration the model counts, per tensor-parallel rank and summed over the pipeline stages
// (a token passes every stage in turn):
//  * weight bytes read: every linear layer once per iteration (the input embedding is a row
//    gather and is not streamed); MoE layers read only the experts the iteration's tokens touch,
//    E * (1 - (1 - k/E)^T) of E routed experts for T tokens with top-k routing, plus shared experts;
//    split over the TP ranks, except what every rank holds whole (MLA's q_a/kv_a down-projections,
//    a KV head's K and V projections where tp exceeds the KV heads, the MoE router in 16 bits);
//  * KV-cache bytes: decode reads the attended context of every sequence (capped at the sliding
//    window) in every layer, prefill reads its cached past once per layer, every new token writes
//    its K and V (with layers sharing their KV cache, kv_share_layers, the bytes stored and written
//    are divided, those read are not: each layer's attention reads the shared cache again) (GQA: 2 x
//    kv_heads x head_dim elements per layer, KV heads split over TP and replicated when fewer
//    than TP; MLA: kv_lora_rank + qk_rope_head_dim elements per layer, replicated over TP);
//  * FLOPs: 2 x active linear parameters per new token (the replicated ones on every rank), the LM head for tokens whose logits are
//    needed, attention 4 x heads x head_dim per (query, key) pair per layer (MLA: 2 x heads x
//    (qk_nope + qk_rope) + 2 x heads x v_head_dim);
//  * communication: TP all-reduce twice per layer, EP all-to-all dispatch + combine per MoE layer,
//    PP point-to-point between stages, as ring/latency-bandwidth costs on the scale-up link; a
//    send between stages in different scale-up domains on the system's scale-out fabric.
// Time of pipeline stage s = max(memory_s, compute_s) + (1 - overlap) * min(memory_s, compute_s)
//      + communication_s (its layers' TP/EP exchanges and the send to the next stage),
// with memory at bandwidth x engine bandwidth fraction and compute at the peak of the compute
// dtype (see formats.hpp) x engine GEMM fraction (x dequant fraction for block-quantised weights).
// Latency of a pass = sum over stages + engine overhead per iteration + per sequence (host work:
// scheduling, launch, sampling); the per-iteration overhead of an engine whose profile names
// overhead_reference_layers is per layer, scaled by layers / overhead_reference_layers. Pipeline stages work on different passes at once: with m passes
// in flight the pipeline completes min(m / latency, 1 / bottleneck) passes per second, where
// bottleneck = max(slowest stage, host overhead) (IterationCost::pipeline_period_s).
//
// Layers are split over the PP stages as evenly as possible; the last stage holds the LM head and
// final norm and takes no extra layer when the layers do not divide (the remainder goes to the
// stages before it, from the second-to-last backwards).
//
// MoE under expert parallelism: the EP rank that receives the most routed tokens sets the time.
// Its load is expert_load_factor(T) x the mean for T tokens in the pass (see expert_load_factor);
// it scales the routed-expert FLOPs and the all-to-all bytes, and the experts that rank reads
// (a given factor times the mean rank's touched experts, at most all of its experts; by default
// the expected maximum over ranks of the touched experts). Without EP (experts split over TP)
// every rank holds a slice of every expert and the load is balanced. Group-limited routing (the
// model's moe.router_groups, DeepSeek-V3's node-limited routing) sends a token's experts to few
// ranks: the ranks' loads vary more than under unrestricted routing (see expert_load_factor).
#include <algorithm>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "infer/engine.hpp"
#include "infer/formats.hpp"

namespace sextant::infer {

struct Parallelism {
  int tp = 1, pp = 1, ep = 1;  // ep divides tp: experts are spread over ep ranks of the TP group
  int devices() const { return tp * pp; }
};

struct Link {  // scale-up link between the devices of a replica, per device, one direction
  double bandwidth_bytes_per_s = 0;  // achievable (line rate x achievable fraction)
  double latency_s = 0;
  int domain_devices = 0;  // devices the link joins (the system's scale-up domain); 0: unknown
  // The scale-up topology (NetworkTech::topology): a switch gives any group each device's whole
  // bandwidth; a mesh (MI300X's Infinity Fabric, Gaudi) only the links to the group's own members;
  // a torus (TPU ICI) the links of the axes the group spans (catalog's scale_up_group_share).
  bool mesh = false;
  int torus_dims = 0;
  // What a group of `members` of a replica of `slice` devices drives, per device, one direction.
  double group_bandwidth_bytes_per_s(int members, int slice) const {
    return bandwidth_bytes_per_s * scale_up_group_share(mesh, torus_dims, domain_devices, slice, members);
  }
  // Latency hops of one pass of a ring over the group (catalog's ring_latency_hops: n - 1, on a
  // torus the sum over its block's axes of (extent - 1)).
  double ring_hops(int members, int slice) const { return ring_latency_hops(torus_dims, domain_devices, slice, members); }
  // The scale-out fabric between scale-up domains, per device, one direction (the node's NICs x
  // port rate x achievable fraction over its devices, as training's Fabric): what a pipeline send
  // between stages in different domains crosses. 0: unknown (priced on the scale-up link).
  double scale_out_bandwidth_bytes_per_s = 0;
  double scale_out_latency_s = 0;
};

// What a device-hour of a deployment costs and how its devices are rented (resolve_price,
// deployment.cpp): a named system's catalog node price over its devices per node, rented in whole
// nodes as `sweep` rents them; else the device profile's price (data/infer/devices.yaml), per
// device. Before 2026-12-06 infer read the devices.yaml estimate only: an H100 of aws-p5-efa cost
// 2.5 USD/h where sweep charged the catalog's sourced 55.04 USD/h per 8-GPU node (review).
struct DevicePrice {
  Sourced usd_per_device_hour;  // unknown: no cost figures
  int node_devices = 0;         // > 0: rented in whole nodes of this many devices
  std::string source;           // where the price came from (a result's price_source)
};

// The whole nodes of node_devices (> 0) that `instances` engine instances (replicas, or a
// disaggregated deployment's prefill and decode instances together) of instance_devices each, in
// `stages` pipeline stages, are placed on. What must lie inside one node is a stage's TP group
// (instance_devices / stages devices; expert parallelism spreads over that group, ep dividing
// tp): Sextant refuses a TP group straddling nodes, while pipeline stages send to each other over
// the scale-out fabric by design. A group that fits a node lies inside one, floor(node / group)
// groups, of any instances, sharing a node; one larger than a node takes ceil(group / node) nodes
// of its own. At stages = 1 the group is the instance. Prefill and decode instances share nodes as
// colocated replicas do (vLLM's disaggregated-prefill example runs a prefill and a decode instance
// on two GPUs of one machine; the KV link between them is the study's
// disaggregation.link_gb_per_s, not derived from placement).
// Before 2026-12-06 the devices of all instances were rounded up together: 4 TP6 replicas on
// 8-GPU nodes billed 3 nodes where they need 4 (review). Then whole instances were packed: 4
// replicas of TP2 x PP3 (6 devices) billed a node each, 4 nodes where their 12 TP2 groups fill 3
// (review).
inline int64_t billed_nodes(int64_t instances, int64_t instance_devices, int node_devices, int stages = 1) {
  if (node_devices <= 0 || instances <= 0 || instance_devices <= 0 || stages <= 0) return 0;
  const int64_t groups = instances * stages, group_devices = std::max<int64_t>(1, instance_devices / stages);
  const int64_t per_node = node_devices / group_devices;
  if (per_node >= 1) return (groups + per_node - 1) / per_node;
  return groups * ((group_devices + node_devices - 1) / node_devices);
}

// The devices paid for: those of billed_nodes under a node price (node_devices > 0), else the
// instances' own devices (0: priced per device).
inline int64_t billed_devices(int64_t instances, int64_t instance_devices, int node_devices, int stages = 1) {
  return node_devices > 0 ? billed_nodes(instances, instance_devices, node_devices, stages) * node_devices : instances * instance_devices;
}

// How many more instances the billed nodes hold at no extra cost: the free places of stage groups
// in them over the stages of an instance (0 for a group larger than a node, whose nodes are its own).
inline int64_t spare_instances(int64_t instances, int64_t instance_devices, int node_devices, int stages = 1) {
  if (node_devices <= 0 || instance_devices <= 0 || stages <= 0) return 0;
  const int64_t per_node = node_devices / std::max<int64_t>(1, instance_devices / stages);
  return per_node >= 1 ? (billed_nodes(instances, instance_devices, node_devices, stages) * per_node - instances * stages) / stages : 0;
}

struct Deployment {
  ModelConfig model;
  Accelerator accel;
  EngineProfile engine;
  Parallelism par;
  NumberFormat weight = parse_format("fp16"), activation = parse_format("fp16"), kv = parse_format("fp16");
  // Where the weight format came from, for the result's notes: "given", "checkpoint" (the
  // config.json's quantization_config) or "default" (bf16).
  std::string weight_format_source = "given";
  std::string weight_format_given;  // the name given, lower case ("" when not given)
  std::vector<std::string> data_notes;  // about the inference data files (a devices.yaml entry that never applies)
  // The weight format applies to the MoE experts only; the other linear layers (attention, router,
  // dense FFNs) are 16-bit (gpt-oss's MXFP4 checkpoint). False: to every linear layer.
  bool weight_experts_only = false;
  // "given", "default" (bf16), "checkpoint" (fp8 activations of an FP8 checkpoint run W8A8),
  // "engine" (the weights' format, which the engine quantises activations into on the fly:
  // EngineProfile::dynamic_activation_formats) or "engine_fallback" (bf16 where the device or the
  // engine's kernels cannot multiply in that format: W8A16).
  std::string activation_format_source = "default";
  // The activation format given when the device has no peak for it, or (2026-12-07 review) when no
  // engine multiplies the weight-only integer weights by it (activation then holds the 16-bit
  // format it runs in); empty otherwise. activation_fallback_why: the latter's reason
  // (weight_only_activation_gap), empty for the former.
  std::string activation_fallback_from, activation_fallback_why;
  Link link;
  DevicePrice price;  // the catalog's or devices.yaml's; a study's cost.usd_per_device_hour replaces it
  // Cross-layer KV sharing: groups of this many consecutive layers share one KV cache (as in
  // cross-layer attention and Apple's on-device models); 1 = every layer has its own.
  int kv_share_layers = 1;
  // MoE under EP: routed tokens of the busiest EP rank over the mean (>= 1; a capacity factor with
  // padded expert shapes is this factor). 0: the model's moe.capacity_factor when > 0, else the
  // expected maximum of top-k routing, group-limited where the model says (CostModel::expert_load_factor).
  double expert_load_factor = 0;
  // The longest context (prompt + output) a request may have: max_model_len when given, else the
  // model's window (max_seq_len); 0 when neither is known.
  int64_t context_window_tokens = 0;
  // Throws Error when the deployment is inconsistent (tp not dividing heads, ep not dividing tp, ...).
  void check() const;
};

// One forward pass described by aggregates, so that its cost is O(1) whatever the batch.
struct Batch {
  int64_t decode_seqs = 0;           // sequences in their decode phase
  double decode_tokens = 0;          // their new tokens (decode_seqs, or more when verifying drafts)
  double decode_context_tokens = 0;  // sum over decode tokens of the attended context (window-capped): attention pairs
  // Sum over decode sequences of the cached context they read: once per sequence, however many
  // tokens it verifies (a k+1-token speculative verify reads each KV block once, as FlashAttention
  // and FlashInfer tile the query tokens of a sequence together; it had been read k+1 times).
  double decode_kv_read_tokens = 0;
  int64_t prefill_seqs = 0;          // sequences with prompt tokens in this pass
  double prefill_tokens = 0;         // new prompt tokens
  double prefill_attention_pairs = 0;// sum over new prompt tokens of the keys each attends to
  double prefill_past_tokens = 0;    // cached context the prompt chunks read (window-capped)
  int64_t logits_tokens = 0;         // tokens whose logits are computed
  double tokens() const { return decode_tokens + prefill_tokens; }
  int64_t seqs() const { return decode_seqs + prefill_seqs; }
};

struct IterationCost {
  // total_s: latency of the pass alone (all stages in turn + overhead); compute/memory/comm: sums
  // over stages.
  double total_s = 0, compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
  double stage_max_s = 0;   // slowest pipeline stage (== total_s - overhead_s when pp = 1)
  double bottleneck_s = 0;  // max(stage_max_s, overhead_s): the pipeline's resource period
  double expert_load_factor = 1;  // busiest EP rank's routed tokens over the mean (1 without EP)
  // Time between pass completions when `in_flight` identical passes cycle through the pipeline:
  // max(total_s / in_flight, bottleneck_s) (closed network of deterministic stations).
  double pipeline_period_s(int in_flight) const {
    return std::max(total_s / std::max(1, in_flight), bottleneck_s);
  }
  double flops = 0;         // per TP rank, all stages
  double memory_bytes = 0;  // per TP rank, all stages
  double comm_bytes = 0;    // per TP rank, all stages
  // One device's share: the pipeline stage with the most (= flops / memory_bytes at pp 1).
  double flops_device_max = 0, memory_bytes_device_max = 0;
};

class CostModel {
 public:
  explicit CostModel(Deployment d);
  const Deployment& deployment() const { return d_; }

  IterationCost iteration(const Batch& b) const;
  // The same, also writing the time of each pipeline stage (size pp; stage s includes its send to
  // stage s + 1) into *stage_s when not null.
  IterationCost iteration(const Batch& b, std::vector<double>* stage_s) const;
  // Layers of each pipeline stage.
  std::vector<int> stage_layers() const;
  // Busiest EP rank's routed tokens over the mean for a pass of `tokens` tokens (1 without EP):
  // the deployment's expert_load_factor, else the model's capacity factor, else the expected
  // maximum over the ep ranks of top-k routing. A rank's load is a sum of T independent per-token
  // counts of its experts among the token's k, mean mu = T k / ep. Unrestricted (uniform) routing:
  // each count hypergeometric (k experts of E, E/ep of them on the rank), variance
  // T k (1/ep)(1 - 1/ep)(E - k)/(E - 1). Group-limited routing (moe.router_groups G,
  // router_groups_per_token M: a token picks M of the G equal groups uniformly, then its k experts
  // uniformly among those groups' experts; experts held contiguously, E/ep per rank): the variance
  // from the probability that a token routes to both of two experts of one group or of two groups
  // (rank_routed_variance_per_token), of the rank whose experts share groups most. Factor
  // 1 + z_ep sigma / mu, with z_ep Blom's (1958) approximation of the expected maximum of ep
  // standard normals, capped at the largest possible load (ep min(k, E/ep) / k).
  double expert_load_factor(double tokens) const;
  // Where the factor comes from: "deployment", "catalog capacity_factor", "uniform top-k routing",
  // "group-limited top-k routing" or "" without EP.
  std::string expert_load_source() const;
  // Replaces the engine constants (cheap: the model arithmetic is kept). Used by calibration.
  void set_engine(const EngineProfile& e);

  // Model arithmetic (whole model unless "per_device").
  double weight_bytes() const { return weight_bytes_total_; }  // stored weights, all devices
  double weight_bytes_per_device() const;                       // stored on one device
  double kv_bytes_per_token_per_layer() const { return kv_token_layer_bytes_; }
  double kv_bytes_per_token() const { return kv_token_layer_bytes_ * d_.model.layers; }
  double kv_bytes_per_token_per_device() const;  // stored on one device, every layer holding the token
  // Layers of the busiest device's stage whose cache holds a sliding window only (engines free the
  // blocks a window has passed: vLLM's hybrid KV cache manager, SGLang's SWA pool, llama.cpp's SWA
  // cache, TensorRT-LLM's variable-window cache); 0 without a window.
  int kv_windowed_layers_per_device() const;
  int kv_layers_per_device() const { return (d_.model.layers + d_.par.pp - 1) / d_.par.pp; }
  // Tokens a windowed layer holds for a sequence of `context` tokens whose last `new_tokens` were
  // written by the pass in flight: the window, plus the pass's tokens beyond its first (a chunk's
  // queries reach back a window each), at most the context.
  double kv_window_held(double context, double new_tokens = 1) const;
  // KV bytes one device stores for a sequence of `context` tokens (new_tokens as above); the
  // whole model's for kv_bytes.
  double kv_bytes_per_device(double context, double new_tokens = 1) const;
  double kv_bytes(double context, double new_tokens = 1) const;
  // The longest context whose KV fits `free_bytes` on one device (+inf when every layer is windowed
  // and the window fits). extra_bytes_per_token: a cache beside this one that holds every token
  // (a speculative draft's, per device), as serve counts it.
  double kv_max_context_per_device(double free_bytes, double extra_bytes_per_token = 0) const;
  double linear_flops_per_token() const { return 2.0 * linear_params_active_; }  // no LM head
  double head_flops_per_token() const { return 2.0 * head_params_; }
  double attention_flops_per_pair() const { return attn_flops_pair_layer_ * d_.model.layers; }
  double decode_attention_flops_per_pair() const { return attn_flops_pair_decode_layer_ * d_.model.layers; }
  double compute_rate_flops_per_s() const { return compute_rate_; }     // GEMM rate used
  double memory_rate_bytes_per_s() const { return memory_rate_; }       // bandwidth used
  DType compute_type() const { return cdtype_; }
  DType attention_type() const { return adtype_; }
  double attended(double context) const;  // context capped at the sliding window (whole tokens)

  // Helpers building common batches.
  // n sequences each prefilling `prompt` new tokens after `past` cached tokens (logits of the last).
  Batch prefill(int64_t seqs, int64_t prompt, int64_t past = 0) const;
  // Adds to b `seqs` prompt chunks of `new_tokens` each, of sequences holding `past` tokens in the
  // cache: every new token attends to the cached keys and to the chunk's own before it, the cache is
  // read once per chunk, and the chunk that completes the prompt computes its last token's logits.
  // Serve's prefill work item (Instance::start) and `infer estimate`'s prefill passes are both built
  // by it, so that the two price a chunk alike (2026-12-06 review: estimate had priced a chunked
  // prompt as one pass).
  void add_prefill_chunk(Batch& b, double past, double new_tokens, bool completes, int64_t seqs = 1) const;
  // n sequences each decoding one token with `context` tokens already in the cache; with
  // tokens_per_seq > 1, each verifying that many (a speculative step's k + 1): the context is read
  // once per sequence, attended and given logits by every token, as serve's verify pass.
  Batch decode(int64_t seqs, double context, int tokens_per_seq = 1) const;
  // Sum over i = 1..n of min(past + i, window): keys attended by a chunk of n new tokens.
  double attention_pairs(double past, double n) const;

 private:
  void apply_engine();
  Deployment d_;
  DType cdtype_ = DType::FP16;
  DType adtype_ = DType::FP16;  // attention's (attention_dtype)
  double compute_rate_ = 0, attn_rate_ = 0, memory_rate_ = 0;
  double overlap_ = 1, iter_overhead_s_ = 0, seq_overhead_s_ = 0;
  double weight_bytes_total_ = 0;
  double max_stage_device_weight_bytes_ = 0;  // resident weight bytes of one device of the largest pipeline stage
  double expert_bytes_ = 0;            // one routed expert of one layer
  int moe_layers_ = 0;
  double linear_params_active_ = 0, head_params_ = 0;
  struct Stage {
    int layers = 0, moe_layers = 0;
    double dense_read_bytes = 0;   // non-routed weights split over TP read per pass (+ head and final norm on the last)
    double rank_read_bytes = 0;    // weights every TP rank holds whole, read per pass by each (per rank)
    double dense_params = 0;       // active linear parameters outside routed experts (no head), the model's
    double sharded_params = 0;     // of those, the ones split over TP (the model's)
    double rank_params = 0;        // linear parameters one rank applies whole (replicated; per rank)
    double routed_params = 0;      // active routed-expert parameters per token (top-k experts)
    bool head = false;
  };
  std::vector<Stage> stages_;
  // Group-limited routing (see expert_load_factor): one EP rank's count of a token's routed experts
  // has this variance (a sum over the rank's experts and their pairs); its count of the experts
  // that `tokens` tokens touch has rank_touched_variance.
  double rank_routed_variance_per_token() const;
  double rank_touched_variance(double tokens) const;
  double z_ep_ = 0;  // expected maximum of ep standard normals
  bool routing_max_ = false;  // the load factor is the expected maximum of top-k routing (no given factor)
  bool grouped_routing_ = false;  // the model routes group-limited (moe.router_groups, router_groups_per_token < groups)
  // Probability that one token routes to both of two given experts of one group, of two groups.
  double pair_same_group_ = 0, pair_two_groups_ = 0;
  // Ordered pairs of one EP rank's experts that lie in one group: the rank with the most (its
  // load varies most); the rank's other pairs span two groups.
  double rank_same_group_pairs_ = 0;
  double attn_flops_pair_layer_ = 0;         // prefill (and any attention over freshly projected K, V)
  double attn_flops_pair_decode_layer_ = 0;  // decode over the cache: MLA's absorbed form
  double past_upproj_flops_token_layer_ = 0;  // MLA: up-projecting a cached latent token for a prefill chunk
  double kv_token_layer_bytes_ = 0, kv_token_layer_bytes_rank_ = 0;  // stored (and written): per cache
  // Read: per attending layer, one layer's K/V on one TP rank whether or not the layer shares its
  // cache (kv_share_layers); see the constructor (review of 2026-12-06).
  double kv_token_layer_read_bytes_rank_ = 0;
};

// The expert-parallel degrees Deployment::check accepts for `model` at tensor parallelism `tp`,
// ascending: 1, and each ep > 1 that divides tp and the routed experts and whose tp / ep ranks
// split a routed expert's FFN evenly (a dense model: 1 only).
std::vector<int> valid_expert_parallel(const ModelConfig& model, int tp);

// The largest busiest-EP-rank load over the mean that top-k routing can give at expert parallelism
// `ep`: every token sends min(k, E / ep) of its k routed experts to one rank, mean k / ep a rank, so
// ep x min(k, E / ep) / k. 1 for a dense model or ep <= 1. A given expert_load_factor above it is
// refused (it had been taken as given: 1e9 ran at 0.00038 decode tokens/s; 2026-12-07 review).
double max_expert_load_factor(const ModelConfig& model, int ep);
// Its formula with the figures, for the messages: "ep x min(k, E/ep) / k = 2 x min(8, 128/2) / 8 (...)".
std::string max_expert_load_factor_text(const ModelConfig& model, int ep);

// Achievable link of a system's scale-up network (bandwidth x achievable fraction, latency).
Link scale_up_link(const Catalog& cat, const System& s);

}  // namespace sextant::infer
