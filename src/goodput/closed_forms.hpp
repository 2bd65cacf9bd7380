#pragma once
// Closed-form checkpoint/restart models, computed beside the simulation (docs/goodput.md).
// All times in seconds; rates in events per second. Every formula names its source.
#include <cmath>
#include <cstdint>
#include <vector>

namespace sextant::goodput {

// Principal branch W0 of the Lambert W function, for x >= -1/e. Throws Error outside.
double lambert_w0(double x);

// The interval formulas take delta >= 0 (a free checkpoint gives 0: the callers floor it at one
// step) and M > 0; they throw Error otherwise.
// Young (1974): tau = sqrt(2 delta M).
double young_interval_s(double checkpoint_s, double mttf_s);
// Daly (2006) first order: tau = sqrt(2 delta (M + R)).
double daly_first_order_interval_s(double checkpoint_s, double mttf_s, double restart_s);
// Daly (2006) higher order (eq. 37): tau = sqrt(2 delta M)[1 + 1/3 sqrt(delta/2M) + 1/9 (delta/2M)] - delta
// for delta < 2M, else M.
double daly_higher_order_interval_s(double checkpoint_s, double mttf_s);
// Exact optimum of Daly's wall-clock model T_w(tau) (minimises (e^{(tau+delta)/M} - 1)/tau):
// tau = M (1 + W0(-e^{-(delta/M + 1)})).
double lambert_w_interval_s(double checkpoint_s, double mttf_s);
// Daly (2006) expected wall-clock time (eq. 20) for solve time Ts with Poisson failures of mean M,
// restart R (itself interruptible), checkpoint delta every tau of work:
// T_w = M e^{R/M} (e^{(tau+delta)/M} - 1) Ts / tau.
double daly_expected_wall_s(double solve_s, double interval_s, double checkpoint_s, double restart_s, double mttf_s);

// Kokolis et al. (Meta, HPCA 2025, arXiv:2410.21680) expected ETTR for a job of N nodes with
// failure rate r_f per node-second, restart overhead u0, checkpoint write u_cp every dt:
// E[ETTR] ~= (1 - N r_f (u0 + dt/2)) / (1 + u_cp/dt), clamped at 0.
double meta_expected_ettr(double failure_rate_per_s, double restart_s, double interval_s, double checkpoint_s);

// Regularised incomplete gamma functions for a > 0, x >= 0: P(a, x) = gamma_lower(a, x) / Gamma(a)
// and Q(a, x) = 1 - P(a, x), each computed directly where it is the small one (series below
// x = a + 1, Lentz's continued fraction above), so a tail Q of 1e-30 keeps its digits. Used by
// the Weibull's integrated survival (fit.cpp) and the budget's forward-recurrence tail (config.cpp).
double regularized_gamma_p(double a, double x);
double regularized_gamma_q(double a, double x);

// Job MTTF from a per-node failure rate: 1 / (nodes * rate).
double mttf_s(double rate_per_node_s, double nodes);

// Multi-level first-order model (Moody et al. SC'10 / Di et al. 2014 first-order form): level i
// absorbs failures of rate lambda_i, costs delta_i per checkpoint and R_i per restore; with
// nested periods T_i, the overhead fraction is sum_i (delta_i/T_i + lambda_i (T_i/2 + R_i)), minimised
// level by level at T_i = sqrt(2 delta_i / lambda_i) (periods kept nondecreasing, and at least
// min_interval_s: a level persisted in the background cannot be saved faster than it persists).
// A level no failure falls back to (lambda_i = 0) is never needed: T_i infinite, no overhead. A
// level whose checkpoint costs no stall (delta_i = 0: persisted beside training from a lower
// level's snapshot) is saved as often as it can be.
struct LevelModel {
  double checkpoint_s = 0, restore_s = 0, failure_rate_per_s = 0;
  double min_interval_s = 0;
};
struct MultiLevelOptimum {
  std::vector<double> interval_s;  // per level
  double overhead_fraction = 0;
  double ettr = 0;  // 1 - overhead, clamped at 0
};
MultiLevelOptimum multilevel_first_order(const std::vector<LevelModel>& levels);
double multilevel_overhead_fraction(const std::vector<LevelModel>& levels, const std::vector<double>& interval_s);

// One failure class of the nodes in repair: events arriving at a Poisson rate, each taking
// nodes_per_event nodes into repair for the repair time R. The nodes in repair at an instant are
// then an M/G/infinity queue's occupancy: nodes_per_event x Poisson(rate x R) per class, the
// classes independent.
struct LossGroup {
  double mean_events = 0;  // rate x R
  int64_t nodes_per_event = 1;
};
// Smallest k with P(sum over groups of nodes_per_event x Poisson(mean_events) <= k) >= quantile:
// the P99 of the nodes in repair at one instant, failures that take a whole rack or domain at
// once included (a binomial over the nodes treats them as independent and undercounts).
// Exact where the convolution takes at most 1e8 multiply-adds, else the normal approximation of the
// sum (mean + z sd). Throws Error where the mean is beyond 1e15 nodes or not finite.
int64_t nodes_lost_quantile(const std::vector<LossGroup>& groups, double quantile);

// The spare pool as a multi-rate Erlang loss system (Kaufman 1981, Roberts; M/G/c/c with events
// of several sizes): an event of group k takes nodes_per_event spares when the pool holds that
// many, else it requeues (and its nodes, repaired, go back to the cluster, not the pool). In the
// steady state the occupancy is the groups' compound Poisson sum truncated at `spares`, whatever
// the repair-time distribution, and an event of group k requeues with probability
// P(occupancy > spares - nodes_per_event); one group of single-node events is Erlang-B
// B(spares, mean_events). A group larger than the pool always requeues (1).
// The pool starts full: returned, per group, is the share of its events that requeue over a job
// of `wall_per_repair` repair times (mean_events is rate x the repair time), the time average of
// the untruncated tail P(X(u) > spares - n) while u < 1 repair time has passed (no node is back
// yet; X(u) the losses so far) and of the steady state after; infinite, the steady state alone.
// Exact (the Kaufman-Roberts recursion, memory of the largest event's size) up to
// `exact_work_limit` multiply-adds; beyond it the steady state by the saddlepoint at the pool's
// size and the ramp by the normal approximation (docs/goodput.md, Spare pool). Throws Error for
// a negative pool, a non-positive wall time or a load that is negative or not finite.
std::vector<double> spare_pool_requeue_share(const std::vector<LossGroup>& groups, int64_t spares,
                                             double wall_per_repair = INFINITY, double exact_work_limit = 1e8);

}  // namespace sextant::goodput
