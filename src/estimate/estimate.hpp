#pragma once
// Closed-form evaluation of the workload IR: one training step's time, breakdown, memory and
// utilisation. Microseconds per plan (used by plan search). See docs/models.md.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "estimate/collective.hpp"
#include "ir/schedule.hpp"
#include "ir/workload.hpp"

namespace sextant {

struct MemoryBreakdown {
  double weights_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0, activations_bytes = 0,
         comm_buffers_bytes = 0, reserve_bytes = 0;
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + comm_buffers_bytes + reserve_bytes;
  }
};

struct StepEstimate {
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops = 0;     // per step, all GPUs (docs/models.md)
  double hardware_flops = 0;  // including recompute
  double mfu_fraction = 0, hfu_fraction = 0;
  // Breakdown of the step on the critical pipeline rank (seconds).
  double compute_s = 0, exposed_comm_s = 0, total_comm_s = 0, bubble_s = 0, optimizer_s = 0, grad_sync_exposed_s = 0;
  std::vector<std::pair<std::string, double>> compute_by_class_s;  // per OpClass
  std::vector<std::pair<std::string, double>> comm_by_group_s;     // total time per group
  std::vector<std::pair<std::string, double>> exposed_by_group_s;  // exposed time per group
  MemoryBreakdown memory;  // of the most loaded rank
  double memory_capacity_bytes = 0;
  bool fits = true;
  int critical_stage = 0;
};

// Memory of one rank of pipeline stage pp_rank holding activations_bytes of activations:
// weights, gradients and optimizer states by ZeRO stage, communication buffers and reserve
// (docs/models.md). estimate passes the schedule's in-flight activations, simulate its peak.
MemoryBreakdown stage_memory(const ir::Workload& w, int pp_rank, double activations_bytes);

// Time of one compute op on the scenario's accelerator (roofline with efficiency model).
double compute_time_s(const ir::ComputeOp& op, const Accelerator& acc);

// The estimator owns its registries (collective algorithms, pipeline schedules); build one and
// reuse it across plans. Thread-safe for concurrent const use.
class Estimator {
 public:
  Estimator() = default;
  StepEstimate run(const ir::Workload& w) const;
  // Time of one collective on its group's placement (fastest applicable algorithm).
  double collective_time_s(const ir::Collective& c, const ir::Workload& w, const struct Fabric& f) const;
  const CollectiveRegistry& collectives() const { return collectives_; }
  const ir::ScheduleRegistry& schedules() const { return schedules_; }

 private:
  CollectiveRegistry collectives_;
  ir::ScheduleRegistry schedules_;
};

StepEstimate estimate_step(const ir::Workload& w);
Result to_result(const StepEstimate& e, const Scenario& s);
// Convenience: lower + estimate + result.
Result estimate(const Scenario& s);

}  // namespace sextant
