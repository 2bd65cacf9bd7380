#pragma once
// One benchmark measurement: a named case of a suite, the metric it reports, the parameters it
// ran with and the metric's value at every repetition (after warm-up). Summaries (median,
// spread) are computed from the samples, never stored in place of them.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/stats.hpp"

namespace sextant::bench {

// A hardware counter or energy reading over a measurement's repetitions. `available` false means
// the counter could not be read (the reason says why); value is then meaningless, not zero.
struct CounterValue {
  std::string name;   // cycles_count, instructions_count, cache_misses_count, energy_j
  bool available = false;
  double value = 0;
  std::string reason;  // when unavailable
};

struct Measurement {
  std::string suite;   // gemm_cpu, memory_bandwidth, ...
  std::string name;    // unique within the suite: "fp32 m=512 n=512 k=512"
  std::string metric;  // flops_per_s, bytes_per_s, latency_s, wall_s, ...
  bool higher_is_better = true;
  std::vector<std::pair<std::string, std::string>> params;  // recorded parameters, in order
  std::vector<double> samples;                              // metric value per repetition
  int64_t warmup_count = 0;
  std::vector<CounterValue> counters;

  // Throws Error naming the suite and case when there are no samples (a bare "summary of an
  // empty sample" had named neither, 2026-12-04 review).
  Summary summary() const;
  // Parameter value; throws Error naming the measurement when absent.
  const std::string& param(const std::string& key) const;
  bool has_param(const std::string& key) const;
  double param_f64(const std::string& key) const;
  void set_param(const std::string& key, const std::string& value);
};

// Output of one suite: measurements, free-text notes (skips and why), and tables the suite
// wants shown as they are (the nccl-tests layout of the communication suite).
struct SuiteOutput {
  std::vector<Measurement> measurements;
  std::vector<std::string> notes;
  std::vector<std::pair<std::string, std::string>> text_blocks;  // title, preformatted text
};

}  // namespace sextant::bench
