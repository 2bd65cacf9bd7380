// Closed forms against the published figures (Daly 2006; Kokolis et al. 2025) and identities.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "goodput/closed_forms.hpp"

using namespace sextant::goodput;

namespace {
constexpr double kMin = 60.0, kHour = 3600.0, kDay = 86400.0;

// Erlang-B by its recursion: B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)).
double erlang_b(int64_t spares, double a) {
  double b = 1;
  for (int64_t k = 1; k <= spares; ++k) b = a * b / (double(k) + a * b);
  return b;
}
// P(Poisson(m) = j), and P(Poisson(m) >= j).
double pois(double m, int64_t j) { return std::exp(double(j) * std::log(m) - m - std::lgamma(double(j) + 1.0)); }
double pois_tail(double m, int64_t j) {
  double below = 0;
  for (int64_t i = 0; i < j; ++i) below += pois(m, i);
  return 1.0 - below;
}
}  // namespace

// Daly 2006, Figs. 3-5: Ts = 500 h, R = 10 min, delta = 5 min; M = 24 h, 6 h, 15 min give 117, 57 and 9.1 min.
TEST(DalyHigherOrder, PublishedOptimalIntervals) {
  EXPECT_NEAR(daly_higher_order_interval_s(5 * kMin, 24 * kHour) / kMin, 117.0, 0.5);
  EXPECT_NEAR(daly_higher_order_interval_s(5 * kMin, 6 * kHour) / kMin, 57.0, 0.5);
  EXPECT_NEAR(daly_higher_order_interval_s(5 * kMin, 15 * kMin) / kMin, 9.1, 0.05);
}

TEST(DalyHigherOrder, BeyondTwiceMttfTheIntervalIsTheMttf) {
  EXPECT_DOUBLE_EQ(daly_higher_order_interval_s(3 * kHour, 1 * kHour), 1 * kHour);
}

TEST(Young, IsSqrtTwoDeltaM) {
  EXPECT_DOUBLE_EQ(young_interval_s(300, 86400), std::sqrt(2.0 * 300 * 86400));
  EXPECT_GT(daly_first_order_interval_s(300, 86400, 600), young_interval_s(300, 86400));
}

// Is the optimum of a free checkpoint 0 (the callers floor it at one step), and a negative cost
// refused? The formulas had refused 0, so each strategy raised a 0 stall to 1 ms (before 2026-12-06).
TEST(Young, AFreeCheckpointsOptimumIsZero) {
  EXPECT_EQ(young_interval_s(0, 86400), 0.0);
  EXPECT_EQ(daly_first_order_interval_s(0, 86400, 600), 0.0);
  EXPECT_EQ(daly_higher_order_interval_s(0, 86400), 0.0);
  EXPECT_EQ(lambert_w_interval_s(0, 86400), 0.0);
  EXPECT_THROW(young_interval_s(-1, 86400), sextant::Error);
  EXPECT_THROW(lambert_w_interval_s(NAN, 86400), sextant::Error);
}

TEST(LambertW, KnownValues) {
  EXPECT_NEAR(lambert_w0(-1.0 / M_E), -1.0, 1e-7);
  EXPECT_NEAR(lambert_w0(1.0), 0.5671432904097838, 1e-14);
  EXPECT_NEAR(lambert_w0(M_E), 1.0, 1e-14);
  EXPECT_NEAR(lambert_w0(-0.3), -0.4894022271802149, 1e-13);
  EXPECT_NEAR(lambert_w0(100.0), 3.385630140290050, 1e-12);
  for (double x : {-0.367, -0.2, 0.01, 0.5, 5.0, 1e6}) {
    const double w = lambert_w0(x);
    EXPECT_NEAR(w * std::exp(w), x, 1e-12 * std::max(1.0, std::fabs(x))) << x;
  }
  EXPECT_THROW(lambert_w0(-0.5), sextant::Error);
}

// The Lambert-W interval minimises Daly's wall-clock model; the higher-order series approaches it.
TEST(LambertWInterval, MinimisesDalyWallClock) {
  for (double M : {15 * kMin, 6 * kHour, 24 * kHour}) {
    const double delta = 5 * kMin, R = 10 * kMin, Ts = 500 * kHour;
    const double tau = lambert_w_interval_s(delta, M);
    const double w0 = daly_expected_wall_s(Ts, tau, delta, R, M);
    for (double f : {0.9, 0.99, 1.01, 1.1}) EXPECT_LT(w0, daly_expected_wall_s(Ts, tau * f, delta, R, M)) << M << " " << f;
    // Daly's perturbation series is within 1% of the exact optimum for delta << M.
    if (M >= 6 * kHour) {
      EXPECT_NEAR(daly_higher_order_interval_s(delta, M) / tau, 1.0, 0.01);
    }
  }
}

// Near the branch point (delta << M) the exact optimum is Young's sqrt(2 delta M) to first order:
// computed as 1 + W0(-e^-(x+1)) it rounded away x below ~1e-12 (1.2% high at delta/M = 1e-11
// before 2026-12-03); the branch-point series keeps it.
TEST(LambertWInterval, KeepsItsDigitsAtVeryLowFailureRates) {
  for (double M : {1e10, 1e13, 1e15}) {
    const double delta = 300;
    const double x = delta / M, young = std::sqrt(2 * delta * M);
    // Daly's first correction: T = sqrt(2 delta M) (1 + sqrt(x/2)/3 + ...) - delta.
    const double expect = young * (1 + std::sqrt(x / 2) / 3 + x / 18) - delta;
    EXPECT_NEAR(lambert_w_interval_s(delta, M) / expect, 1.0, 1e-6) << M;
  }
}

// Kokolis et al.: 6.50 failures per 1000 node-days, 8 GPUs per node.
TEST(MetaProjection, MttfAtScale) {
  const double r = 6.50 / 1000.0 / kDay;
  EXPECT_NEAR(mttf_s(r, 16384 / 8) / kHour, 1.8, 0.05);
  EXPECT_NEAR(mttf_s(r, 131072 / 8) / kHour, 0.23, 0.005);
}

// Kokolis et al.: expected ETTR at 12,000 GPUs, u0 = 5 min, Young's interval.
TEST(MetaProjection, ExpectedEttr) {
  const double nodes = 12000 / 8;
  auto ettr = [&](double per_1000_node_days, double write_s) {
    const double rate = nodes * per_1000_node_days / 1000.0 / kDay;
    const double tau = young_interval_s(write_s, 1.0 / rate);
    return meta_expected_ettr(rate, 5 * kMin, tau, write_s);
  };
  EXPECT_NEAR(ettr(6.50, 5 * kMin), 0.740, 0.0015);
  EXPECT_NEAR(ettr(6.50, 10), 0.921, 0.0015);
  EXPECT_NEAR(ettr(1.0, 5 * kMin), 0.898, 0.0015);
}

TEST(MultiLevel, OptimumIsSqrtTwoDeltaOverLambdaAndMinimisesOverhead) {
  std::vector<LevelModel> lv = {{10, 60, 1.0 / 7200}, {300, 600, 1.0 / 86400}};
  const auto opt = multilevel_first_order(lv);
  EXPECT_NEAR(opt.interval_s[0], std::sqrt(2 * 10 * 7200.0), 1e-9);
  EXPECT_NEAR(opt.interval_s[1], std::sqrt(2 * 300 * 86400.0), 1e-9);
  for (double f : {0.8, 1.25}) {
    auto t = opt.interval_s;
    t[0] *= f;
    EXPECT_GT(multilevel_overhead_fraction(lv, t), opt.overhead_fraction);
    t = opt.interval_s;
    t[1] *= f;
    EXPECT_GT(multilevel_overhead_fraction(lv, t), opt.overhead_fraction);
  }
}

// A level persisted in the background costs no stall but cannot be saved faster than it persists;
// a level no failure falls back to is never needed (it read NaN, printed as ETTR 0, before
// 2026-12-02).
TEST(MultiLevel, BackgroundLevelsCostNoStallAndUnusedLevelsNoOverhead) {
  const double lam = 1.0 / 7200;
  std::vector<LevelModel> lv = {{10, 60, lam, 0}, {0, 600, 0, 1800}};
  auto opt = multilevel_first_order(lv);
  EXPECT_NEAR(opt.interval_s[0], std::sqrt(2 * 10 * 7200.0), 1e-9);
  EXPECT_TRUE(std::isinf(opt.interval_s[1]));
  const double first = 10 / opt.interval_s[0] + lam * (opt.interval_s[0] / 2 + 60);
  EXPECT_NEAR(opt.overhead_fraction, first, 1e-12);
  EXPECT_NEAR(opt.ettr, 1 - first, 1e-12);
  // Failures falling back to the background level: saved as often as it persists.
  lv[1].failure_rate_per_s = lam / 10;
  opt = multilevel_first_order(lv);
  EXPECT_EQ(opt.interval_s[1], 1800.0);
  EXPECT_NEAR(opt.overhead_fraction, first + lam / 10 * (1800 / 2.0 + 600), 1e-12);
  // A failure-free bottom level rides along with the level above it (its infinite period spread
  // upward and gave ETTR 0 before the session-21 review).
  const std::vector<LevelModel> up = {{10, 60, 0, 0}, {0, 600, lam, 1800}};
  opt = multilevel_first_order(up);
  EXPECT_EQ(opt.interval_s[0], 1800.0);
  EXPECT_EQ(opt.interval_s[1], 1800.0);
  EXPECT_NEAR(opt.overhead_fraction, 10 / 1800.0 + lam * (1800 / 2.0 + 600), 1e-12);
}

// Question: how many nodes are in repair at P99 when failures take one node or a whole domain?
// The occupancy of an M/G/infinity queue per class: nodes x Poisson(rate x repair time).
TEST(Spares, NodesInRepairArePoissonPerFailureClass) {
  // One node per failure, mean 2.5 in repair: the Poisson(2.5) P99 is 7 (cdf 0.9858 at 6, 0.9958 at 7).
  EXPECT_EQ(nodes_lost_quantile({{2.5, 1}}, 0.99), 7);
  // A 128-node domain failing 0.6 times per repair window: P(N <= 2) = 0.9769, P(N <= 3) = 0.9966.
  EXPECT_EQ(nodes_lost_quantile({{0.6, 128}}, 0.99), 3 * 128);
  EXPECT_EQ(nodes_lost_quantile({}, 0.99), 0);
  // Means of millions (a repair of 1e6 days had convolved tables of that many terms for hours,
  // 2026-12-06 review): exact for one class, the normal sum for several, both at once; a mean
  // beyond counting is an error.
  const double z99 = 2.3263478740408408;
  EXPECT_NEAR(double(nodes_lost_quantile({{3e6, 1}}, 0.99)), 3e6 + z99 * std::sqrt(3e6), 3.0);
  const int64_t three = nodes_lost_quantile({{1e6, 1}, {1e6, 2}, {1e5, 8}}, 0.99);
  EXPECT_EQ(three, static_cast<int64_t>(std::ceil(1e6 + 2e6 + 8e5 + z99 * std::sqrt(1e6 + 4e6 + 64e5))));
  // Few events of large domains spread few entries over a long table: exact (the normal sum had
  // read 13% low for four classes of 10,000-node domains; review of 2026-12-06): 10,000 x
  // Poisson(4 x 0.30518), P(<= 3) = 0.9644, P(<= 4) = 0.9917, so 40,000 (the normal sum: 37,910).
  EXPECT_EQ(nodes_lost_quantile({{0.30517578125, 10000}, {0.30517578125, 10000}, {0.30517578125, 10000}, {0.30517578125, 10000}}, 0.99),
            40000);
  EXPECT_THROW(nodes_lost_quantile({{INFINITY, 1}}, 0.99), sextant::Error);
  EXPECT_THROW(nodes_lost_quantile({{1e300, 1}}, 0.99), sextant::Error);
  // Two classes: their sum, against a direct double sum of the joint pmf.
  const double a = 1.2, b = 0.3;
  const int64_t k = nodes_lost_quantile({{a, 1}, {b, 4}}, 0.99);
  auto cdf = [&](int64_t kk) {
    double s = 0;
    for (int i = 0; i <= kk; ++i)
      for (int j = 0; i + 4 * j <= kk; ++j) s += pois(a, i) * pois(b, j);
    return s;
  };
  EXPECT_GE(cdf(k), 0.99);
  EXPECT_LT(cdf(k - 1), 0.99);
}

// Question (review of 2026-12-06): what share of node losses finds the spare pool short? The pool
// is a multi-rate Erlang loss system: single-node losses requeue with Erlang-B B(spares, a), and
// classes of several sizes follow the Kaufman-Roberts occupancy (the compound Poisson sum of the
// classes, truncated at the pool).
TEST(Spares, SparePoolRequeueShareIsTheMultiRateErlangLoss) {
  for (const int64_t spares : {1, 4, 16, 32})
    EXPECT_NEAR(spare_pool_requeue_share({{19.4, 1}}, spares)[0], erlang_b(spares, 19.4), 1e-12) << spares;
  // An event larger than the pool always requeues; no load, none does; a pool far beyond the load never.
  EXPECT_EQ(spare_pool_requeue_share({{2.0, 1}, {0.1, 8}}, 4)[1], 1.0);
  EXPECT_EQ(spare_pool_requeue_share({{0.0, 1}}, 4)[0], 0.0);
  EXPECT_EQ(spare_pool_requeue_share({{2.0, 1}}, 100000)[0], 0.0);
  // Two classes (1 and 4 nodes) against the product form summed directly: P(i + 4 j in (S - n, S]) / P(i + 4 j <= S).
  const double a = 3.0, b = 0.5;
  const int64_t S = 12;
  const auto share = spare_pool_requeue_share({{a, 1}, {b, 4}}, S);
  for (const int64_t n : {int64_t{1}, int64_t{4}}) {
    double all = 0, blocked = 0;
    for (int64_t i = 0; i <= S; ++i)
      for (int64_t j = 0; i + 4 * j <= S; ++j) {
        all += pois(a, i) * pois(b, j);
        if (i + 4 * j > S - n) blocked += pois(a, i) * pois(b, j);
      }
    EXPECT_NEAR(share[n == 1 ? 0 : 1], blocked / all, 1e-12) << n;
  }
  // A pool far below the load: almost always short, 1 - S / a.
  EXPECT_NEAR(spare_pool_requeue_share({{1e9, 1}}, 10)[0], 1.0, 1e-6);
}

// Question (review of 2026-12-06): what share of its losses requeues for a job that starts with a
// full pool? Until a repair time has passed no node is back: a single-node loss at time u (in
// repair times) requeues when the Poisson(a u) losses before it have taken the S spares, and
// the job's share is the time average of that over its wall time, then of Erlang-B. The steady
// state alone had charged a 3-day job with 30-day repairs 82% of its losses as requeues where it
// loses 18 nodes against 32 spares (Daly 0.613, simulated 0.922).
TEST(Spares, AJobStartsWithAFullPool) {
  // One size: int_0^1 P(Poisson(A u) >= S) du = P(N >= S) - (S / A) P(N >= S + 1), N ~ Poisson(A).
  auto ramp = [](int64_t S, double A) { return pois_tail(A, S) - double(S) / A * pois_tail(A, S + 1); };
  const double a = 19.4;
  for (const double x : {0.1, 0.5, 1.0, 2.0, 30.0})
    for (const int64_t S : {1, 4, 32}) {
      const double expect = x <= 1 ? ramp(S, a * x) : (ramp(S, a) + (x - 1) * erlang_b(S, a)) / x;
      EXPECT_NEAR(spare_pool_requeue_share({{a, 1}}, S, x)[0], expect, 1e-12) << S << " spares, " << x << " repair times";
    }
  EXPECT_LT(spare_pool_requeue_share({{180.0, 1}}, 32, 0.1)[0], 1e-3);
  EXPECT_NEAR(spare_pool_requeue_share({{180.0, 1}}, 32)[0], 0.823, 1e-3);
  // Two sizes (1 and 4 nodes): the time average of P(i + 4 j > S - n), i ~ Poisson(x a u), j ~
  // Poisson(x b u), by Simpson's rule over u, beside the steady state's product form after u = 1.
  const double b = 0.5;
  const int64_t S = 12;
  auto tail = [&](double la, double lb, int64_t n) {
    double p = 0;
    for (int64_t i = 0; i <= S; ++i)
      for (int64_t j = 0; i + 4 * j <= S - n; ++j) p += pois(la, i) * pois(lb, j);
    return 1 - p;
  };
  auto time_average = [&](double x, int64_t n) {
    const int steps = 2000;
    double sum = 0;
    for (int i = 0; i <= steps; ++i) {
      const double u = double(i) / steps, w = (i == 0 || i == steps) ? 1 : (i % 2 ? 4 : 2);
      sum += w * (u > 0 ? tail(3.0 * x * u, b * x * u, n) : 0.0);
    }
    return sum / (3.0 * steps);
  };
  for (const double x : {0.5, 3.0}) {
    const auto share = spare_pool_requeue_share({{3.0, 1}, {b, 4}}, S, x);
    const auto steady = spare_pool_requeue_share({{3.0, 1}, {b, 4}}, S);
    for (const int64_t n : {int64_t{1}, int64_t{4}}) {
      const size_t k = n == 1 ? 0 : 1;
      const double expect = x <= 1 ? time_average(x, n) : (time_average(1.0, n) + (x - 1) * steady[k]) / x;
      EXPECT_NEAR(share[k], expect, 1e-9) << n << " nodes, " << x << " repair times";
    }
  }
}

// Question (review of 2026-12-06): does the share hold for pools of millions? The recursion keeps
// the largest event's size of terms, rescaled as they grow (it held all S + 1 and rescaled them
// all each time: 3.2 s at 3e6 spares, killed past 300 s and 780 MB at 9.9e7); beyond 1e8 terms
// the saddlepoint at the pool's size replaces the normal approximation, which read 1 beyond 38
// standard deviations (B(1e8, 1.004e8) = 0.004) and for a load 5,000 times the pool.
TEST(Spares, APoolOfMillionsKeepsItsShare) {
  // Exact at 9.9e7 (Erlang-B's recursion: 8.018612874e-05, 1.2 s), and the saddlepoint there
  // (exact_work_limit 0); beyond 1e8 terms the saddlepoint (the recursion: 0.00398655067).
  const double exact = spare_pool_requeue_share({{9.9e7, 1}}, 99000000)[0];
  EXPECT_NEAR(exact / 8.018612874e-05, 1.0, 1e-6);
  EXPECT_NEAR(spare_pool_requeue_share({{9.9e7, 1}}, 99000000, INFINITY, 0)[0] / exact, 1.0, 1e-4);
  EXPECT_NEAR(spare_pool_requeue_share({{1.004e8, 1}}, 100000000)[0] / 0.00398655067, 1.0, 1e-4);
  EXPECT_NEAR(spare_pool_requeue_share({{1e12, 1}}, 200000000)[0], 1 - 2e8 / 1e12, 1e-6);
  // The saddlepoint against the recursion at a thousand spares: one size, and 1 + 4 nodes.
  for (const double a : {900.0, 1000.0, 1100.0, 1500.0, 3000.0})
    EXPECT_NEAR(spare_pool_requeue_share({{a, 1}}, 1000, INFINITY, 0)[0], erlang_b(1000, a), 0.01 * erlang_b(1000, a)) << a;
  const auto mixed = spare_pool_requeue_share({{800.0, 1}, {50.0, 4}}, 1000);
  const auto mixed_saddle = spare_pool_requeue_share({{800.0, 1}, {50.0, 4}}, 1000, INFINITY, 0);
  for (size_t k = 0; k < 2; ++k) EXPECT_NEAR(mixed_saddle[k], mixed[k], 0.02 * mixed[k]) << k;
  // The ramp of a job shorter or longer than a repair, by the normal approximation.
  for (const double x : {0.5, 1.2, 3.0})
    EXPECT_NEAR(spare_pool_requeue_share({{1500.0, 1}}, 1000, x, 0)[0], spare_pool_requeue_share({{1500.0, 1}}, 1000, x)[0], 0.01) << x;
  // Errors: a negative pool, a wall time of 0, a load not finite.
  EXPECT_THROW(spare_pool_requeue_share({{1.0, 1}}, -1), sextant::Error);
  EXPECT_THROW(spare_pool_requeue_share({{1.0, 1}}, 4, 0.0), sextant::Error);
  EXPECT_THROW(spare_pool_requeue_share({{INFINITY, 1}}, 4), sextant::Error);
}
