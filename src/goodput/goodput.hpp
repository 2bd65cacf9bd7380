#pragma once
// `sextant goodput`: the goodput and resiliency planner. Runs the Monte Carlo simulation of the
// job, the closed forms beside it, the simulated optimum of the checkpoint interval, spare-pool
// sizing, and, for a target ETTR, the value of each knob that alone reaches it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/result.hpp"
#include "goodput/config.hpp"
#include "goodput/engine.hpp"

namespace sextant::goodput {

struct Summary {  // of one quantity over replicas
  double mean = 0, sd = 0, ci_low = 0, ci_high = 0, p10 = 0, p50 = 0, p90 = 0, p99 = 0;
};
// Mean with a normal-approximation confidence interval (z for `confidence`), and percentiles.
Summary summarize(std::vector<double> v, double confidence = 0.95);

struct KnobSolution {
  std::string knob, unit, current, required;
  bool reachable = false;
  double ettr_at_required = 0;
};

// Runs the whole analysis. Deterministic for a given config (seed, replicas), whatever the threads.
Result run_goodput(const GoodputConfig& c);

// The pieces, for tests and the benchmark.
double simulated_mean_ettr(const GoodputConfig& c, int64_t replicas);
// Daly-model ETTR T_s / T_w at interval tau (large T_s limit).
double daly_ettr(double interval_s, double checkpoint_s, double restart_s, double mttf_s);

// The recovery times the mean_restart_s knob scales: each recovery.* key with its field. One list
// for the solver (scale_restart) and the knob's text (restart_scale_text), so that the text names
// exactly what the solver changed: it had said "every recovery.* time" where repair_days/repair_s
// and fail_slow_evict_after_s stay as they are (review of 2026-12-07).
struct RestartScaledTime {
  const char* key;  // as in the input, e.g. "recovery.detection_s"
  double RecoveryConfig::*seconds;
};
std::span<const RestartScaledTime> restart_scaled_times();
// Every time of restart_scaled_times() and each process's own detection_s, times k.
void scale_restart(GoodputConfig& c, double k);
// "x0.847656 on recovery.detection_s, ..., recovery.warmup_s and each process's detection_s".
std::string restart_scale_text(double k);

}  // namespace sextant::goodput
