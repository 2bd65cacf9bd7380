// Question: does the host GEMM suite see the efficiency of a BLAS grow with the GEMM's size
// (512^3 reuses each element 8x more than 64^3)? Slow tier: it measures this machine with
// repetitions long enough (10 x 50 ms) for the ordering to stand out of a shared VM's noise.
#include <gtest/gtest.h>

#include "bench/suite.hpp"

using namespace sextant::bench;

TEST(GemmCpuSlow, EfficiencyGrowsWithSize) {
  SuiteConfig c;
  c.quick = true;
  c.repetition_count = 10;
  c.warmup_count = 2;
  c.min_rep_s = 0.05;
  c.host = detect_host();
  c.threads = 1;
  c.timer = Timer::ProcessCpu;
  c.gemm_dtypes = {"fp64"};
  const SuiteOutput out = make_gemm_cpu_suite()->run(c);
  if (out.measurements.empty()) GTEST_SKIP() << out.notes.front();
  double e64 = 0, e512 = 0;
  for (const auto& m : out.measurements) {
    if (m.name == "fp64 m=64 n=64 k=64") e64 = m.summary().median;
    if (m.name == "fp64 m=512 n=512 k=512") e512 = m.summary().median;
  }
  ASSERT_GT(e64, 0);
  EXPECT_GT(e512, e64);
}
