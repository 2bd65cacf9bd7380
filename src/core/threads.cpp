#include "core/threads.hpp"

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

}  // namespace sextant
