// Question: does start_worker keep a new thread off the CPU its creator runs on (core/threads.hpp),
// and run it like std::thread otherwise?
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/c_locale.hpp"
#include "core/threads.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace {

TEST(Threads, StartWorkerRunsTheFunction) {
  std::atomic<int> got{0};
  std::thread t = sextant::start_worker([&] { got = 42; });
  t.join();
  EXPECT_EQ(got.load(), 42);
}

#if defined(__linux__)
// A worker that ends at once must not leave its placement to the caller (glibc's
// pthread_setaffinity_np on an ended thread sets the calling thread's CPUs).
TEST(Threads, TheCallersCpusAreUnchangedAfterManyShortWorkers) {
  cpu_set_t before, after;
  CPU_ZERO(&before);
  CPU_ZERO(&after);
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  for (int i = 0; i < 200; ++i) sextant::start_worker([] {}).join();
  ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}
#endif

#if defined(__linux__)
TEST(Threads, StartWorkerExcludesTheCallersCpuFromTheNewThreadsSet) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one CPU: start_worker is plain std::thread";
  // Which CPU the caller was on at the call is not observable without pinning it (which would
  // shrink its set to one CPU): the new thread's set must be the caller's minus exactly one of
  // its CPUs, and the thread must run inside it.
  std::atomic<int> ran_on{-1};
  std::atomic<bool> go{false};
  std::thread t = sextant::start_worker([&] {
    while (!go.load()) std::this_thread::yield();  // runs after the placement
    ran_on = sched_getcpu();
  });
  cpu_set_t set;
  CPU_ZERO(&set);
  const int rc = pthread_getaffinity_np(t.native_handle(), sizeof set, &set);
  go = true;
  t.join();
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(CPU_COUNT(&set), CPU_COUNT(&allowed) - 1);
  cpu_set_t both;
  CPU_AND(&both, &set, &allowed);
  EXPECT_TRUE(CPU_EQUAL(&both, &set)) << "the thread may only lose CPUs, not gain any";
  ASSERT_GE(ran_on.load(), 0);
  EXPECT_TRUE(CPU_ISSET(ran_on.load(), &set));
}

// Does usable_cpus() (what --threads 0 means) follow the thread's affinity mask (taskset, Slurm's
// binding)? Before 2026-12-03 the commands started one thread per CPU of the machine.
TEST(Threads, UsableCpusFollowTheAffinityMask) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  EXPECT_GE(sextant::usable_cpus(), 1);
  EXPECT_LE(sextant::usable_cpus(), CPU_COUNT(&allowed));
  int pinned = -1;
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) {
        CPU_SET(c, &one);
        break;
      }
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0) pinned = sextant::usable_cpus();
  });
  t.join();
  EXPECT_EQ(pinned, 1);
}

// Does a library thread read numbers in the "C" locale whatever the thread's locale was, and
// get its own locale back after? (c_locale.hpp; the Python test checks a decimal-comma locale.)
TEST(Threads, CNumericLocaleIsPerThreadAndRestored) {
  const locale_t before = uselocale(static_cast<locale_t>(0));
  {
    const sextant::CNumericLocale c;
    EXPECT_EQ(std::strtod("95.7", nullptr), 95.7);
    EXPECT_NE(uselocale(static_cast<locale_t>(0)), before);
  }
  EXPECT_EQ(uselocale(static_cast<locale_t>(0)), before);
}
#endif

// A slice that runs out of memory on its thread (the stacks of many threads can fill an
// address-space limit) is run again on the calling thread after the join: every slice's result
// is there, each written once by the run that finished (CI of 2026-12-07: "out of memory" with
// --threads 400 under a 1.5 GiB limit).
TEST(Threads, ASliceThatRunsOutOfMemoryIsRunAgainAfterTheJoin) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<int> result(6, -1);
  std::vector<int> runs(6, 0);
  std::vector<std::thread::id> ran_on(6);
  sextant::run_slices(6, [&](int t) {
    ++runs[size_t(t)];
    ran_on[size_t(t)] = std::this_thread::get_id();
    if ((t == 0 || t == 3) && runs[size_t(t)] == 1) throw std::bad_alloc();
    result[size_t(t)] = t * t;
  });
  for (int t = 0; t < 6; ++t) EXPECT_EQ(result[size_t(t)], t * t) << t;
  EXPECT_EQ(runs[0], 2);
  EXPECT_EQ(runs[3], 2);
  EXPECT_EQ(runs[1], 1);
  EXPECT_EQ(ran_on[3], caller);  // the rerun is on the calling thread, after the others ended
}

// Other errors are errors: the lowest slice's is rethrown after the join; a slice out of memory
// on the calling thread too is std::bad_alloc.
TEST(Threads, ASlicesOtherErrorsAndASecondOutOfMemoryAreRethrown) {
  std::atomic<int> done{0};
  try {
    sextant::run_slices(4, [&](int t) {
      if (t == 2) throw std::runtime_error("slice 2");
      if (t == 3) throw std::runtime_error("slice 3");
      ++done;
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "slice 2");
  }
  EXPECT_EQ(done.load(), 2);  // the others ran to the end before the rethrow
  EXPECT_THROW(sextant::run_slices(3, [](int t) {
                 if (t == 1) throw std::bad_alloc();
               }),
               std::bad_alloc);
}

}  // namespace
