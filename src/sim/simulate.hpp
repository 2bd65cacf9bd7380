#pragma once
// Event-level simulation of one training step over the workload IR (docs/simulate.md).
//
// `simulate` executes the SAME IR as `estimate` (ir::lower), with the same per-op compute
// times (compute_time_s) and the same collective algorithms (CollectiveRegistry), but as
// events on per-rank streams: a compute stream and one communication stream per group, the
// pipeline schedule's per-rank order (ir::PipelineSchedule::order), point-to-point transfers
// between pipeline stages, rendezvous of group members at every collective, DP gradient
// buckets overlapping the last backward pass, ZeRO parameter gathers prefetched ahead of the
// forward, and a network of links shared by concurrent collectives (max-min fair): per GPU its
// NVLink port and NIC share, plus, on an oversubscribed leaf/spine fabric, its leaf's uplinks,
// used only by collectives whose group spans leaves. In the default mode each unit's uplink link
// has the capacity its ranks own (NIC share / oversubscription), which is exact when the ranks of
// a leaf behave alike (as within a class); with all_ranks the ranks of one leaf and rail share
// one uplink link, so concurrent inter-leaf collectives of neighbours slow each other.
//
// Scale: by default one simulated unit stands for a class of equivalent ranks (same pipeline
// stage and, when stragglers are given, same data-parallel replica kind); `all_ranks`
// simulates every rank. Deterministic: same inputs and seed, same result.
//
// Typical use (plan re-ranking, goodput's slow-rank cost):
//   sim::SimOptions o;                 // defaults: classes, shared network
//   o.stragglers = {{17, 1.3}};        // rank 17 computes 30% slower
//   const sim::SimResult r = sim::simulate(scenario, o);
//   r.step_time_s ...; Result out = sim::to_result(r, scenario);
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "estimate/estimate.hpp"
#include "scenario/scenario.hpp"

namespace sextant::sim {

struct SimOptions {
  bool all_ranks = false;      // simulate every rank instead of one unit per equivalence class
  bool contention = true;      // concurrent collectives share links (max-min fair); false: each runs at its idle speed
  bool interference = true;    // compute overlapped with communication slows by the accelerator's comm_compute_interference
  std::vector<std::pair<int64_t, double>> stragglers;  // (global rank, compute slow-down factor >= 0.01)
  double jitter_sigma = 0;     // > 0: every rank's compute is scaled by lognormal(0, sigma) (implies all ranks)
  uint64_t seed = 0;           // seed of the jitter draws (RandomStream(seed, rank))
  // Timeline: record per-op spans for these units. Empty + record_timeline: a default
  // selection (every class, or the first pipeline replica with all_ranks).
  bool record_timeline = false;
  std::vector<int64_t> timeline_ranks;  // global ranks whose unit is recorded
  // > 0: SimResult::timeline gets at most this many rows (the same units as the timeline; spans
  // are recorded for it even without record_timeline). 0: no table.
  int64_t timeline_rows = 0;
};

// One bar of the bounded timeline table: a recorded span, or consecutive spans of one unit's
// stream of the same category and pass merged because they were closer than the merge gap.
struct TimelineRow {
  int unit = 0;
  int64_t rank = 0;       // representative rank of the unit
  std::string stream;     // compute, tp, cp, ep, etp, dp, edp, pp collectives, pp send
  std::string name;       // op name; merged bars: the name they share, else "<pass> mb A-B"
  std::string category;   // compute, optimizer, or the collective's group
  std::string pass;       // forward, backward, weight, step (before the first schedule item)
  int64_t microbatch = -1;  // of the first span
  double start_s = 0, end_s = 0;
  double busy_s = 0;      // sum of the spans' durations (end_s - start_s when not merged)
  int64_t spans_count = 1;
};

struct ClassStats {  // one simulated unit (a rank, or a class of equivalent ranks)
  int unit = 0;
  int stage = 0;                // pipeline rank
  int64_t representative_rank = 0;
  int64_t ranks_count = 1;      // ranks this unit stands for
  double slowdown_factor = 1;
  double end_s = 0;             // when the unit finished its step
  double compute_s = 0, exposed_comm_s = 0, pipeline_wait_s = 0, optimizer_s = 0;
  double peak_memory_bytes = 0, peak_memory_time_s = 0;
  double activation_peak_bytes = 0;
};

struct PathItem {  // critical path, aggregated by (category, item)
  std::string category;  // compute | comm | pipeline_transfer | wait
  std::string item;
  double time_s = 0;
  int64_t count = 0;
};

// The simulated communication of the critical unit per row of the per-op table (estimate's
// op_table: block, pass, name, group): what the engine measured for those collectives, or for the
// unit's pipeline sends, as the communication table counts it (from the rendezvous of all
// members, or the send's start, to the end), and their calls.
struct CommOpStat {
  std::string block, pass, name, group, kind;
  double bytes = 0;  // of one call
  double time_s = 0;
  int64_t calls = 0;
};

struct SimResult {
  StepEstimate step;  // same fields and meaning as estimate's, from the simulated critical unit
  std::vector<CommOpStat> comm_ops;  // the critical unit's (its stage's per-op table's communication rows)
  std::vector<ClassStats> units;
  int critical_unit = 0;  // index in units of the unit that ends the step (step fields are its)
  std::vector<PathItem> critical_path;
  double peak_memory_time_s = 0;
  int64_t events_count = 0;
  int64_t units_count = 0;
  bool all_ranks = false;
  // The run's settings, recorded in its result so that a saved result says how it was made (none
  // of them was, before 2026-12-03): contention, interference, jitter and its seed, stragglers.
  bool contention = true, interference = true;
  // The slow-down applied to compute overlapped with communication: the accelerator's
  // comm_compute_interference when interference is on (0 when the catalog gives none, so
  // --no-interference then changes nothing, which the result says).
  double interference_fraction = 0;
  double jitter_sigma = 0;
  uint64_t seed = 0;
  std::string stragglers;  // "RANK=FACTOR,..." as given, "" when none
  std::string timeline_json;  // Chrome trace-event JSON when record_timeline (else empty)
  // Bounded timeline table (SimOptions::timeline_rows > 0), sorted by unit, stream, start.
  std::vector<TimelineRow> timeline;
  int64_t timeline_spans_count = 0;    // spans recorded
  int64_t timeline_rows_limit = 0;     // the limit asked for
  double timeline_merge_gap_s = std::nan("");  // the largest gap merged (NaN: none merged)
  int64_t timeline_dropped_count = 0;  // spans in no row (still over the limit after merging)
};

// Lowers s, simulates one step, fills SimResult. Throws Error for an invalid schedule (a
// deadlock names ranks and ops), an unknown straggler rank, or a bad factor.
SimResult simulate(const Scenario& s, const SimOptions& o = {});
// Same on an already lowered workload (w.scenario() must be alive).
SimResult simulate(const ir::Workload& w, const SimOptions& o = {});

// The estimate schema (same scalars, tables breakdown/communication/memory/ops, the per-op table of
// the critical unit's stage: compute at the unit's slow-down factor, communication as simulated,
// SimResult::comm_ops) with command "simulate", plus tables rank_classes and critical_path and scalar peak_memory_time_s; with a
// timeline table (SimOptions::timeline_rows), table "timeline" and scalars timeline_spans_count,
// timeline_rows_limit_count, timeline_merge_gap_s, timeline_dropped_count.
Result to_result(const SimResult& r, const Scenario& s);

}  // namespace sextant::sim
