#pragma once
// Parallel-plan search (`sextant plan`). Given a scenario's model, system, GPU count, global
// batch and sequence length, enumerate every valid plan (tp, pp, vpp, dp, cp, ep, etp,
// micro-batch, sequence parallelism, recompute, ZeRO stage, pipeline schedule, TP-comm overlap),
// prune the plans that cannot fit in memory before costing them, evaluate the rest with
// `estimate`, and rank them. See docs/plan.md.
//
// Determinism: candidates are enumerated in a fixed nested-loop order and each gets an index;
// evaluation writes into per-index slots, so the result is the same for any thread count and
// for any split of the work across processes (Distribution).
//
// Memory pruning: the plan module reproduces the estimator's per-GPU memory accounting from one
// lowering per memory shape (tp, pp, vpp, cp, ep, etp, sp, recompute at micro-batch 1): model
// states scale with the ZeRO shard and activations linearly with the micro-batch. A plan is
// pruned only when that figure exceeds the usable capacity; plans that pass are estimated and
// the estimator's own memory figure decides (tests check the two agree).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <type_traits>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "estimate/estimate.hpp"
#include "scenario/scenario.hpp"

namespace sextant::plan {

// The median absolute error of `estimate` against the published step times
// (docs/validation.md, "all rows, fitted constants"). Differences below it are ties.
inline constexpr double kValidatedMedianAbsErrorFraction = 0.0405;  // 4.05% (2026-12-06, session 53: pipeline end stages pay only their own sends); tests/validate/test_fidelity.cpp holds it to the measured median

// Step times closer than this fraction of the time are the same time: the ranking orders them by
// enumeration index and counts them as one (plans_with_best_step_time_count). Summation order alone
// had parted two identical executions by 2.2e-16 (review of 2026-12-07).
inline constexpr double kSameStepTimeFraction = 1e-12;
inline bool same_step_time(double a, double b) { return std::fabs(a - b) <= kSameStepTimeFraction * std::max(std::fabs(a), std::fabs(b)); }

// One candidate plan, compact (the search holds hundreds of thousands).
struct Candidate {
  int32_t tp = 1, pp = 1, vpp = 1, dp = 1, cp = 1, ep = 1, etp = 1, micro_batch = 1;
  uint8_t zero_stage = 0;
  uint8_t recompute = 0;  // Recompute as int
  uint8_t recompute_modules = 0;  // with selective: RecomputeModule flags (scenario.hpp); 0 otherwise
  // With full recompute (training.recompute_method / recompute_num_layers): 0 every layer on its
  // own; N + 1 the first N layers of each chunk (block N); -g every layer in groups of g.
  int16_t recompute_layers = 0;
  uint8_t schedule = 0;   // index into SearchOptions::schedules
  bool sequence_parallel = false;
  bool tp_comm_overlap = false;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  // The pp x vpp virtual stages laid out with the scenario's own parallel.stage_layers, not the
  // search's rule (docs/plan.md): enumerated only at the scenario's own pp and vpp, where its
  // stage sizes differ from the rule's layout (own_stage_layers). Review of 2026-12-06: DeepSeek-V3's
  // dualpipev plan, 61 layers on 32 virtual stages as 1 + 30 x 2 + 0, has no layout under the rule
  // (pp x vpp divides neither the layers nor the layers + 2), so neither plan nor sweep could find it.
  bool own_layout = false;
};

// The plan features the search may use: a software stack's capabilities (the catalog framework
// named by the scenario, `capabilities:` in data/catalog/frameworks/), or every feature the
// search knows (no framework named, or `--any-framework-feature`). docs/plan.md, "Framework
// capabilities". A restriction of the search only: the estimate of a given plan does not change,
// except that a stack without flash attention is searched with attention scores materialised
// (stack_scenario), which changes memory, not time.
struct StackFeatures {
  std::string framework;  // the catalog id the restriction comes from; "" = unrestricted
  bool tp = true, pp = true, cp = true, ep = true, sp = true, tp_comm_overlap = true;
  bool overlap_grad_reduce = true, overlap_param_gather = true, flash_attention = true;
  std::vector<Recompute> recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
  uint32_t recompute_modules = kAllRecomputeModules;  // RecomputeModule flags selective may name
  bool recompute_block = true;  // full recompute of only some layers per chunk (block method)
  std::vector<int> zero_stages = {0, 1, 2, 3};
  std::vector<int> pipeline_zero_stages = {0, 1, 2, 3};  // ZeRO stages usable with pp > 1
  std::vector<std::string> schedules = {"1f1b", "interleaved-1f1b", "gpipe", "zb-h1", "dualpipev"};
  bool restricted() const { return !framework.empty(); }
};
// The features of a catalog framework; unrestricted (but named) when its entry states no
// capabilities.
StackFeatures stack_features(const Framework& f);

// Which sets of modules selective recompute is searched with (docs/plan.md, "Recompute modules").
enum class ModuleSearch {
  Ladder,    // the cumulative ladder of the model's modules, cheapest to recompute first, and the scenario's set
  Scenario,  // the scenario's training.recompute_modules only
  Listed,    // SearchOptions::module_sets
};

struct SearchOptions {
  // Dimensions fixed by the user: keys tp pp vpp dp cp ep etp mb zero sp recompute tp_overlap
  // grad_reduce_overlap param_gather_overlap (values as integers; recompute 0 none, 1 selective,
  // 2 full; the switches 1 on, 0 off). Unknown keys are Errors. A DP overlap fixed is searched as
  // fixed whether or not vary_overlap_dp, except where it does nothing (it then reads on).
  std::map<std::string, int> fixed;
  std::vector<std::string> schedules = {"1f1b", "interleaved-1f1b", "gpipe", "zb-h1"};  // allowed
  std::vector<Recompute> recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
  ModuleSearch module_search = ModuleSearch::Ladder;
  std::vector<uint32_t> module_sets;   // ModuleSearch::Listed: RecomputeModule flag sets
  // ModuleSearch::Ladder: sets searched beside the ladder, those of plans the search places
  // (check against practice: each published selective plan's, as the job's own set is).
  std::vector<uint32_t> placed_module_sets;
  std::vector<int> zero_stages = {0, 1, 2, 3};
  int max_micro_batch = 0;             // 0: no limit
  int max_vpp = 0;                     // 0: up to layers / pp
  double min_headroom_bytes = 0;       // memory left free on every GPU
  bool vary_tp_comm_overlap = true;    // try TP communication overlap on and off when tp > 1
  bool vary_sequence_parallel = true;  // try SP on and off when tp > 1 (off only when false)
  bool vary_overlap_dp = false;        // also try gradient-reduce / parameter-gather overlap off
  double tie_fraction = kValidatedMedianAbsErrorFraction;
  // Messages name the options as Python's keyword arguments (fix, any_framework_feature) rather
  // than the CLI's flags (search_options with OptionStyle::Python sets it).
  bool python_names = false;
  // Unstated (false): plan_result widens tie_fraction for an MoE model to the median |error| of
  // the MoE validation rows in the model's precision class (ValidatedRange), which is the margin
  // its step times are known to.
  bool tie_fraction_stated = false;
  int threads = 0;                     // 0: all cores
  size_t top = 20;                     // rows of the ranked table (0: all)
  size_t rerank_top = 10;              // plans re-ranked by the reranker (plan_result), 0: none
  StackFeatures stack;                 // software-stack restriction (default: none)
};

// Splitting the evaluation across processes (MPI ranks). Each rank evaluates the indices
// i with i % size == rank; gather() is called with this rank's evaluations and must return
// the evaluations of all ranks (any order). Default: one process.
struct PlanEval {
  uint32_t index = 0;  // candidate index
  // 0 evaluated and fits, 1 pruned before costing (memory), 2 estimated but does not fit,
  // 3 dominated before costing: the same plan fits with a subset of its recompute modules, or
  // with fewer fully recomputed layers, which costs no more time (docs/plan.md, "Recompute modules")
  uint8_t status = 0;
  int16_t recompute_layers = 0;  // full recompute of every layer costed as block N (Candidate::recompute_layers); 0 none
  double step_time_s = 0, tokens_per_s_per_gpu = 0, mfu_fraction = 0, memory_bytes = 0;
  double compute_s = 0, exposed_comm_s = 0, bubble_s = 0, optimizer_s = 0;
};
static_assert(std::is_trivially_copyable_v<PlanEval>, "PlanEval is gathered across MPI ranks as bytes");
struct Distribution {
  int rank = 0, size = 1;
  std::function<std::vector<PlanEval>(const std::vector<PlanEval>&)> gather;
};

// Progress callback: (done, total) from the calling thread, at most every few milliseconds.
using Progress = std::function<void(size_t done, size_t total)>;

struct SearchOutcome {
  std::vector<Candidate> candidates;  // every valid plan, in enumeration order (replaced ones as costed)
  std::vector<PlanEval> evals;        // one per candidate, same order
  std::vector<uint32_t> ranking;      // indices of fitting plans, fastest first
  // 1 where a full-recompute-of-every-layer candidate was costed, and now reads, as full recompute
  // of the fewest layers per chunk that fit (block N; docs/plan.md, Recompute modules).
  std::vector<uint8_t> replaced;
  size_t enumerated = 0;              // combinations considered (before the validity rules)
  size_t valid = 0, pruned = 0, dominated = 0, evaluated = 0, fit = 0;
  double seconds = 0;                 // wall time of the evaluation
  int threads = 1;
};

// The scenario with the candidate's plan applied (stage layout by the rule in docs/plan.md). A
// candidate with own_layout keeps s's own parallel.stage_layers, so s must be the scenario the
// search was given or a copy of it (an Error otherwise: sizes that do not fit c's pp x vpp).
void apply_candidate(Scenario& s, const Candidate& c, const SearchOptions& opt);
// The scenario keys of a candidate that its degrees and switches do not spell out, as
// apply_candidate sets them: training.recompute_method and recompute_num_layers (full recompute
// only: "" and 0 otherwise), parallel.stage_rule and parallel.stage_layers, one of the two as a
// scenario states them (the rule "" where sizes are given; the sizes empty where the rule lays the
// stages out). The ranking table's columns of the same names (review of 2026-12-07: its
// columns read recompute=full for rc:full(block 28) and nothing of layers 10/11/11, so a row did
// not map back to its scenario). base: the scenario searched (a candidate with own_layout takes
// its parallel.stage_layers).
struct PlanKeys {
  std::string recompute_method;
  int recompute_num_layers = 0;
  std::string stage_rule;
  std::vector<int> stage_layers;
};
PlanKeys plan_keys(const Candidate& c, const Scenario& base);
// The scenario's own stage sizes (parallel.stage_layers) where the search lays the virtual stages
// of pp and vpp out with them (Candidate::own_layout): at the scenario's own pp and vpp, for a valid
// plan whose sizes differ from the search's rule; empty otherwise.
std::vector<int> own_stage_layers(const Scenario& base, int pp, int vpp);
Candidate candidate_of(const Scenario& s, const SearchOptions& opt);  // the scenario's own plan
// The plan in estimate's notation (plan_text): an MoE plan names the scenario's dispatcher and EP
// overlap. describe_own also names a schedule outside opt.schedules (a scenario's own plan).
std::string describe(const Candidate& c, const SearchOptions& opt, const Scenario& base);
std::string describe_own(const Candidate& own, const SearchOptions& opt, const Scenario& base);
// The features of the plan that opt.stack does not offer, comma-separated ("" when none).
std::string stack_violations(const Candidate& c, const Scenario& base, const SearchOptions& opt);
// A note on r when the scenario names a framework whose catalog capabilities lack features its
// plan uses (ZeRO-3 with a pipeline under DeepSpeed, sequence parallelism under FSDP): estimate
// and simulate price the plan as written, but that stack could not run it (review of 2026-12-04:
// such a plan was estimated without a word). Nothing when no framework is named.
void add_framework_note(Result& r, const Scenario& s, const Catalog& cat);
// The scenario as the stack runs it: attention scores materialised when the stack has no flash
// attention (a memory difference only); otherwise the scenario unchanged.
Scenario stack_scenario(const Scenario& s, const StackFeatures& stack);
bool same_plan(const Candidate& a, const Candidate& b, bool moe);  // canonical comparison (moe: the model has experts)

// Enumerate the valid plans of the scenario's model/system/GPUs/batch/sequence (its own plan is
// ignored). `enumerated` receives the number of combinations considered.
// The recompute-module sets selective recompute is searched with (opt.module_search), each one
// offered by opt.stack and present in the model (docs/plan.md, "Recompute modules").
std::vector<uint32_t> selective_module_sets(const Scenario& base, const SearchOptions& opt);
// Candidate::recompute_layers of a scenario's full recompute (0 when it recomputes every layer
// on its own, or is not full).
int16_t full_recompute_layers(const TrainingConfig& t);
// The forms of full recompute enumerated (Candidate::recompute_layers): every layer (0) and the
// scenario's own partial form.
std::vector<int16_t> full_recompute_candidates(const Scenario& base, const SearchOptions& opt);
// The block forms a full-recompute-of-every-layer plan with pp * vpp chunks may be costed as
// instead, fewest layers first (with ModuleSearch::Ladder and a stack that offers the block
// method): every N from 1 to the largest chunk's layers - 1, or 24 evenly spaced N
// (ceil(q n / 25), q = 1..24) in a chunk of more than 25 layers.
std::vector<int16_t> full_recompute_rungs(const Scenario& base, const SearchOptions& opt, int pp, int vpp);
// Index of the candidate that is `own` (a replaced candidate matches as the full recompute of
// every layer it was enumerated as; *replaced then says so), or -1.
int64_t find_plan(const SearchOutcome& out, const Candidate& own, bool moe, bool* replaced = nullptr);
// The names a search is given (--fix dimensions, --schedules): an error naming the bad one and
// the valid choices. enumerate_plans checks them; sweep checks them before its grid runs.
void check_search_names(const SearchOptions& opt);
std::vector<Candidate> enumerate_plans(const Scenario& base, const SearchOptions& opt, size_t* enumerated = nullptr);

// Memory per GPU of the most loaded rank as the estimator computes it, from the memory-shape
// cache (see above). Exposed for tests.
class MemoryModel {
 public:
  MemoryModel(const Scenario& base, const SearchOptions& opt, const Estimator& est);
  ~MemoryModel();
  MemoryModel(const MemoryModel&) = delete;
  MemoryModel& operator=(const MemoryModel&) = delete;
  double bytes(const Candidate& c) const;  // thread-safe after prepare()
  bool has(const Candidate& c) const;      // whether prepare() saw c's shape
  void prepare(const std::vector<Candidate>& cands);  // lowers each distinct memory shape once

 private:
  struct Impl;
  Impl* impl_;
};

SearchOutcome search(const Scenario& base, const SearchOptions& opt, const Estimator& est,
                     const Distribution& dist = {}, const Progress& progress = {});

// A second, finer model used to re-rank the best plans (the CLI passes `simulate`): the step
// time of a scenario. Kept as a callback so that the plan module does not depend on it.
using Reranker = std::function<double(const Scenario&)>;

// The full Result of `sextant plan`: ranked table, counts, winner vs runner-up, and (when
// `rank_own_plan`) where the scenario's own plan ranks. With a reranker and rerank_top > 0,
// table `reranked` holds the best rerank_top plans ordered by the reranker's step time.
// The search found no valid plan at all (every combination breaks a plan constraint): the command
// refuses the run (exit 2) with the constraints and the fixed values to check, as `plan` and
// Python's plan() do (an empty ranking with exit 0 had hidden it from scripts; 2026-12-04 review).
std::string no_valid_plan_text(const Scenario& base, const SearchOptions& opt);
void refuse_no_valid_plan(const Scenario& base, const SearchOptions& opt, const SearchOutcome& out);
// written: the job before restrict_to_framework (or none); where the search runs it with other
// stack settings (searched_stack_changes: --any-framework-feature switching flash attention on),
// a note says which, framework_features names them, and the own plan as written is estimated too
// (own_plan_as_written_step_time_s); the result's other step times, the own plan's included, are
// the searched stack's (review of 2026-12-07).
Result plan_result(const Scenario& base, const SearchOptions& opt, const Estimator& est, const SearchOutcome& out,
                   bool rank_own_plan, const Reranker& rerank = {}, const std::string& rerank_name = {},
                   const Scenario* written = nullptr);
// The stack settings of `searched` that differ from `written` (the job before restrict_to_framework):
// training.flash_attention and attention_peak_fraction, as "training.flash_attention=true (the
// scenario: false)"; empty when the search runs the scenario's own.
std::vector<std::string> searched_stack_changes(const Scenario& written, const Scenario& searched);

// Parse "--fix" items "tp=8" into opt.fixed (Error on unknown keys or bad values).
void parse_fix(const std::string& item, SearchOptions& opt);
// A fixed value as it is typed, for messages: recompute none/selective/full, the switches (sp,
// tp_overlap, grad_reduce_overlap, param_gather_overlap) true/false, the others as integers.
std::string fix_value_text(const std::string& key, int v);
// --recompute-modules: "ladder", "scenario", or module sets joined by '+' ("core_attn+moe_act").
void parse_module_search(const std::vector<std::string>& items, SearchOptions& opt);

}  // namespace sextant::plan

namespace sextant::plan {

// Check against practice: for each distinct job (model, system, accelerator, GPUs, global batch,
// sequence, precision) of a training.csv, search its plans and report, for every published plan
// of that job, whether it is among the valid plans, its rank, its predicted step time and how far
// that is from the best plan found. Table `practice` (one row per published plan), in two views:
// within the row's software stack (its `framework` column's capabilities: the plans that stack
// could run; columns best_*, predicted_speedup_ratio) and unrestricted (every feature the search
// knows; columns unrestricted_*). opt.stack is ignored: each row's framework sets the first view.
Result check_against_practice(const std::string& training_csv, const Catalog& cat, const SearchOptions& opt,
                              const Estimator& est, const Progress& progress = {}, const Distribution& dist = {});

}  // namespace sextant::plan
