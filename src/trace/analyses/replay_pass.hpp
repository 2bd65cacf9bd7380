#pragma once
// One walk of the iteration graphs (replay/graph.hpp) shared by the critical-path and the what-if
// analyses. Both need each iteration's graph, its unscaled replay and that replay's critical path;
// when both are selected, analyze builds and replays every graph once and hands it to both passes
// (the graphs are built per iteration and dropped after the visit, so memory is unchanged).
#include <memory>
#include <vector>

#include "trace/analyses/analysis.hpp"
#include "trace/replay/graph.hpp"

namespace sextant::trace {

class ReplayPass {
 public:
  virtual ~ReplayPass() = default;
  // One iteration: its graph, the unscaled replay and the critical path of that replay.
  virtual void visit(const Frame& f, const replay::Graph& g, const replay::ReplayResult& base,
                     const replay::Path& path) = 0;
  // After the last iteration of the last frame.
  virtual void finish() = 0;
};

// The passes write their tables into r as they are created (the tables' order is the analysis'
// own); the what-if pass throws sextant::Error on an invalid --scale.
std::unique_ptr<ReplayPass> make_critical_path_pass(const AnalysisContext& ctx, Result& r);
std::unique_ptr<ReplayPass> make_whatif_pass(const AnalysisContext& ctx, Result& r);

// Builds each frame's iteration graphs with the analyses' options (graph oddities counted in
// build_diag), replays each unscaled, takes its critical path, visits every pass, then finishes them.
void run_replay_passes(const AnalysisContext& ctx, Diagnostics& build_diag, const std::vector<ReplayPass*>& passes);

}  // namespace sextant::trace
