#pragma once
// Hardware what-if sweeps (`sextant sweep`): vary catalog parameters of the hardware over a grid,
// re-plan at every point (best plan per point) and report step time, throughput, time to train,
// power, perf/W and perf/$; elasticity of step time per parameter around the design point; the
// Pareto front over two chosen objectives. docs/plan.md.
#include <string>
#include <vector>

#include "plan/plan.hpp"

namespace sextant::plan {

// A parameter that can be varied: key (as written on the command line), its unit, and how to
// read and write it on a scenario.
struct SweepParameter {
  std::string key, unit, what;
  bool integer = false;
};
const std::vector<SweepParameter>& sweep_parameters();
double get_parameter(const Scenario& s, const std::string& key);  // Error on unknown keys
void set_parameter(Scenario& s, const std::string& key, double value);

// "key=v1,v2,v3", "key=start:stop:count" (linear) or "key=start:stop:count:log" (geometric).
struct Variation {
  std::string key;
  std::vector<double> values;
};
Variation parse_variation(const std::string& text);

struct PowerOptions {
  double idle_fraction_of_tdp = 0.10;     // when the catalog has no idle_w (estimated, docs/plan.md)
  double comm_activity_fraction = 0.35;   // dynamic power while only communication runs (estimated)
  double dynamic_power_clock_exponent = 2.5;  // P_dyn ~ f^k near the top of the DVFS curve (estimated)
};

// Power of one GPU for a step and the clock ratio a power limit imposes.
struct PowerPoint {
  // power_w: the mean board's (energy, perf/W); busiest_board_w: the busiest pipeline rank's board,
  // which a power limit (per board) caps first.
  double power_w = 0, clock_ratio = 1, activity_fraction = 0, busiest_board_w = 0;
  bool capped = false;
  bool clock_from_caps = false;  // the clock came from the catalog's measured power_caps (else P_dyn ~ f^k)
};
PowerPoint gpu_power(const Scenario& s, const StepEstimate& e, double power_limit_w, const PowerOptions& po);

// Largest flat price accepted, USD per GPU-hour: 1e308 had made a job's cost per hour infinite.
inline constexpr double kMaxPriceUsdPerGpuHour = 1e6;

struct SweepOptions {
  std::vector<Variation> vary;
  SearchOptions search;
  PowerOptions power;
  double train_tokens = 1e12;             // for time_to_train_s
  double price_usd_per_gpu_hour = 0;      // 0: the system's node price / GPUs per node when known
  bool elasticity = false;
  double elasticity_step_fraction = 0.1;  // +-10 % around the design point
  std::vector<std::string> elasticity_keys;  // empty: the varied keys and the default set
  std::string pareto_x, pareto_y;         // objectives ("min:"/"max:" prefix overrides the default sense)
  int64_t max_points = 10000;             // a larger grid is refused before it starts
  // The scenario states plan keys (job.hpp states_plan_keys): a note names its own plan, which the
  // sweep does not keep (every point's plan is searched), and its DP overlap off where it is; the
  // table gives its step time at each point (own_plan_step_time_s, own_plan_slower_than_best_fraction;
  // since the review of 2026-12-06).
  bool scenario_plan_stated = false;
};

Result sweep(const Scenario& base, const SweepOptions& o, const Estimator& est, const Distribution& dist = {},
             const Progress& progress = {});

}  // namespace sextant::plan
