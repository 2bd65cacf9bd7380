#include "goodput/closed_forms.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/result.hpp"

namespace sextant::goodput {

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

std::vector<double> spare_pool_requeue_share(const std::vector<LossGroup>& groups, int64_t spares) {
  std::vector<double> share(groups.size(), 0.0);
  double mean = 0, var = 0;
  int64_t largest = 0;
  for (const LossGroup& g : groups) {
    if (!(g.mean_events >= 0) || g.nodes_per_event < 1)
      throw Error("spare_pool_requeue_share: need a mean >= 0 and nodes_per_event >= 1");
    mean += double(g.nodes_per_event) * g.mean_events;
    var += double(g.nodes_per_event) * double(g.nodes_per_event) * g.mean_events;
    largest = std::max(largest, g.nodes_per_event);
  }
  for (size_t k = 0; k < groups.size(); ++k)
    if (groups[k].nodes_per_event > spares) share[k] = 1.0;
  // Beyond the occupancy's mean + 40 standard deviations (and the largest event) no event finds
  // the pool short: every share is 0 (1 where an event is larger than the pool, above).
  const double reach = mean + 40.0 * std::sqrt(var) + 50.0;
  if (double(spares) > reach + double(largest)) return share;
  // The occupancy depends on the events' sizes and each size's load only: the recursion runs over
  // the distinct sizes (a preset's twenty single-node processes are one class).
  std::vector<LossGroup> sizes;
  for (const LossGroup& g : groups) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const LossGroup& s) { return s.nodes_per_event == g.nodes_per_event; });
    if (it == sizes.end()) sizes.push_back(g);
    else it->mean_events += g.mean_events;
  }
  const double work = double(spares + 1) * double(sizes.size());
  if (work > 1e8 || !(reach < 1e15)) {
    // Thousands of nodes in repair: the compound Poisson sum is normal, with a continuity correction.
    const double sd = std::sqrt(var);
    auto cdf = [&](double x) { return sd > 0 ? 0.5 * std::erfc(-(x + 0.5 - mean) / (sd * std::sqrt(2.0))) : (x >= mean ? 1.0 : 0.0); };
    const double all = cdf(double(spares));
    for (size_t k = 0; k < groups.size(); ++k)
      if (groups[k].nodes_per_event <= spares)  // (a pool far below the load, all 0 here, is always short)
        share[k] = all > 0 ? std::clamp((all - cdf(double(spares - groups[k].nodes_per_event))) / all, 0.0, 1.0) : 1.0;
    return share;
  }
  // Kaufman-Roberts: j q(j) = sum_k a_k n_k q(j - n_k), q(0) = 1, rescaled as it grows (its sum
  // is about e^mean).
  const size_t S = size_t(spares);
  std::vector<double> q(S + 1, 0.0);
  q[0] = 1.0;
  for (size_t j = 1; j <= S; ++j) {
    double v = 0;
    for (const LossGroup& g : sizes) {
      const size_t n = size_t(g.nodes_per_event);
      if (n <= j) v += g.mean_events * double(n) * q[j - n];
    }
    q[j] = v / double(j);
    if (q[j] > 1e250)
      for (size_t i = 0; i <= j; ++i) q[i] *= 1e-250;
  }
  double total = 0;
  for (double v : q) total += v;
  for (size_t k = 0; k < groups.size(); ++k) {
    const int64_t n = groups[k].nodes_per_event;
    if (n > spares) continue;
    double blocked = 0;
    for (size_t j = size_t(spares - n + 1); j <= S; ++j) blocked += q[j];
    share[k] = total > 0 ? blocked / total : 0.0;
  }
  return share;
}

}  // namespace sextant::goodput
