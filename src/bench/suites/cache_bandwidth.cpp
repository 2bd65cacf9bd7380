#include <unistd.h>
// Cache bandwidth: the read bandwidth of one thread against the working-set size it streams
// from, over sizes that walk the memory hierarchy (L1, L2, last-level cache, DRAM). Each
// repetition reads the whole working set again, so once it is warm the data comes from the
// smallest level that holds it (as a BLAS call repeated on the same operands re-streams them).
// Calibration writes the table into the catalog entry (bandwidth_by_working_set) for the GEMM
// operand-traffic term (catalog.hpp gemm_operand_traffic_s).
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "bench/counters.hpp"
#include "core/error.hpp"
#include "bench/suite.hpp"
#include "bench/timing.hpp"

namespace sextant::bench {
namespace {

// The read kernel sums the working set into eight independent vector accumulators, so the adds
// keep up with two loads per cycle. The vectors are as wide as the CPU's loads: on x86-64 the
// kernel is compiled three times (AVX-512, AVX2, the SSE2 baseline) and the widest the CPU runs
// is chosen at run time, since a cache level's bandwidth is bytes per load x loads per cycle
// (with the 16-byte baseline only, L1 and L2 read 2-3x below what AVX-512 reaches: 2026-12-03).
// Other targets use their compiler's baseline vectors. The width used is a measurement parameter,
// so runs before and after the change compare as a configuration change, not a regression.
#define SEXTANT_READ_SUM_BODY(V)                                                      \
  {                                                                                 \
    constexpr size_t w = sizeof(V) / sizeof(double);                                \
    V s0 = {}, s1 = {}, s2 = {}, s3 = {}, s4 = {}, s5 = {}, s6 = {}, s7 = {};       \
    const V* v = reinterpret_cast<const V*>(p);                                     \
    const size_t m = n / w;                                                         \
    for (size_t i = 0; i + 8 <= m; i += 8) {                                        \
      s0 += v[i];                                                                   \
      s1 += v[i + 1];                                                               \
      s2 += v[i + 2];                                                               \
      s3 += v[i + 3];                                                               \
      s4 += v[i + 4];                                                               \
      s5 += v[i + 5];                                                               \
      s6 += v[i + 6];                                                               \
      s7 += v[i + 7];                                                               \
    }                                                                               \
    const V t = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));                  \
    double r = 0;                                                                   \
    for (size_t k = 0; k < w; ++k) r += t[k];                                       \
    return r;                                                                       \
  }

typedef double V2 __attribute__((vector_size(16)));
double read_sum_16(const double* p, size_t n) SEXTANT_READ_SUM_BODY(V2)

#if defined(__x86_64__) && defined(__GNUC__)
typedef double V4 __attribute__((vector_size(32)));
typedef double V8 __attribute__((vector_size(64)));
__attribute__((target("avx2"))) double read_sum_32(const double* p, size_t n) SEXTANT_READ_SUM_BODY(V4)
__attribute__((target("avx512f"))) double read_sum_64(const double* p, size_t n) SEXTANT_READ_SUM_BODY(V8)
#endif
#undef SEXTANT_READ_SUM_BODY

struct ReadKernel {
  double (*fn)(const double*, size_t);
  int vector_bytes;
  const char* isa;
};

ReadKernel widest_read_kernel() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {read_sum_64, 64, "avx512f"};
  if (__builtin_cpu_supports("avx2")) return {read_sum_32, 32, "avx2"};
  return {read_sum_16, 16, "sse2"};
#else
  return {read_sum_16, 16, "baseline"};
#endif
}

std::vector<size_t> working_sets(const SuiteConfig& c) {
  // From inside L1 to at least 4x the last-level cache (STREAM's rule for a DRAM-resident array).
  const size_t llc = c.host.l3_bytes > 0 ? static_cast<size_t>(c.host.l3_bytes) : (32u << 20);
  const size_t top = std::min<size_t>(std::max<size_t>(4 * llc, c.quick ? (64u << 20) : (512u << 20)), size_t{1} << 32);
  std::vector<size_t> v;
  for (size_t s = c.quick ? (32u << 10) : (16u << 10); s < 2 * top; s *= 2) v.push_back(s);
  return v;
}

class CacheBandwidthSuite : public Suite {
 public:
  std::string name() const override { return "cache_bandwidth"; }
  std::string description() const override {
    return "read bandwidth of one thread over working sets from L1 to DRAM (GEMM operand-traffic term)";
  }
  // A call reads the working set once; beyond the last-level cache it outlasts min_rep_s (512 MiB
  // at 5 GB/s: 0.1 s), and every size runs at least 8 calls with the default counts (before
  // 2026-12-06 one call of each size was counted; review). Rates assumed for the estimate only,
  // conservative for one thread: 30 GB/s within L2, 15 GB/s within the last-level cache, 5 GB/s
  // from DRAM (the 2-core EPYC VM of the review read 60-95 GB/s from L1 and 7-13 GB/s from DRAM).
  // Plus the first touch of the buffer (2 GB/s) and, with --interleave, the untimed pass before
  // each repetition.
  double expected_duration_s(const SuiteConfig& c) const override {
    const auto sizes = working_sets(c);
    const double l2 = c.host.l2_bytes > 0 ? static_cast<double>(c.host.l2_bytes) : double(1u << 20);
    const double llc = c.host.l3_bytes > 0 ? static_cast<double>(c.host.l3_bytes) : double(32u << 20);
    double s = static_cast<double>(sizes.back()) / 2e9;
    for (size_t ws : sizes) {
      const double b = static_cast<double>(ws);
      const double call_s = b / (b <= l2 ? 30e9 : b <= llc ? 15e9 : 5e9);
      s += expected_time_repeated_s(call_s, c.warmup_count, c.repetition_count, c.min_rep_s);
      if (c.interleave_repetitions) s += c.repetition_count * call_s;
    }
    return s;
  }

  SuiteOutput run(const SuiteConfig& c) const override {
    SuiteOutput out;
    const auto sizes = working_sets(c);
    // One buffer of the largest size, aligned for the widest loads; working set W is its first W bytes.
    const ReadKernel kernel = widest_read_kernel();
    const size_t n_max = sizes.back() / sizeof(double);
    struct AlignedFree {
      void operator()(double* q) const { std::free(q); }
    };
    std::unique_ptr<double[], AlignedFree> a(static_cast<double*>(std::aligned_alloc(64, n_max * sizeof(double))));
    if (!a) throw Error("cache_bandwidth: cannot allocate " + std::to_string(sizes.back()) + " bytes");
    for (size_t i = 0; i < n_max; ++i) a[i] = 1.0;
    double sink = 0;
    std::vector<std::function<void()>> bodies;
    for (size_t bytes : sizes) {
      const size_t n = bytes / sizeof(double);
      bodies.push_back([&a, &sink, n, kernel] {
        sink += kernel.fn(a.get(), n);
        asm volatile("" : "+m"(sink));  // the sum is used: the loads cannot be dropped
      });
    }
    std::vector<Timed> timed(sizes.size());
    std::vector<std::vector<CounterValue>> counter_values(sizes.size());
    if (c.interleave_repetitions) {
      // As gemm_cpu --interleave: repetition r of every size before r + 1, so a slow period of a
      // shared machine (another process holding the last-level cache) costs one repetition of
      // every size; one untimed pass before each repetition brings the working set back.
      for (size_t i = 0; i < sizes.size(); ++i)
        timed[i].inner_count = warm_up_and_size(bodies[i], c.warmup_count, c.min_rep_s, 1 << 20, c.timer);
      for (int r = 0; r < c.repetition_count; ++r) {
        if (c.progress)
          c.progress(name(), fmt::format("repetition {} of {} (all sizes)", r + 1, c.repetition_count),
                     static_cast<double>(r) / c.repetition_count);
        for (size_t i = 0; i < sizes.size(); ++i) {
          bodies[i]();
          timed[i].rep_s.push_back(time_repetition(bodies[i], timed[i].inner_count, c.timer));
        }
      }
    } else {
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (c.progress)
          c.progress(name(), fmt::format("{} KiB", sizes[i] >> 10), static_cast<double>(i) / static_cast<double>(sizes.size()));
        CounterSession counters;
        if (c.counters) counters.start();
        timed[i] = time_repeated(bodies[i], c.warmup_count, c.repetition_count, c.min_rep_s, 1 << 20, c.timer);
        if (c.counters) counter_values[i] = counters.stop();
      }
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      const size_t bytes = sizes[i];
      const Timed& t = timed[i];
      Measurement m;
      m.counters = std::move(counter_values[i]);
      m.suite = name();
      m.name = fmt::format("read working_set={}KiB threads=1", bytes >> 10);
      m.metric = "bytes_per_s";
      m.higher_is_better = true;
      for (size_t r = 0; r < t.rep_s.size(); ++r) m.samples.push_back(static_cast<double>(bytes) / t.per_call_s(r));
      m.warmup_count = warmups_run(c.warmup_count);  // (at least one runs)
      m.params = {{"kernel", "read"},
                  {"working_set_bytes", std::to_string(bytes)},
                  {"threads", "1"},
                  {"vector_bytes", std::to_string(kernel.vector_bytes)},
                  {"vector_isa", kernel.isa},
                  {"inner_count", std::to_string(t.inner_count)},
                  {"timer", to_string(c.timer)},
                  {"byte_counting", "bytes read per pass (the working set)"}};
      if (c.interleave_repetitions) m.params.push_back({"repetitions", "interleaved across working sets"});
      out.measurements.push_back(std::move(m));
    }
    if (c.host.l3_bytes <= 0) {
      // No /sys cache information (some VMs): the sizes assume a 32 MiB last-level cache. Say so,
      // with what the C library reports, since a larger cache inflates the "DRAM" rates.
      const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
      out.notes.push_back("cache_bandwidth: the last-level cache size is unknown (no /sys/devices/system/cpu/cpu0/cache): sized for 32 MiB" +
                          std::string(l3 > 0 ? "; the C library reports an L3 of " + std::to_string(l3 >> 20) + " MiB, and arrays "
                                               "smaller than 4x the cache read partly from it" : ""));
    }
    if (c.interleave_repetitions && c.counters) out.notes.push_back("cache_bandwidth: counters not read per case (repetitions interleaved across sizes)");
    return out;
  }
};

}  // namespace

std::unique_ptr<Suite> make_cache_bandwidth_suite() { return std::make_unique<CacheBandwidthSuite>(); }

}  // namespace sextant::bench
