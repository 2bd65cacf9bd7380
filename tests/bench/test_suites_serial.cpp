// Questions: do the host suites measure what they claim, at --quick sizes (this file must stay
// fast: it is in `make test`)?
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "bench/counters.hpp"
#include "bench/suite.hpp"
#include "core/error.hpp"

using namespace sextant::bench;
namespace fs = std::filesystem;

namespace {
SuiteConfig quick() {
  SuiteConfig c;
  c.quick = true;
  c.repetition_count = 3;
  c.warmup_count = 1;
  c.min_rep_s = 0.005;
  c.host = detect_host();
  return c;
}
}  // namespace

TEST(MemoryLatency, PointerChaseWalksTheCacheHierarchy) {
  SuiteConfig c = quick();
  c.timer = Timer::ProcessCpu;  // robust to other work on the machine (single-threaded case)
  // --warmup 0 still runs one warm-up (it sizes the loop), and the case records the one that ran
  // (it recorded 0, and compare refused it beside a --warmup 1 run; review of 2026-12-05).
  c.warmup_count = 0;
  const SuiteOutput out = make_memory_latency_suite()->run(c);
  ASSERT_EQ(out.measurements.size(), 5u);
  const double l1 = out.measurements.front().summary().median;  // 16 KiB
  const double dram = out.measurements.back().summary().median;  // 64 MiB
  EXPECT_GT(l1, 0.2e-9);  // no load completes in less than a cycle
  EXPECT_LT(l1, 20e-9);
  EXPECT_GT(dram, 4 * l1) << "64 MiB should miss every cache level";
  // No working set measures faster than the L1-resident one. Pairwise monotonicity is not asserted:
  // working sets beyond the last cache level all measure DRAM, and on shared CI machines two of them
  // moved 12% and then 31% apart (the larger one faster) between runs.
  for (size_t i = 1; i < out.measurements.size(); ++i)
    EXPECT_GT(out.measurements[i].summary().median, 0.9 * l1) << out.measurements[i].name;
  for (const auto& m : out.measurements) {
    EXPECT_FALSE(m.higher_is_better);
    EXPECT_EQ(m.samples.size(), 3u);
    EXPECT_EQ(m.warmup_count, 1);
  }
}

// Question (review of 2026-12-04): does the latency sweep reach DRAM on a host whose last-level
// cache is larger than its largest working set, or say that it does not? A full run extends to
// twice the cache (8 KiB .. 1 GiB: 18 sizes where a 32 MiB cache has 8 KiB .. 512 MiB, 17); a
// quick run stops at 64 MiB and notes it on a 480 MiB cache, not on a 32 MiB one.
TEST(MemoryLatency, TheSweepReachesPastTheLastLevelCache) {
  SuiteConfig c = quick();
  c.quick = false;
  c.host.l3_bytes = 32 << 20;
  auto sizes = memory_latency_working_sets(c);
  EXPECT_EQ(sizes.size(), 17u);
  EXPECT_EQ(sizes.back(), size_t{512} << 20);
  c.host.l3_bytes = int64_t{480} << 20;
  sizes = memory_latency_working_sets(c);
  EXPECT_EQ(sizes.size(), 18u);
  EXPECT_EQ(sizes.back(), size_t{1} << 30);
  c.quick = true;
  c.repetition_count = 1;
  c.warmup_count = 0;
  c.min_rep_s = 0.0005;
  auto noted = [](const SuiteOutput& out) {
    for (const auto& n : out.notes)
      if (n.find("within twice the 480 MiB last-level cache") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(noted(make_memory_latency_suite()->run(c)));
  c.host.l3_bytes = 32 << 20;
  EXPECT_FALSE(noted(make_memory_latency_suite()->run(c)));
}

// Question (review of 2026-12-06): is the expected duration of the latency sweep no shorter than
// its dependent loads take? A call is max(n lines, 1e6; quick 1e5) loads, a lap of the cycle at
// the largest sizes, and each size runs at least 8 calls (cold, sizing, one warm-up, 5
// repetitions); beyond the last-level cache no load takes less than DRAM's ~100 ns. The estimate
// had counted every repetition as min_rep_s: "about 8 s" for a 125 s run, 0.9 s for a 2.4 s one.
TEST(MemoryLatency, TheExpectedDurationCountsEveryLoadBeyondTheCache) {
  for (bool is_quick : {true, false})
    for (double min_rep_s : {0.001, 0.05}) {
      SuiteConfig c;
      c.quick = is_quick;
      c.min_rep_s = min_rep_s;
      c.host.l2_bytes = 1 << 20;
      c.host.l3_bytes = 32 << 20;
      const int calls = 2 + std::max(c.warmup_count, 1) + c.repetition_count;
      double floor_s = 0;
      int beyond = 0;
      for (size_t bytes : memory_latency_working_sets(c))
        if (bytes > static_cast<size_t>(c.host.l3_bytes)) {
          const double steps = std::max<double>(static_cast<double>(bytes / 64), is_quick ? 1e5 : 1e6);
          floor_s += calls * steps * 100e-9;
          ++beyond;
        }
      EXPECT_EQ(beyond, is_quick ? 1 : 4);  // 64 MiB; 64 to 512 MiB
      EXPECT_GE(make_memory_latency_suite()->expected_duration_s(c), floor_s) << "quick " << is_quick << ", min_rep_s " << min_rep_s;
    }
}

TEST(CacheBandwidth, ReadSweepWalksTheHierarchyFromL1ToDram) {
  for (bool interleave : {false, true}) {
    SuiteConfig c = quick();
    c.timer = Timer::ProcessCpu;  // single-threaded: robust to other work on the machine
    c.interleave_repetitions = interleave;
    c.counters = false;
    const SuiteOutput out = make_cache_bandwidth_suite()->run(c);
    ASSERT_GE(out.measurements.size(), 8u);
    const double llc = static_cast<double>(c.host.l3_bytes > 0 ? c.host.l3_bytes : 32 << 20);
    EXPECT_EQ(out.measurements.front().param_f64("working_set_bytes"), 32.0 * 1024);
    EXPECT_GE(out.measurements.back().param_f64("working_set_bytes"), 4 * llc) << "the largest working set must be DRAM-resident";
    for (size_t i = 0; i < out.measurements.size(); ++i) {
      const Measurement& m = out.measurements[i];
      EXPECT_TRUE(m.higher_is_better);
      EXPECT_EQ(m.metric, "bytes_per_s");
      EXPECT_EQ(m.samples.size(), 3u);
      if (i > 0) {
        EXPECT_EQ(m.param_f64("working_set_bytes"), 2 * out.measurements[i - 1].param_f64("working_set_bytes"));
      }
      EXPECT_GT(m.summary().max, 0.3e9);
      EXPECT_LT(m.summary().max, 2e12);
      // The loads are as wide as the CPU's widest vectors (16-byte loads only had read L1 and
      // L2 2-3x below what an AVX-512 core reaches).
#if defined(__x86_64__) && defined(__GNUC__)
      const double want = __builtin_cpu_supports("avx512f") ? 64 : __builtin_cpu_supports("avx2") ? 32 : 16;
      EXPECT_EQ(m.param_f64("vector_bytes"), want) << m.param("vector_isa");
#else
      EXPECT_GE(m.param_f64("vector_bytes"), 16);
#endif
    }
    // 32 KiB stays in L1/L2; 4x the last-level cache comes from DRAM. How much slower DRAM is
    // belongs to the host, not to the suite: here 60-95 against 7-13 GB/s, but a CI host delivered
    // the largest working set at 90.5 GB/s, as fast as the then 16-byte kernel's own limit on L1
    // (86 GB/s; eight chains of 16-byte adds), as HBM-backed or very-large-cache servers can. What holds on every
    // host is that the smallest working set is not slower than the largest beyond timing noise
    // (the best of three repetitions on each side).
    const double small_bps = out.measurements.front().summary().max;
    const double large_bps = out.measurements.back().summary().max;
    EXPECT_GT(small_bps, 0.8 * large_bps) << "32 KiB read at " << small_bps << " B/s, the DRAM-sized set at " << large_bps;
    RecordProperty(interleave ? "l1_over_dram_interleaved" : "l1_over_dram", std::to_string(small_bps / large_bps));
  }
}

// Question (review of 2026-12-06): does the expected duration count every read of the DRAM-sized
// working sets? Each size runs at least 8 calls of one pass; the estimate had counted one pass
// of each (at 2 GB/s). A single thread reads DRAM at 5-15 GB/s on the hosts Sextant targets
// (7-13 GB/s on the review's EPYC VM): counted at 10 GB/s, the passes beyond the cache alone.
TEST(CacheBandwidth, TheExpectedDurationCountsEveryPassBeyondTheCache) {
  SuiteConfig c;
  c.min_rep_s = 0.001;
  c.host.l3_bytes = 32 << 20;
  const int calls = 2 + std::max(c.warmup_count, 1) + c.repetition_count;
  // Full: 64 to 512 MiB are beyond the 32 MiB cache (4 x the cache, at least 512 MiB).
  const double beyond_bytes = double((64 + 128 + 256 + 512) << 20);
  EXPECT_GE(make_cache_bandwidth_suite()->expected_duration_s(c), calls * beyond_bytes / 10e9);
}

TEST(MemoryBandwidth, StreamKernelsOnArraysBeyondTheCache) {
  SuiteConfig c = quick();
  c.threads = 1;  // one thread only: keeps the test short on a shared machine
  const SuiteOutput out = make_memory_bandwidth_suite()->run(c);
  ASSERT_EQ(out.measurements.size(), 4u);
  const std::vector<std::string> kernels = {"copy", "scale", "add", "triad"};
  for (size_t i = 0; i < 4; ++i) {
    const Measurement& m = out.measurements[i];
    EXPECT_EQ(m.param("kernel"), kernels[i]);
    EXPECT_GE(m.param_f64("array_bytes"), 2.0 * static_cast<double>(std::max<int64_t>(c.host.l3_bytes, 1)));
    // bytes per call as STREAM counts: 2 arrays for copy/scale, 3 for add/triad.
    EXPECT_DOUBLE_EQ(m.param_f64("bytes_per_call"), (i < 2 ? 2 : 3) * m.param_f64("array_bytes"));
    const double bw = m.summary().median;
    EXPECT_GT(bw, 0.3e9);
    EXPECT_LT(bw, 2e12);
  }
}

TEST(Storage, WritesReadsAndRemovesItsFiles) {
  const fs::path dir = fs::temp_directory_path() / ("sextant-test-storage-" + std::to_string(getpid()));
  fs::create_directories(dir);
  SuiteConfig c = quick();
  c.storage_dir = dir.string();
  const SuiteOutput out = make_storage_suite()->run(c);
  EXPECT_TRUE(fs::is_empty(dir)) << "the scratch folder must be removed";
  fs::remove_all(dir);
  ASSERT_EQ(out.measurements.size(), 3u);
  EXPECT_EQ(out.measurements[0].param("file_bytes"), std::to_string(64 << 20));
  EXPECT_EQ(out.measurements[0].metric, "bytes_per_s");
  EXPECT_EQ(out.measurements[2].metric, "latency_s");
  for (const auto& m : out.measurements) EXPECT_GT(m.summary().median, 0);
  SuiteConfig bad = quick();
  bad.storage_dir = "/nonexistent/sextant";
  EXPECT_THROW(make_storage_suite()->run(bad), sextant::Error);
}

// Question (review of 2026-12-06): does the expected duration count the calls of the largest
// GEMMs? 4096 x 4096 x 512 and 2048^3 are 17.2 GFLOP a call, seconds on one slow core, and each
// runs at least 8 calls; the estimate had stood a fixed 0.5 s a case for them. On one SSE2 core
// at 2 GHz (8 GFLOP/s fp64 peak) those two alone take no less than 8 calls at the peak.
TEST(GemmCpu, TheExpectedDurationCountsTheCallsOfTheLargestShapes) {
  SuiteConfig c;
  c.min_rep_s = 0.001;
  c.threads = 1;
  c.gemm_dtypes = {"fp64"};
  c.host.cpu.flags = {"sse2"};
  c.host.cpu.logical_cpus = c.host.cpu.physical_cores = 1;
  c.host.cpu_ghz = 2.0;
  const double peak = c.host.peak_flops("fp64", 1);
  ASSERT_NEAR(peak, 8e9, 1e-3);
  const int calls = 2 + std::max(c.warmup_count, 1) + c.repetition_count;
  const double flops = 2 * (4096.0 * 4096 * 512 + 2048.0 * 2048 * 2048);
  EXPECT_GE(make_gemm_cpu_suite()->expected_duration_s(c), calls * flops / peak);
}

TEST(GemmCpu, AchievedRateStaysBelowTheDerivedPeak) {
  SuiteConfig c = quick();
  c.threads = 1;
  c.timer = Timer::ProcessCpu;
  c.gemm_dtypes = {"fp64"};
  const SuiteOutput out = make_gemm_cpu_suite()->run(c);
  if (out.measurements.empty()) GTEST_SKIP() << out.notes.front();
  for (const auto& m : out.measurements) {
    const double peak = m.param_f64("peak_flops_per_s");
    if (!(peak > 0)) {
      // No clock could be read (no cpufreq, no "cpu MHz", no GHz in the model name): the suite
      // says so in peak_source rather than inventing one.
      EXPECT_NE(m.param("peak_source").find("unknown"), std::string::npos) << m.param("peak_source");
      continue;
    }
    const double eff = m.summary().median / peak;
    // A rate far above the peak means the peak derivation (clock x vector width x FMA pipes) is
    // wrong: a missed FMA or half the vector width is 2x. Below that, a VM or acpi-cpufreq lists
    // the base clock, and one core turbos above it by up to ~1.5x (EPYC 7763: 3.5 / 2.45 GHz).
    EXPECT_LT(eff, 1.75) << m.name << " (peak from " << m.param("peak_source") << ")";
    EXPECT_GT(eff, 0.01) << m.name;
    EXPECT_EQ(m.param("threads"), "1");
  }
  // (That efficiency grows with size is checked in the slow tier, test_gemm_order_slow.cpp, with
  // longer repetitions: 3 x 5 ms here reversed the order once on a shared VM.)
  SuiteConfig multi = c;
  multi.threads = 2;
  EXPECT_THROW(make_gemm_cpu_suite()->run(multi), sextant::Error);  // cpu timer needs 1 thread
}

TEST(Counters, ReadOrReportedUnavailableWithAReason) {
  CounterSession s;
  s.start();
  volatile double x = 0;
  for (int i = 0; i < 5000000; ++i) x = x + 1.0;
  const auto values = s.stop();
  ASSERT_EQ(values.size(), 4u);
  for (const auto& v : values) {
    if (v.available) {
      if (v.name != "energy_j" && v.name != "cache_misses_count") {
        EXPECT_GT(v.value, 1e6) << v.name;
      }
    } else {
      EXPECT_FALSE(v.reason.empty()) << v.name;
    }
  }
  const RaplZones none = find_rapl_zones("/nonexistent/powercap");
  EXPECT_TRUE(none.energy_files.empty());
  EXPECT_NE(none.reason.find("absent"), std::string::npos);
}

TEST(MpiSuite, SkippedClearlyWithoutMpirun) {
  SuiteConfig c = quick();
  c.mpirun = "/nonexistent/mpirun";
  const SuiteOutput out = make_mpi_suite()->run(c);
  EXPECT_TRUE(out.measurements.empty());
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("skipped: mpirun not found"), std::string::npos);
}

