// Closed-form step model. See docs/models.md for every formula.
#include "estimate/estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace sextant {

using namespace ir;

static double known_or(const Sourced& s, double dflt) { return s.known ? s.value : dflt; }

// An attention op runs at its own dtype's peak in 16 or 32 bits; an 8- or 4-bit one (not lowered
// so: flash attention stays 16-bit) at the 16-bit peak.
static bool attention_runs_at_own_peak(DType d) { return full_precision(d) || d == DType::BF16 || d == DType::FP16; }

std::optional<DType> peak_dtype_of(const ComputeOp& op, const Accelerator& acc) {
  switch (op.cls) {
    case OpClass::Gemm:
    case OpClass::Logits:
    case OpClass::Router:
      return acc.has_peak(op.dtype) ? op.dtype : DType::BF16;
    case OpClass::Attention:
      // The op's own precision (bf16, fp16, or fp32/tf32 in fp32 training) where the part has its
      // peak, else 16-bit: bf16, or fp16 on a part without bf16 (V100). Never an fp8/fp4 peak
      // (review of 2026-12-07: fp16 attention had been timed at the bf16 peak).
      return attention_runs_at_own_peak(op.dtype) && acc.has_peak(op.dtype) ? op.dtype
             : acc.has_peak(DType::BF16)                                     ? DType::BF16
                                                                             : DType::FP16;
    default:
      return std::nullopt;
  }
}

std::set<DType> peak_dtypes_read(const Workload& w) {
  const Scenario& s = w.scenario();
  const Accelerator& acc = s.accelerator;
  std::set<DType> out{acc.has_peak(s.train.precision) ? s.train.precision : DType::BF16};  // MFU's peak
  auto add = [&](const ComputeOp& op) {
    if (auto d = peak_dtype_of(op, acc)) out.insert(*d);
  };
  for (const auto& st : w.stages)
    for (const auto& ch : st.chunks)
      for (const auto& b : ch.blocks)
        for (const StepList* l : {&b.forward, &b.backward_input, &b.backward_weight, &b.recompute})
          for (const auto& step : *l)
            if (const auto* op = std::get_if<ComputeOp>(&step)) add(*op);
  for (const auto& sw : w.step_per_stage)
    for (const auto& op : sw.optimizer) add(op);
  for (const auto& op : w.step.optimizer) add(op);
  return out;
}

namespace {
// The accelerator's figures the compute model reads, looked up once per evaluation: the peak and
// GEMM-fraction maps had been searched three to four times per op, 12% of a 405B plan search's
// profile (2026-12-07). The values are the Accelerator's own accessors', so the model is unchanged.
constexpr size_t kDTypeCount = static_cast<size_t>(DType::INT4) + 1;
struct ComputeRates {
  const Accelerator* acc;
  double bw_bytes_per_s, overhead_s, sustained, attention_fraction, fp8_block_fraction;
  GemmHalfDims half_dims;
  std::array<bool, kDTypeCount> has_peak{};
  std::array<double, kDTypeCount> peak_flops{}, gemm_fraction{};
  explicit ComputeRates(const Accelerator& a)
      : acc(&a),
        bw_bytes_per_s(a.memory_bandwidth_bytes_per_s.value * known_or(a.memory_bandwidth_fraction, 0.85)),
        overhead_s(known_or(a.kernel_overhead_s, 4e-6)),
        sustained(known_or(a.sustained_compute_fraction, 1.0)),
        attention_fraction(known_or(a.attention_fraction, 0.7)),
        fp8_block_fraction(known_or(a.fp8_block_scaled_gemm_fraction, 1.0)),
        half_dims(a.gemm_half_dims(128)) {
    for (size_t i = 0; i < kDTypeCount; ++i) {
      const auto d = static_cast<DType>(i);
      has_peak[i] = a.has_peak(d);
      peak_flops[i] = has_peak[i] ? a.peak(d) : 0.0;
      gemm_fraction[i] = a.gemm_fraction(d);
    }
  }
  double attention_fraction_value() const { return attention_fraction; }
  double fp8_block_fraction_value() const { return fp8_block_fraction; }
  const GemmHalfDims& half_dims_value() const { return half_dims; }
  bool has(DType d) const { return has_peak[static_cast<size_t>(d)]; }
  // Accelerator::peak's value, and its error for a dtype without a published peak.
  double peak(DType d) const { return has(d) ? peak_flops[static_cast<size_t>(d)] : acc->peak(d); }
  double fraction(DType d) const { return gemm_fraction[static_cast<size_t>(d)]; }
  // peak_dtype_of's rule on the table.
  DType peak_dtype(const ComputeOp& op) const {
    if (op.cls == OpClass::Attention)
      return attention_runs_at_own_peak(op.dtype) && has(op.dtype) ? op.dtype : has(DType::BF16) ? DType::BF16 : DType::FP16;
    return has(op.dtype) ? op.dtype : DType::BF16;
  }
};

// The same figures read from the Accelerator at each call (one op's time: simulate's program, the
// per-op table), where building the table would cost more than it saves.
struct DirectRates {
  const Accelerator* acc;
  double bw_bytes_per_s, overhead_s, sustained;
  explicit DirectRates(const Accelerator& a)
      : acc(&a),
        bw_bytes_per_s(a.memory_bandwidth_bytes_per_s.value * known_or(a.memory_bandwidth_fraction, 0.85)),
        overhead_s(known_or(a.kernel_overhead_s, 4e-6)),
        sustained(known_or(a.sustained_compute_fraction, 1.0)) {}
  double attention_fraction_value() const { return known_or(acc->attention_fraction, 0.7); }
  double fp8_block_fraction_value() const { return known_or(acc->fp8_block_scaled_gemm_fraction, 1.0); }
  GemmHalfDims half_dims_value() const { return acc->gemm_half_dims(128); }
  double peak(DType d) const { return acc->peak(d); }
  double fraction(DType d) const { return acc->gemm_fraction(d); }
  DType peak_dtype(const ComputeOp& op) const { return *peak_dtype_of(op, *acc); }
};

// The one compute model (docs/models.md): estimate's hot path (ComputeRates) and one op's time
// (DirectRates) both call it.
template <class Rates>
inline ComputeTime compute_parts(const ComputeOp& op, const Rates& r) {
  const Accelerator& acc = *r.acc;
  ComputeTime ct;
  ct.overhead_s = r.overhead_s;
  ct.memory_s = op.bytes / r.bw_bytes_per_s;
  switch (op.cls) {
    case OpClass::Gemm:
    case OpClass::Logits:
    case OpClass::Router: {
      const DType d = r.peak_dtype(op);
      // gemm_fraction x sustained x the shape factor (catalog.hpp: gemm_shape_factor with the
      // entry's per-role half-dimensions, 128 where it gives none; also fitted by calibrate).
      const double block = op.block_scaled && d == DType::FP8 ? r.fp8_block_fraction_value() : 1.0;
      const double eff = gemm_efficiency(r.fraction(d) * r.sustained * block, static_cast<double>(op.m), static_cast<double>(op.n),
                                         static_cast<double>(op.k), r.half_dims_value());
      ct.compute_s = op.flops / (r.peak(d) * eff);
      // Operands re-streamed from a slower memory level than the fitted shapes' (calibrated CPU
      // entries only: GPU entries carry no bandwidth_by_working_set and are unchanged).
      if (acc.bandwidth_by_working_set.known()) {
        ct.operand_traffic_s = gemm_operand_traffic_s(static_cast<double>(op.m), static_cast<double>(op.n), static_cast<double>(op.k),
                                                      dtype_bytes(op.dtype), acc.bandwidth_by_working_set.points,
                                                      acc.gemm_fitted_footprint_bytes.value) *
                               static_cast<double>(op.batch);  // each GEMM of a batch streams its own operands
        ct.compute_s += ct.operand_traffic_s;
      }
      break;
    }
    case OpClass::Attention: {
      const DType d = r.peak_dtype(op);
      double rate = r.peak(d) * r.fraction(d) * r.sustained * r.attention_fraction_value();
      // An older attention kernel of the stack (framework attention_peak_fraction) is slower still.
      if (op.peak_fraction_cap > 0) rate = std::min(rate, r.peak(d) * op.peak_fraction_cap);
      ct.compute_s = op.flops / rate;
      break;
    }
    default:
      break;
  }
  ct.time_s = std::max(ct.compute_s, ct.memory_s) + ct.overhead_s;
  return ct;
}
}  // namespace

const char* ComputeTime::bound() const {
  if (overhead_s > compute_s && overhead_s > memory_s) return "overhead";
  return compute_s >= memory_s && compute_s > 0 ? "compute" : "memory";
}

ComputeTime compute_time(const ComputeOp& op, const Accelerator& acc) { return compute_parts(op, DirectRates(acc)); }

double compute_time_s(const ComputeOp& op, const Accelerator& acc) { return compute_parts(op, DirectRates(acc)).time_s; }

double Estimator::collective_time_s(const Collective& c, const Workload& w, const Fabric& f) const {
  if (c.calls <= 1) return collectives_.best(c.kind, c.bytes, w.group_of(c), f, c.traffic).time_s;
  return c.calls * collectives_.best(c.kind, c.bytes / c.calls, w.group_of(c), f, c.traffic).time_s;
}

double nic_sharing_stretch_s(double wire_s, std::span<const double> backlogs_s) {
  double stretch = 0;
  for (const double b : backlogs_s) stretch += std::clamp(b, 0.0, std::max(0.0, wire_s));
  return stretch;
}

double Estimator::collective_wire_s(const Collective& c, const Workload& w, const Fabric& f) const {
  const int calls = std::max(1, c.calls);
  const ir::Group& g = w.group_of(c);
  const CollectiveChoice ch = collectives_.best(c.kind, c.bytes / calls, g, f, c.traffic);
  if (!ch.algorithm) return 0.0;  // a group of one, or no bytes
  return calls * std::max(0.0, ch.time_s - ch.algorithm->latency_s(c.kind, g, f, c.traffic));
}

namespace {

constexpr int kOpClasses = static_cast<int>(OpClass::Memcpy) + 1;

// A once-per-step collective as it is issued: with overlap, the DP/EDP gradient reductions
// (grad) and parameter gathers go out bucket by bucket (Megatron-Core's buckets,
// ir::buckets_of), each call paying its latency, as simulate issues them; without overlap, one
// call each. Before 2026-12-03 estimate priced one call always (the 70B example's DP traffic
// 0.28 s where simulate's buckets took 0.30 s; Llama 3 8B over dp 64, 125 buckets: 0.13 s
// against 0.18 s).
// Both go out per model chunk (ir::chunk_calls_of: at least one bucket a chunk); before 2026-12-05
// the parameter gathers were priced in the stage's buckets.
Collective as_issued(const Collective& col, const StepWork& sw, const Stage& st, const ParallelPlan& plan, bool grad) {
  if (!bucketed(col) || !(grad ? plan.overlap_grad_reduce : plan.overlap_param_gather)) return col;
  Collective b = col;
  b.calls = std::max(1, col.calls) * chunk_calls_of(st, sw, col);
  return b;
}
constexpr int kGroupKinds = static_cast<int>(GroupKind::PP) + 1;

// Times of a pass (flat arrays indexed by enum: evaluated millions of times in plan search).
struct PassTime {
  double compute_s = 0;       // compute on the compute stream
  double blocking_comm_s = 0; // collectives on the critical path
  // Of blocking_comm_s: DP/EDP collectives before the pass's first compute (the embedding's ZeRO-3
  // gather), which the DP stream runs before anything issued during the pass (not summed by add).
  double lead_blocking_dp_s = 0;
  // Of blocking_comm_s: all DP/EDP collectives (a ZeRO-3 reduce-scatter with grad_reduce off). They
  // run on the DP stream, which the overlapped DP traffic shares: no window for that traffic.
  double blocking_dp_s = 0;
  double overlap_comm_s = 0;  // collectives that may overlap compute
  double interference_s = 0;  // of compute_s: compute slowed by the communication it overlaps
  // Backward passes: the layers' overlapped DP/EDP collectives (ZeRO-2/3 gradient reduce-scatters,
  // ZeRO-3 parameter gathers for the recompute and the backward), which share one DP stream over
  // the whole backward (settle_dp_backward).
  double deferred_dp_s = 0, deferred_by_group[kGroupKinds] = {};
  double deferred_count = 0;  // those collectives per micro-batch
  // Of deferred_dp_s: the traffic of groups that leave the scale-up domain (on the network card),
  // whole: the DP stream runs it call after call, waiting through each call's latency steps.
  double deferred_nic_dp_s[2] = {};  // by group: DP, EDP
  // Of deferred_nic_dp_s: the DP and the EDP group's bandwidth parts (their latency steps leave
  // the card free).
  double deferred_nic_wire_s[2] = {};
  // The card time those bandwidth parts take: each collective's over its share of the card
  // (card_fraction; a DP ring with eight members a node on H800 is bound by NVLink and draws about
  // 0.43 of the card over its bandwidth part). Review of 2026-12-07: the whole bandwidth part had
  // counted as card time, and MoE ZeRO-3 plans on H800 read 5-8% above simulate (below, Streams).
  double deferred_nic_card_s[2] = {};
  // And the scale-up port time they take (their share of it, card_fraction's scale_up): two such
  // rings with several members a domain share the port as the card.
  double deferred_nic_up_s[2] = {};
  // Other collectives that leave the scale-up domain (a CP ring, expert all-to-alls, TP or a
  // pipeline across nodes), hidden or not: they share the network card with deferred_nic_dp_s.
  // The card time of their bandwidth part only (Estimator::collective_wire_s, times their share
  // of the card, card_fraction; the whole bandwidth part before the review of 2026-12-07): a
  // collective's latency steps leave the card to the DP traffic, as simulate's contention shares
  // only the bandwidth part.
  double nic_comm_s = 0;
  // Of nic_comm_s: the collectives whose stretch on the shared card lengthens the pass (the share
  // of the card's sharing stretch, settle_dp, each pass is charged): the blocking ones and those
  // hidden behind the next compute step only (a CP ring's K/V sends), whose cover the stretch
  // may outlast.
  double nic_blocking_s = 0;
  // Those collectives in pass order, one block's pass only (eval_steps; add() leaves them out):
  // where each starts in the pass (the compute and blocking communication before it), its
  // bandwidth part, its group and its slack (how long the compute beside it outlasts it: 0 for a
  // blocking one). The DP traffic in flight when one starts shares the card with it (settle_dp).
  // Its shares of the card and of the scale-up port over its bandwidth part (card_fraction; a TP
  // ring across H800 nodes, eight members a node, is bound by NVLink and draws 0.43 of the card:
  // review of 2026-12-07, all had been taken as bound by the card).
  // More than kMaxNicEvents in a pass: the last one carries the rest (its shares averaged by
  // bandwidth part).
  static constexpr int kMaxNicEvents = 8;
  int nic_events = 0;
  double nic_event_at_s[kMaxNicEvents] = {}, nic_event_wire_s[kMaxNicEvents] = {}, nic_event_slack_s[kMaxNicEvents] = {};
  double nic_event_card[kMaxNicEvents] = {}, nic_event_up[kMaxNicEvents] = {};
  uint8_t nic_event_group[kMaxNicEvents] = {};  // GroupKind
  void add_nic_event(double wire_s, GroupKind g, double slack_s, double card, double up) {
    nic_blocking_s += wire_s;
    if (nic_events < kMaxNicEvents) {
      const int k = nic_events++;
      nic_event_at_s[k] = compute_s + blocking_comm_s;
      nic_event_wire_s[k] = wire_s;
      nic_event_slack_s[k] = slack_s;
      nic_event_card[k] = card;
      nic_event_up[k] = up;
      nic_event_group[k] = static_cast<uint8_t>(g);
    } else {
      const int k = kMaxNicEvents - 1;
      const double total = nic_event_wire_s[k] + wire_s;
      if (total > 0) {
        nic_event_card[k] = (nic_event_card[k] * nic_event_wire_s[k] + card * wire_s) / total;
        nic_event_up[k] = (nic_event_up[k] * nic_event_wire_s[k] + up * wire_s) / total;
      }
      nic_event_wire_s[k] = total;
      nic_event_slack_s[k] += slack_s;
    }
  }
  double by_class[kOpClasses] = {};
  double comm_by_group[kGroupKinds] = {}, exposed_by_group[kGroupKinds] = {};
  // Which entries occurred (a breakdown row is shown for every class or group that occurs, even at 0 s).
  unsigned class_seen = 0, comm_seen = 0, exposed_seen = 0;
  void add_class(OpClass k, double t) { by_class[static_cast<int>(k)] += t; class_seen |= 1u << static_cast<int>(k); }
  void add_comm(GroupKind g, double t) { comm_by_group[static_cast<int>(g)] += t; comm_seen |= 1u << static_cast<int>(g); }
  void add_exposed(GroupKind g, double t) { exposed_by_group[static_cast<int>(g)] += t; exposed_seen |= 1u << static_cast<int>(g); }
  double total() const { return compute_s + blocking_comm_s + std::max(0.0, overlap_comm_s - compute_s); }
  double exposed_comm() const { return blocking_comm_s + std::max(0.0, overlap_comm_s - compute_s); }
  void add(const PassTime& o, double times) {
    compute_s += times * o.compute_s;
    blocking_comm_s += times * o.blocking_comm_s;
    blocking_dp_s += times * o.blocking_dp_s;
    overlap_comm_s += times * o.overlap_comm_s;
    interference_s += times * o.interference_s;
    deferred_dp_s += times * o.deferred_dp_s;
    deferred_count += times * o.deferred_count;
    for (int i = 0; i < 2; ++i) {
      deferred_nic_dp_s[i] += times * o.deferred_nic_dp_s[i];
      deferred_nic_wire_s[i] += times * o.deferred_nic_wire_s[i];
      deferred_nic_card_s[i] += times * o.deferred_nic_card_s[i];
      deferred_nic_up_s[i] += times * o.deferred_nic_up_s[i];
    }
    nic_comm_s += times * o.nic_comm_s;
    nic_blocking_s += times * o.nic_blocking_s;
    for (int i = 0; i < kGroupKinds; ++i) deferred_by_group[i] += times * o.deferred_by_group[i];
    for (int i = 0; i < kOpClasses; ++i) by_class[i] += times * o.by_class[i];
    for (int i = 0; i < kGroupKinds; ++i) {
      comm_by_group[i] += times * o.comm_by_group[i];
      exposed_by_group[i] += times * o.exposed_by_group[i];
    }
    class_seen |= o.class_seen;
    comm_seen |= o.comm_seen;
    exposed_seen |= o.exposed_seen;
  }
};

// Pipeline transfers per micro-batch charged to rank r, by direction: a send per chunk pass that
// has a next virtual stage on another rank, as simulate issues them. A forward send per chunk but
// the model's last; a backward send per chunk but the model's first. Single-chunk schedules: rank
// 0 sends forward only and rank p-1 backward only. Interleaved: the last rank's last chunk sends
// no forward and the first rank's first chunk no backward. V-shaped (dualpipev): the turn on rank
// p-1 is local and rank 0 holds both ends of the model, so those two ranks send once each way
// (chunk 0's forward and chunk 1's backward on rank 0; chunk 1's forward and chunk 0's backward
// on rank p-1), the others twice.
// Before 2026-12-06 the end ranks of 1F1B, GPipe, ZB-H1 and interleaving were charged one send
// per chunk each way, the one to no neighbour priced as the other: Llama 2 7B at pp 8 over EFA
// paid rank 0 16 backward sends it never makes, 0.4485 s against simulate's and an event-by-event
// 1F1B's 0.4357 s (review).
struct PpTransfers {
  double forward = 0, backward = 0;
};
PpTransfers chunk_transfers(const Workload& w, int r) {
  const auto& chunks = w.stages[static_cast<size_t>(r)].chunks;
  const int p = static_cast<int>(w.stages.size()), v = static_cast<int>(chunks.size());
  if (p <= 1) return {};
  const bool v_shaped = v == 2 && w.stages[0].chunks[1].virtual_stage != p;
  if (v_shaped) {
    const double n = r == 0 || r == p - 1 ? 1.0 : 2.0;
    return {n, n};
  }
  return {static_cast<double>(v - (r == p - 1 ? 1 : 0)), static_cast<double>(v - (r == 0 ? 1 : 0))};
}

// One of rank r's pipeline sends in each direction (ir::pp_send: inside the scale-up domain or
// across it), priced by destination. Interleaved: to r+1 and r-1 with the wrap (chunk boundaries
// pass from the last rank to the first). Single-chunk schedules: to r+1 forward and r-1 backward;
// an end rank has no send in the direction it has no neighbour (chunk_transfers counts none), 0.
// V-shaped (dualpipev): chunk 0 runs down the ranks and chunk 1 back up, so each direction is the
// mean of the two neighbours (an end rank's only neighbour's).
struct PpHops {
  double forward_s = 0, backward_s = 0;
};
PpHops pp_hop_times(const Estimator& est, const Workload& w, const Fabric& f, int r, double bytes) {
  const int p = static_cast<int>(w.stages.size());
  if (p <= 1) return {};
  auto t = [&](int to) { return est.collective_time_s(pp_send(w, "pp.send_recv", bytes, r, to), w, f); };
  if (w.schedule == "interleaved-1f1b") return {t((r + 1) % p), t((r + p - 1) % p)};
  const double up = r + 1 < p ? t(r + 1) : 0.0, down = r > 0 ? t(r - 1) : 0.0;
  const auto& chunks = w.stages[static_cast<size_t>(r)].chunks;
  const bool v_shaped = chunks.size() == 2 && w.stages[0].chunks[1].virtual_stage != p;
  if (v_shaped) {
    const double both = r == 0 ? up : r == p - 1 ? down : (up + down) / 2;
    return {both, both};
  }
  return {up, down};
}

// Rank r's pipeline transfers per micro-batch, charged to its settled passes: one function for
// run() and stage_table(), whose copy had skipped interleaved ranks and so left their link excess
// out of the stages table (2026-12-06 review). Forward sends go to the next rank, backward ones to
// the previous (each inside the scale-up domain or across it, ir::pp_send).
void charge_pp_transfers(const Estimator& est, const Workload& w, const Fabric& f, int r, PassTime& fwd, PassTime& bwd, const PassTime& wgt) {
  if (w.stages.size() <= 1) return;
  const bool p2p_hidden = w.schedule == "interleaved-1f1b";  // overlaps transfers with other chunks' work
  const PpHops hops = pp_hop_times(est, w, f, r, w.stages[static_cast<size_t>(r)].boundary_activation_bytes);
  const PpTransfers n = chunk_transfers(w, r);
  const double send_f = hops.forward_s * n.forward, send_b = hops.backward_s * n.backward;
  // Interleaved schedules overlap these transfers with the other chunks' work, except in the
  // fill and the drain (fill_drain_p2p_s).
  fwd.blocking_comm_s += p2p_hidden ? 0.0 : send_f;
  bwd.blocking_comm_s += p2p_hidden ? 0.0 : send_b;
  fwd.add_comm(GroupKind::PP, send_f);
  bwd.add_comm(GroupKind::PP, send_b);
  fwd.add_exposed(GroupKind::PP, p2p_hidden ? 0.0 : send_f);
  bwd.add_exposed(GroupKind::PP, p2p_hidden ? 0.0 : send_b);
  // Hidden transfers still go through the rank's port one after another: per micro-batch its
  // sends (v each way on a middle rank) take send_f + send_b, and where that is more than the
  // rank's work per micro-batch the steady state runs at the link's pace. The excess is exposed
  // (on a 25 Gb/s NIC at vpp 4 the step had read 0.69 s where the rank's sends alone take
  // 1.37 s; 2026-12-04 review).
  if (p2p_hidden) {
    const double link = send_f + send_b;
    const double work = fwd.total() + bwd.total() + wgt.total();
    if (link > work) {
      const double excess = link - work;
      const double share_f = send_f / link;
      fwd.blocking_comm_s += excess * share_f;
      bwd.blocking_comm_s += excess * (1 - share_f);
      fwd.add_exposed(GroupKind::PP, excess * share_f);
      bwd.add_exposed(GroupKind::PP, excess * (1 - share_f));
    }
  }
}

// Interleaved 1F1B hides the transfers behind other chunks' passes in the steady state, but
// not on the path of the first micro-batch's forward through all p*v virtual stages (the
// warm-up: rank 0 starts chunk c+1 of a group of p micro-batches just as chunk c of its first
// one returns from rank p-1) nor of the last one's backward (the drain): 2 (p v - 1) hops, once
// per step, on every rank's path. Each hop along the chain at its own price: virtual stage k sits
// on rank k mod p, and a hop may stay inside a scale-up domain or leave it (before 2026-12-03
// every hop was priced as the slowest rank's send: 2.8% high at pp 8, vpp 3, tp 2 on 8-GPU nodes).
// 0 for the other schedules, whose transfers block each pass (charge_pp_transfers).
double interleaved_fill_drain_s(const Estimator& est, const Workload& w, const Fabric& f) {
  const int p = static_cast<int>(w.stages.size());
  if (w.schedule != "interleaved-1f1b" || p <= 1) return 0.0;
  const int v = static_cast<int>(w.stages[0].chunks.size());
  double t = 0;
  for (int k = 0; k + 1 < p * v; ++k) {
    const int from = k % p, to = (k + 1) % p;
    t += 2.0 * est.collective_time_s(pp_send(w, "pp.send_recv", w.stages[static_cast<size_t>(from)].boundary_activation_bytes, from, to), w, f);
  }
  return t;
}

struct Ctx {
  const Estimator& est;
  const Workload& w;
  const Accelerator& acc;
  Fabric fabric;
  double interference;
  ComputeRates rates = ComputeRates(acc);  // the compute model's figures of acc, looked up once
  // Compute time added per second of communication hidden behind it. Compute runs at 1 / (1 + I)
  // of its speed while the communication is in flight, so an op of T beside C < T takes
  // T + C I / (1 + I), as simulate's engine times it (docs/simulate.md, Interference).
  double slow_per_hidden_s() const { return interference / (1.0 + interference); }
};

// The weight elements whose gradient a backward op completes, as simulate releases them
// (sim::weight_elements): a weight-gradient GEMM's m x n, none for an input-gradient GEMM; a
// forward GEMM's n x k, the weights it reads (as simulate awaits gathered parameters).
double released_weight_elements(const ComputeOp& op) {
  if (op.cls != OpClass::Gemm) return 0.0;
  const double batch = static_cast<double>(std::max<int64_t>(1, op.batch));
  if (op.grad == ComputeOp::Grad::Weight) return static_cast<double>(op.m) * static_cast<double>(op.n) * batch;
  if (op.grad == ComputeOp::Grad::Input) return 0.0;
  return static_cast<double>(op.n) * static_cast<double>(op.k) * batch;
}

// A pass's GEMMs that read or complete weights (released_weight_elements), in pass order: where
// each starts and ends in the pass (the compute and blocking communication before it) and its
// weight elements, for a block's ParamProfile (2026-12-07 review). More than kMax: the last one
// carries the rest (it ends with the last of them).
struct WeightOps {
  static constexpr int kMax = 16;
  WeightOps() : n(0), window_s(0) {}  // the entries past n are never read: not zeroed (plan search)
  int n;
  double start_s[kMax], end_s[kMax], elements[kMax];
  double window_s;  // the pass's compute and blocking communication, before its overlapped excess
  void add(double start, double end, double el) {
    if (n < kMax) {
      start_s[n] = start;
      end_s[n] = end;
      elements[n++] = el;
      return;
    }
    end_s[kMax - 1] = end;
    elements[kMax - 1] += el;
  }
};

double card_fraction(const Collective& c, const Workload& w, const Fabric& f, double* scale_up = nullptr);

// Estimator::collective_time_s of c and, where wire_s is given, its collective_wire_s, from one
// choice of algorithm: the two ask the registry for the same (bytes per call, group, fabric). Review
// of 2026-12-07 (the plan search's speed): eval_steps asked twice for every collective on the card.
double collective_time_and_wire_s(const Estimator& est, const Collective& c, const Workload& w, const Fabric& f, double* wire_s) {
  const ir::Group& g = w.group_of(c);
  const int calls = std::max(1, c.calls);
  const CollectiveChoice ch = est.collectives().best(c.kind, c.calls <= 1 ? c.bytes : c.bytes / c.calls, g, f, c.traffic);
  if (wire_s) *wire_s = ch.algorithm ? calls * std::max(0.0, ch.time_s - ch.algorithm->latency_s(c.kind, g, f, c.traffic)) : 0.0;
  return c.calls <= 1 ? ch.time_s : c.calls * ch.time_s;
}

// One execution of a list of steps. Overlapped communication hides behind this list's compute;
// the excess is exposed (attributed to the groups in proportion) and counted as blocking time;
// overlapped communication slows the compute it overlaps by the interference fraction.
// weight_ops: where given, the pass's weight GEMMs are recorded in it (WeightOps).
PassTime eval_steps(const Ctx& c, const std::vector<Step>& steps, WeightOps* weight_ops = nullptr) {
  PassTime local;
  if (weight_ops) weight_ops->n = 0;
  double overlapped_by_group[kGroupKinds] = {};
  bool computed = false;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& st = steps[i];
    if (const auto* op = std::get_if<ComputeOp>(&st)) {
      computed = true;
      const double t = compute_parts(*op, c.rates).time_s;
      if (weight_ops)
        if (const double el = released_weight_elements(*op); el > 0) {
          const double at = local.compute_s + local.blocking_comm_s;
          weight_ops->add(at, at + t, el);
        }
      local.compute_s += t;
      local.add_class(op->cls, t);
    } else {
      const auto& col = std::get<Collective>(st);
      const bool nic = c.w.group_of(col).domains > 1;
      // The card is busy for the bandwidth part only. Before 2026-12-06 the whole time counted,
      // latency included: a tp 16 all-gather across B200 nodes is 69% latency (47 of 68 us), and
      // GPT-3 1.3B at tp 16 with ZeRO-3 and both overlaps read 0.0286 s with grad_reduce on or
      // off, its gradient overlap cancelled (simulate: 0.0251 s and 0.0288 s; review).
      double wire = 0.0;
      const double t = collective_time_and_wire_s(c.est, col, c.w, c.fabric, nic ? &wire : nullptr);
      local.add_comm(col.group, t);
      const bool dp = col.group == GroupKind::DP || col.group == GroupKind::EDP;
      // Its shares of the card and the scale-up port (card_fraction), for the card's sharing.
      double card = 0.0, up = 0.0;
      if (nic) card = card_fraction(col, c.w, c.fabric, &up);
      if (nic && !dp) local.nic_comm_s += wire * card;
      if (col.overlappable && col.hides_behind_next) {
        // Only the next compute step hides it (ring attention beside its attention).
        double beside = 0;
        for (size_t j = i + 1; j < steps.size(); ++j)
          if (const auto* nx = std::get_if<ComputeOp>(&steps[j])) {
            beside = compute_parts(*nx, c.rates).time_s;
            break;
          }
        // Beside it the op takes beside + min(t, beside (1 + I)) I / (1 + I); what outlasts that is exposed.
        const double slow = std::min(t, beside * (1.0 + c.interference)) * c.slow_per_hidden_s();
        const double exposed = std::max(0.0, t - beside - slow);
        // On a card shared with DP traffic it takes longer (settle_dp), and the pass waits for what
        // outlasts its cover. Before 2026-12-06 only a saturated card was charged for it: Llama 3
        // 8B at cp 16 over two H100 nodes with ZeRO-3, whose K/V sends each take about twice their
        // time beside the ZeRO traffic, read 2.497 s where simulate reads 3.168 s (review).
        if (nic && !dp) local.add_nic_event(wire, col.group, std::max(0.0, beside + slow - t), card, up);
        local.compute_s += slow;
        local.interference_s += slow;
        local.blocking_comm_s += exposed;
        local.add_exposed(col.group, exposed);
      } else if (col.overlappable && (col.group == GroupKind::DP || col.group == GroupKind::EDP)) {
        // A layer's gradient reduce-scatter is issued when its weight gradients are done and
        // runs beside the backward of the layers before it (FSDP, DeepSpeed ZeRO-2/3 and
        // Megatron's distributed optimizer launch it asynchronously); ZeRO-3's gathers go out on
        // the same stream, prefetched a layer ahead: settled per micro-batch over the whole pass
        // (settle_dp), not against this layer's own GEMMs alone.
        local.deferred_dp_s += t;
        if (nic) {
          const int g = col.group == GroupKind::EDP ? 1 : 0;
          local.deferred_nic_dp_s[g] += t;
          local.deferred_nic_wire_s[g] += wire;
          local.deferred_nic_card_s[g] += wire * card;
          local.deferred_nic_up_s[g] += wire * up;
        }
        local.deferred_by_group[static_cast<int>(col.group)] += t;
        local.deferred_count = 1;  // one unit per block execution (its gathers or reduce-scatters together)
      } else if (col.overlappable) {
        local.overlap_comm_s += t;
        overlapped_by_group[static_cast<int>(col.group)] += t;
      } else {
        if (nic && !dp) local.add_nic_event(wire, col.group, 0.0, card, up);
        local.blocking_comm_s += t;
        local.add_exposed(col.group, t);
        if (dp) {
          local.blocking_dp_s += t;
          if (!computed) local.lead_blocking_dp_s += t;
        }
      }
    }
  }
  if (weight_ops) weight_ops->window_s = local.compute_s + local.blocking_comm_s;
  // Compute T beside communication C slows to 1 / (1 + I) while C is in flight: it ends at
  // T + min(C, T (1 + I)) I / (1 + I), and C beyond that end is exposed (the pass takes
  // max(C, that end)). With I = 0: the compute T, and C - T exposed when C > T.
  const double slow = std::min(local.overlap_comm_s, local.compute_s * (1.0 + c.interference)) * c.slow_per_hidden_s();
  const double excess = std::max(0.0, local.overlap_comm_s - local.compute_s - slow);
  if (local.overlap_comm_s > 0)
    for (const auto& st : steps)  // every overlapped group gets its share (and a row), once
      if (const auto* col = std::get_if<Collective>(&st); col && col->overlappable && !col->hides_behind_next) {
        const int g = static_cast<int>(col->group);
        if (overlapped_by_group[g] < 0) continue;
        local.add_exposed(col->group, excess * overlapped_by_group[g] / local.overlap_comm_s);
        overlapped_by_group[g] = -1;
      }
  local.compute_s += slow;
  local.interference_s += slow;
  local.blocking_comm_s += excess;
  local.overlap_comm_s = 0;
  return local;
}

// The layers' overlapped DP collectives of one micro-batch's pass (PassTime::deferred_dp_s):
// n per-layer units, D in all, on one stream, beside the pass's window W on the rank: its
// compute and its blocking communication on other links (a TP all-reduce on NVLink does not
// stop an inter-node reduce-scatter). With equal layers (w = W / n, c = D / n) the last one ends
// at max(n w + c, w + n c): exposed max(D / n, D - W (n - 1) / n), as ChunkedOverlap gives for the
// step's buckets. The part hidden behind compute slows it (interference). The backward's
// exposure (its recompute, input and weight gradients' traffic) is shared by the input- and
// weight-gradient passes in proportion to the traffic each issues.
//
// Where the pass's blocks are known (units), their sizes are not taken as equal: the DP stream is
// run unit by unit as simulate runs it (FIFO; unit i+1's gather issued when unit i starts, unit
// i's reduce-scatter when it ends, the pass ending when both streams are done). An embedding or
// a head several layers in size, gathered or reduced beside one layer, had been priced as D / n:
// ZeRO-3 with a pipeline 8-12% and without one 5% faster than simulate (before 2026-12-04).
// A unit opening with a blocking DP gather (the embedding's, which nothing precedes to hide it)
// issues the next unit's gather after that one: the stream runs them in order (before 2026-12-05
// the next gather hid behind it, 1.2 ms per micro-batch short of simulate for Llama 3 8B at dp 32).
//
// Blocking DP traffic after a unit's compute (a ZeRO-3 reduce-scatter with grad_reduce off) is the
// unit's tail on the DP stream: it starts when the compute has ended and the stream has drained
// what was issued before it (the next unit's gather, prefetched as the unit started), and the
// unit ends with it. It is no window for that gather (before 2026-12-04 it was: ZeRO-3 with
// grad_reduce off read 11.7% faster than simulate, and faster than with it on).
//
// Blocking DP traffic at the start of a unit or within it (ZeRO-3's gathers with param_gather
// off: the forward's, the backward's before the input-gradient pass, after a selective recompute)
// is issued behind what the stream holds, the reduce-scatter of the unit before included, and the
// compute waits for it. Before 2026-12-06 only a lead of the recompute pass was read so: the
// backward's gather was taken as the unit's tail, the reduce-scatter before it hidden behind the
// unit's compute, and ZeRO-3 with grad_reduce on and param_gather off read faster than simulate
// (review: Llama 2 7B at tp 2, cp 4 with selective recompute 0.316 s against 0.414 s).
//
// Blocking collectives on the network card within a unit (an expert all-to-all, a TP collective
// across nodes: NicEvent) share it with the DP traffic in flight when they start. simulate runs
// the DP and EDP collectives each on its group's stream, beside each other and the blocking one,
// and shares the card max-min fairly (sim::Network, all three bound by the card): a blocking
// collective of bandwidth part c that starts while the streams hold b_DP and b_EDP of card time
// ends sum_g min(b_g, c) late (nic_sharing_stretch_s), and the DP traffic min(c, max_g b_g) late,
// where the card bounds all three; each by its share of the card and the scale-up port since the
// review of 2026-12-07 (meet_card).
// Before 2026-12-06 only a saturated card was charged (settle_dp's D_nic + C_nic bound): a
// layer's gradient reduce-scatters, issued as its backward ends, run beside the next layer's
// first all-to-all, and Qwen3-30B-A3B at ep 16 over 32 H100 with ZeRO-3 read 2.486 s where
// simulate reads 2.840 s (review).
//
// A collective hidden behind the next compute step only (a CP ring's K/V send beside its piece of
// the attention) is stretched alike, and the pass waits for what of the stretch outlasts the
// compute beside it (its slack); the DP traffic is delayed as by a blocking one.
struct NicEvent {
  double at_s = 0, wire_s = 0;  // start in the unit's window (compute before it), bandwidth part
  GroupKind group = GroupKind::EP;
  double slack_s = 0;  // how long the compute beside it outlasts it (0: blocking)
  double card = 1, up = 0;  // its shares of the card and the scale-up port (card_fraction)
};
// What a stretch on the card adds to the pass: the part that outlasts the collective's cover.
double nic_pass_delay_s(const NicEvent& ev, double stretch_s) { return std::max(0.0, stretch_s - ev.slack_s); }
struct DpUnit {
  double gather_s = 0, window_s = 0, reduce_s = 0;  // one repetition
  int count = 1;
  double lead_blocking_s = 0;  // of window_s: blocking DP traffic before the unit's compute
  double tail_blocking_s = 0;  // of window_s: blocking DP traffic after it
  double mid_blocking_s = 0;   // of window_s: blocking DP traffic after mid_offset_s of the window
  double mid_offset_s = 0;
  // The unit's timed collectives on the card (NicEvent: ChunkDpUnits::events[nic_first, + nic_count)),
  // the card time of one repetition's DP traffic by group (DP, EDP), and the rest of its time
  // (latency steps, traffic inside the domain). The traffic in flight at a unit's collective is
  // a unit's worth, its neighbours' as much as its own (the reduce-scatter of the unit before, the
  // next one's gathers): its mix is taken as the unit's.
  int nic_first = 0, nic_count = 0;
  double nic_wire_s[2] = {0.0, 0.0};
  double nic_card_s[2] = {0.0, 0.0};  // the card time of those bandwidth parts (card_fraction)
  double nic_up_s[2] = {0.0, 0.0};    // and their scale-up port time
  double off_card_s = 0;
};

// The DP and the EDP stream's shares of the links they cross (PassTime::deferred_nic_card_s and
// deferred_nic_up_s over deferred_nic_wire_s): card[g], the network card's, and up[g], the
// scale-up port's, over stream g's bandwidth part. A stream without traffic takes the other's
// (split_card_backlog gives it a share of a backlog all the same).
struct StreamShares {
  double card[2] = {1.0, 1.0}, up[2] = {0.0, 0.0};
  StreamShares() = default;
  StreamShares(const double wire_s[2], const double card_s[2], const double up_s[2]) {
    bool has[2];
    for (int g = 0; g < 2; ++g) {
      has[g] = wire_s[g] > 0;
      if (has[g]) {
        card[g] = std::clamp(card_s[g] / wire_s[g], 0.0, 1.0);
        up[g] = std::clamp(up_s[g] / wire_s[g], 0.0, 1.0);
      }
    }
    for (int g = 0; g < 2; ++g)
      if (!has[g] && has[1 - g]) {
        card[g] = card[1 - g];
        up[g] = up[1 - g];
      }
  }
  // How much slower than alone the two run side by side: simulate's max-min sharing gives both
  // 1 / (d_DP + d_EDP) of their speed where they oversubscribe the card, likewise the scale-up
  // port; where both fit, their idle speed.
  double together() const { return std::max({1.0, card[0] + card[1], up[0] + up[1]}); }
};
// Up to three flows on the network card and the scale-up port, shared max-min fairly as
// simulate's links share them (sim::Network: progressive filling, each flow at most its idle
// speed; a flow draws card[i] and up[i] of the two links at its idle speed): flow i moves work[i]
// of bandwidth part and ends at end[i] (0 without work); moved[i], how far each had moved when
// flow 0 ended (its whole work where flow 0 has none).
void share_links(int n, const double work[], const double card[], const double up[], double end[], double moved[]) {
  double rem[3], rate[3];
  bool active[3];
  for (int i = 0; i < n; ++i) {
    rem[i] = std::max(0.0, work[i]);
    active[i] = rem[i] > 0;
    end[i] = 0;
    moved[i] = rem[i];
  }
  bool first_open = active[0];
  double t = 0;
  for (int round = 0; round < n; ++round) {
    int left = 0;
    for (int i = 0; i < n; ++i) left += active[i] ? 1 : 0;
    if (left == 0) break;
    // Progressive filling: the unfrozen flows rise together until a link they draw on is full.
    bool frozen[3];
    double cap[2] = {1.0, 1.0}, x = 0;
    for (int i = 0; i < n; ++i) {
      frozen[i] = !active[i];
      rate[i] = 0;
    }
    while (left > 0) {
      double sum[2] = {0.0, 0.0};
      for (int i = 0; i < n; ++i)
        if (!frozen[i]) {
          sum[0] += card[i];
          sum[1] += up[i];
        }
      double delta = 1.0 - x;
      for (int l = 0; l < 2; ++l)
        if (sum[l] > 0) delta = std::min(delta, std::max(0.0, cap[l]) / sum[l]);
      x += delta;
      for (int l = 0; l < 2; ++l) cap[l] -= delta * sum[l];
      const bool top = x >= 1.0 - 1e-12;
      for (int i = 0; i < n; ++i)
        if (!frozen[i] && (top || (card[i] > 0 && cap[0] <= 1e-12) || (up[i] > 0 && cap[1] <= 1e-12))) {
          frozen[i] = true;
          rate[i] = std::min(1.0, x);
          --left;
        }
    }
    double dt = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i)
      if (active[i] && rate[i] > 0) dt = std::min(dt, rem[i] / rate[i]);
    if (!std::isfinite(dt)) break;
    t += dt;
    for (int i = 0; i < n; ++i) {
      if (!active[i]) continue;
      if (rem[i] / rate[i] <= dt * (1.0 + 1e-12)) {
        rem[i] = 0;
        active[i] = false;
        end[i] = t;
      } else {
        rem[i] -= rate[i] * dt;
      }
    }
    if (first_open && !active[0]) {
      first_open = false;
      for (int i = 0; i < n; ++i) moved[i] = std::max(0.0, work[i]) - rem[i];
    }
  }
}
// A collective on the card (bandwidth part c, shares a of the card and a_up of the scale-up
// port) beside the DP and EDP streams' backlogs b (their bandwidth parts still to run, shares
// sh), by share_links: how much later it ends (stretch), how much later the streams end than
// without it (delay), and how far each stream moved while it ran (moved). Where the card bounds
// all three (the shares 1, as taken before the review of 2026-12-07) the stretch is sum_g min(b_g,
// c) and the delay min(c, max_g b_g); a stream bound by NVLink (a dense DP ring with eight members
// a node on H800 draws 0.43 of the card) stretches it by 0.43 min(b, c).
struct CardMeet {
  double stretch = 0, delay = 0, moved[2] = {0.0, 0.0};
};
CardMeet meet_card(double c, double a, double a_up, const double b[2], const StreamShares& sh) {
  CardMeet m;
  if (!(c > 0)) return m;
  const double work[3] = {c, std::max(0.0, b[0]), std::max(0.0, b[1])};
  if (!(work[1] + work[2] > 0)) return m;
  const double card[3] = {a, sh.card[0], sh.card[1]}, up[3] = {a_up, sh.up[0], sh.up[1]};
  // The streams alone: two flows run at one rate, 1 / together() while both have work (a link
  // both draw on binds first), then the other at its idle speed.
  const int s = work[1] <= work[2] ? 1 : 2, big = 3 - s;
  const double pair = sh.together(), alone = work[big] + work[s] * (pair - 1.0);
  // Where every flow of a phase draws on the link that binds it (the card, which all of them
  // cross, or the port), they move at one rate, 1 / max(1, card sum, port sum): the phases in
  // closed form (plan search meets this millions of times). Else (an NVLink-bound pair beside a
  // flow without an NVLink hop) the flows are shared step by step (share_links).
  auto one_rate = [&](std::initializer_list<int> flows, double& factor) {
    double sc = 0, su = 0;
    bool all_card = true, all_up = true;
    for (const int i : flows) {
      sc += card[i];
      su += up[i];
      all_card = all_card && card[i] > 0;
      all_up = all_up && up[i] > 0;
    }
    factor = std::max({1.0, sc, su});
    return factor <= 1.0 || (sc >= su && all_card) || (su >= sc && all_up);
  };
  double f3 = 1, f2 = 1;
  if (one_rate({0, 1, 2}, f3) && one_rate({0, big}, f2)) {
    const double m1 = std::min(work[s], c), m2 = std::min(work[big], c);
    // The collective runs beside both streams for m1 of its work, beside the bigger for m2 - m1.
    const double end_c = m1 * f3 + (m2 - m1) * f2 + (c - m2);
    double end_streams;
    if (c >= work[big]) end_streams = m1 * f3 + (m2 - m1) * f2;  // both done beside it
    else if (c >= work[s]) end_streams = end_c + (work[big] - c);
    else end_streams = end_c + (work[s] - c) * pair + (work[big] - work[s]);
    m.stretch = std::max(0.0, end_c - c);
    m.delay = std::max(0.0, end_streams - alone);
    m.moved[0] = std::min(work[1], c);
    m.moved[1] = std::min(work[2], c);
    return m;
  }
  double end[3], moved[3];
  share_links(3, work, card, up, end, moved);
  m.stretch = std::max(0.0, end[0] - c);
  m.delay = std::max(0.0, std::max(end[1], end[2]) - alone);
  m.moved[0] = moved[1];
  m.moved[1] = moved[2];
  return m;
}
// How long the two streams' bandwidth parts wire_s[2] take side by side: at together()'s pace
// until the smaller is done, max(w) + min(w) (together - 1); their sum where the card bounds both.
// Review of 2026-12-07: the sum always, and a dense DP ring with eight members a node on H800
// (NVLink 160 GB/s against the node's eight cards of 47 GB/s) is bound by NVLink, drawing 0.43 of
// the card: beside the expert (EDP) ring, one member a node, both run at 1 / 1.43 of their speed
// in simulate, not one after the other.
double streams_card_s(const double wire_s[2], const StreamShares& sh) {
  const double lo = std::min(wire_s[0], wire_s[1]), hi = std::max(wire_s[0], wire_s[1]);
  return hi + lo * (sh.together() - 1.0);
}
// The bandwidth parts still queued on the DP streams (card_s of the two streams' time side by
// side, streams_card_s), by group: the DP and the EDP stream run side by side at one pace
// (StreamShares::together) until the one with less work (of a unit's mix own_s) is done.
// dp_units_exposed_s times the two as one queue (free); of what it holds, the latency steps and
// the traffic inside the domain (a unit's off_card_s) take no card time.
void split_card_backlog(double card_s, const double own_s[2], const StreamShares& sh, double out_s[2]) {
  const int big = own_s[1] > own_s[0] ? 1 : 0;
  const double diff = own_s[big] - own_s[1 - big];
  const double small = card_s > diff ? (card_s - diff) / sh.together() : 0.0;
  out_s[1 - big] = small;
  out_s[big] = small + std::min(card_s, diff);
}
// Exposed DP time of a pass of units in execution order: end of both streams less the windows.
// With `events`: the units' card events, their offsets scaled by offset_scale (the windows'
// stretch); the stretch they take (nic_sharing_stretch_s) is part of the result and, per group
// of the blocking collectives, added to stretch_by_group.
double dp_units_exposed_s(const std::vector<DpUnit>& units, const NicEvent* events = nullptr, double offset_scale = 1.0,
                          double* stretch_by_group = nullptr) {
  double free = 0, ce = 0, windows = 0;
  // The first gather goes out at the pass's start; each later one when the unit before it starts.
  bool first = true;
  double next_gather_end = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    const DpUnit& x = units[u];
    // The unit's streams' shares of the card and the port (its traffic's mix).
    const StreamShares sh = events && x.nic_count > 0 ? StreamShares(x.nic_wire_s, x.nic_card_s, x.nic_up_s) : StreamShares();
    for (int rep = 0; rep < x.count; ++rep) {
      if (first) {
        next_gather_end = free = free + x.gather_s;
        first = false;
      }
      double cs = std::max(ce, next_gather_end);
      // Blocking DP traffic opening the unit waits for the stream, and the compute for it.
      if (x.lead_blocking_s > 0) cs = std::max(cs, free);
      // The next unit's gather, issued as this one starts.
      const DpUnit* nx = rep + 1 < x.count ? &x : (u + 1 < units.size() ? &units[u + 1] : nullptr);
      if (nx && nx->gather_s > 0) next_gather_end = free = std::max(free, cs + x.lead_blocking_s) + nx->gather_s;
      else next_gather_end = cs;
      // Blocking DP traffic within the unit: issued when the compute reaches it, behind what the
      // stream holds; the rest of the unit waits for it.
      bool mid_due = x.mid_blocking_s > 0;
      auto mid = [&] {
        const double at = cs + x.mid_offset_s, start = std::max(at, free);
        free = start + x.mid_blocking_s;
        cs += start - at;
        mid_due = false;
      };
      // The unit's timed collectives on the card (NicEvent), in order, each beside the DP traffic
      // then in flight: the rest of the unit moves by what of its stretch outlasts its cover, the
      // DP stream by its own delay.
      for (int k = 0; events && k < x.nic_count; ++k) {
        const NicEvent& ev = events[x.nic_first + k];
        const double off = ev.at_s * offset_scale;
        if (mid_due && off >= x.mid_offset_s) mid();
        const double at = cs + off, backlog = std::max(0.0, free - at - x.off_card_s);
        if (!(backlog > 0) || !(x.nic_wire_s[0] + x.nic_wire_s[1] > 0)) continue;
        // Each stream and the collective draw their shares of the card and the scale-up port
        // (meet_card, as walk_card); before the review of 2026-12-07 all were taken as bound by
        // the card: a collective of bandwidth part c beside backlogs b_g ended sum_g min(b_g, c)
        // late, the streams min(c, max_g b_g).
        double b[2];
        split_card_backlog(backlog, x.nic_wire_s, sh, b);
        const CardMeet meet = meet_card(ev.wire_s, ev.card, ev.up, b, sh);
        const double stretch = meet.stretch, dp_delay = meet.delay;
        if (!(stretch > 0) && !(dp_delay > 0)) continue;
        const double late = nic_pass_delay_s(ev, stretch);
        cs += late;
        if (next_gather_end > at) next_gather_end += dp_delay;
        free += dp_delay;
        if (stretch_by_group) stretch_by_group[static_cast<int>(ev.group)] += late;
      }
      if (mid_due) mid();
      if (x.tail_blocking_s > 0) {
        ce = std::max(cs + x.window_s - x.tail_blocking_s, free) + x.tail_blocking_s;
        free = ce;
      } else {
        ce = cs + x.window_s;
      }
      windows += x.window_s;
      if (x.reduce_s > 0) free = std::max(free, ce) + x.reduce_s;
    }
  }
  return std::max(0.0, std::max(ce, free) - windows);
}

void settle_dp(const Ctx& c, PassTime& a, PassTime& b, const std::vector<DpUnit>* units = nullptr, const NicEvent* events = nullptr) {
  const double D = a.deferred_dp_s + b.deferred_dp_s;
  if (!(D > 0)) return;
  // The per-layer units: one per block execution that has such traffic (units_of_backward).
  const double n = std::max({1.0, a.deferred_count, b.deferred_count});
  const double compute = a.compute_s + b.compute_s;
  // Blocking DP traffic shares the DP stream with D: no window for it.
  const double W = compute + a.blocking_comm_s + b.blocking_comm_s - a.blocking_dp_s - b.blocking_dp_s;
  // The network card carries the DP traffic that leaves the domain and the pass's other
  // inter-domain collectives (a CP ring, expert all-to-alls) one after the other: the pass lasts
  // at least their sum, W + exposed >= D_nic + C_nic. Before 2026-12-05 each ran at the card's
  // full rate beside the other (GPT-3 1.3B on 512 A100 at cp 4 with ZeRO-3: 7.8% faster than
  // simulate, which shares the links). D_nic is the DP stream's whole time, C_nic the others'
  // bandwidth parts (PassTime::nic_comm_s): the stream loses the card only while they transfer.
  // A DP stream that does not fill the pass still slows the blocking collectives it overlaps
  // (NicEvent, dp_units_exposed_s): their stretch lengthens the pass, and counts toward the bound.
  // A stream draws d_g of the card over its bandwidth part (StreamShares; 1 before the review of
  // 2026-12-07): it loses d_g of C_nic, and the card carries the streams' card time and C_nic
  // (now the others' card time, their bandwidth parts times their own shares).
  const double Cn = a.nic_comm_s + b.nic_comm_s;
  double DnCn = 0;
  {
    double wire[2], on_card[2], on_up[2];
    for (int g = 0; g < 2; ++g) {
      wire[g] = a.deferred_nic_wire_s[g] + b.deferred_nic_wire_s[g];
      on_card[g] = a.deferred_nic_card_s[g] + b.deferred_nic_card_s[g];
      on_up[g] = a.deferred_nic_up_s[g] + b.deferred_nic_up_s[g];
    }
    const StreamShares sh(wire, on_card, on_up);
    for (int g = 0; g < 2; ++g)
      if (const double s = a.deferred_nic_dp_s[g] + b.deferred_nic_dp_s[g]; s > 0) DnCn = std::max(DnCn, s + sh.card[g] * Cn);
    if (on_card[0] + on_card[1] > 0) DnCn = std::max(DnCn, on_card[0] + on_card[1] + Cn);
  }
  // Exposed DP time with the pass's compute stretched by `stretch_s` (spread over its windows).
  double unit_windows = 0;
  if (units)
    for (const DpUnit& x : *units) unit_windows += x.window_s * x.count;
  // The blocking collectives' stretch on the shared card (NicEvent), per group, as exposed_with
  // last found it.
  double nic_stretch[kGroupKinds] = {}, nic_stretch_s = 0;
  auto exposed_with = [&](double stretch_s) {
    double e;
    std::fill(std::begin(nic_stretch), std::end(nic_stretch), 0.0);
    if (units && !units->empty()) {
      const double scale = stretch_s > 0 && unit_windows > 0 ? 1.0 + stretch_s / unit_windows : 1.0;
      double total;
      if (scale > 1.0) {
        std::vector<DpUnit> stretched = *units;
        for (DpUnit& x : stretched) x.window_s *= scale;
        total = dp_units_exposed_s(stretched, events, scale, nic_stretch);
      } else {
        total = dp_units_exposed_s(*units, events, 1.0, nic_stretch);
      }
      nic_stretch_s = 0;
      for (const double x : nic_stretch) nic_stretch_s += x;
      e = std::min(D, std::max(0.0, total - nic_stretch_s));
    } else {
      nic_stretch_s = 0;
      e = std::max(D / n, D - (W + stretch_s) * (n - 1) / n);
    }
    if (DnCn > 0 && Cn > 0) e = std::min(D, std::max(e, DnCn - W - stretch_s - nic_stretch_s));
    return e;
  };
  double exposed = exposed_with(0);
  const double hidden = std::max(0.0, D - exposed);
  const double behind_compute = W > 0 ? hidden * compute / W : 0.0;
  // Compute already slowed by the pass's own overlapped communication (a TP collective beside its
  // GEMM) is not slowed again by the DP traffic beside it, as in simulate's engine (one slow-down
  // while any collective is in flight): the DP traffic, spread over the pass, slows only the share
  // of compute that nothing else overlaps. Slowed time s is wall s (1 + I) / I.
  const double already_wall = c.interference > 0 ? (a.interference_s + b.interference_s) * (1.0 + c.interference) / c.interference : 0.0;
  const double free_fraction = compute > 0 ? std::clamp(1.0 - already_wall / compute, 0.0, 1.0) : 0.0;
  const double slow = std::min(behind_compute, compute * (1.0 + c.interference)) * c.slow_per_hidden_s() * free_fraction;
  // The slowed compute runs under the DP traffic: where the DP stream, not the compute, bounds the
  // pass, it hides there (the exposure is taken again with the windows stretched by the slow-down),
  // as in eval_steps and simulate's engine. It had been added on top: with interference 0.2,
  // Llama 3 8B at cp 8 with ZeRO-3 read 7.8% slower than simulate (review of 2026-12-05).
  if (slow > 0 && (exposed > 0 || nic_stretch_s > 0)) {
    double first[kGroupKinds];
    std::copy(std::begin(nic_stretch), std::end(nic_stretch), first);
    const double first_s = nic_stretch_s, again = exposed_with(slow);
    if (again + nic_stretch_s < exposed + first_s) {
      exposed = again;
    } else {  // keep the first reading
      std::copy(std::begin(first), std::end(first), nic_stretch);
      nic_stretch_s = first_s;
    }
  }
  PassTime& wgt = b;
  PassTime& bwd = a;
  // The exposure is shared by the two passes in proportion to the traffic each issues: the
  // backward's ZeRO-3 gathers (for the recompute and the input gradient) must land before the
  // input-gradient pass runs, the reduce-scatters trail the weight pass. All of it had been
  // charged to the weight pass, which split schedules (ZB-H1, DualPipeV) time apart and defer
  // into bubbles: 2.7-5% fast against simulate with ZeRO-3 and full recompute (2026-12-03 review).
  // Schedules that run the two passes together see the same sum.
  const double to_bwd = bwd.deferred_dp_s / D;
  for (int g = 0; g < kGroupKinds; ++g) {
    const double share = bwd.deferred_by_group[g] + wgt.deferred_by_group[g];
    if (!(share > 0)) continue;
    const double x = exposed * share / D, xb = bwd.deferred_by_group[g] > 0 ? x * bwd.deferred_by_group[g] / share : 0.0;
    if (xb > 0) bwd.add_exposed(static_cast<GroupKind>(g), xb);
    if (x - xb > 0) wgt.add_exposed(static_cast<GroupKind>(g), x - xb);
  }
  bwd.blocking_comm_s += exposed * to_bwd;
  wgt.blocking_comm_s += exposed * (1.0 - to_bwd);
  // The blocking collectives' stretch on the shared card, in the passes that issue them (by their
  // bandwidth parts there) and under their groups.
  if (nic_stretch_s > 0) {
    const double nic_b = bwd.nic_blocking_s + wgt.nic_blocking_s;
    const double to_bwd_nic = nic_b > 0 ? bwd.nic_blocking_s / nic_b : 0.0;
    for (int g = 0; g < kGroupKinds; ++g) {
      const double x = nic_stretch[g];
      if (!(x > 0)) continue;
      for (auto [pt, share] : {std::pair<PassTime*, double>{&bwd, to_bwd_nic}, {&wgt, 1.0 - to_bwd_nic}}) {
        if (!(share > 0)) continue;
        pt->blocking_comm_s += x * share;
        pt->add_exposed(static_cast<GroupKind>(g), x * share);
        pt->add_comm(static_cast<GroupKind>(g), x * share);
      }
    }
  }
  wgt.compute_s += slow;
  wgt.interference_s += slow;
  bwd.deferred_dp_s = wgt.deferred_dp_s = 0;
  for (int g = 0; g < 2; ++g) {
    bwd.deferred_nic_dp_s[g] = wgt.deferred_nic_dp_s[g] = 0;
    bwd.deferred_nic_wire_s[g] = wgt.deferred_nic_wire_s[g] = 0;
    bwd.deferred_nic_card_s[g] = wgt.deferred_nic_card_s[g] = 0;
    bwd.deferred_nic_up_s[g] = wgt.deferred_nic_up_s[g] = 0;
  }
  bwd.deferred_count = wgt.deferred_count = 0;
}
void settle_dp(const Ctx& c, PassTime& fwd, const std::vector<DpUnit>* units = nullptr, const NicEvent* events = nullptr) {
  PassTime none;
  settle_dp(c, none, fwd, units, events);
}

// A chunk's backward: schedules that run the weight pass apart (ZB-H1, DualPipeV) issue its
// reduce-scatters there, behind the weight compute only, and the backward's gathers behind the
// input-gradient pass only: each is settled on its own window, over the same per-layer units
// (before 2026-12-04 both hid behind the two passes' compute: ZeRO-2 under ZB-H1 read 0.603 s
// against simulate's 0.642 s, under DualPipeV 0.580 s against 0.644 s). Others run them together.
// A chunk's DP units, pass by pass, from its blocks' unit times (forward order in; the backward
// passes' lists reversed by finish()).
struct ChunkDpUnits {
  std::vector<DpUnit> f, b, w;
  // The units' timed collectives on the card (NicEvent, DpUnit::nic_first).
  std::vector<NicEvent> events;
  // Appends the events of `passes` (run one after another in the unit) to unit u.
  void add_events(DpUnit& u, std::initializer_list<const PassTime*> passes) {
    u.nic_first = static_cast<int>(events.size());
    double at = 0;
    for (const PassTime* x : passes) {
      for (int k = 0; k < x->nic_events; ++k)
        events.push_back({at + x->nic_event_at_s[k], x->nic_event_wire_s[k], static_cast<GroupKind>(x->nic_event_group[k]),
                          x->nic_event_slack_s[k], x->nic_event_card[k], x->nic_event_up[k]});
      at += x->compute_s + x->blocking_comm_s;
    }
    u.nic_count = static_cast<int>(events.size()) - u.nic_first;
  }
  // The DP and the EDP stream's deferred time in `passes` (t) and their card time (card): the two
  // streams run side by side, each through its own latency steps and traffic inside the domain,
  // sharing only the card, so together they last max(t_DP, t_EDP, card_DP + card_EDP) where one
  // queue would take t_DP + t_EDP (review of 2026-12-06: ZeRO-3 plans bound by that traffic read
  // up to 9% slower than simulate, which runs the groups on streams of their own).
  // card: the two streams' bandwidth parts side by side on the card (streams_card_s), their sum
  // where the card bounds both; before 2026-12-07 (review) their sum always, so that a DP ring
  // bound by NVLink (H800: 160 GB/s against eight cards of 47 GB/s) queued behind the expert
  // traffic: Qwen3-30B-A3B at ep 8 on 32 H800 with ZeRO-3 at 1024 tokens read 1.080 s against
  // simulate's 1.019 s, at ep 16 0.626 s against 0.578 s.
  struct Streams {
    double t[2] = {0.0, 0.0}, card = 0;
    Streams(std::initializer_list<std::initializer_list<const PassTime*>> lists) {
      double wire[2] = {0.0, 0.0}, on_card[2] = {0.0, 0.0}, on_up[2] = {0.0, 0.0};
      for (const auto& passes : lists)
        for (const PassTime* x : passes) {
          t[0] += x->deferred_by_group[static_cast<int>(GroupKind::DP)];
          t[1] += x->deferred_by_group[static_cast<int>(GroupKind::EDP)];
          for (int g = 0; g < 2; ++g) {
            wire[g] += x->deferred_nic_wire_s[g];
            on_card[g] += x->deferred_nic_card_s[g];
            on_up[g] += x->deferred_nic_up_s[g];
          }
        }
      card = streams_card_s(wire, StreamShares(wire, on_card, on_up));
    }
    double together_s() const { return std::max({t[0], t[1], card}); }
    // The share of the serial time (the streams one after the other) they take side by side.
    double scale() const { return t[0] + t[1] > 0 ? std::min(1.0, together_s() / (t[0] + t[1])) : 1.0; }
  };
  static void add_traffic(DpUnit& u, std::initializer_list<const PassTime*> gathers, std::initializer_list<const PassTime*> reduces) {
    u.gather_s *= Streams({gathers}).scale();
    u.reduce_s *= Streams({reduces}).scale();
    for (const auto& passes : {gathers, reduces})
      for (const PassTime* x : passes)
        for (int g = 0; g < 2; ++g) {
          u.nic_wire_s[g] += x->deferred_nic_wire_s[g];
          u.nic_card_s[g] += x->deferred_nic_card_s[g];
          u.nic_up_s[g] += x->deferred_nic_up_s[g];
        }
    // What the two streams hold beyond the card's time (latency steps, traffic inside the domain).
    const Streams all({gathers, reduces});
    u.off_card_s = std::max(0.0, all.together_s() - all.card);
  }
  void add(const PassTime& fw, const PassTime& rc, const PassTime& bi, const PassTime& bw, int count, bool split_weight) {
    auto window = [](const PassTime& x) { return x.compute_s + x.blocking_comm_s; };
    // Blocking DP traffic other than a lead is placed after the unit's compute (its tail).
    auto tail = [](double blocking_dp, double lead) { return std::max(0.0, blocking_dp - lead); };
    f.push_back({fw.deferred_dp_s, window(fw), 0.0, count, fw.lead_blocking_dp_s, tail(fw.blocking_dp_s, fw.lead_blocking_dp_s)});
    add_events(f.back(), {&fw});
    add_traffic(f.back(), {&fw}, {});
    // The backward's blocking DP traffic before its input-gradient compute (ZeRO-3's backward
    // gather with param_gather off) leads the unit when no recompute runs before it (no compute
    // op in that pass), else it follows the recompute (a selective recompute of the attention core
    // needs no weights, and the gather stays after it).
    const bool rc_computes = rc.class_seen != 0;
    const double lead_b = rc_computes ? rc.lead_blocking_dp_s : rc.lead_blocking_dp_s + bi.lead_blocking_dp_s;
    const double mid_b = rc_computes ? bi.lead_blocking_dp_s : 0.0, mid_at = rc_computes ? window(rc) : 0.0;
    if (split_weight) {
      b.push_back({rc.deferred_dp_s + bi.deferred_dp_s, window(rc) + window(bi), 0.0, count, lead_b,
                   tail(rc.blocking_dp_s + bi.blocking_dp_s, lead_b + mid_b), mid_b, mid_at});
      add_events(b.back(), {&rc, &bi});
      add_traffic(b.back(), {&rc, &bi}, {});
      w.push_back({0.0, window(bw), bw.deferred_dp_s, count, bw.lead_blocking_dp_s, tail(bw.blocking_dp_s, bw.lead_blocking_dp_s)});
      add_events(w.back(), {&bw});
      add_traffic(w.back(), {}, {&bw});
    } else {
      b.push_back({rc.deferred_dp_s + bi.deferred_dp_s, window(rc) + window(bi) + window(bw), bw.deferred_dp_s, count, lead_b,
                   tail(rc.blocking_dp_s + bi.blocking_dp_s + bw.blocking_dp_s, lead_b + mid_b), mid_b, mid_at});
      add_events(b.back(), {&rc, &bi, &bw});
      add_traffic(b.back(), {&rc, &bi}, {&bw});
    }
  }
  void finish() {
    std::reverse(b.begin(), b.end());
    std::reverse(w.begin(), w.end());
  }
  void clear() {
    f.clear();
    b.clear();
    w.clear();
    events.clear();
  }
};

void settle_backward_dp(const Ctx& c, PassTime& bwd, PassTime& wgt, bool split_weight, const ChunkDpUnits* units = nullptr) {
  const NicEvent* events = units ? units->events.data() : nullptr;
  if (!split_weight) {
    settle_dp(c, bwd, wgt, units ? &units->b : nullptr, events);
    return;
  }
  bwd.deferred_count = wgt.deferred_count;
  settle_dp(c, bwd, units ? &units->b : nullptr, events);
  settle_dp(c, wgt, units ? &units->w : nullptr, events);
}

// One repetition of a block as a pass meets its parameters, op by op as simulate releases the
// gradients and awaits the gathered parameters (sim/program.cpp): a weight-gradient GEMM releases
// its weights when it ends (in the input-gradient pass or the weight pass), the block's rest goes
// at the end of its weight pass (a split backward: its weight pass alone releases); a forward
// awaits the block's parameters outside its GEMMs (norms, routers) before it starts and each
// GEMM's weights before that GEMM. Point i: at_frac[i], a fraction of the pass's time; upto_frac[i],
// the fraction of the block's parameters released (backward) or needed (forward) by then, both
// non-decreasing, the last upto_frac 1. Built once per block template with its times (run()'s
// block_times, 2026-12-07 review); more points than kMaxPoints: the last one carries the rest,
// released at the later time or needed at the earlier one.
struct ParamProfile {
  static constexpr int kMaxPoints = 24;
  ParamProfile() : points(0) {}  // the points past `points` are never read: not zeroed (plan search)
  int points;
  double at_frac[kMaxPoints], upto_frac[kMaxPoints];
  void add(double at, double upto, bool release) {
    at = std::clamp(at, 0.0, 1.0);
    if (points > 0) {
      const int l = points - 1;
      at = std::max(at, at_frac[l]);
      if (at <= at_frac[l] || points == kMaxPoints) {
        if (release) at_frac[l] = at;
        upto_frac[l] = std::max(upto_frac[l], upto);
        return;
      }
    }
    at_frac[points] = at;
    upto_frac[points++] = upto;
  }
};

// Unit times of one block's passes, cached per template (Block::template_id) within a run, and
// how its gradient pass releases its gradients and its forward needs its parameters.
struct BlockTimes {
  PassTime forward, recompute, backward_input, backward_weight;
  ParamProfile release, need;
};

// A block's ParamProfiles from its passes' weight GEMMs (eval_steps' WeightOps: forward,
// input-gradient and weight passes): the gradient pass is the weight pass under a split backward,
// else the recompute, input-gradient and weight passes in that order. An op's place in its pass
// is its place in the pass's compute and blocking communication, scaled to the pass's time.
void param_profiles(const Block& b, const WeightOps& fw_ops, const WeightOps& bi_ops, const WeightOps& bw_ops, bool split_weight,
                    BlockTimes& bt) {
  bt.release.points = 0;
  bt.need.points = 0;
  const double params = b.params;
  if (params > 0) {
    const double grad_s = split_weight ? bt.backward_weight.total() : bt.recompute.total() + bt.backward_input.total() + bt.backward_weight.total();
    double released = 0, offset = split_weight ? 0.0 : bt.recompute.total();
    auto release_ops = [&](const WeightOps& ops, const PassTime& pt) {
      const double scale = ops.window_s > 0 ? pt.total() / ops.window_s : 0.0;
      for (int i = 0; i < ops.n; ++i) {
        const double share = std::min(ops.elements[i], params - released);
        if (!(share > 0)) continue;
        released += share;
        bt.release.add(grad_s > 0 ? (offset + ops.end_s[i] * scale) / grad_s : 1.0, released / params, true);
      }
      offset += pt.total();
    };
    if (!split_weight) release_ops(bi_ops, bt.backward_input);
    release_ops(bw_ops, bt.backward_weight);
    double gemm = 0;
    for (int i = 0; i < fw_ops.n; ++i) gemm += fw_ops.elements[i];
    double waited = std::max(0.0, params - gemm);
    if (waited > 0) bt.need.add(0.0, waited / params, false);
    const double fw_s = bt.forward.total(), scale = fw_ops.window_s > 0 && fw_s > 0 ? fw_s / fw_ops.window_s : 0.0;
    for (int i = 0; i < fw_ops.n; ++i) {
      const double share = std::min(fw_ops.elements[i], params - waited);
      if (!(share > 0)) continue;
      waited += share;
      bt.need.add(fw_s > 0 ? fw_ops.start_s[i] * scale / fw_s : 0.0, waited / params, false);
    }
  }
  bt.release.add(1.0, 1.0, true);                                   // the rest at the weight pass's end
  if (bt.need.points == 0) bt.need.add(0.0, 1.0, false);             // no parameters: none awaited
  else if (bt.need.upto_frac[bt.need.points - 1] < 1.0 - 1e-12) bt.need.add(1.0, 1.0, false);
  // The last point holds the whole block, exactly (a sum of shares may round below it): the next
  // repetition starts where it ends.
  for (ParamProfile* pr : {&bt.release, &bt.need}) {
    for (int i = 0; i < pr->points; ++i) pr->upto_frac[i] = std::min(pr->upto_frac[i], 1.0);
    pr->upto_frac[pr->points - 1] = 1.0;
  }
}

// A block's backward is one unit of settle_dp however many of its passes carry DP traffic (a
// re-gather for the recompute, the backward's gathers, the reduce-scatters): counted once, on
// the weight pass.
void units_of_backward(PassTime& rc, PassTime& bi, PassTime& bw) {
  bw.deferred_count = (rc.deferred_dp_s > 0 || bi.deferred_dp_s > 0 || bw.deferred_dp_s > 0) ? 1.0 : 0.0;
  rc.deferred_count = bi.deferred_count = 0;
}

double chunk_params(const Chunk& ch) {
  double x = 0;
  for (const auto& b : ch.blocks) x += b.params * b.count;
  return x;
}

// One block's repetitions as a pass meets them: their parameters and the compute of one pass over
// them (forward; backward: what ends with their weight gradients), and how one repetition releases
// its gradients and needs its parameters (its template's ParamProfiles, which outlive the
// ChunkedOverlap that reads them).
struct BlockShare {
  double params = 0, forward_s = 0, backward_s = 0;
  int count = 1;  // repetitions
  const ParamProfile* release = nullptr;
  const ParamProfile* need = nullptr;
};

// The once-per-step DP traffic of one pipeline rank that overlaps compute, chunk by chunk. Each
// chunk's share (by its parameters) goes out in n_c = round(nb * share) buckets, one stream, in
// order, beside the chunk passes of the same direction that the rank runs after (gradients) or
// before (parameters) chunk c's own pass: under interleaved 1F1B the cooldown
// drains the chunks v-1 .. 0, p micro-batches each, so chunk c's last backward is followed by c*p
// chunk-backwards (its gradients are reduced while they run), and the warm-up runs chunk c's
// first forward after c*p chunk-forwards (its parameters are gathered meanwhile). Megatron-Core
// launches a chunk's reduction when that chunk's last backward ends
// (forward_backward_pipelining_with_interleaving).
//
// Within a chunk's pass the parameters are met block by block (BlockShare, in pass order), each
// block taking its share of the pass's time by its compute, and within a block repetition by
// repetition, op by op (its ParamProfiles), as simulate's op-by-op release and wait do: a
// weight-gradient GEMM releases its weights when it ends, a block's rest (norms) at the end of its
// weight pass; a forward needs a GEMM's weights when that GEMM starts, its other parameters when
// the block starts. So the input embedding (no GEMM), met last by the backward and first by the
// forward, holds its buckets to the end of the backward and the start of the forward (8 of Llama 3
// 8B's 126 buckets over dp 64). Bucket k of n goes out when k/n of the chunk's gradients are
// released (simulate's issue rule) and must have landed when the forward first needs more than
// (k-1)/n of the parameters (simulate's wait rule); the buckets that go out (are needed) at one
// op's end (start) are timed together, the latest finish (landing) being the first (last) of them.
// Before 2026-12-04 the release and need were smooth over the chunk: estimate read 0.2316 s where
// simulate reads 0.2453 s. Until 2026-12-07 (review) they were smooth over each layer, spread by
// parameters over its backward and its forward: the IR runs a layer's weight-gradient GEMMs after
// its input gradients (and an MoE layer's expert GEMMs, most of its weights, last), so a layer
// releases most of its gradients late in its backward; a 4-layer MoE (hidden 1024, 8 experts top-2
// of width 2048, ep = dp = 8) issued its second bucket at 62% of layer 0's backward where simulate
// issues it at 97%, and read 0.008361 s against simulate's 0.008571 s (-2.5%, all in the exposed
// gradient all-reduce).
constexpr int kMaxLeadChunks = 64;  // chunks per rank with order-timed leads (DualPipeV has 2)
struct ChunkedOverlap {
  const Stage& st;
  const BlockShare* blocks;  // the rank's blocks, chunk by chunk in forward order
  int v, p, nb;
  double total_params;
  ChunkedOverlap(const Stage& s, const BlockShare* b, int v_, int p_, int nb_) : st(s), blocks(b), v(v_), p(p_), nb(nb_), total_params(0) {
    for (const auto& ch : st.chunks) total_params += chunk_params(ch);
  }
  double fraction(int c) const {
    return total_params > 0 ? chunk_params(st.chunks[static_cast<size_t>(c)]) / total_params : 1.0 / v;
  }
  // The largest of time_coef * at + bucket_coef * k over chunk c's n buckets (one stream's), k
  // going out (backward: released) or first needed (forward) at `at`, a fraction of the chunk's
  // pass: bucket k goes out at the first profile point (an op's end) by which k/n of the chunk's
  // parameters are released, and is needed at the first (an op's start) by which more than
  // (k-1)/n of them are, with simulate's rounding (issue_buckets, wait_for). At a point the
  // buckets it releases (needs) are timed together: the smallest (largest) k counts where
  // bucket_coef < 0 (> 0). Values not above `above` are not looked for (they cannot raise the
  // caller's maximum): a block, and a repetition within it, is visited only where the bound of its
  // buckets (its latest or earliest time, its smallest or largest k) is above the best so far,
  // repetitions in the order of their bounds (linear in the repetition), so that plan search pays
  // for about one repetition's ops per chunk, not for every bucket (2026-12-07 review). `first`
  // indexes the chunk's blocks; returns `above` where nothing is above it.
  double best_bucket(int c, size_t first, bool backward, int n, double time_coef, double bucket_coef, double above) const {
    const size_t nblk = st.chunks[static_cast<size_t>(c)].blocks.size();
    double ptot = 0, ttot = 0;
    for (size_t i = 0; i < nblk; ++i) {
      ptot += blocks[first + i].params;
      ttot += backward ? blocks[first + i].backward_s : blocks[first + i].forward_s;
    }
    // Buckets gone out (needed) once y of the chunk's parameters are released (needed), y >= 0:
    // floor(n y + 1e-9) and ceil(n y - 1e-9), by truncation (no libm call on the hot path).
    const double dn = n;
    auto count_at = [&](double y) {
      const double z = backward ? dn * y + 1e-9 : dn * y - 1e-9;
      const int t = static_cast<int>(z);
      return backward || !(static_cast<double>(t) < z) ? t : t + 1;
    };
    const bool late = time_coef > 0, small = bucket_coef < 0;  // which end of a point's range counts
    double best = above, f0 = 0, t0 = 0;
    for (size_t j = 0; j < nblk; ++j) {
      const BlockShare& b = blocks[first + (backward ? nblk - 1 - j : j)];
      const bool last = j + 1 == nblk;
      const double f1 = last ? 1.0 : f0 + (ptot > 0 ? b.params / ptot : 1.0 / static_cast<double>(nblk));
      const double t1 = last ? 1.0 : t0 + (ttot > 0 ? (backward ? b.backward_s : b.forward_s) / ttot : 1.0 / static_cast<double>(nblk));
      const int k_lo = count_at(f0) + 1, k_hi = last ? n : std::min(n, count_at(f1));
      if (k_lo <= k_hi && time_coef * (late ? t1 : t0) + bucket_coef * (small ? k_lo : k_hi) > best) {
        const ParamProfile* pr = backward ? b.release : b.need;
        const int reps = std::max(1, b.count), npts = pr && pr->points > 0 ? pr->points : 0;
        const double d = (f1 - f0) / reps, tau = (t1 - t0) / reps;
        // Repetition r's bound, linear in r: its latest (earliest) time, its smallest k (more than
        // n (f0 + r d) - 1e-6) or largest (below n (f0 + (r + 1) d) + 1).
        auto bound = [&](int r) {
          return time_coef * (t0 + (r + (late ? 1.0 : 0.0)) * tau) + bucket_coef * (small ? dn * (f0 + r * d) - 1e-6 : dn * (f0 + (r + 1) * d) + 1.0);
        };
        const bool down = bound(reps - 1) >= bound(0);
        for (int idx = 0; idx < reps; ++idx) {
          const int r = down ? reps - 1 - idx : idx;
          if (!(bound(r) > best)) break;  // the rest are bounded lower still
          int k_done = count_at(f0 + r * d);
          for (int i = 0; i < std::max(1, npts); ++i) {
            const bool end = r + 1 == reps && i + 1 >= npts;
            const double pos = end ? f1 : f0 + (r + (npts > 0 ? pr->upto_frac[i] : 1.0)) * d;
            const int k1 = end && last ? n : std::min(n, count_at(pos));
            if (k1 > k_done) {
              const double a = npts > 0 ? pr->at_frac[i] : (backward ? 1.0 : 0.0);
              best = std::max(best, time_coef * (t0 + (r + a) * tau) + bucket_coef * (small ? k_done + 1 : k1));
              k_done = k1;
            }
          }
        }
      }
      f0 = f1;
      t0 = t1;
    }
    return best;
  }
  // Interleaving: the p chunk-c passes that follow (precede) a later (earlier) chunk's last
  // backward (first forward) on the rank are paced by the pipeline, each as long as the slowest
  // rank's chunk-c pass (the rank waits for the others' between its own); null: the rank's own.
  // Until 2026-12-07 (review) the rank's own: Llama 3 8B at pp 4, vpp 2 on stage_layers [1, 5, 5,
  // 5, 5, 5, 5, 1] with ZeRO-0 hid rank 0's 5-layer chunk's reduction behind four 1-layer passes,
  // where the cooldown waits four 5-layer passes for the other ranks: estimate 1.6236 s with rank 0
  // critical against simulate's 1.5592 s with rank 1.
  const double* cooldown_chunk_s = nullptr;
  const double* warmup_chunk_s = nullptr;
  // Where the schedule's order is timed (DualPipeV): lead[c], the time from chunk c's last
  // gradient pass to the rank's end, in place of interleaving's c p chunk passes (p = 0 had given
  // every chunk none: DualPipeV with ZeRO-0/1 read 3-5% slow against simulate, 2026-12-04).
  const double* lead = nullptr;
  // Gradient reduction of sync_s in all; chunk_s[c], chunk c's own gradient pass (per micro-batch),
  // over which its share of the buckets is released. Times are from the rank's end. Before
  // 2026-12-06 every chunk took the rank's mean chunk pass (review): Llama 3 70B interleaved with
  // chunks of 35 and 5 layers on rank 0 released the 35-layer chunk's buckets over a 20-layer
  // backward, and its reduction exposed 116 ms where simulate's was 29 ms (the step 5.8% slow).
  double grad_exposed_s(double sync_s, const double* chunk_s) const {
    double prefix = 0, finish = 0, after = 0;
    size_t first = 0;
    for (int c = 0; c < v; ++c) {
      const double frac = fraction(c), pass_s = chunk_s[c];
      prefix += frac;
      const int n = std::max(1, static_cast<int>(std::round(nb * frac)));
      // chunk c's last backward: the p backwards of each chunk c-1 .. 0 follow it (interleaving)
      const double start = -(lead ? lead[c] : after) - pass_s;
      after += p * (cooldown_chunk_s ? cooldown_chunk_s[c] : pass_s);
      const double share = sync_s * frac, rest = sync_s * prefix;        // chunks c, c-1, .., 0 follow
      // Bucket k, out at `at`, finishes at start + at pass_s + share (n - k + 1) / n + rest - share.
      const double base = start + share * (n + 1) / n + rest - share;
      finish = base + best_bucket(c, first, true, n, pass_s, -share / n, finish - base);
      first += st.chunks[static_cast<size_t>(c)].blocks.size();
    }
    return finish;
  }
  // Where the schedule's order is timed (DualPipeV): need[c], when chunk c's first forward starts
  // on the rank from the step's start, in place of interleaving's c p chunk passes.
  const double* need_at = nullptr;
  // Without need_at: when chunk 0's first forward starts on the rank from the step's start (the
  // pipeline's fill before it).
  double need_offset = 0;
  // Parameter gathering of gather_s in all, issued at the start; chunk_s[c], chunk c's own forward
  // pass, over which its share of the parameters is needed (the mean chunk before 2026-12-06).
  double gather_exposed_s(double gather_s, const double* chunk_s) const {
    double prefix = 0, late = 0, before = 0;
    size_t first = 0;
    for (int c = 0; c < v; ++c) {
      const double frac = fraction(c), pass_s = chunk_s[c];
      const int n = std::max(1, static_cast<int>(std::round(nb * frac)));
      // chunk c's first forward starts: after the p forwards of each chunk 0 .. c-1 (interleaving)
      const double need = need_at ? need_at[c] : need_offset + before;
      before += p * (warmup_chunk_s ? warmup_chunk_s[c] : pass_s);
      // Bucket k, needed at `at`, is late by gather_s (prefix + frac k / n) - need - at pass_s.
      const double base = gather_s * prefix - need;
      late = base + best_bucket(c, first, false, n, -pass_s, gather_s * frac / n, late - base);
      prefix += frac;
      first += st.chunks[static_cast<size_t>(c)].blocks.size();
    }
    return std::max(0.0, late);
  }
};


// The share of the network card a collective takes over its bandwidth part, as simulate's links
// draw on it (sim::describe_collective, the same terms: each link class's time alone, relative to
// the slowest): 1 where the card is its slowest link, less where the scale-up links (a ring with
// several members a domain) or the leaf uplinks bound it; 0 inside one domain. scale_up: where
// given, its share of the scale-up port likewise (describe_collective's nvlink_fraction, the
// group's port share included), 0 for a group of one member a domain.
double card_fraction(const Collective& c, const Workload& w, const Fabric& f, double* scale_up) {
  if (scale_up) *scale_up = 0.0;
  const Group& g = w.group_of(c);
  if (g.size <= 1 || c.bytes <= 0 || g.domains <= 1) return 0.0;
  const double n = g.size, k = g.per_domain;
  double nv_t = 0, nic_t = 0, up_t = 0;
  const double up = f.up_busbw(c.kind == CollKind::SendRecv ? 2 : g.per_domain), out = f.out_busbw_bytes_per_s;
  switch (c.kind) {
    case CollKind::AllToAll:
      if (c.traffic.uniform()) {
        if (k > 1) nv_t = c.bytes * (k - 1) / n / up;
        nic_t = c.bytes * (n - k) / n / out;
        up_t = c.bytes * f.all_to_all_uplink_weight(g) / out;
      } else {
        const double scale = c.traffic.inter / ((n - k) / n);
        if (k > 1) nv_t = c.bytes * c.traffic.intra / up;
        nic_t = c.bytes * c.traffic.inter / out;
        up_t = c.bytes * f.all_to_all_uplink_weight(g) * scale / out;
      }
      break;
    case CollKind::SendRecv:
      if (!c.traffic.uniform() && c.traffic.inter <= 0) return 0.0;
      nic_t = c.bytes / out;
      up_t = nic_t * f.send_uplink_ratio(g, c.traffic);
      break;
    default: {
      const double v = c.bytes * bus_factor(c.kind, g.size);
      if (k > 1) nv_t = v / up;
      nic_t = v / f.domain_out_busbw(g.per_domain);
      up_t = nic_t * f.ring_uplink_ratio(g);
    }
  }
  const double mx = std::max({nv_t, nic_t, up_t});
  if (!(mx > 0) || !std::isfinite(mx)) return 0.0;
  if (scale_up) *scale_up = nv_t / mx * f.up_share(c.kind == CollKind::SendRecv ? 2 : g.per_domain);
  return nic_t / mx;
}

// The once-per-step DP traffic on the network card beside the blocking collectives that leave
// the domain (2026-12-06, review). Gradient buckets (DDP, ZeRO-1, ZeRO-2 with step sync) go out
// over a rank's last backward as its layers release their gradients, and the overlapped parameter
// gathers (distributed optimizer) at the step's start, beside the first forward. simulate shares
// the card max-min fairly among them and an expert all-to-all (or a TP collective across nodes),
// which ends up to sum_g min(b_g, c) late (meet_card); ChunkedOverlap times the buckets
// against the passes, not the collectives they slow. Qwen3-30B-A3B at tp 2, cp 2, ep 16 on 128
// A100 read 1.671 s with ZeRO-1 and 1.742 s with DDP against simulate's 1.781 s and 1.844 s
// (-6.1%, -5.5%): simulate's first forward's all-to-alls took 37 ms more, the last backward's 63.
//
// The walk: the DP and EDP streams' backlogs b[2] (their bandwidth parts still to run) drain
// between the blocking collectives, and during one of bandwidth part c each stream moves up to
// min(b_g, c) of its backlog while the collective takes longer (meet_card: with the card bounding
// the collective, d_g min(b_g, c) for one stream), d_g the share of the card the stream's
// collectives take (card_fraction: 1 where the card is their slowest link, as for the EDP pairs; a
// dense DP ring with eight members a node on H800 is bound by NVLink and draws about 0.43 of it),
// and the collective's own share likewise (a TP ring across H800 nodes: about 0.43; taken as 1
// before the review of 2026-12-07). The streams' latency steps are left on the card (more
// collectives would meet a backlog); a pass's events are ChunkDpUnits' (at most PassTime::kMaxNicEvents a pass, the last
// carrying the rest). Before 2026-12-06 every stream was taken as bound by the card (review: the
// buckets of a DeepSeek-V3 stage of four MoE layers at dp 128 on H800 stretched its last
// backward's all-to-alls by 27 ms where simulate's links stretch them by 8 ms).
//
// Two streams in flight run at their idle speed where the card holds both (d_DP + d_EDP <= 1),
// else at 1 / (d_DP + d_EDP) of it (max-min fair), likewise on the scale-up port
// (StreamShares::together; the card's alone before the review of 2026-12-07); one alone at its
// idle speed.
void drain_card(double b[2], const StreamShares& sh, double dt) {
  if (!(dt > 0)) return;
  if (b[0] > 0 && b[1] > 0) {
    const double rate = 1.0 / sh.together();
    const double first = std::min(b[0], b[1]) / rate;  // until one of them is done
    if (dt <= first) {
      b[0] -= rate * dt;
      b[1] -= rate * dt;
      return;
    }
    b[0] = std::max(0.0, b[0] - rate * first);
    b[1] = std::max(0.0, b[1] - rate * first);
    dt -= first;
  }
  for (int g = 0; g < 2; ++g) b[g] = std::max(0.0, b[g] - dt);
}
// Traffic joining the streams during a walk: at at_s from the pass's start, wire_s[g] more
// bandwidth parts on stream g (DP, EDP).
struct CardRelease {
  double at_s = 0;
  double wire_s[2] = {0.0, 0.0};
};
// One pass's units in execution order beside stream backlogs b (updated) of link shares sh;
// releases (in time order) join the backlog as the pass reaches them. Returns the stretch, and
// adds it per group of the blocking collectives to by_group; the DP streams' own delay (meet_card;
// max_g d_g min(c, b_g) a collective before the review of 2026-12-07), to dp_delay_s.
double walk_card(const std::vector<DpUnit>& units, const NicEvent* events, double b[2], const StreamShares& sh,
                 const std::vector<CardRelease>* releases, double* by_group, double* dp_delay_s = nullptr) {
  double t = 0, unit_start = 0, stretch = 0;
  size_t next = 0;
  auto release_until = [&](double at) {
    for (; releases && next < releases->size() && (*releases)[next].at_s <= at; ++next) {
      const CardRelease& x = (*releases)[next];
      drain_card(b, sh, x.at_s - t);
      t = std::max(t, x.at_s);
      for (int g = 0; g < 2; ++g) b[g] += x.wire_s[g];
    }
  };
  for (size_t u = 0; u < units.size(); ++u) {
    const DpUnit& x = units[u];
    for (int rep = 0; rep < x.count; ++rep) {
      for (int k = 0; k < x.nic_count; ++k) {
        const NicEvent& ev = events[x.nic_first + k];
        const double at = unit_start + ev.at_s;
        release_until(at);
        drain_card(b, sh, at - t);
        t = std::max(t, at);
        const CardMeet meet = meet_card(ev.wire_s, ev.card, ev.up, b, sh);
        const double s = nic_pass_delay_s(ev, meet.stretch);
        for (int g = 0; g < 2; ++g) b[g] = std::max(0.0, b[g] - meet.moved[g]);
        // The streams moved that much while the collective ran: the walk's clock (the pass's
        // unstretched time) goes on from its end (it had gone on from its start, and the streams
        // drained at full rate over every collective's time a second time: review of 2026-12-06).
        t = std::max(t, at + std::max(0.0, ev.wire_s));
        if (dp_delay_s) *dp_delay_s += meet.delay;  // the streams' own delay
        stretch += s;
        by_group[static_cast<int>(ev.group)] += s;
      }
      unit_start += x.window_s;
    }
  }
  return stretch;
}
// A rank's once-per-step DP traffic of one list (gradient reductions or parameter gathers) as
// issued: the overlapped collectives of the DP and the EDP group run side by side, each on its
// group's stream (Megatron-Core's expert-parallel bucket groups reduce on their own communicator,
// as simulate runs them), sharing only the network card: together max(t_DP, t_EDP, card_DP +
// card_EDP). The others (after the backward, or with the overlap off) one after another, in
// `serial_s`. Before 2026-12-06 the overlapped ones were summed too (review: ZeRO-1 with EP across
// nodes at one micro-batch exposed 16 ms of dense DP traffic where simulate exposes 2 ms).
// By stream (StepStreams): each stream's time and its buffer's bucket count (ir::buckets_of), for
// ChunkedOverlap, which times each stream's buckets on their own (streams_exposed_s).
struct StepStreams {
  double t_s[2] = {0.0, 0.0};  // the DP and the EDP stream's overlapped collectives, as issued
  int buckets[2] = {0, 0};     // their buffers' bucket counts (ir::buckets_of); 0: no such stream
  // The time both streams' bandwidth parts on the card take side by side (streams_card_s, from
  // their shares of the card and the scale-up port, card_fraction); until the review of 2026-12-07
  // the sum of their card times, which a stream bound by NVLink and larger than the other
  // outlasts (a dense DP ring with eight members a node on H800, beside the expert one).
  double card_s = 0;
  double serial_s = 0;         // the rest, one after another
  double overlapped_s() const { return std::max({t_s[0], t_s[1], card_s}); }
};
StepStreams step_streams(const Ctx& c, const StepWork& sw, const Stage& st, const std::vector<Collective>& list, bool grad) {
  const ParallelPlan& plan = c.w.scenario().plan;
  const bool overlap = grad ? plan.overlap_grad_reduce : plan.overlap_param_gather;
  StepStreams x;
  double wire[2] = {0.0, 0.0}, on_card[2] = {0.0, 0.0}, on_up[2] = {0.0, 0.0};
  for (const auto& col : list) {
    const Collective issued = as_issued(col, sw, st, plan, grad);
    const double t = c.est.collective_time_s(issued, c.w, c.fabric);
    if (!overlap || !col.overlappable || (col.group != GroupKind::DP && col.group != GroupKind::EDP)) {
      x.serial_s += t;
      continue;
    }
    const int g = col.group == GroupKind::EDP ? 1 : 0;
    x.t_s[g] += t;
    x.buckets[g] = std::max(x.buckets[g], buckets_of(sw, col));
    // Its bandwidth part and the card and port time it takes (card_fraction).
    if (c.w.group_of(col).domains > 1) {
      const double wire_s = c.est.collective_wire_s(issued, c.w, c.fabric);
      double up = 0;
      on_card[g] += wire_s * card_fraction(issued, c.w, c.fabric, &up);
      on_up[g] += wire_s * up;
      wire[g] += wire_s;
    }
  }
  if (wire[0] + wire[1] > 0) x.card_s = streams_card_s(wire, StreamShares(wire, on_card, on_up));
  return x;
}

// The exposed time of a rank's overlapped step traffic (StepStreams) by ChunkedOverlap's
// `exposed(overlap, total_s)` (its grad_exposed_s or gather_exposed_s): each stream's buckets
// timed on their own, in their own count (ir::buckets_of) and at their own time, as simulate
// issues and awaits them on the DP and the EDP stream; the slower decides. The card both share
// bounds them as one queue of their summed count over the card time (what the two had been timed
// as before), where it outlasts both streams. The serial rest joins each queue. Until 2026-12-07
// (review) the two were timed as one queue of the summed count over max(t_DP, t_EDP, card): a
// 4-layer MoE at ep 8 over 32 H100 with ZeRO-1 reduced its expert gradients (one 80 MB bucket,
// 1.62 ms) in a quarter of the four buckets' queue, and estimate hid three quarters of what simulate
// leaves exposed (0.008550 s against simulate's 0.009148 s with --no-contention, -6.5%).
template <class Exposed>
double streams_exposed_s(const ChunkedOverlap& proto, const StepStreams& x, Exposed&& exposed) {
  ChunkedOverlap ov = proto;
  double best = 0;
  int streams = 0, summed = 0;
  for (int g = 0; g < 2; ++g)
    if (x.buckets[g] > 0) {
      ov.nb = x.buckets[g];
      best = std::max(best, exposed(ov, x.t_s[g] + x.serial_s));
      ++streams;
      summed += x.buckets[g];
    }
  if (streams == 0) return exposed(ov, x.serial_s);  // the serial rest alone, in the stage's buckets
  if (streams > 1 && x.card_s > std::max(x.t_s[0], x.t_s[1])) {
    ov.nb = summed;
    best = std::max(best, exposed(ov, x.card_s + x.serial_s));
  }
  return best;
}

// Each pipeline rank's stretch per step (rank_s) and, of it, each group's (by_group, kGroupKinds a
// rank): the first micro-batch's forward of chunk 0 beside the gathers still in flight (issued at
// the step's start, drained meanwhile by the forwards of the ranks before it), and each chunk's last
// backward beside the buckets it releases (block by block, by parameters: dense ones on the DP
// stream, expert ones on the EDP stream). Schedules that split the weight gradient off are left
// out for their buckets (they go out over the deferred weight passes), not for their gathers.
// sync_gain_s and gather_gain_s: a rank's backward (first forward) stretch less the buckets'
// (gathers') own delay, which they gain on the pass's end (two streams beside a collective
// lengthen it by twice what each waits; before 2026-12-06 the gathers gained none, review:
// ZeRO-1 at one micro-batch of 256 tokens read 6.6% above simulate). Returns false where no rank
// has such traffic on the card. block_times(b): a block's pass times (run()'s cache).
//
// Where each stretch happens is kept (review of 2026-12-06): first_fwd_s and last_grad_s (p x v,
// rank-major), the stretch of each chunk's first forward (chunk 0's only) and of each chunk's last
// backward on its rank, for card_end_delays, which times how far each reaches a rank's end through
// the pipeline's order; fwd_by_group and bwd_by_group, a rank's own stretch of its forward and of
// its backward passes by group, for its breakdown and its op table. Every rank's stretch had been
// summed into the step and charged to the critical rank as its own: DeepSeek-V3 on 2,048 H800 at pp
// 16 (1F1B, stage 0 the heaviest) read 5.625 s against simulate's 5.435 s, the gradient buckets'
// overlap costing 1.8% where simulate saves 1.7%, and a stage of dense layers alone showed 0.219 s
// of exposed ep.
struct CardStretch {
  std::vector<double> rank_s, by_group, sync_gain_s, gather_gain_s;  // by_group: kGroupKinds a rank
  std::vector<double> first_fwd_s, last_grad_s;                      // p x v
  std::vector<double> fwd_by_group, bwd_by_group;                    // kGroupKinds a rank
  double own_by_group_s(int r, int g) const { return by_group[static_cast<size_t>(r) * kGroupKinds + static_cast<size_t>(g)]; }
};
template <class BlockTimesOf>
bool step_card_stretch(const Ctx& c, bool split_weight, BlockTimesOf&& block_times, CardStretch& out) {
  const Workload& w = c.w;
  const Scenario& s = w.scenario();
  const int p = s.plan.pp;
  out.rank_s.assign(static_cast<size_t>(p), 0.0);
  out.sync_gain_s.assign(static_cast<size_t>(p), 0.0);
  out.gather_gain_s.assign(static_cast<size_t>(p), 0.0);
  out.by_group.assign(static_cast<size_t>(p) * kGroupKinds, 0.0);
  out.fwd_by_group.assign(static_cast<size_t>(p) * kGroupKinds, 0.0);
  out.bwd_by_group.assign(static_cast<size_t>(p) * kGroupKinds, 0.0);
  const size_t v = w.stages.empty() ? 1 : w.stages[0].chunks.size();
  out.first_fwd_s.assign(static_cast<size_t>(p) * v, 0.0);
  out.last_grad_s.assign(static_cast<size_t>(p) * v, 0.0);
  // By rank and group (DP, EDP): the bandwidth parts, and the card time and the scale-up port
  // time they take (card_fraction).
  std::vector<std::array<double, 2>> gather(static_cast<size_t>(p)), sync(static_cast<size_t>(p));
  std::vector<std::array<double, 2>> gather_card(static_cast<size_t>(p)), sync_card(static_cast<size_t>(p));
  std::vector<std::array<double, 2>> gather_up(static_cast<size_t>(p)), sync_up(static_cast<size_t>(p));
  bool any = false;
  for (int r = 0; r < p; ++r) {
    const auto& sw = w.step_per_stage[static_cast<size_t>(r)];
    gather[static_cast<size_t>(r)] = sync[static_cast<size_t>(r)] = {0.0, 0.0};
    gather_card[static_cast<size_t>(r)] = sync_card[static_cast<size_t>(r)] = {0.0, 0.0};
    gather_up[static_cast<size_t>(r)] = sync_up[static_cast<size_t>(r)] = {0.0, 0.0};
    for (const auto* list : {&sw.grad_sync, &sw.param_gather}) {
      const bool grad = list == &sw.grad_sync;
      if (!(grad ? s.plan.overlap_grad_reduce : s.plan.overlap_param_gather) || (grad && split_weight)) continue;
      for (const auto& col : *list) {
        if (!col.overlappable || w.group_of(col).domains <= 1) continue;
        const int g = col.group == GroupKind::EDP ? 1 : 0;
        const Collective issued = as_issued(col, sw, w.stages[static_cast<size_t>(r)], s.plan, grad);
        const double wire = c.est.collective_wire_s(issued, w, c.fabric);
        (grad ? sync : gather)[static_cast<size_t>(r)][static_cast<size_t>(g)] += wire;
        double up = 0;
        (grad ? sync_card : gather_card)[static_cast<size_t>(r)][static_cast<size_t>(g)] += wire * card_fraction(issued, w, c.fabric, &up);
        (grad ? sync_up : gather_up)[static_cast<size_t>(r)][static_cast<size_t>(g)] += wire * up;
        any = any || wire > 0;
      }
    }
  }
  if (!any) return false;
  double wait = 0;  // before rank r's first forward: the ranks before it run theirs
  ChunkDpUnits units;
  std::vector<CardRelease> releases;
  // One repetition's (offset in its unit, weight elements) per layer template (below).
  struct KnownProfile {
    int template_id = -1;
    double params = 0, pass_start = 0;
    std::vector<std::pair<double, double>> profile;
  };
  std::vector<KnownProfile> known_profiles;
  for (int r = 0; r < p; ++r) {
    const auto& stage = w.stages[static_cast<size_t>(r)];
    const auto& sw = w.step_per_stage[static_cast<size_t>(r)];
    const auto& G = gather[static_cast<size_t>(r)];
    const auto& S = sync[static_cast<size_t>(r)];
    // Each stream's shares of the card and the scale-up port: its collectives' card (port) time
    // over their bandwidth parts.
    const StreamShares dG(G.data(), gather_card[static_cast<size_t>(r)].data(), gather_up[static_cast<size_t>(r)].data());
    const StreamShares dS(S.data(), sync_card[static_cast<size_t>(r)].data(), sync_up[static_cast<size_t>(r)].data());
    double params[2] = {0.0, 0.0};  // the rank's dense and expert parameters
    for (const auto& ch : stage.chunks)
      for (const auto& b : ch.blocks) {
        params[0] += (b.params - b.expert_params) * b.count;
        params[1] += b.expert_params * b.count;
      }
    double* groups = out.by_group.data() + static_cast<size_t>(r) * kGroupKinds;
    double* fwd_groups = out.fwd_by_group.data() + static_cast<size_t>(r) * kGroupKinds;
    double* bwd_groups = out.bwd_by_group.data() + static_cast<size_t>(r) * kGroupKinds;
    double first_forward_s = 0;
    for (size_t ci = 0; ci < stage.chunks.size(); ++ci) {
      const auto& ch = stage.chunks[ci];
      units.clear();
      for (const auto& b : ch.blocks) {
        const BlockTimes& bt = block_times(b);
        units.add(bt.forward, bt.recompute, bt.backward_input, bt.backward_weight, b.count, split_weight);
      }
      units.finish();
      if (ci == 0) {
        for (const DpUnit& x : units.f) first_forward_s += x.window_s * x.count;
        if (G[0] + G[1] > 0) {
          double backlog[2] = {G[0], G[1]}, delay = 0;
          drain_card(backlog, dG, wait);
          const double stretch = walk_card(units.f, units.events.data(), backlog, dG, nullptr, fwd_groups, &delay);
          out.rank_s[static_cast<size_t>(r)] += stretch;
          out.first_fwd_s[static_cast<size_t>(r) * v + ci] += stretch;
          out.gather_gain_s[static_cast<size_t>(r)] += std::max(0.0, stretch - delay);
        }
      }
      if (S[0] + S[1] > 0) {
        // The chunk's buckets as simulate issues them: bucket k of a collective's n (ir::chunk_buckets)
        // when k/n of the chunk's parameters have their gradients, each weight's as its gradient
        // GEMM ends, a block's rest at the end of its weight pass (before 2026-12-06 each block's
        // whole traffic joined at its end, by its dense or expert parameters: review).
        struct Bucketed {
          int g = 0, n = 1, issued = 0;
          double wire_s = 0;  // one bucket's bandwidth part
        };
        std::vector<Bucketed> bucketed_here;
        double chunk_params_total = 0;
        for (const auto& b : ch.blocks) chunk_params_total += b.params * b.count;
        const double rank_params = params[0] + params[1];
        const double chunk_share = stage.chunks.size() == 1 || !(rank_params > 0) ? 1.0 : chunk_params_total / rank_params;
        for (const auto& col : sw.grad_sync) {
          if (!col.overlappable || !bucketed(col) || w.group_of(col).domains <= 1) continue;
          Bucketed x;
          x.g = col.group == GroupKind::EDP ? 1 : 0;
          x.n = std::max(1, chunk_buckets(stage, sw, col, ci));
          x.wire_s = c.est.collective_wire_s(as_issued(col, sw, stage, s.plan, true), w, c.fabric) * chunk_share / x.n;
          bucketed_here.push_back(x);
        }
        releases.clear();
        double done = 0, at = 0;
        auto release = [&](double when, double elements) {
          done += elements;
          const double f = chunk_params_total > 0 ? done / chunk_params_total : 1.0;
          CardRelease rel;
          rel.at_s = when;
          for (auto& x : bucketed_here) {
            const int want = f >= 1.0 ? x.n : std::min(x.n, static_cast<int>(std::floor(f * x.n + 1e-9)));
            rel.wire_s[x.g] += (want - x.issued) * x.wire_s;
            x.issued = std::max(x.issued, want);
          }
          if (rel.wire_s[0] + rel.wire_s[1] > 0) releases.push_back(rel);
        };
        // units.b runs the chunk's blocks in reverse, each unit its recompute, input-gradient and
        // weight passes (ChunkDpUnits::add); an op ends at its share of its pass's window by compute.
        std::vector<std::pair<double, double>> profile;  // one repetition's (offset in its unit, weight elements)
        for (size_t i = ch.blocks.size(); i-- > 0;) {
          const auto& b = ch.blocks[i];
          const BlockTimes& bt = block_times(b);
          auto window = [](const PassTime& x) { return x.compute_s + x.blocking_comm_s; };
          // A layer template's profile is the same on every chunk of every rank (its steps and
          // times are): worked out once per template and parameter count (review of 2026-12-07:
          // recomputing each op's time twice per chunk took a tenth of the 405B plan search).
          const KnownProfile* known = nullptr;
          if (b.template_id >= 0)
            for (const auto& kp : known_profiles)
              if (kp.template_id == b.template_id && kp.params == b.params) known = &kp;
          if (known) {
            for (int rep = 0; rep < b.count; ++rep) {
              for (const auto& [offset, elements] : known->profile) release(at + offset, elements);
              at += known->pass_start;
            }
            continue;
          }
          profile.clear();
          double released = 0, pass_start = window(bt.recompute);
          for (const auto* pass : {&b.backward_input, &b.backward_weight}) {
            const PassTime& pt = pass == &b.backward_input ? bt.backward_input : bt.backward_weight;
            double total = 0, done_s = 0;
            for (const auto& step : pass->get())
              if (const auto* op = std::get_if<ComputeOp>(&step)) total += compute_parts(*op, c.rates).time_s;
            for (const auto& step : pass->get())
              if (const auto* op = std::get_if<ComputeOp>(&step)) {
                done_s += compute_parts(*op, c.rates).time_s;
                const double share = std::min(released_weight_elements(*op), b.params - released);
                if (!(share > 0)) continue;
                released += share;
                profile.emplace_back(pass_start + (total > 0 ? window(pt) * done_s / total : window(pt)), share);
              }
            pass_start += window(pt);
          }
          profile.emplace_back(pass_start, b.params - released);
          if (b.template_id >= 0) known_profiles.push_back({b.template_id, b.params, pass_start, profile});
          for (int rep = 0; rep < b.count; ++rep) {
            for (const auto& [offset, elements] : profile) release(at + offset, elements);
            at += pass_start;
          }
        }
        double backlog[2] = {0.0, 0.0}, delay = 0;
        const double stretch = walk_card(units.b, units.events.data(), backlog, dS, &releases, bwd_groups, &delay);
        out.rank_s[static_cast<size_t>(r)] += stretch;
        if (ci < v) out.last_grad_s[static_cast<size_t>(r) * v + ci] += stretch;
        out.sync_gain_s[static_cast<size_t>(r)] += std::max(0.0, stretch - delay);
      }
    }
    for (int g = 0; g < kGroupKinds; ++g) groups[g] = fwd_groups[g] + bwd_groups[g];
    wait += first_forward_s;
  }
  return true;
}

// Each rank's end under the schedule's order of m micro-batches, timed as order_makespan_s times it
// (a forward after the previous virtual stage's, a backward after the next one's, a weight pass
// after its rank's backward, DualPipeV's pairs as one), with first_fwd_extra[r v + c] added to
// chunk c's first forward on rank r and last_grad_extra[r v + c] to its last gradient pass (its
// last backward, or its last weight pass where the schedule splits them); null: none.
// run_open_extra[r v + c] and run_close_extra[r v + c] are added to the items that open and close
// each run of chunk c's in-flight micro-batches on rank r (ir::run_edges); null: none.
// The order comes compiled (ir::OrderWalk, shared across the plans of a search; before the review
// of 2026-12-07 each call rebuilt the orders and scanned them per chunk): the same sums, bit for bit.
std::vector<double> order_rank_ends_s(const ir::OrderWalk& walk, const StageTimes& t, const double* first_fwd_extra,
                                      const double* last_grad_extra, const double* run_open_extra = nullptr,
                                      const double* run_close_extra = nullptr) {
  const bool split = walk.split;
  const int v = walk.v;
  const size_t P = static_cast<size_t>(walk.p), V = static_cast<size_t>(v);
  // Per item: what is added to it. Kept all zero between calls (only the items set here are reset
  // after), sized once per thread.
  thread_local std::vector<double> extra;
  if (extra.size() < walk.items()) extra.resize(walk.items(), 0.0);
  thread_local std::vector<int32_t> touched;
  touched.clear();
  auto add = [&](int32_t id, double x) {
    extra[static_cast<size_t>(id)] += x;
    touched.push_back(id);
  };
  if (first_fwd_extra || last_grad_extra)
    for (size_t k = 0; k < P * V; ++k) {
      if (first_fwd_extra && walk.first_forward_item[k] >= 0) add(walk.first_forward_item[k], first_fwd_extra[k]);
      if (last_grad_extra && walk.last_grad_item[k] >= 0) add(walk.last_grad_item[k], last_grad_extra[k]);
    }
  if (run_open_extra)
    for (const auto& [id, at] : walk.run_opens) add(id, run_open_extra[at]);
  if (run_close_extra)
    for (const auto& [id, at] : walk.run_closes) add(id, run_close_extra[at]);
  std::vector<double> free_at(P, 0.0);
  thread_local std::vector<double> end_at, fwd, bwd, wgt;
  end_at.resize(walk.units.size());
  fwd.resize(P * V);
  bwd.resize(P * V);
  wgt.resize(P * V);
  const bool by_chunk = t.chunk_forward_s.size() == P * V && t.chunk_backward_s.size() == P * V && t.chunk_weight_s.size() == P * V;
  for (size_t R = 0; R < P; ++R)
    for (size_t c = 0; c < V; ++c) {
      const size_t k = R * V + c;
      fwd[k] = by_chunk ? t.chunk_forward_s[k] : t.forward_s[R] / v;
      wgt[k] = by_chunk ? t.chunk_weight_s[k] : t.weight_s[R] / v;
      bwd[k] = (by_chunk ? t.chunk_backward_s[k] : t.backward_s[R] / v) - (split ? wgt[k] : 0.0);
    }
  const double* ex = extra.data();
  for (size_t n = 0; n < walk.units.size(); ++n) {
    const ir::OrderWalk::Unit& u = walk.units[n];
    const size_t R = static_cast<size_t>(u.rank), at = R * V + static_cast<size_t>(u.chunk), k = static_cast<size_t>(u.item);
    if (u.kind == ir::OrderWalk::kPair) {
      const size_t bt = R * V + static_cast<size_t>(u.chunk2);
      double dep = 0;
      if (u.dep >= 0) dep = end_at[static_cast<size_t>(u.dep)];
      if (u.dep2 >= 0) dep = std::max(dep, end_at[static_cast<size_t>(u.dep2)]);
      // A full backward's weight pass inside the pair, before both outputs (2026-12-07 review).
      end_at[n] = free_at[R] = std::max(free_at[R], dep) + fwd[at] + bwd[bt] + ex[k] + ex[k + 1] + (u.full ? wgt[bt] + ex[k + 2] : 0.0);
      continue;
    }
    const double dep = u.dep >= 0 ? end_at[static_cast<size_t>(u.dep)] : 0.0;
    double dur;
    if (u.kind == ScheduleItem::Forward) dur = fwd[at];
    else if (u.kind == ScheduleItem::Backward) dur = bwd[at];
    else dur = wgt[at];
    if (u.full) dur += wgt[at] + ex[k + 1];  // its weight pass before its send
    end_at[n] = free_at[R] = std::max(free_at[R], dep) + dur + ex[k];
  }
  for (const int32_t id : touched) extra[static_cast<size_t>(id)] = 0.0;
  return free_at;
}

// How far each rank's end moves by the once-per-step stretches on the card (CardStretch): the
// order of min(m, order_walk_microbatches) micro-batches (its fill and its drain; the steady state
// between adds the same to both) timed with and without them. A rank's stretch reaches another's
// end only through the items that wait on it, less the slack they had: under 1F1B with a heavy
// first stage the other ranks' last backwards end well before stage 0 needs their gradients, and
// their buckets' stretch never reaches the step's end (review of 2026-12-06: every rank's stretch
// had been added to every rank's end).
// base: the walk's ends without additions, shared with root_end_delays (empty: not yet timed).
std::vector<double> card_end_delays(const PipelineSchedule& s, const StageTimes& t, int p, int v, int64_t m, const CardStretch& cs,
                                    const ir::OrderCache* orders, std::vector<double>& base) {
  std::vector<double> out(static_cast<size_t>(p), 0.0);
  if (p <= 1) {
    for (size_t r = 0; r < out.size() && r < cs.rank_s.size(); ++r) out[r] = cs.rank_s[r];
    return out;
  }
  const int64_t walk = order_walk_microbatches(s, p, v, m);
  const auto compiled = ir::order_walk(s, p, v, walk, orders);
  if (base.empty()) base = order_rank_ends_s(*compiled, t, nullptr, nullptr);
  const std::vector<double> with = order_rank_ends_s(*compiled, t, cs.first_fwd_s.data(), cs.last_grad_s.data());
  for (size_t r = 0; r < out.size(); ++r) out[r] = std::max(0.0, with[r] - base[r]);
  return out;
}

// ZeRO-3's root unit (Collective::per_run) on each rank and chunk: its runs a step (ir::run_edges
// over the schedule's order; 0 where the chunk holds none). A chunk whose every micro-batch is a
// run (the last 1F1B stage, a single stage) is timed per micro-batch with the unit's collectives,
// as simulate issues them there; the others (`edged`: the first 1F1B stage, every GPipe and ZB-H1
// stage holding the unit) per micro-batch without them, and each run's gather and reduce-scatter
// on the items that open and close it (root_end_delays). 2026-12-07 review: every micro-batch had
// gathered and reduced the unit.
struct RootRuns {
  int v = 1;
  int64_t m = 1;
  std::vector<int64_t> runs;  // p x v, rank-major
  bool any_edged = false;
  // p x v: the chunk's one run opens with the pipeline's first item (micro-batch 0's forward of
  // virtual stage 0, its rank's first item), on which every other item waits: what it adds shifts
  // every rank's end alike; and it closes with its rank's last item, on which no item waits (no
  // send follows it): what it adds ends that rank alone later. Both hold for the embedding's chunk
  // under every built-in schedule, whose run delays then need no walk (root_end_delays).
  std::vector<char> opens_first, closes_last;
  int64_t runs_of(int r, size_t c) const {
    const size_t k = static_cast<size_t>(r) * static_cast<size_t>(v) + c;
    return k < runs.size() ? runs[k] : 0;
  }
  bool edged(int r, size_t c) const {
    const int64_t n = runs_of(r, c);
    return n > 0 && n < m;
  }
};
bool has_per_run(const Block& b) {
  for (const StepList* list : {&b.forward, &b.recompute, &b.backward_input, &b.backward_weight})
    for (const auto& step : *list)
      if (const auto* c = std::get_if<Collective>(&step); c && c->per_run) return true;
  return false;
}
// The block with its per-run collectives left out.
Block without_per_run(const Block& b) {
  Block out = b;
  for (StepList Block::*list : {&Block::forward, &Block::recompute, &Block::backward_input, &Block::backward_weight}) {
    std::vector<Step> kept;
    kept.reserve((b.*list).size());
    for (const auto& step : b.*list)
      if (const auto* c = std::get_if<Collective>(&step); !(c && c->per_run)) kept.push_back(step);
    out.*list = std::move(kept);
  }
  return out;
}
// What root_runs reads of rank r's order (m micro-batches): each chunk's runs (ir::run_edges) and,
// for a chunk of one run, whether it opens with the pipeline's first item and closes with the
// rank's last (RootRuns::opens_first, closes_last). Depends on (schedule, r, p, v, m) alone: the
// plan search keeps it (RunShapeCache; review of 2026-12-07, the order had been rebuilt for every
// ZeRO-3 estimate).
struct RankRunShape {
  std::vector<int64_t> runs;
  bool empty_order = true;
  std::vector<char> opens_first, closes_last;  // per chunk: meaningful where runs[c] == 1
};
RankRunShape rank_run_shape(const PipelineSchedule& sched, int r, int p, int v, int64_t m) {
  RankRunShape out;
  const auto order = sched.order(r, p, v, m);
  const ir::RunEdges e = ir::run_edges(order, v, sched.splits_weight_gradient(), p > 1);
  out.runs = e.runs;
  out.empty_order = order.empty();
  out.opens_first.assign(e.runs.size(), 0);
  out.closes_last.assign(e.runs.size(), 0);
  if (order.empty()) return out;
  const ScheduleItem& first = order.front();
  // The last item sends nothing: a weight pass that no backward joins (its send waits for it),
  // or a backward of virtual stage 0; and it is no pair's backward (the pair's forward sends
  // when both end).
  const size_t n = order.size() - 1;
  const ScheduleItem& last = order[n];
  const size_t b = last.kind == ScheduleItem::Weight && n > 0 && ir::weight_joins_backward(order, n - 1) ? n - 1 : n;
  const bool pair = b > 0 && order[b - 1].with_next;
  const bool sends = order[b].kind == ScheduleItem::Backward && sched.virtual_stage(r, order[b].chunk, p, v) > 0;
  for (size_t c = 0; c < e.runs.size(); ++c) {
    out.opens_first[c] = e.opens[0] && static_cast<size_t>(first.chunk) == c && first.microbatch == 0 && sched.virtual_stage(r, first.chunk, p, v) == 0;
    out.closes_last[c] = e.closes[n] && static_cast<size_t>(last.chunk) == c && !pair && !sends;
  }
  return out;
}
// rank_run_shape per (schedule, r, p, v, m), kept up to kMaxEntries. Thread-safe.
class RunShapeCache {
 public:
  static constexpr size_t kMaxEntries = size_t{1} << 16;
  std::shared_ptr<const RankRunShape> get(const PipelineSchedule& s, int r, int p, int v, int64_t m) const {
    const auto key = std::make_tuple(&s, r, p, v, m);
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (const auto it = shapes_.find(key); it != shapes_.end()) return it->second;
    }
    auto shape = std::make_shared<const RankRunShape>(rank_run_shape(s, r, p, v, m));
    const std::lock_guard<std::mutex> lock(mu_);
    if (shapes_.size() >= kMaxEntries) return shape;
    return shapes_.emplace(key, shape).first->second;
  }

 private:
  mutable std::mutex mu_;
  mutable std::map<std::tuple<const PipelineSchedule*, int, int, int, int64_t>, std::shared_ptr<const RankRunShape>> shapes_;
};
RootRuns root_runs(const Workload& w, const PipelineSchedule& sched, const RunShapeCache* shapes) {
  RootRuns out;
  const int p = static_cast<int>(w.stages.size());
  out.v = w.stages.empty() ? 1 : static_cast<int>(w.stages[0].chunks.size());
  out.m = w.microbatches;
  out.runs.assign(static_cast<size_t>(p) * static_cast<size_t>(out.v), 0);
  if (w.scenario().plan.zero_stage < 3) return out;  // the lowering's only per-run collectives (plan search: skip the scan)
  // Whether a chunk holds a per-run collective, each layer template scanned once: blocks of one
  // template_id have identical step lists (ir::Block), and scanning every copy on every rank took
  // 11.6% of the 405B plan search's profile (2026-12-07).
  std::vector<std::pair<int, bool>> by_template;
  auto per_run_in = [&by_template](const Block& b) {
    if (b.template_id < 0) return has_per_run(b);
    for (const auto& [id, has] : by_template)
      if (id == b.template_id) return has;
    const bool has = has_per_run(b);
    by_template.emplace_back(b.template_id, has);
    return has;
  };
  std::vector<char> chunk_has;
  for (int r = 0; r < p; ++r) {
    const auto& chunks = w.stages[static_cast<size_t>(r)].chunks;
    chunk_has.assign(chunks.size(), 0);
    bool any = false;
    for (size_t c = 0; c < chunks.size(); ++c) {
      for (const auto& b : chunks[c].blocks)
        if (per_run_in(b)) {
          chunk_has[c] = 1;
          break;
        }
      any = any || chunk_has[c];
    }
    if (!any) continue;
    const std::shared_ptr<const RankRunShape> shape =
        shapes ? shapes->get(sched, r, p, out.v, out.m) : std::make_shared<const RankRunShape>(rank_run_shape(sched, r, p, out.v, out.m));
    for (size_t c = 0; c < chunks.size() && c < shape->runs.size(); ++c) {
      if (!chunk_has[c]) continue;
      const size_t k = static_cast<size_t>(r) * static_cast<size_t>(out.v) + c;
      out.runs[k] = shape->runs[c];
      out.any_edged = out.any_edged || out.edged(r, c);
      if (shape->runs[c] != 1 || shape->empty_order) continue;
      if (out.opens_first.empty()) out.opens_first.assign(out.runs.size(), 0), out.closes_last.assign(out.runs.size(), 0);
      out.opens_first[k] = shape->opens_first[c];
      out.closes_last[k] = shape->closes_last[c];
    }
  }
  return out;
}
// A chunk's blocks as timed per micro-batch: without the per-run collectives where it is edged.
std::vector<Block> per_microbatch_blocks(const Chunk& ch) {
  std::vector<Block> out;
  out.reserve(ch.blocks.size());
  for (const auto& b : ch.blocks) out.push_back(has_per_run(b) ? without_per_run(b) : b);
  return out;
}
// What the root unit's runs add to a rank over the step (edged chunks): the passes with its
// collectives less those without, times the runs. parts: the same by group and class.
struct RootStep {
  double total_s = 0, compute_s = 0;
  PassTime parts;
  void add_run(const PassTime* with, const PassTime* without, double runs) {
    for (int i = 0; i < 3; ++i) {
      total_s += runs * (with[i].total() - without[i].total());
      compute_s += runs * (with[i].compute_s - without[i].compute_s);
      parts.add(with[i], runs);
      parts.add(without[i], -runs);
    }
  }
  double exposed_s() const { return total_s - compute_s; }
};
// How far each rank's end moves by the root unit's runs on edged chunks: the order of
// min(m, order_walk_microbatches) micro-batches timed with open_s[r v + c] on the items that open
// a run of chunk c on rank r and close_s[r v + c] on those that close one, less without (as
// card_end_delays). Runs beyond the walk (none in the built-in schedules, where a chunk holding the
// unit runs once a step or every micro-batch, the latter not edged) add theirs to their rank's end.
std::vector<double> root_end_delays(const PipelineSchedule& s, const StageTimes& t, int p, int v, int64_t m, const RootRuns& roots,
                                    const std::vector<double>& open_s, const std::vector<double>& close_s, const ir::OrderCache* orders,
                                    std::vector<double>& base) {
  std::vector<double> out(static_cast<size_t>(p), 0.0);
  // Where every edged chunk's one run opens with the pipeline's first item and closes with its
  // rank's last (RootRuns::opens_first, closes_last), the walk would shift every rank by the one and
  // its own rank by the other: so without it (the plan search's ZeRO-3 1F1B plans).
  bool shortcut = !roots.opens_first.empty();
  for (int r = 0; r < p && shortcut; ++r)
    for (size_t c = 0; c < static_cast<size_t>(v); ++c) {
      const size_t k = static_cast<size_t>(r) * static_cast<size_t>(v) + c;
      if (roots.edged(r, c) && !(roots.opens_first[k] && roots.closes_last[k])) shortcut = false;
    }
  if (shortcut) {
    for (int r = 0; r < p; ++r)
      for (size_t c = 0; c < static_cast<size_t>(v); ++c) {
        if (!roots.edged(r, c)) continue;
        const size_t k = static_cast<size_t>(r) * static_cast<size_t>(v) + c;
        for (auto& x : out) x += open_s[k];
        out[static_cast<size_t>(r)] += close_s[k];
      }
    return out;
  }
  const int64_t walk = order_walk_microbatches(s, p, v, m);
  const auto compiled = ir::order_walk(s, p, v, walk, orders);
  if (base.empty()) base = order_rank_ends_s(*compiled, t, nullptr, nullptr);
  const std::vector<double> with = order_rank_ends_s(*compiled, t, nullptr, nullptr, open_s.data(), close_s.data());
  for (int r = 0; r < p; ++r) {
    const size_t R = static_cast<size_t>(r);
    out[R] = std::max(0.0, with[R] - base[R]);
    if (walk >= m) continue;
    for (size_t c = 0; c < static_cast<size_t>(v); ++c) {
      if (!roots.edged(r, c)) continue;
      const size_t k = R * static_cast<size_t>(v) + c;
      const int64_t more = roots.runs_of(r, c) - compiled->runs[k];  // ir::run_edges of the walked order
      if (more > 0) out[R] += static_cast<double>(more) * (open_s[k] + close_s[k]);
    }
  }
  return out;
}

}  // namespace

LinkShares link_shares(const ir::Collective& c, const ir::Workload& w, const Fabric& f) {
  LinkShares x;
  x.card = card_fraction(c, w, f, &x.scale_up);
  return x;
}

CardSharing card_sharing(double wire_s, const LinkShares& coll, const double backlogs_s[2], const LinkShares streams[2]) {
  StreamShares sh;
  for (int g = 0; g < 2; ++g) {
    sh.card[g] = streams[g].card;
    sh.up[g] = streams[g].scale_up;
  }
  const CardMeet m = meet_card(wire_s, coll.card, coll.scale_up, backlogs_s, sh);
  return {m.stretch, m.delay};
}

struct EstimatorCaches {
  ir::OrderCache orders;
  RunShapeCache run_shapes;
};
Estimator::Estimator() : caches_(std::make_unique<EstimatorCaches>()) {}
Estimator::~Estimator() = default;
Estimator::Estimator(Estimator&&) noexcept = default;
Estimator& Estimator::operator=(Estimator&&) noexcept = default;

double lowp_gemm_weight_elements(const Block& b) {
  double elements = 0;
  for (const auto& step : b.forward)
    if (const auto* op = std::get_if<ComputeOp>(&step);
        op && op->cls == OpClass::Gemm && op->grad == ComputeOp::Grad::None && (op->dtype == DType::FP8 || op->dtype == DType::FP4))
      elements += static_cast<double>(op->n) * static_cast<double>(op->k) * static_cast<double>(op->batch);
  return elements;
}

double weight_cast_bytes_per_element(const Scenario& s, int zero_stage) {
  // Review of 2026-12-06: these copies were left out wherever the parameters stay 16-bit. FP8 at
  // ZeRO-0 (Megatron: "--fp8-param-gather only supported with distributed optimizer") held 16-bit
  // weights alone, 14 GB short for Llama 3 8B at tp 1; NVFP4 (16-bit parameters at every stage,
  // docs/models.md "FP8/FP4") 1.125 bytes a GEMM weight short, 2.4 GB per GPU of the 70B example.
  const DType dt = s.train.precision;
  if (dt == DType::FP4) return 2.0 * (0.5 + 1.0 / 16);  // NVFP4: half a byte and an E4M3 scale per 16, twice
  if (dt != DType::FP8 || zero_stage >= 1) return 0.0;
  // A row-wise and a transposed copy; MXFP8 and blockwise FP8 carry a scale byte per 32 elements
  // in each, as the lowering's FP8 operands do.
  const bool scaled = s.train.fp8_recipe == "mxfp8" || s.train.fp8_recipe == "blockwise";
  return 2.0 * (1.0 + (scaled ? 1.0 / 32 : 0.0));
}

MemoryBreakdown stage_memory(const Workload& w, int pp_rank, double activations_bytes) {
  const Scenario& s = w.scenario();
  const auto& dpg = w.group(GroupKind::DP);
  const auto& edpg = w.group(GroupKind::EDP);
  const auto& st = w.stages[static_cast<size_t>(pp_rank)];
  MemoryBreakdown mb;
  const double dense = st.params - st.expert_params, expert = st.expert_params;
  const int z = s.plan.zero_stage;
  const double dshard = dpg.size, eshard = std::max(1, edpg.size);
  // Mixed precision: 16-bit weights (fp8 GEMMs cast on the fly) and an fp32 master copy beside
  // the moments; fp32/tf32 training: fp32 weights that are their own master, moments only.
  // The rule is TrainingConfig's, shared with the plan search and goodput (2026-12-07 review).
  const double wbytes = s.train.weight_bytes_per_param();
  const double gbytes = dtype_bytes(s.train.grad_reduce_dtype);
  const double obytes = s.train.optimizer_state_bytes_per_param();
  mb.weights_bytes = (z >= 3 ? dense / dshard + expert / eshard : dense + expert) * wbytes;
  // Transformer Engine's cast copies of the layer weights where the parameters stay 16-bit
  // (weight_cast_bytes_per_element): of every weight the rank computes with, kept from the first
  // micro-batch to the last (under ZeRO-3 too: the module keeps its cast workspace while its
  // parameters are resharded; estimated).
  if (const double cast = weight_cast_bytes_per_element(s, z); cast > 0) {
    double lowp = 0;
    for (const auto& ch : st.chunks)
      for (const auto& b : ch.blocks) lowp += lowp_gemm_weight_elements(b) * b.count;
    mb.weight_casts_bytes = lowp * cast;
    mb.weights_bytes += mb.weight_casts_bytes;
  }
  mb.gradients_bytes = (z >= 2 ? dense / dshard + expert / eshard : dense + expert) * gbytes;
  // ZeRO-2 with step sync: the gradients accumulate unsharded, in the reduction dtype, until the
  // step's reduce-scatter (FSDP2 without gradient sync accumulates in reduce_dtype; Llama 3
  // accumulated in fp32 over micro-batches), as ZeRO-1 holds them; the shard replaces them after.
  if (z == 2 && s.plan.zero2_grad_sync == "step") mb.gradients_bytes = (dense + expert) * gbytes;
  mb.optimizer_bytes = (z >= 1 ? dense / dshard + expert / eshard : dense + expert) * obytes;
  mb.activations_bytes = activations_bytes;
  // ZeRO-3: two layers' gathered parameters (the one in use and the prefetched one), experts too
  // where they are sharded, and the root unit (embedding, final norm, head), gathered before the
  // forward and kept through the backward (before 2026-12-02 the root was averaged into the
  // layers: Llama 3 8B's 2.1 GB of embedding and head counted as a fraction of a layer).
  double gathered = 0;
  if (z >= 3) {
    double root = 0, root_max = 0, layer = 0, tensor = 0;
    // largest_weight_elements reads a block's forward steps, its parameters and its name: once per
    // layer template and parameter count (blocks of one template_id have identical step lists;
    // scanning every copy took 4% of the 405B plan search; review of 2026-12-07).
    struct Largest {
      int template_id;
      double params, elements;
    };
    Largest seen[8];
    int nseen = 0;
    auto largest_of = [&](const ir::Block& b) {
      if (b.template_id < 0) return ir::largest_weight_elements(b, s);
      for (int i = 0; i < nseen; ++i)
        if (seen[i].template_id == b.template_id && seen[i].params == b.params) return seen[i].elements;
      const double x = ir::largest_weight_elements(b, s);
      if (nseen < 8 && b.name != "embedding" && b.name != "mtp_embedding") seen[nseen++] = {b.template_id, b.params, x};
      return x;
    };
    for (const auto& ch : st.chunks)
      for (const auto& b : ch.blocks) {
        // Only what is sharded is gathered: with dp x cp 1 the dense weights are whole already
        // (they had been counted a second time, 0.69 GB for Llama 3 70B; 2026-12-04 review).
        const double g = (dshard > 1 ? b.params - b.expert_params : 0.0) + (eshard > 1 ? b.expert_params : 0.0);
        if (g > 0) tensor = std::max(tensor, std::min(g, largest_of(b)));
        if (ir::is_root_block(b)) {
          root += g;
          root_max = std::max(root_max, g);
        } else {
          layer = std::max(layer, g);
        }
      }
    // A stack that releases parameters after each use (DeepSpeed's ZeRO-3, which also re-gathers
    // for the recompute) holds the embedding and the head each only while it runs, like a layer
    // (their sum had been taken as one unit and counted twice: 2.1 GB too much for Llama 3 8B at
    // pp 1, more than the stack that keeps them; 2026-12-04 review).
    // The unit in use and, with overlapped gathers, the prefetched one (a blocking gather has
    // none in flight: it had counted two either way).
    const double in_flight = s.plan.overlap_param_gather ? 2.0 : 1.0;
    if (s.plan.zero3_regather_for_recompute) {
      // The embedding or the head with at most a layer in flight beside it: never the two
      // together, nor the largest of them twice (it was taken as the layer and doubled: 0.6 GB too
      // much for Llama 3 8B, whose embedding is 2.4 of its layers; 2026-12-04 review).
      gathered = std::max(in_flight * layer, root_max + (in_flight - 1) * layer);
    } else {
      gathered = root + in_flight * layer;
    }
    // A stack that holds at most so many gathered parameters (DeepSpeed's
    // stage3_max_live_parameters, 1e9 by default) keeps that many, or the largest tensor: two whole
    // layers had been held, 20 GB for GPT-530B on 640 A100 with DeepSpeed ZeRO-3 (SC'21), which
    // then did not fit where it ran (review of 2026-12-05).
    gathered = ir::zero3_resident_elements(gathered, tensor, s.plan.zero3_max_live_params) * wbytes;
  }
  // Two gradient buckets in flight, together no more than the rank's gradients (grad_bucket_mb 1e5
  // had put 372 GiB of buffers beside 8.5 GiB of gradients, then twice the gradients; reviews of
  // 2026-12-04).
  // The stated size, not the traffic's floor of 1M elements per DP rank: Megatron's buckets are
  // views into its contiguous gradient buffer, so the floor (2 GB of "buckets" at dp 256) is no
  // memory of its own; these two stand for what a stack that copies into buckets holds (estimated;
  // tried and reverted on 2026-12-05, where it pruned plans that Megatron runs).
  // ZeRO-3 has none: it reduce-scatters each unit's gradient after the unit's backward (lowering),
  // and grad_bucket_mb is without effect there, as its note says. Before 2026-12-06 the buckets
  // were charged at every stage, and grad_bucket_mb 2000 had added 7.3 GB to a ZeRO-3 plan
  // (review). The unit's unsharded gradient is ZeRO-3's known gap (docs/models.md: counted alone
  // it put published FSDP runs over capacity; it waits for FSDP's single parameter copy).
  // Only the gradients some collective reduces are bucketed: the dense ones where the DP group (dp x
  // cp ranks) has more than one member, the expert ones where the EDP group has (the lowering emits
  // no reduction over a group of one). Before 2026-12-07 a plan without data parallelism held
  // 320 MB of buckets at ZeRO 0-2 beside the note that the ZeRO stage has no effect, and none at
  // ZeRO-3 (review).
  const double reduced = (dshard > 1 ? dense : 0.0) + (eshard > 1 ? expert : 0.0);
  const double bucket_elements = z >= 3 ? 0.0 : std::min(s.plan.grad_bucket_bytes, reduced);  // two of grad_bucket_bytes / 2
  mb.comm_buffers_bytes = bucket_elements * gbytes + gathered;
  mb.reserve_bytes = 2.0 * 1024 * 1024 * 1024;  // CUDA context, NCCL buffers, allocator slack (estimated)
  return mb;
}

// Whether an op's name starts with `prefix`, inline: the hardware-FLOPs loops below test every op
// of every block per estimate, and std::strncmp's calls took 3-4% of a MoE plan search (2026-12-07
// review).
static inline bool named(const char* name, std::string_view prefix) {
  for (size_t i = 0; i < prefix.size(); ++i)
    if (name[i] != prefix[i]) return false;  // a shorter name stops at its terminator, which differs
  return true;
}

StepEstimate Estimator::run(const Workload& w) const {
  const Scenario& s = w.scenario();
  const Accelerator& acc = s.accelerator;
  Ctx c{*this, w, acc, make_fabric(s), known_or(acc.comm_compute_interference, 0.0)};
  const auto& sched = schedules_.get(w.schedule);
  const int p = s.plan.pp, v = s.plan.vpp;
  const int64_t m = w.microbatches;

  StepEstimate e;
  StageTimes times;
  std::vector<PassTime> fwd(p), bwd(p), wgt(p);
  // Plan search runs this millions of times: size every vector once (allocations were a fifth of
  // the search's time).
  times.forward_s.reserve(p);
  times.backward_s.reserve(p);
  times.weight_s.reserve(p);
  times.chunk_forward_s.reserve(static_cast<size_t>(p) * v);
  times.chunk_backward_s.reserve(static_cast<size_t>(p) * v);
  times.chunk_weight_s.reserve(static_cast<size_t>(p) * v);
  e.compute_by_class_s.reserve(kOpClasses);
  e.comm_by_group_s.reserve(kGroupKinds);
  e.exposed_by_group_s.reserve(kGroupKinds);
  const bool split_weight = sched.splits_weight_gradient();
  // Blocks lowered from one template (the same layer kind on every chunk) are evaluated once.
  std::vector<std::pair<int, BlockTimes>> cache;
  cache.reserve(8);  // references into it stay valid: at most 8 templates are cached
  BlockTimes scratch;
  auto block_times = [&](const Block& b) -> const BlockTimes& {
    if (b.template_id >= 0)
      for (const auto& [id, bt] : cache)
        if (id == b.template_id) return bt;
    BlockTimes& bt = (b.template_id >= 0 && cache.size() < cache.capacity()) ? cache.emplace_back(b.template_id, BlockTimes{}).second : scratch;
    WeightOps ops[3];  // forward, input-gradient and weight passes: for the block's ParamProfiles
    bt.forward = eval_steps(c, b.forward, &ops[0]);
    bt.recompute = eval_steps(c, b.recompute);
    bt.backward_input = eval_steps(c, b.backward_input, &ops[1]);
    bt.backward_weight = eval_steps(c, b.backward_weight, &ops[2]);
    param_profiles(b, ops[0], ops[1], ops[2], split_weight, bt);
    units_of_backward(bt.recompute, bt.backward_input, bt.backward_weight);
    return bt;
  };
  // Each block's parameters and pass times, for the once-per-step DP traffic (ChunkedOverlap).
  std::vector<BlockShare> shares;
  std::vector<size_t> share_start(static_cast<size_t>(p), 0);
  // The ParamProfiles of blocks evaluated in `scratch` (not cached: the embedding, the head), kept
  // for their shares: sized once, so that the shares' pointers stay valid.
  std::vector<ParamProfile> own_profiles;
  {
    size_t nblocks = 0, uncached = 0, templated = 0;
    int ids[9], nids = 0;  // distinct templates, up to one more than the cache holds
    for (const auto& st : w.stages)
      for (const auto& ch : st.chunks) {
        nblocks += ch.blocks.size();
        for (const auto& b : ch.blocks) {
          if (b.template_id < 0) {
            ++uncached;
            continue;
          }
          ++templated;
          if (nids <= 8 && std::find(ids, ids + nids, b.template_id) == ids + nids) ids[nids++] = b.template_id;
        }
      }
    shares.reserve(nblocks);
    own_profiles.reserve(2 * (uncached + (nids > 8 ? templated : 0)));
  }
  ChunkDpUnits units;  // one chunk's at a time; its capacity reused (the plan search's hot path)
  // ZeRO-3's root unit: gathered and reduced once a run of in-flight micro-batches (RootRuns).
  const ir::OrderCache* orders = caches_ ? &caches_->orders : nullptr;
  const RootRuns roots = root_runs(w, sched, caches_ ? &caches_->run_shapes : nullptr);
  std::vector<double> root_open_s, root_close_s;  // p x v: what opening and closing a run adds
  if (roots.any_edged) {
    root_open_s.assign(static_cast<size_t>(p) * static_cast<size_t>(v), 0.0);
    root_close_s.assign(static_cast<size_t>(p) * static_cast<size_t>(v), 0.0);
  }
  std::vector<RootStep> root_step(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    // Each chunk's pass settles its own DP traffic (settle_dp): under interleaving and DualPipeV a
    // rank runs its v chunks' passes apart, each exposing its first gather and last
    // reduce-scatter, as simulate's timeline shows. Before 2026-12-03 the rank's chunks were
    // settled as one pass: ZeRO-3 at vpp 8 read 0.487 s against simulate's 0.732 s, and plan
    // chose vpp 8 from it.
    share_start[static_cast<size_t>(r)] = shares.size();
    const auto& rank_chunks = w.stages[r].chunks;
    for (size_t ci = 0; ci < rank_chunks.size(); ++ci) {
      const auto& ch = rank_chunks[ci];
      // A chunk's passes per micro-batch, settled (record: its blocks' shares for ChunkedOverlap).
      auto settle_chunk = [&](const std::vector<Block>& blocks, PassTime* x, bool record) {
        units.clear();
        for (const auto& b : blocks) {
          const BlockTimes& bt = block_times(b);
          units.add(bt.forward, bt.recompute, bt.backward_input, bt.backward_weight, b.count, split_weight);
          if (record) {
            const double grad_pass_s = split_weight ? bt.backward_weight.total() : bt.recompute.total() + bt.backward_input.total() + bt.backward_weight.total();
            BlockShare share{b.params * b.count, bt.forward.total() * b.count, grad_pass_s * b.count, b.count, &bt.release, &bt.need};
            if (&bt == &scratch) {  // overwritten by the next uncached block: its profiles kept
              share.release = &own_profiles.emplace_back(bt.release);
              share.need = &own_profiles.emplace_back(bt.need);
            }
            shares.push_back(share);
          }
          x[0].add(bt.forward, b.count);
          x[1].add(bt.recompute, b.count);
          x[1].add(bt.backward_input, b.count);
          x[2].add(bt.backward_weight, b.count);
        }
        units.finish();
        settle_dp(c, x[0], &units.f, units.events.data());
        settle_backward_dp(c, x[1], x[2], split_weight, &units);
      };
      PassTime x[3];  // forward, recompute + input gradient, weight gradient
      if (roots.edged(r, ci)) {
        // The root unit's collectives once a run, not per micro-batch (RootRuns): what they add
        // to the forward opening a run and to the gradient pass closing it.
        settle_chunk(per_microbatch_blocks(ch), x, true);
        PassTime with[3];
        settle_chunk(ch.blocks, with, false);
        const size_t k = static_cast<size_t>(r) * static_cast<size_t>(v) + ci;
        root_open_s[k] = std::max(0.0, with[0].total() - x[0].total());
        root_close_s[k] = std::max(0.0, with[1].total() + with[2].total() - x[1].total() - x[2].total());
        root_step[static_cast<size_t>(r)].add_run(with, x, static_cast<double>(roots.runs_of(r, ci)));
      } else {
        settle_chunk(ch.blocks, x, true);
      }
      PassTime &cf = x[0], &cb = x[1], &cw = x[2];
      fwd[r].add(cf, 1);
      bwd[r].add(cb, 1);
      wgt[r].add(cw, 1);
      times.chunk_forward_s.push_back(cf.total());
      times.chunk_backward_s.push_back(cb.total() + cw.total());
      times.chunk_weight_s.push_back(cw.total());
    }
    // Pipeline point-to-point: activations forward and gradients backward, once per chunk.
    charge_pp_transfers(*this, w, c.fabric, r, fwd[r], bwd[r], wgt[r]);
    times.forward_s.push_back(fwd[r].total());
    times.backward_s.push_back(bwd[r].total() + wgt[r].total());
    times.weight_s.push_back(wgt[r].total());
    // The rank's chunks sum to its totals: what the rank adds beyond its chunks' passes (blocking
    // pipeline transfers) is spread over them evenly.
    {
      const size_t first = static_cast<size_t>(r) * static_cast<size_t>(v);
      double sf = 0, sb = 0, sw = 0;
      for (size_t k = first; k < first + static_cast<size_t>(v); ++k) {
        sf += times.chunk_forward_s[k];
        sb += times.chunk_backward_s[k];
        sw += times.chunk_weight_s[k];
      }
      for (size_t k = first; k < first + static_cast<size_t>(v); ++k) {
        times.chunk_forward_s[k] += (times.forward_s.back() - sf) / v;
        times.chunk_backward_s[k] += (times.backward_s.back() - sb) / v;
        times.chunk_weight_s[k] += (times.weight_s.back() - sw) / v;
      }
    }
  }
  // Interleaving's fill and drain, exposed on every rank's path (interleaved_fill_drain_s).
  const double fill_drain_p2p_s = interleaved_fill_drain_s(*this, w, c.fabric);
  // Once-per-step work on each rank; the step ends when the slowest rank ends. A rank r
  // finishes its last backward (r) backward-times before rank 0 (1F1B drain order), or as timing
  // the order says where the schedule's drain differs (zb-h1, dualpipev). Where the order is
  // timed anyway its makespan is the pipeline's time: ZB-H1's closed form is exact for uniform
  // stages only, and was up to 9% low with uneven stages and few micro-batches (before 2026-12-03).
  std::vector<double> order_ends;
  double order_pipe = 0;
  std::vector<double> chunk_grad_ends, chunk_fwd_starts;
  if (p > 1 && sched.drain_from_order()) order_pipe = order_time_s(sched, times, p, v, m, &order_ends, &chunk_grad_ends, &chunk_fwd_starts, orders);
  const double pipe = (order_ends.empty() ? sched.pipeline_time_cached_s(times, p, v, m, orders) : order_pipe) + fill_drain_p2p_s;
  double step = 0;
  int critical = 0;
  double crit_sync = 0, crit_opt = 0, crit_gather = 0, crit_dp_slow = 0;
  double mean_compute = 0, mean_exposed = 0;  // sums over the ranks here, means below
  // Overlapped parameter gathers on a pipeline: each rank's gathers go out at the step's start and
  // each chunk needs its share by its first forward, so a rank that first waits for its input hides
  // them behind that wait; a rank that starts late delays the pipeline as a whole (its successors
  // wait for it, its predecessors for its gradients). Every rank's end moves by the largest
  // lateness over the ranks. Where the order is timed (ZB-H1, DualPipeV) a chunk's first forward
  // starts when the order says; otherwise (1F1B, GPipe, interleaving) rank r's first forward comes
  // after the first forwards of ranks 0 .. r-1 (the fill), and interleaving's chunk c, c p chunk
  // passes after it. Interleaving's closed form had been used with p = 0 for DualPipeV: every chunk
  // needed at once, and its gather overlap worth 1.8% of the step where simulate gives 7.3%
  // (2026-12-04 review). Until 2026-12-07 (review) the other schedules added each rank's own
  // lateness, as if its first forward began the step, to its own end, after the tied embedding's
  // all-reduce: an 8-layer MTP model at pp 4 named stage 0 critical (0.2574 s, its bubble 75% of
  // the step) where simulate names stage 3 (0.2579 s), whose longer optimizer ends the step once
  // stage 0's late gathers delay the whole pipeline (at the first forward, as Megatron-Core's
  // forward pre-hook waits for them).
  // gather_own[r]: the part of the delay that is rank r's own exposed gather (the rest of its
  // delay is a wait for a predecessor's, booked as bubble). DualPipeV's fill runs both ways: there
  // every rank books the whole delay as its own.
  double order_gather_late = -1;  // < 0: not a pipeline with overlapped gathers
  std::vector<double> gather_own;
  const bool interleaved = w.schedule == "interleaved-1f1b";
  // Interleaving's chunk passes paced by the slowest rank (ChunkedOverlap::cooldown_chunk_s).
  std::vector<double> paced_forward_s, paced_backward_s;
  if (interleaved && p > 1 && times.chunk_forward_s.size() == static_cast<size_t>(p) * v &&
      times.chunk_backward_s.size() == static_cast<size_t>(p) * v) {
    paced_forward_s.assign(static_cast<size_t>(v), 0.0);
    paced_backward_s.assign(static_cast<size_t>(v), 0.0);
    for (int r = 0; r < p; ++r)
      for (int cc = 0; cc < v; ++cc) {
        const size_t k = static_cast<size_t>(r) * v + static_cast<size_t>(cc);
        paced_forward_s[static_cast<size_t>(cc)] = std::max(paced_forward_s[static_cast<size_t>(cc)], times.chunk_forward_s[k]);
        paced_backward_s[static_cast<size_t>(cc)] = std::max(paced_backward_s[static_cast<size_t>(cc)], times.chunk_backward_s[k]);
      }
  }
  if (s.plan.overlap_param_gather && p > 1 && v <= kMaxLeadChunks) {
    const bool timed = !interleaved && chunk_fwd_starts.size() == static_cast<size_t>(p) * v;
    const bool chain = v == 1 || interleaved;
    const bool by_chunk = times.chunk_forward_s.size() == static_cast<size_t>(p) * v;
    gather_own.assign(static_cast<size_t>(p), 0.0);
    order_gather_late = 0;
    double fill = 0;
    for (int r = 0; r < p; ++r) {
      const auto& sw = w.step_per_stage[r];
      const double* chunk_fwd = times.chunk_forward_s.data() + static_cast<size_t>(r) * v;
      const double fill_here = fill;
      fill += by_chunk ? chunk_fwd[0] : times.forward_s[static_cast<size_t>(r)] / v;
      const StepStreams gathers = step_streams(c, sw, w.stages[r], sw.param_gather, false);
      const double gather = gathers.overlapped_s() + gathers.serial_s;
      if (!(gather > 0)) continue;
      ChunkedOverlap overlap(w.stages[r], shares.data() + share_start[static_cast<size_t>(r)], v, interleaved ? p : 0, std::max(1, sw.grad_buckets));
      if (interleaved && !paced_forward_s.empty()) overlap.warmup_chunk_s = paced_forward_s.data();
      double need[kMaxLeadChunks];
      bool known = timed;
      for (int cc = 0; timed && cc < v; ++cc) {
        need[cc] = chunk_fwd_starts[static_cast<size_t>(r) * v + cc];
        known = known && need[cc] >= 0;
      }
      if (known) overlap.need_at = need;
      else if (!timed) overlap.need_offset = fill_here;
      // timed but not known: the closed form's worst case, every chunk needed at the start
      // Each stream's buckets in their own count and time (streams_exposed_s).
      const double late = streams_exposed_s(overlap, gathers, [&](const ChunkedOverlap& o, double t) { return o.gather_exposed_s(t, chunk_fwd); });
      gather_own[static_cast<size_t>(r)] = chain ? std::max(0.0, late - order_gather_late) : late;
      order_gather_late = std::max(order_gather_late, late);
    }
    if (!chain)
      for (int r = 0; r < p; ++r) gather_own[static_cast<size_t>(r)] = gather_own[static_cast<size_t>(r)] > 0 ? order_gather_late : 0.0;
  }
  // The once-per-step DP traffic's stretch of the timed collectives on the card (NicEvent,
  // step_card_stretch), where a rank has both.
  CardStretch card_stretch;
  {
    bool blocking_on_card = false;
    for (int r = 0; r < p; ++r) blocking_on_card = blocking_on_card || fwd[r].nic_blocking_s + bwd[r].nic_blocking_s + wgt[r].nic_blocking_s > 0;
    if (!blocking_on_card || !step_card_stretch(c, split_weight, block_times, card_stretch)) {
      card_stretch.rank_s.assign(static_cast<size_t>(p), 0.0);
      card_stretch.sync_gain_s.assign(static_cast<size_t>(p), 0.0);
      card_stretch.gather_gain_s.assign(static_cast<size_t>(p), 0.0);
      card_stretch.by_group.assign(static_cast<size_t>(p) * kGroupKinds, 0.0);
    }
  }
  // How far each rank's end moves by them, through the pipeline's order (card_end_delays).
  std::vector<double> walk_base;  // the bounded walk's rank ends without additions: timed once for both delays below
  std::vector<double> card_delay(static_cast<size_t>(p), 0.0);
  {
    double any = 0;
    for (const double x : card_stretch.rank_s) any += x;
    if (any > 0) card_delay = card_end_delays(sched, times, p, v, m, card_stretch, orders, walk_base);
  }
  // How far each rank's end moves by the root unit's runs on edged chunks (root_end_delays).
  std::vector<double> root_delay(static_cast<size_t>(p), 0.0);
  if (roots.any_edged) root_delay = root_end_delays(sched, times, p, v, m, roots, root_open_s, root_close_s, orders, walk_base);
  double crit_card = 0;
  // Each rank's end in two parts: up to the tied embedding's all-reduce (which its two ranks start
  // together) and from it on (the all-reduce, the optimizer, the exposed gathers).
  std::vector<double> end_before_tied(static_cast<size_t>(p), 0.0), end_after_tied(static_cast<size_t>(p), 0.0);
  std::vector<char> has_tied(static_cast<size_t>(p), 0);
  struct RankEnd {
    double sync = 0, opt = 0, gather = 0, dp_slow = 0, card = 0;
  };
  std::vector<RankEnd> rank_end(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    const auto& sw = w.step_per_stage[r];
    // Bucketed gradient reductions overlap the backward (with overlap_grad_reduce); the others
    // (the tied embedding's all-reduce between the first and last stage, which Megatron runs
    // after the backward, in finalize_model_grads) are exposed whole.
    // Overlappable ones side by side by group (step_streams).
    // The tied embedding's all-reduce (Collective::pipeline_ends) joins the first and the last
    // stage: it starts when both have reached it, so each waits there for the other's drain
    // (below). Before 2026-12-06 each rank ran it at its own end (review: GPT-3 2.7B at pp 4 on
    // stages [6, 8, 8, 10] read 0.3363 s with stage 0 critical where simulate reads 0.3396 s with
    // stage 3, whose optimizer starts after stage 0's drain).
    double sync = 0, sync_after = 0, tied = 0;
    for (const auto& col : sw.grad_sync)
      if (!col.overlappable) {
        const double t = collective_time_s(as_issued(col, sw, w.stages[r], s.plan, true), w, c.fabric);
        sync_after += t;
        if (col.pipeline_ends && col.group == GroupKind::PP) {
          tied += t;
          has_tied[static_cast<size_t>(r)] = 1;
        }
      }
    StepStreams syncs;
    {
      std::vector<Collective> overlappable;
      for (const auto& col : sw.grad_sync)
        if (col.overlappable) overlappable.push_back(col);
      syncs = step_streams(c, sw, w.stages[r], overlappable, true);
      sync = syncs.overlapped_s() + syncs.serial_s;
    }
    const int nb = std::max(1, sw.grad_buckets);
    // Chunks after (before) a chunk's last backward (first forward): interleaving only.
    ChunkedOverlap overlap(w.stages[r], shares.data() + share_start[static_cast<size_t>(r)], v, w.schedule == "interleaved-1f1b" ? p : 0, nb);
    if (interleaved && !paced_backward_s.empty()) {
      overlap.cooldown_chunk_s = paced_backward_s.data();
      overlap.warmup_chunk_s = paced_forward_s.data();
    }
    double lead[kMaxLeadChunks];
    if (v > 1 && v <= kMaxLeadChunks && w.schedule != "interleaved-1f1b" && chunk_grad_ends.size() == static_cast<size_t>(p) * v) {
      for (int cc = 0; cc < v; ++cc)
        lead[cc] = std::max(0.0, order_ends[static_cast<size_t>(r)] - chunk_grad_ends[static_cast<size_t>(r) * v + cc]);
      overlap.lead = lead;
    }
    double sync_exposed = sync;
    // Gradients are complete when the weight-gradient work ends: under schedules that split it
    // off (ZB-H1, DualPipeV) the reduction hides behind the deferred weight passes only, not the
    // input-gradient passes (before 2026-12-02 the whole backward: ZB-H1 at m = 2 came out 4% fast).
    // Each chunk's own (before 2026-12-06 the rank's mean chunk, which released a heavy chunk's
    // buckets over a light chunk's time: ChunkedOverlap::grad_exposed_s).
    const double* chunk_grad_window_s = (split_weight ? times.chunk_weight_s : times.chunk_backward_s).data() + static_cast<size_t>(r) * v;
    // Each stream's buckets in their own count and time (streams_exposed_s).
    if (s.plan.overlap_grad_reduce && sync > 0)
      sync_exposed = streams_exposed_s(overlap, syncs, [&](const ChunkedOverlap& o, double t) { return o.grad_exposed_s(t, chunk_grad_window_s); });
    // The backward stretched beside the buckets leaves them that much more of it (step_card_stretch).
    sync_exposed = std::max(0.0, sync_exposed - card_stretch.sync_gain_s[static_cast<size_t>(r)]);
    sync_exposed += sync_after;
    const StepStreams gathers = step_streams(c, sw, w.stages[r], sw.param_gather, false);
    const double gather = gathers.overlapped_s() + gathers.serial_s;
    double gather_exposed = gather;
    if (order_gather_late >= 0) gather_exposed = gather_own[static_cast<size_t>(r)];
    else if (s.plan.overlap_param_gather && gather > 0) {
      const double* chunk_fwd = times.chunk_forward_s.data() + static_cast<size_t>(r) * v;
      gather_exposed = streams_exposed_s(overlap, gathers, [&](const ChunkedOverlap& o, double t) { return o.gather_exposed_s(t, chunk_fwd); });
    }
    // The first forward stretched beside the gathers leaves them that much more of it.
    const double gather_gain = card_stretch.gather_gain_s[static_cast<size_t>(r)];
    gather_exposed = std::max(0.0, gather_exposed - gather_gain);
    // Where the gathers delay the pipeline's start (order_gather_late), the rank's end moves by the
    // whole delay, before the tied embedding's all-reduce; otherwise (one stage, or gathers not
    // overlapped, run after the optimizer) by its own exposed gathers, after it.
    const double gather_start_delay = order_gather_late >= 0 ? std::max(0.0, order_gather_late - gather_gain) : 0.0;
    const double gather_at_end = order_gather_late >= 0 ? 0.0 : gather_exposed;
    double opt = 0;
    for (const auto& op : sw.optimizer) opt += compute_time_s(op, acc);
    double slack = 0;
    if (order_ends.empty()) {
      // Rank r's last backward is one chunk's (the last micro-batch's chunk 0 under interleaving),
      // and the ranks below it each run that chunk after it: 1/v of their backward per
      // micro-batch (before 2026-12-03 the whole of it, which placed a later rank's end v times
      // too early and hid a heavy last rank's once-per-step work).
      // Chunk 0's own backward where the chunks' times are known: the mean chunk had placed a
      // rank whose chunk 0 holds only the embedding a chunk's backward early, and named the wrong
      // rank critical (0.9% low, 2026-12-04 review).
      const bool by_chunk = times.chunk_backward_s.size() == static_cast<size_t>(p) * static_cast<size_t>(v);
      for (int j = 0; j < r; ++j)
        slack += by_chunk ? times.chunk_backward_s[static_cast<size_t>(j) * static_cast<size_t>(v)] : times.backward_s[j] / v;
    } else {
      slack = order_pipe - order_ends[static_cast<size_t>(r)];
    }
    // The DP traffic hidden behind the backward and forward slows that compute (interference).
    // Compute already slowed by the passes' own overlapped communication is not slowed twice (as
    // settle_dp): the hidden DP traffic slows the share of the stage's compute nothing else overlaps.
    const double stage_compute = static_cast<double>(m) * (fwd[r].compute_s + bwd[r].compute_s + wgt[r].compute_s);
    const double stage_slowed_wall = c.interference > 0 ? static_cast<double>(m) *
                                                              (fwd[r].interference_s + bwd[r].interference_s + wgt[r].interference_s) *
                                                              (1.0 + c.interference) / c.interference
                                                        : 0.0;
    const double dp_free = stage_compute > 0 ? std::clamp(1.0 - stage_slowed_wall / stage_compute, 0.0, 1.0) : 0.0;
    const double dp_slow = ((sync - (sync_exposed - sync_after)) + std::max(0.0, gather - gather_exposed)) * c.slow_per_hidden_s() * dp_free;
    // Each rank's first forward is on the pipeline's fill chain and its last backward on the drain
    // chain: a stretch there reaches the ranks that wait on it (before 2026-12-06 each rank's end
    // took its own stretch only: Qwen3-30B-A3B at pp 2, ep 16 on 64 H100 read 1.2% to 4.9% below
    // simulate with DDP/ZeRO-1; then every rank's, whether or not it waited: card_end_delays).
    const double card = card_delay[static_cast<size_t>(r)];
    // The rank's own stretch is its exposed communication; what reaches it from the others, a wait.
    const double own_card = card_stretch.rank_s[static_cast<size_t>(r)];
    // The root unit's runs on edged chunks: the rank's own gathers and reduce-scatters are its
    // exposed communication (root_step), what reaches it from the others' a wait (as the card's).
    const double end = pipe - slack + sync_exposed + opt + gather_start_delay + gather_at_end + dp_slow + card + root_delay[static_cast<size_t>(r)];
    end_after_tied[static_cast<size_t>(r)] = tied + opt + gather_at_end;
    end_before_tied[static_cast<size_t>(r)] = end - end_after_tied[static_cast<size_t>(r)];
    // A hardware value far outside real hardware (a bandwidth or peak of 1e-307) makes times
    // infinite and their differences NaN, which max() had dropped: a step of 0 s and an MFU of
    // inf, ranked best by plan (2026-12-04 review).
    if (!std::isfinite(end))
      throw Error(SourceLocation{s.file, 0, 0, ""}, "pipeline rank " + std::to_string(r) + "'s step time is not finite (" + format_double(end) + ")",
                  "a rate of the accelerator, network or system is far outside real hardware (a bandwidth or peak near 0)");
    const double mr = static_cast<double>(m);
    const RootStep& root = root_step[static_cast<size_t>(r)];
    const double rank_compute = mr * (fwd[r].compute_s + bwd[r].compute_s + wgt[r].compute_s) + dp_slow + root.compute_s;
    const double rank_exposed = mr * (fwd[r].exposed_comm() + bwd[r].exposed_comm() + wgt[r].exposed_comm()) + sync_exposed + gather_exposed + own_card +
                                root.exposed_s();
    mean_compute += rank_compute;
    mean_exposed += rank_exposed;
    if (r == 0 || rank_compute > e.busiest_compute_s) {
      e.busiest_compute_s = rank_compute;
      e.busiest_exposed_comm_s = rank_exposed;
    }
    rank_end[static_cast<size_t>(r)] = RankEnd{sync_exposed, opt, gather_exposed, dp_slow, own_card};
  }
  // The tied all-reduce starts when the later of its two ranks reaches it.
  double tied_start = 0;
  for (int r = 0; r < p; ++r)
    if (has_tied[static_cast<size_t>(r)]) tied_start = std::max(tied_start, end_before_tied[static_cast<size_t>(r)]);
  for (int r = 0; r < p; ++r) {
    const size_t R = static_cast<size_t>(r);
    const double end = (has_tied[R] ? std::max(end_before_tied[R], tied_start) : end_before_tied[R]) + end_after_tied[R];
    if (end > step || r == 0) {
      step = std::max(step, end);
      if (end >= step) {
        critical = r;
        crit_sync = rank_end[R].sync;
        crit_opt = rank_end[R].opt;
        crit_gather = rank_end[R].gather;
        crit_dp_slow = rank_end[R].dp_slow;
        crit_card = rank_end[R].card;
      }
    }
  }
  e.step_time_s = step;
  e.critical_stage = critical;

  // Breakdown on the critical rank: per micro-batch times x m, bubble = the rest of the pipeline.
  const int r = critical;
  const double mf = static_cast<double>(m);
  const RootStep& crit_root = root_step[static_cast<size_t>(r)];
  e.compute_s = mf * (fwd[r].compute_s + bwd[r].compute_s + wgt[r].compute_s) + crit_dp_slow + crit_root.compute_s;
  const double exposed_pass = mf * (fwd[r].exposed_comm() + bwd[r].exposed_comm() + wgt[r].exposed_comm()) + crit_root.exposed_s();
  e.optimizer_s = crit_opt;
  e.grad_sync_exposed_s = crit_sync + crit_gather;
  e.exposed_comm_s = exposed_pass + e.grad_sync_exposed_s + fill_drain_p2p_s + crit_card;
  e.bubble_s = std::max(0.0, step - e.compute_s - e.exposed_comm_s - e.optimizer_s);
  // A residue of the subtraction's rounding is no bubble (pp 1 printed 3.5e-17 of the step).
  if (e.bubble_s < 1e-12 * step) e.bubble_s = 0;
  e.mean_compute_s = mean_compute / p;
  e.mean_exposed_comm_s = mean_exposed / p + fill_drain_p2p_s;
  e.busiest_exposed_comm_s += fill_drain_p2p_s;
  PassTime crit;  // the critical rank's passes, per step
  for (auto* pt : {&fwd[r], &bwd[r], &wgt[r]}) crit.add(*pt, mf);
  crit.add(crit_root.parts, 1);
  if (fill_drain_p2p_s > 0) crit.add_exposed(GroupKind::PP, fill_drain_p2p_s);
  if (crit_card > 0)
    for (int g = 0; g < kGroupKinds; ++g)
      if (const double x = card_stretch.own_by_group_s(r, g); x > 0) {
        crit.add_comm(static_cast<GroupKind>(g), x);
        crit.add_exposed(static_cast<GroupKind>(g), x);
      }
  for (int k = 0; k < kOpClasses; ++k)
    if (crit.class_seen >> k & 1u) e.compute_by_class_s.emplace_back(to_string(static_cast<OpClass>(k)), crit.by_class[k]);
  // Compute slowed by overlapped communication (the accelerator's comm_compute_interference): a
  // row of its own, so that the compute rows still sum to compute_s.
  if (crit.interference_s + crit_dp_slow > 0) e.compute_by_class_s.emplace_back("comm_interference", crit.interference_s + crit_dp_slow);
  {
    const auto& sw = w.step_per_stage[r];
    double sync_total = 0;
    auto issued_s = [&](const Collective& col, const std::vector<Collective>* list) {
      return collective_time_s(as_issued(col, sw, w.stages[r], s.plan, list == &sw.grad_sync), w, c.fabric);
    };
    for (const auto* list : {&sw.grad_sync, &sw.param_gather})
      for (const auto& col : *list) {
        const double t = issued_s(col, list);
        crit.add_comm(col.group, t);
        sync_total += t;
      }
    // Collectives run after the backward are exposed whole; the rest of the exposed once-per-step
    // time is shared among the overlapped ones in proportion to their times.
    double after = 0;
    for (const auto* list : {&sw.grad_sync, &sw.param_gather})
      for (const auto& col : *list)
        if (!col.overlappable) after += issued_s(col, list);
    const double overlapped_total = sync_total - after, overlapped_exposed = std::max(0.0, e.grad_sync_exposed_s - after);
    for (const auto* list : {&sw.grad_sync, &sw.param_gather})
      for (const auto& col : *list) {
        const double t = issued_s(col, list);
        if (!col.overlappable) crit.add_exposed(col.group, t);
        // The share first, then the product: exposed * t overflowed to inf where both were near
        // 1e302 (a NIC of 1e-300 Gbit/s), an infinite exposed dp beside a finite step (review of
        // 2026-12-06).
        else if (overlapped_total > 0) crit.add_exposed(col.group, overlapped_exposed * (t / overlapped_total));
      }
  }
  // Interleaving's fill and drain chain (fill_drain_p2p_s) is exposed on this rank but made of
  // every rank's sends, some dearer than its own (a hop leaving the scale-up domain): its pipeline
  // total counts at least that chain, so that the exposed part never exceeds the total (0.0037 s
  // exposed of a 0.0031 s total had been reported, review of 2026-12-05).
  {
    const int k = static_cast<int>(GroupKind::PP);
    if ((crit.exposed_seen >> k & 1u) && crit.exposed_by_group[k] > crit.comm_by_group[k]) {
      crit.comm_by_group[k] = crit.exposed_by_group[k];
      crit.comm_seen |= 1u << k;
    }
  }
  e.total_comm_s = 0;
  for (int k = 0; k < kGroupKinds; ++k) {
    const auto g = static_cast<GroupKind>(k);
    if (crit.comm_seen >> k & 1u) {
      e.comm_by_group_s.emplace_back(to_string(g), crit.comm_by_group[k]);
      e.total_comm_s += crit.comm_by_group[k];
    }
  }
  for (int k = 0; k < kGroupKinds; ++k)
    if (crit.exposed_seen >> k & 1u) e.exposed_by_group_s.emplace_back(to_string(static_cast<GroupKind>(k)), crit.exposed_by_group[k]);

  // Throughput and utilisation.
  const double tokens = static_cast<double>(s.tokens_per_step());
  e.tokens_per_s_per_gpu = tokens / (step * s.num_gpus);
  e.model_flops = w.model_flops_per_step();
  double hw = e.model_flops;
  if (s.train.recompute != Recompute::None) {
    // The recomputed forward FLOPs again (selective: its modules, the attention core by default;
    // full: the recomputed layers, never the embedding or the output head), from the IR: one
    // rank's recompute ops times its micro-batches, times the ranks of its pipeline stage.
    const double ranks_per_stage = static_cast<double>(s.num_gpus) / p;
    // The IR's routed-expert ops are the busiest EP rank's (the balanced share times the load
    // factor): the ranks together execute the balanced share each, unless tokens are padded to
    // the capacity, which every rank then executes. Before 2026-12-02 the busiest rank's were
    // counted on every rank: moe_load_imbalance 2 raised Mixtral's HFU from 0.285 to 0.345.
    double routed_scale = 1.0;
    if (s.model.moe && !s.train.moe_pad_to_capacity) {
      // The lowering's capped load (the cap at ep had stayed here: HFU fell with an imbalance
      // the IR no longer ran, 2026-12-04 review).
      const double load = s.moe_rank_load();
      if (load > 0) routed_scale = 1.0 / load;
    }
    // Without flash attention the IR's attention core runs over every key (the masked half of the
    // score matrix too); the hardware FLOPs count attention causally, as the model FLOPs they start
    // from do: its recompute is counted at the mean key length too (before 2026-12-06 it was
    // counted over all keys, GPT-3 1.3B's selective recompute adding 6.6e12 FLOPs, twice its
    // causal attention forward; review).
    const double attention_scale = s.train.flash_attention ? 1.0 : ir::attention_keys_per_query(s) / s.train.seq_len;
    for (const auto& st : w.stages)
      for (const auto& ch : st.chunks)
        for (const auto& b : ch.blocks) {
          double f = 0;
          for (const auto& step : b.recompute)
            if (const auto* op = std::get_if<ComputeOp>(&step))
              f += op->flops * (named(op->name, "moe.expert_") ? routed_scale
                                : op->cls == OpClass::Attention                ? attention_scale
                                                                               : 1.0);
          hw += f * b.count * static_cast<double>(m) * ranks_per_stage;
        }
  }
  if (s.model.mtp_layers > 0) {
    // Multi-token prediction modules run on the last stage's ranks; the model FLOPs leave them out
    // (as DeepSeek's 37B active parameters do), the hardware runs them forward and backward.
    // Their routed-expert ops are the busiest EP rank's, as the layers' are: the ranks together run
    // the balanced share (the padding to the capacity is added below with the layers'). Counted
    // whole, an imbalance of 2 had added one MoE layer's expert FLOPs per step, and padding
    // counted the module's twice (2026-12-06 review).
    const double load = s.model.moe ? s.moe_rank_load() : 1.0;
    const double expert_scale = load > 0 ? 1.0 / load : 1.0;
    const double ranks_per_stage = static_cast<double>(s.num_gpus) / p;
    // Attention as the layers' is counted (the model FLOPs' convention, the recompute's above):
    // causally, and its backward twice its forward. The IR's backward kernel (flash attention's
    // 2.5x, which recomputes the scores) had been counted: 10.914 against 10.830 GFLOP a token of
    // hardware beyond model FLOPs for DeepSeek-V3 (review of 2026-12-06).
    const double attention_scale = s.train.flash_attention ? 1.0 : ir::attention_keys_per_query(s) / s.train.seq_len;
    for (const auto& st : w.stages)
      for (const auto& ch : st.chunks)
        for (const auto& b : ch.blocks) {
          if (b.name.rfind("mtp", 0) != 0) continue;
          double f = 0;
          for (const StepList* list : {&b.forward, &b.backward_input, &b.backward_weight})
            for (const auto& step : *list)
              if (const auto* op = std::get_if<ComputeOp>(&step)) {
                if (op->cls == OpClass::Attention) {
                  if (list == &b.forward) f += 3.0 * op->flops * attention_scale;  // forward and a backward of twice it
                  continue;
                }
                f += op->flops * (named(op->name, "moe.expert_") ? expert_scale : 1.0);
              }
          hw += f * b.count * static_cast<double>(m) * ranks_per_stage;
        }
  }
  if (s.model.moe) {
    // The MoE router's gating GEMM (hidden x experts, forward and both backward GEMMs) is work the
    // model FLOPs leave out (docs/models.md) and the GPUs run: counted here, as its recompute is
    // above (it had been left out, HFU 0.33% low for Qwen3-30B-A3B; 2026-12-05 review). The MTP
    // modules' routers are in their own count above.
    const double ranks_per_stage = static_cast<double>(s.num_gpus) / p;
    for (const auto& st : w.stages)
      for (const auto& ch : st.chunks)
        for (const auto& b : ch.blocks) {
          if (b.name.rfind("mtp", 0) == 0) continue;
          double f = 0;
          for (const StepList* list : {&b.forward, &b.backward_input, &b.backward_weight})
            for (const auto& step : *list)
              if (const auto* op = std::get_if<ComputeOp>(&step); op && named(op->name, "moe.router")) f += op->flops;
          hw += f * b.count * static_cast<double>(m) * ranks_per_stage;
        }
  }
  if (s.model.moe && s.train.moe_pad_to_capacity) {
    // Tokens padded to the capacity: every EP rank runs the IR's routed-expert GEMMs (the
    // capacity's rows) forward and backward, where the model FLOPs count the routed tokens. The
    // padding rows are hardware work too (before 2026-12-04 only their recompute was counted:
    // Mixtral at capacity 2 read HFU 0.29 where the GPUs ran 0.53).
    const double load = s.moe_rank_load();
    const double ranks_per_stage = static_cast<double>(s.num_gpus) / p;
    if (load > 1)
      for (const auto& st : w.stages)
        for (const auto& ch : st.chunks)
          for (const auto& b : ch.blocks) {
            double f = 0;
            for (const StepList* list : {&b.forward, &b.backward_input, &b.backward_weight})
              for (const auto& step : *list)
                if (const auto* op = std::get_if<ComputeOp>(&step); op && named(op->name, "moe.expert_")) f += op->flops;
            hw += f * (1 - 1 / load) * b.count * static_cast<double>(m) * ranks_per_stage;
          }
  }
  e.hardware_flops = hw;
  const double peak = acc.peak(acc.has_peak(s.train.precision) ? s.train.precision : DType::BF16);
  e.mfu_fraction = e.model_flops / (step * s.num_gpus * peak);
  e.hfu_fraction = hw / (step * s.num_gpus * peak);

  // Memory of the most loaded rank.
  double worst = -1;
  for (int rr = 0; rr < p; ++rr) {
    const auto& st = w.stages[rr];
    std::vector<double> chunk_act(static_cast<size_t>(v), 0.0), chunk_rc(static_cast<size_t>(v), 0.0);
    for (size_t c = 0; c < st.chunks.size(); ++c) {
      for (const auto& b : st.chunks[c].blocks) chunk_act[c] += b.activation_bytes * b.count;
      // Per chunk: the loss head's frees its logits before its first recompute (2026-12-06 review).
      chunk_rc[c] = chunk_recompute_peak_bytes(st.chunks[c], s.train.recompute == Recompute::Full && s.train.recompute_block);
    }
    // Full recompute: one layer's whole activation set is rematerialised while its backward runs
    // (34 sbh for a GPT layer against its stored 2 sbh input, Korthikanti et al.).
    std::vector<double> chunk_w(static_cast<size_t>(v), 0.0);
    if (sched.splits_weight_gradient())
      for (size_t c = 0; c < st.chunks.size(); ++c) chunk_w[c] = weight_pass_held_bytes(st.chunks[c]);
    const double act = peak_held_bytes(sched, rr, p, v, m, chunk_act, chunk_w, chunk_rc);
    const MemoryBreakdown mb = stage_memory(w, rr, act);
    if (mb.total_bytes() > worst) {
      worst = mb.total_bytes();
      e.memory = mb;
    }
  }
  e.memory_capacity_bytes = acc.memory_bytes.value;
  e.fits = e.memory.total_bytes() <= e.memory_capacity_bytes;
  return e;
}

StepEstimate estimate_step(const Workload& w) {
  const Estimator est;
  return est.run(w);
}

namespace {
// Rank r's passes per micro-batch, each chunk's settled as run() settles them (settle_dp), for
// the tables (not on plan search's path); and what settle_dp added to each group's communication,
// the stretch of the blocking collectives on a card shared with DP traffic (it adds nothing else
// there).
// The root unit's runs (RootRuns) as run() takes them: an edged chunk's passes per micro-batch
// without its per-run collectives, and what its runs add over the step in root.
struct RankPasses {
  PassTime fwd, bwd, wgt;
  double nic_stretch_by_group[kGroupKinds] = {};
  RootStep root;
};
RankPasses settled_rank_passes(const Ctx& c, int r, bool split_weight, const RootRuns& roots) {
  RankPasses out;
  const auto& chunks = c.w.stages[static_cast<size_t>(r)].chunks;
  auto settle = [&](const std::vector<Block>& blocks, PassTime* x, double* stretch_by_group) {
    ChunkDpUnits units;
    for (const auto& b : blocks) {
      const PassTime fw = eval_steps(c, b.forward);
      PassTime rc = eval_steps(c, b.recompute), bi = eval_steps(c, b.backward_input), bw = eval_steps(c, b.backward_weight);
      units_of_backward(rc, bi, bw);
      units.add(fw, rc, bi, bw, b.count, split_weight);
      x[0].add(fw, b.count);
      x[1].add(rc, b.count);
      x[1].add(bi, b.count);
      x[2].add(bw, b.count);
    }
    units.finish();
    double before[kGroupKinds];
    for (int g = 0; g < kGroupKinds; ++g) before[g] = x[0].comm_by_group[g] + x[1].comm_by_group[g] + x[2].comm_by_group[g];
    settle_dp(c, x[0], &units.f, units.events.data());
    settle_backward_dp(c, x[1], x[2], split_weight, &units);
    if (stretch_by_group)
      for (int g = 0; g < kGroupKinds; ++g) stretch_by_group[g] += x[0].comm_by_group[g] + x[1].comm_by_group[g] + x[2].comm_by_group[g] - before[g];
  };
  for (size_t ci = 0; ci < chunks.size(); ++ci) {
    PassTime x[3];
    if (roots.edged(r, ci)) {
      settle(per_microbatch_blocks(chunks[ci]), x, out.nic_stretch_by_group);
      PassTime with[3];
      settle(chunks[ci].blocks, with, nullptr);
      out.root.add_run(with, x, static_cast<double>(roots.runs_of(r, ci)));
    } else {
      settle(chunks[ci].blocks, x, out.nic_stretch_by_group);
    }
    out.fwd.add(x[0], 1);
    out.bwd.add(x[1], 1);
    out.wgt.add(x[2], 1);
  }
  return out;
}
}  // namespace

std::vector<OpStat> op_table(const Workload& w, int pp_rank, const Estimator& est) {
  const Scenario& s = w.scenario();
  const Accelerator& acc = s.accelerator;
  const Fabric fabric = make_fabric(s);
  const int p = s.plan.pp;
  const int64_t m = w.microbatches;
  std::vector<OpStat> rows;
  // Row of (block template, pass, step index): blocks of one template on several chunks are one row.
  std::map<std::tuple<int, int, size_t>, size_t> at;
  auto compute_row = [&](OpStat& r, const ComputeOp& op) {
    const ComputeTime ct = compute_time(op, acc);
    r.name = op.name;
    r.op_class = to_string(op.cls);
    r.flops = op.flops;
    r.bytes = op.bytes;
    r.time_s = ct.time_s;
    r.bound = ct.bound();
    if (op.cls == OpClass::Gemm || op.cls == OpClass::Logits || op.cls == OpClass::Router)
      r.shape = std::to_string(op.m) + "x" + std::to_string(op.n) + "x" + std::to_string(op.k) +
                (op.batch > 1 ? "x" + std::to_string(op.batch) : "");
  };
  auto collective_row = [&](OpStat& r, const Collective& col) {
    const int calls = std::max(1, col.calls);
    r.name = col.name;
    r.op_class = to_string(col.kind);
    r.group = to_string(col.group);
    r.bytes = col.bytes / calls;
    r.time_s = est.collective_time_s(col, w, fabric) / calls;  // the same time run() charges, per call
    r.bound = "comm";
    return calls;
  };
  static const char* const kPassName[] = {"forward", "recompute", "backward_input", "backward_weight"};
  const auto& stage = w.stages[static_cast<size_t>(pp_rank)];
  // The blocking collectives that leave the scale-up domain take longer beside the DP traffic on
  // the card (settle_dp): their rows carry run()'s stretch, shared by their bandwidth parts per
  // step (before 2026-12-06 run() charged none, review). So do those hidden behind the next
  // compute step only (a CP ring's K/V sends: eval_steps times them as NicEvents too), whose
  // stretch run() charges where it outlasts their cover. Before 2026-12-07 only the blocking ones
  // were taken: Llama 3 8B at cp 16 over two H100 nodes with ZeRO-3 showed 2.135 s of cp rows
  // against the communication table's 3.659 s (review).
  std::map<size_t, std::pair<GroupKind, double>> nic_wire_of_row;  // row: its group, its bandwidth parts
  double nic_wire_of_group[kGroupKinds] = {};
  int unique = 0;
  // The root unit's collectives run once a run of in-flight micro-batches (RootRuns).
  const RootRuns roots = root_runs(w, est.schedules().get(w.schedule), nullptr);
  for (size_t ci = 0; ci < stage.chunks.size(); ++ci)
    for (const auto& b : stage.chunks[ci].blocks) {
      const int key = b.template_id >= 0 ? b.template_id : -1 - unique++;
      const std::vector<Step>* passes[] = {&b.forward.get(), &b.recompute.get(), &b.backward_input.get(), &b.backward_weight.get()};
      for (int pi = 0; pi < 4; ++pi)
        for (size_t i = 0; i < passes[pi]->size(); ++i) {
          const Step& st = (*passes[pi])[i];
          const auto k = std::make_tuple(key, pi, i);
          auto it = at.find(k);
          int64_t per = 1;
          if (it == at.end()) {
            OpStat r;
            r.block = b.name;
            r.pass = kPassName[pi];
            if (const auto* op = std::get_if<ComputeOp>(&st)) compute_row(r, *op);
            else per = collective_row(r, std::get<Collective>(st));
            it = at.emplace(k, rows.size()).first;
            rows.push_back(std::move(r));
          } else if (const auto* col = std::get_if<Collective>(&st)) {
            per = std::max(1, col->calls);
          }
          const auto* per_run = std::get_if<Collective>(&st);
          rows[it->second].count += per * b.count * (per_run && per_run->per_run && roots.runs_of(pp_rank, ci) > 0 ? roots.runs_of(pp_rank, ci) : m);
          if (const auto* col = std::get_if<Collective>(&st);
              col && (!col->overlappable || col->hides_behind_next) && col->group != GroupKind::DP && col->group != GroupKind::EDP && w.group_of(*col).domains > 1) {
            const double wire = est.collective_wire_s(*col, w, fabric) * static_cast<double>(b.count * m);
            auto& [group, row_wire] = nic_wire_of_row[it->second];
            group = col->group;
            row_wire += wire;
            nic_wire_of_group[static_cast<int>(col->group)] += wire;
          }
        }
    }
  if (p > 1) {  // activations forward and gradients backward, per chunk and micro-batch (as run())
    // The destinations pp_hop_times prices: the wrap under interleaving, else the neighbours (an
    // end rank's one neighbour both ways; the direction without one has no sends).
    const int p_ranks = static_cast<int>(w.stages.size());
    const bool wrap = w.schedule == "interleaved-1f1b";
    const int up = wrap ? (pp_rank + 1) % p_ranks : (pp_rank + 1 < p_ranks ? pp_rank + 1 : pp_rank - 1);
    const int down = wrap ? (pp_rank + p_ranks - 1) % p_ranks : (pp_rank > 0 ? pp_rank - 1 : pp_rank + 1);
    const PpTransfers sends = chunk_transfers(w, pp_rank);
    for (const auto& [to, per_mb] : {std::pair{up, sends.forward}, std::pair{down, sends.backward}}) {
      if (!(per_mb > 0)) continue;
      OpStat r;
      r.block = "pipeline";
      r.pass = "pipeline";
      collective_row(r, pp_send(w, "pp.send_recv", stage.boundary_activation_bytes, pp_rank, to));
      r.count = static_cast<int64_t>(per_mb) * m;
      // One row when both directions cost the same (both inside the domain, or both across it).
      if (!rows.empty() && rows.back().block == "pipeline" && rows.back().time_s == r.time_s) {
        rows.back().count += r.count;
        continue;
      }
      rows.push_back(std::move(r));
    }
  }
  if (!nic_wire_of_row.empty()) {
    const Ctx c{est, w, acc, fabric, known_or(acc.comm_compute_interference, 0.0)};
    const bool split_weight = est.schedules().get(w.schedule).splits_weight_gradient();
    const RankPasses rp = settled_rank_passes(c, pp_rank, split_weight, roots);
    // And the once-per-step DP traffic's stretch, as run() charges it (step_card_stretch).
    BlockTimes scratch;
    auto block_times = [&](const ir::Block& b) -> const BlockTimes& {
      scratch = BlockTimes{eval_steps(c, b.forward), eval_steps(c, b.recompute), eval_steps(c, b.backward_input), eval_steps(c, b.backward_weight)};
      units_of_backward(scratch.recompute, scratch.backward_input, scratch.backward_weight);
      return scratch;
    };
    CardStretch card_stretch;
    const bool card = step_card_stretch(c, split_weight, block_times, card_stretch);
    // That one is this rank's own (run() charges it so), on the rows of the passes it slows: the
    // first forward's on the forward rows, the last backward's on the backward ones (review of
    // 2026-12-06: every rank's had been spread over every all-to-all row of the critical rank).
    double wire_fwd[kGroupKinds] = {}, wire_bwd[kGroupKinds] = {};
    for (const auto& [row, group_wire] : nic_wire_of_row)
      (rows[row].pass == kPassName[0] ? wire_fwd : wire_bwd)[static_cast<int>(group_wire.first)] += group_wire.second;
    for (const auto& [row, group_wire] : nic_wire_of_row) {
      OpStat& r = rows[row];
      const int g = static_cast<int>(group_wire.first);
      const double wire = group_wire.second;
      const double per_mb = static_cast<double>(m) * rp.nic_stretch_by_group[g];
      double stretch = nic_wire_of_group[g] > 0 ? per_mb * wire / nic_wire_of_group[g] : 0.0;
      if (card) {
        const bool forward = r.pass == kPassName[0];
        const size_t at = static_cast<size_t>(pp_rank) * kGroupKinds + static_cast<size_t>(g);
        for (const bool dir_forward : {true, false}) {
          const double once = (dir_forward ? card_stretch.fwd_by_group : card_stretch.bwd_by_group)[at];
          const double dir_wire = (dir_forward ? wire_fwd : wire_bwd)[g];
          // A pass without such rows (not expected): over the group's rows.
          if (once > 0 && dir_wire > 0 && forward == dir_forward) stretch += once * wire / dir_wire;
          else if (once > 0 && !(dir_wire > 0) && nic_wire_of_group[g] > 0) stretch += once * wire / nic_wire_of_group[g];
        }
      }
      if (stretch > 0 && r.count > 0) r.time_s += stretch / static_cast<double>(r.count);
    }
  }
  const auto& sw = w.step_per_stage[static_cast<size_t>(pp_rank)];
  for (const auto* list : {&sw.grad_sync, &sw.param_gather})
    for (const auto& col : *list) {
      OpStat r;
      r.block = "step";
      r.pass = "step";
      r.count = collective_row(r, as_issued(col, sw, w.stages[static_cast<size_t>(pp_rank)], w.scenario().plan, list == &sw.grad_sync));
      rows.push_back(std::move(r));
    }
  for (const auto& op : sw.optimizer) {
    OpStat r;
    r.block = "step";
    r.pass = "step";
    compute_row(r, op);
    r.count = 1;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const OpStat& a, const OpStat& b) { return a.time_s * a.count > b.time_s * b.count; });
  return rows;
}

// The breakdown is of the rank that ends the step. When another rank is the bottleneck (a
// heavier stage: MoE layers beside dense ones, exposed all-to-all), the critical rank's
// "pipeline_bubble" is mostly waiting on it: which rank, and what it spends its time on.
std::string bottleneck_note(const StepEstimate& e) {
  if (e.stages.empty()) return {};
  const StageStat* busiest = &e.stages.front();
  const StageStat* crit = nullptr;
  for (const auto& x : e.stages) {
    if (x.busy_s > busiest->busy_s) busiest = &x;
    if (x.stage == e.critical_stage) crit = &x;
  }
  if (!crit || busiest->stage == crit->stage || !(busiest->busy_s > 1.05 * crit->busy_s)) return {};
  std::string why = "pipeline stage " + std::to_string(busiest->stage) + " is the bottleneck: busy " +
                    format_double(std::round(busiest->busy_s * 1e3) / 1e3) + " s of the " +
                    format_double(std::round(e.step_time_s * 1e3) / 1e3) + " s step (" +
                    format_double(std::round(busiest->compute_s * 1e3) / 1e3) + " s compute, " +
                    format_double(std::round(busiest->exposed_comm_s * 1e3) / 1e3) + " s exposed communication";
  if (!busiest->top_exposed_group.empty()) why += ", the largest part " + busiest->top_exposed_group;
  why += ") against " + format_double(std::round(crit->busy_s * 1e3) / 1e3) + " s on stage " + std::to_string(crit->stage) +
         ", the rank that ends the step and whose breakdown is shown: about " +
         format_double(std::round((busiest->busy_s - crit->busy_s) * 1e3) / 1e3) + " s of its " +
         format_double(std::round(e.bubble_s * 1e3) / 1e3) + " s pipeline_bubble is waiting on stage " +
         std::to_string(busiest->stage) + " (table stages)";
  return why;
}

// A sequence beyond a rotary model's stated context (learned positions refuse it: scenario.cpp)
// is a context-extension run; costed as given, and said (it passed without a word; review of
// 2026-12-05). One text for estimate, plan and sweep (the latter two had dropped it).
std::string context_extension_note(const Scenario& s) {
  if (s.model.learned_position || s.model.max_seq_len <= 0 || s.train.seq_len <= s.model.max_seq_len) return {};
  return "training.seq_len " + std::to_string(s.train.seq_len) + " is beyond model " + s.model.id + "'s context of " +
         std::to_string(s.model.max_seq_len) + " tokens (max_seq_len): costed as a context-extension run (rotary "
         "positions scaled), with attention over the whole sequence";
}

namespace {
// Every time of a result is finite, as the step's is (Estimator::run refuses a rank whose end is
// not): before 2026-12-06 estimate printed an exposed dp of inf beside a finite step time of
// 1.6e302 s, and JSON wrote null (review). The error names the term and the inputs that rate it.
void check_times_finite(const StepEstimate& e, const Scenario& s) {
  auto inputs_of_group = [&](const std::string& group) {
    std::string nets = "scale-up network " + s.system.scale_up_network;
    if (!s.system.scale_out_network.empty())
      nets += ", scale-out network " + s.system.scale_out_network + " and nic_bandwidth_gbit_per_s";
    return "the " + group + " group's collectives run over system " + s.system.id + "'s " + nets +
           ": a bandwidth or achievable_fraction there is far outside real hardware (near 0)";
  };
  const std::string compute_inputs = "accelerator " + s.accelerator.id +
                                     "'s peak_flops or memory_bandwidth is far outside real hardware (near 0)";
  auto check = [&](double t, const std::string& term, const std::string& hint) {
    if (std::isfinite(t)) return;
    throw Error(SourceLocation{s.file, 0, 0, ""},
                term + " is not finite (" + format_double(t) + ") beside a step time of " + format_double(e.step_time_s) + " s",
                hint);
  };
  check(e.step_time_s, "the step time", "a rate of the accelerator, network or system is far outside real hardware (a bandwidth or peak near 0)");
  for (const auto& [k, v] : e.compute_by_class_s) check(v, "the breakdown's compute " + k + " time", compute_inputs);
  for (const auto& [k, v] : e.exposed_by_group_s) check(v, "the breakdown's exposed_comm " + k + " time", inputs_of_group(k));
  for (const auto& [k, v] : e.comm_by_group_s) check(v, "the communication table's " + k + " total time", inputs_of_group(k));
  check(e.compute_s, "the critical rank's compute time", compute_inputs);
  const std::string any = "a rate of the accelerator, network or system is far outside real hardware (a bandwidth or peak near 0)";
  check(e.exposed_comm_s, "the critical rank's exposed communication time", any);
  check(e.total_comm_s, "the critical rank's communication time", any);
  check(e.bubble_s, "the breakdown's pipeline bubble", any);
  check(e.optimizer_s, "the breakdown's optimizer time", compute_inputs);
  for (const auto& x : e.stages)
    for (const double t : {x.forward_s, x.backward_s, x.busy_s, x.compute_s, x.exposed_comm_s})
      check(t, "pipeline rank " + std::to_string(x.stage) + "'s time in the stages table", any);
  for (const auto& o : e.ops) {
    const std::string hint = o.group.empty() ? compute_inputs : inputs_of_group(o.group);
    check(o.time_s, "op " + o.name + "'s time", hint);
    check(o.time_s * static_cast<double>(o.count), "op " + o.name + "'s time per step", hint);
  }
}
}  // namespace

Result to_result(const StepEstimate& e, const Scenario& s) {
  check_times_finite(e, s);
  Result r;
  r.command = "estimate";
  r.set("scenario", s.name);
  r.set("model", s.model.id);
  r.set("system", s.system.id);
  r.set("accelerator", s.accelerator.id);
  r.set("num_gpus", int64_t{s.num_gpus});
  // plan's notation (the two texts of one plan had differed, and TP overlap was not named: two
  // plans 15% apart printed the same text, 2026-12-03 review).
  r.set("plan", plan_text(s));
  r.set("step_time_s", e.step_time_s);
  r.set("tokens_per_s_per_gpu", e.tokens_per_s_per_gpu);
  r.set("model_flops_per_step", e.model_flops);
  r.set("hardware_flops_per_step", e.hardware_flops);
  r.set("mfu_fraction", e.mfu_fraction);
  r.set("hfu_fraction", e.hfu_fraction);
  r.set("memory_per_gpu_bytes", e.memory.total_bytes());
  r.set("memory_capacity_bytes", e.memory_capacity_bytes);
  r.set("memory_headroom_bytes", e.memory_capacity_bytes - e.memory.total_bytes());
  r.set("fits", e.fits);
  r.set("microbatches_count", int64_t{s.num_microbatches()});
  r.set("critical_stage", int64_t{e.critical_stage});

  Table& b = r.add_table("breakdown", "time per step on the critical pipeline rank");
  b.add_str("category");
  b.add_str("item");
  b.add_f64("time_s");
  b.add_f64("share_fraction");
  auto row = [&](const std::string& cat, const std::string& item, double t) {
    b.add_row({cat, item, t, e.step_time_s > 0 ? t / e.step_time_s : 0.0});
  };
  for (const auto& [k, v] : e.compute_by_class_s) row("compute", k, v);
  for (const auto& [k, v] : e.exposed_by_group_s) row("exposed_comm", k, v);
  row("pipeline_bubble", "bubble", e.bubble_s);
  row("optimizer", "optimizer", e.optimizer_s);

  Table& cm = r.add_table("communication", "communication per group: total time and the part not hidden by overlap");
  cm.add_str("group");
  cm.add_f64("total_s");
  cm.add_f64("exposed_s");
  for (const auto& [k, v] : e.comm_by_group_s) {
    double ex = 0;
    for (const auto& [k2, v2] : e.exposed_by_group_s)
      if (k2 == k) ex = v2;
    cm.add_row({k, v, ex});
  }

  Table& mem = r.add_table("memory", "memory per GPU of the most loaded rank");
  mem.add_str("item");
  mem.add_f64("bytes");
  mem.add_f64("gib");
  auto mrow = [&](const std::string& n, double v) { mem.add_row({n, v, v / (1024.0 * 1024 * 1024)}); };
  mrow("weights", e.memory.weights_bytes);
  mrow("gradients", e.memory.gradients_bytes);
  mrow("optimizer_states", e.memory.optimizer_bytes);
  mrow("activations", e.memory.activations_bytes);
  mrow("comm_buffers", e.memory.comm_buffers_bytes);
  mrow("reserve", e.memory.reserve_bytes);
  mrow("total", e.memory.total_bytes());
  mrow("capacity", e.memory_capacity_bytes);
  if (!e.stages.empty()) {
    Table& st = r.add_table("stages", "per pipeline rank: transformer layers, time per micro-batch (exposed communication "
                                      "included), busy time per step against the step, and memory; the breakdown above is of "
                                      "critical_stage, the rank that ends the step");
    st.add_i64("stage");
    st.add_i64("layers_count");
    st.add_f64("forward_s");
    st.add_f64("backward_s");
    st.add_f64("busy_s");
    st.add_f64("compute_s");
    st.add_f64("exposed_comm_s");
    st.add_str("top_exposed_group");
    st.add_f64("idle_fraction");
    st.add_f64("memory_bytes");
    for (const auto& x : e.stages)
      st.add_row({int64_t{x.stage}, x.layers, x.forward_s, x.backward_s, x.busy_s, x.compute_s, x.exposed_comm_s,
                  x.top_exposed_group.empty() ? std::string("none") : x.top_exposed_group,
                  e.step_time_s > 0 ? std::max(0.0, 1.0 - x.busy_s / e.step_time_s) : 0.0, x.memory_bytes});
    if (const std::string why = bottleneck_note(e); !why.empty()) r.notes.push_back(why);
  }
  if (!e.ops.empty()) {
    const Accelerator& acc = s.accelerator;
    r.set("peak_flops_per_s", acc.peak(acc.has_peak(s.train.precision) ? s.train.precision : DType::BF16));
    r.set("peak_memory_bytes_per_s", acc.memory_bandwidth_bytes_per_s.value);
    Table& ops = r.add_table("ops", "op templates of the critical pipeline rank (stage " + std::to_string(e.critical_stage) +
                                        "): one execution's FLOPs, bytes and time, executions per step, and the time per step "
                                        "(overlapped communication at its full time)");
    ops.add_str("block");
    ops.add_str("pass");
    ops.add_str("op");
    ops.add_str("op_class");
    ops.add_str("group");
    ops.add_str("shape");
    ops.add_f64("flops");
    ops.add_f64("bytes");
    ops.add_f64("flops_per_byte");
    ops.add_f64("time_s");
    ops.add_f64("flops_per_s");
    ops.add_i64("count");
    ops.add_f64("step_time_s");
    ops.add_f64("share_fraction");
    ops.add_str("bound");
    for (const auto& o : e.ops) {
      const double per_step = o.time_s * static_cast<double>(o.count);
      ops.add_row({o.block, o.pass, o.name, o.op_class, o.group, o.shape, o.flops, o.bytes, o.bytes > 0 ? o.flops / o.bytes : 0.0,
                   o.time_s, o.time_s > 0 ? o.flops / o.time_s : 0.0, o.count, per_step,
                   e.step_time_s > 0 ? per_step / e.step_time_s : 0.0, o.bound});
    }
  }
  // Communication hidden behind compute costs that compute nothing unless the catalog gives the
  // part's comm_compute_interference: said where it matters (a 2,048-GPU plan hid 6.98 s of TP
  // traffic for free and read 54% MFU without a word; 2026-12-05 review).
  {
    const double hidden = e.total_comm_s - e.exposed_comm_s;
    if (!s.accelerator.comm_compute_interference.known && e.step_time_s > 0 && hidden > 0.05 * e.step_time_s)
      r.notes.push_back("overlapped communication is free here: " + format_double(std::round(hidden * 1000) / 1000) + " s of the critical rank's " +
                        "communication runs hidden behind compute without slowing it, as " + s.accelerator.id +
                        " has no comm_compute_interference in the catalog (NCCL kernels do take SMs and memory bandwidth from the "
                        "GEMMs beside them); the fits to published runs absorb it on average, but a plan that hides more than they did "
                        "reads faster than it runs: give the accelerator a comm_compute_interference to cost it");
  }
  if (!s.model.ignored_keys.empty()) {
    // Said where the result is read, not only by `catalog show` (a mistyped num_kv_heads made a GQA
    // model multi-head without a word).
    if (const std::string note = ignored_keys_note(s.model); !note.empty()) r.notes.push_back(note);
  }
  if (const std::string note = context_extension_note(s); !note.empty()) r.notes.push_back(note);
  if (!e.fits)
    r.notes.push_back("does not fit: needs " + format_double(std::round(e.memory.total_bytes() / (1024.0 * 1024 * 1024) * 100) / 100) + " GiB per GPU of " +
                      format_double(std::round(e.memory_capacity_bytes / (1024.0 * 1024 * 1024) * 100) / 100) + " GiB");
  // Settings that this scenario states but that do nothing in it (strict inputs would refuse
  // them, but a file is often reused with one key changed by --set): said, not silently ignored.
  {
    std::vector<std::string> idle;
    const auto& pl = s.plan;
    if (!s.model.moe) {
      if (pl.moe_dispatcher != "alltoall") idle.push_back("parallel.moe_dispatcher (" + pl.moe_dispatcher + ")");
      // Values other than the ones they take anyway (etp = tp; the schedule's EP overlap): a file
      // stating the defaults had them named (review of 2026-12-05).
      if (pl.etp_stated && pl.etp != pl.tp) idle.push_back("parallel.etp (" + std::to_string(pl.etp) + ")");
      if (pl.ep_comm_overlap_stated && pl.ep_comm_overlap != (pl.schedule == "dualpipev")) idle.push_back("parallel.overlap.ep_comm");
    }
    if (s.train.fp8_recipe != "delayed" && s.train.precision != DType::FP8)
      idle.push_back("training.fp8_recipe (" + s.train.fp8_recipe + ", with precision " + to_string(s.train.precision) +
                     (s.train.precision == DType::FP4 ? ": NVFP4 is its own recipe, a per-tensor amax and E4M3 scales per 16 elements)" : ")"));
    if (s.train.moe_fp8_dispatch && s.train.precision != DType::FP8 && s.train.precision != DType::FP4)
      idle.push_back("training.moe_fp8_dispatch (with precision " + to_string(s.train.precision) + ": the experts' GEMMs take 16-bit tokens)");
    else if (s.train.moe_fp8_dispatch && pl.ep <= 1)
      idle.push_back("training.moe_fp8_dispatch (without expert parallelism there is no all-to-all)");
    // A capacity at or above the busiest rank's imbalance drops nothing in this model (the load
    // is min(imbalance, capacity)): it had run as dropless without a word (2026-12-04 review).
    if (s.model.moe && s.train.moe_capacity_factor_stated && s.train.moe_capacity_factor > 0 && !s.train.moe_pad_to_capacity &&
        s.train.moe_load_imbalance <= s.train.moe_capacity_factor)
      idle.push_back("training.moe_capacity_factor (" + format_double(s.train.moe_capacity_factor) + ", with moe_load_imbalance " +
                     format_double(s.train.moe_load_imbalance) + ": no rank's load reaches the capacity, so no token is dropped; "
                     "moe_pad_to_capacity: true runs every expert at it)");
    if (pl.zero2_grad_sync != "micro_batch" && pl.zero_stage != 2)
      idle.push_back("parallel.zero2_grad_sync (" + pl.zero2_grad_sync + ", with zero_stage " + std::to_string(pl.zero_stage) + ")");
    if (pl.zero3_keys_changed && pl.zero_stage < 3)
      idle.push_back("parallel." + pl.zero3_changed_keys + " (with zero_stage " + std::to_string(pl.zero_stage) + ")");
    if (s.model.moe && pl.ep <= 1) {
      if (pl.moe_dispatcher != "alltoall") idle.push_back("parallel.moe_dispatcher (" + pl.moe_dispatcher + ", with ep 1: no all-to-all)");
      if (pl.ep_comm_overlap_stated && pl.ep_comm_overlap) idle.push_back("parallel.overlap.ep_comm (with ep 1: no all-to-all)");
    }
    // EP overlap pairs one micro-batch's all-to-all with another's compute: with one micro-batch
    // per step the lowering leaves it blocking (it had hidden whole without a word; 2026-12-06
    // review).
    if (s.model.moe && pl.ep > 1 && pl.ep_comm_overlap_stated && pl.ep_comm_overlap && s.num_microbatches() < 2)
      idle.push_back("parallel.overlap.ep_comm (with one micro-batch per step: no other micro-batch's compute to hide the expert "
                     "all-to-all behind, so it blocks)");
    if (pl.pp == 1 && pl.stage_rule != "even") idle.push_back("parallel.stage_rule (" + pl.stage_rule + ", without pipeline parallelism)");
    if (pl.sequence_parallel && pl.tp == 1) idle.push_back("parallel.sequence_parallel (with tp 1: no tensor-parallel group to split the sequence over)");
    if (pl.tp_comm_overlap && pl.tp == 1) idle.push_back("parallel.overlap.tp_comm (with tp 1: no tensor-parallel communication to overlap)");
    if (pl.tp_backward_overlap_changed && pl.tp == 1)
      idle.push_back(std::string("parallel.overlap.tp_backward (") + (pl.tp_backward_overlap ? "true" : "false") +
                     ", with tp 1: no tensor-parallel communication in the backward)");
    else if (!pl.tp_backward_overlap && (pl.tp_backward_overlap_stated || pl.tp_backward_overlap_changed) && pl.tp_comm_overlap && pl.tp > 1)
      idle.push_back("parallel.overlap.tp_backward (false, with overlap.tp_comm: TE's userbuffers overlap the backward's "
                     "re-gather and reduction with the GEMMs beside them whatever it says)");
    // ZeRO-0 gathers no parameters: turning the gather's overlap off changes nothing (2026-12-05
    // review: the plan text said no-gather-overlap without a word).
    if (!pl.overlap_param_gather && pl.zero_stage == 0) idle.push_back("parallel.overlap.param_gather (false, with zero_stage 0: no parameter gather)");
    if (!pl.idle_pipeline.empty())
      idle.push_back(std::string("parallel.schedule / vpp") + (pl.idle_pipeline.find("stage_layers") != std::string::npos ? " / stage_layers" : "") + " (" +
                     pl.idle_pipeline + ", without pipeline parallelism)");
    for (auto& x : fabric_settings_without_effect(s)) idle.push_back(std::move(x));
    for (const auto& h : s.unused_inline_hardware)
      idle.push_back("hardware: " + h + (h.rfind("network", 0) == 0 ? " (nothing refers to it: name it in an inline system's scale_up or scale_out)"
                                                                     : " (nothing refers to it: name it with accelerator:, or from an inline system)"));
    // Review of 2026-12-04: four more settings that changed nothing without a word.
    // The gradients reduce over dp x cp ranks, an MoE model's experts over its expert-data-parallel
    // group (tp cp dp / (ep etp)): no data parallelism only when both are 1 (the notes had said
    // "a data-parallel group of 1" at dp 1 with cp 4, where ZeRO changed the step by 2x; review
    // of 2026-12-05).
    const int64_t etp_of = pl.etp > 0 ? pl.etp : pl.tp;
    const int64_t edp_size = s.model.moe ? static_cast<int64_t>(pl.tp) * pl.cp * pl.dp / std::max<int64_t>(1, pl.ep * etp_of) : 1;
    const bool no_dp = static_cast<int64_t>(pl.dp) * pl.cp == 1 && edp_size <= 1;
    if (pl.zero_stage_stated && pl.zero_stage > 0 && no_dp)
      idle.push_back("parallel.zero_stage (" + std::to_string(pl.zero_stage) + ", with a data-parallel group of 1: nothing to shard)");
    if (no_dp && pl.overlap_grad_reduce_stated)
      idle.push_back(std::string("parallel.overlap.grad_reduce (") + (pl.overlap_grad_reduce ? "true" : "false") +
                     ", with a data-parallel group of 1: no gradient reduction)");
    // (training.grad_reduce_dtype at dp 1 is not idle: it is the gradient buffer's dtype, which the
    // memory counts; it had been named idle there, 2026-12-06 review.)
    // (zero3_regather_for_recompute without recompute is not idle: a stack that re-gathers releases
    // the embedding and the head after each use, which the memory counts; review of 2026-12-05.)
    if (pl.grad_bucket_stated && pl.zero_stage == 3)
      idle.push_back("parallel.grad_bucket_mb (with zero_stage 3: gradients are reduce-scattered layer by layer, not in buckets)");
    if (s.train.recompute == Recompute::Selective) {
      const uint32_t none_here = s.train.recompute_modules & ~applicable_recompute_modules(s.model);
      if (none_here != 0)
        idle.push_back("training.recompute_modules (" + recompute_modules_text(none_here) + ": the model's layers have no such part)");
    }
    if (s.train.recompute == Recompute::Full && s.train.recompute_block && s.train.recompute_num_layers == 0)
      idle.push_back("training.recompute: full (with recompute_method block and recompute_num_layers 0: no layer is recomputed, as recompute: none)");
    if (s.train.recompute == Recompute::Full && !s.train.recompute_block && s.train.recompute_num_layers > 1) {
      int chunk_max = 0;
      for (int x : s.stage_layout()) chunk_max = std::max(chunk_max, x);
      if (s.train.recompute_num_layers > chunk_max)
        idle.push_back("training.recompute_num_layers beyond " + std::to_string(chunk_max) + " (" + std::to_string(s.train.recompute_num_layers) +
                       ", with recompute_method uniform: a group never spans model chunks, so the groups are the chunks' " +
                       std::to_string(chunk_max) + " layers)");
    }
    if (s.train.recompute == Recompute::Full && s.train.recompute_block) {
      int chunk_max = 0;
      for (int x : s.stage_layout()) chunk_max = std::max(chunk_max, x);
      if (s.train.recompute_num_layers > chunk_max)
        idle.push_back("training.recompute_num_layers beyond " + std::to_string(chunk_max) + " (" +
                       std::to_string(s.train.recompute_num_layers) + ", with recompute_method block: a model chunk has at most " +
                       std::to_string(chunk_max) + " layers, every one recomputed)");
    }
    if (!idle.empty()) {
      std::string list;
      for (const auto& x : idle) list += (list.empty() ? "" : ", ") + x;
      r.notes.push_back("stated but without effect in this scenario: " + list);
    }
  }
  // Unknown network fields the collectives take a value for (review of 2026-12-06: used silently).
  if (const auto assumed = fabric_defaults_assumed(s); !assumed.empty()) {
    std::string list;
    for (const auto& x : assumed) list += (list.empty() ? "" : "; ") + x;
    r.notes.push_back("assumed where the catalog gives no value (docs/catalog.md): " + list);
  }
  // The lowering caps an EP-rank imbalance at ep (ir/lower.cpp): say so when it applied.
  if (s.model.moe && !s.train.moe_pad_to_capacity && s.train.moe_load_factor() > s.moe_rank_load())
    r.notes.push_back("moe_load_imbalance " + format_double(s.train.moe_load_factor()) + " is above what routing can produce at ep " +
                      std::to_string(std::max(1, s.plan.ep)) + ": a rank holding " + format_double(static_cast<double>(s.model.moe->num_experts) / std::max(1, s.plan.ep)) +
                      " of " + std::to_string(s.model.moe->num_experts) + " experts receives at most min(topk, its experts) of a token's " +
                      std::to_string(s.model.moe->topk) + " copies, so the load used is " + format_double(s.moe_rank_load()));
  return r;
}

std::vector<StageStat> stage_table(const Workload& w, const Estimator& est) {
  const Scenario& s = w.scenario();
  const Accelerator& acc = s.accelerator;
  const Ctx c{est, w, acc, make_fabric(s), known_or(acc.comm_compute_interference, 0.0)};
  const int p = s.plan.pp, v = s.plan.vpp;
  const int64_t m = w.microbatches;
  const auto& sched = est.schedules().get(w.schedule);
  const bool split_weight = sched.splits_weight_gradient();
  const double fill_drain_s = interleaved_fill_drain_s(est, w, c.fabric);
  const RootRuns roots = root_runs(w, sched, nullptr);
  std::vector<StageStat> rows;
  for (int r = 0; r < p; ++r) {
    StageStat st;
    st.stage = r;
    RankPasses rp = settled_rank_passes(c, r, split_weight, roots);
    PassTime &fwd = rp.fwd, &bwd = rp.bwd, &wgt = rp.wgt;
    std::vector<double> chunk_act(static_cast<size_t>(v), 0.0), chunk_rc(static_cast<size_t>(v), 0.0);
    const auto& stage = w.stages[static_cast<size_t>(r)];
    for (size_t ci = 0; ci < stage.chunks.size(); ++ci) {
      for (const auto& b : stage.chunks[ci].blocks) {
        if (b.name.size() > 6 && b.name.compare(b.name.size() - 6, 6, "_layer") == 0) st.layers += b.count;
        chunk_act[ci] += b.activation_bytes * b.count;
      }
      chunk_rc[ci] = chunk_recompute_peak_bytes(stage.chunks[ci], w.scenario().train.recompute == Recompute::Full && w.scenario().train.recompute_block);
    }
    // The pipeline transfers as run() charges them (before 2026-12-06 interleaved ranks were
    // skipped here: their link excess and their fill and drain were in the breakdown, not in the
    // rows; review).
    charge_pp_transfers(est, w, c.fabric, r, fwd, bwd, wgt);
    st.forward_s = fwd.total();
    st.backward_s = bwd.total() + wgt.total();  // as run() gives the schedule
    const double mf = static_cast<double>(m);
    // Interleaving's fill and drain is once per step, not per micro-batch, and on every rank's
    // path: run() adds it to the pipeline and to every rank's exposed time (0 for the others).
    // The root unit's runs on edged chunks are once a run, not per micro-batch (RootRuns), as in run().
    st.busy_s = mf * (st.forward_s + st.backward_s) + fill_drain_s + rp.root.total_s;
    st.compute_s = mf * (fwd.compute_s + bwd.compute_s + wgt.compute_s) + rp.root.compute_s;
    st.exposed_comm_s = mf * (fwd.exposed_comm() + bwd.exposed_comm() + wgt.exposed_comm()) + fill_drain_s + rp.root.exposed_s();
    // The group with the most exposed time: each pass's exposed overlappable time is split over
    // the groups as they show it (exposed_by_group), per step.
    double top = 0;
    for (int g = 0; g < kGroupKinds; ++g) {
      const double x = mf * (fwd.exposed_by_group[g] + bwd.exposed_by_group[g] + wgt.exposed_by_group[g]) +
                       (g == static_cast<int>(GroupKind::PP) ? fill_drain_s : 0.0) + rp.root.parts.exposed_by_group[g];
      if (x > top * (1 + 1e-12) && x > 0) {
        top = x;
        st.top_exposed_group = to_string(static_cast<GroupKind>(g));
      }
    }
    std::vector<double> chunk_w(static_cast<size_t>(v), 0.0);
    if (sched.splits_weight_gradient())
      for (size_t ci = 0; ci < stage.chunks.size(); ++ci) chunk_w[ci] = weight_pass_held_bytes(stage.chunks[ci]);
    st.memory_bytes = stage_memory(w, r, peak_held_bytes(sched, r, p, v, m, chunk_act, chunk_w, chunk_rc)).total_bytes();
    rows.push_back(st);
  }
  return rows;
}

Result estimate(const Scenario& s) {
  const Workload w = lower(s);
  const Estimator est;
  StepEstimate e = est.run(w);
  e.ops = op_table(w, e.critical_stage, est);
  if (s.plan.pp > 1) e.stages = stage_table(w, est);
  return to_result(e, s);
}

}  // namespace sextant
