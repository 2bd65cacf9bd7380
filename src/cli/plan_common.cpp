#include "cli/plan_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "core/result.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"

namespace sextant::cli {

void add_job_options(CLI::App& cmd, JobArgs& a, bool ranks_own_plan) {
  cmd.add_option("scenario", a.scenario,
                 ranks_own_plan ? "Scenario YAML: its model, system, GPUs, batch and sequence are searched, and its own plan is ranked"
                                : "Scenario YAML: its model, system, GPUs, batch and sequence; the plan is searched at every point");
  cmd.add_option("--model", a.model, "Model (catalog id, YAML or config.json) when no scenario is given");
  cmd.add_option("--system", a.system, "System (catalog id) when no scenario is given");
  cmd.add_option("--num-gpus", a.num_gpus, "GPU count when no scenario is given");
  cmd.add_option("--global-batch", a.global_batch, "Sequences per optimizer step when no scenario is given");
  cmd.add_option("--seq-len", a.seq_len, "Sequence length when no scenario is given");
  cmd.add_option("--precision", a.precision,
                 "GEMM precision when no scenario is given (bf16, fp8, ...; default bf16); with a scenario use --set training.precision=X");
  one_value_per_use(cmd.add_option("--set", a.sets, "Override a scenario key, e.g. --set training.seq_len=4096 (repeatable)"));
  cmd.add_option("--catalog", a.catalog_dir, "Catalog folder (default: the bundled data/catalog)");
}

void add_search_options(CLI::App& cmd, SearchArgs& a) {
  // One value per use (--fix, and the comma lists --schedules, --recompute, --zero): a vector option
  // took every argument up to the next option, so `plan --fix tp=1 s.yaml` and `sweep --zero 0,1
  // s.yaml` read the scenario as a second value and failed "missing --model" (2026-12-06 review).
  // A list is still one value split at its commas. --recompute-modules keeps several values per
  // use, Megatron-Core's syntax (`--recompute-modules layernorm layernorm+mlp`, README).
  one_value_per_use(cmd.add_option("--fix", a.fix, "Fix a plan dimension: tp pp vpp dp cp ep etp mb zero sp recompute tp_overlap grad_reduce_overlap param_gather_overlap, "
                                   "e.g. --fix tp=8 --fix grad_reduce_overlap=false (repeatable)"));
  one_value_per_use(cmd.add_option("--schedules", a.schedules, "Allowed pipeline schedules (default: 1f1b interleaved-1f1b gpipe zb-h1; add dualpipev to search it at vpp 2)"))
      ->delimiter(',');
  one_value_per_use(cmd.add_option("--recompute", a.recompute, "Recompute modes to try (default: none,selective,full)"))->delimiter(',');
  cmd.add_option("--recompute-modules", a.recompute_modules,
                 "Module sets selective recompute is searched with: 'ladder' (default: the model's modules added cheapest first, and the "
                 "scenario's set), 'scenario' (training.recompute_modules only), or sets of modules joined by '+', e.g. "
                 "core_attn core_attn+moe_act (modules: core_attn layernorm mlp moe_act shared_experts moe mla_up_proj)");
  one_value_per_use(cmd.add_option("--zero", a.zero, "ZeRO stages to try (default: 0,1,2,3)"))->delimiter(',');
  cmd.add_option("--max-micro-batch", a.max_micro_batch, "Largest micro-batch to try (default 0: no limit)");
  cmd.add_option("--max-vpp", a.max_vpp, "Largest virtual pipeline degree to try (default: layers/pp)");
  cmd.add_option("--headroom-gib", a.headroom_gib, "Memory to leave free on every GPU, GiB (default 0)");
  cmd.add_option("--tie-fraction", a.tie_fraction,
                 "Relative step-time difference below which plans tie (default: the validated median error of estimate, " +
                     format_double(plan::kValidatedMedianAbsErrorFraction) +
                     "; for an MoE model the median error of the MoE validation rows in its precision class)");
  cmd.add_flag("--no-tp-overlap", a.no_tp_overlap, "Do not try TP communication overlap");
  cmd.add_flag("--sp-only", a.no_sp_off, "With tp > 1 only try sequence parallelism on");
  cmd.add_flag("--vary-dp-overlap", a.vary_dp_overlap, "Also try gradient-reduce and parameter-gather overlap off (--fix grad_reduce_overlap=false holds one off)");
  cmd.add_option("--threads", a.threads, "Worker threads (default 0: the CPUs this process may use)")->check(non_negative_number());
  cmd.add_option("--top", a.top, "Rows of the ranked table (0: all fitting plans; default 20)")->check(unsigned_64("COUNT"));
  cmd.add_flag("--no-progress", a.no_progress, "Never draw the progress bar");
  cmd.add_flag("--any-framework-feature", a.any_framework_feature,
               "Search every plan feature, not only those the scenario's framework offers (its catalog capabilities)");
}

Scenario load_job(const JobArgs& a, const Catalog& cat, bool* has_own_plan) {
  const auto sets = parse_sets(a.sets);
  if (!a.scenario.empty()) {
    // A job option beside a scenario file is refused, naming the option given and the --set that
    // changes its key. Review of 2026-12-07: --precision was left out of this check (and defaulted
    // to bf16, so a given one could not be told apart), and `sweep SCENARIO --precision fp8` ran
    // the scenario's bf16 with exit 0; the error was located at --model whichever option was given.
    struct Given {
      bool given;
      const char* option;
      const char* key;
      std::string value;
    };
    const Given job_options[] = {
        {!a.model.empty(), "--model", "model", a.model},
        {!a.system.empty(), "--system", "system", a.system},
        {a.num_gpus != kUnsetCount, "--num-gpus", "num_gpus", std::to_string(a.num_gpus)},
        {a.global_batch != kUnsetCount, "--global-batch", "training.global_batch", std::to_string(a.global_batch)},
        {a.seq_len != kUnsetCount, "--seq-len", "training.seq_len", std::to_string(a.seq_len)},
        {a.precision.has_value(), "--precision", "training.precision", a.precision.value_or("")},
    };
    for (const auto& g : job_options)
      if (g.given)
        throw Error(SourceLocation{g.option, 0, 0, ""},
                    "give either a scenario file or --model/--system/--num-gpus/--global-batch/--seq-len/--precision, not both",
                    std::string("use --set to change a key of the scenario, e.g. --set ") + g.key + "=" + g.value);
    Scenario s = load_scenario_for_search(a.scenario, cat, sets);
    if (has_own_plan) *has_own_plan = s.invalid_plan.empty();
    return s;
  }
  if (has_own_plan) *has_own_plan = false;
  return plan::job_scenario(job_spec(a), cat, sets);
}

plan::JobSpec job_spec(const JobArgs& a) {
  plan::JobSpec j;
  j.model = a.model;
  j.system = a.system;
  if (a.precision) j.precision = *a.precision;  // else JobSpec's default, bf16
  j.num_gpus = a.num_gpus;
  j.global_batch = a.global_batch;
  j.seq_len = a.seq_len;
  return j;
}

plan::Distribution distribution(const MpiWorld& world) {
  plan::Distribution d;
  d.rank = world.rank();
  d.size = world.size();
  if (d.size > 1) {
    d.gather = [&world](const std::vector<plan::PlanEval>& mine) {
      std::string bytes(mine.size() * sizeof(plan::PlanEval), '\0');
      if (!mine.empty()) std::memcpy(bytes.data(), mine.data(), bytes.size());
      const std::string all = world.all_gather(bytes);
      std::vector<plan::PlanEval> out(all.size() / sizeof(plan::PlanEval));
      if (!out.empty()) std::memcpy(out.data(), all.data(), out.size() * sizeof(plan::PlanEval));
      return out;
    };
  }
  return d;
}

namespace {

// The catalog files Catalog::load reads (each kind's folder, .yaml/.yml in any case), by their
// names under the catalog folder and their bytes: the same catalog in another folder on another
// node hashes alike.
uint64_t catalog_files_hash(const std::string& dir) {
  namespace fs = std::filesystem;
  Fnv1a64 h;
  for (const char* kind : {"accelerators", "networks", "systems", "models", "frameworks"}) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(fs::path(dir) / kind, ec), end; !ec && it != end; it.increment(ec)) {
      std::string ext = it->path().extension().string();
      for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (it->is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      h.add_text(std::string(kind) + "/" + n);
      h.add_u64(file_bytes_hash((fs::path(dir) / kind / n).string()));
    }
  }
  return h.value();
}

// The job as this rank read it: the estimate of its own plan (a placeholder when the file states
// none that is valid) and its shape. A catalog number or a model or scenario file that differs
// changes it; an error estimating it is hashed as its text, so that every rank still compares.
// The scenario's and the model's files are hashed as bytes too: keys that steer the search but not
// the own plan's estimate (framework, moe_dispatcher at ep 1) had passed, and the ranks' shares of
// two different searches were merged with exit 0 (review of 2026-12-06).
uint64_t job_hash(const Scenario& s) {
  Fnv1a64 h;
  for (const std::string* f : {&s.file, &s.model.file})
    if (!f->empty()) h.add_u64(file_bytes_hash(*f));
  h.add_u64(static_cast<uint64_t>(s.num_gpus));
  h.add_u64(static_cast<uint64_t>(s.train.global_batch));
  h.add_u64(static_cast<uint64_t>(s.train.seq_len));
  try {
    const Estimator est;
    const StepEstimate e = est.run(ir::lower(s));
    for (const double v : {e.step_time_s, e.memory.total_bytes(), e.model_flops, e.hardware_flops, e.compute_s, e.exposed_comm_s, e.bubble_s,
                           e.optimizer_s, e.memory_capacity_bytes})
      h.add_double(v);
  } catch (const std::exception& ex) {
    h.add_text(ex.what());
  }
  return h.value();
}

}  // namespace

void require_same_job(const MpiWorld& world, const Catalog& cat, const Scenario* job, const std::string& practice_csv) {
  if (world.size() == 1) return;
  std::vector<InputPart> parts = {command_line_part(), {"the catalog files (rank 0 reads " + cat.dir() + ")", catalog_files_hash(cat.dir())}};
  if (job) parts.push_back({"the job as read (its scenario and model files and catalog numbers)", job_hash(*job)});
  if (!practice_csv.empty()) parts.push_back({"the practice file " + practice_csv, file_bytes_hash(practice_csv)});
  world.require_same_inputs(parts,
                            "give every rank the same options and the same files: mpirun passes the environment only to the ranks on "
                            "its own node, so forward the data folder with `mpirun -x SEXTANT_DATA_DIR` or name it with --catalog, and "
                            "give paths that hold the same files on every node");
}

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::finish() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

void ProgressBar::update(size_t done, size_t total, const std::string& what) {
  if (!enabled_ || total == 0) return;
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (el < 1.0) return;
  const double f = static_cast<double>(done) / static_cast<double>(total);
  const double eta = f > 0 ? el * (1 - f) / f : 0;
  const int width = 30, fill = static_cast<int>(f * width);
  std::string bar(static_cast<size_t>(fill), '#');
  bar.append(static_cast<size_t>(width - fill), '.');
  std::fprintf(stderr, "\r%s[%s] %3.0f%% %zu/%zu ETA %.0fs ", what.c_str(), bar.c_str(), f * 100, done, total, eta);
  std::fflush(stderr);
  drawn_ = true;
}

plan::Progress ProgressBar::callback(const std::string& what) {
  return [this, what](size_t d, size_t t) { update(d, t, what); };
}

}  // namespace sextant::cli
