// Critical path of each iteration (ProfilerStep#N, or the whole trace without steps) across CPU
// threads and GPU streams: the longest path through the dependency graph of replay/graph.hpp
// (launch -> kernel by correlation id, kernel -> kernel on a stream, stream/event/device
// synchronisation, inferred cross-stream waits), attributed to cpu_bound, data_loading,
// launch_overhead, compute, communication, memcpy, previous_iteration and unexplained.
#include <algorithm>
#include <array>

#include "trace/analyses/analysis.hpp"
#include "trace/replay/graph.hpp"

namespace sextant::trace {

namespace {
std::string resource_label(const replay::Graph& g, int32_t r) {
  if (r < 0 || static_cast<size_t>(r) >= g.resources.size()) return "-";
  const auto& res = g.resources[static_cast<size_t>(r)];
  return (res.gpu ? "stream " : "thread ") + std::to_string(res.id);
}
}  // namespace

void run_critical_path(const AnalysisContext& ctx, Result& r) {
  using replay::Attribution;
  Table& seg = r.add_table("critical_path",
                           "critical path segments per iteration, in time order (longest segments when capped)");
  seg.add_i64("rank");
  seg.add_i64("step");
  seg.add_i64("segment");
  seg.add_str("attribution");
  seg.add_str("resource");
  seg.add_f64("start_us");
  seg.add_f64("duration_us");
  seg.add_i64("events_count");
  seg.add_str("longest_event");
  Table& tot = r.add_table("critical_path_attribution", "critical path time per iteration by attribution");
  tot.add_i64("rank");
  tot.add_i64("step");
  tot.add_str("attribution");
  tot.add_f64("time_us");
  tot.add_f64("fraction");
  Table& sum = r.add_table("critical_path_summary", "per iteration: measured time, path length, its main cause");
  sum.add_i64("rank");
  sum.add_i64("step");
  sum.add_f64("iteration_us");
  sum.add_f64("critical_path_us");
  sum.add_i64("path_segments_count");
  sum.add_str("dominant_attribution");
  sum.add_f64("dominant_fraction");
  sum.add_f64("unexplained_fraction");

  int64_t omitted = 0;
  for (const Frame& f : ctx.frames) {
    replay::BuildOptions bo;
    const double ticks_per_us = 1.0 / f.us_per_tick;
    bo.unexplained_gap_ticks = static_cast<int64_t>(ctx.opt.unexplained_gap_us * ticks_per_us);
    bo.cross_stream_min_gap_ticks = static_cast<int64_t>(2.0 * ticks_per_us);
    replay::for_each_iteration_graph(f, bo, ctx.diagnostics, [&](const replay::Graph& g) {
      auto rr = replay::replay(g, f, replay::ReplayOptions{});
      auto path = replay::critical_path(g, rr);
      // Segments: consecutive elements with the same attribution and resource.
      struct Seg {
        Attribution attr;
        int32_t resource;
        int64_t start, ticks, count;
        uint32_t longest;
        int64_t longest_ticks;
      };
      std::vector<Seg> segs;
      std::array<int64_t, static_cast<size_t>(Attribution::Count_)> by{};
      for (const auto& p : path) {
        by[static_cast<size_t>(p.attr)] += p.ticks;
        if (segs.empty() || segs.back().attr != p.attr || segs.back().resource != p.resource)
          segs.push_back(Seg{p.attr, p.resource, p.start, 0, 0, UINT32_MAX, INT64_MIN});
        Seg& s = segs.back();
        s.ticks += p.ticks;
        if (p.node != UINT32_MAX) {
          ++s.count;
          if (p.ticks > s.longest_ticks && g.nodes[p.node].name != UINT32_MAX) {
            s.longest = g.nodes[p.node].name;
            s.longest_ticks = p.ticks;
          }
        }
      }
      std::vector<size_t> keep(segs.size());
      for (size_t i = 0; i < segs.size(); ++i) keep[i] = i;
      const auto cap = static_cast<size_t>(std::max(0, ctx.opt.critical_path_rows));
      if (cap > 0 && keep.size() > cap) {
        std::stable_sort(keep.begin(), keep.end(), [&](size_t a, size_t b) { return segs[a].ticks > segs[b].ticks; });
        omitted += static_cast<int64_t>(keep.size() - cap);
        keep.resize(cap);
        std::sort(keep.begin(), keep.end());
      }
      for (size_t i : keep) {
        const Seg& s = segs[i];
        seg.add_row({f.rank(), g.step, static_cast<int64_t>(i), std::string(replay::attribution_name(s.attr)),
                     resource_label(g, s.resource), f.us(s.start), f.us(s.ticks), s.count,
                     s.longest == UINT32_MAX ? std::string("(gap)") : f.name(s.longest)});
      }
      const double len = static_cast<double>(rr.makespan);
      size_t dom = 0;
      for (size_t a = 0; a < by.size(); ++a) {
        if (by[a] > by[dom]) dom = a;
        if (by[a] == 0) continue;
        tot.add_row({f.rank(), g.step, std::string(replay::attribution_name(static_cast<Attribution>(a))), f.us(by[a]),
                     len > 0 ? static_cast<double>(by[a]) / len : 0.0});
      }
      const double unexpl = static_cast<double>(by[static_cast<size_t>(Attribution::Unexplained)]);
      sum.add_row({f.rank(), g.step, f.us(g.measured_ticks), f.us(rr.makespan), static_cast<int64_t>(segs.size()),
                   std::string(replay::attribution_name(static_cast<Attribution>(dom))),
                   len > 0 ? static_cast<double>(by[dom]) / len : 0.0, len > 0 ? unexpl / len : 0.0});
    });
  }
  if (omitted > 0)
    r.notes.push_back("critical_path: " + std::to_string(omitted) +
                      " shorter segments not listed (--critical-path-rows 0 lists all); the attribution totals "
                      "include them");
}

}  // namespace sextant::trace
