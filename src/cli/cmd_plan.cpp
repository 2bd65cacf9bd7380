// sextant plan [SCENARIO] [--model M --system S --num-gpus N --global-batch B --seq-len L]
//              [--fix tp=8] [--schedules ...] [--headroom-gib G] [--threads N] [--top K]
// Under `mpirun -np N` the evaluation is split across the ranks; rank 0 prints.
#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "cli/plan_common.hpp"
#include "core/atomic_file.hpp"
#include "core/paths.hpp"
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
  std::string write_scenario;
  int64_t write_rank = 1;
};

// plan --write-scenario FILE: the text of the scenario that runs the chosen plan (plan/job.hpp's
// contract), written by emit() with the other outputs; a note on the result says what was written.
std::string plan_scenario_yaml(const PlanArgs& a, const Scenario& searched, const plan::SearchOptions& opt, const plan::SearchOutcome& out,
                               const Catalog& cat, const Estimator& est, Result& r) {
  const uint32_t index = plan::ranked_index(out, a.write_rank, "--write-rank");
  const bool from_file = !a.job.scenario.empty();
  const std::string name = from_file ? resolve_data_path(a.job.scenario) : "command line";
  const std::string text = from_file ? read_file(name) : plan::job_scenario_text(job_spec(a.job));
  const plan::PlanEval& e = out.evals[index];
  const std::string plan_words = plan::describe(out.candidates[index], opt, searched);
  char step[64];
  std::snprintf(step, sizeof step, "%.6g", e.step_time_s);
  std::vector<std::string> header = {
      "Written by `sextant plan`: plan " + std::to_string(a.write_rank) + " of " +
          std::to_string(out.ranking.size()) + " fitting plans, estimated at " + step + " s per step.",
      "Plan: " + plan_words,
      from_file ? "Job: " + a.job.scenario + (a.job.sets.empty() ? std::string() : " with its --set overrides") +
                      " (its comments are not carried over)."
                : "Job: --model " + a.job.model + " --system " + a.job.system + " --num-gpus " + std::to_string(a.job.num_gpus) +
                      " --global-batch " + std::to_string(a.job.global_batch) + " --seq-len " + std::to_string(a.job.seq_len) +
                      " --precision " + job_spec(a.job).precision + "."};
  const std::string yaml = plan::plan_scenario_text(text, name, parse_sets(a.job.sets), searched, opt, out, index, cat, est, header);
  const bool to_stdout = a.write_scenario == "-" || a.write_scenario == "/dev/stdout";
  r.notes.push_back("plan " + std::to_string(a.write_rank) + " (" + plan_words + ") written to " +
                    (to_stdout ? "standard output: `sextant estimate` of it saved to a file" : a.write_scenario + ": `sextant estimate " + a.write_scenario + "`") +
                    " gives its " + step + " s per step.");
  return yaml;
}
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
  // An output as --json is: checked before the search (a folder or a path ending in '/' failed after
  // the whole search with "rename failed: Not a directory", leaving an empty folder; review of
  // 2026-12-06), and written with the other outputs by emit().
  add_output_file_option(
      *cmd, a->out, "--write-scenario", a->write_scenario,
      "Write the scenario that runs the best plan (or the --write-rank one) to FILE: the job's own scenario, "
      "--set overrides applied, with the plan's keys; `estimate FILE` gives the plan's step time");
  auto* write_rank = cmd->add_option("--write-rank", a->write_rank, "Which plan of the ranked table --write-scenario writes (default 1: the fastest)")
                         ->check(positive_integer());
  add_output_options(*cmd, a->out);
  cmd->callback([a, write_rank] {
    // A rank without a file to write had been accepted and nothing written (review of 2026-12-05;
    // an empty --write-scenario is refused by its option's check).
    if (write_rank->count() > 0 && a->write_scenario.empty())
      throw Error(SourceLocation{"--write-rank", 0, 0, ""}, "names the plan --write-scenario writes, and no --write-scenario is given",
                  "add --write-scenario FILE");
    if (!a->practice.empty() && !a->write_scenario.empty())
      throw Error(SourceLocation{"--write-scenario", 0, 0, ""}, "writes the plan of one job; --practice searches many",
                  "run plan on one job (a scenario, or --model --system --num-gpus --global-batch --seq-len)");
    const MpiWorld world;
    auto cat = a->job.catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->job.catalog_dir);
    if (!a->practice.empty()) {
      const plan::SearchOptions opt = search_options(a->search);
      const Estimator est;
      require_same_job(world, *cat, nullptr, a->practice);
      ProgressBar bar(!a->search.no_progress && world.rank() == 0);
      const Result r = plan::check_against_practice(a->practice, *cat, opt, est, bar.callback("jobs "), distribution(world));
      bar.finish();
      if (world.rank() == 0) emit(r, a->out);
      return;
    }
    bool own = false;
    Scenario s = load_job(a->job, *cat, &own);
    plan::SearchOptions opt = search_options(a->search);
    const Scenario written = s;  // before the stack's settings change (plan_result says how; review of 2026-12-07)
    restrict_to_framework(s, opt, *cat, a->search);
    opt.rerank_top = a->rerank_top;
    require_same_job(world, *cat, &s);
    const Estimator est;
    ProgressBar bar(!a->search.no_progress && world.rank() == 0);
    const plan::SearchOutcome out = plan::search(s, opt, est, distribution(world), bar.callback("plan "));
    bar.finish();
    plan::refuse_no_valid_plan(s, opt, out);
    const plan::Reranker simulate = [](const Scenario& sc) { return sim::simulate(sc).step.step_time_s; };
    Result r = plan::plan_result(s, opt, est, out, own, simulate, "simulate", &written);
    if (world.rank() != 0) return;
    std::vector<std::pair<std::string, std::string>> extra;
    if (!a->write_scenario.empty()) extra.emplace_back(a->write_scenario, plan_scenario_yaml(*a, s, opt, out, *cat, est, r));
    emit(r, a->out, extra);
  });
}

}  // namespace sextant::cli
