// sextant goodput FILE: the goodput and resiliency planner (docs/goodput.md).
#include <cmath>
#include <optional>

#include "cli/cli.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/atomic_file.hpp"
#include "goodput/config.hpp"
#include "goodput/fit.hpp"
#include "goodput/goodput.hpp"

namespace sextant::cli {

namespace {
struct GoodputArgs {
  std::string file;
  int64_t replicas = 0, search_replicas = 0;
  uint64_t seed = 0;
  int threads = -1;
  double target_ettr = -1;
  bool no_search = false, list_presets = false;
  std::string fit_csv, fit_out;
  double fit_nodes = 0, fit_days = 0;
  // Whether --fit-nodes and --fit-days were given (their option's count): 0 is a value someone can
  // give, to be refused as out of range, not a sign of a missing option (2026-12-06 review).
  bool fit_nodes_given = false, fit_days_given = false;
  std::vector<std::string> sets;
  OutputOptions out;
};


Result list_presets() {
  Result r;
  r.command = "goodput presets";
  Table& t = r.add_table("presets", "bundled failure presets (data/goodput/)");
  t.add_str("preset");
  t.add_i64("processes_count");
  // One rate per kind: a fail-slow episode or an SDC does not stop the job the way a crash does,
  // and a single sum read as "failures per 1000 node-days" (2026-12-03 review).
  t.add_f64("interrupt_rate_per_1000_node_days");
  t.add_f64("sdc_rate_per_1000_node_days");
  t.add_f64("fail_slow_rate_per_1000_node_days");
  t.add_f64("preemption_rate_per_1000_node_days");
  t.add_i64("per_domain_or_job_processes_count");
  t.add_str("description");
  for (const auto& name : goodput::failure_preset_names()) {
    std::string desc;
    const auto procs = goodput::load_failure_preset(name, &desc);
    double rate[4] = {0, 0, 0, 0};
    int64_t other = 0;
    for (const auto& p : procs) {
      rate[static_cast<int>(p.kind)] += p.rate_per_node_s * 86400.0 * 1000.0;
      other += (p.rate_per_domain_s > 0 || p.rate_per_job_s > 0) ? 1 : 0;
    }
    t.add_row({name, int64_t(procs.size()), rate[static_cast<int>(goodput::EventKind::Interrupt)],
               rate[static_cast<int>(goodput::EventKind::Sdc)], rate[static_cast<int>(goodput::EventKind::FailSlow)],
               rate[static_cast<int>(goodput::EventKind::Preemption)], other, desc});
  }
  r.notes.push_back("the rates sum the per-node processes of each kind; processes with a per-domain or per-job rate "
                    "are counted apart (their rate depends on the job's size)");
  return r;
}
Result fit(const GoodputArgs& a) {
  // A value given but not positive is named as such ("--fit needs --fit-nodes" read oddly with
  // --fit-nodes -5 on the line, 2026-12-03 review).
  if (!a.fit_nodes_given && !a.fit_days_given)
    throw Error(SourceLocation{"--fit", 0, 0, "--fit-nodes"}, "--fit needs --fit-nodes N and --fit-days D (the observation)");
  // One left out is said to be missing (it read "got 0", a value nobody gave). Missing is told by
  // the option's count: a given 0 had been taken for a missing option ("--fit needs --fit-days D"
  // with --fit-days 0 on the line) where -2 was named out of range (2026-12-06 review).
  if (!a.fit_nodes_given) throw Error(SourceLocation{"--fit", 0, 0, "--fit-nodes"}, "--fit needs --fit-nodes N, the nodes observed");
  if (!a.fit_days_given) throw Error(SourceLocation{"--fit", 0, 0, "--fit-days"}, "--fit needs --fit-days D, the days observed");
  if (!(a.fit_nodes > 0)) throw Error(SourceLocation{"--fit", 0, 0, "--fit-nodes"}, "must be a number of nodes > 0, got " + format_double(a.fit_nodes));
  if (!(a.fit_days > 0)) throw Error(SourceLocation{"--fit", 0, 0, "--fit-days"}, "must be a number of days > 0, got " + format_double(a.fit_days));
  // The preset written holds observed.nodes, which the preset loader reads as a whole number: a
  // fractional count (512.5) had been fitted and written, and the preset then refused (2026-12-06
  // review). The same rule and words here.
  if (!std::isfinite(a.fit_nodes) || a.fit_nodes != std::floor(a.fit_nodes) || a.fit_nodes < 1)
    throw Error(SourceLocation{"--fit", 0, 0, "--fit-nodes"}, "a count of nodes is a whole number >= 1", "got " + format_double(a.fit_nodes));
  const auto f = goodput::fit_incidents(read_file(a.fit_csv), a.fit_csv, a.fit_nodes, a.fit_days);
  Result r;
  r.command = "goodput fit";
  r.set("incidents_file", a.fit_csv);
  r.set("nodes_count", a.fit_nodes);
  r.set("observed_days", a.fit_days);
  Table& t = r.add_table("fitted_processes", "one failure process per incident category");
  t.add_str("process");
  t.add_str("component");
  t.add_i64("count");
  t.add_f64("rate_per_1000_node_days");
  t.add_f64("mean_interarrival_s");
  t.add_str("distribution");
  t.add_f64("weibull_shape");
  t.add_f64("weibull_shape_ci95_low");
  t.add_f64("weibull_shape_ci95_high");
  t.add_f64("exponential_lr_p_value");
  t.add_f64("time_resolution_s");  // > 0: times at this resolution, with ties, fitted interval-censored
  t.add_i64("tied_gaps_count");
  int64_t total = 0;
  bool any_kept_exponential = false, any_censored = false, any_dropped_ties = false;
  for (const auto& p : f) {
    total += p.count;
    const double nan = std::nan("");
    any_kept_exponential |= p.shape_fitted && !p.weibull_selected;
    t.add_row({p.process.name, p.process.component, p.count, p.process.rate_per_node_s * 86400.0 * 1000.0,
               p.mean_interarrival_s, p.process.distribution, p.shape_fitted ? p.weibull_shape : nan,
               p.shape_fitted ? p.shape_ci_low : nan, p.shape_fitted ? p.shape_ci_high : nan, p.shape_fitted ? p.lr_p_value : nan,
               p.time_resolution_s > 0 ? p.time_resolution_s : nan, p.tied_gaps});
    any_censored |= p.time_resolution_s > 0;
    any_dropped_ties |= p.shape_fitted && p.time_resolution_s == 0 && p.tied_gaps > 0;
  }
  if (any_censored)
    r.notes.push_back("incident times with ties at a common resolution (time_resolution_s, e.g. a log in whole hours) are fitted as "
                      "interval-censored at that resolution: dropping the ties would leave out the short gaps and make the "
                      "incidents look regular (shape above 1)");
  if (any_dropped_ties)
    r.notes.push_back("some categories have simultaneous incidents (tied_gaps_count) at no common resolution: their zero gaps are left "
                      "out of the shape fit");
  r.notes.push_back("a category with 10 or more incidents gets a maximum-likelihood Weibull shape with its 95% profile-likelihood "
                    "interval; the Weibull is used only when the likelihood-ratio test rejects the exponential (p < 0.05)");
  if (any_kept_exponential)
    r.notes.push_back("exponential kept where the data give no evidence against shape 1 (p >= 0.05)");
  r.set("incidents_count", total);
  r.set("rate_per_1000_node_days", double(total) / (a.fit_nodes * a.fit_days) * 1000.0);
  if (!a.fit_out.empty()) {
    write_file_atomic(a.fit_out, goodput::fitted_preset_yaml(f, "fitted", a.fit_nodes, a.fit_days, a.fit_csv));
    r.notes.push_back("preset written to " + a.fit_out + " (use it as failures: {preset: " + a.fit_out + "})");
  }
  return r;
}
}  // namespace

void add_goodput_command(CLI::App& app) {
  auto args = std::make_shared<GoodputArgs>();
  auto* cmd = app.add_subcommand(
      "goodput",
      "Goodput and resiliency planner: simulate a training job under failures, checkpoints and recovery\n"
      "(ETTR with confidence intervals, lost time by cause, optimal checkpoint interval, spares, knobs)");
  auto* o_file = cmd->add_option("file", args->file, "Goodput input YAML (path, or relative to the data folder, e.g. examples/goodput-llama3-405b-16k.yaml)");
  // Given options are applied by whether they were given (count), never by a sentinel value: a
  // --replicas 0 or --seed -1 used to be ignored silently.
  // Replica counts up to the most the simulation holds in memory (a larger one had passed here and
  // been refused by the budget check, named at the option; 2026-12-06 review).
  const std::string replicas_rule = "an integer from 2 to " + std::to_string(goodput::kMaxReplicas) + ", the most the simulation holds in memory";
  const std::string replicas_label = "[2, " + std::to_string(goodput::kMaxReplicas) + "]";
  auto* o_replicas = cmd->add_option("--replicas", args->replicas, "Monte Carlo replicas, 2 to 1000000 (overrides simulation.replicas)")
                         ->check(count_check(2, goodput::kMaxReplicas, replicas_rule, replicas_label));
  auto* o_seed = cmd->add_option("--seed", args->seed, "Random seed, 0 to 2^63-1 (overrides simulation.seed)")->check(unsigned_64());
  auto* o_threads = cmd->add_option("--threads", args->threads, "Worker threads (0: the CPUs this process may use, affinity and cgroup quota; results do not depend on it)")->check(count_check(0, 4096, "an integer from 0 (all cores) to 4096, as simulation.threads", "[0, 4096]"));
  auto* o_target = cmd->add_option("--target-ettr", args->target_ettr, "Solve each knob for this ETTR, in [0, 1); 0 solves none (overrides simulation.target_ettr)")
                       ->check(number_check(0, false, 1, "a fraction in [0, 1)", "[0, 1)"));
  auto* o_search = cmd->add_option("--search-replicas", args->search_replicas, "Replicas per evaluation in the interval search and knob solving, 2 to 1000000")
                       ->check(count_check(2, goodput::kMaxReplicas, replicas_rule, replicas_label));
  auto* o_no_search = cmd->add_flag("--no-search", args->no_search, "Skip the interval search, strategy comparison and knob solving");
  o_search->excludes(o_no_search);  // (the searches it sizes do not run: it was ignored, exit 0)
  auto* o_list = cmd->add_flag("--list-presets", args->list_presets, "List the bundled failure presets and exit");
  auto* o_fit = cmd->add_option("--fit", args->fit_csv, "Fit failure processes from a CSV of incidents (time_h,category[,component][,node_lost])");
  // Without --fit they did nothing and the run exited 0 (before 2026-12-03).
  auto* o_fit_nodes = cmd->add_option("--fit-nodes", args->fit_nodes, "Nodes observed (with --fit)")->needs(o_fit);
  auto* o_fit_days = cmd->add_option("--fit-days", args->fit_days, "Days observed (with --fit)")->needs(o_fit);
  cmd->add_option("--fit-out", args->fit_out, "Write the fitted processes as a preset YAML (with --fit)")->needs(o_fit);
  auto* o_set = one_value_per_use(cmd->add_option("--set", args->sets, "Override an input key: --set checkpoint.interval_minutes=30 (repeatable)"));
  // --list-presets and --fit read no input file and run no simulation: an input, a --set or a
  // simulation option beside them was dropped without a word, exit 0 (before 2026-12-04).
  for (auto* mode : {o_list, o_fit})
    for (auto* o : {o_file, o_set, o_replicas, o_seed, o_threads, o_target, o_search, static_cast<CLI::Option*>(o_no_search)})
      mode->excludes(o);
  o_list->excludes(o_fit);
  add_output_options(*cmd, args->out);
  cmd->callback([args, o_replicas, o_seed, o_target, o_search, o_fit_nodes, o_fit_days] {
    if (args->list_presets) {
      emit(list_presets(), args->out);
      return;
    }
    if (!args->fit_csv.empty()) {
      args->fit_nodes_given = o_fit_nodes->count() > 0;
      args->fit_days_given = o_fit_days->count() > 0;
      emit(fit(*args), args->out);
      return;
    }
    if (args->file.empty()) throw Error(SourceLocation{"", 0, 0, "FILE"}, "a goodput input file is required",
                                        "e.g. sextant goodput examples/goodput-llama3-405b-16k.yaml");
    auto sets = parse_sets(args->sets, "checkpoint.interval_minutes=30");
    // The budget is checked once the options are applied: --replicas or --no-search may bring a
    // file over budget within it (before 2026-12-02 the file's own values were refused first).
    auto c = goodput::load_goodput(args->file, sets, /*check_budget=*/false);
    if (o_replicas->count()) c.sim.replicas = args->replicas;
    if (o_seed->count()) c.sim.seed = args->seed;
    if (args->threads >= 0) c.sim.threads = args->threads;
    if (o_target->count()) {
      if (args->target_ettr >= 1) throw Error(SourceLocation{"--target-ettr", 0, 0, "--target-ettr"}, "an ETTR target is a fraction below 1");
      c.sim.target_ettr = args->target_ettr;
    }
    // Replicas for searches the file turned off would do nothing (exit 0 without a word before
    // 2026-12-04), as --no-search with it is refused.
    if (o_search->count() && !c.sim.search)
      throw Error(SourceLocation{args->file, 0, 0, "simulation.search"},
                  "--search-replicas sizes the interval search and knob solving, which this file turns off (simulation.search: false)",
                  "add --set simulation.search=true, or leave --search-replicas out");
    if (o_search->count()) c.sim.search_replicas = args->search_replicas;
    if (args->no_search) c.sim.search = false;
    // (A replica count over the limit given as an option is refused by its own check, count_check.)
    goodput::check_simulation_budget(c, c.simulation_loc);
    emit(goodput::run_goodput(c), args->out);
  });
}

}  // namespace sextant::cli
