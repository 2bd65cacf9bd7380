// Hardware what-if sweeps. docs/plan.md ("sextant sweep").
#include "plan/sweep.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

#include "core/error.hpp"
#include "estimate/collective.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"
#include "validate/training_validation.hpp"

namespace sextant::plan {

namespace {

struct Accessor {
  SweepParameter p;
  std::function<double(const Scenario&)> get;
  std::function<void(Scenario&, double)> set;
};

Sourced set_known(double v) { return Sourced{v, "", "sweep value", true}; }

constexpr const char* kInNetworkReductionLatencyKey = "scale_up.in_network_reduction_latency_s";

// The scale-up network reduces in its switches (NVLS): the in-network-reduction latency is used.
bool has_in_network_reduction(const Scenario& s) {
  return s.scale_up.in_network_reduction_fraction.known && s.scale_up.in_network_reduction_fraction.value > 0;
}

// Peak FLOP/s of every dtype scaled together keeps the ratios of the datasheet.
void scale_peaks(Accelerator& a, double ratio) {
  for (auto& [d, v] : a.peak_flops) v.value *= ratio;
}

const std::vector<Accessor>& accessors() {
  static const std::vector<Accessor> list = [] {
    std::vector<Accessor> v;
    auto add = [&](std::string key, std::string unit, std::string what, bool integer, std::function<double(const Scenario&)> g,
                   std::function<void(Scenario&, double)> s) {
      v.push_back(Accessor{SweepParameter{std::move(key), std::move(unit), std::move(what), integer}, std::move(g), std::move(s)});
    };
    for (DType d : {DType::FP32, DType::TF32, DType::BF16, DType::FP16, DType::FP8, DType::FP4}) {
      add("accelerator.peak_flops." + to_string(d), "FLOP/s", "dense peak of this dtype (the other dtypes unchanged)", false,
          [d](const Scenario& s) { return s.accelerator.has_peak(d) ? s.accelerator.peak(d) : 0.0; },
          [d](Scenario& s, double x) { s.accelerator.peak_flops[d] = set_known(x); });
    }
    add("accelerator.peak_flops", "FLOP/s", "dense peak of the training precision; every dtype scaled by the same ratio", false,
        [](const Scenario& s) { return s.accelerator.peak(s.accelerator.has_peak(s.train.precision) ? s.train.precision : DType::BF16); },
        [](Scenario& s, double x) {
          const DType d = s.accelerator.has_peak(s.train.precision) ? s.train.precision : DType::BF16;
          scale_peaks(s.accelerator, x / s.accelerator.peak(d));
        });
    add("accelerator.memory_bytes", "bytes", "HBM capacity per GPU", false, [](const Scenario& s) { return s.accelerator.memory_bytes.value; },
        [](Scenario& s, double x) { s.accelerator.memory_bytes = set_known(x); });
    add("accelerator.memory_bandwidth_bytes_per_s", "bytes/s", "HBM bandwidth per GPU", false,
        [](const Scenario& s) { return s.accelerator.memory_bandwidth_bytes_per_s.value; },
        [](Scenario& s, double x) { s.accelerator.memory_bandwidth_bytes_per_s = set_known(x); });
    add("accelerator.power_limit_w", "W", "board power limit (lowers clocks when the step would draw more)", false,
        [](const Scenario& s) { return s.accelerator.tdp_w.value; },
        [](Scenario&, double) {});  // applied by the power model, not to the scenario
    add("accelerator.tdp_w", "W", "board power at full activity", false, [](const Scenario& s) { return s.accelerator.tdp_w.value; },
        [](Scenario& s, double x) {
          // Published throughput at power caps was measured under the catalog's board power: at
          // another TDP it no longer says the clock (a 500 W part varied to 700 W kept clock 1.0
          // at its old 500 W cap point while drawing the limit: perf/W +33%; 2026-12-04 review).
          if (!s.accelerator.tdp_w.known || x != s.accelerator.tdp_w.value) s.accelerator.power_caps.clear();
          s.accelerator.tdp_w = set_known(x);
        });
    add("accelerator.idle_w", "W", "board power when idle", false,
        [](const Scenario& s) { return s.accelerator.idle_w.known ? s.accelerator.idle_w.value : 0.0; },
        [](Scenario& s, double x) { s.accelerator.idle_w = set_known(x); });
    add("accelerator.price_usd", "USD", "purchase price per GPU", false,
        [](const Scenario& s) { return s.accelerator.price_usd.known ? s.accelerator.price_usd.value : 0.0; },
        [](Scenario& s, double x) { s.accelerator.price_usd = set_known(x); });
    add("scale_up.bandwidth_bytes_per_s", "bytes/s", "NVLink-class bandwidth per GPU, one direction", false,
        [](const Scenario& s) { return s.scale_up.bandwidth_bytes_per_s.value; },
        [](Scenario& s, double x) { s.scale_up.bandwidth_bytes_per_s = set_known(x); });
    // An in-switch (NVLS) all-reduce crosses the same scale-up links: a varied step latency scales
    // the network's in_network_reduction_latency_s by the same ratio (where that is unknown, NVLS
    // already takes two steps). It had written the step latency alone, and the search moved to NVLS
    // plans whose time stayed flat however slow the links got (gpt3-1.3b on 16 H100: 0.394 s from
    // 1 ms to 1e10 s; 2026-12-07 review).
    add("scale_up.latency_s", "s",
        "scale-up collective step latency; the in-network-reduction (NVLS) latency is scaled by the same ratio", false,
        [](const Scenario& s) { return s.scale_up.latency_s.value; },
        [](Scenario& s, double x) {
          const double old_s = make_fabric(s).up_latency_s;  // the value the estimate uses (a default where unknown)
          if (s.scale_up.in_network_reduction_latency_s.known && old_s > 0)
            s.scale_up.in_network_reduction_latency_s = set_known(s.scale_up.in_network_reduction_latency_s.value * (x / old_s));
          s.scale_up.latency_s = set_known(x);
        });
    // The in-switch all-reduce's own fixed time, alone (2026-12-07 review). Read as the estimate
    // takes it: the catalog's value, else two scale-up steps; 0 where the network has no
    // in-network reduction (varying it there is refused by sweep()).
    add(std::string(kInNetworkReductionLatencyKey), "s",
        "fixed time of one in-switch (NVLS) all-reduce on the scale-up network (only networks with in-network reduction)", false,
        [](const Scenario& s) {
          if (!has_in_network_reduction(s)) return 0.0;
          const Fabric f = make_fabric(s);
          return f.up_nvls_latency_s >= 0 ? f.up_nvls_latency_s : 2.0 * f.up_latency_s;
        },
        [](Scenario& s, double x) { s.scale_up.in_network_reduction_latency_s = set_known(x); });
    add("system.scale_up_domain", "GPUs", "GPUs in one scale-up (NVLink) domain", true,
        [](const Scenario& s) { return static_cast<double>(s.system.scale_up_domain); },
        [](Scenario& s, double x) { s.system.scale_up_domain = static_cast<int>(std::lround(x)); });
    add("system.nic_bandwidth_bytes_per_s", "bytes/s", "scale-out bandwidth per NIC port", false,
        [](const Scenario& s) {
          return s.system.nic_bandwidth_bytes_per_s.known ? s.system.nic_bandwidth_bytes_per_s.value
                                                          : (s.scale_out ? s.scale_out->bandwidth_bytes_per_s.value : 0.0);
        },
        [](Scenario& s, double x) { s.system.nic_bandwidth_bytes_per_s = set_known(x); });
    add("system.nics_per_node", "count", "scale-out NICs per node", true, [](const Scenario& s) { return static_cast<double>(s.system.nics_per_node); },
        [](Scenario& s, double x) { s.system.nics_per_node = static_cast<int>(std::lround(x)); });
    add("scale_out.latency_s", "s", "scale-out collective step latency", false,
        [](const Scenario& s) { return s.scale_out ? s.scale_out->latency_s.value : 0.0; },
        [](Scenario& s, double x) {
          if (s.scale_out) s.scale_out->latency_s = set_known(x);
        });
    add("num_gpus", "GPUs", "GPUs in the job", true, [](const Scenario& s) { return static_cast<double>(s.num_gpus); },
        [](Scenario& s, double x) { s.num_gpus = static_cast<int>(std::lround(x)); });
    add("system.node_price_usd_per_hour", "USD/h", "rental price of one node", false,
        [](const Scenario& s) { return s.system.node_price_usd_per_hour.known ? s.system.node_price_usd_per_hour.value : 0.0; },
        [](Scenario& s, double x) { s.system.node_price_usd_per_hour = set_known(x); });
    return v;
  }();
  return list;
}

const Accessor& accessor(const std::string& key) {
  for (const auto& a : accessors())
    if (a.p.key == key) return a;
  std::vector<std::string> keys;
  for (const auto& a : accessors()) keys.push_back(a.p.key);
  throw Error(SourceLocation{"--vary", 0, 0, key}, "unknown sweep parameter '" + key + "'", valid_choices_hint(key, keys));
}

double parse_number(const std::string& t, const std::string& where) {
  try {
    size_t pos = 0;
    // Decimal only: strtod also reads hexadecimal floats ("0x1p36") and "inf"/"nan".
    if (t.find_first_of("xXpP") != std::string::npos) throw std::invalid_argument(t);
    const double v = std::stod(t, &pos);
    if (pos != t.size() || !std::isfinite(v)) throw std::invalid_argument(t);
    return v;
  } catch (const std::exception&) {
    throw Error(SourceLocation{"--vary", 0, 0, where}, "'" + t + "' is not a number");
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace

const std::vector<SweepParameter>& sweep_parameters() {
  static const std::vector<SweepParameter> list = [] {
    std::vector<SweepParameter> v;
    for (const auto& a : accessors()) v.push_back(a.p);
    return v;
  }();
  return list;
}

double get_parameter(const Scenario& s, const std::string& key) { return accessor(key).get(s); }
void set_parameter(Scenario& s, const std::string& key, double value) {
  const auto& a = accessor(key);
  if (key == "accelerator.idle_w" ? !(value >= 0) : !(value > 0))
    throw Error(SourceLocation{"--vary", 0, 0, key}, "value " + format_double(value) + (key == "accelerator.idle_w" ? " must be >= 0" : " must be positive"));
  a.set(s, value);
}

Variation parse_variation(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(SourceLocation{"--vary", 0, 0, text}, "expected KEY=V1,V2,... or KEY=START:STOP:COUNT[:log]",
                "e.g. --vary accelerator.memory_bandwidth_bytes_per_s=2e12,3e12,4e12");
  Variation v;
  v.key = text.substr(0, eq);
  const auto& acc = accessor(v.key);
  const std::string rhs = text.substr(eq + 1);
  // `KEY=` (Python's vary={KEY: []}) had failed "'' is not a number" (2026-12-06 review).
  if (rhs.empty())
    throw Error(SourceLocation{"--vary", 0, 0, v.key}, "no values given for " + v.key + ", expected " + v.key + "=V1,V2,...",
                "or " + v.key + "=START:STOP:COUNT[:log]");
  if (rhs.find(':') != std::string::npos) {
    const auto parts = split(rhs, ':');
    if (parts.size() < 3 || parts.size() > 4 || (parts.size() == 4 && parts[3] != "log" && parts[3] != "lin"))
      throw Error(SourceLocation{"--vary", 0, 0, v.key}, "a range is START:STOP:COUNT, START:STOP:COUNT:lin or START:STOP:COUNT:log");
    const double a = parse_number(parts[0], v.key), b = parse_number(parts[1], v.key);
    const double nf = parse_number(parts[2], v.key);
    const int n = static_cast<int>(nf);
    if (n < 1 || n != nf || n > 10000) throw Error(SourceLocation{"--vary", 0, 0, v.key}, "COUNT must be an integer from 1 to 10000");
    // One point of a range from START to STOP is START alone: STOP silently unused (review of 2026-12-04).
    if (n == 1 && a != b)
      throw Error(SourceLocation{"--vary", 0, 0, v.key}, "a range of COUNT 1 is START alone, and STOP " + parts[1] + " would go unused",
                  "give COUNT 2 or more, or the single value as KEY=" + parts[0]);
    // Several points from START to the same STOP are START alone: 1e15:1e15:3 had collapsed to one
    // row without a word (review, 2026-12-07).
    if (n > 1 && a == b)
      throw Error(SourceLocation{"--vary", 0, 0, v.key},
                  "a range of COUNT " + parts[2] + " from START " + parts[0] + " to the same STOP is one point, " + parts[0],
                  "give a STOP other than START, or the single value as " + v.key + "=" + parts[0]);
    const bool log = parts.size() == 4 && parts[3] == "log";
    if (log && (a <= 0 || b <= 0)) throw Error(SourceLocation{"--vary", 0, 0, v.key}, "a log range needs positive ends");
    for (int i = 0; i < n; ++i) {
      const double f = n == 1 ? 0.0 : static_cast<double>(i) / (n - 1);
      // Twelve significant digits: a log range's points print as the numbers they stand for
      // (1e-05, not 9.999999999999999e-06) and equal the ones a list would give.
      const double x = log ? a * std::pow(b / a, f) : a + (b - a) * f;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.12g", x);
      v.values.push_back(std::strtod(buf, nullptr));
    }
  } else {
    for (const auto& t : split(rhs, ',')) v.values.push_back(parse_number(t, v.key));
  }
  const bool range = rhs.find(':') != std::string::npos;
  for (double& x : v.values) {
    // A listed count must be whole; the points of a range of counts are rounded (docs/plan.md).
    if (acc.p.integer && !range && x != std::round(x))
      throw Error(SourceLocation{"--vary", 0, 0, v.key}, "value " + format_double(x) + " is not a whole number of " + acc.p.unit);
    if (acc.p.integer) x = std::round(x);
    // Counts are stored in int fields: past INT_MAX they would wrap (4294968320 GPUs ran as 1024).
    if (acc.p.integer && x > std::numeric_limits<int>::max())
      throw Error(SourceLocation{"--vary", 0, 0, v.key},
                  "value " + format_double(x) + " is out of range (at most " + std::to_string(std::numeric_limits<int>::max()) + ")");
    if (!std::isfinite(x))
      throw Error(SourceLocation{"--vary", 0, 0, v.key}, "value " + format_double(x) + " is not a finite number");
    if (v.key == "accelerator.idle_w" ? !(x >= 0) : !(x > 0))
      throw Error(SourceLocation{"--vary", 0, 0, v.key},
                  "value " + format_double(x) + (v.key == "accelerator.idle_w" ? " must be >= 0" : " must be positive"));
  }
  // A range of counts rounds to whole numbers: points that round alike are one point; a value
  // listed twice is one point too (it was one when adjacent, two rows and two front points
  // otherwise). The first occurrence keeps its place.
  std::vector<double> seen;
  for (double x : v.values)
    if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);
  v.values = std::move(seen);
  return v;
}

PowerPoint gpu_power(const Scenario& s, const StepEstimate& e, double limit_w, const PowerOptions& po) {
  PowerPoint p;
  const auto& a = s.accelerator;
  const double tdp = a.tdp_w.value;
  const double idle = a.idle_w.known ? a.idle_w.value : po.idle_fraction_of_tdp * tdp;
  const double step = std::max(e.step_time_s, 1e-30);
  auto activity = [&](double compute_s, double exposed_s) {
    const double busy = std::min(1.0, compute_s / step);
    const double comm_only = std::min(1.0 - busy, std::max(0.0, exposed_s / step));
    return busy + po.comm_activity_fraction * comm_only;
  };
  // An average GPU of the job for energy: the means over the pipeline ranks (a rank of a heavier
  // stage computes while the others wait on it; the critical rank alone undercounts an unbalanced
  // pipeline). A limit applies to each board: the busiest rank's meets it first, and the step
  // waits on it (before 2026-12-03 the mean was held against the limit: a 3-stage pipeline drawing
  // 576.7 W on average ran uncapped under a 600 W limit while its busiest boards drew 654 W).
  p.activity_fraction = activity(e.mean_compute_s, e.mean_exposed_comm_s);
  const double busiest = e.busiest_compute_s > 0 ? std::max(p.activity_fraction, activity(e.busiest_compute_s, e.busiest_exposed_comm_s))
                                                 : p.activity_fraction;
  p.power_w = idle + (tdp - idle) * p.activity_fraction;
  p.busiest_board_w = idle + (tdp - idle) * busiest;
  if (limit_w > 0 && limit_w < p.busiest_board_w) {
    p.capped = true;
    const double dyn = std::max(1e-9, (tdp - idle) * busiest);
    // The busiest board at the limit; the mean board in proportion to its activity.
    p.power_w = idle + (limit_w - idle) * p.activity_fraction / std::max(busiest, 1e-12);
    p.busiest_board_w = limit_w;
    // Published throughput at power limits (catalog power_caps, bf16 rate against the peak)
    // sets the clock where given; otherwise P_dyn ~ f^k.
    const double k = po.dynamic_power_clock_exponent;
    double ratio = std::pow(std::max(0.0, limit_w - idle) / dyn, 1.0 / k);
    // The caps' clock ratios were fixed at load (PowerCapPoint::clock_ratio). Before 2026-12-03
    // the rate, already in FLOP/s, was scaled by 1e12 again: every ratio clamped to 1, a limit
    // at a cap point ran at full clock while drawing the limit (perf/W inflated 25%).
    std::vector<std::pair<double, double>> pts;  // (power, clock ratio)
    for (const auto& c : a.power_caps)
      if (c.clock_ratio > 0 && c.power_w < tdp) pts.emplace_back(c.power_w, c.clock_ratio);
    if (!pts.empty()) {
      // A cap point is a board running flat out (a GEMM benchmark) at that limit. A board at
      // activity u draws idle + (P - idle) u where the flat-out board draws P, so its limit reads
      // as the flat-out power idle + (limit - idle) / u on the table (before 2026-12-03 the table
      // was read at the limit itself: a plan drawing 356 W went from clock 1.0 at 357 W to 0.742
      // at 355 W).
      const double flat_out_w = idle + std::max(0.0, limit_w - idle) / std::max(busiest, 1e-12);
      pts.emplace_back(tdp, 1.0);
      std::sort(pts.begin(), pts.end());
      if (flat_out_w >= tdp) {
        ratio = 1.0;
      } else if (flat_out_w >= pts.front().first) {
        for (size_t i = 1; i < pts.size(); ++i)
          if (flat_out_w <= pts[i].first) {
            const double f = (flat_out_w - pts[i - 1].first) / std::max(1e-9, pts[i].first - pts[i - 1].first);
            ratio = pts[i - 1].second + f * (pts[i].second - pts[i - 1].second);
            break;
          }
      } else {
        // Below the lowest published point, P_dyn ~ f^k from that point down (not from the TDP:
        // 399 W ran faster than the 400 W point).
        ratio = pts.front().second * std::pow(std::max(0.0, flat_out_w - idle) / std::max(1e-9, pts.front().first - idle), 1.0 / k);
      }
      p.clock_from_caps = true;
    }
    p.clock_ratio = std::clamp(ratio, 0.05, 1.0);
  }
  return p;
}

namespace {

struct PointResult {
  bool fits = false;
  std::string plan;
  StepEstimate e;
  PowerPoint power;
  double clock = 1.0;  // the clock ratio the estimate ran at (peaks scaled by it)
  size_t valid = 0, fit = 0;
};

// Best plan of the scenario, with the power limit applied. Each plan runs at its own clock:
// the one its power at full clocks allows under the limit (a plan that keeps the GPUs busier is
// capped harder). The best plans at full clocks (kCappedCandidates of them) are costed at their
// own capped clocks and the fastest is kept. Before 2026-12-02 every plan was ranked at the
// previous winner's clock and the loop could stop on an estimate from one clock with the clock
// ratio of another (13.727 s reported at clock 0.9429 for a plan that takes 13.695 s there).
constexpr size_t kCappedCandidates = 200;

// One plan at a point (the scenario `full` holds it), at the clock the power limit leaves it
// (0: none). best_point's costing, and the scenario's own plan's at each point (own_point).
PointResult cost_plan(const Scenario& full, double limit_w, const SweepOptions& o, const Estimator& est) {
  const StepEstimate ef = est.run(ir::lower(full));
  PointResult x;
  x.fits = true;
  x.power = gpu_power(full, ef, limit_w, o.power);
  x.e = ef;
  if (x.power.capped) {
    // At the lowered clock the plan keeps the GPUs busier (its compute takes longer), so its
    // dynamic power at that clock, (TDP - idle) x activity x ratio^k, can exceed the limit:
    // the clock is lowered again until the board draws the limit (a few steps; before
    // 2026-12-02 the first clock was kept and the power printed as the limit, where the model
    // gave 405 W under a 400 W cap). A clock from the catalog's measured power caps is the
    // measured throughput at that limit, kept as it is.
    double ratio = x.power.clock_ratio;
    const double k = o.power.dynamic_power_clock_exponent;
    const double idle = full.accelerator.idle_w.known ? full.accelerator.idle_w.value : o.power.idle_fraction_of_tdp * full.accelerator.tdp_w.value;
    for (int it = 0;; ++it) {
      Scenario sc = full;
      scale_peaks(sc.accelerator, ratio);
      x.e = est.run(ir::lower(sc));
      const PowerPoint at = gpu_power(sc, x.e, 0, o.power);
      const double dyn = std::max(0.0, at.busiest_board_w - idle) * std::pow(ratio, k);
      const double dyn_mean = std::max(0.0, at.power_w - idle) * std::pow(ratio, k);
      // A clock from published caps is the rate measured with the board at the limit: the
      // busiest board draws the limit (the f^k model below the measured clock read 321 W under
      // a 400 W cap), the mean board its share of it.
      const double busiest = std::max(0.0, at.busiest_board_w - idle);
      x.power.power_w = x.power.clock_from_caps ? idle + (limit_w - idle) * (busiest > 0 ? std::max(0.0, at.power_w - idle) / busiest : 1.0)
                                                : std::min(limit_w, idle + dyn_mean);
      x.power.busiest_board_w = x.power.clock_from_caps ? limit_w : std::min(limit_w, idle + dyn);
      if (x.power.clock_from_caps || idle + dyn <= limit_w * (1 + 1e-6) || it == 8 || ratio <= 0.05) break;
      ratio = std::clamp(ratio * std::pow(std::max(0.0, limit_w - idle) / std::max(dyn, 1e-9), 1.0 / k), 0.05, 1.0);
    }
    x.power.clock_ratio = ratio;
    x.clock = ratio;
  }
  return x;
}

PointResult best_point(const Scenario& s, double limit_w, const SweepOptions& o, const Estimator& est, const Distribution& dist) {
  PointResult pr;
  SearchOptions so = o.search;
  so.top = limit_w > 0 ? kCappedCandidates : 1;
  const SearchOutcome out = search(s, so, est, dist);
  pr.valid = out.valid;
  // Every plan that fits: the costed ones and those dominated before costing (the same plan fits
  // with less recompute, so this one fits too). The costed ones alone fell as memory grew, where a
  // plan with less recompute came to fit and dominate (14,783 to 14,759 plans, 2026-12-04 review).
  pr.fit = out.fit + out.dominated;
  if (out.ranking.empty()) return pr;
  bool have = false;
  for (size_t k = 0; k < out.ranking.size() && k < so.top; ++k) {
    const Candidate& c = out.candidates[out.ranking[k]];
    Scenario full = s;
    apply_candidate(full, c, so);
    PointResult x = cost_plan(full, limit_w, o, est);
    x.plan = describe(c, so, s);
    if (!have || x.e.step_time_s < pr.e.step_time_s) {
      x.valid = pr.valid;
      x.fit = pr.fit;
      pr = x;
      have = true;
    }
  }
  return pr;
}

// The scenario's own plan at a point (the point's scenario s, which carries it): its step time at
// the clock the limit leaves it, or NaN where it is not a plan of the point (a varied GPU count
// its degrees do not divide: dp is derived from the point's GPUs) or does not fit (against the
// capacity less --headroom-gib, as the search judges plans). Review of 2026-12-06: a sweep of
// DeepSeek-V3's own dualpipev plan (17.93 s) reported only the search's best (27.18 s), with no
// figure of the plan the scenario states.
double own_point(const Scenario& s, const Scenario& base, double limit_w, const SweepOptions& o, const Estimator& est) {
  Scenario own = s;
  const int64_t inner = static_cast<int64_t>(own.plan.tp) * own.plan.pp * own.plan.cp;
  if (own.num_gpus != base.num_gpus) {
    if (inner <= 0 || own.num_gpus % inner != 0) return std::nan("");
    own.plan.dp = static_cast<int>(own.num_gpus / inner);
  }
  try {
    check_plan(own);
    const PointResult x = cost_plan(own, limit_w, o, est);
    const double usable = own.accelerator.memory_bytes.value - o.search.min_headroom_bytes;
    if (!x.e.fits || x.e.memory.total_bytes() > usable) return std::nan("");
    return x.e.step_time_s;
  } catch (const Error&) {
    return std::nan("");  // not a plan of this point (its batch split, its degrees)
  }
}

// The note on a scenario's own plan, which a sweep does not keep. Before 2026-12-06 a sweep of a
// scenario with DP overlap off searched it on without a word (a NIC sweep of Llama 3 70B read
// 8.71 to 8.61 s, the figures with overlap on, where estimate gives 8.88 s at the system's NIC;
// review).
// Written with the CLI's option names from Python too: a result is the same bytes from both (as
// plan's own_plan_status), only errors name Python's arguments.
std::string own_plan_note(const Scenario& base, const SearchOptions& opt) {
  const Candidate own = candidate_of(base, opt);
  const bool moe = base.model.moe.has_value();
  std::string note = "sweep searches each point's plan: the scenario's own (" +
                     (base.invalid_plan.empty() ? describe_own(own, opt, base) : std::string("not valid for this job")) +
                     ") is not kept (--fix KEY=VALUE holds a dimension)";
  // Its figure at every point, and the option that puts its schedule in the search (review of
  // 2026-12-06: the note had named only --fix, which cannot add a schedule).
  if (base.invalid_plan.empty()) {
    note += "; its step time at each point is the column own_plan_step_time_s (empty where it does not fit)";
    if (own.pp > 1 && own.schedule >= opt.schedules.size())
      note += "; its schedule " + base.plan.schedule + " is searched only where --schedules lists it";
  }
  // An overlap off that changes the plan (one without a data-parallel group, or the gather at
  // ZeRO 0, reads the same with it on) and is not fixed.
  std::string fixes;
  auto add = [&](bool Candidate::*flag, const char* key) {
    Candidate on = own;
    on.*flag = true;
    // One --fix per key: --fix takes one value per use since 2026-12-06 (review), so "--fix
    // grad_reduce_overlap=false param_gather_overlap=false" would be refused as written.
    if (!(own.*flag) && !same_plan(own, on, moe) && !opt.fixed.count(key)) fixes += (fixes.empty() ? "" : " ") + ("--fix " + std::string(key)) + "=false";
  };
  add(&Candidate::overlap_grad_reduce, "grad_reduce_overlap");
  add(&Candidate::overlap_param_gather, "param_gather_overlap");
  if (!fixes.empty()) note += "; its DP overlap off is searched only with --vary-dp-overlap or " + fixes;
  return note;
}

// Outputs per input (tokens per second, joule, dollar, system tokens per joule), MFU, the clock
// the power cap leaves and the plans that fit are better larger; times, powers and prices smaller.
// (Only columns starting with "tokens" were maximised: the front minimised
// system_tokens_per_joule, keeping a 300 W point that is both slowest and least efficient;
// 2026-12-05 review.)
bool maximise(const std::string& col) {
  return col.find("tokens") != std::string::npos || col == "mfu_fraction" || col == "clock_ratio" ||
         (col.size() > 6 && col.compare(col.size() - 6, 6, "_count") == 0);
}

}  // namespace

Result sweep(const Scenario& base, const SweepOptions& o, const Estimator& est, const Distribution& dist, const Progress& progress) {
  // A misspelt --schedules or --fix is the command's error, not its first grid point's.
  check_search_names(o.search);
  Result r;
  r.command = "sweep";
  r.set("scenario", base.name);
  r.set("model", base.model.id);
  r.set("system", base.system.id);
  r.set("accelerator", base.accelerator.id);
  r.set("num_gpus", int64_t{base.num_gpus});
  r.set("train_tokens", o.train_tokens);
  if (o.scenario_plan_stated) r.notes.push_back(own_plan_note(base, o.search));
  if (!(o.price_usd_per_gpu_hour >= 0 && o.price_usd_per_gpu_hour <= kMaxPriceUsdPerGpuHour))
    throw Error(SourceLocation{"--price-usd-per-gpu-hour", 0, 0, ""},
                "must be a positive price up to 1e6 USD, got " + format_double(o.price_usd_per_gpu_hour), "leave it out to use the system's node price");
  bool idle_varied = false, tdp_varied = false, limit_varied = false;
  for (size_t i = 0; i < o.vary.size(); ++i) {
    const auto& v = o.vary[i];
    for (size_t j = 0; j < i; ++j)
      if (o.vary[j].key == v.key)
        throw Error(SourceLocation{"--vary", 0, 0, v.key}, "the key is varied twice", "give its values in one --vary (KEY=V1,V2,...)");
    idle_varied = idle_varied || v.key == "accelerator.idle_w";
    tdp_varied = tdp_varied || v.key == "accelerator.tdp_w";
    limit_varied = limit_varied || v.key == "accelerator.power_limit_w";
    // accelerator.peak_flops scales every dtype's peak: with a dtype's own peak varied as well,
    // the result depended on the order of the --vary options (one of them was silently lost).
    if (v.key.rfind("accelerator.peak_flops.", 0) == 0)
      for (const auto& w : o.vary)
        if (w.key == "accelerator.peak_flops")
          throw Error(SourceLocation{"--vary", 0, 0, v.key},
                      "accelerator.peak_flops scales every dtype's peak, so " + v.key + " cannot be varied beside it",
                      "vary accelerator.peak_flops (all dtypes in proportion) or the dtypes' own peaks, not both");
    // A dtype's own peak that no op of this run reads (and MFU does not divide by) changes
    // nothing: every row was the same before 2026-12-02 (fp8's peak in a bf16 run).
    if (v.key.rfind("accelerator.peak_flops.", 0) == 0) {
      const DType d = parse_dtype(v.key.substr(std::string("accelerator.peak_flops.").size()), SourceLocation{"--vary", 0, 0, v.key});
      Scenario t = base;
      if (!t.accelerator.has_peak(d)) t.accelerator.peak_flops[d] = set_known(1e15);
      const ir::Workload w = ir::lower(t);
      const std::set<DType> read = peak_dtypes_read(w);
      if (!read.count(d)) {
        std::string names;
        for (DType x : read) names += std::string(names.empty() ? "" : ", ") + "accelerator.peak_flops." + to_string(x);
        throw Error(SourceLocation{"--vary", 0, 0, v.key},
                    "no op of this " + to_string(base.train.precision) + " run reads the " + to_string(d) + " peak, so " + v.key +
                        " has no effect",
                    "vary " + names + ", or accelerator.peak_flops (every dtype in proportion)");
      }
    }
    // Scale-out parameters of a system without a scale-out network change nothing (every row was
    // the same before 2026-12-02).
    if (!base.scale_out && (v.key == "scale_out.latency_s" || v.key == "system.nic_bandwidth_bytes_per_s" || v.key == "system.nics_per_node"))
      throw Error(SourceLocation{"--vary", 0, 0, v.key},
                  "system '" + base.system.id + "' has no scale-out network, so " + v.key + " has no effect",
                  "sweep it on a system with a scale-out network (sextant catalog list systems)");
    // The in-network-reduction latency of a scale-up network without in-switch reduction is never
    // used; where the job leaves NVLS out of its algorithms it changes nothing either (2026-12-07 review).
    if (v.key == kInNetworkReductionLatencyKey) {
      if (!has_in_network_reduction(base))
        throw Error(SourceLocation{"--vary", 0, 0, v.key},
                    "scale_up network '" + base.scale_up.id + "' of system '" + base.system.id + "' has no in-network reduction (NVLS), so " +
                        v.key + " has no effect",
                    "vary scale_up.latency_s, or sweep a system whose scale-up network has in_network_reduction_fraction (sextant catalog list networks)");
      const auto& algos = base.plan.collective_algorithms;
      if (std::find(algos.begin(), algos.end(), "nvls") == algos.end())
        r.notes.push_back(v.key + " has no effect here: parallel.collective_algorithms leaves out nvls");
    }
    // A job inside one scale-up domain sends nothing over the scale-out network: its keys change
    // nothing, which the table shows as identical rows; said (2026-12-05 review). (A swept GPU
    // count or domain is judged at its largest count and smallest domain.)
    if (base.scale_out && (v.key == "scale_out.latency_s" || v.key == "system.nic_bandwidth_bytes_per_s" || v.key == "system.nics_per_node")) {
      double gpus = base.num_gpus, domain = base.system.scale_up_domain;
      for (const auto& w : o.vary) {
        if (w.key == "num_gpus") gpus = *std::max_element(w.values.begin(), w.values.end());
        if (w.key == "system.scale_up_domain") domain = *std::min_element(w.values.begin(), w.values.end());
      }
      if (domain > 0 && gpus <= domain)
        r.notes.push_back(v.key + " has no effect here: the job's " + format_double(gpus) + " GPUs are inside one scale-up domain of " +
                          format_double(domain) + ", so nothing crosses the scale-out network");
    }
    // The catalog's rule (scale_up_domain_problem): a scale-up domain is whole nodes.
    if (v.key == "system.scale_up_domain")
      for (double x : v.values)
        if (const auto why = scale_up_domain_problem(static_cast<int>(x), base.system.gpus_per_node))
          throw Error(SourceLocation{"--vary", 0, 0, v.key}, why->first + " (" + base.system.id + ")", why->second);
  }
  // Without a board power there is no power model: power and tokens per joule are unknown (NaN).
  const bool tdp_known = base.accelerator.tdp_w.known || tdp_varied;
  if (tdp_varied && !base.accelerator.power_caps.empty())
    r.notes.push_back(base.accelerator.id + "'s published power caps were measured at its catalog TDP (" + format_double(base.accelerator.tdp_w.value) +
                      " W): at a varied TDP other than that, the clock under a power limit follows the P ~ f^k model instead");
  if (!tdp_known && limit_varied)
    throw Error(SourceLocation{"--vary", 0, 0, "accelerator.power_limit_w"},
                "the board power (TDP) of " + base.accelerator.id + " is not in the catalog, so a power limit has no clock to lower",
                "vary accelerator.tdp_w as well, or give the accelerator inline with tdp_w");
  // Idle power enters the power model beside the board power: without a TDP every point's power
  // is unknown whatever the idle power (the rows were identical, silently, before 2026-12-03).
  if (!tdp_known && idle_varied)
    throw Error(SourceLocation{"--vary", 0, 0, "accelerator.idle_w"},
                "the board power (TDP) of " + base.accelerator.id + " is not in the catalog, so power is unknown and the idle power has no effect",
                "vary accelerator.tdp_w as well, or give the accelerator inline with tdp_w");
  const bool idle_known = base.accelerator.idle_w.known || idle_varied;
  // Without a TDP there is no estimate to make: "estimated: 0.1 x TDP" had stood beside an unknown
  // tdp_source and empty power cells (review, 2026-12-07).
  r.set("idle_power_source", std::string(idle_varied  ? "varied (--vary accelerator.idle_w)"
                                         : idle_known ? "catalog"
                                         : tdp_known  ? "estimated: " + format_double(o.power.idle_fraction_of_tdp) + " x TDP"
                                                      : "unknown"));

  // A grid too large to finish is refused before it starts: 1,000 x 1,000 points ran for days
  // and could not be interrupted from a notebook (2026-12-04 review).
  {
    double points = 1;
    for (const auto& v : o.vary) points *= static_cast<double>(v.values.size());
    if (points > static_cast<double>(o.max_points))
      throw Error(SourceLocation{"", 0, 0, "--max-points"},
                  "the grid has " + format_double(points) + " points, above the limit of " + std::to_string(o.max_points) +
                      " (each point is a plan search, about 0.1-1 s)",
                  "use fewer values per key, or raise --max-points (Python: max_points=) if the run is meant to be that long");
  }
  // A system's node price is for its own accelerator: with another in its place (accelerator: in
  // the scenario) the rental price of those nodes is not known (B200s had been charged at the
  // H100 instance's 55.04 USD/h, and tokens_per_usd read 2.5x the H100's, 2026-12-04 review).
  const bool node_price_varied = std::any_of(o.vary.begin(), o.vary.end(), [](const Variation& v) { return v.key == "system.node_price_usd_per_hour"; });
  const bool node_price_of_other = base.system.node_price_usd_per_hour.known && !base.system.accelerator.empty() &&
                                   base.accelerator.id != base.system.accelerator && !node_price_varied && o.price_usd_per_gpu_hour <= 0;
  // The rest of a node beyond its boards, per GPU: the datasheet's maximum node power less the
  // catalog TDP of its GPUs, for the system's own accelerator only (another in its place makes
  // another node). -1: unknown.
  const bool node_power_own = base.system.node_power_w.known && base.accelerator.tdp_w.known && base.system.gpus_per_node > 0 &&
                              (base.system.accelerator.empty() || base.accelerator.id == base.system.accelerator);
  if (node_power_own) check_node_power(base.system, base.accelerator, SourceLocation{"", 0, 0, "system.node_power_w"});
  // Per node; a job charged for whole nodes draws their hosts whole too (a 4-GPU job on an 8-GPU
  // node had been given half the host's power while paying for all of it; 2026-12-05 review).
  const double node_rest_w = node_power_own ? base.system.node_power_w.value - base.system.gpus_per_node * base.accelerator.tdp_w.value : -1.0;
  const double node_rest_w_per_gpu = node_power_own ? node_rest_w / base.system.gpus_per_node : -1.0;
  // The price, power and purchase-price sources the per-dollar and per-watt columns rest on.
  {
    auto cite = [](const Sourced& v) { return !v.source.empty() ? v.source : !v.estimated.empty() ? "estimated: " + v.estimated : std::string("no source"); };
    std::string price = o.price_usd_per_gpu_hour > 0 ? "flat " + format_double(o.price_usd_per_gpu_hour) + " USD per GPU-hour (--price-usd-per-gpu-hour)"
                        : node_price_varied ? std::string("varied (--vary system.node_price_usd_per_hour), whole nodes")
                        : node_price_of_other ? "unknown: catalog " + base.system.id + " node price is for its " + base.system.accelerator +
                                                    " nodes, not " + base.accelerator.id
                        : base.system.node_price_usd_per_hour.known
                            ? "catalog " + base.system.id + " node price " + format_double(base.system.node_price_usd_per_hour.value) +
                                  " USD/h, whole nodes (" + cite(base.system.node_price_usd_per_hour) + ")"
                            : std::string("unknown");
    r.set("price_source", price);
    r.set("node_power_source", std::string(node_rest_w_per_gpu >= 0 ? "catalog " + base.system.id + " " + format_double(base.system.node_power_w.value) +
                                                                          " W per node (" + cite(base.system.node_power_w) + ")"
                                                                    : "unknown"));
    r.set("tdp_source", std::string(tdp_varied ? "varied (--vary accelerator.tdp_w)"
                                    : base.accelerator.tdp_w.known ? "catalog " + base.accelerator.id + " " + format_double(base.accelerator.tdp_w.value) +
                                                                         " W (" + cite(base.accelerator.tdp_w) + ")"
                                                                   : "unknown"));
    const bool capex_varied = std::any_of(o.vary.begin(), o.vary.end(), [](const Variation& v) { return v.key == "accelerator.price_usd"; });
    r.set("capex_source", std::string(capex_varied ? "varied (--vary accelerator.price_usd)"
                                      : base.accelerator.price_usd.known ? "catalog " + base.accelerator.id + " " + format_double(base.accelerator.price_usd.value) +
                                                                             " USD (" + cite(base.accelerator.price_usd) + ")"
                                                                       : "unknown"));
  }
  // The grid: cartesian product of the variations, the first varying slowest.
  std::vector<std::vector<double>> grid = {{}};
  for (const auto& v : o.vary) {
    std::vector<std::vector<double>> next;
    for (const auto& g : grid)
      for (double x : v.values) {
        auto h = g;
        h.push_back(x);
        next.push_back(std::move(h));
      }
    grid = std::move(next);
  }
  // A flat --price-usd-per-gpu-hour would override the node price at every point: varying the
  // node price as well is a contradiction, not a sweep (tokens_per_usd came out the same).
  if (o.price_usd_per_gpu_hour > 0)
    for (const auto& v : o.vary)
      if (v.key == "system.node_price_usd_per_hour")
        throw Error(SourceLocation{"", 0, 0, "--price-usd-per-gpu-hour"},
                    "a flat price per GPU-hour overrides the varied system.node_price_usd_per_hour",
                    "give one of the two: --vary system.node_price_usd_per_hour=... or --price-usd-per-gpu-hour");
  // The job's price per hour: a flat price per GPU-hour x the GPUs, or whole nodes at the node
  // price (a node is rented whole: 12 GPUs of 8-GPU instances pay for 16; before 2026-12-02 they
  // paid for 12, and 2 GPUs for a quarter of an instance).
  auto job_usd_per_hour = [&](const Scenario& s) {
    if (o.price_usd_per_gpu_hour > 0) return o.price_usd_per_gpu_hour * s.num_gpus;
    if (node_price_of_other) return 0.0;
    if (s.system.node_price_usd_per_hour.known && s.system.gpus_per_node > 0)
      return s.system.node_price_usd_per_hour.value * std::ceil(static_cast<double>(s.num_gpus) / s.system.gpus_per_node);
    return 0.0;
  };

  Table& t = r.add_table("sweep", "best plan at every point of the grid");
  for (const auto& v : o.vary) t.add_f64(v.key);
  t.add_str("best_plan");
  t.add_f64("step_time_s");
  t.add_f64("tokens_per_s");
  t.add_f64("tokens_per_s_per_gpu");
  t.add_f64("mfu_fraction");
  t.add_f64("time_to_train_s");
  t.add_f64("power_per_gpu_w");
  t.add_f64("clock_ratio");
  t.add_f64("tokens_per_joule");
  // The whole node's share per GPU: the boards plus the rest of the node at the datasheet's maximum
  // (system.node_power_w less its boards' TDP, held at that maximum: an upper bound), where the
  // catalog has it for this accelerator's node.
  t.add_f64("system_power_per_gpu_w");
  t.add_f64("system_tokens_per_joule");
  t.add_f64("tokens_per_usd");
  t.add_f64("tokens_per_s_per_capex_usd");
  t.add_i64("plans_valid_count");
  t.add_i64("plans_fit_count");
  // The price tokens_per_usd divides by (whole nodes, or the flat GPU-hour price): shown, with its
  // source in price_source (it was computed and never reported; 2026-12-04 review).
  t.add_f64("job_usd_per_hour");
  // The scenario's own plan at each point (own_point), where the scenario states a valid one: the
  // search's best may be another plan, or not reach it (review of 2026-12-06).
  const bool own_columns = o.scenario_plan_stated && base.invalid_plan.empty();
  if (own_columns) {
    t.add_f64("own_plan_step_time_s");
    t.add_f64("own_plan_slower_than_best_fraction");
  }
  // The Pareto objectives are checked before any point is estimated (a misspelt one was found
  // only after the whole grid had run).
  bool mx = false, my = false;
  std::string cx, cy;
  if (!o.pareto_x.empty() && !o.pareto_y.empty()) {
    auto parse_obj = [&](std::string name, bool& max) {
      max = false;
      bool given = false;
      if (name.rfind("min:", 0) == 0) name = name.substr(4), given = true;
      else if (name.rfind("max:", 0) == 0) name = name.substr(4), max = true, given = true;
      if (!t.has_column(name) || t.column(name).type == Column::Type::Str) {
        std::vector<std::string> cols;
        for (const auto& c : t.columns())
          if (c.type != Column::Type::Str) cols.push_back(c.name);
        throw Error(SourceLocation{"--pareto", 0, 0, name}, "unknown objective '" + name + "'", valid_choices_hint(name, cols));
      }
      if (!given) max = maximise(name);
      return name;
    };
    cx = parse_obj(o.pareto_x, mx);
    cy = parse_obj(o.pareto_y, my);
    if (cx == cy)
      throw Error(SourceLocation{"--pareto", 0, 0, cy}, "the two objectives are the same column", "give two different columns, e.g. step_time_s,tokens_per_joule");
    // The report's chart reads its axes from these, and its text their senses: before 2026-12-06
    // the scalars named the bare columns, so a front given as min:tokens_per_s,max:step_time_s
    // read as "the Pareto front of tokens_per_s and step_time_s", a dominated-looking one (review).
    r.set("pareto_x", cx);
    r.set("pareto_y", cy);
    r.set("pareto_x_direction", std::string(mx ? "max" : "min"));
    r.set("pareto_y_direction", std::string(my ? "max" : "min"));
  }
  // "the sweep point k=v, ..." or, without --vary, "the design point" (the messages read "the best
  // plan at  leaves ..." before 2026-12-03).
  auto point_text = [&](size_t gi) {
    std::string p;
    for (size_t k = 0; k < o.vary.size(); ++k) p += (p.empty() ? "" : ", ") + o.vary[k].key + "=" + format_double(grid[gi][k]);
    return p.empty() ? std::string("the design point") : "the sweep point " + p;
  };
  // The scenario of grid point gi and its power limit (0: none). A point the power model cannot
  // represent is an error, not a row: below idle power the board cannot run at any clock, and
  // idle above TDP would draw more than full activity. Every point is checked before the first
  // is estimated.
  auto point_scenario = [&](size_t gi, double& limit) {
    Scenario s = base;
    limit = 0;
    // A varied in-network-reduction latency is set after the step latency, which scales it: the
    // point then has the value given whatever the order of the --vary options (2026-12-07 review).
    for (int pass = 0; pass < 2; ++pass)
      for (size_t k = 0; k < o.vary.size(); ++k) {
        if ((o.vary[k].key == kInNetworkReductionLatencyKey) != (pass == 1)) continue;
        set_parameter(s, o.vary[k].key, grid[gi][k]);
        if (o.vary[k].key == "accelerator.power_limit_w") limit = grid[gi][k];
      }
    // The search's headroom must leave memory at every point (the grid had run up to such a point
    // and then ended with no rows, 2026-12-04 review).
    if (o.search.min_headroom_bytes > 0 && !(s.accelerator.memory_bytes.value - o.search.min_headroom_bytes > 0))
      throw Error(SourceLocation{"--headroom-gib", 0, 0, ""},
                  "leaves no memory at " + point_text(gi) + ": " + format_double(std::round(o.search.min_headroom_bytes / 1073741824.0 * 100) / 100) +
                      " GiB of headroom on " + format_double(std::round(s.accelerator.memory_bytes.value / 1073741824.0 * 100) / 100) + " GiB",
                  "give less headroom than the smallest memory swept, or sweep larger memories");
    {
      const double tdp = s.accelerator.tdp_w.value;
      const double idle = s.accelerator.idle_w.known ? s.accelerator.idle_w.value : o.power.idle_fraction_of_tdp * tdp;
      if (tdp_known && idle > tdp)
        throw Error(SourceLocation{"--vary", 0, 0, "accelerator.idle_w"},
                    "idle power " + format_double(idle) + " W is above the board power (TDP) of " + format_double(tdp) + " W");
      if (limit > 0 && limit <= idle)
        throw Error(SourceLocation{"--vary", 0, 0, "accelerator.power_limit_w"},
                    "a power limit of " + format_double(limit) + " W is at or below the idle power of " + format_double(idle) + " W" +
                        (s.accelerator.idle_w.known ? "" : " (estimated as " + format_double(o.power.idle_fraction_of_tdp) + " x TDP)"),
                    "limits between idle and TDP (" + format_double(tdp) + " W) lower the clocks");
      if (limit > 0 && tdp_known && limit > tdp) {
        const std::string note = "a power limit of " + format_double(limit) + " W is above the board power (TDP) of " + format_double(tdp) +
                                 " W: it does not raise the clocks, the point runs at TDP";
        if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(note);
      }
    }
    return s;
  };
  for (size_t gi = 0; gi < grid.size(); ++gi) {
    double limit = 0;
    point_scenario(gi, limit);
  }
  std::vector<bool> fits;
  // The caveats `plan` and `estimate` print for their best plan, over the rows (they were missing
  // from sweep before 2026-12-02: MFU 0.59 where the part's best published run is 0.47, a plan
  // with 0.86 GiB free).
  double mfu_max = -1, free_min = INFINITY;
  size_t mfu_row = 0, free_row = 0, above_rows = 0;
  std::vector<double> row_mfu;
  size_t no_valid_points = 0;
  size_t first_no_valid = 0;
  for (size_t gi = 0; gi < grid.size(); ++gi) {
    double limit = 0;
    const Scenario s = point_scenario(gi, limit);
    PointResult pr;
    try {
      pr = best_point(s, limit, o, est, dist);
    } catch (const Error& e) {
      // Say which point of the grid the model refused (a GPU count beyond the system, a link
      // too slow for any collective): the message alone named the scenario's key.
      throw Error(e.where(), "at " + point_text(gi) + ": " + e.message(), e.hint());
    }
    if (pr.fits && !(std::isfinite(pr.e.step_time_s) && pr.e.step_time_s > 0))
      throw Error(SourceLocation{"--vary", 0, 0, o.vary.empty() ? std::string() : o.vary.front().key},
                  "at " + point_text(gi) + " the step time is " + format_double(pr.e.step_time_s) +
                      ": a value out of the model's range (the step would take no time or for ever)",
                  "give values within a few orders of magnitude of real hardware");
    std::vector<Value> row;
    for (double x : grid[gi]) row.emplace_back(x);
    if (!pr.fits) {
      if (pr.valid == 0 && no_valid_points++ == 0) first_no_valid = gi;
      row.emplace_back(std::string(pr.valid == 0 ? "no valid plan" : "none fits"));
      for (int k = 0; k < 12; ++k) row.emplace_back(std::nan(""));
    } else {
      const double tps = pr.e.tokens_per_s_per_gpu * s.num_gpus;
      const double price = job_usd_per_hour(s);
      row.emplace_back(pr.plan);
      row.emplace_back(pr.e.step_time_s);
      row.emplace_back(tps);
      row.emplace_back(pr.e.tokens_per_s_per_gpu);
      // MFU against the nominal peak: under a power limit the estimate ran at lowered clocks.
      row.emplace_back(pr.e.mfu_fraction * pr.clock);
      row_mfu.push_back(pr.e.mfu_fraction * pr.clock);
      if (pr.e.mfu_fraction * pr.clock > mfu_max) mfu_max = pr.e.mfu_fraction * pr.clock, mfu_row = gi;
      const double free_bytes = s.accelerator.memory_bytes.value - pr.e.memory.total_bytes();
      if (free_bytes < free_min) free_min = free_bytes, free_row = gi;
      row.emplace_back(o.train_tokens / tps);
      row.emplace_back(tdp_known ? pr.power.power_w : std::nan(""));
      row.emplace_back(pr.power.clock_ratio);
      row.emplace_back(tdp_known ? pr.e.tokens_per_s_per_gpu / pr.power.power_w : std::nan(""));
      // The hosts of the whole nodes the job occupies, shared by its GPUs (the job's own system
      // layout: a varied gpus_per_node changes the count of nodes, the host's power stays).
      const int gpn = s.system.gpus_per_node > 0 ? s.system.gpus_per_node : base.system.gpus_per_node;
      const double nodes = std::ceil(static_cast<double>(s.num_gpus) / gpn);
      // The boards of those nodes the job leaves unused draw their idle power, shared alike: the
      // nodes are charged whole, as the price is (review of 2026-12-06: a 4-GPU job on an 8-GPU
      // node had been given the whole host's power but not its four idle boards, 4 x 70 W on a DGX H100).
      const double idle_board_w = s.accelerator.idle_w.known ? s.accelerator.idle_w.value : o.power.idle_fraction_of_tdp * s.accelerator.tdp_w.value;
      const double unused_slots = std::max(0.0, nodes * gpn - s.num_gpus);
      const double system_w = tdp_known && node_rest_w >= 0
                                  ? pr.power.power_w + (node_rest_w * nodes + idle_board_w * unused_slots) / s.num_gpus
                                  : std::nan("");
      row.emplace_back(system_w);
      row.emplace_back(pr.e.tokens_per_s_per_gpu / system_w);
      row.emplace_back(price > 0 ? tps * 3600.0 / price : std::nan(""));
      row.emplace_back(s.accelerator.price_usd.known ? pr.e.tokens_per_s_per_gpu / s.accelerator.price_usd.value : std::nan(""));
    }
    row.emplace_back(static_cast<int64_t>(pr.valid));
    row.emplace_back(static_cast<int64_t>(pr.fit));
    {
      const double price = job_usd_per_hour(s);
      row.emplace_back(price > 0 ? price : std::nan(""));
    }
    if (own_columns) {
      const double own_s = own_point(s, base, limit, o, est);
      row.emplace_back(own_s);
      row.emplace_back(pr.fits && std::isfinite(own_s) ? own_s / pr.e.step_time_s - 1 : std::nan(""));
    }
    t.add_row(row);
    fits.push_back(pr.fits);
    if (progress) progress(gi + 1, grid.size());
  }
  // No valid plan at any point: the constraints, which no hardware value changes, rule out every
  // plan; refused as `plan` refuses it (exit 2), not a grid of "no valid plan" rows with exit 0
  // (2026-12-04 review).
  // The text is the first point's (a swept num_gpus replaces the base's count, which the message
  // had named; review of 2026-12-05), and a swept job key is named as the key to look at.
  if (!grid.empty() && no_valid_points == grid.size()) {
    double limit = 0;
    const Scenario first = point_scenario(0, limit);
    std::string job_keys;
    for (const auto& v : o.vary)
      if (v.key == "num_gpus" || v.key.rfind("training.", 0) == 0) job_keys += (job_keys.empty() ? "" : ", ") + v.key;
    throw Error(SourceLocation{"", 0, 0, !job_keys.empty() ? "--vary" : o.search.fixed.empty() ? "" : "--fix"},
                no_valid_plan_text(first, o.search) + ", at every point of the sweep (the first: " + point_text(0) + ")" +
                    (job_keys.empty() ? std::string() : "; the sweep varies " + job_keys),
                "estimate the plan you meant: its error names the constraint it breaks");
  }
  // Why a point has no plan at all (a row said "no valid plan" with no reason before 2026-12-03):
  // plan's refusal at that point, which names the --fix values only when given and the framework
  // only when it restricts the search (the note had blamed both whatever applied; a --vary
  // num_gpus=1000 with neither read as their doing; review of 2026-12-05).
  if (no_valid_points > 0) {
    double limit = 0;
    r.notes.push_back(std::to_string(no_valid_points) + " of " + std::to_string(grid.size()) +
                      " point(s) have no valid plan. At the first, " + point_text(first_no_valid) + ": " +
                      no_valid_plan_text(point_scenario(first_no_valid, limit), o.search) +
                      "; estimating a plan at that point names the constraint it breaks");
  }

  if (free_min < 1024.0 * 1024 * 1024)
    r.notes.push_back("the best plan at " + point_text(free_row) + " leaves " + format_double(std::round(free_min / 1073741824.0 * 1000) / 1000) +
                      " GiB free beyond the 2 GiB reserve the memory model keeps; allocator fragmentation can take that: "
                      "--headroom-gib 4 ranks only plans that leave 4 GiB");
  if (mfu_max > 0) {
    try {
      const auto cat = Catalog::load_default();
      const ValidatedRange vr = validated_range(default_validation_csvs(), *cat, base, mfu_max, kValidatedMedianAbsErrorFraction * 100);
      // The range's other caveats, as plan prints them (no validation row on the part or in the
      // precision, the MoE rows' error, an unvalidated framework): sweep had kept only the MFU
      // one (2026-12-05 review: a Gaudi 3 sweep at MFU 0.61 said nothing). The MFU note is
      // per row below.
      for (const auto& n : vr.notes)
        if (n.rfind("the predicted MFU", 0) != 0) r.notes.push_back(n);
      if (vr.mfu_max && mfu_max > vr.mfu_max->mfu_fraction) {
        for (double m : row_mfu) above_rows += m > vr.mfu_max->mfu_fraction;
        r.set("validated_mfu_max_fraction", vr.mfu_max->mfu_fraction);
        r.set("validated_mfu_max_row", vr.mfu_max->id);
        r.notes.push_back(std::to_string(above_rows) + " of " + std::to_string(row_mfu.size()) + " rows predict an MFU above " +
                          format_double(std::round(vr.mfu_max->mfu_fraction * 1000) / 1000) + ", the highest measured on " + base.accelerator.id +
                          " in this precision (" + vr.mfu_max->id + "); up to " + format_double(std::round(mfu_max * 1000) / 1000) +
                          (o.vary.empty() ? std::string() : " at " + point_text(mfu_row)) +
                          ": treat those rows as upper bounds (no published run has shown them)");
      }
    } catch (const Error&) {
      // The bundled catalog or validation CSV is unreadable: no range to report.
    }
  }

  // Pareto front over two columns of the sweep table.
  if (!cx.empty()) {
    // Objectives may be counts (plans_fit_count) as well as measures.
    auto values = [&](const std::string& name) {
      const Column& col = t.column(name);
      std::vector<double> v(t.rows());
      for (size_t i = 0; i < v.size(); ++i) v[i] = col.type == Column::Type::I64 ? static_cast<double>(col.i64[i]) : col.f64[i];
      return v;
    };
    const std::vector<double> X = values(cx), Y = values(cy);
    auto better_eq = [](double a, double b, bool max) { return max ? a >= b : a <= b; };
    auto better = [](double a, double b, bool max) { return max ? a > b : a < b; };
    // The senses as applied, given or by default ("min:step_time_s, max:tokens_per_joule").
    Table& pf = r.add_table("pareto", "points of the sweep not dominated in (" + std::string(mx ? "max:" : "min:") + cx + ", " +
                                          (my ? "max:" : "min:") + cy + ")");
    // An objective that is a varied key is already among the key columns.
    auto varied = [&](const std::string& c) {
      return std::any_of(o.vary.begin(), o.vary.end(), [&](const Variation& v) { return v.key == c; });
    };
    const bool add_x = !varied(cx), add_y = cy != cx && !varied(cy);
    for (const auto& v : o.vary) pf.add_f64(v.key);
    pf.add_str("best_plan");
    auto add_col = [&](const std::string& c) {
      if (t.column(c).type == Column::Type::I64) pf.add_i64(c);
      else pf.add_f64(c);
    };
    if (add_x) add_col(cx);
    if (add_y) add_col(cy);
    size_t candidates = 0;
    for (size_t i = 0; i < X.size(); ++i) {
      if (!fits[i] || std::isnan(X[i]) || std::isnan(Y[i])) continue;
      ++candidates;
      bool dominated = false;
      for (size_t j = 0; j < X.size() && !dominated; ++j) {
        if (j == i || !fits[j] || std::isnan(X[j]) || std::isnan(Y[j])) continue;
        dominated = better_eq(X[j], X[i], mx) && better_eq(Y[j], Y[i], my) && (better(X[j], X[i], mx) || better(Y[j], Y[i], my));
      }
      if (dominated) continue;
      std::vector<Value> row;
      for (size_t k = 0; k < o.vary.size(); ++k) row.emplace_back(grid[i][k]);
      row.emplace_back(t.column("best_plan").str[i]);
      auto cell = [&](const std::string& c, double v) -> Value {
        if (t.column(c).type == Column::Type::I64) return static_cast<int64_t>(v);
        return v;
      };
      if (add_x) row.emplace_back(cell(cx, X[i]));
      if (add_y) row.emplace_back(cell(cy, Y[i]));
      pf.add_row(row);
    }
    if (candidates == 0)
      r.notes.push_back("pareto: no point of the grid has both " + cx + " and " + cy +
                        (std::find(fits.begin(), fits.end(), true) == fits.end() ? " (no plan fits at any point)"
                                                                                : " (an objective is unknown everywhere: a price or power the catalog lacks)"));
  }

  // Elasticity of step time around the design point (the scenario as given): d ln T / d ln p,
  // central difference at +-step, with the design point's best plan held and with re-planning.
  if (o.elasticity) {
    std::vector<std::string> keys = o.elasticity_keys;
    if (keys.empty()) {
      std::vector<std::string> left_out;
      for (const auto& v : o.vary)
        // Integer parameters have no +-10 % neighbourhood; the power limit acts through the power
        // model of the grid, not through the scenario.
        if (v.key != "num_gpus" && v.key != "system.scale_up_domain" && v.key != "system.nics_per_node" &&
            v.key != "accelerator.power_limit_w")
          keys.push_back(v.key);
        else
          left_out.push_back(v.key);
      if (!left_out.empty()) {
        std::string list;
        for (const auto& k : left_out) list += (list.empty() ? "" : ", ") + k;
        r.notes.push_back("elasticity: no row for " + list +
                          " (counts have no +-" + format_double(o.elasticity_step_fraction * 100) +
                          "% neighbourhood, and the power limit acts through the power model of the grid, not the step): "
                          "read their effect from the sweep table");
      }
      for (const char* k : {"accelerator.peak_flops", "accelerator.memory_bandwidth_bytes_per_s", "accelerator.memory_bytes",
                            "scale_up.bandwidth_bytes_per_s", "system.nic_bandwidth_bytes_per_s", "scale_up.latency_s",
                            "scale_out.latency_s"})
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
    const PointResult design = best_point(base, 0, o, est, dist);
    Table& el = r.add_table("elasticity",
                            "d ln(step time) / d ln(parameter) at the design point (negative: more is faster); central, and one-sided "
                            "up (more of it) and down (less of it)");
    el.add_str("parameter");
    el.add_f64("design_value");
    el.add_str("design_value_unit");  // the parameter's unit (bytes/s, FLOP/s, bytes, s, ...): rows differ
    el.add_f64("elasticity_fixed_plan_ratio");
    el.add_f64("elasticity_replanned_ratio");
    // One-sided elasticities (review, 2026-12-07): the central difference across a kink averages a
    // flat side with a steep one. Llama 3 8B on 16 H100 read -0.0044 for NIC bandwidth, where more
    // of it changed nothing (the step time flat from 5e10 up) and less slowed it (-0.0083 at -10 %).
    // up: ln(T(x0 (1 + h)) / T0) / ln(1 + h); down: ln(T0 / T(x0 (1 - h))) / ln(1 / (1 - h)).
    el.add_f64("elasticity_fixed_plan_up_ratio");
    el.add_f64("elasticity_fixed_plan_down_ratio");
    el.add_f64("elasticity_replanned_up_ratio");
    el.add_f64("elasticity_replanned_down_ratio");
    if (design.fits) {
      SearchOptions so = o.search;
      so.top = 1;
      const SearchOutcome dout = search(base, so, est, dist);
      const Candidate best = dout.candidates[dout.ranking.front()];
      r.set("design_plan", describe(best, so, base));
      r.set("design_step_time_s", design.e.step_time_s);
      const double h = o.elasticity_step_fraction;
      // The step time at the design point, the base of the one-sided elasticities: the design
      // plan's, held and re-planned alike (it is the best plan there).
      const double t0 = design.e.step_time_s;
      // Below this magnitude an elasticity counts as zero (a 1 % change moves the step by under
      // 1e-6 %): the floating-point noise of equal step times is far below it.
      constexpr double kZeroElasticity = 1e-6;
      auto is_zero = [&](double e) { return std::fabs(e) < kZeroElasticity; };
      // One side differs from the other by more than 2x, in sign, or is zero where the other is not.
      auto kinked = [&](double up, double down) {
        if (!std::isfinite(up) || !std::isfinite(down)) return false;
        if (is_zero(up) || is_zero(down)) return is_zero(up) != is_zero(down);
        if ((up < 0) != (down < 0)) return true;
        return std::max(std::fabs(up), std::fabs(down)) > 2 * std::min(std::fabs(up), std::fabs(down));
      };
      auto sig3 = [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", x);
        return format_double(std::strtod(buf, nullptr));
      };
      std::vector<std::pair<std::string, double>> binds, rebinds;  // finite fixed-plan / re-planned elasticities
      std::vector<std::string> no_value;
      for (const auto& k : keys) {
        const double x0 = get_parameter(base, k);
        if (!(x0 > 0)) {
          no_value.push_back(k);
          continue;
        }
        double tf[2], tr[2];
        for (int side = 0; side < 2; ++side) {
          Scenario s = base;
          set_parameter(s, k, x0 * (side ? 1 + h : 1 - h));
          Scenario sf = s;
          apply_candidate(sf, best, so);
          const StepEstimate ef = est.run(ir::lower(sf));
          // A side where the plan (or every plan) no longer fits has no step time: the elasticity
          // is undefined there (NaN, with a note), never an infinite number.
          // The headroom the search keeps (--headroom-gib) applies to the held plan too: it was
          // held against the bare capacity, and read 0 where it no longer fitted (before 2026-12-03).
          const bool fits_with_headroom = ef.fits && ef.memory.total_bytes() <= sf.accelerator.memory_bytes.value - so.min_headroom_bytes;
          tf[side] = fits_with_headroom ? ef.step_time_s : std::nan("");
          // A memory side below the search's headroom has no plan that fits: undefined, with the
          // note below (the search's "leaves no memory" error had ended the command; review of
          // 2026-12-05).
          if (!(s.accelerator.memory_bytes.value - so.min_headroom_bytes > 0)) {
            tr[side] = std::nan("");
            continue;
          }
          const PointResult pr = best_point(s, 0, o, est, dist);
          tr[side] = pr.fits ? pr.e.step_time_s : std::nan("");
        }
        const double dl = std::log((1 + h) / (1 - h));
        // Memory capacity does not change the time of a plan that fits: its fixed-plan
        // elasticity is 0 as long as the plan fits at both points.
        const double ef = std::log(tf[1] / tf[0]) / dl, er = std::log(tr[1] / tr[0]) / dl;
        const double up_l = std::log(1 + h), down_l = -std::log(1 - h);
        const double uf = std::log(tf[1] / t0) / up_l, df = std::log(t0 / tf[0]) / down_l;
        const double ur = std::log(tr[1] / t0) / up_l, dr = std::log(t0 / tr[0]) / down_l;
        el.add_row({k, x0, accessor(k).p.unit, ef, er, uf, df, ur, dr});
        const std::string pct = format_double(std::round(h * 1000) / 10);
        // Where the two sides disagree, the central figure answers "does more of it help?" wrongly:
        // said, with the sides' own figures (the re-planned ones first: buying more hardware, the
        // plan would be searched again).
        auto kink_note = [&](double central, double up, double down, const std::string& how, const std::string& cols) {
          const std::string more = is_zero(up) ? "more of it does not help" : up < 0 ? "more of it helps" : "more of it slows steps";
          const std::string less = is_zero(down) ? "less of it costs nothing" : down < 0 ? "less of it slows steps" : "less of it speeds steps";
          r.notes.push_back(k + ": step time bends at the design point (" + how + "): +" + pct + "% gives elasticity " +
                            sig3(is_zero(up) ? 0.0 : up) + ", " + more + "; -" + pct + "% gives " + sig3(is_zero(down) ? 0.0 : down) + ", " +
                            less + "; the central " + sig3(central) + " averages the two sides (" + cols + ")");
        };
        const bool kr = kinked(ur, dr), kf = kinked(uf, df);
        if (kr && kf && uf == ur && df == dr) {
          kink_note(er, ur, dr, "plan held and re-planned alike", "elasticity_replanned_up_ratio, elasticity_replanned_down_ratio");
        } else {
          if (kr) kink_note(er, ur, dr, "re-planned", "elasticity_replanned_up_ratio, elasticity_replanned_down_ratio");
          if (kf) kink_note(ef, uf, df, "plan held", "elasticity_fixed_plan_up_ratio, elasticity_fixed_plan_down_ratio");
        }
        if (std::isnan(tf[0]) || std::isnan(tf[1]))
          r.notes.push_back(k + ": the design plan does not fit at " + (std::isnan(tf[0]) ? "-" : "+") + pct +
                            "%, so its fixed-plan elasticity is undefined; " +
                            (k == "accelerator.memory_bytes" ? "the plan has less than " + pct + "% of the capacity as headroom"
                                                             : std::string("the parameter changes the plan's memory")));
        if (std::isnan(tr[0]) || std::isnan(tr[1]))
          r.notes.push_back(k + ": no plan fits at " + (std::isnan(tr[0]) ? "-" : "+") + pct + "%, so the re-planned elasticity is undefined");
        if (!std::isnan(ef)) binds.emplace_back(k, ef);
        if (!std::isnan(er)) rebinds.emplace_back(k, er);
      }
      if (!no_value.empty()) {
        std::string list;
        for (const auto& k : no_value) list += (list.empty() ? "" : ", ") + k;
        r.notes.push_back("elasticity: no row for " + list + " (zero or unknown at the design point" +
                          (base.scale_out ? std::string() : ": " + base.system.id + " has no scale-out network") + ")");
      }
      auto by_size = [](const auto& a, const auto& b) { return std::fabs(a.second) > std::fabs(b.second); };
      std::stable_sort(binds.begin(), binds.end(), by_size);
      std::stable_sort(rebinds.begin(), rebinds.end(), by_size);
      auto r3 = [](double x) { return format_double(std::round(x * 1000) / 1000); };
      if (!binds.empty())
        r.notes.push_back("binding resource at the design point: " + binds.front().first + " (elasticity " + r3(binds.front().second) +
                          ": 1% more gives " + r3(-binds.front().second) + "% shorter steps with the plan held)");
      if (!rebinds.empty() && (binds.empty() || rebinds.front().first != binds.front().first))
        r.notes.push_back("with re-planning the largest elasticity is " + rebinds.front().first + " (" + r3(rebinds.front().second) +
                          "): more of it lets a faster plan fit or run");
    } else {
      r.notes.push_back(std::string("elasticity: ") +
                        (design.valid == 0 ? "no valid plan at the design point (check the --fix values against the model and GPU count)"
                                           : "no plan fits in memory at the design point (" + std::to_string(design.valid) +
                                                 " valid, none fits)") +
                        ", so there is nothing to differentiate");
    }
  }
  // Prices: tokens_per_usd needs the job's price per hour, tokens_per_s_per_capex_usd the GPU's
  // purchase price; without them the columns are NaN, and say so.
  auto varied_key = [&](const char* k) {
    return std::any_of(o.vary.begin(), o.vary.end(), [&](const Variation& v) { return v.key == k; });
  };
  if (node_price_of_other)
    r.notes.push_back("system '" + base.system.id + "' has a node price for its " + base.system.accelerator + " nodes, not for " +
                      base.accelerator.id + " in their place: tokens_per_usd is unknown; give --price-usd-per-gpu-hour, or vary "
                      "system.node_price_usd_per_hour");
  else if (!o.vary.empty() && o.price_usd_per_gpu_hour <= 0 && !base.system.node_price_usd_per_hour.known &&
      !varied_key("system.node_price_usd_per_hour"))
    r.notes.push_back("system '" + base.system.id + "' has no node price in the catalog: tokens_per_usd is unknown; give "
                      "--price-usd-per-gpu-hour, or vary system.node_price_usd_per_hour");
  if (!o.vary.empty() && !base.accelerator.price_usd.known && !varied_key("accelerator.price_usd"))
    r.notes.push_back("the purchase price of " + base.accelerator.id + " is not in the catalog: tokens_per_s_per_capex_usd is "
                      "unknown; vary accelerator.price_usd to give one");
  // A config.json's keys the model does not read, as estimate says them (review of 2026-12-04).
  if (const std::string note = ignored_keys_note(base.model); !note.empty()) r.notes.push_back(note);
  // A sequence beyond the model's context, in estimate's words (sweep had dropped it before
  // 2026-12-05, review). No sweep parameter changes the model or the sequence (sweep_parameters),
  // so the scenario's note holds at every point.
  if (const std::string note = context_extension_note(base); !note.empty()) r.notes.push_back(note);
  if (!tdp_known)
    r.notes.push_back("the board power (TDP) of " + base.accelerator.id + " is not in the catalog: power_per_gpu_w and tokens_per_joule are unknown");
  // The scope of perf/W beside perf/$ (a reader had compared a GPU-only figure with a whole-node
  // price; 2026-12-05 review).
  if (tdp_known && node_rest_w_per_gpu >= 0)
    r.notes.push_back("power_per_gpu_w and tokens_per_joule count the GPU boards alone; system_power_per_gpu_w and system_tokens_per_joule "
                      "add the rest of each " + base.system.id + " node the job occupies (host, NICs, switches, fans) at its datasheet maximum, " +
                      format_double(std::round(node_rest_w * 10) / 10) + " W per node, " + format_double(std::round(node_rest_w_per_gpu * 10) / 10) +
                      " W per GPU of a full node (node_power_w " + format_double(base.system.node_power_w.value) + " W less " +
                      std::to_string(base.system.gpus_per_node) + " x " + format_double(base.accelerator.tdp_w.value) +
                      " W of boards), shared by the job's GPUs of whole nodes as the price is, with the idle power of the boards the job leaves unused "
                      "in them, an upper bound; cooling and the data centre's PUE are not counted");
  else if (tdp_known)
    r.notes.push_back("power_per_gpu_w and tokens_per_joule count the GPU boards alone: host CPUs, memory, NICs, switches, fans and cooling "
                      "are left out (a DGX H100's datasheet maximum is 10.2 kW beside its 8 x 700 W of boards), while job_usd_per_hour prices "
                      "whole nodes where the catalog has their price; the catalog has no node_power_w for " +
                      (base.system.id.empty() ? std::string("this system") : base.system.id) +
                      (node_power_own || !base.system.node_power_w.known ? std::string() : std::string(" with ") + base.accelerator.id) +
                      ": system_tokens_per_joule is unknown");
  if (tdp_known && !idle_known)
    r.notes.push_back("idle power of " + base.accelerator.id + " is not in the catalog: estimated as " +
                      format_double(o.power.idle_fraction_of_tdp) + " x TDP; activity-based power, communication at " +
                      format_double(o.power.comm_activity_fraction) + " of dynamic power (estimated, docs/plan.md)");
  return r;
}

}  // namespace sextant::plan
