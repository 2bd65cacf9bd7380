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
  cmd.add_option("--fix", a.fix, "Fix a plan dimension: tp pp vpp dp cp ep etp mb zero sp recompute tp_overlap, e.g. --fix tp=8 (repeatable)");
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
  cmd.add_flag("--vary-dp-overlap", a.vary_dp_overlap, "Also try gradient-reduce and parameter-gather overlap off");
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
  auto need = [](bool ok, const char* key) {
    if (!ok) throw Error(SourceLocation{"command line", 0, 0, key}, std::string("missing ") + key,
                         "give a scenario file or all of --model --system --num-gpus --global-batch --seq-len");
  };
  need(!a.model.empty(), "--model");
  need(!a.system.empty(), "--system");
  // A count given but not positive is its own error (it read "missing --num-gpus" before 2026-12-03).
  // Unset options hold -1 (sentinel below); 0 given is "must be positive", not "missing" (it read
  // "missing --num-gpus" for --num-gpus 0; review of 2026-12-04).
  auto positive = [&](int64_t v, const char* key) {
    if (v == kUnsetCount) need(false, key);
    if (v <= 0) throw Error(SourceLocation{"command line", 0, 0, key}, "must be a positive integer", "got " + std::to_string(v));
  };
  positive(a.num_gpus, "--num-gpus");
  positive(a.global_batch, "--global-batch");
  positive(a.seq_len, "--seq-len");
  // Without a scenario there is no plan of the job's own: a --set of a key the options give, or of
  // a dimension the search chooses, is refused by name (before 2026-12-05 it was applied to the
  // one-GPU placeholder below: "--set parallel.tp=2" read "tp*pp*dp*cp = 2 but num_gpus = 1" at
  // line 5 of text the user never wrote, and --set training.global_batch=128 beat --global-batch 64).
  for (const auto& [key, value] : sets) {
    static const std::pair<const char*, const char*> given[] = {{"model", "--model"},
                                                                {"system", "--system"},
                                                                {"num_gpus", "--num-gpus"},
                                                                {"training.global_batch", "--global-batch"},
                                                                {"training.seq_len", "--seq-len"},
                                                                {"training.precision", "--precision"}};
    for (const auto& [k, option] : given)
      if (key == k)
        throw Error(SourceLocation{"--set", 0, 0, key}, "given by " + std::string(option) + " in a job without a scenario file",
                    "change " + std::string(option) + " instead");
    static const std::pair<const char*, const char*> searched[] = {
        {"parallel.tp", "--fix tp=N"},          {"parallel.pp", "--fix pp=N"},       {"parallel.vpp", "--fix vpp=N"},
        {"parallel.dp", "--fix dp=N"},          {"parallel.cp", "--fix cp=N"},       {"parallel.ep", "--fix ep=N"},
        {"parallel.etp", "--fix etp=N"},        {"training.micro_batch", "--fix mb=N"}, {"parallel.zero_stage", "--fix zero=N"},
        {"parallel.sequence_parallel", "--fix sp=0|1"}, {"training.recompute", "--fix recompute=none|selective|full"},
        {"parallel.schedule", "--schedules"},   {"parallel.stage_layers", "a scenario file (the search lays stages out by its rule)"},
        {"parallel.stage_rule", "a scenario file (the search lays stages out by its rule)"}};
    for (const auto& [k, instead] : searched)
      if (key == k)
        throw Error(SourceLocation{"--set", 0, 0, key}, "the plan search chooses " + key + " in a job without a scenario file",
                    std::string("use ") + instead);
  }
  // The scenario is parsed over one GPU with a placeholder plan (the search ignores it), then
  // given the GPU count: the placeholder need not fit the batch or the GPU count. The option
  // values are written as quoted YAML strings (a comma, brace or '#' in one was read as YAML
  // before 2026-12-03), and an error about one of them names its option, not the generated text.
  auto quoted = [](const std::string& v) {
    std::string q = "\"";
    for (char ch : v) {
      if (ch == '"' || ch == '\\') q += '\\';
      if (static_cast<unsigned char>(ch) < 0x20) {
        q += ' ';
        continue;
      }
      q += ch;
    }
    return q + "\"";
  };
  const std::string yaml = "name: plan\nmodel: " + quoted(a.model) + "\nsystem: " + quoted(a.system) +
                           "\nnum_gpus: 1\nparallel: {tp: 1, pp: 1, dp: 1, zero_stage: 1}\n" +
                           "training: {global_batch: " + std::to_string(a.global_batch) + ", seq_len: " + std::to_string(a.seq_len) +
                           ", precision: " + quoted(a.precision) + "}\n";
  Scenario s = [&] {
    try {
      return parse_scenario(yaml, "command line", cat, sets);
    } catch (const Error& e) {
      const std::string& key = e.where().key;
      const char* option = key == "model" || key.starts_with("model.") ? "--model"
                           : key == "system" || key.starts_with("system.") ? "--system"
                           : key == "training.precision" ? "--precision"
                           : key == "training.seq_len"   ? "--seq-len"
                           : key == "training.global_batch" ? "--global-batch"
                                                         : nullptr;
      if (option == nullptr || e.where().file != "command line") throw;
      throw Error(SourceLocation{"command line", 0, 0, option}, e.message(), e.hint());
    }
  }();
  s.num_gpus = a.num_gpus;
  s.plan.dp = a.num_gpus;
  return s;
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
