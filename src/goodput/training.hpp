#pragma once
// The training side of a goodput job: what the failure model needs from a training scenario
// (src/scenario) and its step estimate (src/estimate): job size, data-parallel layout, step time,
// tokens per step, checkpoint size and its sharding, and the throughput of the job re-planned
// with fewer data-parallel replicas (elastic continuation).
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "scenario/scenario.hpp"

namespace sextant::goodput {

struct TrainingInfo {
  std::string file;
  Scenario scenario;
  int64_t num_gpus = 0, gpus_per_node = 8, dp = 1, nodes_per_replica = 1;
  double tokens_per_step = 0;
  double params = 0;
  // Checkpoint content per parameter, as estimate's memory holds it (TrainingConfig::
  // weight_bytes_per_param + optimizer_state_bytes_per_param): the weights (2 B in mixed
  // precision, FP8/FP4 training included; 4 B in fp32/tf32) + the fp32 master copy (4 B, none
  // beside fp32 weights) + the moments in optimizer_moments (Adam 8 B fp32 / 4 B bf16, SGD half).
  double checkpoint_bytes_per_param = 14;
  double per_gpu_state_bytes = 0;  // largest per-GPU shard of weights + master + optimizer
  double writer_nodes = 1;         // nodes that write shards (all when ZeRO shards over DP)
  int64_t state_copies = 1;        // copies of each state shard across DP replicas
  std::vector<std::string> notes;
};

TrainingInfo training_from_scenario(Scenario s, const std::string& file);
TrainingInfo training_from_file(const std::string& path, const SourceLocation& where);
// An inline `training:` mapping of the goodput file `file`, read in place (its lines and keys).
TrainingInfo training_from_node(const YAML::Node& node, const std::string& file);

// Step time from `estimate` of the scenario.
double train_step_time_s(const TrainingInfo& t, const SourceLocation& where);

// Step-time multiplier of the job while one GPU computes rank_slowdown_factor times slower
// (fail-slow: thermal throttling, a degraded HBM or link): `simulate --straggler RANK=FACTOR` of
// the plan against `simulate` without it. A slow GPU is equally likely in any pipeline stage: the
// multiplier is the mean over up to 4 evenly spaced stages (first rank of each). >= 1.
double fail_slow_step_multiplier(const TrainingInfo& t, double rank_slowdown_factor, const SourceLocation& where);

// Throughput (tokens/s) of the job with k data-parallel replicas lost, as a fraction of the full
// job's, for k = 0..max_lost: each from `estimate` of the re-planned job (dp - k replicas, same
// global batch rounded down to a multiple of the new dp x micro-batch).
// A re-planned job that is not valid (a global batch no longer divisible, a memory limit) falls
// back to the proportional fraction; *fallback_note (when given) then says for which k and why.
std::vector<double> elastic_throughput_fractions(const TrainingInfo& t, int64_t max_lost, const SourceLocation& where,
                                                 std::string* fallback_note = nullptr);

}  // namespace sextant::goodput
