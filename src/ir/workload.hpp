#pragma once
// The workload IR: a scenario lowered once into per-rank work. Compact by construction: a
// transformer layer is one Block with a repeat count, micro-batches are a count, and ranks that
// do the same work share one Stage. `estimate` evaluates the templates in closed form;
// `simulate` expands them (micro-batches x schedule) into events. Both read only this IR.
//
// Conventions
//  - Compute ops carry FLOPs and HBM bytes for ONE micro-batch on ONE rank (after TP/CP/EP
//    sharding). GEMMs carry their (m, n, k, batch) shape for the efficiency model.
//  - Collectives carry `bytes` in the nccl-tests convention: the buffer size S of the call
//    (all-reduce: S in and out; all-gather: S = output; reduce-scatter: S = input; all-to-all:
//    S = send buffer; send/recv: S sent). Time = S * factor(kind, n) / busbw + latency terms.
//  - A Step is either a compute op or a collective; steps of one pass run in order on the
//    compute stream unless a collective is `overlappable`, in which case it runs on its group's
//    stream and only the step named by `waits_for` (an index in the same list, -1 = none)
//    must finish first, and the compute stream continues.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "scenario/scenario.hpp"

namespace sextant::ir {

enum class OpClass { Gemm, Attention, Elementwise, Norm, Embedding, Logits, Router, Optimizer, Memcpy };
enum class CollKind { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv, Broadcast };
enum class GroupKind { TP, CP, EP, ETP, DP, EDP, PP };  // EDP: data parallel over expert weights
enum class Pass { Forward, BackwardInput, BackwardWeight, Recompute };

std::string to_string(OpClass c);
std::string to_string(CollKind k);
std::string to_string(GroupKind g);
std::string to_string(Pass p);

// Placement of a communication group on the topology.
struct Group {
  GroupKind kind = GroupKind::TP;
  int size = 1;
  int stride = 1;          // rank distance between consecutive members
  int per_domain = 1;      // members inside one scale-up (NVLink) domain
  int domains = 1;         // scale-up domains the group spans (size = per_domain * domains)
  int domain_size = 0;     // GPUs per scale-up domain (0: not placed); member r sits at rank r * stride
};

struct ComputeOp {
  const char* name = "";  // static string: the IR is built per plan in plan search
  OpClass cls = OpClass::Gemm;
  double flops = 0;
  double bytes = 0;  // HBM traffic
  int64_t m = 0, n = 0, k = 0, batch = 1;  // GEMM shape (cls == Gemm)
  DType dtype = DType::BF16;
  // Attention: the kernel reaches at most this fraction of the 16-bit dense peak (the scenario's
  // training.attention_peak_fraction); 0: no cap beyond the accelerator's attention rate.
  double peak_fraction_cap = 0;
  // A weight-gradient GEMM whose input is re-gathered over TP before it (a column-parallel linear
  // under sequence parallelism): what is held for it until it runs is the input's sequence
  // shard, 1/input_shards of its m x k operand (weight_pass_held_bytes).
  int input_shards = 1;
  // A GEMM's part in training: its forward product, or the input or weight gradient of one
  // (lowering's gemm_grads). Passes and memory holds are found by this, not by the name, which
  // names the forward GEMM (mlp.up.wgrad).
  enum class Grad : uint8_t { None, Input, Weight };
  Grad grad = Grad::None;
  // An FP8 GEMM with block scales (training.fp8_recipe: blockwise): timed at the accelerator's
  // fp8_block_scaled_gemm_fraction of the per-tensor rate.
  bool block_scaled = false;
};

// All-to-all traffic of one member, as multiples of the collective's `bytes`: the part sent to
// other members of its scale-up domain and the part sent to other domains. Negative: the uniform
// exchange ((k-1)/n and (n-k)/n for n members, k per domain). MoE dispatchers that deduplicate
// tokens send less (ir/moe_dispatch.hpp).
struct A2ATraffic {
  double intra = -1;
  double inter = -1;
  bool uniform() const { return intra < 0 || inter < 0; }
  // A pipeline send (pp_send): the group members it connects, so that the leaf level can be
  // judged per hop (-1: not a send, or unknown).
  int hop_from = -1, hop_to = -1;
};

struct Collective {
  const char* name = "";
  CollKind kind = CollKind::AllReduce;
  GroupKind group = GroupKind::TP;
  double bytes = 0;
  int calls = 1;              // issued as this many equal calls (per-tensor ZeRO-3 gathers)
  bool overlappable = false;  // runs on the group's stream, concurrently with compute
  int waits_for = -1;         // index of the step that produces its input (-1: previous step)
  A2ATraffic traffic;         // AllToAll only: destinations of the bytes (default: uniform)
  // Overlappable, but only the compute step that follows it can hide it (ring attention: the K/V
  // exchange runs beside the attention of the chunk already present, not beside the GEMMs of the
  // layer); the excess is exposed before that step ends. False: the whole pass can hide it.
  bool hides_behind_next = false;
  // PP only: the group's first and last members alone (Megatron's embedding group, which sums the
  // tied word embedding's gradient between the first and the last stage), placed as
  // Workload::pipeline_ends; false: the whole group.
  bool pipeline_ends = false;
  // ZeRO-3's root unit (the embedding, the final norm and the output head; Lowerer::zero3_root):
  // gathered once per run of overlapping in-flight micro-batches of its chunk and kept through
  // their backwards, its gradient reduce-scattered when the run's last gradient pass ends
  // (run_edges). A gather is issued only by a Forward that opens a run, a reduce-scatter only by
  // the pass that closes one; both engines count and place them so (2026-12-07 review: they had
  // run every micro-batch, 8 gathers a step on the first 1F1B stage, which holds its micro-batches
  // 0-3 at once).
  bool per_run = false;
};

// Once-per-step gradient reductions over DP and EDP go bucket by bucket as the gradients finish
// (with overlap_grad_reduce); the other entries of StepWork::grad_sync (the tied embedding's
// all-reduce over PP, the SP-replicated parameters' over TP) run after the backward.
inline bool bucketed(const Collective& c) { return c.group == GroupKind::DP || c.group == GroupKind::EDP; }

using Step = std::variant<ComputeOp, Collective>;

// The steps of one pass of a block: immutable once built, and shared by the copies of a block
// (one layer template is placed on every virtual stage of every pipeline rank), so copying a
// Block copies four pointers, not four vectors (plan search lowers millions of plans). Reads like
// a const std::vector<Step> (and converts to one); built by assigning a vector.
class StepList {
 public:
  StepList() = default;
  StepList(std::vector<Step> steps)  // implicit: lowering assigns the vectors it built
      : p_(steps.empty() ? nullptr : std::make_shared<const std::vector<Step>>(std::move(steps))) {}
  const std::vector<Step>& get() const { return p_ ? *p_ : empty_steps(); }
  operator const std::vector<Step>&() const { return get(); }
  std::vector<Step>::const_iterator begin() const { return get().begin(); }
  std::vector<Step>::const_iterator end() const { return get().end(); }
  size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const Step& operator[](size_t i) const { return get()[i]; }
  const Step& front() const { return get().front(); }
  const Step& back() const { return get().back(); }

 private:
  static const std::vector<Step>& empty_steps();
  std::shared_ptr<const std::vector<Step>> p_;
};

// A repeated unit of work (a transformer layer of one kind, the embedding, the head).
struct Block {
  std::string name;
  int count = 1;  // repetitions on this virtual stage
  // Blocks of one workload with the same template_id >= 0 have identical step lists (copies of
  // one layer template on several chunks); evaluators may cache per template. -1: unique.
  int template_id = -1;
  StepList forward;
  StepList backward_input;   // activation gradients
  StepList backward_weight;  // weight gradients (split out for zero-bubble schedules)
  StepList recompute;        // forward work redone in backward (recompute policy)
  double params = 0;                  // parameters held by this rank for one repetition
  double expert_params = 0;           // of which expert (EP-sharded) parameters
  // Of which replicated across TP (norms, MoE routers, MLA's down projections): under sequence
  // parallelism each TP rank's gradient covers its sequence shard, summed over TP once per step.
  double tp_replicated_params = 0;
  double activation_bytes = 0;        // saved for backward per micro-batch per repetition
  // Activations rematerialised while this block's backward runs when it is recomputed in full
  // (the layer's whole saved set, held for one repetition at a time), per micro-batch; 0 when
  // the block is not recomputed (the embedding and the output head never are).
  double recompute_bytes = 0;
};

// The parameter units outside the layers (FSDP's root unit; gathered at 16 bits, not FP8): the
// embedding, the final norm with the output head, and the copy of the word embedding a
// multi-token-prediction stage keeps where the first stage sits on another rank (lowering's names).
inline bool is_root_block(const Block& b) { return b.name == "embedding" || b.name == "head" || b.name == "mtp_embedding"; }

// One virtual pipeline stage (a chunk of a pipeline rank's layers).
struct Chunk {
  int virtual_stage = 0;  // 0 .. pp*vpp-1 in pipeline order
  std::vector<Block> blocks;
};

// The work of one pipeline rank (all ranks with the same pp index do the same work).
struct Stage {
  int pp_rank = 0;
  std::vector<Chunk> chunks;  // vpp chunks; chunk c is virtual stage c*pp + pp_rank
  double params = 0;          // parameters on this rank (sum over blocks)
  double expert_params = 0;
  double tp_replicated_params = 0;  // sum over blocks (Block::tp_replicated_params)
  double boundary_activation_bytes = 0;  // bytes sent to the next stage per micro-batch
};

// Once-per-step work: gradient synchronisation, parameter gathering, optimizer.
struct StepWork {
  std::vector<Collective> grad_sync;     // DP/EDP reduce-scatter or all-reduce (per bucket)
  std::vector<Collective> param_gather;  // ZeRO-1/2 all-gather after the optimizer, ZeRO-3 per layer
  std::vector<ComputeOp> optimizer;
  int grad_buckets = 1;
  // Of grad_buckets, those of the expert-gradient buffer (reduced over EDP); the rest are the dense
  // buffer's. Each buffer's collectives go out in its own bucket count (simulate).
  int grad_buckets_expert = 0;
};

// The buckets a bucketed collective of sw goes out in (Megatron-Core: each buffer its own): the
// expert buffer's over EDP, the dense buffer's over DP. Both engines issue (simulate) or price
// (estimate) one call per bucket when the reduction or gather overlaps the passes.
inline int buckets_of(const StepWork& sw, const Collective& c) {
  const int nb = std::max(1, sw.grad_buckets), nb_expert = sw.grad_buckets_expert;
  return c.group == GroupKind::EDP && nb_expert > 0 ? nb_expert : std::max(1, nb - nb_expert);
}

// A model chunk's share of its stage's parameters (1 / chunks when the stage has none).
inline double chunk_param_share(const Stage& st, size_t chunk) {
  double total = 0, own = 0;
  for (size_t c = 0; c < st.chunks.size(); ++c)
    for (const auto& b : st.chunks[c].blocks) (c == chunk ? own : total) += b.params * b.count;
  total += own;
  return total > 0 ? own / total : 1.0 / static_cast<double>(std::max<size_t>(1, st.chunks.size()));
}
// The buckets model chunk `chunk` of st issues for a bucketed collective of sw (gradient
// reduction or parameter gather), with overlap: Megatron-Core keeps a gradient buffer per model
// chunk (a DDP module each), cut on its own, so each chunk has max(1, round(n x its share of the
// parameters)) of the buffer's n (buckets_of), and a stage of v chunks issues at least v calls.
// Simulate issues these; estimate prices their sum (chunk_calls_of). Before 2026-12-05 estimate
// priced n: at dp 16,384 with vpp 5 one bucket where simulate issued 5, each paying its ring
// latency (8.5% apart at 131,072 GPUs); and simulate cut the gathers over the stage, one bucket
// holding all five chunks' parameters (6.9% apart).
inline int chunk_buckets(const Stage& st, const StepWork& sw, const Collective& c, size_t chunk) {
  const int n = buckets_of(sw, c);
  if (st.chunks.size() <= 1) return n;
  return std::max(1, static_cast<int>(std::lround(n * chunk_param_share(st, chunk))));
}
inline int chunk_calls_of(const Stage& st, const StepWork& sw, const Collective& c) {
  const int n = buckets_of(sw, c);
  const size_t v = st.chunks.size();
  if (v <= 1) return n;
  double total = 0;
  for (const auto& ch : st.chunks)
    for (const auto& b : ch.blocks) total += b.params * b.count;
  int calls = 0;
  for (const auto& ch : st.chunks) {  // as chunk_buckets, with the total summed once (plan search)
    double own = 0;
    for (const auto& b : ch.blocks) own += b.params * b.count;
    calls += std::max(1, static_cast<int>(std::lround(n * (total > 0 ? own / total : 1.0 / static_cast<double>(v)))));
  }
  return calls;
}

struct Workload {
  const Scenario* scenario_ptr = nullptr;  // not owned: the scenario must outlive the workload
  const Scenario& scenario() const { return *scenario_ptr; }
  std::vector<Group> groups;  // one per GroupKind in use
  std::vector<Stage> stages;  // pp entries
  StepWork step;              // per stage rank 0's view (the largest stage)
  std::vector<StepWork> step_per_stage;  // pp entries
  int64_t microbatches = 1;   // per pipeline per step
  std::string schedule;

  // The first and last pipeline ranks (size 2 with pp > 1, stride (pp - 1) x the PP stride).
  Group pipeline_ends;

  const Group& group(GroupKind k) const;  // size-1 group when unused
  // The members a collective runs on: its group, or pipeline_ends for Collective::pipeline_ends.
  const Group& group_of(const Collective& c) const {
    return c.pipeline_ends && c.group == GroupKind::PP ? pipeline_ends : group(c.group);
  }
  double model_flops_per_step() const;    // 6*N*tokens-style model FLOPs (docs/models.md)
};

struct ScheduleItem;  // ir/schedule.hpp
// The runs of one rank's order (a schedule's order(r, ...)) for Collective::per_run: a micro-batch
// of chunk c is in flight on the rank from its Forward to the pass that completes its gradients
// (its Weight where the schedule splits the backward, `split`, else its Backward); a run is a
// stretch of the order in which some micro-batch of the chunk is in flight. opens[k]: order[k] is a
// Forward before which none of its chunk's micro-batches was in flight; closes[k]: order[k]
// completes a micro-batch's gradients and leaves none of its chunk's in flight; runs[c]: chunk c's
// runs (v entries). Under 1F1B the first stage (p - 1 forwards ahead) has one run a step, the last
// stage one per micro-batch; GPipe and ZB-H1 (deferred weight passes) one per stage.
// whole_step (callers: a pipeline, pp > 1): each chunk's micro-batches form one run,
// from its first Forward to its last gradient pass, whatever the schedule. torch.distributed.
// pipelining runs every backward of an FSDP stage with resharding after backward and gradient
// sync off and calls FSDP's post-backward (reduce-scatter, reshard) once, after the stage's last
// backward (PipelineStage.backward_maybe_with_nosync), so the unit is gathered once a step on every
// stage. 2026-12-07 review: the run rule had read 1F1B's last stage (F_i B_i F_i+1, nothing in
// flight between) as one run per micro-batch where ZB-H1 and GPipe read one, up to 14% apart.
struct RunEdges {
  std::vector<char> opens, closes;
  std::vector<int64_t> runs;
};
RunEdges run_edges(const std::vector<ScheduleItem>& order, int v, bool split, bool whole_step);

// Lower a checked scenario into the IR. The workload refers to s, which must outlive it.
Workload lower(const Scenario& s);

// Keys each query attends on average under the causal mask ((s + 1) / 2; a sliding window
// weighted by the share of the layers it covers): the attention length of the model FLOPs.
double attention_keys_per_query(const Scenario& s);

// Bus-bandwidth factor of a collective on n ranks (nccl-tests): AR 2(n-1)/n, AG/RS/A2A (n-1)/n.
double bus_factor(CollKind k, int n);

// The pipeline send of `bytes` from pipeline rank `from` to pipeline rank `to`. The PP group's
// members sit per_domain to a scale-up domain in rank order (Group), so a send between two ranks
// of one domain stays on its links: its traffic is marked {intra 1, inter 0} and the p2p
// algorithm costs it there; otherwise it is left uniform (across domains when the group spans
// several). Before 2026-12-03 every send of a group spanning domains was charged at the NIC rate.
Collective pp_send(const Workload& w, const char* name, double bytes, int from, int to);

// Whether the hop between members `from` and `to` of a group of `size` members `stride` ranks
// apart crosses a boundary of blocks of `block` consecutive ranks (a scale-up domain, a leaf
// switch's domains) for any of the group's instances in a world of `world` ranks (instances at
// offsets i + j stride size, i < stride): the slowest instance sets the step.
bool hop_crosses_blocks(int64_t block, int stride, int size, int64_t world, int from, int to);

}  // namespace sextant::ir
