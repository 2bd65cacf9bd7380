#include <unistd.h>

#include "bench/suite.hpp"
#include "core/error.hpp"

namespace sextant::bench {

int SuiteConfig::effective_threads() const {
  if (threads > 0) return threads;
  if (host.cpu.logical_cpus > 0) return host.cpu.logical_cpus;
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
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
