#include <algorithm>
#include <cmath>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {
namespace stats {

double quantile_linear(const std::vector<double>& s, double q) {
  if (s.empty()) return std::nan("");
  double pos = q * static_cast<double>(s.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, s.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return s[lo] + (s[hi] - s[lo]) * frac;
}

Describe describe(std::vector<double> v) {
  Describe d;
  const double nan = std::nan("");
  d.count = static_cast<double>(v.size());
  if (v.empty()) {
    d.mean = d.std = d.min = d.p25 = d.p50 = d.p75 = d.max = nan;
    return d;
  }
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / d.count;
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - d.mean) * (x - d.mean);
    d.std = std::sqrt(ss / (d.count - 1));
  } else {
    d.std = nan;
  }
  std::sort(v.begin(), v.end());
  d.min = v.front();
  d.max = v.back();
  d.p25 = quantile_linear(v, 0.25);
  d.p50 = quantile_linear(v, 0.5);
  d.p75 = quantile_linear(v, 0.75);
  return d;
}

double round_to(double v, int decimals) {
  if (!std::isfinite(v)) return v;
  double f = std::pow(10.0, decimals);
  return std::nearbyint(v * f) / f;
}

}  // namespace stats

int64_t profiler_step_number(std::string_view n) {
  static constexpr std::string_view kPrefix = "ProfilerStep";
  if (n.substr(0, kPrefix.size()) != kPrefix) return -1;
  size_t i = kPrefix.size();
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
  while (i < n.size() && space(n[i])) ++i;
  if (i >= n.size() || n[i] != '#') return -1;
  ++i;
  while (i < n.size() && space(n[i])) ++i;
  const size_t digits = n.size() - i;
  if (digits < 1 || digits > 18) return -1;
  int64_t v = 0;
  for (; i < n.size(); ++i) {
    if (n[i] < '0' || n[i] > '9') return -1;
    v = v * 10 + (n[i] - '0');
  }
  return v;
}

std::string sextant_column_name(const std::string& h) {
  static const std::vector<std::pair<std::string, std::string>> map = {
      {"idle_time(us)", "idle_time_us"},
      {"compute_time(us)", "compute_time_us"},
      {"non_compute_time(us)", "non_compute_time_us"},
      {"kernel_time(us)", "gpu_span_us"},  // HTA's "kernel time" is the GPU-active span, idle included
      {"idle_time_pctg", "idle_time_percent"},
      {"compute_time_pctg", "compute_time_percent"},
      {"non_compute_time_pctg", "non_compute_time_percent"},
      {"comp_comm_overlap_pctg", "comp_comm_overlap_percent"},
      {"sum", "sum_us"},
      {"percentage", "percent"},
      {"sum (us)", "sum_us"},
      {"max (us)", "max_us"},
      {"min (us)", "min_us"},
      {"stddev", "stddev_us"},
      {"mean (us)", "mean_us"},
      {"idle_time", "idle_time_us"},
      {"idle_time_ratio", "idle_time_fraction"},
      {"mean", "mean_us"},
      {"std", "std_us"},
      {"min", "min_us"},
      {"25%", "p25_us"},
      {"50%", "p50_us"},
      {"75%", "p75_us"},
      {"max", "max_us"},
      {"cpu_duration", "cpu_duration_us"},
      {"gpu_duration", "gpu_duration_us"},
      {"launch_delay", "launch_delay_us"},
      {"queue_length_count", "queue_length_samples_count"},
      {"queue_length_mean", "queue_length_mean_count"},
      {"queue_length_std", "queue_length_std_count"},
      {"queue_length_min", "queue_length_min_count"},
      {"queue_length_25%", "queue_length_p25_count"},
      {"queue_length_50%", "queue_length_p50_count"},
      {"queue_length_75%", "queue_length_p75_count"},
      {"queue_length_max", "queue_length_max_count"},
  };
  for (const auto& [a, b] : map)
    if (a == h) return b;
  return h;
}

}  // namespace sextant::trace
