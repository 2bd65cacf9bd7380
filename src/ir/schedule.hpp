#pragma once
// Pipeline schedules, one implementation per file in schedules/, chosen by name from a
// ScheduleRegistry. Contract of an implementation:
//  - order(r, p, v, m) lists the work of pipeline rank r in execution order: every
//    (micro-batch, chunk) appears exactly once as Forward and once as Backward (and, for
//    schedules that split the backward pass, once as Weight after its Backward; a Backward
//    marked full_backward has its Weight next and sends its output after it). The
//    simulator executes this order; the send/receive pairs it implies must be consistent
//    across ranks (checked by validate_schedule).
//  - pipeline_time_s() is the closed-form step time of the pipeline for per-micro-batch stage
//    times (used by `estimate`); it must agree with simulating order() when all ranks are
//    uniform and communication is free.
//  - inflight(r, p, v, m) is the largest number of chunk-micro-batches whose activations rank r
//    holds at once under order().
//  - peak_activation_bytes(r, p, v, m, chunk_bytes) is the largest sum of chunk_bytes[c] over the
//    chunk-micro-batches (i, c) that rank r holds at once under order(), a chunk-micro-batch
//    being held from the start of its Forward to the end of its Backward; chunk_bytes[c] is one
//    micro-batch's saved activations of chunk c. Chunks differ when a rank's first or last
//    chunk carries the embedding or the loss head, or stages are uneven. The default,
//    inflight() times the chunks' mean, is exact when v == 1 or every chunk-micro-batch is held
//    at once; a schedule that interleaves chunks overrides it (used by estimate and plan for
//    memory; the simulator walks order() and must agree).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>
#include "core/registry.hpp"
#include "ir/workload.hpp"

namespace sextant::ir {

struct ScheduleItem {
  enum Kind { Forward, Backward, Weight } kind;
  int64_t microbatch;
  int chunk;
  // A forward that runs beside the backward listed next (DualPipe's overlapped F&B pair): the pair
  // starts when both inputs have arrived and both outputs leave when the pair ends.
  bool with_next = false;
  // A Backward whose weight pass is not deferred (DualPipe's run_backward outside its zero-bubble
  // steps, WeightGradStore off): its Weight is the item listed next, runs with it as one backward,
  // and the input gradient leaves after both (in a pair, both outputs leave after the Weight).
  // Before 2026-12-07 every DualPipeV input gradient left before its weight pass, as though every
  // backward were split, and the order ran (p - 1) units below DualPipe's at F = B = W = 1
  // (review). validate_schedule checks that the Weight follows.
  bool full_backward = false;
};

struct StageTimes {  // per micro-batch, per pipeline rank (all chunks of that rank)
  std::vector<double> forward_s, backward_s, weight_s;  // weight_s: backward-weight part of backward
  // Optional, per chunk (index r * v + c), summing to the rank's: a rank's chunks differ where one
  // carries the embedding or the loss head or the stages are uneven. order_makespan_s times each
  // chunk at its own time when given, at the rank's over v otherwise (the closed forms read the
  // rank totals only).
  std::vector<double> chunk_forward_s, chunk_backward_s, chunk_weight_s;
};

class OrderCache;

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  virtual std::string name() const = 0;
  virtual bool splits_weight_gradient() const { return false; }
  // Whether the ranks' end times come from timing order() (order_makespan_s's rank_end_s) rather
  // than 1F1B's drain (rank r ends sum_{j<r} backward_s[j] before rank 0): dualpipev, whose
  // ranks all finish within a pass or two of each other.
  virtual bool drain_from_order() const { return false; }
  // The virtual stage (0 .. p v - 1, in model order: 0 holds the embedding, p v - 1 the loss
  // head) of chunk c of rank r. Default: Megatron's interleaved layout c p + r. A V-shaped
  // schedule (dualpipev) folds it: chunk 1 of rank r is stage 2p - 1 - r. Transfers follow the
  // stages: from stage k to k + 1 forward, k + 1 to k backward; none when both are on one rank.
  virtual int virtual_stage(int r, int c, int p, int v) const {
    (void)v;
    return c * p + r;
  }
  // The micro-batch counts order() accepts are multiples of this (interleaved 1F1B: p, as
  // Megatron's interleaving needs; the scenario checks it); order_time_s walks such a count.
  virtual int64_t microbatch_multiple(int p) const {
    (void)p;
    return 1;
  }
  virtual std::vector<ScheduleItem> order(int r, int p, int v, int64_t m) const = 0;
  virtual double pipeline_time_s(const StageTimes& t, int p, int v, int64_t m) const = 0;
  // The same, where the schedule times its order (order_time_s), with the compiled orders of
  // `orders` (the plan search's, shared across its plans; null: compiled for this call). Default:
  // pipeline_time_s(), for a schedule that times no order.
  virtual double pipeline_time_cached_s(const StageTimes& t, int p, int v, int64_t m, const OrderCache* orders) const {
    (void)orders;
    return pipeline_time_s(t, p, v, m);
  }
  virtual double inflight(int r, int p, int v, int64_t m) const = 0;
  virtual double peak_activation_bytes(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes) const;
  // For a schedule that splits the backward: the peak with chunk_weight_bytes[c] held from each
  // Backward to its Weight, and chunk_recompute_bytes[c] more while a Backward of chunk c runs
  // (see peak_held_bytes). Default: a walk over order(); a schedule may give it in closed form
  // (the plan search evaluates it per candidate).
  virtual double peak_with_weight_holds(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                                        const std::vector<double>& chunk_weight_bytes,
                                        const std::vector<double>& chunk_recompute_bytes) const;
  // The same with one recomputed set for every chunk.
  double peak_with_weight_holds(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                                const std::vector<double>& chunk_weight_bytes, double recompute_bytes) const {
    return peak_with_weight_holds(r, p, v, m, chunk_bytes, chunk_weight_bytes, std::vector<double>(chunk_bytes.size(), recompute_bytes));
  }
  // For a schedule that does not split the backward: the peak of peak_activation_bytes' holds with
  // chunk_recompute_bytes[c] more while a Backward of chunk c runs. The chunks' sets differ where a
  // chunk's backward frees the loss head's logits before its first recompute
  // (chunk_recompute_peak_bytes). Default: peak_activation_bytes() plus the set where all chunks'
  // are equal, else a walk over order(); interleaved 1F1B gives it over one period of its steady
  // state (the plan search evaluates it per candidate).
  virtual double peak_with_recompute(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                                     const std::vector<double>& chunk_recompute_bytes) const;
};

// The bytes a split backward keeps from a chunk-micro-batch's input-gradient pass to its
// weight-gradient pass, per micro-batch: the two inputs of every weight-gradient GEMM of the
// chunk's blocks (each linear layer's saved input and output gradient; Qi et al.'s M_W, about
// 32 sbh of a GPT layer's 34 sbh; the output head's gradient of the logits).
double weight_pass_held_bytes(const Chunk& c);

// The largest weight tensor of a block on this rank, in elements: its forward GEMMs' n x k (one
// expert's for a grouped GEMM; the output head's logits GEMM among them, 2026-12-06 review), or,
// for a block without a forward GEMM (the embedding), its parameters. What a stack that gathers
// ZeRO-3 parameters tensor by tensor must hold at least.
double largest_weight_elements(const Block& b);
// The same, knowing the scenario: the embedding (no GEMM) is two tensors where its positions are
// learned, the word embedding (vocab x hidden / tp) and the positions' (seq_len x hidden); the
// larger of them, not their sum (zero3_max_live_params 1 had floored at GPT's 103.8M elements of
// both where its word embedding is 78.6M; 2026-12-06 review).
double largest_weight_elements(const Block& b, const Scenario& s);

// ZeRO-3's gathered parameters resident at once, in elements: `units` (whole layers in flight)
// where max_live is 0, else at most max_live and never below the largest tensor (DeepSpeed's
// stage3_max_live_parameters: it releases parameters after use and holds at most that many).
double zero3_resident_elements(double units, double largest_tensor, double max_live);

// The largest activation memory rank r holds under order(): chunk_bytes[c] from each Forward of
// chunk c to its Backward and, for a schedule that splits the backward, chunk_weight_bytes[c] from
// the Backward to its Weight (ZB-H1 and DualPipeV defer weight passes, whose inputs stay held:
// before 2026-12-02 they were not counted, and ZB-H1 read as 1F1B's memory). For a schedule that
// does not split, peak_activation_bytes(). chunk_recompute_bytes[c] (chunk_recompute_peak_bytes:
// what a recomputed layer's rematerialised set adds to what the rank held when chunk c's Backward
// began) is held while a Backward of chunk c runs: for a split schedule the peak after a Backward
// (its weight-pass inputs held) has no recompute set alive, which had been added to it (ZB-H1 with
// full recompute read 5% above simulate's memory, more than without recompute; 2026-12-03
// review). For 1F1B-like schedules the peak is before a Backward, so the two add, per chunk: the
// loss head's chunk frees its logits before its first recompute, and one set taken for every
// chunk had added a layer's set on top of the logits (2026-12-06 review).
double peak_held_bytes(const PipelineSchedule& s, int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                       const std::vector<double>& chunk_weight_bytes, const std::vector<double>& chunk_recompute_bytes);
// The same with one set for every chunk.
double peak_held_bytes(const PipelineSchedule& s, int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                       const std::vector<double>& chunk_weight_bytes, double recompute_bytes);

// The rematerialised set a chunk's backward holds beyond what it held when the backward began:
// the backward runs the blocks in reverse, freeing each one's saved activations, so a recompute
// set weighs on top only for what exceeds the activations freed before it. The chunk's tail after
// its layers (the loss head with its fp32 logits, the MTP modules), whose backward runs first, is
// freed before any layer of the chunk is recomputed (2026-12-06 review: Llama 3 8B at 28k tokens
// and full recompute had held a layer's 4.0 GB set on top of the 14.7 GB logits, 83.2 GiB where
// 79.5 GiB are held; an MTP module's own layer is recomputed after its head is freed). Among the
// layers (grouped by template, not by position), uniform and selective recompute rematerialise
// from the chunk's last layer on (nothing more freed: the largest set); the block method stores
// the chunk's last layers, whose activations are freed before its first N layers are recomputed
// (recomputing 1 of 32 layers had raised the peak by its checkpoint, where it lowers it;
// 2026-12-05 review). At least 0.
// block_method: the chunk's recompute is Megatron's block method (training.recompute_method block).
double chunk_recompute_peak_bytes(const Chunk& c, bool block_method);

// The built-in schedules by name (core/registry.hpp: get() throws Error at parallel.schedule
// with the valid names).
class ScheduleRegistry : public InstanceRegistry<PipelineSchedule> {
 public:
  ScheduleRegistry();
};

// The built-in schedules (one file each).
std::unique_ptr<PipelineSchedule> make_gpipe();
std::unique_ptr<PipelineSchedule> make_1f1b();
std::unique_ptr<PipelineSchedule> make_interleaved_1f1b();
std::unique_ptr<PipelineSchedule> make_zb_h1();
std::unique_ptr<PipelineSchedule> make_dualpipev();

// virtual_stage() of the schedule named `schedule` without constructing it (lowering runs per
// plan in the search): the V layout for "dualpipev", the interleaved one otherwise.
int virtual_stage_of(const std::string& schedule, int r, int c, int p, int v);

// The makespan of a schedule's order with compute only: every rank runs its order() in sequence,
// a forward after the previous virtual stage's forward of that micro-batch, an input gradient
// after the next virtual stage's, a weight pass after its own input gradient (stages placed by
// virtual_stage()); a full_backward's input gradient counts as done after its weight pass (the
// send waits for it); per micro-batch times of StageTimes split evenly over a rank's v chunks
// (backward_s less weight_s for the input gradient when the schedule splits the backward).
// O(p v m) work: a closed form's fallback where its assumptions fail, and dualpipev's timing.
// rank_end_s, when given, receives each rank's end time (a schedule whose drain is not 1F1B's);
// chunk_grad_end_s (p x v, rank-major) the end of each chunk's last gradient pass on its rank
// (its last backward, or its last weight pass where the schedule splits them): where its
// gradient reduction can start; chunk_first_fwd_start_s (p x v, rank-major) the start of each
// chunk's first forward on its rank: by when its gathered parameters are needed.
double order_makespan_s(const PipelineSchedule& s, const StageTimes& t, int p, int v, int64_t m,
                        std::vector<double>* rank_end_s = nullptr, std::vector<double>* chunk_grad_end_s = nullptr,
                        std::vector<double>* chunk_first_fwd_start_s = nullptr);

// The orders of all p ranks of a schedule at (p, v, m) compiled for timing: what depends on the
// order alone, worked out once. Review of 2026-12-07 (the plan search's speed): every estimate
// had rebuilt each rank's order and walked it rank by rank, round after round, until every item
// was ready, for each of up to six timings of one plan (order_time_s and its doublings,
// card_end_delays, root_end_delays), a third of the 405B search's profile. Which item waits on
// which does not depend on the times, so the walk is a list of work units in an order that
// respects those waits (the round-robin's own), timed in one pass with the same arithmetic:
// the times are bit for bit the walk's.
struct OrderWalk {
  // A unit of work on one rank: one item, or a DualPipeV pair (a forward beside the next backward,
  // ScheduleItem::with_next), either followed by the weight pass of a full backward
  // (weight_joins_backward), which runs inside it.
  struct Unit {
    int32_t rank = 0;
    int32_t item = 0;             // id of its first item (OrderWalk::item_begin)
    int32_t dep = -1, dep2 = -1;  // the units whose ends it waits on (a pair: its forward's, its backward's)
    int32_t chunk = 0, chunk2 = 0;  // its item's chunk (a pair: the forward's, the backward's)
    uint8_t kind = 0;               // ScheduleItem::Kind of its first item, or kPair
    bool full = false;              // a full backward's weight pass runs in it (the unit's last item)
  };
  static constexpr uint8_t kPair = 3;
  int p = 0, v = 0;
  int64_t m = 0;
  bool split = false;       // the schedule splits the backward (Weight items)
  bool deadlocked = false;  // some items never become ready: units lists those that do
  std::vector<Unit> units;
  std::vector<int32_t> item_begin;  // p + 1: rank r's items have ids item_begin[r] .. item_begin[r + 1] - 1
  // p x v, rank-major: the item id of each chunk's first Forward on its rank and of its last
  // gradient pass (its last Backward, or its last Weight where the schedule splits them); -1: none.
  std::vector<int32_t> first_forward_item, last_grad_item;
  // ir::run_edges(order, v, split, p > 1) of each rank: (item id, r v + chunk) of the items that
  // open and close runs, and each chunk's runs (p x v, rank-major).
  std::vector<std::pair<int32_t, int32_t>> run_opens, run_closes;
  std::vector<int64_t> runs;
  size_t items() const { return item_begin.empty() ? 0 : static_cast<size_t>(item_begin.back()); }
};
OrderWalk compile_order_walk(const PipelineSchedule& s, int p, int v, int64_t m);

// Compiled orders shared by the estimates of a search (Estimator owns one): compile_order_walk
// per (schedule, p, v, m), built on first use and kept, up to kMaxUnits units in all (beyond them
// a walk is compiled for its caller alone). The schedule is keyed by its address: use one cache
// with the schedules of one registry, which must outlive it. Thread-safe.
class OrderCache {
 public:
  static constexpr size_t kMaxUnits = size_t{1} << 22;
  std::shared_ptr<const OrderWalk> get(const PipelineSchedule& s, int p, int v, int64_t m) const;

 private:
  mutable std::mutex mu_;
  mutable std::map<std::tuple<const PipelineSchedule*, int, int, int64_t>, std::shared_ptr<const OrderWalk>> walks_;
  mutable size_t units_ = 0;
};
// cache->get(s, p, v, m), or a walk compiled for the caller where cache is null.
std::shared_ptr<const OrderWalk> order_walk(const PipelineSchedule& s, int p, int v, int64_t m, const OrderCache* cache);

// order_makespan_s of a compiled order (walk.p, walk.v, walk.m).
double order_makespan_s(const PipelineSchedule& s, const OrderWalk& walk, const StageTimes& t, std::vector<double>* rank_end_s = nullptr,
                        std::vector<double>* chunk_grad_end_s = nullptr, std::vector<double>* chunk_first_fwd_start_s = nullptr);

// order_makespan_s with its work bounded, as estimate and the plan search use it: the order of
// m_walk = max(4p + 2, kOrderWalkItems / items per micro-batch) micro-batches (even, and a multiple
// of microbatch_multiple) is timed and each
// further micro-batch adds the steady state's pace, the slowest rank's forward + backward (the
// pipeline's critical cycle; ranks' ends shift alike). With interleaving (v > 1) the pace is the
// order's own growth over the walk's last quarter, and the walk is doubled (up to 32 x
// kOrderWalkItems items, or 4 times the first walk) until its last two quarters grow alike, no
// slower than the busiest rank.
// Exact for m <= m_walk; beyond it the transient left after m_walk micro-batches is the error:
// 0.14% at most over random stage times with m_walk = 6p, 0.3% with interleaving and near-equal
// DualPipeV ranks (SimPipeline.BoundedOrderTimingStaysWithinItsTransient). Before 2026-12-03
// the plan search walked every micro-batch, four times a plan's closed-form cost.
inline constexpr int64_t kOrderWalkItems = 2048;
// orders: compiled orders to reuse (null: compiled for this call).
double order_time_s(const PipelineSchedule& s, const StageTimes& t, int p, int v, int64_t m,
                    std::vector<double>* rank_end_s = nullptr, std::vector<double>* chunk_grad_end_s = nullptr,
                    std::vector<double>* chunk_first_fwd_start_s = nullptr, const OrderCache* orders = nullptr);
// The micro-batches order_time_s walks before extrapolating (m itself when no more).
int64_t order_walk_microbatches(const PipelineSchedule& s, int p, int v, int64_t m);

// Whether order[k] is a Backward marked full_backward with its own Weight at order[k + 1]: the two
// run as one backward whose input gradient leaves after the weight pass (2026-12-07 review).
bool weight_joins_backward(const std::vector<ScheduleItem>& order, size_t k);

// Checks that the orders of all p ranks form a deadlock-free pipeline (every forward of chunk
// c on rank r after the forward of the previous virtual stage, every backward after the next
// virtual stage's backward). Throws Error naming the ranks and items of a cycle.
void validate_schedule(const PipelineSchedule& s, int p, int v, int64_t m);

}  // namespace sextant::ir
