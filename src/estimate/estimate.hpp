#pragma once
// Closed-form evaluation of the workload IR: one training step's time, breakdown, memory and
// utilisation. Microseconds per plan (used by plan search). See docs/models.md.
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "estimate/collective.hpp"
#include "ir/schedule.hpp"
#include "ir/workload.hpp"

namespace sextant {

struct MemoryBreakdown {
  double weights_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0, activations_bytes = 0,
         comm_buffers_bytes = 0, reserve_bytes = 0;
  // Of weights_bytes: Transformer Engine's cached low-precision copies of the layer weights where
  // the parameters stay 16-bit (weight_cast_bytes_per_element; review of 2026-12-06).
  double weight_casts_bytes = 0;
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + comm_buffers_bytes + reserve_bytes;
  }
};

// One op template of a pipeline rank, as estimate times it (the per-op table; built only for
// output by op_table(), never in plan search). Compute ops: FLOPs and HBM bytes of one execution,
// its time from compute_time() and what bounds it; collectives: bytes of one call (nccl-tests
// convention), its time on the group's placement, bound "comm".
struct OpStat {
  std::string block;     // block of the IR (dense_layer, moe_layer, embedding, head), "pipeline" or "step"
  std::string pass;      // forward, backward_input, backward_weight, recompute, pipeline, step
  std::string name;      // op or collective name of the IR
  std::string op_class;  // gemm, attention, elementwise, ...; the collective kind for communication
  std::string group;     // parallel group of a collective ("" for compute)
  std::string shape;     // GEMM m x n x k (x batch), "" otherwise
  double flops = 0, bytes = 0;  // per execution
  double time_s = 0;            // per execution
  int64_t count = 0;            // executions per step
  std::string bound;            // compute | memory | overhead (kernel overhead exceeds both) | comm
};

// One pipeline rank's work (stage_table): its transformer layers, its times per micro-batch as
// run() charges them (exposed communication included), and its busy time and memory per step.
struct StageStat {
  int stage = 0;
  int64_t layers = 0;
  double forward_s = 0, backward_s = 0;  // per micro-batch, all chunks of the rank
  double busy_s = 0;                     // per step: micro-batches x (forward + backward), and interleaving's fill and drain
  double compute_s = 0;                  // per step: the compute of busy_s
  double exposed_comm_s = 0;             // per step: the communication of busy_s not hidden by compute
  std::string top_exposed_group;         // the group with the most exposed time ("" when none)
  double memory_bytes = 0;               // of this rank (the memory table is the most loaded one)
};

struct StepEstimate {
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops = 0;     // per step, all GPUs (docs/models.md)
  double hardware_flops = 0;  // including recompute
  double mfu_fraction = 0, hfu_fraction = 0;
  // Breakdown of the step on the critical pipeline rank (seconds).
  double compute_s = 0, exposed_comm_s = 0, total_comm_s = 0, bubble_s = 0, optimizer_s = 0, grad_sync_exposed_s = 0;
  // Means over the pipeline ranks, per step (each rank's compute and its exposed communication,
  // once-per-step work included): what an average GPU does, for power (sweep). Equal to compute_s
  // and exposed_comm_s without pipeline parallelism, up to the critical rank's bubble-free terms.
  double mean_compute_s = 0, mean_exposed_comm_s = 0;
  // The busiest pipeline rank's (most compute per step, its exposed communication): a board power
  // limit applies to each board, so it is the busiest board that meets it first (sweep).
  double busiest_compute_s = 0, busiest_exposed_comm_s = 0;
  std::vector<std::pair<std::string, double>> compute_by_class_s;  // per OpClass
  std::vector<std::pair<std::string, double>> comm_by_group_s;     // total time per group
  std::vector<std::pair<std::string, double>> exposed_by_group_s;  // exposed time per group
  MemoryBreakdown memory;  // of the most loaded rank
  double memory_capacity_bytes = 0;
  bool fits = true;
  int critical_stage = 0;
  std::vector<OpStat> ops;  // per-op table of the critical rank: empty unless op_table() filled it
  std::vector<StageStat> stages;  // one row per pipeline rank: empty unless stage_table() filled it
};

// Memory of one rank of pipeline stage pp_rank holding activations_bytes of activations:
// weights, gradients and optimizer states by ZeRO stage, communication buffers and reserve
// (docs/models.md). estimate passes the schedule's in-flight activations, simulate its peak.
MemoryBreakdown stage_memory(const ir::Workload& w, int pp_rank, double activations_bytes);
// Weight elements of one repetition of a block's low-precision (FP8/FP4) GEMMs: the weights
// Transformer Engine casts (every layer GEMM; not the output head's nor the MoE router's, which
// stay 16-bit). 0 in 16- and 32-bit training.
double lowp_gemm_weight_elements(const ir::Block& b);
// Bytes per such element of the cast weight copies Transformer Engine keeps from a step's first
// micro-batch to its last (a row-wise and a column-wise/transposed copy) where the parameters are
// not themselves held in the GEMMs' precision: FP8 without a distributed optimizer (ZeRO-0:
// Megatron's --fp8-param-gather needs one), and NVFP4 always (its parameters stay 16-bit). 0 where
// the parameters are FP8 (the 2 bytes of weights are then those copies) or the GEMMs 16-bit.
// zero_stage: the plan's (the plan search passes its candidate's).
double weight_cast_bytes_per_element(const Scenario& s, int zero_stage);

// Time of one compute op on the scenario's accelerator (roofline with efficiency model):
// time_s = max(compute_s, memory_s) + overhead_s. compute_s is 0 for ops without a FLOP rate
// (elementwise, norm, embedding, optimizer, memcpy).
struct ComputeTime {
  double time_s = 0, compute_s = 0, memory_s = 0, overhead_s = 0;
  // Part of compute_s: GEMM operand traffic beyond the fitted footprint (catalog.hpp
  // gemm_operand_traffic_s), 0 unless the accelerator gives bandwidth_by_working_set.
  double operand_traffic_s = 0;
  const char* bound() const;  // "compute", "memory" or "overhead" (the largest term)
};
// The dtype whose peak FLOP/s an op's compute time reads (none for memory-bound classes).
std::optional<DType> peak_dtype_of(const ir::ComputeOp& op, const Accelerator& acc);
// Every dtype whose peak the workload's ops read, and the training precision's (MFU's).
std::set<DType> peak_dtypes_read(const ir::Workload& w);
ComputeTime compute_time(const ir::ComputeOp& op, const Accelerator& acc);
double compute_time_s(const ir::ComputeOp& op, const Accelerator& acc);  // compute_time(op, acc).time_s

// The estimator owns its registries (collective algorithms, pipeline schedules); build one and
// reuse it across plans. Thread-safe for concurrent const use.
struct EstimatorCaches;  // estimate.cpp

class Estimator {
 public:
  Estimator();
  ~Estimator();
  Estimator(Estimator&&) noexcept;
  Estimator& operator=(Estimator&&) noexcept;
  StepEstimate run(const ir::Workload& w) const;
  // Time of one collective on its group's placement (fastest applicable algorithm).
  double collective_time_s(const ir::Collective& c, const ir::Workload& w, const struct Fabric& f) const;
  // Of collective_time_s: the bandwidth part, the time less the chosen algorithm's latency terms
  // (CollectiveAlgorithm::latency_s, each call's): how long the collective keeps its links busy.
  double collective_wire_s(const ir::Collective& c, const ir::Workload& w, const struct Fabric& f) const;
  const CollectiveRegistry& collectives() const { return collectives_; }
  const ir::ScheduleRegistry& schedules() const { return schedules_; }

 private:
  CollectiveRegistry collectives_;
  ir::ScheduleRegistry schedules_;
  // What the plans of a search share that depends on a small key only (each schedule's orders
  // compiled for timing per p, v and micro-batches), built on first use and guarded by a lock
  // (review of 2026-12-07: the orders were rebuilt in every estimate). Null once moved from.
  std::unique_ptr<EstimatorCaches> caches_;
};

StepEstimate estimate_step(const ir::Workload& w);

// How much longer a blocking collective of bandwidth part wire_s takes on a network card that it
// shares with streams holding backlogs_s of card time when it starts (the DP and the EDP group's
// overlapped collectives, each on its own stream): sum_i min(backlogs_s[i], wire_s). simulate's
// links share max-min fairly, so flows that start together on one card progress at one rate: a
// stream with less work than the collective slows it by its own work, one with more by the
// collective's (docs/models.md, Network card shared with DP traffic).
double nic_sharing_stretch_s(double wire_s, std::span<const double> backlogs_s);

// A collective's shares of the network card and of the scale-up port over its bandwidth part, as
// simulate's links draw on them (sim::describe_collective's nic_fraction and nvlink_fraction: each
// link class's time alone over the slowest one's, the port's times the group's share of it): the
// card's is 1 where the card is its slowest link, less where NVLink or the leaf uplinks bound it
// (a ring with eight members a node on H800, NVLink 160 GB/s against eight cards of about 47 GB/s:
// about 0.43); both 0 for a group inside one domain. estimate charges a collective's card sharing
// by these (review of 2026-12-07: it had taken every collective that leaves the domain as bound
// by the card).
struct LinkShares {
  double card = 0, scale_up = 0;
};
LinkShares link_shares(const ir::Collective& c, const ir::Workload& w, const Fabric& f);

// A collective of bandwidth part wire_s and link shares `coll`, started beside the DP and the EDP
// stream with backlogs_s[g] of bandwidth parts still to run and shares streams[g], all three
// sharing the card and the scale-up port max-min fairly (simulate's progressive filling, each
// flow at most its idle speed): how much later the collective ends (stretch_s) and how much later
// the two streams are done than without it (streams_delay_s). All bound by the card (card shares
// 1): nic_sharing_stretch_s and min(wire_s, max_g backlogs_s[g]). A stream bound by the scale-up
// port, drawing d < 1 of the card, slows a collective bound by the card by d min(backlog, wire_s).
struct CardSharing {
  double stretch_s = 0, streams_delay_s = 0;
};
CardSharing card_sharing(double wire_s, const LinkShares& coll, const double backlogs_s[2], const LinkShares streams[2]);

// The per-op table of pipeline rank pp_rank (one row per op template: the steps of every distinct
// block template, the pipeline transfers and the once-per-step work), with the same compute and
// collective times as est.run(w). Per step on that rank, for each op class the rows' time_s x
// count sum to run()'s compute_by_class_s, and for each group the collective rows to
// comm_by_group_s. Rows in descending order of time per step. Not used by plan search.
std::vector<OpStat> op_table(const ir::Workload& w, int pp_rank, const Estimator& est);

// One row per pipeline rank: layers, forward and backward time per micro-batch (the per-rank
// times run() gives the schedule), busy time per step and memory. Shows where a pipeline is
// unbalanced (critical_stage is the rank that ends the step, stage 0 under 1F1B). Not used by
// plan search.
std::vector<StageStat> stage_table(const ir::Workload& w, const Estimator& est);

// The estimate schema. When e.ops is not empty, also the table "ops" and the scalars
// peak_flops_per_s (dense peak at the training precision) and peak_memory_bytes_per_s.
Result to_result(const StepEstimate& e, const Scenario& s);
// When a pipeline stage other than the one that ends the step is the busiest (by more than 5%):
// a note naming it, its compute and exposed communication, and how much of the critical rank's
// pipeline_bubble waits on it; empty otherwise. Used by estimate's result and by plan's best plan.
std::string bottleneck_note(const StepEstimate& e);
// When the scenario's sequence is longer than its rotary model's stated context (max_seq_len): a
// note that the run is costed as a context extension; empty otherwise. One text for estimate's
// result and for plan's and sweep's (docs/plan.md).
std::string context_extension_note(const Scenario& s);
// Convenience: lower + estimate + per-op table + result (the CLI, reports and Python).
Result estimate(const Scenario& s);

}  // namespace sextant
