#include "core/threads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace sextant {

void place_away_from_caller(std::thread& t) noexcept {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return;
  const int here = sched_getcpu();
  if (here < 0 || here >= CPU_SETSIZE || !CPU_ISSET(here, &allowed)) return;
  CPU_CLR(here, &allowed);
  (void)pthread_setaffinity_np(t.native_handle(), sizeof allowed, &allowed);
#else
  (void)t;
#endif
}

int usable_cpus() noexcept {
  int n = 0;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  // cgroup v2 CPU quota: "max 100000" or "150000 100000" (1.5 CPUs: 2 threads).
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/cpu.max", "r")) {
    char quota[32] = {0};
    long long period = 0;
    if (std::fscanf(f, "%31s %lld", quota, &period) == 2 && std::string_view(quota) != "max" && period > 0) {
      const long long q = std::atoll(quota);
      if (q > 0) {
        const int c = std::max(1, static_cast<int>((q + period - 1) / period));
        n = n > 0 ? std::min(n, c) : c;
      }
    }
    std::fclose(f);
  }
#endif
  if (n <= 0) n = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, n);
}

}  // namespace sextant
