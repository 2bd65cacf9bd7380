#include "cli/plan_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "core/result.hpp"

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
  cmd.add_option("--precision", a.precision, "GEMM precision when no scenario is given (bf16, fp8, ...)");
  cmd.add_option("--set", a.sets, "Override a scenario key, e.g. --set training.seq_len=4096 (repeatable)");
  cmd.add_option("--catalog", a.catalog_dir, "Catalog folder (default: the bundled data/catalog)");
}

void add_search_options(CLI::App& cmd, SearchArgs& a) {
  cmd.add_option("--fix", a.fix, "Fix a plan dimension: tp pp vpp dp cp ep etp mb zero sp recompute tp_overlap grad_reduce_overlap param_gather_overlap, "
                 "e.g. --fix tp=8 --fix grad_reduce_overlap=false (repeatable)");
  cmd.add_option("--schedules", a.schedules, "Allowed pipeline schedules (default: 1f1b interleaved-1f1b gpipe zb-h1; add dualpipev to search it at vpp 2)")->delimiter(',');
  cmd.add_option("--recompute", a.recompute, "Recompute modes to try (default: none,selective,full)")->delimiter(',');
  cmd.add_option("--recompute-modules", a.recompute_modules,
                 "Module sets selective recompute is searched with: 'ladder' (default: the model's modules added cheapest first, and the "
                 "scenario's set), 'scenario' (training.recompute_modules only), or sets of modules joined by '+', e.g. "
                 "core_attn core_attn+moe_act (modules: core_attn layernorm mlp moe_act shared_experts moe mla_up_proj)");
  cmd.add_option("--zero", a.zero, "ZeRO stages to try (default: 0,1,2,3)")->delimiter(',');
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
    if (!a.model.empty() || !a.system.empty() || a.num_gpus != kUnsetCount || a.global_batch != kUnsetCount || a.seq_len != kUnsetCount)
      throw Error(SourceLocation{"--model", 0, 0, "scenario"}, "give either a scenario file or --model/--system/--num-gpus/--global-batch/--seq-len, not both",
                  "use --set to change a key of the scenario");
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
  j.precision = a.precision;
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
