// sextant plan [SCENARIO] [--model M --system S --num-gpus N --global-batch B --seq-len L]
//              [--fix tp=8] [--schedules ...] [--headroom-gib G] [--threads N] [--top K]
// Under `mpirun -np N` the evaluation is split across the ranks; rank 0 prints.
#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "cli/plan_common.hpp"
#include "plan/plan.hpp"
#include "sim/simulate.hpp"

namespace sextant::cli {

namespace {
struct PlanArgs {
  JobArgs job;
  SearchArgs search;
  OutputOptions out;
  std::string practice;
  size_t rerank_top = 10;
};
}  // namespace

void add_plan_command(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand(
      "plan",
      "Search every valid parallel plan (tp pp vpp dp cp ep micro-batch sp recompute ZeRO schedule overlap) for a model on a "
      "system: prune by memory, estimate the rest, rank; a scenario's own plan is placed in the ranking (docs/plan.md)");
  add_job_options(*cmd, a->job);
  add_search_options(*cmd, a->search);
  cmd->add_option("--practice", a->practice,
                  "Check against practice: search every job of a training.csv (data/validation/training.csv) and place its published plans");
  // (a negative value wrapped to 2^64 - 5 and re-ranked every fitting plan, before 2026-12-03)
  cmd->add_option("--rerank-top", a->rerank_top, "Re-rank the best K plans with simulate (default 10; 0: off)")->check(unsigned_64("COUNT"));
  add_output_options(*cmd, a->out);
  cmd->callback([a] {
    const MpiWorld world;
    auto cat = a->job.catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->job.catalog_dir);
    if (!a->practice.empty()) {
      const plan::SearchOptions opt = search_options(a->search);
      const Estimator est;
      ProgressBar bar(!a->search.no_progress && world.rank() == 0);
      const Result r = plan::check_against_practice(a->practice, *cat, opt, est, bar.callback("jobs "), distribution(world));
      bar.finish();
      if (world.rank() == 0) emit(r, a->out);
      return;
    }
    bool own = false;
    Scenario s = load_job(a->job, *cat, &own);
    plan::SearchOptions opt = search_options(a->search);
    restrict_to_framework(s, opt, *cat, a->search);
    opt.rerank_top = a->rerank_top;
    const Estimator est;
    ProgressBar bar(!a->search.no_progress && world.rank() == 0);
    const plan::SearchOutcome out = plan::search(s, opt, est, distribution(world), bar.callback("plan "));
    bar.finish();
    plan::refuse_no_valid_plan(s, opt, out);
    const plan::Reranker simulate = [](const Scenario& sc) { return sim::simulate(sc).step.step_time_s; };
    const Result r = plan::plan_result(s, opt, est, out, own, simulate, "simulate");
    if (world.rank() == 0) emit(r, a->out);
  });
}

}  // namespace sextant::cli
