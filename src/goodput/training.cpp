#include "goodput/training.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "catalog/catalog.hpp"
#include "core/result.hpp"
#include "estimate/estimate.hpp"
#include "sim/simulate.hpp"

namespace sextant::goodput {

TrainingInfo training_from_scenario(Scenario s, const std::string& file) {
  TrainingInfo t;
  t.file = file;
  const auto& p = s.plan;
  t.num_gpus = s.num_gpus;
  t.gpus_per_node = std::max(1, s.system.gpus_per_node);
  t.dp = std::max(1, p.dp);
  const int64_t mp = int64_t(p.tp) * p.pp * p.cp;
  t.nodes_per_replica = std::max<int64_t>(1, (mp + t.gpus_per_node - 1) / t.gpus_per_node);
  t.tokens_per_step = double(s.tokens_per_step());
  t.params = s.model.params_total();
  // The weights and the optimizer state (master copy and moments) per parameter as estimate holds
  // them (TrainingConfig's rule, stage_memory's): until the 2026-12-07 review 2 + 4 + 8 bytes
  // whatever the training precision and optimizer_moments (bf16 moments or fp32 training: 14 B
  // where 10 and 12 are held). Transformer Engine's cast weight copies are not checkpointed.
  const double weight_bytes = s.train.weight_bytes_per_param();
  const double state_bytes = s.train.optimizer_state_bytes_per_param();
  t.checkpoint_bytes_per_param = weight_bytes + state_bytes;
  const double per_rank_params = t.params / double(std::max<int64_t>(1, int64_t(p.tp) * p.pp));
  const double dp = double(t.dp);
  const double w = weight_bytes / (p.zero_stage >= 3 ? dp : 1.0);
  const double o = state_bytes / (p.zero_stage >= 1 ? dp : 1.0);
  t.per_gpu_state_bytes = per_rank_params * (w + o);
  const double nodes = std::ceil(double(t.num_gpus) / double(t.gpus_per_node));
  t.writer_nodes = p.zero_stage >= 1 ? nodes : double(t.nodes_per_replica);
  t.state_copies = p.zero_stage >= 1 ? 1 : t.dp;
  t.scenario = std::move(s);
  return t;
}

TrainingInfo training_from_file(const std::string& path, const SourceLocation& where) {
  auto cat = Catalog::load_default();
  // A missing file is the goodput input's error (its file, line and key), not a bare path.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(where, "training scenario file '" + path + "' not found",
                "training: takes a scenario file path (relative to the goodput file) or an inline scenario mapping");
  try {
    return training_from_scenario(load_scenario(path, *cat), path);
  } catch (const Error& e) {
    if (!e.where().file.empty()) throw;
    throw Error(where, "training scenario: " + e.message(), e.hint());
  }
}

TrainingInfo training_from_node(const YAML::Node& node, const std::string& file) {
  auto cat = Catalog::load_default();
  return training_from_scenario(parse_scenario_node(node, file, "training", *cat), file);
}

double train_step_time_s(const TrainingInfo& t, const SourceLocation& where) {
  const double step = estimate_step(ir::lower(t.scenario)).step_time_s;  // no per-op table: only the time
  if (!(step > 0)) throw Error(where, "the estimate of the training scenario gave no step time");
  return step;
}

double fail_slow_step_multiplier(const TrainingInfo& t, double rank_slowdown_factor, const SourceLocation& where) {
  if (!(rank_slowdown_factor >= 1)) throw Error(where, "a rank slow-down factor is a compute-time multiplier >= 1");
  const Scenario& s = t.scenario;
  const double base = sim::simulate(s).step.step_time_s;
  if (!(base > 0)) throw Error(where, "the simulation of the training scenario gave no step time");
  const int pp = std::max(1, s.plan.pp);
  const int stages = std::min(pp, 4);
  const int64_t ranks_per_stage = s.num_gpus / pp;  // pipeline rank is the outermost dimension
  double sum = 0;
  for (int i = 0; i < stages; ++i) {
    const int stage = stages == 1 ? 0 : static_cast<int>(std::lround(double(i) * (pp - 1) / (stages - 1)));
    sim::SimOptions o;
    o.stragglers = {{int64_t(stage) * ranks_per_stage, rank_slowdown_factor}};
    sum += sim::simulate(s, o).step.step_time_s / base;
  }
  return std::max(1.0, sum / stages);
}

std::vector<double> elastic_throughput_fractions(const TrainingInfo& t, int64_t max_lost, const SourceLocation& where,
                                                 std::string* fallback_note) {
  std::vector<int64_t> fell_back;
  std::string first_reason;
  std::vector<double> f{1.0};
  const double base_step = train_step_time_s(t, where);
  const double base_rate = t.tokens_per_step / base_step;
  const int64_t gpus_per_replica = t.num_gpus / std::max<int64_t>(1, t.dp);
  for (int64_t k = 1; k <= max_lost; ++k) {
    Scenario s = t.scenario;
    s.plan.dp = int(t.dp - k);
    s.num_gpus = int(gpus_per_replica * s.plan.dp);
    const int64_t per_step = int64_t(s.plan.dp) * s.train.micro_batch;
    s.train.global_batch = std::max<int64_t>(per_step, (s.train.global_batch / per_step) * per_step);
    double frac;
    try {
      check_plan(s);
      const double step = estimate_step(ir::lower(s)).step_time_s;
      frac = (double(s.tokens_per_step()) / step) / base_rate;
    } catch (const Error& e) {
      frac = double(t.dp - k) / double(t.dp);  // the re-planned job is not valid: proportional
      if (fell_back.empty()) first_reason = e.message();
      fell_back.push_back(k);
    }
    f.push_back(std::clamp(frac, 0.0, 1.0));
  }
  // Said, not silent (2026-12-04 review): the fractions of those k are the proportional ones.
  if (fallback_note && !fell_back.empty()) {
    std::string ks;
    for (size_t i = 0; i < fell_back.size(); ++i) ks += (i ? ", " : "") + std::to_string(fell_back[i]);
    *fallback_note = "elastic throughput: estimate: with " + ks + " replica(s) lost the re-planned job is not valid (" +
                     first_reason + "); its throughput fraction is the proportional one, (dp - k) / dp";
  }
  return f;
}

}  // namespace sextant::goodput
