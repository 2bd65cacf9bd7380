#pragma once
// Options shared by `sextant plan` and `sextant sweep`: the job (a scenario file or
// --model/--system/--num-gpus/--global-batch/--seq-len), the search constraints, threads,
// MPI distribution and the progress bar.
#include <optional>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/mpi_world.hpp"
#include "plan/plan.hpp"

namespace sextant::cli {

struct JobArgs {
  std::string scenario, catalog_dir, model, system, precision = "bf16";
  int num_gpus = 0, seq_len = 0;
  int64_t global_batch = 0;
  std::vector<std::string> sets;
};

struct SearchArgs {
  std::vector<std::string> fix, schedules, recompute, recompute_modules, zero;
  int max_micro_batch = 0, max_vpp = 0, threads = 0;
  double headroom_gib = 0;
  std::optional<double> tie_fraction;  // unstated: the validated median error (the MoE rows' for an MoE model)
  bool no_tp_overlap = false, no_sp_off = false, vary_dp_overlap = false, no_progress = false;
  bool any_framework_feature = false;  // lift the scenario framework's capability restriction
  size_t top = 20;
};

void add_job_options(CLI::App& cmd, JobArgs& a, bool ranks_own_plan = true);
void add_search_options(CLI::App& cmd, SearchArgs& a);
// The scenario of the job (its own plan kept when read from a file); `has_own_plan` tells.
Scenario load_job(const JobArgs& a, const Catalog& cat, bool* has_own_plan);
plan::SearchOptions search_options(const SearchArgs& a);
// The scenario's framework (when it names one) restricts the search to the plan features that
// stack offers (catalog capabilities), unless --any-framework-feature; a stack without flash
// attention is searched with attention scores materialised (plan::stack_scenario).
void restrict_to_framework(Scenario& s, plan::SearchOptions& opt, const Catalog& cat, const SearchArgs& a);
plan::Distribution distribution(const MpiWorld& world);

// Progress bar with ETA on stderr: drawn only when stderr is a terminal, the run has lasted more
// than a second and this is rank 0; erased at the end.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  void update(size_t done, size_t total, const std::string& what = {});
  void finish();  // erase the bar (before the result is printed)
  plan::Progress callback(const std::string& what = {});

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace sextant::cli
