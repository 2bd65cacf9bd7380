#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "bench/suite.hpp"
#include "core/error.hpp"
#include "core/threads.hpp"

namespace sextant::bench {


int SuiteConfig::effective_threads() const {
  if (threads > 0) return threads;
  int n = host.cpu.logical_cpus > 0 ? host.cpu.logical_cpus : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  // Under taskset or a container quota, "all CPUs" is what the process may use: a pinned run is
  // then a different configuration (threads 1 against 2, parameters_differ), not a regression.
  if (const int u = sextant::usable_cpus(); u > 0 && (n <= 0 || u < n)) n = u;
  return n > 0 ? n : 1;
}

std::vector<const Suite*> SuiteRegistry::all() const {
  std::vector<const Suite*> v;
  for (const auto& s : items()) v.push_back(s.get());
  return v;
}

SuiteRegistry make_suite_registry() {
  SuiteRegistry r;
  r.add(make_gemm_cpu_suite());
  r.add(make_memory_bandwidth_suite());
  r.add(make_memory_latency_suite());
  r.add(make_cache_bandwidth_suite());
  r.add(make_storage_suite());
  r.add(make_mpi_suite());
  r.add(make_gpu_suite());
  return r;
}

}  // namespace sextant::bench
