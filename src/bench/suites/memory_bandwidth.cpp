#include <unistd.h>
// Memory bandwidth: the four STREAM kernels (copy c=a, scale b=s*c, add c=a+b, triad a=b+s*c)
// on arrays larger than the last-level cache, single-threaded and on all threads. Bytes are
// counted as STREAM counts them (2, 2, 3 and 3 arrays per element; write-allocate traffic is not
// counted), so figures compare with published STREAM results.
#include <algorithm>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "bench/counters.hpp"
#include "bench/suite.hpp"
#include "bench/timing.hpp"

namespace sextant::bench {
namespace {

struct Kernel {
  const char* name;
  int arrays;  // arrays touched per element
};
constexpr Kernel kKernels[] = {{"copy", 2}, {"scale", 2}, {"add", 3}, {"triad", 3}};

// Not turned into memcpy (GCC's -ftree-loop-distribute-patterns at -O2 and above replaced the copy
// loop with a call to glibc's memcpy, whose non-temporal stores skip the write-allocate read: copy
// then measured 1.4-1.6x scale, a different operation from the other three kernels).
__attribute__((optimize("no-tree-loop-distribute-patterns")))
void run_kernel(int kernel, double* __restrict a, double* __restrict b, double* __restrict c, size_t lo, size_t hi) {
  const double s = 3.0;
  switch (kernel) {
    case 0: for (size_t i = lo; i < hi; ++i) c[i] = a[i]; break;
    case 1: for (size_t i = lo; i < hi; ++i) b[i] = s * c[i]; break;
    case 2: for (size_t i = lo; i < hi; ++i) c[i] = a[i] + b[i]; break;
    default: for (size_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i]; break;
  }
}

// Runs f(t, lo, hi) on `threads` threads over [0, n) in equal contiguous chunks.
template <class F>
void parallel_chunks(int threads, size_t n, F f) {
  if (threads <= 1) {
    f(0, size_t{0}, n);
    return;
  }
  std::vector<std::thread> ts;
  ts.reserve(static_cast<size_t>(threads));
  try {
    for (int t = 0; t < threads; ++t) {
      const size_t lo = n * static_cast<size_t>(t) / static_cast<size_t>(threads);
      const size_t hi = n * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
      ts.emplace_back([=] { f(t, lo, hi); });
    }
  } catch (const std::exception& e) {  // std::system_error (EAGAIN) or std::bad_alloc
    // A measurement on fewer threads than asked would be misread: an error, after the started
    // threads are joined (a vector of joinable threads destroyed terminates the process).
    for (auto& th : ts) th.join();
    throw Error("memory_bandwidth: cannot start thread " + std::to_string(ts.size() + 1) + " of " + std::to_string(threads) + " (" +
                e.what() + "): lower --threads or the process limits");
  }
  for (auto& th : ts) th.join();
}

size_t array_bytes(const SuiteConfig& c) {
  const size_t l3 = c.host.l3_bytes > 0 ? static_cast<size_t>(c.host.l3_bytes) : (32u << 20);
  // Each array at least 4x (quick: 2x) the last-level cache, as STREAM's rules ask.
  return std::max<size_t>(c.quick ? 2 * l3 : 4 * l3, c.quick ? (32u << 20) : (128u << 20));
}

class MemoryBandwidthSuite : public Suite {
 public:
  std::string name() const override { return "memory_bandwidth"; }
  std::string description() const override {
    return "STREAM copy/scale/add/triad on arrays > last-level cache, 1 thread and all threads";
  }
  // Per thread count: the first touch of the three arrays (2 GB/s), then each kernel's calls, a
  // call being one pass over its arrays at an assumed 5 GB/s (one core on a loaded or virtual
  // host; all threads are counted alike, which overstates their time). Since 2026-12-06 through
  // expected_time_repeated_s, as the other suites (it counted one call fewer than run before).
  double expected_duration_s(const SuiteConfig& c) const override {
    const double array = static_cast<double>(array_bytes(c));
    const int passes = c.effective_threads() > 1 && c.timer == Timer::Wall ? 2 : 1;
    double s = 3 * array / 2e9;
    for (const Kernel& k : kKernels)
      s += expected_time_repeated_s(k.arrays * array / 5e9, c.warmup_count, c.repetition_count, c.min_rep_s);
    return passes * s;
  }

  SuiteOutput run(const SuiteConfig& c) const override {
    SuiteOutput out;
    const size_t n = array_bytes(c) / sizeof(double);
    const int all = c.effective_threads();
    // Cases "KERNEL threads=1" and "KERNEL threads=all": the second names no count, so that a run
    // pinned to fewer CPUs (taskset, a Slurm binding) compares with an unpinned one as
    // parameters_differ (its `threads` parameter), as docs/bench.md says; with the count in the
    // name (before 2026-12-02) its cases were missing and the comparison failed. A run on one CPU
    // has only threads=1 (threads=all would be the same work).
    std::vector<std::pair<int, std::string>> thread_counts = {{1, "1"}};
    if (all > 1 && c.timer == Timer::Wall) thread_counts.emplace_back(all, "all");
    if (c.host.l3_bytes <= 0) {
      // No /sys cache information (some VMs): the sizes assume a 32 MiB last-level cache. Say so,
      // with what the C library reports, since a larger cache inflates the "DRAM" rates.
      const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
      out.notes.push_back("memory_bandwidth: the last-level cache size is unknown (no /sys/devices/system/cpu/cpu0/cache): sized for 32 MiB" +
                          std::string(l3 > 0 ? "; the C library reports an L3 of " + std::to_string(l3 >> 20) + " MiB, and arrays "
                                               "smaller than 4x the cache read partly from it" : ""));
    }
    if (all > 1 && c.timer != Timer::Wall) out.notes.push_back("memory_bandwidth: multi-threaded cases need the wall timer; ran 1 thread only");
    int case_i = 0;
    for (const auto& [threads, threads_label] : thread_counts) {
      // Arrays are placed by first touch with the same partitioning as the kernels (NUMA): fresh
      // ones for every thread count, since a page stays where it was first touched (the 1-thread
      // pass had placed every page on one node, and the all-thread figure of a two-socket host
      // measured about one socket's memory before 2026-12-02).
      std::unique_ptr<double[]> a(new double[n]), b(new double[n]), cc(new double[n]);
      parallel_chunks(threads, n, [&](int, size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          a[i] = 1.0;
          b[i] = 2.0;
          cc[i] = 0.0;
        }
      });
      for (int k = 0; k < 4; ++k) {
        if (c.progress) c.progress(name(), fmt::format("{} x{} threads", kKernels[k].name, threads), case_i / 8.0);
        ++case_i;
        double *pa = a.get(), *pb = b.get(), *pc = cc.get();
        auto body = [&] { parallel_chunks(threads, n, [&](int, size_t lo, size_t hi) { run_kernel(k, pa, pb, pc, lo, hi); }); };
        CounterSession counters;
        if (c.counters) counters.start();
        const Timed t = time_repeated(body, c.warmup_count, c.repetition_count, c.min_rep_s, 1 << 20, c.timer);
        Measurement m;
        if (c.counters) m.counters = counters.stop();
        m.suite = name();
        m.name = fmt::format("{} threads={}", kKernels[k].name, threads_label);
        m.metric = "bytes_per_s";
        m.higher_is_better = true;
        const double bytes = static_cast<double>(kKernels[k].arrays) * static_cast<double>(n) * sizeof(double);
        for (size_t i = 0; i < t.rep_s.size(); ++i) m.samples.push_back(bytes / t.per_call_s(i));
        m.warmup_count = warmups_run(c.warmup_count);  // (at least one runs)
        m.params = {{"kernel", kKernels[k].name},
                    {"threads", std::to_string(threads)},
                    {"array_bytes", std::to_string(n * sizeof(double))},
                    {"bytes_per_call", fmt::format("{}", bytes)},
                    {"inner_count", std::to_string(t.inner_count)},
                    {"timer", to_string(c.timer)},
                    {"byte_counting", "STREAM (no write-allocate)"}};
        // Copy was glibc's memcpy before 2026-12-03 (1.4-1.6x faster): a run from before has no
        // such parameter, so `history compare` sees a changed configuration, not a regression.
        if (k == 0) m.params.emplace_back("copy_loop", "plain loop, not memcpy");
        out.measurements.push_back(std::move(m));
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Suite> make_memory_bandwidth_suite() { return std::make_unique<MemoryBandwidthSuite>(); }

}  // namespace sextant::bench
