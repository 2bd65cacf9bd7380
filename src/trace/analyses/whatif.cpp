// What-if replay: each iteration's dependency graph (replay/graph.hpp) is replayed from its
// dependencies and measured durations only. The unscaled replay is compared with the measured
// iteration time (the check that the graph explains the iteration); the scaled replay
// (--scale CLASS=FACTOR, --drop-gaps host|gpu) predicts the iteration time after the change.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "trace/analyses/analysis.hpp"
#include "trace/analyses/replay_pass.hpp"
#include "trace/replay/graph.hpp"

namespace sextant::trace {

namespace {

class WhatifPass final : public ReplayPass {
 public:
  WhatifPass(const AnalysisContext& ctx, Result& r) : ctx_(ctx), r_(r) {
    std::string scenario;
    for (const auto& s : ctx.opt.scales) {
      scaled_.scales.push_back(replay::parse_scale(s));
      specs_.push_back(s);
      scenario += (scenario.empty() ? "" : " ") + std::string("--scale ") + s;
      const auto target = scaled_.scales.back().target;
      if (scaled_.scales.back().factor != 1.0 &&
          (target == replay::Scale::Target::Communication || target == replay::Scale::Target::Gpu ||
           target == replay::Scale::Target::KernelRegex))
        comm_scale_ = true;
      if (scaled_.scales.back().factor != 1.0 && target != replay::Scale::Target::Host &&
          target != replay::Scale::Target::Launch)
        gpu_scale_ = true;
    }
    scaled_.drop_host_gaps = ctx.opt.drop_host_gaps;
    scaled_.drop_gpu_gaps = ctx.opt.drop_gpu_gaps;
    if (scaled_.drop_host_gaps) scenario += (scenario.empty() ? "" : " ") + std::string("--drop-gaps host");
    if (scaled_.drop_gpu_gaps) scenario += (scenario.empty() ? "" : " ") + std::string("--drop-gaps gpu");
    if (scenario.empty()) scenario = "(none: unscaled replay)";
    // Without a scale or a dropped gap the scenario is the unscaled replay itself.
    unscaled_ = scaled_.scales.empty() && !scaled_.drop_host_gaps && !scaled_.drop_gpu_gaps;
    r.set("whatif_scenario", scenario);

    t_ = &r.add_table("whatif", "per iteration: measured time, unscaled replay, predicted time under the scenario");
    Table& t = *t_;
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
  }

  void visit(const Frame& f, const replay::Graph& g, const replay::ReplayResult& base,
             const replay::Path& path) override {
    int64_t pred_makespan = base.makespan;
    if (comm_scale_ && !comm_scaled_ranks_.count(f.rank()) && scales_communication(f, g)) comm_scaled_ranks_.insert(f.rank());
    if (gpu_scale_ && !(gpu_faster_ && gpu_slower_)) gpu_directions(f, g);
    if (!unscaled_) {
      replay::replay(g, f, scaled_, scaled_result_);  // into the buffers of the previous iteration
      pred_makespan = scaled_result_.makespan;
      hits_.resize(scaled_result_.scale_hits.size(), 0);
      for (size_t s = 0; s < hits_.size(); ++s) hits_[s] += scaled_result_.scale_hits[s];
    }
    int64_t unexpl = 0, previous = 0;
    for (const auto& p : path) {
      if (p.attr == replay::Attribution::Unexplained) unexpl += p.ticks;
      if (p.attr == replay::Attribution::PreviousIteration) previous += p.ticks;
    }
    previous_us_ += f.us(previous);
    path_us_ += f.us(base.makespan);
    if (base.makespan > 0 && static_cast<double>(previous) >= kPreviousShare * static_cast<double>(base.makespan))
      ++previous_iterations_;
    const double meas = static_cast<double>(g.measured_ticks);
    const double err = meas > 0 ? (static_cast<double>(base.makespan) - meas) / meas : 0.0;
    worst_ = std::max(worst_, std::fabs(err));
    ++iterations_;
    t_->add_row({f.rank(), g.step, f.us(g.measured_ticks), f.us(base.makespan), err, f.us(pred_makespan),
                 base.makespan > 0
                     ? static_cast<double>(pred_makespan - base.makespan) / static_cast<double>(base.makespan)
                     : 0.0,
                 f.us(unexpl), meas > 0 ? static_cast<double>(unexpl) / meas : 0.0,
                 static_cast<int64_t>(g.nodes.size()), static_cast<int64_t>(g.edges.size())});
  }

  void finish() override {
    r_.set("whatif_iterations_count", iterations_);
    r_.set("whatif_max_replay_error_fraction", worst_);
    // A --scale that matched nothing is a no-op: say so (a misspelt kernel pattern read as "no change").
    for (size_t s = 0; s < scaled_.scales.size(); ++s)
      if (iterations_ > 0 && (s >= hits_.size() || hits_[s] == 0))
        r_.notes.push_back("whatif: --scale " + specs_[s] + " matched no event in any iteration: it changes nothing");
    if (iterations_ == 0 && !unscaled_)
      r_.notes.push_back("whatif: no iteration to replay (no ProfilerStep annotations?): the scenario was not evaluated");
    note_scaled_waits();
    note_previous_iteration();
  }

 private:
  // The factor the scenario puts on a GPU node's duration (the factors of every scale that applies,
  // multiplied, as the replay does).
  double gpu_factor(const Frame& f, const replay::Node& nd) {
    if (regex_frame_ != &f) {
      regex_hits_.clear();
      regex_frame_ = &f;
    }
    double factor = 1.0;
    for (size_t s = 0; s < scaled_.scales.size(); ++s) {
      const replay::Scale& sc = scaled_.scales[s];
      using T = replay::Scale::Target;
      const bool applies = sc.target == T::Gpu || (sc.target == T::Communication && nd.gpu_kind == KernelKind::Communication) ||
                           (sc.target == T::Compute && nd.gpu_kind == KernelKind::Computation) ||
                           (sc.target == T::Memcpy && nd.gpu_kind == KernelKind::Memory);
      if (applies) {
        factor *= sc.factor;
      } else if (sc.target == T::KernelRegex) {
        auto [it, fresh] = regex_hits_.try_emplace((static_cast<uint64_t>(s) << 32) | nd.name, false);
        if (fresh) it->second = replay::scale_matches(sc, f.name(nd.name));
        if (it->second) factor *= sc.factor;
      }
    }
    return factor;
  }
  // Whether the scenario changes the duration of a communication kernel of this iteration; and
  // which way (comm_faster_, comm_slower_).
  bool scales_communication(const Frame& f, const replay::Graph& g) {
    bool any = false;
    for (const auto& nd : g.nodes) {
      if (nd.kind != replay::NodeKind::Gpu || nd.gpu_kind != KernelKind::Communication) continue;
      const double factor = gpu_factor(f, nd);
      comm_faster_ = comm_faster_ || factor < 1.0;
      comm_slower_ = comm_slower_ || factor > 1.0;
      any = any || factor != 1.0;
    }
    return any;
  }
  // Which way the scenario changes this iteration's GPU work (gpu_faster_, gpu_slower_): factors
  // that multiply to 1 change nothing, a pattern that matches no kernel neither.
  void gpu_directions(const Frame& f, const replay::Graph& g) {
    for (const auto& nd : g.nodes) {
      if (nd.kind != replay::NodeKind::Gpu) continue;
      const double factor = gpu_factor(f, nd);
      gpu_faster_ = gpu_faster_ || factor < 1.0;
      gpu_slower_ = gpu_slower_ || factor > 1.0;
    }
  }

  // A collective's measured duration on a rank that arrived early includes its wait for the last
  // rank; the replay scales that wait with the transfer, so a rank that mostly waited is predicted
  // to gain what only the late rank can give (review of 2026-12-05: ranks waiting 5 ms a step for
  // rank 1 were predicted 42% faster at comm=0.5, the job bounded by rank 1, without a word). Named
  // from the same matched collectives as the stragglers table's waited_for_others_us, where the
  // wait is at least kWaitShare of the rank's matched collective time.
  void note_scaled_waits() {
    // Not for ranks of different jobs (TraceSet::not_one_job; review of 2026-12-07).
    if (comm_scaled_ranks_.empty() || ctx_.frames.size() < 2 || !ctx_.set.not_one_job.empty()) return;
    constexpr double kWaitShare = 0.05;
    const CollectiveWaits w = waits_at_collectives(matched_collectives(ctx_.frames, ctx_.opt.clock_sync), comm_scaled_ranks_, kWaitShare);
    if (w.waiting.empty()) return;
    const std::string& waiting = w.waiting;
    const std::string& bound = w.waited_for;
    const int64_t listed = w.listed;
    const size_t late_ranks = w.late_ranks;
    const std::string who = late_ranks == 0 ? std::string("the late ranks") : "the rank" + std::string(late_ranks > 1 ? "s" : "") + " waited for (" + bound + ")";
    const std::string these = listed > 1 ? "these ranks" : "this rank";
    // Which way the replay errs follows the factor: a shortened wait understates the step, a
    // stretched one overstates it (review of 2026-12-07: comm=2 was called a lower bound where
    // the replay doubled a 1.16 ms wait, 4870 us predicted against the 3713 us the late rank's
    // arrival gives).
    std::string verdict;
    if (comm_faster_ && !comm_slower_)
      verdict = ". The replay shortens that wait with the transfer, but a wait ends when the last rank arrives: for " + these +
                " predicted_us is a lower bound on the step, which " + who + (late_ranks == 1 ? " bounds" : " bound");
    else if (comm_slower_ && !comm_faster_)
      verdict = ". The replay stretches that wait with the transfer, but a wait ends when the last rank arrives, which the scenario does "
                "not delay by as much: for " + these + " predicted_us overstates the step (an upper estimate; " + who +
                (late_ranks == 1 ? " sets" : " set") + " the wait's end)";
    else
      verdict = ". The replay scales that wait with the transfer, but a wait ends when the last rank arrives: for " + these +
                " predicted_us may be off either way (the scenario shortens some communication and lengthens other; " + who +
                (late_ranks == 1 ? " sets" : " set") + " the wait's end)";
    r_.notes.push_back("whatif: part of the communication the scenario scales is waiting for other ranks at the collectives "
                       "(stragglers table, waited_for_others_us; share of the rank's matched collective time): " +
                       waiting + verdict);
  }

  // Work launched in the iteration before that a stream still runs (previous_iteration on the path)
  // is held at its measured times: a scenario that scales GPU work scales it in every step of a real
  // run, so where it is on the path the prediction understates the change (a pipelined, GPU-bound
  // loop: compute=0.5 predicted -21% where the steps shrink by 62.5%, without a word before
  // 2026-12-06; review of that day). Said where it is at least kPreviousShare of an iteration's path.
  static constexpr double kPreviousShare = 0.10;
  void note_previous_iteration() {
    // Only where the scenario changes some GPU work, said the way it does (review of 2026-12-07: a
    // pattern matching nothing, and compute=2, had read "shrinks ... understates the change").
    if (!gpu_scale_ || previous_iterations_ == 0 || !(gpu_faster_ || gpu_slower_)) return;
    const std::string change = gpu_faster_ && gpu_slower_ ? "changes the previous step's work too: predicted_us misses that change"
                               : gpu_faster_              ? "shrinks the previous step's work too: predicted_us understates the change"
                                                          : "grows the previous step's work too: predicted_us understates the change";
    const double share = path_us_ > 0 ? previous_us_ / path_us_ : 0.0;
    r_.notes.push_back("whatif: in " + std::to_string(previous_iterations_) + " of " + std::to_string(iterations_) +
                       " iterations at least " + format_double(100 * kPreviousShare) +
                       "% of the critical path is previous_iteration work (GPU work launched before the iteration that "
                       "its streams still ran; " + format_double(std::round(1000 * share) / 10) +
                       "% of all paths' time), which the replay holds at its measured times; the scenario scales GPU work, "
                       "which in a real run " + change + " in those iterations");
  }

  const AnalysisContext& ctx_;
  Result& r_;
  Table* t_ = nullptr;
  replay::ReplayOptions scaled_;
  replay::ReplayResult scaled_result_;
  std::vector<int64_t> hits_;        // per scale: nodes scaled over every iteration
  std::vector<std::string> specs_;   // the --scale texts, for the notes
  bool unscaled_ = true;
  // Ranks whose communication kernels the scenario scales (comm=, gpu=, a kernel pattern that
  // matches one): their waits at collectives are noted in finish().
  bool comm_scale_ = false;
  bool gpu_scale_ = false;            // the scenario scales GPU work (previous-iteration work is held)
  bool comm_faster_ = false, comm_slower_ = false;  // a communication kernel the scenario shortens / lengthens
  bool gpu_faster_ = false, gpu_slower_ = false;    // a GPU kernel the scenario shortens / lengthens
  double previous_us_ = 0, path_us_ = 0;  // previous_iteration time on the paths, and the paths' length
  int64_t previous_iterations_ = 0;   // iterations whose path is at least kPreviousShare previous_iteration
  std::set<int64_t> comm_scaled_ranks_;
  std::unordered_map<uint64_t, bool> regex_hits_;  // (scale, name id) -> matches, for regex_frame_
  const Frame* regex_frame_ = nullptr;
  double worst_ = 0;
  int64_t iterations_ = 0;
};

}  // namespace

std::unique_ptr<ReplayPass> make_whatif_pass(const AnalysisContext& ctx, Result& r) {
  return std::make_unique<WhatifPass>(ctx, r);
}

void run_whatif(const AnalysisContext& ctx, Result& r) {
  auto pass = make_whatif_pass(ctx, r);
  run_replay_passes(ctx, ctx.diagnostics, {pass.get()});
}

void run_replay_passes(const AnalysisContext& ctx, Diagnostics& build_diag, const std::vector<ReplayPass*>& passes) {
  // One workspace, replay result and path for all iterations of all frames: their buffers grow
  // to the largest iteration once instead of being allocated (and faulted in) per iteration.
  replay::Workspace ws;
  replay::ReplayResult base;
  replay::Path path;
  const replay::ReplayOptions unscaled;
  for (const Frame& f : ctx.frames) {
    replay::BuildOptions bo;
    const double ticks_per_us = 1.0 / f.us_per_tick;
    bo.unexplained_gap_ticks = static_cast<int64_t>(ctx.opt.unexplained_gap_us * ticks_per_us);
    bo.cross_stream_min_gap_ticks = static_cast<int64_t>(2.0 * ticks_per_us);
    bo.join_min_gap_ticks = static_cast<int64_t>(10.0 * ticks_per_us);  // 10 us in either rule set's ticks
    replay::for_each_iteration_graph(
        f, bo, build_diag,
        [&](const replay::Graph& g) {
          replay::replay(g, f, unscaled, base);
          replay::critical_path(g, base, path);
          for (ReplayPass* p : passes) p->visit(f, g, base, path);
        },
        &ws);
  }
  for (ReplayPass* p : passes) p->finish();
}

}  // namespace sextant::trace
