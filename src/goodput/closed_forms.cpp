#include "goodput/closed_forms.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/result.hpp"

namespace sextant::goodput {

namespace {
// P(a, x) by its series (x < a + 1) or Q(a, x) by the continued fraction (x >= a + 1); `is_p`
// says which one was computed. (Moved from fit.cpp on 2026-12-06, review: the budget needs Q.)
double incomplete_gamma(double a, double x, bool& is_p) {
  const double lg = std::lgamma(a);
  if (x < a + 1) {
    is_p = true;
    double sum = 1 / a, term = sum;
    for (int n = 1; n < 1000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * 1e-15) break;
    }
    return sum * std::exp(-x + a * std::log(x) - lg);
  }
  // Lentz's continued fraction for Q(a, x).
  is_p = false;
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-15) break;
  }
  return std::exp(-x + a * std::log(x) - lg) * h;
}
}  // namespace

double regularized_gamma_p(double a, double x) {
  if (x <= 0) return 0;
  if (std::isinf(x)) return 1;
  bool is_p = false;
  const double v = incomplete_gamma(a, x, is_p);
  return is_p ? v : 1 - v;
}

double regularized_gamma_q(double a, double x) {
  if (x <= 0) return 1;
  if (std::isinf(x)) return 0;
  bool is_p = false;
  const double v = incomplete_gamma(a, x, is_p);
  return is_p ? 1 - v : v;
}

double lambert_w0(double x) {
  const double branch = -1.0 / M_E;
  if (!(x >= branch - 1e-15)) throw Error("lambert_w0: argument " + format_double(x) + " is below -1/e");
  if (x <= branch) return -1.0;
  if (x == 0) return 0;
  double w;
  if (x < -0.25) {
    // Series at the branch point in p = sqrt(2 (e x + 1)).
    const double p = std::sqrt(2.0 * (M_E * x + 1.0));
    w = -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p;
  } else if (x < 3) {
    w = std::log1p(x) * (1 - std::log1p(std::log1p(x)) / (2 + std::log1p(x)));
  } else {
    const double l1 = std::log(x), l2 = std::log(l1);
    w = l1 - l2 + l2 / l1;
  }
  for (int i = 0; i < 50; ++i) {  // Halley's iteration
    const double ew = std::exp(w);
    const double f = w * ew - x;
    const double wp1 = w + 1.0;
    if (std::fabs(wp1) < 1e-300) break;
    const double denom = ew * wp1 - (w + 2.0) * f / (2.0 * wp1);
    const double dw = f / denom;
    w -= dw;
    if (std::fabs(dw) <= 1e-15 * (1.0 + std::fabs(w))) break;
  }
  return w;
}

namespace {
void check_positive(double v, const char* what) {
  if (!(v > 0) || !std::isfinite(v)) throw Error(std::string(what) + " must be a positive number, got " + format_double(v));
}
// A checkpoint may cost nothing (write_s: 0): its optimal interval is then 0, which the callers
// floor at one step (CheckpointSchedule::min_interval_s). It had to be positive, and each
// strategy raised a 0 stall to 1 ms to get past this (before 2026-12-06 review).
void check_cost(double v) {
  if (!(v >= 0) || !std::isfinite(v)) throw Error("checkpoint time must be a number >= 0, got " + format_double(v));
}
}  // namespace

double young_interval_s(double checkpoint_s, double mttf) {
  check_cost(checkpoint_s);
  check_positive(mttf, "MTTF");
  return std::sqrt(2.0 * checkpoint_s * mttf);
}

double daly_first_order_interval_s(double checkpoint_s, double mttf, double restart_s) {
  check_cost(checkpoint_s);
  check_positive(mttf, "MTTF");
  return std::sqrt(2.0 * checkpoint_s * (mttf + std::max(0.0, restart_s)));
}

double daly_higher_order_interval_s(double checkpoint_s, double mttf) {
  check_cost(checkpoint_s);
  check_positive(mttf, "MTTF");
  if (checkpoint_s >= 2.0 * mttf) return mttf;
  const double xi = checkpoint_s / (2.0 * mttf);
  return std::sqrt(2.0 * checkpoint_s * mttf) * (1.0 + std::sqrt(xi) / 3.0 + xi / 9.0) - checkpoint_s;
}

double lambert_w_interval_s(double checkpoint_s, double mttf) {
  check_cost(checkpoint_s);
  check_positive(mttf, "MTTF");
  // Near the branch point (delta << M) 1 + W0(-e^-(x+1)) cancels: with p = sqrt(2 (1 - e^-x)) the
  // branch-point series 1 + W0 = p - p^2/3 + 11 p^3/72 - 43 p^4/540 keeps the digits (x below
  // ~1e-12 had rounded away, 1.2% high at rate_scale 1e-10; Corless et al. 1996, eq. 4.22).
  const double pb = std::sqrt(-2.0 * std::expm1(-checkpoint_s / mttf));
  if (pb < 1e-3) return mttf * (pb - pb * pb / 3.0 + 11.0 * pb * pb * pb / 72.0 - 43.0 * pb * pb * pb * pb / 540.0);
  return mttf * (1.0 + lambert_w0(-std::exp(-(checkpoint_s / mttf + 1.0))));
}

double daly_expected_wall_s(double solve_s, double interval_s, double checkpoint_s, double restart_s, double mttf) {
  check_positive(interval_s, "checkpoint interval");
  check_positive(mttf, "MTTF");
  return mttf * std::exp(restart_s / mttf) * std::expm1((interval_s + checkpoint_s) / mttf) * solve_s / interval_s;
}

double meta_expected_ettr(double failure_rate_per_s, double restart_s, double interval_s, double checkpoint_s) {
  check_positive(interval_s, "checkpoint interval");
  const double num = 1.0 - failure_rate_per_s * (restart_s + interval_s / 2.0);
  return std::max(0.0, num / (1.0 + checkpoint_s / interval_s));
}

double mttf_s(double rate_per_node_s, double nodes) {
  check_positive(rate_per_node_s, "failure rate");
  check_positive(nodes, "node count");
  return 1.0 / (rate_per_node_s * nodes);
}

double multilevel_overhead_fraction(const std::vector<LevelModel>& levels, const std::vector<double>& interval_s) {
  double o = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto& l = levels[i];
    if (l.checkpoint_s > 0) o += l.checkpoint_s / interval_s[i];  // 0 when the level is never saved (infinite period)
    if (l.failure_rate_per_s > 0) o += l.failure_rate_per_s * (interval_s[i] / 2.0 + l.restore_s);
  }
  return o;
}

MultiLevelOptimum multilevel_first_order(const std::vector<LevelModel>& levels) {
  if (levels.empty()) throw Error("multi-level model: no levels");
  MultiLevelOptimum r;
  // Levels that absorb failures, bottom up: sqrt(2 delta / lambda), never more often than the
  // level below nor than it persists. A failure-free level rides along with the next higher
  // level that has failures (saved whenever it is); with none above it, it is never needed.
  // (An infinite period on a failure-free bottom level used to propagate upward: ETTR 0.)
  const size_t n = levels.size();
  r.interval_s.assign(n, INFINITY);
  double prev = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& l = levels[i];
    if (!(l.checkpoint_s >= 0) || !std::isfinite(l.checkpoint_s)) throw Error("multi-level model: a level checkpoint time must be >= 0 and finite");
    if (!(l.failure_rate_per_s > 0)) {
      prev = std::max(prev, l.min_interval_s);  // a failing level above is saved no faster than this one persists
      continue;
    }
    r.interval_s[i] = std::max({std::sqrt(2.0 * l.checkpoint_s / l.failure_rate_per_s), prev, l.min_interval_s});
    prev = r.interval_s[i];
  }
  double next = INFINITY;
  for (size_t i = n; i-- > 0;) {
    if (levels[i].failure_rate_per_s > 0) next = r.interval_s[i];
    else if (std::isfinite(next)) r.interval_s[i] = std::max(next, levels[i].min_interval_s);
  }
  r.overhead_fraction = multilevel_overhead_fraction(levels, r.interval_s);
  r.ettr = std::max(0.0, 1.0 - r.overhead_fraction);
  return r;
}

int64_t nodes_lost_quantile(const std::vector<LossGroup>& groups, double quantile) {
  if (!(quantile > 0 && quantile < 1)) throw Error("nodes_lost_quantile: need 0 < quantile < 1");
  // The convolution's work: each group's terms times the nonzero entries so far, at most the
  // table's length and at most the product of the earlier groups' term counts (a domain class
  // of 10,000 nodes per event spreads few entries over a long table).
  double mean = 0, var = 0, work = 0, length = 1, nonzero = 1;
  for (const LossGroup& g : groups) {
    if (!(g.mean_events >= 0) || g.nodes_per_event < 1)
      throw Error("nodes_lost_quantile: need a mean >= 0 and nodes_per_event >= 1");
    if (g.mean_events == 0) continue;
    const double n = double(g.nodes_per_event);
    mean += n * g.mean_events;
    var += n * n * g.mean_events;
    const double terms = g.mean_events + 8.0 * std::sqrt(g.mean_events) + 40.0;
    work += std::min(length, nonzero) * terms;
    length += (terms - 1) * n;
    nonzero = std::min(length, nonzero * terms);
  }
  if (!(mean <= 1e15))
    throw Error(SourceLocation{}, "the mean number of nodes in repair at once, " + format_double(mean) + ", is beyond counting",
                "the repair time or a failure rate is far beyond real clusters (repair_days is in days)");
  // Where the exact convolution would take more than 1e8 multiply-adds (several classes of
  // thousands in repair: a repair of 1e6 days had convolved tables of millions of terms for hours,
  // 2026-12-06 review), the classes' means are in the thousands and their sum is normal to within
  // a few nodes: mean + z sd, z the quantile of the standard normal.
  if (work > 1e8) {
    double lo = -10, hi = 10;  // z with P(Z <= z) = quantile, by bisection on erfc
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (0.5 * std::erfc(-mid / std::sqrt(2.0)) < quantile ? lo : hi) = mid;
    }
    return static_cast<int64_t>(std::ceil(mean + 0.5 * (lo + hi) * std::sqrt(var)));
  }
  // The pmf of the nodes in repair, convolved group by group. Each group's Poisson is cut where
  // its upper tail is below 1e-15 (mean + about 8 standard deviations + 40 terms).
  std::vector<double> pmf = {1.0};
  for (const LossGroup& g : groups) {
    if (g.mean_events == 0) continue;
    std::vector<double> count;  // P(Poisson(mean) = j)
    double cdf = 0;
    const double lm = std::log(g.mean_events);
    for (int64_t j = 0;; ++j) {
      const double pm = std::exp(double(j) * lm - g.mean_events - std::lgamma(double(j) + 1));
      count.push_back(pm);
      cdf += pm;
      if (double(j) > g.mean_events && (1 - cdf < 1e-15 || pm < 1e-300)) break;
    }
    const size_t step = size_t(g.nodes_per_event);
    std::vector<double> next(pmf.size() + (count.size() - 1) * step, 0.0);
    for (size_t a = 0; a < pmf.size(); ++a) {
      if (pmf[a] == 0) continue;
      for (size_t j = 0; j < count.size(); ++j) next[a + j * step] += pmf[a] * count[j];
    }
    pmf = std::move(next);
  }
  double cdf = 0;
  for (size_t k = 0; k < pmf.size(); ++k) {
    cdf += pmf[k];
    if (cdf >= quantile - 1e-12) return static_cast<int64_t>(k);
  }
  return static_cast<int64_t>(pmf.size()) - 1;
}

namespace {

// e^{x^2} erfc(x), the scaled complementary error function (no underflow far out).
double erfcx(double x) {
  if (x < 0) return 2.0 * std::exp(x * x) - erfcx(-x);
  if (x < 25) return std::exp(x * x) * std::erfc(x);
  const double r = 1.0 / (x * x);  // asymptotic series, relative error below 1e-10 from 25
  return (1.0 - r / 2.0 + 0.75 * r * r - 1.875 * r * r * r) / (x * std::sqrt(M_PI));
}

// sum_{j=0}^{m-1} e^{c j - j^2 / (2 v)} for c at most about 0 (the terms are at most 1; m may be
// infinite): 64 terms, then the integral of the rest by Euler-Maclaurin (its erfcx form).
double quadratic_exp_sum(double c, double v, double m) {
  double sum = 0;
  const double first = std::min(m, 64.0);
  for (double j = 0; j < first; ++j) sum += std::exp(c * j - j * j / (2.0 * v));
  if (m <= 64) return sum;
  const double sd = std::sqrt(v);
  auto f = [&](double x) { return std::exp(c * x - x * x / (2.0 * v)); };
  auto df = [&](double x) { return (c - x / v) * f(x); };
  auto tail = [&](double x) { return sd * std::sqrt(M_PI / 2.0) * f(x) * erfcx((x - c * v) / (sd * std::sqrt(2.0))); };
  const double a = 64;
  if (!std::isfinite(m)) return sum + tail(a) + f(a) / 2.0 - df(a) / 12.0;
  return sum + tail(a) - tail(m) + (f(a) - f(m)) / 2.0 + (df(m) - df(a)) / 12.0;
}

// log sum_{i=i0}^{i1-1} e^{c i - i^2 / (2 v)} (i1 may be infinite, i0 < i1): the sum is split at
// the parabola's peak and each side summed away from it.
double log_quadratic_exp_sum(double c, double v, double i0, double i1) {
  const double peak = std::clamp(std::round(c * v), i0, i1);
  auto q = [&](double i) { return c * i - i * i / (2.0 * v); };
  double hi = -INFINITY, lo = -INFINITY;
  if (i1 > peak) hi = q(peak) + std::log(quadratic_exp_sum(c - peak / v, v, i1 - peak));
  if (peak > i0) lo = q(peak - 1) + std::log(quadratic_exp_sum((peak - 1) / v - c, v, peak - i0));
  const double top = std::max(hi, lo);
  return top + std::log(std::exp(hi - top) + std::exp(lo - top));
}

// The spare pool far beyond an exact recursion (Kaufman-Roberts over more than ~1e8 terms):
// the share of losses of n nodes that find it short in the steady state, by the saddlepoint of
// the compound Poisson occupancy X at the pool's size S. With s the saddlepoint (K'(s) = S, K
// the cumulant function sum_k a_k (e^{s n_k} - 1)) and v = K''(s), log P(X = S - i) is about
// log P(X = S) + s i - i^2 / (2 v) near S, so the share P(S - n < X <= S) / P(X <= S) is a ratio
// of sums of that parabola: for s <= 0 (a pool at or below the mean load) P(X = S) cancels, and
// for s > 0, P(X <= S) = 1 - P(X > S), each side summed from S (Daniels 1954). One size of one
// node is Erlang-B: B(1e8, 1.004e8) = 0.00399 (exact 0.00399), B(1e6, 1e6) within 2e-4 of exact,
// 1 - S/a where S << a. The normal approximation it replaces read 1 beyond 38 standard
// deviations, B(1e8, 1.004e8) included (before 2026-12-06; review). `sizes` share no common
// factor (the caller divides it out).
double saddlepoint_requeue_share(const std::vector<LossGroup>& sizes, double S, double n) {
  // log K'(s), by log-sum-exp (the terms overflow far from the saddlepoint).
  auto log_k1 = [&](double s) {
    double top = -INFINITY;
    for (const LossGroup& g : sizes)
      if (g.mean_events > 0) top = std::max(top, std::log(g.mean_events * double(g.nodes_per_event)) + s * double(g.nodes_per_event));
    double sum = 0;
    for (const LossGroup& g : sizes)
      if (g.mean_events > 0) sum += std::exp(std::log(g.mean_events * double(g.nodes_per_event)) + s * double(g.nodes_per_event) - top);
    return top + std::log(sum);
  };
  const double target = std::log(S);
  double lo = -1, hi = 1;
  while (log_k1(lo) > target && lo > -1e6) lo *= 2;
  while (log_k1(hi) < target && hi < 1e6) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (log_k1(mid) < target ? lo : hi) = mid;
  }
  const double s = 0.5 * (lo + hi);
  // At the saddlepoint every term a_k n_k e^{s n_k} is at most S: no overflow.
  double v = 0, K = 0;
  for (const LossGroup& g : sizes) {
    const double nk = double(g.nodes_per_event);
    v += g.mean_events * nk * nk * std::exp(s * nk);
    K += g.mean_events * std::expm1(s * nk);
  }
  if (!(v > 0)) return 0.0;
  const double blocked = log_quadratic_exp_sum(s, v, 0, n);  // sum_{i<n}, relative to P(X = S)
  if (s <= 0) return std::clamp(std::exp(blocked - log_quadratic_exp_sum(s, v, 0, INFINITY)), 0.0, 1.0);
  const double log_pmf = K - s * S - 0.5 * std::log(2.0 * M_PI * v);
  const double above = std::exp(log_pmf + log_quadratic_exp_sum(-s, v, 1, INFINITY));  // P(X > S)
  return std::clamp(std::exp(log_pmf + blocked) / std::max(1e-300, 1.0 - above), 0.0, 1.0);
}

}  // namespace

std::vector<double> spare_pool_requeue_share(const std::vector<LossGroup>& groups, int64_t spares, double wall_per_repair,
                                             double exact_work_limit) {
  std::vector<double> share(groups.size(), 0.0);
  if (spares < 0) throw Error("spare_pool_requeue_share: need spares >= 0, got " + std::to_string(spares));
  if (!(wall_per_repair > 0))
    throw Error("spare_pool_requeue_share: need a wall time per repair time > 0, got " + format_double(wall_per_repair));
  double mean = 0, var = 0;
  int64_t largest = 0;
  for (const LossGroup& g : groups) {
    if (!(g.mean_events >= 0) || !std::isfinite(g.mean_events) || g.nodes_per_event < 1)
      throw Error("spare_pool_requeue_share: need a finite mean >= 0 and nodes_per_event >= 1");
    mean += double(g.nodes_per_event) * g.mean_events;
    var += double(g.nodes_per_event) * double(g.nodes_per_event) * g.mean_events;
    largest = std::max(largest, g.nodes_per_event);
  }
  for (size_t k = 0; k < groups.size(); ++k)
    if (groups[k].nodes_per_event > spares) share[k] = 1.0;
  // Beyond the occupancy's mean + 40 standard deviations (and the largest event) no event finds
  // the pool short: every share is 0 (1 where an event is larger than the pool, above). A job
  // shorter than the repair time loads the pool less.
  const double reach = mean + 40.0 * std::sqrt(var) + 50.0;
  if (double(spares) > reach + double(largest) || mean == 0) return share;
  // The occupancy depends on the events' sizes and each size's load only: the recursion runs over
  // the distinct sizes (a preset's twenty single-node processes are one class).
  std::vector<LossGroup> sizes;
  for (const LossGroup& g : groups) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const LossGroup& x) { return x.nodes_per_event == g.nodes_per_event; });
    if (it == sizes.end()) sizes.push_back(g);
    else it->mean_events += g.mean_events;
  }
  // Time is measured in repair times from the job's start, u in [0, x], x = wall_per_repair. Up
  // to u = 1 no repaired node has come back: the losses so far, X(u) (compound Poisson at the
  // loads times u), took the pool, and a loss of n nodes requeues when X(u) > S - n (exactly
  // for single-node losses; for several sizes it also counts the nodes of losses that requeued,
  // an upper bound). From u = 1 on the pool is taken in its steady state (the multi-rate loss
  // system). The share over the job is the time average: (1/x) [int_0^min(x,1) P(X(u) > S - n)
  // du + (x - 1)^+ steady]. Before 2026-12-06 it was the steady state alone: a 3-day job with
  // 30-day repairs read 82% of its losses requeued, 180 nodes in repair, where the whole job
  // loses 18 (Daly 0.613 against a simulated 0.922; review).
  const double x = wall_per_repair;
  const double ramp = std::min(x, 1.0);  // the loads the ramp reaches
  std::vector<double> steady(groups.size(), 0.0), ramp_tail(groups.size(), 0.0);
  const double work = double(spares + 1) * double(sizes.size());
  if (work <= exact_work_limit && reach < 1e15) {
    // One pass of the recursion j q(j) = sum_k a_k n_k q(j - n_k), q(0) = 1 (Kaufman-Roberts;
    // q(j) e^{-A} is the compound Poisson pmf, A = sum_k a_k), at the loads `ramp` times the
    // steady ones where x < 1, else the steady ones. It keeps the last max-size terms only, in
    // a ring, rescaled by 1e-250 as they grow with the scale's logarithm kept beside (before
    // 2026-12-06 it held all S + 1 terms and rescaled all of them each time: 3.2 s at S = 3e6,
    // and killed past 300 s and 780 MB at 9.9e7; review). The ramp's time integral comes from
    // the same pmf: h(j) = int_0^1 P(X(u) = j) du satisfies A h(j) = sum_k a_k h(j - n_k) +
    // [j = 0] - pmf(j) (the generating function of int_0^1 e^{u (phi(z) - A)} du), and
    // int_0^1 P(X(u) > m) du = 1 - sum_{j <= m} h(j).
    std::vector<LossGroup> load = sizes;
    double A = 0;
    for (LossGroup& g : load) {
      if (x < 1) g.mean_events *= ramp;
      A += g.mean_events;
    }
    const size_t ring = size_t(largest) + 1;
    std::vector<double> q(ring, 0.0), h(ring, 0.0);
    std::vector<double> cum_h(groups.size(), 0.0);  // sum_{j <= S - n} h(j)
    double total = 0, log_scale = 0, to_pmf = std::exp(-A), cum = 0;
    const size_t S = size_t(spares), largest_n = size_t(largest);
    const bool ramps = std::isfinite(x);  // (the steady state alone needs no h)
    for (size_t j = 0, slot = 0; j <= S; ++j, slot = (slot + 1 == ring ? 0 : slot + 1)) {
      double v = 0, hv = 0;
      for (const LossGroup& g : load) {
        const size_t n = size_t(g.nodes_per_event);
        if (n > j) continue;
        const size_t from = slot >= n ? slot - n : slot + ring - n;
        v += g.mean_events * double(n) * q[from];
        hv += g.mean_events * h[from];
      }
      v = j == 0 ? 1.0 : v / double(j);
      q[slot] = v;
      total += v;
      if (v > 1e250) {
        for (double& e : q) e *= 1e-250;
        total *= 1e-250;
        log_scale += 250.0 * std::log(10.0);
        to_pmf = std::exp(log_scale - A);
      }
      if (!ramps) continue;
      h[slot] = j == 0 ? -std::expm1(-A) / A : (hv - q[slot] * to_pmf) / A;
      cum += h[slot];
      if (j + largest_n >= S)
        for (size_t k = 0; k < groups.size(); ++k)
          if (int64_t(j) + groups[k].nodes_per_event == spares) cum_h[k] = cum;
    }
    // The last ring - 1 terms are j = S, S - 1, ... back from the slot of S.
    const size_t last = S % ring;
    for (size_t k = 0; k < groups.size(); ++k) {
      const int64_t n = groups[k].nodes_per_event;
      if (n > spares) continue;
      double blocked = 0;
      for (int64_t i = 0; i < n; ++i) blocked += q[(last + ring - size_t(i)) % ring];
      steady[k] = total > 0 ? std::clamp(blocked / total, 0.0, 1.0) : 0.0;
      ramp_tail[k] = std::clamp(1.0 - cum_h[k], 0.0, 1.0);
    }
    if (x < 1) steady.assign(groups.size(), 0.0);  // (computed at the ramp's loads: unused)
  } else {
    // Millions of nodes in repair. The steady state by the saddlepoint (above), on the lattice of
    // the loaded sizes' common factor g: the occupancy is g Y, Y <= floor(S / g), and a loss of n
    // nodes requeues when Y > floor((S - n) / g), the top floor(S / g) - floor((S - n) / g)
    // values of Y.
    // The ramp by the normal approximation: X(u) has mean mu u and variance kappa mu u (kappa =
    // var / mean), and with t = mu u, int P(X > m) dt = [(t - m) Phi(z) + sigma phi(z)] over
    // t in [0, ramp mu], sigma = sqrt(kappa m), z = (t - m) / sigma: its error is of the order of
    // sigma / mu, below 1e-3 here.
    int64_t common = 0;
    std::vector<LossGroup> lattice;
    for (const LossGroup& g : sizes)
      if (g.mean_events > 0) {
        common = std::gcd(common, g.nodes_per_event);
        lattice.push_back(g);
      }
    for (LossGroup& g : lattice) g.nodes_per_event /= common;
    const int64_t S_g = spares / common;
    for (size_t k = 0; k < groups.size(); ++k) {
      const int64_t n = groups[k].nodes_per_event;
      if (n > spares) continue;
      const int64_t top = S_g - (spares - n) / common;
      if (x >= 1 && top > 0) steady[k] = saddlepoint_requeue_share(lattice, double(S_g), double(top));
      const double m = double(spares - n) + 0.5, mu = ramp * mean, sigma = std::sqrt(std::max(1.0, var / mean * m));
      auto integral = [&](double t) {
        const double z = (t - m) / sigma;
        return (t - m) * 0.5 * std::erfc(-z / std::sqrt(2.0)) + sigma * std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
      };
      ramp_tail[k] = mu > 0 ? std::clamp((integral(mu) - integral(0.0)) / mu, 0.0, 1.0) : 0.0;
    }
  }
  for (size_t k = 0; k < groups.size(); ++k)
    if (groups[k].nodes_per_event <= spares)
      share[k] = std::isfinite(x) ? (ramp * ramp_tail[k] + std::max(0.0, x - 1.0) * steady[k]) / x : steady[k];
  return share;
}

}  // namespace sextant::goodput
