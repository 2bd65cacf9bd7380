#pragma once
// `sextant goodput`: the goodput and resiliency planner. Runs the Monte Carlo simulation of the
// job, the closed forms beside it, the simulated optimum of the checkpoint interval, spare-pool
// sizing, and, for a target ETTR, the value of each knob that alone reaches it.
#include <cstdint>
#include <optional>
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

}  // namespace sextant::goodput
