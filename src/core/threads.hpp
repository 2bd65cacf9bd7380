#pragma once
// Starting a worker thread on a core other than its creator's.
//
// Linux places a new thread on a CPU when it is created, and does not always pick an idle one:
// on this project's VMs (Firecracker, 2 vCPUs, kernel 6.x) about one new thread in five started
// on the CPU of the busy thread that created it, with the other CPU idle, and shared that CPU for
// ~2 ms before the scheduler moved it (a probe of 40 starts: 7-8 co-located; p90 of a 6 ms
// two-thread task 7.9-8.0 ms, and 6.4-6.5 ms with the placement below). For `sextant analyze`
// that tail is the inflater and the scanner, or the two analysis threads, sharing one core for
// part of a 30-80 ms run.
//
// start_worker(f) is std::thread(f) whose thread may run on any CPU of the caller's affinity set
// except the one the caller is running on at that moment, when the set has two CPUs or more (it
// stays within that set for its life: the workers of this project are short-lived). With one
// CPU, or where the platform has no CPU affinity, it is plain std::thread(f). f starts only once
// the thread is placed: placing a thread that has already ended would apply to no thread (glibc
// then passes thread id 0 to the kernel, which means the caller itself).
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "core/c_locale.hpp"

namespace sextant {

// Restricts t to the calling thread's CPUs minus the one the caller runs on now (see above).
// Best effort: does nothing when the set has one CPU or the calls fail. t must not have ended.
void place_away_from_caller(std::thread& t) noexcept;

// The CPUs this process may run on: its affinity mask (taskset, numactl, Slurm's binding) and a
// cgroup v2 CPU quota (containers), whichever is smaller; hardware_concurrency() when neither
// says; at least 1. What `--threads 0` means for every command (before 2026-12-03 only bench
// honoured affinity and quota; the others started one thread per CPU of the machine).
int usable_cpus() noexcept;

template <class F>
std::thread start_worker(F&& f) {
  auto placed = std::make_shared<std::atomic<bool>>(false);
  std::thread t([placed, fn = std::forward<F>(f)]() mutable {
    while (!placed->load(std::memory_order_acquire)) std::this_thread::yield();
    const CNumericLocale c_numbers;  // the caller's process may have another LC_NUMERIC (c_locale.hpp)
    fn();
  });
  place_away_from_caller(t);
  placed->store(true, std::memory_order_release);
  return t;
}

// Runs fn(k) for every k in [first, n), each on a thread of its own (start_worker), and joins
// them. A thread that cannot be started (a process, thread or memory limit: std::thread throws
// std::system_error, or the allocation fails) is not an error and never std::terminate: its
// fn(k) runs on the calling thread in join(), after the others were started. So work split by k
// is all done, and work taken from a shared counter is done by the threads that run. Contract:
// join() (or the destructor, which joins without running anything) is called before the state
// fn uses goes away; join() rethrows the first exception of an fn(k) it ran itself (fn(k) on a
// thread of its own must catch its own: an exception leaving a thread terminates the process).
class Workers {
 public:
  Workers(int first, int n, std::function<void(int)> fn) : fn_(std::move(fn)) {
    // Both reserved first: neither push_back may throw once a thread runs (a vector of joinable
    // threads destroyed while unwinding terminates the process).
    if (n > first) {
      threads_.reserve(static_cast<size_t>(n - first));
      unstarted_.reserve(static_cast<size_t>(n - first));
    }
    for (int k = first; k < n; ++k) {
      try {
        threads_.push_back(start_worker([this, k] { fn_(k); }));
      } catch (const std::exception&) {  // std::system_error (EAGAIN), std::bad_alloc
        unstarted_.push_back(k);
      }
    }
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  ~Workers() { join_threads(); }

  size_t started() const { return threads_.size(); }

  void join() {
    std::exception_ptr err;
    for (int k : unstarted_) {
      try {
        fn_(k);
      } catch (...) {
        if (!err) err = std::current_exception();
      }
    }
    unstarted_.clear();
    join_threads();
    if (err) std::rethrow_exception(err);
  }

 private:
  void join_threads() noexcept {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  std::function<void(int)> fn_;
  std::vector<std::thread> threads_;
  std::vector<int> unstarted_;
};

// fn(0) on the calling thread and fn(1) .. fn(n-1) on Workers; joins them all, also when fn(0)
// throws (rethrown after the join).
inline void run_workers(int n, const std::function<void(int)>& fn) {
  Workers w(1, n, fn);
  std::exception_ptr err;
  try {
    fn(0);
  } catch (...) {
    err = std::current_exception();
  }
  try {
    w.join();
  } catch (...) {
    if (!err) err = std::current_exception();
  }
  if (err) std::rethrow_exception(err);
}

// Work split into n slices that each write only their own results: fn(t) for t in [0, n), fn(0)
// on the calling thread and the others on Workers (run_workers). A slice that runs out of memory
// (std::bad_alloc) is run again on the calling thread once every thread is joined: under an
// address-space limit the stacks of many threads can leave none for the work itself, and a
// joined thread's stack is freed (a CI run of 2026-12-07 had --threads 400 under a 1.5 GiB limit
// fail "out of memory" where the threads had started). Contract: fn(t) may run twice for the
// same t, so it writes its slice whole each time it runs (nothing accumulated across runs).
// Any other exception of a slice is rethrown after the join, the lowest t first; a slice that
// runs out of memory on the calling thread too is an error (std::bad_alloc).
inline void run_slices(int n, const std::function<void(int)>& fn) {
  if (n <= 0) return;
  std::vector<std::exception_ptr> errs(static_cast<size_t>(n));
  std::vector<char> out_of_memory(static_cast<size_t>(n), 0);
  run_workers(n, [&](int t) {
    try {
      fn(t);
    } catch (const std::bad_alloc&) {
      out_of_memory[size_t(t)] = 1;
    } catch (...) {
      errs[size_t(t)] = std::current_exception();
    }
  });
  for (auto& e : errs)
    if (e) std::rethrow_exception(e);
  for (int t = 0; t < n; ++t)
    if (out_of_memory[size_t(t)]) fn(t);
}

}  // namespace sextant
