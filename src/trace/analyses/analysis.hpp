#pragma once
// The analyses of `sextant analyze`. Each analysis lives in its own file behind this interface and
// is looked up by name in the registry built by analysis_registry() (no static registration).
//
// Contract of an analysis: run(ctx, result) appends its tables (and scalars/notes) to result,
// reads only ctx, never throws on odd data (it records a diagnostic row instead), and is
// deterministic (fixed iteration and reduction order). In HTA compatibility mode the table and
// column names are HTA's CSV names; otherwise they follow Sextant's naming with units.
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "trace/analyses/frame.hpp"
#include "trace/ingest/load.hpp"

namespace sextant::trace {

struct AnalyzeOptions {
  bool hta = false;                         // --compat hta
  double consecutive_kernel_delay_us = 30;  // idle-time: kernel-wait threshold (a fraction of a µs allowed, as HTA's)
  double duration_ratio = 0.8;              // kernel breakdown: "others" threshold
  int num_kernels = 10;                     // kernel breakdown: named kernels kept per type
  int64_t runtime_cutoff_us = 50;           // launch stats: long runtime calls
  int64_t launch_delay_cutoff_us = 100;     // launch stats: long launch delays
  int64_t max_queue_length = 1024;          // queue: CUDA's launch-queue depth
  int straggler_candidates = 2;             // stragglers: ranks reported (HTA's num_candidates)
  int top_kernels = 10;                     // top kernels listed
  bool per_launch_rows = false;             // launch stats: one row per launch (always with hta)
  // Critical path and what-if replay (src/trace/replay/).
  double unexplained_gap_us = 10;           // slack above this on a GPU ordering edge is unexplained
  int critical_path_rows = 40;              // longest path segments listed per iteration (0: all)
  std::vector<std::string> scales;          // --scale CLASS=FACTOR (replay::parse_scale)
  bool drop_host_gaps = false;              // --drop-gaps host
  bool drop_gpu_gaps = false;               // --drop-gaps gpu
  // Findings.
  double gpu_gap_threshold_us = 100;        // GPU idle gaps longer than this are findings
  double low_utilization_window_us = 10000; // window of the low-utilisation rule
  double low_utilization_fraction = 0.5;    // GPU busy share below which a window is low
  // Clock-skew correction across ranks from matched collectives (clock_skew.cpp).
  bool clock_sync = true;
  // Kernel sequences (kernel_sequences.cpp).
  int64_t sequence_depth = 0;               // cpu_op nesting depth whose launches form a sequence
  int top_sequences = 10;                   // sequences listed per rank (0: all)
  // Roofline.
  std::string device;                       // catalog device id; empty: from deviceProperties
  std::string catalog_dir;                  // catalog folder for the device (--catalog); empty: the bundled one
};

struct AnalysisContext {
  const TraceSet& set;
  const std::vector<Frame>& frames;
  const AnalyzeOptions& opt;
  Diagnostics& diagnostics;  // analysis-level remarks (e.g. "no GPU kernels on rank 3")
};

struct Analysis {
  std::string name;
  std::string description;
  bool hta_parity = false;  // one of HTA's analyses (run and checked in --compat hta)
  std::function<void(const AnalysisContext&, Result&)> run;
};

std::vector<Analysis> analysis_registry();

// Helpers shared by the analyses.
namespace stats {
// pandas' Series.describe(): count, mean, std (n-1), min, 25%, 50%, 75%, max; NaN where undefined.
struct Describe {
  double count = 0, mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
};
Describe describe(std::vector<double> v);
double quantile_linear(const std::vector<double>& sorted, double q);
double round_to(double v, int decimals);  // numpy-style round half to even
}  // namespace stats

// Column name in Sextant's style for an HTA CSV column ("idle_time(us)" -> "idle_time_us").
std::string sextant_column_name(const std::string& hta_name);

// The N of a whole name "ProfilerStep#N" (whitespace allowed around '#', 1 to 18 digits), or -1.
// Parsed by hand: std::regex (ProfilerStep\s*#\s*(\d{1,18})) recursed once per character and
// overflowed the stack on a step name padded with 40,000 spaces (before 2026-12-03).
int64_t profiler_step_number(std::string_view name);

// The individual analyses (one file each).
void run_temporal_breakdown(const AnalysisContext&, Result&);
void run_comm_comp_overlap(const AnalysisContext&, Result&);
void run_kernel_breakdown(const AnalysisContext&, Result&);
void run_idle_time_breakdown(const AnalysisContext&, Result&);
void run_launch_stats(const AnalysisContext&, Result&);
void run_queue_length(const AnalysisContext&, Result&);
void run_collectives(const AnalysisContext&, Result&);
void run_memory_timeline(const AnalysisContext&, Result&);
void run_iterations(const AnalysisContext&, Result&);
void run_critical_path(const AnalysisContext&, Result&);
void run_whatif(const AnalysisContext&, Result&);
void run_findings(const AnalysisContext&, Result&);
void run_clock_skew(const AnalysisContext&, Result&);
void run_workload(const AnalysisContext&, Result&);
void run_memcpy_bandwidth(const AnalysisContext&, Result&);
void run_kernel_sequences(const AnalysisContext&, Result&);
void run_user_annotations(const AnalysisContext&, Result&);

// Collectives matched across ranks (collectives.cpp): key (process group, operation, sequence)
// -> one occurrence per rank, times in ns on the baseTimeNanoseconds clock.
struct CollectiveOccurrence {
  int64_t rank;
  int64_t start_ns, end_ns;
  double bytes;
  std::string algo;
  bool shard_bytes = false;  // bytes is one rank's input shard (an all-gather sized from its nccl:* annotation)
  int64_t group_size = -1;   // the communicator's size where the trace records it ("Group size"); -1: unknown
  int64_t step = -1;         // N of the ProfilerStep#N range its launching call lies in; -1: none or no launch
  // Its ranks' recorded sizes may differ (review of 2026-12-07): an all-gather, reduce-scatter or
  // all-to-all, by its kernel or its `Collective name` / nccl:* annotation (an uneven all-gather runs
  // as coalesced ncclBroadcast, an uneven reduce-scatter as ncclReduce, each rank recording its own
  // input and output sizes).
  bool uneven_sizes_ok = false;
  // Its wait for the last rank, [start, start + min(duration, latest start - start)), less the
  // times its own rank's compute and memory kernels ran beside it on other streams: the part that
  // held the rank back (held_known; filled by matched_collectives, on the clock-corrected times).
  // rank_lateness counts only these as waits a later lateness inherits; without held_known the
  // whole wait counts. Review of 2026-12-07: a wait at a collective overlapped with the rank's
  // compute had excused that rank's own slowness at its next collective.
  std::vector<std::pair<int64_t, int64_t>> held_ns;
  bool held_known = false;
};
using CollectiveMatches = std::map<std::tuple<std::string, std::string, int64_t>, std::vector<CollectiveOccurrence>>;
// A rank holds at most one occurrence of a (group, operation, sequence): a repeat (a malformed or
// merged trace) is dropped, the earliest kept, and counted in *repeats when given (it had been
// matched against its own rank: a negative sync time, the rank its own straggler).
// Point-to-point kernels (ncclKernel_SendRecv not named a collective by its nccl:* annotation:
// pipeline sends and receives) in a group of more than two are not a rendezvous of the group and
// are left out (a pair's two ends still match each other): matched by
// (group, operation, sequence) they had paired one stage's send with another's receive, made up
// clock offsets and named the wrong straggler (2026-12-04 review). Where a kernel has no sequence
// number and every rank's kernels of its (group, operation) were launched inside ProfilerStep#N
// ranges (some N on two ranks or more), they are matched by (N, order within the step): the
// ranks' profiled windows may be shifted by whole steps (rank 1 holding steps 1-3, the others
// 0-2), and matched by their order across the trace they had paired different iterations, read a
// step period as a clock offset and named an innocent rank the straggler (2026-12-05 review). The
// sequence of such a key is the position of (N, order) among those of every rank, in step order;
// a step some ranks' traces lack is matched among the ranks that hold it. Otherwise occurrences
// are matched by their order on each rank; ranks with unequal counts of a (group, operation) are
// reported in stats (that order is off from the first one missing), and so are pairs of kernels
// of different ProfilerStep numbers.
using CollectiveKey = std::tuple<std::string, std::string, int64_t>;
struct MatchStats {
  int64_t point_to_point = 0;      // SendRecv kernels left out
  int64_t unequal_count_keys = 0;  // (group, operation) pairs matched by order with unequal counts per rank
  std::string unequal_example;     // the first such pair and its counts
  // Matched by (step, order within the step): collectives of a step that some ranks of the
  // operation have no ProfilerStep#N for (matched among those that do), and steps in which the
  // ranks holding them ran different counts (order within the step is off from the one missing).
  int64_t partial_step_collectives = 0;
  std::string partial_step_example;
  int64_t unequal_step_count_keys = 0;
  std::string unequal_step_example;
  // Matched by order: matched collectives whose kernels lie in different ProfilerStep numbers.
  int64_t cross_step_collectives = 0;
  std::string cross_step_example;
  // Collectives that loaded members of their process group did not run though their traces cover
  // them (they hold its ProfilerStep, or span its time where the step is unknown): a desync, the
  // signature of a hang or a skipped collective. Per key, those ranks; absent_example: the first,
  // as "rank R did not run OP sequence S of process group G that k of its n group members ran".
  // Members are the ranks with any kernel of the group; checked where the "Group size" is recorded
  // and not below them, and not for (group, operation) pairs matched by order with unequal counts
  // (their pairing is off: unequal_count_keys). Filled by matched_collectives only, which judges
  // a rank's time span on the clock-corrected times (match_collectives leaves it empty).
  std::map<CollectiveKey, std::vector<int64_t>> absent_members;
  std::string absent_example;
  // Kernels whose size is unknown because their dtype (the `dtype` arg or the nccl:* annotation's
  // `Input type`) has no known element size: per dtype name, the count and the first kernel's rank
  // and operation.
  std::map<std::string, std::pair<int64_t, std::string>> unknown_dtypes;
};
CollectiveMatches match_collectives(const std::vector<Frame>& frames, int64_t* repeats = nullptr, MatchStats* stats = nullptr);

// Per-rank clock offsets from the ends of matched collectives (clock_skew.cpp): a collective ends
// at nearly the same instant on all its ranks, so a rank whose ends are consistently late has a
// clock that runs ahead. Offsets are relative to the lowest rank of the ranks joined by collectives
// (ClockOffset::clock_group); corrected time = t - offset. Ranks without a collective matched on
// another rank have no entry.
struct ClockOffset {
  int64_t offset_ns = 0;
  int64_t collectives = 0;           // collectives the estimate used
  double residual_end_skew_ns = 0;   // median |corrected end - collective's median end|
  double raw_end_skew_ns = 0;        // the same before correction
  // The lowest rank of the ranks joined to this one by collectives (directly or through others):
  // the rank its offset is relative to. Ranks of two such groups share no collective, so their
  // clocks cannot be compared.
  int64_t clock_group = -1;
};
std::map<int64_t, ClockOffset> estimate_clock_offsets(const CollectiveMatches& m);

// The matched collectives of the frames with each rank's times moved back by its clock offset
// (estimate_clock_offsets) when `clock_sync`; the collectives, straggler and findings analyses
// read the same corrected times. With `stats` it also fills stats->absent_members on those times
// (each rank's trace span moved by its own offset; raw times without clock sync).
CollectiveMatches matched_collectives(const std::vector<Frame>& frames, bool clock_sync, int64_t* repeats = nullptr,
                                      MatchStats* stats = nullptr);

// Per rank, how it stood at the matched collectives (occurrences on >= 2 ranks):
//  - last_arrivals: collectives it started last;
//  - latest_arrivals: collectives it started at the latest start, ties included (two ranks always
//    late together are the ones the others wait for, though neither is "last");
//  - held_back_us: at those, its start after the second-latest start (the marginal hold: what the
//    others would have gained had only this rank been on time; two equally late ranks cancel);
//  - caused_wait_us: the sum of max(0, its start - the others' median start), less the part it
//    inherited: how long the typical rank waited for it, which does not cancel when several ranks
//    straggle;
//  - inherited_late_us: the part of that lateness its waits for other ranks explain: its waits
//    since the last collective it ran with the median other rank (the two of them, averaged, where
//    the others are even) less that rank's waits since then (only the parts no compute of its own
//    ran beside: CollectiveOccurrence::held_ns), bounded by 0 and the lateness; its
//    compute and transfer time since are its own. A rank that waited for a slow peer and so
//    arrives late here is not the one the others wait for (review of 2026-12-07: it had been named
//    a high straggler; a second review that day: only the previous collective's wait had counted,
//    not waits over several collectives nor lateness inherited at the one before);
//  - waited_for_others_us: the sum of min(its duration, max(0, latest start - its start)): the
//    part of its own collective time spent waiting for the last rank to arrive, not transferring;
//  - mean_late_vs_median_us: mean signed start minus the median start of the other ranks (review
//    of 2026-12-07: against the median of all ranks it read half the lateness on two ranks).
// Integer nanoseconds are subtracted before any conversion to double (epoch-based times of 1.7e18 ns
// would keep only 256 ns in a double).
struct RankLateness {
  int64_t last_arrivals = 0, latest_arrivals = 0, collectives = 0;
  double held_back_us = 0, caused_wait_us = 0, inherited_late_us = 0, waited_for_others_us = 0, late_sum_us = 0;
  double mean_late_vs_median_us() const { return collectives ? late_sum_us / static_cast<double>(collectives) : 0.0; }
};
std::map<int64_t, RankLateness> rank_lateness(const CollectiveMatches& m);

// Which of `ranks` spent at least min_share of their matched collective time waiting for other
// ranks (RankLateness::waited_for_others_us), as the what-if and critical-path notes name them:
// `waiting` lists "rank R 90.9%" (8 at most, then "and N more ranks"), `listed` counts them, and
// `waited_for` names the ranks the others waited for, most wait caused first ("rank 1", "ranks 1,
// 3, ..."). Empty `waiting` when none did.
struct CollectiveWaits {
  std::string waiting, waited_for;
  int64_t listed = 0;
  size_t late_ranks = 0;  // ranks that caused a wait
};
CollectiveWaits waits_at_collectives(const CollectiveMatches& m, const std::set<int64_t>& ranks, double min_share);

}  // namespace sextant::trace

namespace sextant::trace::stats {
// numpy's default argsort (kind="quicksort": introsort, not stable) reproduced exactly, so that
// HTA-compatible results that depend on the order of equal keys come out the same as pandas'.
std::vector<size_t> numpy_argsort(const std::vector<int64_t>& v);
}  // namespace sextant::trace::stats
