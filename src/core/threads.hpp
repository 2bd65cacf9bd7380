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
#include <memory>
#include <thread>
#include <utility>

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

}  // namespace sextant
