// What-if replay: each iteration's dependency graph (replay/graph.hpp) is replayed from its
// dependencies and measured durations only. The unscaled replay is compared with the measured
// iteration time (the check that the graph explains the iteration); the scaled replay
// (--scale CLASS=FACTOR, --drop-gaps host|gpu) predicts the iteration time after the change.
#include <cmath>

#include "trace/analyses/analysis.hpp"
#include "trace/replay/graph.hpp"

namespace sextant::trace {

void run_whatif(const AnalysisContext& ctx, Result& r) {
  replay::ReplayOptions scaled;
  std::string scenario;
  for (const auto& s : ctx.opt.scales) {
    scaled.scales.push_back(replay::parse_scale(s));
    scenario += (scenario.empty() ? "" : " ") + std::string("--scale ") + s;
  }
  scaled.drop_host_gaps = ctx.opt.drop_host_gaps;
  scaled.drop_gpu_gaps = ctx.opt.drop_gpu_gaps;
  if (scaled.drop_host_gaps) scenario += (scenario.empty() ? "" : " ") + std::string("--drop-gaps host");
  if (scaled.drop_gpu_gaps) scenario += (scenario.empty() ? "" : " ") + std::string("--drop-gaps gpu");
  if (scenario.empty()) scenario = "(none: unscaled replay)";
  r.set("whatif_scenario", scenario);

  Table& t = r.add_table("whatif", "per iteration: measured time, unscaled replay, predicted time under the scenario");
  t.add_i64("rank");
  t.add_i64("step");
  t.add_f64("measured_us");
  t.add_f64("replay_us");
  t.add_f64("replay_error_fraction");
  t.add_f64("predicted_us");
  t.add_f64("predicted_change_fraction");
  t.add_f64("unexplained_on_path_us");
  t.add_f64("unexplained_fraction");
  t.add_i64("nodes_count");
  t.add_i64("edges_count");
  double worst = 0;
  int64_t iterations = 0;
  for (const Frame& f : ctx.frames) {
    replay::BuildOptions bo;
    const double ticks_per_us = 1.0 / f.us_per_tick;
    bo.unexplained_gap_ticks = static_cast<int64_t>(ctx.opt.unexplained_gap_us * ticks_per_us);
    bo.cross_stream_min_gap_ticks = static_cast<int64_t>(2.0 * ticks_per_us);
    replay::for_each_iteration_graph(f, bo, ctx.diagnostics, [&](const replay::Graph& g) {
      auto base = replay::replay(g, f, replay::ReplayOptions{});
      auto pred = replay::replay(g, f, scaled);
      int64_t unexpl = 0;
      for (const auto& p : replay::critical_path(g, base))
        if (p.attr == replay::Attribution::Unexplained) unexpl += p.ticks;
      const double meas = static_cast<double>(g.measured_ticks);
      const double err = meas > 0 ? (static_cast<double>(base.makespan) - meas) / meas : 0.0;
      worst = std::max(worst, std::fabs(err));
      ++iterations;
      t.add_row({f.rank(), g.step, f.us(g.measured_ticks), f.us(base.makespan), err, f.us(pred.makespan),
                 base.makespan > 0 ? static_cast<double>(pred.makespan - base.makespan) / static_cast<double>(base.makespan)
                                   : 0.0,
                 f.us(unexpl), meas > 0 ? static_cast<double>(unexpl) / meas : 0.0,
                 static_cast<int64_t>(g.nodes.size()), static_cast<int64_t>(g.edges.size())});
    });
  }
  r.set("whatif_iterations_count", iterations);
  r.set("whatif_max_replay_error_fraction", worst);
}

}  // namespace sextant::trace
