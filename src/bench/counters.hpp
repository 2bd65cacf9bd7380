#pragma once
// Hardware counters (perf_event_open: cycles, instructions, cache misses) and package energy
// (RAPL through /sys/class/powercap) around a region of code. Whatever cannot be read is
// reported as unavailable with the reason (perf_event_paranoid, seccomp, no RAPL zone, no read
// permission), never as zero.
//
// Scope: every thread of the process that exists when start() is called (one event group per
// thread, from /proc/self/task) plus threads they create afterwards (inherit). Energy is the
// whole package (all processes), as RAPL counts it.
#include <memory>
#include <string>
#include <vector>

#include "bench/measurement.hpp"

namespace sextant::bench {

class CounterSession {
 public:
  CounterSession();
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  void start();
  // Values since start(): cycles_count, instructions_count, cache_misses_count, energy_j.
  std::vector<CounterValue> stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// RAPL package zones readable on this host (paths of energy_uj); empty with a reason otherwise.
struct RaplZones {
  std::vector<std::string> energy_files;
  std::vector<double> max_range_uj;
  std::string reason;  // why none are usable
};
RaplZones find_rapl_zones(const std::string& powercap_dir = "/sys/class/powercap");

}  // namespace sextant::bench
