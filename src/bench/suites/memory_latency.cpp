// Memory latency: a dependent pointer chase through a random cyclic permutation of 64-byte
// lines, over working sets from inside L1 to well beyond the last-level cache. Each load's
// address depends on the previous load, so the time per step is the load-to-use latency of the
// level the working set fits in (plus TLB misses at the largest sizes).
#include <algorithm>

#include <fmt/format.h>

#include "bench/counters.hpp"
#include "bench/suite.hpp"
#include "bench/timing.hpp"
#include "core/random.hpp"

namespace sextant::bench {
namespace {

constexpr size_t kLine = 64;

// Full runs reach past twice the last-level cache (512 MiB at least), so that the largest sizes
// read DRAM on a host of a large cache too (a 480 MiB LLC had ended the sweep inside it). Quick
// runs stop at 64 MiB and say so where that is within the cache (run()).
std::vector<size_t> working_sets(const SuiteConfig& c) {
  if (c.quick) return {16u << 10, 128u << 10, 1u << 20, 8u << 20, 64u << 20};
  const size_t llc = c.host.l3_bytes > 0 ? static_cast<size_t>(c.host.l3_bytes) : 0;
  const size_t top = std::max<size_t>(512u << 20, 2 * llc);
  std::vector<size_t> v;
  for (size_t s = 8u << 10; s < 2 * top && (v.empty() || v.back() < top); s *= 2) v.push_back(s);
  return v;
}

// Dependent loads per call: at least a lap of the cycle, so every line is visited once a call.
size_t steps_per_call(size_t bytes, bool quick) { return std::max<size_t>(bytes / kLine, quick ? 100000 : 1000000); }

// Seconds one dependent load of a working set of `bytes` is expected to take: for the expected
// duration only, never a measurement. A conservative assumption per level, on the host's cache
// sizes where sysfs lists them (else a 1 MiB L2 and a 32 MiB last-level cache, as the other
// suites assume):
//  - within L2: 10 ns (L1 1-2 ns, L2 4-5 ns on current x86 and Arm servers; 9.6 ns at 1 MiB on
//    the 2-core EPYC VM of the 2026-12-06 review);
//  - within the last-level cache: 40 ns (a server's mesh or chiplet L3: 15-40 ns);
//  - beyond it: 100 ns, DRAM's random-access latency (80-130 ns on servers);
//  - plus a page walk per load beyond 6 MiB, the reach of a 1536-entry second-level TLB in 4 KiB
//    pages (the smallest common one), past which nearly every load misses the TLB: 100 ns within
//    the last-level cache (the page tables cached, walked in two dimensions under a VM's nested
//    paging: 147 ns at 8 MiB on that VM) and 200 ns beyond it (the page-table entries come from
//    DRAM too: the review's full run, 52 s of CPU, comes to about 300 ns a load beyond the cache).
double expected_load_s(size_t bytes, const HostInfo& host) {
  const double l2 = host.l2_bytes > 0 ? static_cast<double>(host.l2_bytes) : double(1u << 20);
  const double llc = host.l3_bytes > 0 ? static_cast<double>(host.l3_bytes) : double(32u << 20);
  const double b = static_cast<double>(bytes);
  const bool tlb_miss = b > double(6u << 20);
  if (b <= l2) return 10e-9 + (tlb_miss ? 100e-9 : 0);
  if (b <= llc) return 40e-9 + (tlb_miss ? 100e-9 : 0);
  return 100e-9 + (tlb_miss ? 200e-9 : 0);
}

struct alignas(kLine) Node {
  Node* next;
  char pad[kLine - sizeof(Node*)];
};

class MemoryLatencySuite : public Suite {
 public:
  std::string name() const override { return "memory_latency"; }
  std::string description() const override {
    return "pointer-chase load latency over working sets from L1 to beyond the last-level cache (DRAM; --quick stops at 64 MiB)";
  }
  // Per working set: the cycle's set-up (first touch of the lines and of the permutation, and
  // Sattolo's random swaps, a load each from a permutation of 8 bytes a line), then the calls of
  // time_repeated, each steps_per_call dependent loads long: beyond the last-level cache a call
  // outlasts min_rep_s by far (8.4 million loads at 512 MiB), and each size runs at least 8 calls
  // with the default counts.
  double expected_duration_s(const SuiteConfig& c) const override {
    double s = 0;
    for (size_t bytes : working_sets(c)) {
      const size_t n = bytes / kLine;
      const double setup_s = static_cast<double>(bytes + n * sizeof(size_t)) / 2e9 +
                             static_cast<double>(n) * expected_load_s(n * sizeof(size_t), c.host);
      const double call_s = static_cast<double>(steps_per_call(bytes, c.quick)) * expected_load_s(bytes, c.host);
      s += setup_s + expected_time_repeated_s(call_s, c.warmup_count, c.repetition_count, c.min_rep_s);
    }
    return s;
  }

  SuiteOutput run(const SuiteConfig& c) const override {
    SuiteOutput out;
    const auto sizes = working_sets(c);
    if (c.host.l3_bytes > 0 && static_cast<double>(sizes.back()) <= 2.0 * static_cast<double>(c.host.l3_bytes))
      out.notes.push_back(fmt::format("memory_latency: the largest working set ({} MiB) is within twice the {} MiB last-level cache, so "
                                      "its latency is partly the cache's, not DRAM's{}",
                                      sizes.back() >> 20, c.host.l3_bytes >> 20, c.quick ? ": run without --quick to reach DRAM" : ""));
    for (size_t si = 0; si < sizes.size(); ++si) {
      const size_t bytes = sizes[si];
      if (c.progress) c.progress(name(), fmt::format("{} KiB", bytes >> 10), static_cast<double>(si) / sizes.size());
      const size_t n = bytes / kLine;
      std::vector<Node> nodes(n);
      // Sattolo's algorithm: a uniformly random single cycle through all n lines.
      std::vector<size_t> perm(n);
      for (size_t i = 0; i < n; ++i) perm[i] = i;
      RandomStream rs(7, bytes);
      for (size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rs.below(i)]);
      for (size_t i = 0; i < n; ++i) nodes[i].next = &nodes[perm[i]];
      const size_t steps = steps_per_call(bytes, c.quick);
      Node* p = &nodes[0];
      auto body = [&] {
        Node* q = p;
        for (size_t i = 0; i < steps; ++i) q = q->next;
        p = q;
        asm volatile("" : : "r"(q) : "memory");
      };
      CounterSession counters;
      if (c.counters) counters.start();
      const Timed t = time_repeated(body, c.warmup_count, c.repetition_count, c.min_rep_s, 1 << 20, c.timer);
      Measurement m;
      if (c.counters) m.counters = counters.stop();
      m.suite = name();
      m.name = fmt::format("working_set={}KiB", bytes >> 10);
      m.metric = "latency_s";
      m.higher_is_better = false;
      for (size_t i = 0; i < t.rep_s.size(); ++i) m.samples.push_back(t.per_call_s(i) / static_cast<double>(steps));
      m.warmup_count = warmups_run(c.warmup_count);  // (at least one runs)
      m.params = {{"working_set_bytes", std::to_string(bytes)},
                  {"line_bytes", std::to_string(kLine)},
                  {"steps_per_call", std::to_string(steps)},
                  {"inner_count", std::to_string(t.inner_count)},
                  {"timer", to_string(c.timer)},
                  {"order", "random single cycle (Sattolo), seed 7"}};
      out.measurements.push_back(std::move(m));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Suite> make_memory_latency_suite() { return std::make_unique<MemoryLatencySuite>(); }

std::vector<size_t> memory_latency_working_sets(const SuiteConfig& config) { return working_sets(config); }

}  // namespace sextant::bench
