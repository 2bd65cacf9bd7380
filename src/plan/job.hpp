#pragma once
// The job a plan search is given, and the scenario it writes back out.
//
// A job is a scenario file (or text), or the five facts of a job without one: model, system, GPU
// count, global batch and sequence length (and the GEMM precision). `plan --model ... --system
// ...` (CLI) and `plan(None, model=..., ...)` (Python) build the second form with job_scenario(),
// so that both refuse the same inputs with the same messages.
//
// plan_scenario_text() writes the scenario that runs one plan of a search: the job's own document
// (its --set overrides applied) with num_gpus and every key the search chooses replaced by the
// plan's values. Contract: the text it returns parses, reads back as the same plan (same_plan),
// and `estimate` of it gives the step time the search gave that plan; otherwise it throws Error
// rather than write a scenario that runs something else. Comments of the job's file are not
// kept (the YAML library does not carry them); a header comment says where the text came from.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan.hpp"
#include "plan/search_args.hpp"

namespace sextant::plan {

using Overrides = std::vector<std::pair<std::string, std::string>>;

// The job without a scenario file. Counts are kUnsetJobCount when not given (an error naming the option).
// A count not given (a value no option accepts: -1 had been it, and `--num-gpus -1` read
// "missing --num-gpus"; 2026-12-05 review).
inline constexpr int64_t kUnsetJobCount = INT32_MIN;
struct JobSpec {
  std::string model, system, precision = "bf16";
  int64_t num_gpus = kUnsetJobCount, global_batch = kUnsetJobCount, seq_len = kUnsetJobCount;
};

// The document of such a job: model, system and training keys, one GPU and a placeholder plan
// (the search ignores it). Option values are quoted YAML strings.
std::string job_scenario_text(const JobSpec& j);

// The scenario of that job for a search. Errors name the options in `style` (--num-gpus or
// num_gpus): a missing or non-positive count, and a --set of a key an option gives or of a plan
// dimension the search chooses (use --fix).
Scenario job_scenario(const JobSpec& j, const Catalog& cat, const Overrides& sets, OptionStyle style = OptionStyle::Cli);

// `sweep` of a scenario: the plan is searched at every point and the scenario's own is not kept,
// so a set of a key the search chooses (parallel.tp, training.micro_batch, the overlap switches,
// ...) is an Error pointing to the --fix key that holds it (in `style`); before 2026-12-06 such a
// --set was ignored without a word (review). `plan` keeps them: they place its own plan.
void refuse_sweep_searched_sets(const Overrides& sets, OptionStyle style = OptionStyle::Cli);
// Whether the job's document (its `sets` applied) states a key the plan search chooses.
bool states_plan_keys(const std::string& job_text, const std::string& job_name, const Overrides& sets);

// The scenario text that runs out.candidates[index] (see the contract above). `job_text` and
// `job_name` are the job's document and its name (a path, or the name given to job_scenario_text's
// text), `sets` its overrides, `searched` the scenario the search ran (after restrict_to_framework),
// `header` comment lines without their '#' (each written as "# LINE").
std::string plan_scenario_text(const std::string& job_text, const std::string& job_name, const Overrides& sets,
                               const Scenario& searched, const SearchOptions& opt, const SearchOutcome& out, uint32_t index,
                               const Catalog& cat, const Estimator& est, const std::vector<std::string>& header);

// The candidate index of rank `rank` (1 = the fastest fitting plan) in out.ranking; Error naming
// `option` when the search has fewer fitting plans.
uint32_t ranked_index(const SearchOutcome& out, int64_t rank, const std::string& option);

}  // namespace sextant::plan
