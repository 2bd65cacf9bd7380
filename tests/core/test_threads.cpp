// Question: does start_worker keep a new thread off the CPU its creator runs on (core/threads.hpp),
// and run it like std::thread otherwise?
#include <gtest/gtest.h>

#include <atomic>

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
#endif

}  // namespace
