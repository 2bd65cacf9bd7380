// Questions: are the summaries and the two-sample tests that decide regressions right?
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "bench/stats.hpp"
#include "core/error.hpp"
#include "core/random.hpp"

using namespace sextant::bench;

TEST(Summary, MedianQuartilesAndMadOfASmallSample) {
  const Summary s = summarize({4, 1, 100, 3, 2});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.iqr, 2);   // type-7 quartiles 2 and 4
  EXPECT_DOUBLE_EQ(s.mad, 1);   // deviations 2,1,0,1,97
  EXPECT_DOUBLE_EQ(s.mean, 22);
  EXPECT_NEAR(s.stddev, std::sqrt((18 * 18 + 21 * 21 + 19 * 19 + 20 * 20 + 78 * 78) / 4.0), 1e-12);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_THROW(summarize({}), sextant::Error);
  EXPECT_DOUBLE_EQ(s.spread_fraction, 2.0 / 3.0);
  // Around a median of 0 a scatter is unbounded relative to it (it read 0: not noisy), and no
  // scatter is 0.
  EXPECT_TRUE(std::isinf(summarize({0, 0, 0, 0.002, 0.003}).spread_fraction));
  EXPECT_DOUBLE_EQ(summarize({0, 0, 0}).spread_fraction, 0.0);
}

TEST(MannWhitney, CompletelySeparatedSamplesHaveTheSmallestExactP) {
  // U = 0 for 5 vs 5: only 2 of the C(10,5) = 252 arrangements are as extreme.
  const MannWhitney r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_EQ(r.method, "exact");
  EXPECT_DOUBLE_EQ(r.u_a, 0);
  EXPECT_NEAR(r.p_two_sided, 2.0 / 252, 1e-12);
}

// Brute force: enumerate every assignment of ranks 1..n to sample a and count how many give a
// U at least as far from n1*n2/2 as observed.
static double brute_force_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  const int n = static_cast<int>(all.size()), n1 = static_cast<int>(a.size());
  auto u_of = [&](unsigned mask) {
    double u = 0;
    for (int i = 0; i < n; ++i)
      if (mask >> i & 1)
        for (int j = 0; j < n; ++j)
          if (!(mask >> j & 1)) u += all[i] > all[j] ? 1.0 : all[i] == all[j] ? 0.5 : 0.0;  // ties: midranks
    return u;
  };
  unsigned observed = (1u << n1) - 1;
  const double mean = n1 * (n - n1) / 2.0, dev = std::fabs(u_of(observed) - mean);
  double hit = 0, total = 0;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) != n1) continue;
    total += 1;
    if (std::fabs(u_of(mask) - mean) >= dev - 1e-9) hit += 1;
  }
  return hit / total;
}

TEST(MannWhitney, ExactPMatchesBruteForceEnumeration) {
  sextant::RandomStream rs(3, 1);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> a, b;
    for (int i = 0; i < 4; ++i) a.push_back(rs.uniform() + 0.1 * trial);
    for (int i = 0; i < 6; ++i) b.push_back(rs.uniform());
    const MannWhitney r = mann_whitney_u(a, b);
    ASSERT_EQ(r.method, "exact");
    EXPECT_NEAR(r.p_two_sided, brute_force_p(a, b), 1e-12) << "trial " << trial;
  }
}

TEST(MannWhitney, TextbookExampleExactAndNormal) {
  // scipy.stats.mannwhitneyu documentation example: U = 17, exact p = 1/9, asymptotic (with
  // continuity correction) p = 0.11134688653314041.
  const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  const MannWhitney exact = mann_whitney_u(males, females);
  EXPECT_EQ(exact.method, "exact");
  EXPECT_DOUBLE_EQ(exact.u_a, 17);
  EXPECT_NEAR(exact.p_two_sided, 1.0 / 9, 1e-12);
  // z = (|17 - 10| - 0.5) / sqrt(5*4*10/12).
  EXPECT_NEAR(2 * normal_sf(6.5 / std::sqrt(5 * 4 * 10 / 12.0)), 0.11134688653314041, 1e-12);
}

TEST(MannWhitney, TiesUseMidranksAndTheExactPermutationDistribution) {
  // Pooled ranks: 1 | 2 2 2 -> 3 | 3 3 3 -> 6 | 8. R_a = 1 + 3 + 3 + 6 = 13, U_a = 13 - 10 = 3.
  // Small samples with ties: the exact permutation distribution of the midrank sum (the normal
  // approximation with the tie-corrected variance gave 0.172 here), as brute force counts it.
  const MannWhitney r = mann_whitney_u({1, 2, 2, 3}, {2, 3, 3, 4});
  EXPECT_EQ(r.method, "exact");
  EXPECT_DOUBLE_EQ(r.u_a, 3);
  EXPECT_NEAR(r.p_two_sided, brute_force_p({1, 2, 2, 3}, {2, 3, 3, 4}), 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_u({5, 5, 5}, {5, 5}).p_two_sided, 1);  // all tied: no evidence
  // Three constant repetitions against three other constant ones (an integer metric such as RSS):
  // the most extreme split of 6 into 3 + 3, p = 2 / C(6, 3) = 0.1, never below alpha 0.05 (the
  // normal approximation said 0.047).
  EXPECT_NEAR(mann_whitney_u({5632000, 5632000, 5632000}, {5947392, 5947392, 5947392}).p_two_sided, 0.1, 1e-12);
  sextant::RandomStream rs(7, 3);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> a, b;
    for (int i = 0; i < 5; ++i) a.push_back(std::floor(rs.uniform() * 4));  // few values: many ties
    for (int i = 0; i < 6; ++i) b.push_back(std::floor(rs.uniform() * 4 + 0.3 * trial));
    const MannWhitney t = mann_whitney_u(a, b);
    ASSERT_EQ(t.method, "exact");
    EXPECT_NEAR(t.p_two_sided, brute_force_p(a, b), 1e-12) << "trial " << trial;
  }
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  // 60 vs 60 (n1 n2 > 2500): U counted pair by pair against the rank-sum result.
  sextant::RandomStream rs(5, 2);
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) a.push_back(rs.normal(0.3, 1));
  for (int i = 0; i < 60; ++i) b.push_back(rs.normal(0, 1));
  double u = 0;
  for (double x : a)
    for (double y : b) u += x > y ? 1 : 0;
  const MannWhitney r = mann_whitney_u(a, b);
  EXPECT_EQ(r.method, "normal");
  EXPECT_DOUBLE_EQ(r.u_a, u);
  const double z = (std::fabs(u - 1800) - 0.5) / std::sqrt(3600 * 121 / 12.0);
  EXPECT_NEAR(r.p_two_sided, 2 * normal_sf(z), 1e-12);
}

TEST(Welch, ClosedFormTStatisticAndStudentTail) {
  // Means 3 and 5, variances 2.5 each, n = 5: t = -2, dof = 8, two-sided p = 0.0805.
  const Welch w = welch_t_test({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7});
  EXPECT_NEAR(w.t, -2, 1e-12);
  EXPECT_NEAR(w.dof, 8, 1e-12);
  EXPECT_NEAR(w.p_two_sided, 0.08051623795726, 1e-6);
  // Critical values from tables: t_{0.975, 10} = 2.228139, z_{0.975} = 1.959964.
  EXPECT_NEAR(student_t_two_sided(2.228138852, 10), 0.05, 1e-7);
  EXPECT_NEAR(normal_sf(1.959963985), 0.025, 1e-9);
}

#include "bench/timing.hpp"

// The timing driver runs on a simulated clock here: the body advances it by exact durations, so
// these tests check the sizing and warm-up logic, not the load of the machine running them (they
// had busy-waited on the steady clock and failed under heavy external load).
struct SimClock {
  double t_s = 0;
  Clock clock() { return [this] { return t_s; }; }
};

TEST(Timing, InnerLoopIsSizedOnWarmCallsNotTheColdFirstOne) {
  // A body whose first call is slow (lazy initialisation: 30 ms) and the others 20 us: sizing
  // from the first call made repetitions far shorter than min_rep_s. Every timed repetition must
  // last at least min_rep_s, with --warmup 0 too.
  for (int warmup : {0, 1}) {
    SimClock sim;
    int calls = 0;
    auto body = [&] { sim.t_s += calls++ == 0 ? 30e-3 : 20e-6; };
    const double min_rep_s = 0.01;
    const Timed t = time_repeated(body, warmup, 3, min_rep_s, 1 << 20, sim.clock());
    // 10 ms / 20 us = 500 calls at least; sized on the cold call it would be 1.
    EXPECT_GE(t.inner_count, 500) << warmup;
    EXPECT_LE(t.inner_count, 5000) << warmup;  // grown at most 10x past the need
    ASSERT_EQ(t.rep_s.size(), 3u);
    for (double r : t.rep_s) {
      EXPECT_GE(r, min_rep_s) << warmup;
      EXPECT_NEAR(r, static_cast<double>(t.inner_count) * 20e-6, 1e-9) << warmup;
    }
  }
}

TEST(Timing, ASizingBatchSlowedByLoadDoesNotShortenTheRepetitions) {
  // Calls 3 to 5 are slow (the host was busy while the loop was sized): the batch that holds them
  // lasts min_rep_s with a loop 50x too short. The warm-up confirms the size and grows it (the
  // timed repetitions had lasted 0.2 ms against 10; 2026-12-06 review).
  for (int warmup : {0, 2}) {
    SimClock sim;
    int calls = 0;
    auto body = [&] {
      ++calls;
      sim.t_s += calls >= 3 && calls <= 5 ? 5e-3 : 20e-6;
    };
    const double min_rep_s = 0.01;
    const Timed t = time_repeated(body, warmup, 3, min_rep_s, 1 << 20, sim.clock());
    EXPECT_GE(t.inner_count, 500) << warmup;
    for (double r : t.rep_s) EXPECT_GE(r, min_rep_s) << warmup;
  }
}

TEST(Timing, TheLoopStopsGrowingAtMaxInner) {
  // A body too fast to fill min_rep_s within max_inner calls: the loop stops at max_inner and the
  // warm-ups do not grow it further.
  SimClock sim;
  auto body = [&] { sim.t_s += 1e-9; };
  const Timed t = time_repeated(body, 1, 2, 0.01, 4096, sim.clock());
  EXPECT_EQ(t.inner_count, 4096);
  for (double r : t.rep_s) EXPECT_NEAR(r, 4096e-9, 1e-15);
}

// Question (review of 2026-12-06): does the expected time of time_repeated, which the suites'
// expected durations add up, follow what it runs, whether a call is far shorter than min_rep_s
// or far longer? A lap of memory_latency's cycle at 512 MiB lasts seconds, and each size runs it
// at least 8 times: the estimate had counted min_rep_s a repetition ("about 8 s" for 125 s). A
// short call's repetition lasts from min_rep_s to twice that, by where the sizing's growth lands:
// within a factor of 2 then; a call longer than min_rep_s, every call counted.
TEST(Timing, TheExpectedTimeFollowsEveryCallTheDriverMakes) {
  const double min_rep_s = 0.01;
  for (double call_s : {1.3e-7, 1.1e-4, 5e-3, 9e-3, 0.02, 2.0})
    for (int warmup : {0, 1, 3})
      for (int reps : {1, 5}) {
        SimClock sim;
        auto body = [&] { sim.t_s += call_s; };
        time_repeated(body, warmup, reps, min_rep_s, 1 << 20, sim.clock());
        const double expected = expected_time_repeated_s(call_s, warmup, reps, min_rep_s);
        const double floor = call_s > min_rep_s ? 1 - 1e-9 : 0.5;
        EXPECT_GE(expected, floor * sim.t_s) << call_s << " s a call, warmup " << warmup << ", reps " << reps;
        EXPECT_LE(expected, 2 * sim.t_s) << call_s << " s a call, warmup " << warmup << ", reps " << reps;
      }
  // A call longer than min_rep_s: cold, sizing, one warm-up and 5 repetitions of one call each.
  EXPECT_DOUBLE_EQ(expected_time_repeated_s(2.0, 1, 5, 0.05), 16.0);
}

// Question: is the Student t cut-off the one that leaves the normal's tail? Closed form for 1
// degree of freedom (Cauchy: P(|T| > c) = 1 - 2 atan(c) / pi) and published t tables.
TEST(Stats, StudentTCutoffLeavesTheNormalsTail) {
  const double tail = 2 * normal_sf(3.0);  // 0.0026998
  EXPECT_NEAR(student_t_cutoff(3.0, 1.0), std::tan(M_PI / 2 * (1 - tail)), 1e-6 * std::tan(M_PI / 2 * (1 - tail)));
  EXPECT_NEAR(student_t_cutoff(3.0, 3.0), 9.219, 2e-3);
  EXPECT_NEAR(student_t_cutoff(1.959963985, 10.0), 2.228, 1e-3);  // the 5% two-sided t(10)
  EXPECT_NEAR(student_t_cutoff(3.0, 1e9), 3.0, 1e-6);
  EXPECT_DOUBLE_EQ(student_t_cutoff(3.0, INFINITY), 3.0);
  EXPECT_THROW(student_t_cutoff(3.0, 0.0), sextant::Error);
}
