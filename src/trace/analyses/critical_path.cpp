// Critical path of each iteration (ProfilerStep#N, or the whole trace without steps) across CPU
// threads and GPU streams: the longest path through the dependency graph of replay/graph.hpp
// (launch -> kernel by correlation id, kernel -> kernel on a stream, stream/event/device
// synchronisation, inferred cross-stream waits), attributed to cpu_bound, data_loading,
// launch_overhead, compute, communication, memcpy, previous_iteration and unexplained.
#include <algorithm>
#include <array>
#include <set>

#include "trace/analyses/analysis.hpp"
#include "trace/analyses/replay_pass.hpp"
#include "trace/replay/graph.hpp"

namespace sextant::trace {

namespace {
// A thread is named by its tid as the trace wrote it (a text, a wide integer, a negative one:
// the resource holds the tid column's 32 bits).
std::string resource_label(const RankTrace& t, const replay::Graph& g, int32_t r) {
  if (r < 0 || static_cast<size_t>(r) >= g.resources.size()) return "-";
  const auto& res = g.resources[static_cast<size_t>(r)];
  if (res.gpu) return "stream " + std::to_string(res.id);
  return "thread " + t.id_text(static_cast<int32_t>(static_cast<uint32_t>(res.id & 0xffffffff)));
}

class CriticalPathPass final : public ReplayPass {
 public:
  CriticalPathPass(const AnalysisContext& ctx, Result& r)
      : ctx_(ctx),
        r_(r),
        seg_(r.add_table("critical_path",
                         "critical path segments per iteration, in time order (longest segments when capped)")),
        tot_(r.add_table("critical_path_attribution", "critical path time per iteration by attribution")),
        sum_(r.add_table("critical_path_summary", "per iteration: measured time, path length, its main cause")) {
    seg_.add_i64("rank");
    seg_.add_i64("step");
    seg_.add_i64("segment");
    seg_.add_str("attribution");
    seg_.add_str("resource");
    seg_.add_f64("start_us");
    seg_.add_f64("duration_us");
    seg_.add_i64("events_count");
    seg_.add_str("longest_event");
    tot_.add_i64("rank");
    tot_.add_i64("step");
    tot_.add_str("attribution");
    tot_.add_f64("time_us");
    tot_.add_f64("fraction");
    sum_.add_i64("rank");
    sum_.add_i64("step");
    sum_.add_f64("iteration_us");
    sum_.add_f64("critical_path_us");
    sum_.add_i64("path_segments_count");
    sum_.add_str("dominant_attribution");
    sum_.add_f64("dominant_fraction");
    sum_.add_f64("unexplained_fraction");
    // At most --critical-path-rows segments per iteration, one iteration per ProfilerStep (or one
    // per rank without steps): reserved, so that a table of 10^5-10^6 rows grows without each
    // column being copied at every doubling (untouched capacity costs no memory).
    // The cap is an upper bound, not a size: a path has at most a segment per event and one per
    // gap between them, so no more is reserved (a cap of 2^31 had reserved it and run out of
    // memory, 2026-12-05 review).
    if (ctx.opt.critical_path_rows > 0) {
      size_t iterations = 0, events = 0;
      for (const Frame& f : ctx.frames) {
        iterations += static_cast<size_t>(std::max<int64_t>(1, f.profiler_steps));
        events += f.gpu.size() + f.cpu.size();
      }
      seg_.reserve(std::min(iterations * static_cast<size_t>(ctx.opt.critical_path_rows), 2 * events + iterations));
      sum_.reserve(iterations);
    }
  }

  void visit(const Frame& f, const replay::Graph& g, const replay::ReplayResult& rr,
             const replay::Path& path) override {
    using replay::Attribution;
    // Segments: consecutive elements with the same attribution and resource.
    std::vector<Seg>& segs = segs_;
    segs.clear();
    std::array<int64_t, static_cast<size_t>(Attribution::Count_)> by{};
    for (const auto& p : path) {
      by[static_cast<size_t>(p.attr)] += p.ticks;
      if (segs.empty() || segs.back().attr != p.attr || segs.back().resource != p.resource)
        segs.push_back(Seg{p.attr, p.resource, p.start, 0, 0, UINT32_MAX, INT64_MIN});
      Seg& s = segs.back();
      s.ticks += p.ticks;
      if (p.node != UINT32_MAX) {
        // A carry-in node stands for a run of GPU events: all of them count, and its longest
        // event competes (before 2026-12-06 a run was one event named after its last; review).
        int64_t events = 1, ticks = p.ticks;
        uint32_t name = g.nodes[p.node].name;
        if (const replay::CarryRun* cr = g.carry_run(p.node)) {
          events = cr->events;
          ticks = cr->longest_ticks;
          name = cr->longest_name;
        }
        s.count += events;
        if (ticks > s.longest_ticks && name != UINT32_MAX) {
          s.longest = name;
          s.longest_ticks = ticks;
        }
      }
    }
    std::vector<size_t>& keep = keep_;
    keep.resize(segs.size());
    for (size_t i = 0; i < segs.size(); ++i) keep[i] = i;
    const auto cap = static_cast<size_t>(std::max(0, ctx_.opt.critical_path_rows));
    if (cap > 0 && keep.size() > cap) {
      std::stable_sort(keep.begin(), keep.end(), [&](size_t a, size_t b) { return segs[a].ticks > segs[b].ticks; });
      omitted_ += static_cast<int64_t>(keep.size() - cap);
      keep.resize(cap);
      std::sort(keep.begin(), keep.end());
    }
    for (size_t i : keep) {
      const Seg& s = segs[i];
      seg_.add_row({f.rank(), g.step, static_cast<int64_t>(i), std::string(replay::attribution_name(s.attr)),
                   resource_label(*f.trace, g, s.resource), f.us(s.start), f.us(s.ticks), s.count,
                   s.longest == UINT32_MAX ? std::string("(gap)") : f.name(s.longest)});
    }
    const double len = static_cast<double>(rr.makespan);
    size_t dom = 0;
    for (size_t a = 0; a < by.size(); ++a) {
      if (by[a] > by[dom]) dom = a;
      if (by[a] == 0) continue;
      tot_.add_row({f.rank(), g.step, std::string(replay::attribution_name(static_cast<Attribution>(a))), f.us(by[a]),
                   len > 0 ? static_cast<double>(by[a]) / len : 0.0});
    }
    const double unexpl = static_cast<double>(by[static_cast<size_t>(Attribution::Unexplained)]);
    // Kernels a CUDA graph launched: one cudaGraphLaunch stands for all of them, so the trace has
    // no launch edge per kernel and the gaps between them on the path are unexplained (counted once
    // per rank, for the note).
    if (graph_ranks_.insert(f.rank()).second)
      for (const auto& ge : f.gpu)
        if (ge.runtime >= 0 &&
            f.trace->name_of(f.cpu[static_cast<size_t>(ge.runtime)].event).find("GraphLaunch") != std::string::npos)
          ++graph_kernels_;
    unexplained_us_ += f.us(static_cast<int64_t>(unexpl));
    if (by[static_cast<size_t>(Attribution::Communication)] > 0) comm_ranks_.insert(f.rank());
    sum_.add_row({f.rank(), g.step, f.us(g.measured_ticks), f.us(rr.makespan), static_cast<int64_t>(segs.size()),
                 std::string(replay::attribution_name(static_cast<Attribution>(dom))),
                 len > 0 ? static_cast<double>(by[dom]) / len : 0.0, len > 0 ? unexpl / len : 0.0});
  }

  void finish() override {
    if (graph_kernels_ > 0)
      r_.notes.push_back("critical_path: " + std::to_string(graph_kernels_) +
                         " kernels were launched by cudaGraphLaunch (CUDA graphs): one launch call stands for a whole graph, "
                         "so the trace has no per-kernel launch edge and the gaps between graph kernels on the path are "
                         "'unexplained' (all unexplained time on the paths: " + format_double(std::round(unexplained_us_)) + " us), not host or "
                         "launch overhead");
    if (omitted_ > 0)
      r_.notes.push_back("critical_path: " + std::to_string(omitted_) +
                         " shorter segments not listed (--critical-path-rows 0 lists all); the attribution totals "
                         "include them");
    note_waits();
  }

  // A rank's path is its own: a collective it reached early counts its wait for the last rank as
  // communication, whose cause is that rank's work. Said beside the path, as the what-if says it
  // (review of 2026-12-05: 84% "communication" on the paths of ranks waiting for rank 1's compute,
  // documented only).
  void note_waits() {
    // Not for ranks of different jobs (TraceSet::not_one_job; review of 2026-12-07).
    if (comm_ranks_.empty() || ctx_.frames.size() < 2 || !ctx_.set.not_one_job.empty()) return;
    const CollectiveWaits w = waits_at_collectives(matched_collectives(ctx_.frames, ctx_.opt.clock_sync), comm_ranks_, 0.05);
    if (w.waiting.empty()) return;
    r_.notes.push_back("critical_path: part of the communication on the paths is waiting for other ranks at the collectives "
                       "(stragglers table, waited_for_others_us; share of the rank's matched collective time): " +
                       w.waiting + ". A rank's path counts that wait as communication, but what " +
                       (w.listed > 1 ? "they" : "it") + " waited for is the work of " +
                       (w.late_ranks == 0 ? std::string("the late ranks") : w.waited_for) + ": a faster transfer gains " +
                       (w.listed > 1 ? "these ranks" : "this rank") + " less than the path's communication shows");
  }

 private:
  std::set<int64_t> graph_ranks_;
  std::set<int64_t> comm_ranks_;  // ranks with communication on a path (their waits are noted)
  int64_t graph_kernels_ = 0;
  double unexplained_us_ = 0;
  struct Seg {
    replay::Attribution attr;
    int32_t resource;
    int64_t start, ticks, count;
    uint32_t longest;
    int64_t longest_ticks;
  };
  std::vector<Seg> segs_;    // per iteration, reused
  std::vector<size_t> keep_;
  const AnalysisContext& ctx_;
  Result& r_;
  Table& seg_;
  Table& tot_;
  Table& sum_;
  int64_t omitted_ = 0;
};

}  // namespace

std::unique_ptr<ReplayPass> make_critical_path_pass(const AnalysisContext& ctx, Result& r) {
  return std::make_unique<CriticalPathPass>(ctx, r);
}

void run_critical_path(const AnalysisContext& ctx, Result& r) {
  auto pass = make_critical_path_pass(ctx, r);
  run_replay_passes(ctx, ctx.diagnostics, {pass.get()});
}

}  // namespace sextant::trace
