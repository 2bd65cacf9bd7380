#pragma once
// The catalogs: accelerators, interconnect technologies, systems and models, read from YAML
// files under <data>/catalog/{accelerators,networks,systems,models,frameworks}/. Each file holds
// `sources:` (citation id -> text, shared by its entries) and `entries:` (a list).
// Every number of an accelerator, network or system carries its provenance (see Sourced);
// model entries carry one `source` (the config they were read from).
//
// A Catalog is immutable after load and safe to share between threads.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/yaml_reader.hpp"

namespace sextant {

// Numeric formats. Names are the catalog's dtype keys.
enum class DType { FP64, FP32, TF32, BF16, FP16, FP8, FP4, INT8, INT4 };
const std::vector<std::string>& dtype_names();
DType parse_dtype(const std::string& s, const SourceLocation& where);
std::string to_string(DType d);
double dtype_bytes(DType d);
// Training in fp32 or tf32 (fp32 storage): fp32 activations and weights, no separate master copy.
inline bool full_precision(DType d) { return d == DType::FP32 || d == DType::TF32; }

struct PowerCapPoint {  // throughput under a power limit, where published
  double power_w = 0;
  Sourced clock_mhz;
  Sourced bf16_tflops;  // FLOP/s (the catalog's TFLOP/s scaled on load)
  // bf16_tflops over the entry's bf16 peak, fixed at load: the clock at this limit as a fraction of
  // the full one (0 when either is unknown). A swept peak keeps the ratio, not the absolute rate.
  double clock_ratio = 0;
};

// Half-dimension of each GEMM role (elements), for gemm_shape_factor below.
struct GemmHalfDims {
  double m = 0, n = 0, k = 0;
};

// Read bandwidth of one core against the working-set size it streams from (a sweep from L1 to
// DRAM, `sextant bench --suite cache_bandwidth`), for the GEMM operand-traffic term below.
struct WorkingSetBandwidth {
  double working_set_bytes = 0;
  double bytes_per_s = 0;
};
struct WorkingSetBandwidthTable {
  std::vector<WorkingSetBandwidth> points;  // working sets strictly increasing; empty: not given
  std::string source, estimated;            // provenance of the whole table (one of the two)
  bool known() const { return !points.empty(); }
};

struct Accelerator {
  std::string id, name, vendor, kind;  // kind: gpu, tpu, npu, soc
  // The operating system a SoC's applications run under (macos, ios, android, linux, windows),
  // optional: it sets how much of the memory an application may take (data/infer/devices.yaml,
  // `match: platform:ios`); "" when not stated.
  std::string platform;
  int year = 0;
  std::map<DType, Sourced> peak_flops;  // dense FLOP/s (or OP/s for int) by dtype
  Sourced memory_bytes, memory_bandwidth_bytes_per_s, cache_bytes, compute_units;
  WorkingSetBandwidthTable bandwidth_by_working_set;  // optional (calibrated CPU hosts)
  Sourced tdp_w, idle_w, price_usd;
  std::vector<PowerCapPoint> power_caps;
  // Efficiency parameters of the models (see docs/models.md):
  std::map<DType, Sourced> gemm_peak_fraction;  // max achievable GEMM rate / peak (MAMF)
  Sourced gemm_half_dim;               // GEMM dimension at which shape efficiency halves
  // Optional per-role half-dimensions (a BLAS is not symmetric in m, n and k: packing and
  // micro-kernel tiles differ); each one that is unknown is gemm_half_dim.
  Sourced gemm_half_dim_m, gemm_half_dim_n, gemm_half_dim_k;
  // Operand footprint (bytes) up to which gemm_peak_fraction and the half-dimensions were fitted:
  // streaming operands from the memory level of that footprint is part of the fitted efficiency.
  // Given together with bandwidth_by_working_set (gemm_operand_traffic_s); unknown: no traffic term.
  Sourced gemm_fitted_footprint_bytes;
  Sourced memory_bandwidth_fraction;   // achievable / peak memory bandwidth
  Sourced attention_fraction;          // flash-attention FLOP rate / GEMM rate
  Sourced kernel_overhead_s;           // fixed cost per kernel launch
  Sourced comm_compute_interference;   // fractional slow-down of compute overlapped with comm
  Sourced sustained_compute_fraction;  // sustained (training, power- and clock-limited) / burst MAMF rate
  // Rate of an FP8 GEMM with block scales (DeepSeek-style 1x128 / 128x128, Transformer Engine's
  // Float8BlockScaling) over a per-tensor-scaled one, on tensor cores without native block scales
  // (Hopper applies them in the main loop); unknown: 1 (Blackwell's MX formats scale natively).
  Sourced fp8_block_scaled_gemm_fraction;
  // Whether the part runs FP8 GEMMs with block scales at all (Transformer Engine's
  // Float8BlockScaling, training.fp8_recipe: blockwise), the entry's `fp8_block_scaling: {value:
  // true|false, source: ...}`: value 1 (true) or 0 (false); unknown: taken as able, as before.
  // Ada (compute capability 8.9) has per-tensor FP8 only (review, 2026-12-07: an L40S had run
  // blockwise, priced as per-tensor FP8, without a word).
  Sourced fp8_block_scaling;
  bool lacks_fp8_block_scaling() const { return fp8_block_scaling.known && fp8_block_scaling.value == 0; }
  std::map<std::string, std::string> sources;  // citation id -> text (from its file)
  std::string file;

  double peak(DType d) const;   // FLOP/s; throws Error when unknown for that dtype
  bool has_peak(DType d) const;
  double gemm_fraction(DType d) const;  // falls back to bf16's, then a documented default
  // The half-dimension of each role: gemm_half_dim_<role> where known, else gemm_half_dim where
  // known, else default_half_dim.
  GemmHalfDims gemm_half_dims(double default_half_dim) const;
};

// The GEMM shape-efficiency model shared by `estimate` (compute_time_s) and `calibrate` (which
// fits it): the achieved rate of an (m x k)(k x n) GEMM is
//   peak x gemm_peak_fraction x gemm_shape_factor(m, n, k, {h_m, h_n, h_k})
// where each dimension x of role r contributes x / (x + h_r), normalised so that the 8192^3
// reference shape has factor 1, capped at 1 above it. gemm_peak_fraction is a MAMF rate, the best
// of a shape sweep (2048x2048x13312 on the H100), not a rate measured at 8192^3; the catalog's
// GPU half-dimensions are fitted to step times (docs/validation.md, Component fidelity), so at
// such a best shape this model reads well below the measured kernel. h_r is the catalog's gemm_half_dim_<r>, or gemm_half_dim for every role where an
// entry gives only that (Accelerator::gemm_half_dims).
inline double gemm_dim_factor(double x, double half_dim) {
  const double v = (x / (x + half_dim)) / (8192.0 / (8192.0 + half_dim));
  return v < 1.0 ? v : 1.0;
}
// fraction x the shape factor, multiplied left to right (fraction x f(m) x f(n) x f(k): the
// rounding every estimate output was made with; a permutation of m, n, k may differ in the last bit).
inline double gemm_efficiency(double fraction, double m, double n, double k, const GemmHalfDims& h) {
  return fraction * gemm_dim_factor(m, h.m) * gemm_dim_factor(n, h.n) * gemm_dim_factor(k, h.k);
}
inline double gemm_shape_factor(double m, double n, double k, const GemmHalfDims& h) { return gemm_efficiency(1.0, m, n, k, h); }
inline double gemm_shape_factor(double m, double n, double k, double half_dim) {
  return gemm_shape_factor(m, n, k, GemmHalfDims{half_dim, half_dim, half_dim});
}

// The bandwidth of the memory level that holds a working set of `bytes`: the bandwidth measured at
// the smallest tabulated working set >= bytes (the sweep's level bracket, rounded up), the last
// row's beyond the table, and never more than a smaller working set's row (the running minimum:
// a table that rises with measurement noise reads as its non-increasing envelope). The table must
// be non-empty with increasing working sets.
// Why a system's scale-up domain of domain_gpus is not valid with nodes of gpus_per_node (what is
// wrong, then what would be valid), or nothing: a domain is whole nodes. The catalog's reader and
// sweep's --vary system.scale_up_domain both ask it.
std::optional<std::pair<std::string, std::string>> scale_up_domain_problem(int domain_gpus, int gpus_per_node);

double bandwidth_at_working_set(const std::vector<WorkingSetBandwidth>& table, double bytes);

// GEMM operand footprint: every element of A (m x k), B (k x n) and C (m x n) once.
inline double gemm_footprint_bytes(double m, double n, double k, double element_bytes) {
  return (m * k + k * n + m * n) * element_bytes;
}

// The operand-traffic time of an (m x k)(k x n) GEMM that `estimate` adds to its compute time
// (docs/bench.md, "Operand traffic"): the footprint F = gemm_footprint_bytes streamed once from
// the level that holds it, beyond what the fitted efficiency already contains (streaming from the
// level of the fitted footprint F_fit):
//   F x max(0, 1 / bw(F) - 1 / bw(F_fit))      bw = bandwidth_at_working_set
// so 0 while F <= F_fit or F lies in the same level, and F / bw_dram - F / bw(F_fit) for an
// operand re-streamed from DRAM. Added to (not max'ed with) the compute time: a BLAS core packs
// operand panels between micro-kernel calls, so streaming them does not overlap the arithmetic
// (measured: docs/bench.md).
double gemm_operand_traffic_s(double m, double n, double k, double element_bytes, const std::vector<WorkingSetBandwidth>& table,
                              double fitted_footprint_bytes);

struct NetworkTech {
  std::string id, name, kind;  // kind: scale_up (NVLink, Infinity Fabric, ICI), scale_out (IB, RoCE), pcie
  Sourced bandwidth_bytes_per_s;     // per GPU (scale-up) or per port (scale-out), one direction
  Sourced latency_s;                  // small-message one-way latency of a collective step
  Sourced achievable_fraction;        // nccl-tests bus bandwidth / line rate for ring collectives
  Sourced in_network_reduction_fraction;  // NVLS/SHARP all-reduce busbw / line rate; unknown = none
  // The group size that bus bandwidth was measured at (nccl-tests' busbw = algbw x 2(n-1)/n): an
  // in-switch all-reduce moves each member's buffer up and the result down whatever the group
  // size, so its algorithm bandwidth, busbw x n / (2(n-1)) at the measured n, holds for every n.
  Sourced in_network_reduction_measured_gpus;
  // The fixed time of one in-switch all-reduce (NCCL's tuning model: NVLS on NVLink 25 us); unknown:
  // two scale-up steps (latency_s each).
  Sourced in_network_reduction_latency_s;
  // How the scale-up devices connect: "switch" (NVSwitch: any group gets each member's whole
  // bandwidth) or "mesh" (direct links to every peer, MI300X's Infinity Fabric, Gaudi's RoCE
  // all-to-all: a group of n of the domain's D devices uses n-1 of its D-1 links) or "torus" (TPU
  // ICI: each chip links to its two neighbours along each of torus_dims axes; the bandwidth is the
  // chip's total over all 2 x torus_dims ports, of which a group confined to k axes uses k/dims).
  std::string topology = "switch";
  int torus_dims = 0;  // axes of a torus (2 or 3); 0 otherwise
  std::map<std::string, std::string> sources;
  std::string file;
};

// The extents of a group of `members` chips on a torus of `dims` (<= 8) axes, written to
// group[0..dims): the job's slice of `slice` chips (0: the domain's `domain`) is shaped as TPU
// slices are, its prime factors, largest first, each onto the shortest axis (64 chips on three
// axes: 4x4x4; 4 chips: 2x2x1; 6,144: 24x16x16); the group takes the most compact block the slice
// holds, its own prime factors, largest first, each onto its shortest axis with room (8 of a v5e
// pod: 4x2; 16 of a 4x4x4 slice: 4x2x2), as a device mesh maps a parallel axis onto physical ones.
inline void torus_group_extents(int dims, int domain, int slice, int members, int64_t* group) {
  auto primes_of = [](int64_t n) {
    std::vector<int64_t> p;
    for (int64_t f = 2; f * f <= n; ++f)
      while (n % f == 0) {
        p.push_back(f);
        n /= f;
      }
    if (n > 1) p.push_back(n);
    return p;
  };
  int64_t ext[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  const int64_t chips = slice > 1 ? std::min(slice, domain) : domain;
  const auto sp = primes_of(std::max<int64_t>(1, chips));
  for (auto it = sp.rbegin(); it != sp.rend(); ++it) *std::min_element(ext, ext + dims) *= *it;
  for (int a = 0; a < dims; ++a) group[a] = 1;
  const auto gp = primes_of(std::max(1, members));
  for (auto it = gp.rbegin(); it != gp.rend(); ++it) {
    int best = -1;
    for (int a = 0; a < dims; ++a)
      if (group[a] * *it <= ext[a] && (best < 0 || group[a] < group[best])) best = a;
    if (best < 0)  // no axis has room for the factor: the one with the most room takes it
      for (int a = 0; a < dims; ++a)
        if (best < 0 || static_cast<double>(ext[a]) / group[a] > static_cast<double>(ext[best]) / group[best]) best = a;
    group[best] *= *it;
  }
}

// Share of a member's scale-up bandwidth that a group of `members` in one domain of `domain`
// devices drives (NetworkTech::topology): 1 on a switch or for the whole domain; on a mesh the
// links to its own members, (members - 1) / (domain - 1); on a torus of `torus_dims` axes, the
// ports its members use of their 2 x dims in the group's block (torus_group_extents): along an
// axis the block spans by 3 or more both, by 2 one (its one neighbour there), by 1 none; a pair of
// neighbours the one link between them, 1 / (2 dims). One rule for training's Fabric::up_share
// and inference's links. (Before 2026-12-05 the slice was a cube of side slice^(1/dims) filled
// axis by axis, k axes giving k / dims: a 4-chip group in a 2x2 slice had all 4 ports where its
// ring has 2 neighbours, and the same group got more bandwidth in a smaller slice.)
inline double scale_up_group_share(bool mesh, int torus_dims, int domain, int slice, int members) {
  if (domain <= 1 || members >= domain) return 1.0;
  if (mesh) return static_cast<double>(std::max(1, members - 1)) / (domain - 1);
  if (torus_dims > 1) {
    if (members <= 2) return 0.5 / torus_dims;
    const int dims = std::min(torus_dims, 8);
    int64_t g[8];
    torus_group_extents(dims, domain, slice, members, g);
    double ports = 0;
    for (int a = 0; a < dims; ++a) ports += g[a] >= 3 ? 2 : g[a] == 2 ? 1 : 0;
    return std::clamp(ports / (2.0 * torus_dims), 0.5 / torus_dims, 1.0);
  }
  return 1.0;
}

// All-to-all on a torus: a member's bytes to a peer travel its hop distance, each hop on a link,
// so the links carry sum(distances) / (n - 1) times what a switch's would, over the group's block
// (torus_group_extents) taken as wrapped rings: sum over its axes of (n / g) floor(g^2 / 4). 16
// members on one v5e axis: 64 / 15 = 4.3; a 4x4 block 32 / 15; 1 off a torus.
inline double torus_all_to_all_hop_factor(int torus_dims, int domain, int slice, int members) {
  if (torus_dims <= 1 || members <= 2 || domain <= 1) return 1.0;
  const int dims = std::min(torus_dims, 8);
  int64_t g[8];
  torus_group_extents(dims, domain, slice, members, g);
  double sum = 0;
  for (int a = 0; a < dims; ++a)
    if (g[a] > 1) sum += static_cast<double>(members) / g[a] * std::floor(static_cast<double>(g[a]) * g[a] / 4.0);
  return std::max(1.0, sum / (members - 1));
}

// Latency hops of one pass of a ring collective over `members` of a domain of `domain` devices:
// members - 1, except on a torus of `torus_dims` axes, where the collective runs a ring along each
// axis of the group's block (torus_group_extents) in turn (reduce-scatter axis by axis, then
// all-gather back; the multi-dimensional all-reduce of Kumar et al., "Exploring the limits of
// concurrency in ML training on Google TPUs", MLSys 2021): the sum over the axes of (extent - 1).
// One rule for training's Fabric::up_ring_hops and inference's TP all-reduce.
inline double ring_latency_hops(int torus_dims, int domain, int slice, int members) {
  if (torus_dims <= 1 || members <= 2 || domain <= 1) return static_cast<double>(std::max(0, members - 1));
  const int dims = std::min(torus_dims, 8);
  int64_t g[8];
  torus_group_extents(dims, domain, slice, members, g);
  double hops = 0;
  for (int a = 0; a < dims; ++a) hops += static_cast<double>(g[a] - 1);
  return hops;
}

struct System {
  std::string id, name;
  std::string accelerator;  // accelerator id
  int gpus_per_node = 8;
  // Scale-up domain (NVLink/NVSwitch island); may exceed gpus_per_node (NVL72 racks).
  std::string scale_up_network;
  int scale_up_domain = 8;
  // Scale-out fabric.
  std::string scale_out_network;
  int nics_per_node = 8;
  Sourced nic_bandwidth_bytes_per_s;  // overrides the network's port bandwidth when known
  std::string topology;               // rail-optimized-fat-tree, fat-tree, torus, ...
  // Leaf/spine level: nodes whose NICs (of one rail) attach to one leaf switch (unknown = one
  // non-blocking leaf level), and the leaf's uplink (leaf-to-spine) oversubscription: downlink
  // capacity / uplink capacity, >= 1. Only traffic that leaves a leaf pays it.
  Sourced leaf_nodes;
  double oversubscription = 1.0;
  Sourced storage_bandwidth_bytes_per_s;  // shared checkpoint storage, aggregate
  Sourced node_price_usd_per_hour;
  // Maximum input power of one node, GPUs included (the datasheet's "system power usage ... max"):
  // beyond its GPUs' TDP it is the host, NICs, switches and fans that whole-node perf/W counts.
  Sourced node_power_w;
  std::map<std::string, std::string> sources;
  std::string description;
  std::string file;
};

// A training framework (software stack and version): how it implements parallelism where
// frameworks differ in ways the step time depends on. Each property carries its source text.
// A scenario naming a framework takes these as its plan defaults; explicit plan keys win.
struct FrameworkProperty {
  std::string value;   // as written in the catalog (validated by the parser); lists: comma-joined
  std::string source;  // citation or stated basis
  std::vector<std::string> items;  // list-valued properties: the items, in the canonical order of the valid set
};
// The plan features a software stack offers (`capabilities:` of a framework entry): what
// `sextant plan` may propose for a scenario that names the framework (docs/plan.md, "Framework
// capabilities"). `stated` is false when the entry gives no capabilities block: no restriction.
// Every item carries its source; when the block is given every key is required.
struct FrameworkCapabilities {
  bool stated = false;
  // "true" | "false"
  FrameworkProperty tensor_parallel, pipeline_parallel, context_parallel, expert_parallel, sequence_parallel;
  FrameworkProperty tp_comm_overlap;       // TP communication overlapped with GEMMs (userbuffers)
  FrameworkProperty overlap_grad_reduce;   // DP gradient reduction overlapped with the backward
  FrameworkProperty overlap_param_gather;  // distributed-optimizer / ZeRO-3 parameter gather overlapped
  FrameworkProperty flash_attention;       // attention without materialised scores
  // Lists
  FrameworkProperty recompute;             // of none, selective, full
  FrameworkProperty recompute_modules;     // of recompute_module_names(): the modules selective recompute may name
  FrameworkProperty recompute_block;       // "true" | "false": full recompute of only some layers per chunk (block method)
  FrameworkProperty zero_stages;           // of 0, 1, 2, 3 (0: replicated optimizer)
  FrameworkProperty pipeline_zero_stages;  // the ZeRO stages usable together with pp > 1
  FrameworkProperty schedules;             // pipeline schedules, of 1f1b, interleaved-1f1b, gpipe, zb-h1
};
// The modules selective recompute can name (training.recompute_modules, Megatron-Core's
// --recompute-modules), in the order of the RecomputeModule flags (scenario.hpp).
const std::vector<std::string>& recompute_module_names();

struct Framework {
  std::string id, name, description;
  // ZeRO-3 / FSDP parameter gathering: one collective per layer (FSDP flat parameters, coalesced
  // prefetch buckets) or one per parameter tensor.
  FrameworkProperty zero3_gather;  // "layer" | "tensor"
  // With full activation recompute, parameters released after the forward are gathered again for
  // the recompute forward, then again for the backward (DeepSpeed ZeRO-3); FSDP keeps them.
  FrameworkProperty zero3_regather_for_recompute;  // "true" | "false"
  // Whether a collective that spans nodes spreads its inter-node traffic over all NICs of the
  // node (NCCL rings/trees over channels: bus bandwidth = node NIC aggregate) or each GPU's
  // traffic uses its own NIC only.
  FrameworkProperty collective_nic_aggregation;  // "true" | "false"
  // Data type of the gradient buffers and of their reduction across data-parallel ranks, where the
  // framework's recipes fix it (e.g. Apex distributed_fused_adam with grad_sync_dtype bf16);
  // empty: the scenario default (fp32, fp16 for fp16 training). Optional in the catalog.
  FrameworkProperty grad_reduce_dtype;  // "" | "fp32" | "bf16" | "fp16"
  // Where an MoE layer multiplies the expert outputs by their router probabilities: "in_expert"
  // (inside the experts' activation function, weighted SwiGLU: nothing more is saved) or
  // "at_combine" (on the expert outputs when they are un-permuted: the multiply saves the
  // topk x hidden expert outputs per token for the probabilities' gradient). Optional in the
  // catalog; empty: the scenario default (at_combine).
  FrameworkProperty moe_router_weighting;  // "" | "in_expert" | "at_combine"
  // Whether the backward of a column-parallel GEMM reduces its input gradient beside the weight
  // gradient and re-gathers a sequence-parallel input beside the input gradient (the plan's
  // overlap.tp_backward). Optional in the catalog; empty: the scenario default (true).
  FrameworkProperty tp_backward_overlap;  // "" | "true" | "false"
  // Whether the stack's training recipes apply dropout (LLM Foundry's MPT: none). Optional in the
  // catalog; empty: the model's, else yes for a GELU model (TrainingConfig::dropout).
  FrameworkProperty dropout;  // "" | "true" | "false"
  // The FLOP rate the stack's attention kernel reaches at most, as a fraction of the
  // accelerator's dense 16-bit peak: a stack built on an older kernel (FlashAttention 1 and its
  // Triton port reach 25-40% of an A100's peak, FlashAttention-2 50-73%) runs attention slower
  // than the accelerator's own attention rate (docs/models.md, Compute). Optional in the catalog;
  // unknown: the accelerator's rate. The scenario default of training.attention_peak_fraction.
  Sourced attention_peak_fraction;
  // ZeRO-3's most gathered parameters resident at once, in elements (DeepSpeed's
  // stage3_max_live_parameters); unknown: whole units (a layer in use and the prefetched one).
  Sourced zero3_max_live_params;
  FrameworkCapabilities capabilities;   // plan features offered (a search restriction only)
  std::map<std::string, std::string> sources;
  std::string file;
};

// Whether the stack runs attention without materialised scores: false only where its capabilities
// say it has no flash attention (the 2021-22 Megatron and DeepSpeed stacks); a stack that states
// no capabilities is not restricted. A scenario or validation row naming the framework takes it as
// training.flash_attention's default.
inline bool framework_has_flash_attention(const Framework& f) {
  return !(f.capabilities.stated && f.capabilities.flash_attention.value == "false");
}

// Whether the stack has sequence parallelism (Korthikanti et al. 2022): false only where its
// capabilities say so (Megatron-LM of SC'21, Megatron-DeepSpeed, DeepSpeed ZeRO-3 of 2021, the
// FSDP stacks). A
// scenario naming the framework takes it as parallel.sequence_parallel's default (with tp > 1).
inline bool framework_has_sequence_parallel(const Framework& f) {
  return !(f.capabilities.stated && f.capabilities.sequence_parallel.value == "false");
}

struct MoEConfig {
  int num_experts = 0;       // routed experts per MoE layer
  int topk = 0;              // routed experts per token
  int expert_ffn_hidden = 0; // width of one expert
  int shared_experts = 0;    // always-active experts of width expert_ffn_hidden
  int dense_layers = 0;      // leading layers with a dense FFN (ffn_hidden)
  int layer_freq = 1;        // every k-th layer after the dense ones is MoE
  // Which layers are MoE, one 0/1 per layer (Megatron's --moe-layer-freq list), where the two
  // rules above cannot say it (Qwen's mlp_only_layers, a step counted from layer 1). Empty: the
  // rules above. A Hugging Face config whose layers fit the rules gets them, not a pattern.
  std::vector<int> layer_pattern;
  double capacity_factor = 0;  // 0 = dropless
  // Group-limited routing (DeepSeek-V3's node-limited routing; config.json n_group, topk_group):
  // the experts form router_groups equal groups and a token's topk experts come from at most
  // router_groups_per_token of them. 0: unrestricted.
  int router_groups = 0, router_groups_per_token = 0;
};

struct MLAConfig {  // DeepSeek multi-head latent attention
  int q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
};

struct ModelConfig {
  std::string id, name, source;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn_hidden = 0, vocab = 0;
  std::string mlp = "swiglu";  // gelu, relu2, swiglu, geglu
  std::string norm = "rmsnorm";
  bool tied_embeddings = false;
  bool learned_position = false;  // learned absolute positions (GPT-2/MPT)
  // An RMSNorm of each head's query and key before RoPE (Qwen3, OLMo 2, Gemma 3; Megatron-Core's
  // qk_layernorm): its kernels, its saved input and its weights.
  bool qk_norm = false;
  // Whether training applies dropout (attention-probability and hidden dropout, which save 1-byte
  // masks and run their kernels): 1 yes, 0 no, -1 not stated (the framework's, else the GPT-2/3
  // convention of a GELU model: TrainingConfig::dropout). A config.json's dropout probabilities
  // state it (any > 0).
  int dropout = -1;
  // Multi-token prediction modules (DeepSeek-V3's MTP; config.json num_nextn_predict_layers): each
  // a projection of the normed hidden state and next token's embedding (2h -> h), one transformer
  // layer and the shared output head, run in training after the last layer. Not in the model's
  // parameter count nor its model FLOPs (DeepSeek's 671B / 37B leave them out); in the hardware
  // FLOPs, the last stage's time and memory.
  int mtp_layers = 0;
  int max_seq_len = 0;
  // Where a Hugging Face config's max_seq_len came from ("max_position_embeddings", a class default,
  // or the window its rope_scaling extends it to, as vLLM derives it); empty for a catalog entry.
  std::string max_seq_len_source;
  int sliding_window = 0;  // 0 = full attention
  // Layers that attend within the window (Gemma 2's alternate local layers, GPT-OSS's alternate
  // 128-token layers): -1 = every layer. The others attend to the whole context. The models take
  // the windowed share of every layer's attention (kv_len, attended context), not per layer.
  int sliding_window_layers = -1;
  double windowed_fraction() const {
    if (sliding_window <= 0) return 0.0;
    return sliding_window_layers < 0 || layers <= 0 ? 1.0 : static_cast<double>(sliding_window_layers) / layers;
  }
  std::optional<MoEConfig> moe;
  std::optional<MLAConfig> mla;
  std::vector<std::string> ignored_keys;  // from a Hugging Face config: keys with no effect
  // From a Hugging Face config's quantization_config: the scheme as written ("fp8", "mxfp4",
  // "awq 4-bit", ...; empty: none) and the weight format of `sextant infer` it maps to ("fp8",
  // "fp4", "int4"; empty when none or not mapped). Inference costs a checkpoint in its own
  // format unless told otherwise; training ignores both (its precision is the scenario's).
  std::string checkpoint_quantization;
  std::string checkpoint_weight_format;
  // The checkpoint quantises only the MoE experts (the other layers stay 16-bit): gpt-oss's MXFP4,
  // from the catalog's checkpoint.quantized_layers or a quantization_config whose
  // modules_to_not_convert names the attention.
  bool checkpoint_quantized_experts_only = false;
  std::string file;

  int kv_dim() const { return kv_heads * head_dim; }
  int q_dim() const { return heads * head_dim; }
  bool gated() const { return mlp == "swiglu" || mlp == "geglu"; }
  bool is_moe_layer(int layer) const;  // 0-based layer index
  bool all_layers_moe() const;         // an MoE model without a dense FFN layer (ffn_hidden unused)
  int num_moe_layers() const;
  double params_total() const;     // all weights, embeddings included
  double params_active() const;    // per token (MoE: top-k + shared experts and the router)
  double params_embedding() const; // input embedding (+ output when untied)
  void validate(const SourceLocation& where) const;  // throws on inconsistent structure
};

class Catalog {
 public:
  // Loads every catalog file under dir (data_dir()/catalog by default).
  static std::shared_ptr<const Catalog> load(const std::string& dir);
  static std::shared_ptr<const Catalog> load_default();
  // Only the accelerators (for a roofline: a fraction of the parse time of the whole catalog);
  // the other kinds are empty.
  static std::shared_ptr<const Catalog> load_accelerators(const std::string& dir);
  static std::shared_ptr<const Catalog> load_default_accelerators();
  // Only the accelerator files whose text contains `text` (ASCII case-insensitively; none when it
  // is empty): every entry whose id or name holds it is there, others may be missing. For a
  // caller that looks for one model (the trace analysis matching a deviceProperties name), which
  // then parses one file instead of all.
  static std::shared_ptr<const Catalog> load_accelerators_mentioning(const std::string& dir, const std::string& text);

  const Accelerator& accelerator(const std::string& id) const;
  const NetworkTech& network(const std::string& id) const;
  const System& system(const std::string& id) const;
  const ModelConfig& model(const std::string& id) const;
  const Framework& framework(const std::string& id) const;
  bool has_framework(const std::string& id) const { return frameworks_.count(id) > 0; }
  bool has_accelerator(const std::string& id) const { return accelerators_.count(id) > 0; }
  bool has_system(const std::string& id) const { return systems_.count(id) > 0; }
  bool has_model(const std::string& id) const { return models_.count(id) > 0; }
  bool has_network(const std::string& id) const { return networks_.count(id) > 0; }

  std::vector<std::string> accelerator_ids() const;
  std::vector<std::string> network_ids() const;
  std::vector<std::string> system_ids() const;
  std::vector<std::string> model_ids() const;
  std::vector<std::string> framework_ids() const;
  const std::string& dir() const { return dir_; }

  // For inline descriptions and calibration: add entries to a copy.
  void add(Accelerator a) { accelerators_[a.id] = std::move(a); }
  void add(System s) { systems_[s.id] = std::move(s); }
  void add(ModelConfig m) { models_[m.id] = std::move(m); }
  void add(NetworkTech n) { networks_[n.id] = std::move(n); }

 private:
  std::string dir_;
  std::map<std::string, Accelerator> accelerators_;
  std::map<std::string, NetworkTech> networks_;
  std::map<std::string, System> systems_;
  std::map<std::string, ModelConfig> models_;
  std::map<std::string, Framework> frameworks_;
};

// Parsers for single entries (also used for inline descriptions in scenarios).
Accelerator parse_accelerator(const YamlMap& m, const std::map<std::string, std::string>& sources);
NetworkTech parse_network(const YamlMap& m, const std::map<std::string, std::string>& sources);
// Throws Error at `where` when a system's scale-up network is not of kind scale_up or pcie, or its
// scale-out network not of kind scale_out.
void check_system_networks(const System& s, const NetworkTech& up, const NetworkTech* out, const SourceLocation& where);
System parse_system(const YamlMap& m, const std::map<std::string, std::string>& sources);
// Throws Error at `where` when a system's node_power_w is below its gpus_per_node boards of `a`'s
// TDP (a node draws at least its boards); nothing when either is unknown.
void check_node_power(const System& s, const Accelerator& a, const SourceLocation& where);
ModelConfig parse_model(const YamlMap& m);
Framework parse_framework(const YamlMap& m, const std::map<std::string, std::string>& sources);

// A Hugging Face config.json (text) as a model. Keys are mapped per model_type; keys that do not
// affect performance are listed in ignored_keys; an unknown model_type is an Error.
ModelConfig parse_hf_config(const std::string& json_text, const std::string& file);
// The note that lists a config.json's unread keys (those Transformers uses for something other than
// the cost left out), so that a misspelt key that is read shows where results are read; "" when
// none. Shared by estimate, simulate and infer.
std::string ignored_keys_note(const ModelConfig& m);
const std::vector<std::string>& hf_model_types();

// Whether training applies dropout when the scenario does not say (training.dropout): the model's
// statement (its catalog entry's dropout, a config.json's dropout probabilities), else the
// framework's (fw may be null), else yes for a GELU model (GPT-2/GPT-3 and Megatron's GPT recipes
// train with dropout 0.1; LLaMA-style models without).
inline bool dropout_default(const ModelConfig& m, const Framework* fw) {
  if (m.dropout >= 0) return m.dropout == 1;
  if (fw && !fw->dropout.value.empty()) return fw->dropout.value == "true";
  return m.mlp == "gelu";
}

// The kind of catalog entry a mapping's keys suggest ("accelerator", "network", "system", "model",
// "framework", or "scenario" for a scenario or study file) with the keys that say so: the kind
// with the most of its own keys among `keys`; empty on a tie or none.
struct EntryKindGuess {
  std::string kind;
  std::vector<std::string> keys;
};
EntryKindGuess guess_entry_kind(const std::vector<std::string>& keys);
// Throws Error at `where` when a file named as one of `expected` (a kind above) holds entries (or,
// without entries:, a mapping) that have the keys of another kind: "'FILE' holds systems, not
// accelerators: its entry has the keys of a system (accelerator, gpus_per_node, scale_up)".
// `shown_file`: the file as the user named it.
void check_entry_kind(const YamlMap& file, const std::string& expected, const std::string& shown_file, const SourceLocation& where,
                      const std::string& hint);

// A model given by catalog id, YAML file or config.json path.
ModelConfig load_model_ref(const Catalog& cat, const std::string& ref, const SourceLocation& where);
// An accelerator named by catalog id, or by the path of an accelerator catalog file (the file
// `sextant calibrate --out` writes: one entry, or name the entry with FILE#ID), read beside the
// scenario that names it, then from the working directory.
Accelerator load_accelerator_ref(const Catalog& cat, const std::string& ref, const SourceLocation& where);

}  // namespace sextant
