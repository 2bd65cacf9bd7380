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
#include "plan/job.hpp"
#include "plan/search_args.hpp"

namespace sextant::cli {

// The counts' value when the option is not given (0 given is an error of its own).
inline constexpr int kUnsetCount = static_cast<int>(plan::kUnsetJobCount);

struct JobArgs {
  std::string scenario, catalog_dir, model, system;
  // --precision as given: unset unless the option is given, so that a scenario file refuses it as
  // it refuses --num-gpus; the no-scenario form applies plan::JobSpec's default (bf16). Before
  // 2026-12-07 (review) it defaulted to "bf16" here and `sweep SCENARIO --precision fp8` was
  // ignored without a word (the scenario's own precision ran, exit 0).
  std::optional<std::string> precision;
  int num_gpus = kUnsetCount, seq_len = kUnsetCount;
  int64_t global_batch = kUnsetCount;
  std::vector<std::string> sets;
};

// The search options (plan/search_args.hpp) and the CLI's own: the progress bar.
struct SearchArgs : plan::SearchArgs {
  bool no_progress = false;
};

void add_job_options(CLI::App& cmd, JobArgs& a, bool ranks_own_plan = true);
void add_search_options(CLI::App& cmd, SearchArgs& a);
// The scenario of the job (its own plan kept when read from a file); `has_own_plan` tells. With a
// scenario file a job option (--model ... --precision) is an Error naming the option given.
Scenario load_job(const JobArgs& a, const Catalog& cat, bool* has_own_plan);
// The job without a scenario file, as plan::job_scenario takes it.
plan::JobSpec job_spec(const JobArgs& a);
using plan::restrict_to_framework;
using plan::search_options;
plan::Distribution distribution(const MpiWorld& world);
// Under mpirun, before the search is split: refuses (MpiWorld::require_same_inputs) ranks that do
// not read the same job: another command line, other catalog files (each .yaml the catalog reads,
// by its name and bytes), or another job as read (the scenario or model file, and every catalog
// number it uses: the estimate of `job`'s own plan, its step time and memory as raw bits; nullptr
// for plan --practice, whose CSV `practice_csv` is hashed instead). Nothing is computed in a
// world of one.
void require_same_job(const MpiWorld& world, const Catalog& cat, const Scenario* job, const std::string& practice_csv = {});

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
