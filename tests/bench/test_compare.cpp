// Questions: does `history compare` flag a real slow-down as a regression, ignore noise and
// tiny changes, and respect the metric's direction?
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "bench/compare.hpp"
#include "core/error.hpp"
#include "core/random.hpp"

using namespace sextant::bench;

namespace {
RunRecord run_with(const std::string& metric, bool higher_is_better, double mean, double sd, int n, uint64_t seed) {
  RunRecord r;
  r.host.hostname = "h";
  Measurement m;
  m.suite = "s";
  m.name = "case";
  m.metric = metric;
  m.higher_is_better = higher_is_better;
  sextant::RandomStream rs(seed, 0);
  for (int i = 0; i < n; ++i) m.samples.push_back(rs.normal(mean, sd));
  r.measurements.push_back(m);
  return r;
}
}  // namespace

TEST(Compare, TenPercentThroughputDropIsARegression) {
  const auto c = compare_runs(run_with("bytes_per_s", true, 100, 1, 10, 1), run_with("bytes_per_s", true, 90, 1, 10, 2), {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].verdict, "regression");
  EXPECT_LT(c.cases[0].p_value, 1e-4);
  EXPECT_NEAR(c.cases[0].change_fraction, -0.1, 0.01);
  EXPECT_EQ(c.regression_count, 1);
}

TEST(Compare, LatencyIncreaseIsARegressionAndDecreaseAnImprovement) {
  const auto a = run_with("latency_s", false, 1e-6, 1e-8, 8, 3);
  EXPECT_EQ(compare_runs(a, run_with("latency_s", false, 1.2e-6, 1e-8, 8, 4), {}).cases[0].verdict, "regression");
  EXPECT_EQ(compare_runs(a, run_with("latency_s", false, 0.8e-6, 1e-8, 8, 5), {}).cases[0].verdict, "improvement");
}

TEST(Compare, SameDistributionAndSmallChangesAreUnchanged) {
  const auto a = run_with("flops_per_s", true, 100, 5, 10, 6);
  EXPECT_EQ(compare_runs(a, run_with("flops_per_s", true, 100, 5, 10, 7), {}).cases[0].verdict, "unchanged");
  // 2% slower with tiny noise: significant, but below the 5% minimum effect.
  const auto tight = run_with("flops_per_s", true, 100, 0.1, 10, 8);
  const auto c = compare_runs(tight, run_with("flops_per_s", true, 98, 0.1, 10, 9), {});
  EXPECT_LT(c.cases[0].p_value, 0.01);
  EXPECT_EQ(c.cases[0].verdict, "unchanged");
  CompareOptions strict;
  strict.min_effect_fraction = 0.01;
  EXPECT_EQ(compare_runs(tight, run_with("flops_per_s", true, 98, 0.1, 10, 9), strict).cases[0].verdict, "regression");
}

TEST(Compare, WelchAgreesOnAClearShiftAndSingleSamplesAreUntestable) {
  CompareOptions w;
  w.test = "welch";
  const auto c = compare_runs(run_with("bytes_per_s", true, 100, 1, 6, 10), run_with("bytes_per_s", true, 80, 1, 6, 11), w);
  EXPECT_EQ(c.cases[0].method, "welch");
  EXPECT_EQ(c.cases[0].verdict, "regression");
  const auto one = compare_runs(run_with("bytes_per_s", true, 100, 1, 1, 12), run_with("bytes_per_s", true, 50, 1, 1, 13), {});
  EXPECT_EQ(one.cases[0].verdict, "untestable");
  EXPECT_EQ(one.regression_count, 0);
  // Welch without scatter on either side (two identical repetitions a side): it had read a
  // regression at p = 0; Mann-Whitney weighs the counts (two a side cannot go below 1/3):
  // underpowered, and 6% worse fails the gate as an unchecked case (2026-12-06 review; it had
  // read `untestable`, see WelchWithoutScatterOnEitherSideJudgesTheValues).
  const auto flat = compare_runs(run_with("bytes_per_s", true, 100, 0, 2, 14), run_with("bytes_per_s", true, 94, 0, 2, 15), w);
  EXPECT_EQ(flat.cases[0].verdict, "underpowered");
  EXPECT_EQ(flat.regression_count, 0);
  EXPECT_EQ(flat.unchecked_failure_count, 1);
  CompareOptions bad;
  bad.test = "ttest";
  EXPECT_THROW(compare_runs(run_with("x", true, 1, 1, 3, 1), run_with("x", true, 1, 1, 3, 2), bad), sextant::Error);
}

TEST(Compare, UnmatchedCasesAreListed) {
  auto a = run_with("bytes_per_s", true, 100, 1, 5, 1);
  auto b = run_with("bytes_per_s", true, 100, 1, 5, 2);
  b.measurements.push_back(b.measurements[0]);
  b.measurements[1].name = "other";
  a.measurements.push_back(a.measurements[0]);
  a.measurements[1].name = "gone";
  const auto c = compare_runs(a, b, {});
  EXPECT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"s/gone [bytes_per_s]"});
  EXPECT_EQ(c.only_in_b, std::vector<std::string>{"s/other [bytes_per_s]"});
}

// Question (review, 2026-12-07): compare matches (suite, case, metric), so is a measurement B
// lacks named with its metric? A run B without one metric of a case it still has (max_rss_bytes
// of `command/sleep 0.02`, its wall_s kept) had been listed as missing the whole case.
TEST(Compare, AMissingMetricOfACaseBStillHasIsNamedWithTheMetric) {
  auto a = run_with("wall_s", false, 1, 0.01, 5, 1);
  auto b = run_with("wall_s", false, 1, 0.01, 5, 2);
  for (auto* r : {&a, &b}) {
    r->measurements.push_back(r->measurements[0]);
    r->measurements[1].metric = "max_rss_bytes";
  }
  b.measurements.pop_back();
  const auto c = compare_runs(a, b, {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"s/case [max_rss_bytes]"});
  EXPECT_TRUE(c.only_in_b.empty());
}

// Does a comparison that compares nothing fail, rather than pass a CI gate with no regression?
// Runs with no case in common, and a --suite or --metric that neither run has (a typo), are errors.
TEST(Compare, NothingComparedIsAnErrorNotAPass) {
  auto a = run_with("bytes_per_s", true, 100, 1, 5, 1);
  auto b = run_with("bytes_per_s", true, 50, 1, 5, 2);
  b.measurements[0].name = "other";
  try {
    compare_runs(a, b, {});
    ADD_FAILURE() << "no case in common must be an error";
  } catch (const sextant::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing to compare"), std::string::npos) << e.what();
  }
  const auto same = run_with("bytes_per_s", true, 50, 1, 5, 3);
  CompareOptions typo;
  typo.metrics = {"bytes_per_sec"};
  try {
    compare_runs(a, same, typo);
    ADD_FAILURE() << "an unknown metric must be an error";
  } catch (const sextant::Error& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'bytes_per_s'"), std::string::npos) << e.what();
  }
  CompareOptions suite;
  suite.suites = {"nosuch"};
  EXPECT_THROW(compare_runs(a, same, suite), sextant::Error);
  EXPECT_EQ(compare_runs(a, same, {}).regression_count, 1);  // the same runs, unfiltered, compare
}

TEST(Compare, MetricFilterRestrictsTheCases) {
  auto a = run_with("bytes_per_s", true, 100, 1, 6, 1);
  auto b = run_with("bytes_per_s", true, 50, 1, 6, 2);
  a.measurements.push_back(run_with("latency_s", false, 1, 0.01, 6, 3).measurements[0]);
  b.measurements.push_back(run_with("latency_s", false, 1, 0.01, 6, 4).measurements[0]);
  CompareOptions o;
  o.metrics = {"latency_s"};
  const auto c = compare_runs(a, b, o);
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].metric, "latency_s");
  EXPECT_EQ(c.regression_count, 0);  // the halved bandwidth is filtered out
  EXPECT_EQ(compare_runs(a, b, {}).regression_count, 1);
}

// Review of 2026-12-06: --suite and --metric values that each exist but never in one case (gemm_cpu
// has no latency_s) read "no case of run B matches one of run A (0 only in A, 0 only in B)...
// compare two runs of the same suites" of two runs of the same suites. Does the error name the
// two filters, their values and what each of them has?
TEST(Compare, FiltersThatSelectNoCaseSayWhichAndWhatTheyHave) {
  auto a = run_with("flops_per_s", true, 100, 1, 5, 1);
  auto b = run_with("flops_per_s", true, 100, 1, 5, 2);
  a.measurements[0].suite = b.measurements[0].suite = "gemm_cpu";
  for (RunRecord* r : {&a, &b}) {
    r->measurements.push_back(run_with("latency_s", false, 1e-7, 1e-9, 5, 3).measurements[0]);
    r->measurements.back().suite = "memory_latency";
  }
  a.id = 1;
  b.id = 3;
  CompareOptions o;
  o.suites = {"gemm_cpu"};
  o.metrics = {"latency_s"};
  try {
    compare_runs(a, b, o);
    ADD_FAILURE() << "filters that select no case must be an error";
  } catch (const sextant::Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.where().key, "--metric");
    EXPECT_NE(what.find("--suite gemm_cpu and --metric latency_s select no case of run 1 or run 3"), std::string::npos) << what;
    EXPECT_NE(what.find("metrics of --suite gemm_cpu: flops_per_s"), std::string::npos) << what;
    EXPECT_NE(what.find("suites with --metric latency_s: memory_latency"), std::string::npos) << what;
    EXPECT_EQ(what.find("compare two runs of the same suites"), std::string::npos) << what;
  }
  o.suites = {"memory_latency"};
  EXPECT_EQ(compare_runs(a, b, o).cases.size(), 1u);  // a pair that meets compares
}

// Is a configuration change kept apart from a regression? Run 1 with 2 threads against run 2 with
// 1 thread reported 13 regressions and exit 1 (2026-12-01). Descriptive parameters (the peak read
// from the clock of the moment) do not count as a change. And when every case in common differs,
// nothing was judged: an error, not a passing gate (a 52% slower 1-thread run exited 0 before
// 2026-12-03).
TEST(Compare, DifferentParametersAreNotARegression) {
  auto a = run_with("flops_per_s", true, 100, 1, 10, 1);
  auto b = run_with("flops_per_s", true, 60, 1, 10, 2);
  a.measurements[0].params = {{"threads", "2"}, {"peak_flops_per_s", "2.6e11"}};
  b.measurements[0].params = {{"threads", "1"}, {"peak_flops_per_s", "2.5e11"}};
  try {
    compare_runs(a, b, {});
    ADD_FAILURE() << "a comparison of only differing cases passed";
  } catch (const sextant::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing compared: all 1 case(s) in common ran with different parameters"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("threads 2 -> 1"), std::string::npos) << e.what();
  }
  // A like-for-like case beside it: the differing one is parameters_differ, out of the gate.
  auto same_a = run_with("bytes_per_s", true, 100, 1, 10, 3), same_b = run_with("bytes_per_s", true, 100, 1, 10, 4);
  a.measurements.push_back(same_a.measurements[0]);
  b.measurements.push_back(same_b.measurements[0]);
  auto c = compare_runs(a, b, {});
  ASSERT_EQ(c.cases.size(), 2u);
  const auto& differing = c.cases[0].metric == "flops_per_s" ? c.cases[0] : c.cases[1];
  EXPECT_EQ(differing.verdict, "parameters_differ");
  EXPECT_EQ(differing.parameter_changes, "threads 2 -> 1");
  EXPECT_EQ(c.regression_count, 0);
  EXPECT_EQ(c.parameters_differ_count, 1);
  a.measurements.pop_back();
  b.measurements.pop_back();
  b.measurements[0].params = {{"threads", "2"}, {"peak_flops_per_s", "2.5e11"}};
  c = compare_runs(a, b, {});
  EXPECT_EQ(c.cases[0].verdict, "regression");
  EXPECT_EQ(c.cases[0].parameter_changes, "");
}

// Is a library upgrade judged (a 2x slower NCCL fails the gate) and named, rather than made
// parameters_differ and left out of the gate (before 2026-12-03)?
TEST(Compare, ASoftwareVersionChangeIsJudgedAndNamed) {
  auto a = run_with("busbw_bytes_per_s", true, 100, 1, 10, 1);
  auto b = run_with("busbw_bytes_per_s", true, 50, 1, 10, 2);
  a.measurements[0].params = {{"nccl_tests_version", "2.13.9 nccl-library=21903"}, {"bytes", "134217728"}};
  b.measurements[0].params = {{"nccl_tests_version", "2.13.9 nccl-library=22005"}, {"bytes", "134217728"}};
  const auto c = compare_runs(a, b, {});
  EXPECT_EQ(c.cases[0].verdict, "regression");
  EXPECT_EQ(c.cases[0].parameter_changes, "");
  ASSERT_EQ(c.software_changes.size(), 1u);
  EXPECT_EQ(c.software_changes[0], "nccl_tests_version 2.13.9 nccl-library=21903 -> 2.13.9 nccl-library=22005");
}

// Do two runs of `bench run` compare whatever their labels or command lines? With --label the
// case was named after the label, so runs labelled "base" and "slow" had nothing in common.
TEST(Compare, OneCommandOnEachSideMatchesByMetric) {
  auto a = run_with("wall_s", false, 1.0, 0.01, 8, 1);
  auto b = run_with("wall_s", false, 1.5, 0.01, 8, 2);
  a.measurements[0].suite = b.measurements[0].suite = "command";
  a.measurements[0].name = "./train.sh --opt a";
  b.measurements[0].name = "./train.sh --opt b";
  const auto c = compare_runs(a, b, {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].verdict, "regression");
  EXPECT_EQ(c.cases[0].name, "./train.sh --opt a | ./train.sh --opt b");
}

// Do the corrections control the false alarms of many cases? 40 unchanged cases and one shifted
// by 20%: without a correction some unchanged cases may pass alpha; Holm's adjusted p-values are
// at least the raw ones, Benjamini-Hochberg's between the two, and the real shift stays a
// regression under both.
TEST(Compare, HolmAndBenjaminiHochbergAdjustOverTheCases) {
  RunRecord a, b;
  for (int i = 0; i < 41; ++i) {
    const bool shifted = i == 40;
    auto x = run_with("flops_per_s", true, 100, 10, 12, 100 + 2 * i);
    auto y = run_with("flops_per_s", true, shifted ? 70 : 100, shifted ? 1 : 10, 12, 101 + 2 * i);
    x.measurements[0].name = y.measurements[0].name = "case " + std::to_string(i);
    a.measurements.push_back(x.measurements[0]);
    b.measurements.push_back(y.measurements[0]);
  }
  CompareOptions none, holm, bh;
  holm.correction = "holm";
  bh.correction = "benjamini-hochberg";
  const auto cn = compare_runs(a, b, none), ch = compare_runs(a, b, holm), cb = compare_runs(a, b, bh);
  for (size_t i = 0; i < cn.cases.size(); ++i) {
    EXPECT_GE(ch.cases[i].p_value, cn.cases[i].p_value - 1e-15);
    EXPECT_GE(ch.cases[i].p_value, cb.cases[i].p_value - 1e-15);
    EXPECT_GE(cb.cases[i].p_value, cn.cases[i].p_value - 1e-15);
    EXPECT_LE(ch.cases[i].p_value, 1.0);
  }
  EXPECT_EQ(ch.cases[40].verdict, "regression");
  EXPECT_EQ(cb.cases[40].verdict, "regression");
  EXPECT_EQ(ch.regression_count + ch.improvement_count, 1);
  // Holm on the smallest p-value is Bonferroni: m x p.
  double pmin = 1;
  size_t at = 0;
  for (size_t i = 0; i < cn.cases.size(); ++i)
    if (cn.cases[i].p_value < pmin) pmin = cn.cases[i].p_value, at = i;
  EXPECT_NEAR(ch.cases[at].p_value, std::min(1.0, 41 * pmin), 1e-12);
  CompareOptions bad;
  bad.correction = "bonferoni";
  EXPECT_THROW(compare_runs(a, b, bad), sextant::Error);
}

TEST(Compare, ATestThatCannotReachAlphaIsUnderpoweredAndFailsTheGateWhenWorse) {
  // Three repetitions a side: the exact test's smallest p is 2 / C(6, 3) = 0.1, so a 4x slow-down
  // with fully separated samples cannot be significant at 0.05. It is not "unchanged".
  auto a = run_with("wall_s", false, 0.05, 1e-4, 3, 21), b = run_with("wall_s", false, 0.2, 1e-4, 3, 22);
  auto c = compare_runs(a, b, {});
  EXPECT_NEAR(c.cases[0].min_p_value, 0.1, 1e-12);
  EXPECT_EQ(c.cases[0].verdict, "underpowered");
  EXPECT_TRUE(c.cases[0].unchecked_failure);
  EXPECT_EQ(c.unchecked_failure_count, 1);
  EXPECT_EQ(c.regression_count, 0);
  // Faster, or within the minimum effect: unchecked, but nothing to fail.
  c = compare_runs(b, a, {});
  EXPECT_EQ(c.cases[0].verdict, "underpowered");
  EXPECT_EQ(c.unchecked_failure_count, 0);
  // Two samples a side (an nccl-tests import: out-of-place and in-place): 2 / C(4, 2) = 1/3.
  c = compare_runs(run_with("busbw_bytes_per_s", true, 100, 1, 2, 23), run_with("busbw_bytes_per_s", true, 50, 1, 2, 24), {});
  EXPECT_NEAR(c.cases[0].min_p_value, 1.0 / 3, 1e-12);
  EXPECT_EQ(c.unchecked_failure_count, 1);
  // Four a side reach 2 / 70 < 0.05: tested, a regression.
  c = compare_runs(run_with("wall_s", false, 0.05, 1e-4, 4, 25), run_with("wall_s", false, 0.2, 1e-4, 4, 26), {});
  EXPECT_EQ(c.cases[0].verdict, "regression");
  EXPECT_EQ(c.unchecked_count, 0);
}

// Review of 2026-12-06: min_p_value was set on the exact Mann-Whitney path only, and read 0 (as if
// any significance were reachable) for one repetition a side, beyond 100 samples and under Welch.
// Is it the smallest p each path can give?
TEST(Compare, TheSmallestReachablePIsStatedForEveryTest) {
  // One repetition a side: untestable, p 1, and nothing below 1 reachable.
  auto c = compare_runs(run_with("wall_s", false, 1, 0.01, 1, 41), run_with("wall_s", false, 2, 0.01, 1, 42), {});
  EXPECT_EQ(c.cases[0].verdict, "untestable");
  EXPECT_EQ(c.cases[0].p_value, 1);
  EXPECT_EQ(c.cases[0].min_p_value, 1);
  // 60 a side, no ties: the normal approximation; its most extreme split (every A below every B)
  // has z = (1800 - 0.5) / sqrt(60 x 60 x 121 / 12): p = 2.9e-21, not 0.
  c = compare_runs(run_with("wall_s", false, 1, 0.01, 60, 43), run_with("wall_s", false, 1, 0.01, 60, 44), {});
  EXPECT_EQ(c.cases[0].method, "normal");
  const double z = 1799.5 / std::sqrt(60.0 * 60 * 121 / 12);
  EXPECT_NEAR(c.cases[0].min_p_value / std::erfc(z / std::sqrt(2.0)), 1, 1e-6);
  EXPECT_EQ(c.cases[0].verdict, "unchanged");
  // 60 equal values a side: no split can differ; p cannot go below 1 (underpowered, nothing to fail).
  c = compare_runs(run_with("wall_s", false, 1, 0, 60, 45), run_with("wall_s", false, 1, 0, 60, 46), {});
  EXPECT_EQ(c.cases[0].method, "normal");
  EXPECT_EQ(c.cases[0].min_p_value, 1);
  EXPECT_EQ(c.cases[0].verdict, "underpowered");
  EXPECT_EQ(c.unchecked_failure_count, 0);
  // Welch's t is unbounded: with two repetitions a side any p is reachable.
  CompareOptions w;
  w.test = "welch";
  c = compare_runs(run_with("wall_s", false, 1, 0.01, 3, 47), run_with("wall_s", false, 1, 0.01, 3, 48), w);
  EXPECT_EQ(c.cases[0].min_p_value, 0);
  c = compare_runs(run_with("wall_s", false, 1, 0.01, 1, 47), run_with("wall_s", false, 1, 0.01, 3, 48), w);
  EXPECT_EQ(c.cases[0].min_p_value, 1);
}

TEST(Compare, EqualMediansTakeTheirDirectionFromTheMeans) {
  // At --min-effect 0 a change of 0 passes the effect filter; B is slower in its tail and must
  // not be called an improvement.
  auto with = [](std::vector<double> v) {
    RunRecord r;
    Measurement m;
    m.suite = "s";
    m.name = "case";
    m.metric = "wall_s";
    m.higher_is_better = false;
    m.samples = std::move(v);
    r.measurements.push_back(m);
    return r;
  };
  CompareOptions o;
  o.min_effect_fraction = 0;
  const auto c = compare_runs(with({1, 1, 1, 1, 5, 5, 5, 5, 5}), with({5, 5, 5, 5, 5, 9, 9, 9, 9}), o);
  EXPECT_EQ(c.cases[0].change_fraction, 0);
  EXPECT_LT(c.cases[0].p_value, 0.05);
  EXPECT_EQ(c.cases[0].verdict, "regression");
}

// A command that crashed in B (bench run --ignore-failure) did other work: exit statuses that
// differ are no verdict on speed and fail the gate; the same statuses on both sides compare.
TEST(Compare, ACommandThatExitsOtherwiseIsNeverAVerdictOnSpeed) {
  auto a = run_with("wall_s", false, 0.5, 1e-3, 5, 31), b = run_with("wall_s", false, 0.05, 1e-3, 5, 32);
  a.measurements[0].set_param("exit_statuses", "0,0,0,0,0");
  b.measurements[0].set_param("exit_statuses", "3,3,3,3,3");
  auto c = compare_runs(a, b, {});
  EXPECT_EQ(c.cases[0].verdict, "exit_status_differs");
  EXPECT_TRUE(c.cases[0].unchecked_failure);
  EXPECT_EQ(c.improvement_count, 0);
  b.measurements[0].set_param("exit_statuses", "0,0,0,0,0");
  EXPECT_EQ(compare_runs(a, b, {}).cases[0].verdict, "improvement");
}

TEST(Compare, WrongResultsOfNcclTestsAreNeverAVerdictOnSpeed) {
  auto a = run_with("busbw_bytes_per_s", true, 100, 1, 8, 27), b = run_with("busbw_bytes_per_s", true, 100, 1, 8, 28);
  a.measurements[0].set_param("wrong", "0");
  b.measurements[0].set_param("wrong", "4096");
  const auto c = compare_runs(a, b, {});
  EXPECT_EQ(c.cases[0].verdict, "wrong_results");
  EXPECT_EQ(c.unchecked_failure_count, 1);
  b.measurements[0].set_param("wrong", "N/A");
  EXPECT_EQ(compare_runs(a, b, {}).cases[0].verdict, "unchanged");
}

TEST(Compare, TiesAndHolmRaiseTheSmallestReachableP) {
  auto with = [](std::vector<std::vector<double>> cases) {
    RunRecord r;
    for (size_t i = 0; i < cases.size(); ++i) {
      Measurement m;
      m.suite = "s";
      m.name = "case" + std::to_string(i);
      m.metric = "flops_per_s";
      m.higher_is_better = true;
      m.samples = cases[i];
      r.measurements.push_back(m);
    }
    return r;
  };
  // Ties: {4,4,4,4} against {4,1,1,1} cannot go below p = 0.143 (not 2 / C(8, 4) = 0.029): a 75%
  // drop is underpowered and fails the gate, not "unchanged".
  auto c = compare_runs(with({{4, 4, 4, 4}}), with({{4, 1, 1, 1}}), {});
  EXPECT_GT(c.cases[0].min_p_value, 0.05);
  EXPECT_EQ(c.cases[0].verdict, "underpowered");
  EXPECT_EQ(c.unchecked_failure_count, 1);
  EXPECT_EQ(c.cases[0].direction, "worse");
  // Ties and unequal counts: the extreme split with A highest is reachable. Six tied values
  // against four higher ones: p = 1 / C(10, 4) = 1 / 210 (brute force over the 210 splits), the
  // case's own p, where the A-lowest split alone put the floor at 0.076 ("underpowered").
  c = compare_runs(with({{10, 10, 10, 10, 10, 10}}), with({{12, 12, 12, 12}}), {});
  EXPECT_NEAR(c.cases[0].p_value, 1.0 / 210, 1e-12);
  EXPECT_NEAR(c.cases[0].min_p_value, c.cases[0].p_value, 1e-12);
  EXPECT_NE(c.cases[0].verdict, "underpowered");
  // Holm over two cases of four repetitions: each needs p < 0.025 first, and 2 / 70 = 0.029 cannot.
  CompareOptions holm;
  holm.correction = "holm";
  c = compare_runs(with({{4, 4.1, 4.2, 4.3}, {8, 8.1, 8.2, 8.3}}), with({{1, 1.1, 1.2, 1.3}, {2, 2.1, 2.2, 2.3}}), holm);
  EXPECT_EQ(c.cases[0].verdict, "underpowered");
  EXPECT_EQ(c.cases[1].verdict, "underpowered");
  EXPECT_EQ(c.unchecked_failure_count, 2);
  // Without the correction both are tested, and both are regressions.
  c = compare_runs(with({{4, 4.1, 4.2, 4.3}, {8, 8.1, 8.2, 8.3}}), with({{1, 1.1, 1.2, 1.3}, {2, 2.1, 2.2, 2.3}}), {});
  EXPECT_EQ(c.regression_count, 2);
  // A case Tarone's rule leaves out of Holm's family could be tested alone: it fails the gate only
  // when its own p is below alpha too. Here a 40% lower median with p = 34/70 = 0.486 (U = 5 of
  // 16) is noise; before 2026-12-02 it failed the gate as the 75% drop beside it does.
  c = compare_runs(with({{1, 4, 4.2, 4.3}, {8, 8.1, 8.2, 8.3}}), with({{1.1, 1.2, 3.8, 4.1}, {2, 2.1, 2.2, 2.3}}), holm);
  EXPECT_EQ(c.cases[0].verdict, "underpowered");
  EXPECT_TRUE(c.cases[0].family_excluded);
  EXPECT_NEAR(c.cases[0].p_value, 34.0 / 70, 1e-12);
  EXPECT_FALSE(c.cases[0].unchecked_failure);
  EXPECT_TRUE(c.cases[1].unchecked_failure);
  EXPECT_EQ(c.unchecked_failure_count, 1);
  EXPECT_DOUBLE_EQ(c.family_alpha, 0.025);
  // Benjamini-Hochberg over 20 cases of 5 repetitions: the halved case's p, 2 / C(10, 5) = 0.0079,
  // adjusts to 0.159 and no change could do better. It is underpowered in the family and fails
  // the gate; before 2026-12-03 it read `unchanged` and the gate passed. The 19 interleaved cases
  // (p 0.69) are underpowered too, and fail nothing.
  std::vector<std::vector<double>> sa, sb;
  for (int i = 0; i < 20; ++i) {
    sa.push_back({100, 102, 104, 106, 108});
    sb.push_back(i == 7 ? std::vector<double>{50, 51, 52, 53, 54} : std::vector<double>{101, 103, 105, 107, 109});
  }
  CompareOptions bh;
  bh.correction = "benjamini-hochberg";
  c = compare_runs(with(sa), with(sb), bh);
  EXPECT_EQ(c.cases[7].verdict, "underpowered");
  EXPECT_TRUE(c.cases[7].family_excluded);
  EXPECT_NEAR(c.cases[7].p_value, 2.0 / 252, 1e-12);
  EXPECT_TRUE(c.cases[7].unchecked_failure);
  EXPECT_EQ(c.unchecked_failure_count, 1);
  EXPECT_FALSE(c.cases[0].unchecked_failure);
  // Where the family lets it through (20 cases all halved: each adjusts to 0.0079), it is a regression.
  c = compare_runs(with(sa), with(std::vector<std::vector<double>>(20, {50, 51, 52, 53, 54})), bh);
  EXPECT_EQ(c.regression_count, 20);
}

// Does a change no larger than the case's drift between earlier runs of the host read as
// within_run_noise (and fail no gate), while one beyond it stays a regression? And without enough
// history is the within-run test unchanged? (Two back-to-back runs read a -7.6% "regression" at
// p 0.029 with 1% spreads within each run.)
TEST(Compare, DriftBetweenRunsFromTheHistoryGatesTheVerdict) {
  const auto a = run_with("flops_per_s", true, 100, 0.5, 5, 21);
  const auto b = run_with("flops_per_s", true, 92.4, 0.5, 5, 22);
  EXPECT_EQ(compare_runs(a, b, {}).cases[0].verdict, "regression");
  // Earlier runs whose medians drift by about 5% (sd of log median ~0.05); thirteen of them, for
  // the eight degrees of freedom a drift needs to excuse a change (kMinDriftDof; A is not among
  // them since 2026-12-06; the successive-difference estimate's effective 2 x 12^2 / 35 = 8.2 since
  // the 2026-12-07 review, where nine runs gave 5.6).
  std::vector<RunRecord> earlier;
  for (double mean : {95.0, 104.0, 99.0, 106.0, 97.0, 102.0, 96.0, 103.0, 101.0, 98.0, 105.0, 100.0, 94.0})
    earlier.push_back(run_with("flops_per_s", true, mean, 0.5, 5, 30 + earlier.size()));
  CompareOptions o;
  for (const auto& e : earlier) o.history.push_back(&e);
  const auto c = compare_runs(a, b, o);
  EXPECT_EQ(c.cases[0].history_count, 13);
  EXPECT_NEAR(c.cases[0].run_to_run_dof, 2.0 * 12 * 12 / 35, 1e-9);
  EXPECT_GT(c.cases[0].run_to_run_sd_log, 0.02);
  EXPECT_LT(c.cases[0].run_to_run_sd_log, 0.08);
  EXPECT_EQ(c.cases[0].verdict, "within_run_noise");
  EXPECT_EQ(c.regression_count, 0);
  EXPECT_EQ(c.unchecked_failure_count, 0);
  // A 40% drop is far beyond that drift.
  EXPECT_EQ(compare_runs(a, run_with("flops_per_s", true, 60, 0.5, 5, 23), o).cases[0].verdict, "regression");
  // Two earlier runs are not enough to estimate the drift: the within-run verdict stands.
  CompareOptions two;
  two.history = {&earlier[0], &earlier[1]};
  const auto t = compare_runs(a, b, two);
  EXPECT_EQ(t.cases[0].verdict, "regression");
  EXPECT_FALSE(std::isfinite(t.cases[0].run_to_run_sd_log));
  // Runs of another host do not count.
  std::vector<RunRecord> other = earlier;
  for (auto& r : other) r.host.hostname = "elsewhere";
  CompareOptions foreign;
  for (const auto& e : other) foreign.history.push_back(&e);
  EXPECT_EQ(compare_runs(a, b, foreign).cases[0].history_count, 0);
}

// Question (review of 2026-12-05): does the drift of a `bench run` command come from earlier runs
// of that command only? Its cases match A and B by metric whatever the command, and earlier runs
// of four other commands (5 to 100 ms) had made a 64% slower command read within_run_noise.
TEST(Compare, CommandHistoryIsTheCommandsOwn) {
  auto cmd = [](const std::string& name, double mean, uint64_t seed) {
    auto r = run_with("wall_s", false, mean, mean * 0.01, 5, seed);
    r.measurements[0].suite = "command";
    r.measurements[0].name = name;
    return r;
  };
  const auto a = cmd("sleep 0.03", 0.030, 1), b = cmd("sleep 0.03", 0.0494, 2);
  std::vector<RunRecord> others = {cmd("sleep 0.005", 0.005, 3), cmd("sleep 0.06", 0.06, 4), cmd("sleep 0.1", 0.1, 5), cmd("sleep 0.012", 0.012, 6)};
  CompareOptions o;
  for (const auto& e : others) o.history.push_back(&e);
  const auto c = compare_runs(a, b, o);
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].history_count, 0);
  EXPECT_EQ(c.cases[0].verdict, "regression");
  // Its own earlier runs count.
  std::vector<RunRecord> own = {cmd("sleep 0.03", 0.0301, 7), cmd("sleep 0.03", 0.0299, 8), cmd("sleep 0.03", 0.0302, 9)};
  CompareOptions o2;
  for (const auto& e : own) o2.history.push_back(&e);
  EXPECT_EQ(compare_runs(a, b, o2).cases[0].history_count, 3);
  EXPECT_EQ(compare_runs(a, b, o2).cases[0].verdict, "regression");
}

// Question (review of 2026-12-04): is the drift between runs estimated from all the cases of a
// suite and metric together? Eight cases whose host drifts by about 1% between runs, one of which
// happened to read two far medians in its short history (a MAD of 6% alone): a 15% slow-down of
// every case is a regression in each, that case included (it had read within_run_noise).
TEST(Compare, DriftIsPooledOverTheCasesOfASuite) {
  auto run = [](double scale, double odd_scale, uint64_t seed) {
    RunRecord r;
    r.host.hostname = "h";
    sextant::RandomStream rs(seed, 0);
    for (int k = 0; k < 8; ++k) {
      Measurement m;
      m.suite = "s";
      m.name = "case" + std::to_string(k);
      m.metric = "flops_per_s";
      m.higher_is_better = true;
      const double mean = 100.0 * (k == 0 ? odd_scale : scale);
      for (int i = 0; i < 5; ++i) m.samples.push_back(rs.normal(mean, 0.3));
      r.measurements.push_back(m);
    }
    return r;
  };
  std::vector<RunRecord> earlier;
  const double host[] = {1.01, 0.99, 1.005, 0.995};
  const double odd[] = {1.08, 0.93, 1.07, 0.94};  // case 0's unlucky history
  for (int i = 0; i < 4; ++i) earlier.push_back(run(host[i], odd[i], 100 + static_cast<uint64_t>(i)));
  CompareOptions o;
  for (const auto& e : earlier) o.history.push_back(&e);
  const auto c = compare_runs(run(1.0, 1.0, 200), run(0.85, 0.85, 201), o);
  ASSERT_EQ(c.cases.size(), 8u);
  EXPECT_EQ(c.regression_count, 8);
  for (const auto& cc : c.cases) EXPECT_LT(cc.run_to_run_sd_log, 0.03) << cc.name;
}

// Question (review of 2026-12-06): do identical runs pass the gate where each case drifts on its
// own between runs? 17 cases, 3% drift of each case's median between runs, 0.2% noise within a
// run, 3 earlier runs: the MAD of 4 medians about their own median read 2.3% for 3% and, with a
// normal cut-off, 24% of the identical comparisons failed. The sample deviation pooled over the
// cases, with a Student t cut-off for its degrees of freedom, fails at about the 3-sigma rate
// (0.27% a case); and a 30% slow-down of every case is still a regression in each.
TEST(Compare, IdenticalRunsPassUnderIndependentDriftBetweenRuns) {
  sextant::RandomStream rs(2026, 12);
  auto run = [&rs](const std::vector<double>& medians, double scale) {
    RunRecord r;
    r.host.hostname = "h";
    for (size_t k = 0; k < medians.size(); ++k) {
      Measurement m;
      m.suite = "gemm";
      m.name = "case" + std::to_string(k);
      m.metric = "flops_per_s";
      m.higher_is_better = true;
      for (int i = 0; i < 5; ++i) m.samples.push_back(medians[k] * scale * (1 + rs.normal(0, 0.002)));
      r.measurements.push_back(m);
    }
    return r;
  };
  auto drifted = [&rs] {
    std::vector<double> med;
    for (int k = 0; k < 17; ++k) med.push_back(5e10 * std::exp(rs.normal(0, 0.03)));
    return med;
  };
  int failed = 0, trials = 60;
  double sd_sum = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<RunRecord> earlier;
    for (int i = 0; i < 3; ++i) earlier.push_back(run(drifted(), 1.0));
    CompareOptions o;
    for (const auto& e : earlier) o.history.push_back(&e);
    const auto a = run(drifted(), 1.0), b = run(drifted(), 1.0);
    const auto c = compare_runs(a, b, o);
    failed += c.regression_count + c.unchecked_failure_count > 0;
    sd_sum += c.cases[0].run_to_run_sd_log;
    // Every case pooled, less a case whose history strays beyond the 99.9th percentile of the
    // pool's spread (1 in 1,000 of clean cases), and no history run left out.
    // 3 runs (A not among them), 2 successive differences a case: 2 M^2 / sum (3 m - 1) with
    // M = 2 k and 5 a case, 1.6 k over the k cases pooled (2 k, the runs less their mean, before 2026-12-07).
    EXPECT_NEAR(c.cases[0].run_to_run_dof, 1.6 * (17 - c.drift_cases_left_out), 1e-9);
    EXPECT_LE(c.drift_cases_left_out, 1);
    EXPECT_TRUE(c.history_runs_left_out.empty());
    if (t == 0) {
      const auto slow = compare_runs(a, run(drifted(), 0.7), o);
      EXPECT_EQ(slow.regression_count, 17);
    }
  }
  EXPECT_NEAR(sd_sum / trials, 0.03, 0.004);
  EXPECT_LE(failed, 4) << "of " << trials;
}

// Question (review of 2026-12-05): does one disturbed measurement in the history keep the gate
// shut? 17 cases drifting 1.5% between runs, 6 earlier runs. (a) One earlier run ran under load,
// every case at half speed: it had raised the pooled drift to 25% and a uniform 30% slow-down
// passed as within_run_noise. (b) Two cases dipped 2x in one earlier run: the pooled drift had
// grown from 2.7% to 13% and a uniform 40% slow-down passed. Both are left out of the drift and
// named; a drift shared by every run is kept.
TEST(Compare, ADisturbedRunOrCaseInTheHistoryDoesNotWidenTheDrift) {
  sextant::RandomStream rs(2026, 5);
  auto run = [&rs](double scale, int64_t id, const std::set<int>& dipped = {}) {
    RunRecord r;
    r.id = id;
    r.host.hostname = "h";
    for (int k = 0; k < 17; ++k) {
      Measurement m;
      m.suite = "gemm";
      m.name = "case" + std::to_string(k);
      m.metric = "flops_per_s";
      m.higher_is_better = true;
      const double med = 5e10 * scale * std::exp(rs.normal(0, 0.015)) * (dipped.count(k) ? 0.5 : 1.0);
      for (int i = 0; i < 5; ++i) m.samples.push_back(med * (1 + rs.normal(0, 0.002)));
      r.measurements.push_back(m);
    }
    return r;
  };
  // (a) a run under load in the history
  std::vector<RunRecord> earlier;
  for (int i = 0; i < 6; ++i) earlier.push_back(run(i == 3 ? 0.5 : 1.0, 10 + i));
  CompareOptions o;
  for (const auto& e : earlier) o.history.push_back(&e);
  const auto a = run(1.0, 20);
  const auto slow = compare_runs(a, run(0.7, 21), o);
  EXPECT_EQ(slow.regression_count, 17);
  ASSERT_EQ(slow.history_runs_left_out.size(), 1u);
  EXPECT_EQ(slow.history_runs_left_out[0], 13);
  EXPECT_NEAR(slow.history_runs_left_out_shift_fraction[0], -0.5, 0.05);
  EXPECT_EQ(slow.cases[0].history_count, 5);
  EXPECT_LT(slow.cases[0].run_to_run_sd_log, 0.03);
  // ... while an identical run still passes, and a change within the drift is within_run_noise.
  const auto same = compare_runs(a, run(1.0, 22), o);
  EXPECT_EQ(same.regression_count + same.unchecked_failure_count, 0);
  // (b) two cases dipped in one earlier run
  std::vector<RunRecord> dips;
  for (int i = 0; i < 6; ++i) dips.push_back(run(1.0, 30 + i, i == 2 ? std::set<int>{4, 9} : std::set<int>{}));
  CompareOptions od;
  for (const auto& e : dips) od.history.push_back(&e);
  const auto d = compare_runs(a, run(0.6, 40), od);
  EXPECT_TRUE(d.history_runs_left_out.empty());
  EXPECT_EQ(d.drift_cases_left_out, 2);
  EXPECT_EQ(d.regression_count, 17);
  for (const auto& cc : d.cases) EXPECT_LT(cc.run_to_run_sd_log, 0.03) << cc.name;
  // A drift every run shares (the host's clock wandering 8% from run to run) is no disturbance:
  // nothing is left out, and a 5% change is within it.
  std::vector<RunRecord> wander;
  const double host[] = {1.08, 0.93, 1.05, 0.96, 1.09, 0.92};
  for (int i = 0; i < 6; ++i) wander.push_back(run(host[i], 50 + i));
  CompareOptions ow;
  for (const auto& e : wander) ow.history.push_back(&e);
  const auto w = compare_runs(a, run(0.95, 60), ow);
  EXPECT_TRUE(w.history_runs_left_out.empty());
  EXPECT_EQ(w.regression_count + w.unchecked_failure_count, 0);
}

// Question (code review of 2026-12-05): where most cases of a pool never move between runs (a
// peak RSS), the pool's median variance is 0: a case that does drift is no outlier of it and
// keeps a positive deviation (it had read 0, and a change within its drift a regression).
TEST(Compare, APoolOfConstantCasesLeavesNoCaseOut) {
  auto run = [](double drift, double shift, int64_t id) {
    RunRecord r;
    r.id = id;
    r.host.hostname = "h";
    for (int k = 0; k < 5; ++k) {
      Measurement m;
      m.suite = "s";
      m.name = "c" + std::to_string(k);
      m.metric = "flops_per_s";
      m.higher_is_better = true;
      const double med = 100 * shift * (k >= 3 ? drift : 1.0);
      for (int i = 0; i < 5; ++i) m.samples.push_back(med * (1 + 0.001 * i));
      r.measurements.push_back(m);
    }
    return r;
  };
  std::vector<RunRecord> earlier;
  const double d[] = {1.07, 0.93, 1.07, 0.93, 1.07};
  for (int i = 0; i < 5; ++i) earlier.push_back(run(d[i], 1.0, 10 + i));
  CompareOptions o;
  for (const auto& e : earlier) o.history.push_back(&e);
  const auto c = compare_runs(run(1.0, 1.0, 20), run(1.0, 1.0, 21), o);
  EXPECT_EQ(c.drift_cases_left_out, 0);
  for (const auto& cc : c.cases) EXPECT_GT(cc.run_to_run_sd_log, 0.0) << cc.name;
}

// Question (code review of 2026-12-05): does a run stored before the warm-up fix (--warmup 0
// recorded as 0, though one warm-up ran) compare with a run stored after (recorded as 1)?
TEST(Compare, AtLeastOneWarmupRanWhatEverWasStored) {
  auto a = run_with("flops_per_s", true, 100, 0.5, 5, 1), b = run_with("flops_per_s", true, 100, 0.5, 5, 2);
  a.measurements[0].suite = b.measurements[0].suite = "gemm_cpu";
  a.measurements[0].warmup_count = 0;
  b.measurements[0].warmup_count = 1;
  EXPECT_NE(compare_runs(a, b, {}).cases[0].verdict, "parameters_differ");
  a.measurements[0].suite = b.measurements[0].suite = "storage";  // its --warmup 0 runs none
  EXPECT_THROW(compare_runs(a, b, {}), sextant::Error);  // every case in common differs: nothing compared
}

// Question (review of 2026-12-06): does a drift estimated from few degrees of freedom excuse a
// large slow-down? A `bench run` command (one case: its deviation has one degree of freedom less
// than its earlier runs, A not among them) with 3 earlier runs drifting 3.7%: B 18% slower, 3.2
// deviations of a difference of two run medians, had read within_run_noise (t cut-off 9.22 for 3
// dof: up to +61% passed) while `--history 0` called it a regression. Below kMinDriftDof the
// deviation is reported and the within-run verdict stands; with 13 earlier runs (8.2 effective
// dof of the successive-difference estimate since the 2026-12-07 review; 9 runs, 8 dof, before)
// the drift is trusted again.
TEST(Compare, ADriftFromFewDegreesOfFreedomExcusesNoLargeSlowdown) {
  auto cmd = [](double mean, uint64_t seed) {
    auto r = run_with("wall_s", false, mean, mean * 0.005, 6, seed);
    r.measurements[0].suite = "command";
    r.measurements[0].name = "sleep 0.05";
    return r;
  };
  const double drift[] = {1.04, 0.965, 1.035, 0.97, 1.03, 0.96, 1.04, 0.975, 1.03, 0.965, 1.035, 0.97, 1.04};
  std::vector<RunRecord> earlier;
  for (int i = 0; i < 13; ++i) earlier.push_back(cmd(0.05 * drift[i], 100 + static_cast<uint64_t>(i)));
  const auto a = cmd(0.05, 1), b = cmd(0.059, 2);
  CompareOptions three;
  three.history = {&earlier[0], &earlier[1], &earlier[2]};
  const auto c = compare_runs(a, b, three);
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].history_count, 3);
  EXPECT_NEAR(c.cases[0].run_to_run_dof, 1.6, 1e-9);  // 2 (n - 1)^2 / (3 n - 4) for n = 3
  EXPECT_TRUE(std::isfinite(c.cases[0].run_to_run_sd_log));
  EXPECT_GT(c.cases[0].run_to_run_sd_log, 0.02);
  EXPECT_EQ(c.cases[0].verdict, "regression");
  EXPECT_EQ(c.regression_count, 1);
  // Twelve earlier runs (7.6 effective dof) are still too few; thirteen (8.2, cut-off 4.25) are
  // enough, and the same 18% is within 3 x sqrt(2) deviations of this ~5% (successive) drift.
  CompareOptions twelve, thirteen;
  for (int i = 0; i < 13; ++i) {
    if (i < 12) twelve.history.push_back(&earlier[static_cast<size_t>(i)]);
    thirteen.history.push_back(&earlier[static_cast<size_t>(i)]);
  }
  EXPECT_NEAR(compare_runs(a, b, twelve).cases[0].run_to_run_dof, 2.0 * 11 * 11 / 32, 1e-9);
  EXPECT_EQ(compare_runs(a, b, twelve).cases[0].verdict, "regression");
  const auto e = compare_runs(a, b, thirteen);
  EXPECT_NEAR(e.cases[0].run_to_run_dof, 2.0 * 12 * 12 / 35, 1e-9);
  EXPECT_EQ(e.cases[0].verdict, "within_run_noise");
}

// Question (review of 2026-12-06): do identical commands pass the gate when the kernel charges a
// tick of their CPU time to user in one run and to system in the other? Two `sleep 0.05` runs:
// user 0 (one 4.7 ms) against ~4.4 ms, system the other way round; the user_s median 0 -> 4.4 ms
// read as an infinite regression and the gate failed. Medians closer than the rusage resolution
// are below_resolution and fail nothing; a change beyond it, and wall_s, are judged as usual.
TEST(Compare, ACpuTimeChangeBelowTheRusageResolutionIsNoVerdict) {
  auto run = [](const std::vector<double>& wall, const std::vector<double>& user, const std::vector<double>& sys) {
    RunRecord r;
    r.host.hostname = "h";
    for (const auto& [metric, samples] : {std::pair{"wall_s", wall}, std::pair{"user_s", user}, std::pair{"sys_s", sys}}) {
      Measurement m;
      m.suite = "command";
      m.name = "sleep 0.05";
      m.metric = metric;
      m.higher_is_better = false;
      m.samples = samples;
      r.measurements.push_back(m);
    }
    return r;
  };
  const std::vector<double> wall = {0.0541, 0.0542, 0.0540, 0.0543, 0.0541, 0.0542};
  const auto a = run(wall, {0, 0, 0, 0, 0.0047, 0}, {0.0043, 0.0045, 0.0048, 0.0044, 0.0001, 0.0046});
  const auto b = run(wall, {0.0043, 0.0045, 0.0041, 0.0044, 0.0046, 0.0042}, {0, 0, 0, 0, 0, 0});
  const auto c = compare_runs(a, b, {});
  ASSERT_EQ(c.cases.size(), 3u);
  for (const auto& cc : c.cases) {
    if (cc.metric == "wall_s") {
      EXPECT_EQ(cc.resolution, 0.0);
      continue;
    }
    EXPECT_EQ(cc.verdict, "below_resolution") << cc.metric;
    EXPECT_EQ(cc.resolution, kRusageCpuResolutionS);
    EXPECT_FALSE(cc.unchecked_failure);
  }
  EXPECT_EQ(c.below_resolution_count, 2);
  EXPECT_EQ(c.regression_count + c.improvement_count + c.unchecked_failure_count, 0);
  // 45 ms more user time is beyond the resolution: a regression.
  const auto slow = compare_runs(a, run(wall, {0.045, 0.046, 0.044, 0.045, 0.047, 0.045}, {0, 0, 0, 0, 0, 0}), {});
  for (const auto& cc : slow.cases) {
    if (cc.metric == "user_s") {
      EXPECT_EQ(cc.verdict, "regression");
    }
  }
  // wall_s has no such floor: 4 ms more of 54 ms is a regression.
  std::vector<double> slower_wall;
  for (double w : wall) slower_wall.push_back(w + 0.004);
  const auto w = compare_runs(a, run(slower_wall, {0, 0, 0, 0, 0.0047, 0}, {0.0043, 0.0045, 0.0048, 0.0044, 0.0001, 0.0046}), {});
  for (const auto& cc : w.cases) {
    if (cc.metric == "wall_s") {
      EXPECT_EQ(cc.verdict, "regression");
    }
  }
  // Another suite's metric of those names has no rusage floor.
  auto other_a = a, other_b = b;
  for (auto* r : {&other_a, &other_b})
    for (auto& m : r->measurements) m.suite = "s";
  for (const auto& cc : compare_runs(other_a, other_b, {}).cases) EXPECT_EQ(cc.resolution, 0.0) << cc.metric;
}

// Question (review of 2026-12-06): does a gate that judged nothing pass? `history compare
// --metric user_s` of two runs whose CPU times differ by less than a tick exited 0 with case_count
// 1, below_resolution_count 1. Every case below_resolution (or, with the rest, parameters_differ)
// is nothing compared: an error naming the resolution and pointing at wall_s.
TEST(Compare, ACompareWhoseCasesAreAllBelowTheResolutionIsAnError) {
  auto run = [](const std::vector<std::pair<std::string, std::vector<double>>>& metrics) {
    RunRecord r;
    r.host.hostname = "h";
    for (const auto& [metric, samples] : metrics) {
      Measurement m;
      m.suite = "command";
      m.name = "sleep 0.05";
      m.metric = metric;
      m.higher_is_better = false;
      m.samples = samples;
      r.measurements.push_back(m);
    }
    return r;
  };
  const std::vector<double> user_a = {0, 0, 0, 0, 0.0047, 0}, user_b = {0.0043, 0.0045, 0.0041, 0.0044, 0.0046, 0.0042};
  const std::vector<double> sys_a = {0.0043, 0.0045, 0.0048, 0.0044, 0.0001, 0.0046}, sys_b = {0, 0, 0, 0, 0, 0};
  auto expect_nothing_compared = [](const RunRecord& a, const RunRecord& b, const std::string& also) {
    try {
      compare_runs(a, b, {});
      ADD_FAILURE() << "a comparison whose cases are all below the resolution passed";
    } catch (const sextant::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("nothing compared"), std::string::npos) << what;
      EXPECT_NE(what.find("resolution"), std::string::npos) << what;
      EXPECT_NE(what.find("--metric wall_s"), std::string::npos) << what;
      EXPECT_NE(what.find(also), std::string::npos) << what;
    }
  };
  expect_nothing_compared(run({{"user_s", user_a}}), run({{"user_s", user_b}}), "1 of 1 case(s)");
  expect_nothing_compared(run({{"user_s", user_a}, {"sys_s", sys_a}}), run({{"user_s", user_b}, {"sys_s", sys_b}}), "2 of 2 case(s)");
  // One below the resolution, the other with different parameters: still nothing judged.
  auto a = run({{"user_s", user_a}}), b = run({{"user_s", user_b}});
  auto other_a = run_with("flops_per_s", true, 100, 1, 10, 1), other_b = run_with("flops_per_s", true, 60, 1, 10, 2);
  other_a.measurements[0].params = {{"threads", "2"}};
  other_b.measurements[0].params = {{"threads", "1"}};
  a.measurements.push_back(other_a.measurements[0]);
  b.measurements.push_back(other_b.measurements[0]);
  expect_nothing_compared(a, b, "1 ran with different parameters");
  // With wall_s beside them the comparison judges wall_s and passes.
  const std::vector<double> wall = {0.0541, 0.0542, 0.0540, 0.0543, 0.0541, 0.0542};
  const auto c = compare_runs(run({{"wall_s", wall}, {"user_s", user_a}}), run({{"wall_s", wall}, {"user_s", user_b}}), {});
  EXPECT_EQ(c.below_resolution_count, 1);
  EXPECT_EQ(c.regression_count, 0);
}

// Question (review of 2026-12-06): is a change of exactly --min-effect large enough? B = 0.95 x A
// sample for sample: its median change is -0.04999999999999993 in floating point, and a 5%
// slow-down at p 0.008 read unchanged.
TEST(Compare, AChangeOfExactlyTheMinimumEffectCounts) {
  const double x = 651.9413797500401;  // x * 0.95 / x - 1 rounds to -0.04999999999999993
  RunRecord a, b;
  a.host.hostname = b.host.hostname = "h";
  Measurement m;
  m.suite = "s";
  m.name = "case";
  m.metric = "flops_per_s";
  m.higher_is_better = true;
  m.samples = {x - 2, x - 1, x, x + 1, x + 2};
  a.measurements.push_back(m);
  for (double& v : m.samples) v *= 0.95;
  b.measurements.push_back(m);
  const auto c = compare_runs(a, b, {});
  ASSERT_LT(std::fabs(c.cases[0].change_fraction), 0.05);  // the rounding this is about
  EXPECT_LT(c.cases[0].p_value, 0.05);
  EXPECT_EQ(c.cases[0].verdict, "regression");
  // Clearly below it stays unchanged.
  for (double& v : m.samples) v = v / 0.95 * 0.951;
  b.measurements = {m};
  EXPECT_EQ(compare_runs(a, b, {}).cases[0].verdict, "unchanged");
}

// Question (review of 2026-12-06): is a real change of performance ever counted as drift between
// runs? The drift had been the deviation of log(median) over the history runs and A, A never left
// out, so that (a) A's own change (an optimisation landed: A +10% over a flat history) widened the
// "drift" from 1.4% to 3.2% and B losing it again (-9.3%) read within_run_noise in all 17 cases,
// exit 0; and (b) a persistent level shift inside the history (+25% half-way) read as a 12% drift
// and a 35% slow-down passed. The drift is now the scatter of the history runs alone, pooled
// within the stretches between level shifts.
namespace {
// 17 GEMM-like cases; each run's medians move together by a common 1% and by 0.5% each, and the
// 5 repetitions of a case scatter by 1% within a run (as on a real host).
RunRecord gemm_run(sextant::RandomStream& rs, double level, int64_t id) {
  RunRecord r;
  r.id = id;
  r.host.hostname = "h";
  const double common = rs.normal(0, 0.01);
  for (int k = 0; k < 17; ++k) {
    Measurement m;
    m.suite = "gemm";
    m.name = "case" + std::to_string(k);
    m.metric = "flops_per_s";
    m.higher_is_better = true;
    const double med = 1e10 * (1 + 0.25 * k) * level * std::exp(common + rs.normal(0, 0.005));
    for (int i = 0; i < 5; ++i) m.samples.push_back(med * std::exp(rs.normal(0, 0.01)));
    r.measurements.push_back(m);
  }
  return r;
}
}  // namespace

TEST(Compare, ARealChangeInAOrAStepInTheHistoryIsNoDrift) {
  sextant::RandomStream rs(2026, 1206);
  // (a) A flat history, A 10% faster (the optimisation), B 9.3% slower than A.
  std::vector<RunRecord> flat;
  for (int i = 0; i < 8; ++i) flat.push_back(gemm_run(rs, 1.0, 10 + i));
  CompareOptions o;
  for (const auto& e : flat) o.history.push_back(&e);
  const auto a = gemm_run(rs, 1.10, 20);
  const auto lost = compare_runs(a, gemm_run(rs, 1.10 * 0.907, 21), o);
  EXPECT_EQ(lost.regression_count, 17);
  for (const auto& cc : lost.cases) EXPECT_LT(cc.run_to_run_sd_log, 0.02) << cc.name;
  EXPECT_TRUE(lost.drift_level_shift_runs.empty());
  // ... while a run identical to A passes.
  const auto same = compare_runs(a, gemm_run(rs, 1.10, 22), o);
  EXPECT_EQ(same.regression_count + same.unchecked_failure_count, 0);
  // (b) A history with a 25% step half-way (the level A and B ran at since), B 35% slower.
  std::vector<RunRecord> step;
  for (int i = 0; i < 10; ++i) step.push_back(gemm_run(rs, i < 5 ? 1.0 : 1.25, 30 + i));
  CompareOptions os;
  for (const auto& e : step) os.history.push_back(&e);
  const auto a2 = gemm_run(rs, 1.25, 40);
  const auto drop = compare_runs(a2, gemm_run(rs, 1.25 * 0.65, 41), os);
  EXPECT_EQ(drop.regression_count, 17);
  for (const auto& cc : drop.cases) {
    EXPECT_LT(cc.run_to_run_sd_log, 0.02) << cc.name;
    EXPECT_EQ(cc.history_count, 10);
    // Two stretches of five runs: 4 successive differences each, 2 M^2 / sum (3 m - 1) with M = 17 x 8
    // and 17 x 2 x 11 (17 x 8, each stretch less its mean, before the 2026-12-07 review).
    EXPECT_NEAR(cc.run_to_run_dof, 2.0 * (17 * 8) * (17 * 8) / (17 * 2 * 11), 1e-9);
  }
  ASSERT_EQ(drop.drift_level_shift_runs.size(), 1u);
  EXPECT_EQ(drop.drift_level_shift_runs[0], 35);  // the first run at the new level
  EXPECT_NEAR(drop.drift_level_shift_fraction[0], 0.25, 0.03);
  EXPECT_EQ(drop.drift_level_shift_cases[0], "gemm flops_per_s");
  EXPECT_TRUE(drop.history_runs_left_out.empty());
  // The history given newest first (as `history compare` reads it) is the same history.
  CompareOptions reversed;
  for (auto it = step.rbegin(); it != step.rend(); ++it) reversed.history.push_back(&*it);
  EXPECT_EQ(compare_runs(a2, gemm_run(rs, 1.25 * 0.65, 42), reversed).regression_count, 17);
  const auto same2 = compare_runs(a2, gemm_run(rs, 1.25, 43), os);
  EXPECT_EQ(same2.regression_count + same2.unchecked_failure_count, 0);
  // (c) One case alone (a `bench run` command: wall time, lower is better) whose history steps
  // from 0.1 s to 0.125 s: B 15% slower than A is a regression, not within a 12% "drift".
  auto cmd = [](double mean, uint64_t seed) {
    auto r = run_with("wall_s", false, mean, mean * 0.005, 6, seed);
    r.measurements[0].suite = "command";
    r.measurements[0].name = "sleep";
    return r;
  };
  // Eight runs at each level: a lone command needs 13 earlier runs for the 8 effective degrees of
  // freedom that let a drift excuse anything (2026-12-07 review), so the verdict below is the
  // step's doing, not too little history.
  const double wobble[] = {1.01, 0.99, 1.005, 0.995, 1.0, 1.01, 0.99, 1.005};
  std::vector<RunRecord> cmds;
  for (int i = 0; i < 16; ++i) cmds.push_back(cmd((i < 8 ? 0.1 : 0.125) * wobble[i % 8], 300 + static_cast<uint64_t>(i)));
  CompareOptions oc;
  for (const auto& e : cmds) oc.history.push_back(&e);
  const auto ca = compare_runs(cmd(0.125, 310), cmd(0.125 * 1.15, 311), oc);
  EXPECT_EQ(ca.cases[0].verdict, "regression");
  EXPECT_LT(ca.cases[0].run_to_run_sd_log, 0.02);
  EXPECT_NEAR(ca.cases[0].run_to_run_dof, 2.0 * 14 * 14 / 40, 1e-9);  // stretches of 8 and 8 runs: 7 + 7 differences
  EXPECT_EQ(ca.drift_level_shift_runs.size(), 1u);
  // ... and a run alone at another level (under load) between two quiet stretches adds nothing.
  std::vector<RunRecord> loaded;
  for (int i = 0; i < 17; ++i) loaded.push_back(cmd(0.125 * wobble[i % 8] * (i == 8 ? 1.5 : 1.0), 320 + static_cast<uint64_t>(i)));
  CompareOptions ol;
  for (const auto& e : loaded) ol.history.push_back(&e);
  const auto cl = compare_runs(cmd(0.125, 310), cmd(0.125 * 1.15, 311), ol);
  EXPECT_EQ(cl.cases[0].verdict, "regression");
  EXPECT_NEAR(cl.cases[0].run_to_run_dof, 2.0 * 14 * 14 / 40, 1e-9);  // stretches of 8, 1 and 8 runs: 7 + 0 + 7 differences
  EXPECT_EQ(cl.drift_level_shift_runs.size(), 2u);
  EXPECT_LT(cl.cases[0].run_to_run_sd_log, 0.02);
}

// Question (review of 2026-12-06): under --test welch, five constant repetitions a side (4e9
// against 3e9, a 25% slow-down) read `untestable` ("fewer than 2 repetitions", p 0, min p 0) and
// passed under --allow-unchecked. Constant samples of different values are a certain difference
// (Welch's t is infinite): they are tested by Mann-Whitney, which weighs the counts (5 a side: p
// 2 / 252; 2 a side cannot go below 1/3). Equal constants are no change.
TEST(Compare, WelchWithoutScatterOnEitherSideJudgesTheValues) {
  CompareOptions w;
  w.test = "welch";
  auto constant = [](double v, int n) { return run_with("flops_per_s", true, v, 0, n, 1); };
  const auto c = compare_runs(constant(4e9, 5), constant(3e9, 5), w);
  EXPECT_EQ(c.cases[0].verdict, "regression");
  EXPECT_EQ(c.cases[0].method, "exact");
  EXPECT_NEAR(c.cases[0].p_value, 2.0 / 252, 1e-12);
  EXPECT_NEAR(c.cases[0].min_p_value, 2.0 / 252, 1e-12);
  EXPECT_EQ(c.regression_count, 1);
  EXPECT_EQ(c.unchecked_count, 0);
  // Equal constants: no change, p 1.
  const auto e = compare_runs(constant(4e9, 5), constant(4e9, 5), w);
  EXPECT_EQ(e.cases[0].verdict, "unchanged");
  EXPECT_EQ(e.cases[0].p_value, 1);
  EXPECT_EQ(e.unchecked_count, 0);
  // Two a side cannot reach alpha: underpowered (not untestable), and 25% worse fails the gate.
  const auto two = compare_runs(constant(4e9, 2), constant(3e9, 2), w);
  EXPECT_EQ(two.cases[0].verdict, "underpowered");
  EXPECT_NEAR(two.cases[0].min_p_value, 1.0 / 3, 1e-12);
  EXPECT_EQ(two.unchecked_failure_count, 1);
  // An untestable case (one repetition) reads p 1 and min p 1 under Welch too.
  const auto one = compare_runs(constant(4e9, 1), constant(3e9, 5), w);
  EXPECT_EQ(one.cases[0].verdict, "untestable");
  EXPECT_EQ(one.cases[0].p_value, 1);
  EXPECT_EQ(one.cases[0].min_p_value, 1);
}

// Question (review of 2026-12-07): is a steady creep in the history drift? Ten `bench run`s of a
// command slowing 2% a run, then A at the next step and B 30% slower than A: the deviation of
// log(median) about the history's mean read the creep as a 6.6% drift, the t cut-off as ~40%,
// and B passed as within_run_noise (exit 0; `--history 0` and a flat history flagged it). The
// drift is taken from successive differences (von Neumann), which a trend moves by its slope /
// sqrt(2) only, with their own effective degrees of freedom.
TEST(Compare, ASteadyCreepInTheHistoryIsNoDrift) {
  sextant::RandomStream rs(2026, 1207);
  auto cmd = [&rs](double median, int64_t id) {
    RunRecord r;
    r.id = id;
    r.host.hostname = "h";
    Measurement m;
    m.suite = "command";
    m.name = "sh work.sh";
    m.metric = "wall_s";
    m.higher_is_better = false;
    const double med = median * std::exp(rs.normal(0, 0.002));
    for (int i = 0; i < 4; ++i) m.samples.push_back(med * std::exp(rs.normal(0, 0.003)));
    r.measurements.push_back(m);
    return r;
  };
  // (a) 15 earlier runs (a lone command needs 13 for the drift to count at all), creeping 2% a run.
  std::vector<RunRecord> creep;
  for (int i = 0; i < 15; ++i) creep.push_back(cmd(0.3 * std::pow(1.02, i), 10 + i));
  CompareOptions o;
  for (const auto& e : creep) o.history.push_back(&e);
  const auto a = cmd(0.3 * std::pow(1.02, 15), 30);
  for (const double slower : {1.25, 1.30}) {
    const auto c = compare_runs(a, cmd(0.3 * std::pow(1.02, 15) * slower, 31), o);
    ASSERT_EQ(c.cases.size(), 1u);
    EXPECT_EQ(c.cases[0].verdict, "regression") << slower;
    EXPECT_EQ(c.regression_count, 1) << slower;
    EXPECT_EQ(c.cases[0].history_count, 15);
    EXPECT_NEAR(c.cases[0].run_to_run_dof, 2.0 * 14 * 14 / 41, 1e-9);  // 2 (n - 1)^2 / (3 n - 4), >= kMinDriftDof
    // About 2% / sqrt(2) = 1.4% (the creep's sample deviation was 8.6%, its cut-off 50%).
    EXPECT_GT(c.cases[0].run_to_run_sd_log, 0.010);
    EXPECT_LT(c.cases[0].run_to_run_sd_log, 0.020);
    EXPECT_TRUE(c.drift_level_shift_runs.empty());  // each 2% step is below --min-effect: no level shift
  }
  // The reviewer's ten earlier runs: 6.2 effective degrees of freedom, too few to excuse anything.
  CompareOptions ten;
  for (size_t i = 5; i < creep.size(); ++i) ten.history.push_back(&creep[i]);
  const auto t = compare_runs(a, cmd(0.3 * std::pow(1.02, 15) * 1.3, 32), ten);
  EXPECT_EQ(t.cases[0].verdict, "regression");
  EXPECT_NEAR(t.cases[0].run_to_run_dof, 2.0 * 9 * 9 / 26, 1e-9);
  EXPECT_LT(t.cases[0].run_to_run_sd_log, 0.020);
  // One more step of the creep is below --min-effect, and an identical B passes.
  const auto next = compare_runs(a, cmd(0.3 * std::pow(1.02, 16), 33), o);
  EXPECT_EQ(next.regression_count + next.unchecked_failure_count, 0);
  const auto same = compare_runs(a, cmd(0.3 * std::pow(1.02, 15), 34), o);
  EXPECT_EQ(same.regression_count + same.unchecked_failure_count, 0);
  // (b) 17 GEMM cases over ten runs losing 2% a run, B 25% below A: each case is a regression
  // (pooled over the cases the creep's sample deviation was 5.7%, a cut-off of 26%).
  std::vector<RunRecord> gemm;
  for (int i = 0; i < 10; ++i) gemm.push_back(gemm_run(rs, std::pow(0.98, i), 50 + i));
  CompareOptions og;
  for (const auto& e : gemm) og.history.push_back(&e);
  const auto ag = gemm_run(rs, std::pow(0.98, 10), 60);
  const auto g = compare_runs(ag, gemm_run(rs, std::pow(0.98, 10) / 1.25, 61), og);
  EXPECT_EQ(g.regression_count, 17);
  for (const auto& cc : g.cases) EXPECT_LT(cc.run_to_run_sd_log, 0.025) << cc.name;
  EXPECT_TRUE(g.drift_level_shift_runs.empty());
  const auto gs = compare_runs(ag, gemm_run(rs, std::pow(0.98, 10), 62), og);
  EXPECT_EQ(gs.regression_count + gs.unchecked_failure_count, 0);
}
