#include "goodput/config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/result.hpp"
#include "goodput/closed_forms.hpp"
#include "estimate/estimate.hpp"
#include "goodput/training.hpp"
#include "ir/workload.hpp"
#include "validate/training_validation.hpp"

namespace fs = std::filesystem;

namespace sextant::goodput {

std::string to_string(EventKind k) {
  switch (k) {
    case EventKind::Interrupt: return "interrupt";
    case EventKind::Sdc: return "sdc";
    case EventKind::FailSlow: return "fail-slow";
    case EventKind::Preemption: return "preemption";
  }
  return "?";
}

const std::vector<std::string>& failure_components() {
  // The bundled presets' components (gpu, hbm, nic, link, switch, host, psu, rack, node, software,
  // user, operations), the scheduler's preemptions, network and storage for the rest, and other
  // for a hardware part none of them names.
  static const std::vector<std::string> kComponents = {"gpu",  "hbm",      "nic",  "link",       "switch",    "network",
                                                       "host", "node",     "psu",  "rack",       "storage",   "software",
                                                       "user", "operations", "scheduler", "other"};
  return kComponents;
}

bool gpu_resident_component(const std::string& component) { return component == "gpu" || component == "hbm"; }

bool component_keeps_node(const std::string& component) { return component == "software" || component == "user"; }

std::string default_component(const std::string& process_name) {
  const auto& all = failure_components();
  return std::find(all.begin(), all.end(), process_name) != all.end() ? process_name : "other";
}

double RecoveryConfig::rendezvous_s(int64_t nodes) const {
  const double n = double(std::max<int64_t>(1, nodes));
  return rendezvous_base_s + rendezvous_per_node_s * n + rendezvous_log2_s * std::log2(n);
}

double GoodputConfig::process_rate_per_s(const FailureProcess& p) const {
  const int64_t nodes = job.nodes();
  double r = p.rate_per_job_s + p.rate_per_node_s * double(nodes);
  if (p.rate_per_domain_s > 0 && p.nodes_per_domain > 0)
    r += p.rate_per_domain_s * std::ceil(double(nodes) / double(p.nodes_per_domain));
  return r * failure_rate_scale;
}

double GoodputConfig::interruption_rate_per_s() const {
  double r = 0;
  for (const auto& p : processes)
    if (p.kind != EventKind::FailSlow) r += process_rate_per_s(p);
  return r;
}

bool GoodputConfig::graceful(const FailureProcess& p) const {
  return p.kind == EventKind::Preemption && p.notice_s >= checkpoint.impl->schedule(checkpoint.env).final_save_s();
}

double GoodputConfig::work_losing_rate_per_s() const {
  double r = 0;
  for (const auto& p : processes)
    if (p.kind != EventKind::FailSlow && !graceful(p)) r += process_rate_per_s(p);
  return r;
}

double GoodputConfig::graceful_rate_per_s() const {
  double r = 0;
  for (const auto& p : processes)
    if (graceful(p)) r += process_rate_per_s(p);
  return r;
}

double GoodputConfig::graceful_cost_s() const {
  const auto sched = checkpoint.impl->schedule(checkpoint.env);
  double wsum = 0, tsum = 0;
  for (const auto& p : processes) {
    if (!graceful(p)) continue;
    const double w = process_rate_per_s(p);
    wsum += w;
    tsum += w * (graceful_stop_s(p, sched, checkpoint.interval_s) + p.downtime_s + recovery.restart_s + recovery.rendezvous_s(job.nodes()) +
                 sched.remote().restore_s + recovery.warmup_s);
  }
  return wsum > 0 ? tsum / wsum : 0.0;
}

double GoodputConfig::graceful_stop_s(const FailureProcess& p, const CheckpointSchedule& sched, double interval_s) const {
  const double S = sched.final_save_s();
  if (sched.levels.empty() || !(interval_s > 0)) return S;
  // The engine's rule (Sim::on_preemption, 2026-12-07 review): the cheapest of the final save S,
  // stopping at once (the work since the last durable remote checkpoint lost), and waiting for a
  // remote checkpoint that lands within the notice (a persist in flight, or a save whose blocking
  // write is under way, the work since its snapshot lost), each the time before the job stops
  // plus the work it loses; averaged over the remote level's cycle at full speed. Over a cycle
  // of e sub-cycles C (compute tau, a wait for a persist, a block b), u after the last remote
  // block ended, x(u) the work since its snapshot. First order: a preemption soon after an earlier
  // one's final save loses less (the save is durable), which this leaves out (at 48 a day with a
  // 300 s save every hour the simulation reads 0.8105 where the closed form gives 0.8045).
  const auto& rl = sched.remote();
  const double b = sched.blocking_s, Pr = rl.persist_s, n = p.notice_s;
  double min_cycle = 0;
  for (const auto& l : sched.levels) min_cycle = std::max(min_cycle, (l.persist_s + b) / double(l.every_count));
  const double C = std::max(interval_s + b, min_cycle), tau = interval_s;
  const int64_t e = std::max<int64_t>(1, rl.every_count);
  const double Cr = C * double(e);
  constexpr int kPoints = 4096;
  double sum = 0;
  for (int i = 0; i < kPoints; ++i) {
    const double u = (i + 0.5) / kPoints * Cr;
    const double j = std::floor(u / C), r = u - j * C;
    const double x = j * tau + std::min(r, tau);
    double cost = S;
    cost = std::min(cost, u >= Pr ? x : x + double(e) * tau);            // stop at once
    if (u < Pr && Pr - u <= n) cost = std::min(cost, Pr - u + x);        // the persist in flight
    // The save under way: its block is a periodic one, which the closed forms charge already
    // (tau / (tau + delta)); the preemption adds its persist.
    if (j == double(e - 1) && r >= C - b && Cr - u + Pr <= n && Cr - u + Pr < cost) cost = Pr;
    sum += cost;
  }
  return sum / kPoints;
}

// Graceful preemptions arrive in wall time, while the job is down too. One while the job runs
// starts a down period: its save S (a preemption during it lets it finish), then D' = downtime +
// restart + restore + warm-up, which each preemption arriving in it starts again, as the engine
// does. The time to a gap of D' between Poisson arrivals of rate lambda is (e^{lambda D'} - 1) /
// lambda, so a cycle is a run of 1/lambda and a down period of S + (e^{lambda D'} - 1) / lambda,
// and the job runs 1 / (lambda S + e^{lambda D'}) of the wall time (exact for one process, the
// rate-weighted D' for several). Until 2026-12-06 the closed forms took the first-order
// 1 - lambda (S + D'): four preemptions a day with a 300 s save, 1,800 s of downtime and a 300 s
// checkpoint every hour read 0.8333 against a simulated 0.8393 (now 0.8386), and 0.603 against
// 0.656 (now 0.655) at 7,200 s of downtime (review).
double GoodputConfig::graceful_keep_fraction() const {
  const double rate = graceful_rate_per_s();
  if (!(rate > 0)) return 1.0;
  // The time a graceful preemption stops the job (graceful_stop_s: the final save or a cheaper
  // way to stop, 2026-12-07 review), rate-weighted.
  const auto sched = checkpoint.impl->schedule(checkpoint.env);
  double wsum = 0, ssum = 0;
  for (const auto& p : processes)
    if (graceful(p)) {
      wsum += process_rate_per_s(p);
      ssum += process_rate_per_s(p) * graceful_stop_s(p, sched, checkpoint.interval_s);
    }
  const double save = wsum > 0 ? ssum / wsum : sched.final_save_s();
  const double rest = std::max(0.0, graceful_cost_s() - save);
  return 1.0 / (rate * save + std::exp(rate * rest));
}

double GoodputConfig::node_loss_rate_per_node_s() const {
  double r = 0;
  for (const auto& p : processes)
    if (p.kind == EventKind::Interrupt && p.node_lost)
      for (const auto& [share, nodes] : loss_sizes(p)) r += process_rate_per_s(p) * share * double(nodes);
  return r / double(std::max<int64_t>(1, job.nodes()));
}

std::vector<std::pair<double, int64_t>> GoodputConfig::loss_sizes(const FailureProcess& p) const {
  const int64_t most = std::max<int64_t>(1, nodes_lost(p));
  if (!p.node_lost || !(p.nodes_per_domain > 0) || !(p.rate_per_domain_s > 0)) return {{1.0, most}};
  const int64_t nodes = std::max<int64_t>(1, job.nodes());
  const int64_t domains = (nodes + p.nodes_per_domain - 1) / p.nodes_per_domain;
  const int64_t last = nodes - (domains - 1) * p.nodes_per_domain;
  if (domains <= 1 || last >= p.nodes_per_domain) return {{1.0, most}};
  const double d = double(domains);
  return {{(d - 1) / d, most}, {1 / d, last}};
}

int64_t GoodputConfig::nodes_lost(const FailureProcess& p) const {
  if (!p.node_lost) return 0;
  return std::min<int64_t>(std::max<int64_t>(1, p.nodes_per_domain), std::max<int64_t>(1, job.nodes()));
}

size_t GoodputConfig::restore_level(const FailureProcess& p, const CheckpointSchedule& sched) const {
  if (sched.levels.empty()) return 0;
  if (p.kind == EventKind::Sdc || p.kind == EventKind::Preemption) return sched.levels.size() - 1;
  const int64_t f = nodes_lost(p);
  size_t l = 0;
  while (l + 1 < sched.levels.size() && f > sched.levels[l].survives_lost_nodes) ++l;
  return l;
}

namespace {
// Slow-node evictions of fail-slow process q per second of running: an episode of exponential
// duration d outlasts the cap a with probability e^{-a/d}. The engine starts one only while the
// job is up at full speed (one arriving during another is absorbed, as fail_slow_progress takes
// it): per second of running they start at r / (1 + r d'), d' the mean episode capped at a,
// d (1 - e^{-a/d}). 0 without evictions or for another kind of process.
double evictions_per_running_s(const GoodputConfig& c, const FailureProcess& q) {
  const double a = c.recovery.fail_slow_evict_after_s;
  if (!(a > 0) || q.kind != EventKind::FailSlow || !(q.slow_duration_s > 0)) return 0.0;
  const double r = c.process_rate_per_s(q), d = q.slow_duration_s;
  const double capped = d * -std::expm1(-a / d);
  return r * std::exp(-a / d) / (1.0 + r * capped);
}
}  // namespace

std::vector<LossGroup> GoodputConfig::spare_pool_loads(double running_fraction) const {
  // Every loss that takes spares: the node-losing interrupts over the wall time, and the
  // evictions of slow nodes while the job runs, each holding its nodes for the repair time.
  // (Before 2026-12-06 the spare-pool note's nodes in repair left the evictions out, where the
  // share it gave counted them; and until later that day the evictions loaded the pool at their
  // rate as if the job always ran at full speed, where a job short of spares queues for a third
  // of its wall time; review.)
  std::vector<LossGroup> groups;
  for (const auto& q : processes) {
    if (q.kind == EventKind::Interrupt && q.node_lost)
      for (const auto& [share, nodes] : loss_sizes(q)) groups.push_back({process_rate_per_s(q) * share * recovery.repair_s, nodes});
    const double e = evictions_per_running_s(*this, q);
    if (e > 0) groups.push_back({e * running_fraction * recovery.repair_s, 1});
  }
  return groups;
}

std::vector<LossGroup> GoodputConfig::spare_pool_loads_at_full_speed() const {
  std::vector<LossGroup> groups;
  for (const auto& q : processes) {
    if (q.kind == EventKind::Interrupt && q.node_lost)
      for (const auto& [share, nodes] : loss_sizes(q)) groups.push_back({process_rate_per_s(q) * share * recovery.repair_s, nodes});
    const double a = recovery.fail_slow_evict_after_s;
    if (q.kind == EventKind::FailSlow && a > 0 && q.slow_duration_s > 0)
      groups.push_back({process_rate_per_s(q) * std::exp(-a / q.slow_duration_s) * recovery.repair_s, 1});
  }
  return groups;
}

double GoodputConfig::closed_form_wall_s() const {
  if (job.horizon_s > 0) return job.horizon_s;
  const double progress = fail_slow_progress();
  return progress > 0 && job.work_s > 0 ? job.work_s / progress : INFINITY;
}

namespace {
// The job's wall time in repair times (infinite without repairs: the pool is then never short).
double wall_per_repair(const GoodputConfig& c) {
  const double w = c.closed_form_wall_s();
  return c.recovery.repair_s > 0 && w > 0 ? w / c.recovery.repair_s : INFINITY;
}
}  // namespace

double GoodputConfig::requeue_share(const FailureProcess& p) const {
  if (recovery.replacement == "requeue") return 1.0;
  // p's own class is added with no load: the share depends on its size (its sizes' shares, by
  // their weights, where a domain failure may land in the job's partly filled last domain).
  std::vector<LossGroup> groups = spare_pool_loads(pool_running_fraction());
  const auto sizes = loss_sizes(p);
  for (const auto& sz : sizes) groups.push_back({0.0, sz.second});
  const auto all = spare_pool_requeue_share(groups, recovery.spares_count, wall_per_repair(*this));
  double share = 0;
  for (size_t i = 0; i < sizes.size(); ++i) share += sizes[i].first * all[all.size() - sizes.size() + i];
  return share;
}

std::vector<double> GoodputConfig::requeue_shares() const { return requeue_shares(pool_running_fraction()); }

std::vector<double> GoodputConfig::requeue_shares(double running_fraction) const {
  std::vector<double> share(processes.size(), 0.0);
  if (recovery.replacement == "requeue") {
    share.assign(processes.size(), 1.0);
    return share;
  }
  // Each process's sizes (loss_sizes) as classes of no load beside the pool's load, all in one pass;
  // its share is theirs weighted by how often each occurs (2026-12-07 review: a partly filled domain).
  std::vector<LossGroup> groups = spare_pool_loads(running_fraction);
  const size_t loads = groups.size();
  std::vector<std::vector<std::pair<double, int64_t>>> sizes;
  for (const auto& p : processes) {
    sizes.push_back(loss_sizes(p));
    for (const auto& sz : sizes.back()) groups.push_back({0.0, sz.second});
  }
  const auto all = spare_pool_requeue_share(groups, recovery.spares_count, wall_per_repair(*this));
  size_t at = loads;  // the first of the processes' classes
  for (size_t k = 0; k < processes.size(); ++k)
    for (const auto& [w, nodes] : sizes[k]) share[k] += w * all[at++];
  return share;
}

double GoodputConfig::implied_running_fraction(double running_fraction) const {
  const auto sched = checkpoint.impl->schedule(checkpoint.env);
  const std::vector<double> share = requeue_shares(running_fraction);
  double down = graceful_rate_per_s() * graceful_cost_s();  // per second of wall time
  double evict_requeue = -1;
  for (size_t k = 0; k < processes.size(); ++k) {
    const auto& p = processes[k];
    if (p.kind == EventKind::FailSlow) {
      if (evict_requeue < 0) evict_requeue = share[k];  // eviction_cost_s's share: the first fail-slow process's
      continue;
    }
    if (graceful(p)) continue;
    down += process_rate_per_s(p) * restart_s_of(p, sched, true, share[k]);
  }
  const double evict = eviction_rate_per_s();  // per second of running
  const double evict_down = evict > 0 ? evict * eviction_cost_s(std::max(0.0, evict_requeue)) : 0.0;
  return std::max(0.0, 1.0 - down) / (1.0 + evict_down);
}

double GoodputConfig::running_fraction() const {
  // implied(u) falls as u grows where a requeue costs more than a spare (more evictions, a
  // larger share, longer recoveries), rises where it costs less: monotone either way, so the
  // fixed point lies between implied(0) and implied(1), and h(u) = u - implied(u) is <= 0 at the
  // lower end and >= 0 at the upper. Bisection keeps that bracket: bounded (64 halvings at most;
  // about 20 at the tolerance) and deterministic, where iterating u <- implied(u) may oscillate.
  const double g0 = implied_running_fraction(0.0), g1 = implied_running_fraction(1.0);
  double lo = std::min(g0, g1), hi = std::max(g0, g1);
  if (hi - lo <= kRunningFractionTolerance) return g1;  // |u - implied(u)| <= hi - lo for u in the bracket
  for (int i = 0; i < 64; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double h = mid - implied_running_fraction(mid);
    if (std::abs(h) <= kRunningFractionTolerance) return mid;
    (h < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double GoodputConfig::pool_running_fraction() const {
  if (recovery.replacement == "requeue" || !(eviction_rate_per_s() > 0)) return 1.0;
  return running_fraction();
}

double GoodputConfig::nodes_in_repair_mean() const {
  // Poisson(rate x min(t, D)) losses in repair at t: its mean averaged over t in [0, W], in
  // repair times x = W / D: x / 2 where x <= 1, else 1 - 1 / (2 x).
  const double x = wall_per_repair(*this);
  const double share = x <= 1 ? x / 2 : 1 - 1 / (2 * x);
  double nodes = 0;
  for (const LossGroup& g : spare_pool_loads(pool_running_fraction())) nodes += g.mean_events * double(g.nodes_per_event);
  return nodes * share;
}

double GoodputConfig::fail_slow_progress() const {
  // Fail-slow episodes stretch the wall time: slow a share f = d / (1/r + d) of the time (arrivals
  // during an episode are absorbed), progressing at 1/s there. An eviction after a cap a ends an
  // episode at min(X, a), of mean d (1 - e^{-a/d}) for an exponential X.
  double progress = 1.0;
  for (const auto& p : processes) {
    if (p.kind != EventKind::FailSlow) continue;
    const double r = process_rate_per_s(p);
    double d = p.slow_duration_s;
    const double a = recovery.fail_slow_evict_after_s;
    if (a > 0 && d > 0) d *= 1.0 - std::exp(-a / d);
    const double f = r > 0 && d > 0 ? d / (1.0 / r + d) : 0.0;
    const double s = std::max(1.0, p.slowdown_factor);
    progress *= (1.0 - f) + f / s;
  }
  return progress;
}

double GoodputConfig::eviction_rate_per_s() const {
  // Per second of running, summed over the fail-slow processes (evictions_per_running_s).
  double r_evict = 0;
  for (const auto& p : processes) r_evict += evictions_per_running_s(*this, p);
  return r_evict;
}

double GoodputConfig::eviction_cost_s() const {
  const auto it = std::find_if(processes.begin(), processes.end(),
                               [](const FailureProcess& p) { return p.kind == EventKind::FailSlow; });
  if (it == processes.end()) return 0.0;
  return eviction_cost_s(requeue_share(*it));  // a fail-slow process loses no node: a one-node class
}

double GoodputConfig::eviction_cost_s(double requeue) const {
  // The engine's eviction (engine.cpp, slow_evict): save at the eviction (no work lost), evict,
  // take one spare or requeue (a one-node loss's share of the pool), restart from the remote
  // checkpoint just written. Before 2026-12-06 the closed forms left evictions out: 20 episodes
  // a day evicted after 600 s with 5 spares read Daly 0.929 beside a simulated 0.613, 0.285 of
  // the wall time queueing for nodes (review).
  const auto sched = checkpoint.impl->schedule(checkpoint.env);
  return sched.final_save_s() + recovery.eviction_s + requeue * recovery.requeue_s +
         (1.0 - requeue) * (recovery.replacement == "warm-standby" ? recovery.warm_standby_s : recovery.hot_spare_s) +
         recovery.restart_s + recovery.rendezvous_s(job.nodes()) + sched.remote().restore_s + recovery.warmup_s;
}

double GoodputConfig::mean_restart_s(bool with_restore) const {
  // Rate-weighted mean of the recovery timeline of unplanned interruptions, restoring from the
  // level that survives each. A node loss requeues with the pool's share over the job
  // (requeue_shares: Erlang-B for single-node losses in the steady state), else takes a spare
  // (before 2026-12-04 spares 0 was costed as a hot spare: Daly 0.906 against a simulated 0.692;
  // until 2026-12-06 a pool of at least the loss's nodes was costed as never empty: one spare
  // against 19 nodes in repair read Daly 0.906 where the simulation requeues 332 times, 0.702;
  // review).
  double wsum = 0, tsum = 0;
  const auto sched = checkpoint.impl->schedule(checkpoint.env);
  const std::vector<double> requeue = requeue_shares();
  for (size_t k = 0; k < processes.size(); ++k) {
    const auto& p = processes[k];
    if (p.kind == EventKind::FailSlow || graceful(p)) continue;
    const double w = process_rate_per_s(p);
    wsum += w;
    tsum += w * restart_s_of(p, sched, with_restore, requeue[k]);
  }
  return wsum > 0 ? tsum / wsum : recovery.restart_s + recovery.rendezvous_s(job.nodes()) + recovery.warmup_s;
}

double GoodputConfig::persist_at_risk_s(const FailureProcess& p, const CheckpointSchedule& sched, double interval_s) const {
  if (sched.levels.empty()) return 0.0;
  const auto& lv = sched.levels[restore_level(p, sched)];
  double at_risk = lv.persist_s;
  // A preemption's notice short of the final save (blocking + remote persist; a longer one is
  // graceful and loses nothing): the checkpoint whose block and persist end within it is kept
  // (engine: Sim::on_preemption). At full speed the level's checkpoints land every C_l; one
  // landing d <= n after the notice saves C_l - d, so the notice saves n - n^2 / (2 C_l) per
  // preemption on average (2026-12-07 review).
  if (p.kind == EventKind::Preemption && p.notice_s > 0 && interval_s > 0) {
    double min_cycle = 0;
    for (const auto& l : sched.levels) min_cycle = std::max(min_cycle, (l.persist_s + sched.blocking_s) / double(l.every_count));
    const double cycle_s = std::max(interval_s + sched.blocking_s, min_cycle) * double(lv.every_count);
    const double n = std::min({p.notice_s, sched.blocking_s + lv.persist_s, cycle_s});
    at_risk -= n - n * n / (2.0 * cycle_s);
  }
  return at_risk;
}

double GoodputConfig::mean_persist_at_risk_s(const CheckpointSchedule& sched, double interval_s, int level) const {
  if (sched.levels.empty()) return 0.0;
  double wsum = 0, psum = 0;
  for (const auto& p : processes) {
    if (p.kind == EventKind::FailSlow || graceful(p)) continue;
    if (level >= 0 && restore_level(p, sched) != size_t(level)) continue;
    const double w = process_rate_per_s(p);
    wsum += w;
    psum += w * persist_at_risk_s(p, sched, interval_s);
  }
  if (wsum > 0) return psum / wsum;
  return level >= 0 && size_t(level) < sched.levels.size() ? sched.levels[size_t(level)].persist_s : sched.remote().persist_s;
}

double GoodputConfig::restart_s_of(const FailureProcess& p, const CheckpointSchedule& sched, bool with_restore, double requeue) const {
  double t = recovery.restart_s + recovery.rendezvous_s(job.nodes()) + recovery.warmup_s;
  if (with_restore && !sched.levels.empty()) t += sched.levels[restore_level(p, sched)].restore_s;
  if (p.kind == EventKind::Preemption) t += p.downtime_s;
  if (p.kind == EventKind::Interrupt) t += p.detection_s >= 0 ? p.detection_s : recovery.detection_s;
  if (p.kind == EventKind::Interrupt && p.node_lost) {
    t += recovery.eviction_s;
    if (requeue < 0) requeue = requeue_share(p);
    t += requeue * recovery.requeue_s +
         (1.0 - requeue) * (recovery.replacement == "warm-standby" ? recovery.warm_standby_s : recovery.hot_spare_s);
  }
  return t;
}

// ------------------------------------------------------------------------------- helpers
namespace {

// A number written plainly or as {value: X, source: S} / {value: X, estimated: B}: the mapping is
// read as the catalog reads its numbers (YamlMap::sourced), one of source and estimated. Before
// 2026-12-06 both were taken and estimated dropped, and a bare {value: X} was taken without any
// (review).
double number(const YamlMap& m, const std::string& key, std::string* source = nullptr) {
  // A missing key is f64's "required" error at the mapping's line (raw() of a missing key is an
  // invalid node, whose IsMap() had thrown yaml-cpp's "invalid node" as an internal error).
  if (!m.has(key)) return m.f64(key);
  YAML::Node n = m.raw(key);
  if (n.IsMap()) {
    // (Worded here: a plain number is allowed in a goodput input, unlike a catalog's.)
    if (!n["source"] && !n["estimated"])
      m.fail(key, "a {value: X} number needs its provenance", "add source: ID or estimated: \"basis\", or write the number alone");
    const Sourced s = m.sourced(key);
    if (source) *source = !s.source.empty() ? s.source : "estimated: " + s.estimated;
    return s.value;
  }
  return m.f64(key);
}

double positive(const YamlMap& m, const std::string& key, std::string* source = nullptr) {
  const double v = number(m, key, source);
  if (!(v > 0) || !std::isfinite(v)) m.fail(key, "must be a positive number", "got " + format_double(v));
  return v;
}

// An optional positive number (a bandwidth divided by): absent, dflt, registered as known as nonneg does.
// A key written without a value (`restart_s:`) is an error, not the default (it had been taken for
// absent; 2026-12-06 review).
double positive_or(const YamlMap& m, const std::string& key, double dflt) {
  m.reject_blank(key);
  if (!m.has(key)) {
    m.raw(key);
    return dflt;
  }
  return positive(m, key);
}

double nonneg(const YamlMap& m, const std::string& key, double dflt) {
  m.reject_blank(key);
  if (!m.has(key)) {
    m.raw(key);
    return dflt;
  }
  const double v = number(m, key);
  if (!(v >= 0) || !std::isfinite(v)) m.fail(key, "must be a number >= 0", "got " + format_double(v));
  return v;
}

// A count (of nodes, GPUs, events, tokens, parameters) read as a number, plain or {value: X,
// source: S}: a whole one, at least `least`. Before 2026-12-06 a preset's observed: {gpus_per_node:
// 2.5} was taken as given and moved the llama3-54day job's ETTR from 0.9053 to 0.6426, as were a
// fractional observed.nodes and a process's count (review). The counts read as integers (num_gpus,
// spares, copies, replicas) refuse a fraction as "expected an integer" already.
double whole_number(const YamlMap& m, const std::string& key, double least, const std::string& what, std::string* source = nullptr) {
  const double v = number(m, key, source);
  if (!std::isfinite(v) || v != std::floor(v) || v < least)
    m.fail(key, what + " is a whole number >= " + format_double(least), "got " + format_double(v));
  return v;
}

// The same, optional: absent, dflt (the key is registered as known, as nonneg does).
double whole_number_or(const YamlMap& m, const std::string& key, double dflt, double least, const std::string& what) {
  m.reject_blank(key);
  if (!m.has(key)) {
    m.raw(key);
    return dflt;
  }
  return whole_number(m, key, least, what);
}

// A mapping's keys checked against all of its valid ones before anything is read from it: a
// misspelt key (`trainng:`, `Training:`, `observde:`) is named at its line with the nearest valid
// key, where a check that rests on the key it was meant to be had failed first and blamed another
// (before 2026-12-06 `trainng:` read "key 'job.num_gpus': the job needs num_gpus (or a training:
// scenario)", and a preset's `observde:` "key 'processes[0].count': a count needs the observation
// it came from"; review). A near miss of an absent key was named only by a failure of its own
// mapping. Every valid key is marked known, so the mapping's later finish() adds nothing.
void check_keys_first(const YamlMap& m, std::initializer_list<const char*> valid) {
  for (const char* k : valid) m.raw(k);
  m.finish();
}

struct Observed {
  double nodes = 0, days = 0;
  // GPUs per node of the fleet a preset's per-node rates were observed on (0: not stated). The
  // rates of GPU-resident components (gpu, hbm: a node of 4 GPUs has half the GPUs of one of 8)
  // scale with the job's GPUs per node over it; the others (host, NIC, switch, PSU, software)
  // stay per node. Before 2026-12-04 a 4-GPU-node job took Llama 3's 8-GPU-node rates per node:
  // 16,384 GPUs on 4-GPU nodes had twice the faulty GPUs of the same GPUs on 8-GPU nodes.
  double gpus_per_node = 0;
  // Whether the processes are a preset file's (which may have observed:); a job file's own
  // failures.processes have no observation to turn a count into a rate.
  bool in_preset = false;
};

const std::vector<std::string> kRateKeys = {"rate_per_1000_node_days", "rate_per_node_day", "rate_per_gpu_hour",
                                            "rate_per_job_day", "rate_per_domain_day", "mtbf_hours", "count"};

FailureProcess parse_process(const YamlMap& m, const Observed& obs, const std::map<std::string, std::string>& sources,
                             const DistributionRegistry& dists, double gpus_per_node) {
  FailureProcess p;
  p.name = m.str("name");
  // A closed set (failure_components): a misspelt `sofware` had read as hardware, a node lost at
  // every crash, with exit 0 (2026-12-06 review). A process that names none takes its name where
  // that is a component (name: gpu), else other; before, any name was taken as the component.
  p.component = m.str("component", default_component(p.name));
  if (m.has("component")) {
    const auto& all = failure_components();
    if (std::find(all.begin(), all.end(), p.component) == all.end())
      m.fail("component",
             "unknown failure component '" + p.component + "' (gpu and hbm rates of a preset scale with the GPUs per node; software "
             "and user crashes keep their nodes; the others lose them by default)",
             valid_choices_hint(p.component, all));
  }
  const std::string kind = m.choice("kind", {"interrupt", "sdc", "fail-slow", "preemption"}, "interrupt");
  p.kind = kind == "interrupt" ? EventKind::Interrupt
           : kind == "sdc"     ? EventKind::Sdc
           : kind == "fail-slow" ? EventKind::FailSlow
                                 : EventKind::Preemption;
  std::string src;
  int rate_keys = 0;
  for (const auto& k : kRateKeys) rate_keys += m.has(k) ? 1 : 0;
  // The rate keys a job file's process takes: count needs a preset's observed: block.
  const std::string job_rates = "rate_per_1000_node_days, rate_per_node_day, rate_per_gpu_hour, rate_per_job_day, "
                                "rate_per_domain_day (with nodes_per_domain), mtbf_hours";
  if (rate_keys != 1)
    m.fail("", "a failure process needs exactly one rate",
           "one of: " + job_rates + (obs.in_preset ? ", count (with the preset's observed:)" : " (count only in a failure preset file, with its observed:)"));
  const double day = 86400.0;
  if (m.has("rate_per_1000_node_days")) p.rate_per_node_s = positive(m, "rate_per_1000_node_days", &src) / 1000.0 / day;
  if (m.has("rate_per_node_day")) p.rate_per_node_s = positive(m, "rate_per_node_day", &src) / day;
  // gpus_per_node: the job's GPUs per node (num_gpus / nodes): a rate per GPU counts the job's GPUs,
  // not the idle ones of a partly used last node (12 GPUs on 8-GPU nodes were charged 16).
  if (m.has("rate_per_gpu_hour")) p.rate_per_node_s = positive(m, "rate_per_gpu_hour", &src) * gpus_per_node / 3600.0;
  if (m.has("rate_per_job_day")) p.rate_per_job_s = positive(m, "rate_per_job_day", &src) / day;
  if (m.has("mtbf_hours")) p.rate_per_job_s = 1.0 / (positive(m, "mtbf_hours", &src) * 3600.0);
  if (m.has("rate_per_domain_day")) {
    p.rate_per_domain_s = positive(m, "rate_per_domain_day", &src) / day;
    if (!m.has("nodes_per_domain")) m.fail("nodes_per_domain", "a domain failure needs nodes_per_domain");
  }
  if (m.has("count")) {
    // A job file has no observed: block (failures.observed is no key): before 2026-12-06 its
    // count was told to "add observed: to the preset", a preset it did not have (review).
    if (!obs.in_preset)
      m.fail("count", "a count of events works only in a failure preset file, beside the preset's observed: {nodes: N, days: D}",
             "give this process one of: " + job_rates + "; or move it to a preset file with observed: and name that file in failures.preset");
    if (obs.nodes <= 0 || obs.days <= 0)
      m.fail("count", "a count needs the observation it came from", "add observed: {nodes: N, days: D} to the preset");
    p.rate_per_node_s = whole_number(m, "count", 1, "a count of events", &src) / (obs.nodes * obs.days * day);
  }
  // A per-node rate of a GPU-resident component, observed on nodes of another size (not a rate
  // per GPU-hour, which counts the job's GPUs already).
  if (obs.gpus_per_node > 0 && gpu_resident_component(p.component) && p.rate_per_node_s > 0 && !m.has("rate_per_gpu_hour")) {
    p.gpu_rate_scale = gpus_per_node / obs.gpus_per_node;
    p.rate_per_node_s *= p.gpu_rate_scale;
  }
  if (m.has("nodes_per_domain")) {
    p.nodes_per_domain = m.i64("nodes_per_domain");
    if (p.nodes_per_domain < 1) m.fail("nodes_per_domain", "must be >= 1");
    if (p.rate_per_domain_s <= 0) m.fail("nodes_per_domain", "nodes_per_domain goes with rate_per_domain_day");
  }
  p.distribution = m.str("distribution", "exponential");
  if (!dists.has(p.distribution))
    throw Error(m.loc("distribution"), "unknown inter-arrival distribution '" + p.distribution + "'",
                valid_choices_hint(p.distribution, dists.names()));
  if (m.has("shape") && p.distribution != "weibull")
    m.fail("shape", "shape belongs to the Weibull distribution; this process is " + p.distribution,
           "add distribution: weibull, or leave the shape out");
  if (p.distribution == "weibull") {
    p.weibull_shape = m.f64("shape", 0.75);
    p.weibull_shape_defaulted = !m.has("shape");
    // Validate through the factory (it reads `shape`).
    dists.create("weibull", m.loc("shape"), 1.0, &m);
  }
  p.node_lost = m.boolean("node_lost", p.kind == EventKind::Interrupt && !component_keeps_node(p.component));
  p.detection_s = m.has("detection_s") ? nonneg(m, "detection_s", 0) : -1;
  // Only a crash waits for a watchdog: a preemption is announced, an SDC has its own
  // detection_latency_s, a slow node keeps running. It was accepted and ignored on them.
  if (m.has("detection_s") && p.kind != EventKind::Interrupt)
    m.fail("detection_s", "only an interrupt process is detected by a timeout (the engine reads it for no other kind)",
           p.kind == EventKind::Sdc ? "an sdc process's delay until it is noticed is detection_latency_s"
                                    : "leave it out (recovery.detection_s is the crash watchdog's)");
  // node_lost: true is refused where the engine does not read it (it was accepted and did nothing
  // on preemptions and fail-slow episodes, as on SDC before).
  auto no_node_loss = [&](const std::string& why, const std::string& instead) {
    if (m.has("node_lost") && m.boolean("node_lost")) m.fail("node_lost", why, instead);
    p.node_lost = false;
  };
  if (p.kind == EventKind::Preemption) {
    p.preemption_defaulted_keys = !m.has("notice_s") && !m.has("downtime_s") ? "notice_s and downtime_s"
                                  : !m.has("notice_s")                        ? "notice_s"
                                  : !m.has("downtime_s")                      ? "downtime_s"
                                                                              : "";
    p.notice_s = nonneg(m, "notice_s", 0);
    p.downtime_s = nonneg(m, "downtime_s", 0);
    no_node_loss("a preemption gives its nodes back to the scheduler: the job waits its downtime_s and restarts on the same nodes",
                 "model a lost node as an interrupt process with node_lost: true");
  }
  if (p.kind == EventKind::Sdc) {
    p.sdc_latency_defaulted = !m.has("detection_latency_s");
    p.sdc_detection_latency_s = nonneg(m, "detection_latency_s", 3600);
    // The engine rolls an SDC back past the corruption and keeps the nodes: node_lost: true was
    // accepted and did nothing.
    no_node_loss("an sdc process rolls back to a checkpoint before the corruption and keeps its nodes",
                 "model the eviction of the faulty node as an interrupt process with node_lost: true");
  }
  if (p.kind == EventKind::FailSlow) {
    p.slow_duration_s = positive(m, "duration_s");
    if (m.has("rank_slowdown_factor")) {
      if (m.has("slowdown_factor"))
        m.fail("rank_slowdown_factor", "give either slowdown_factor (step-time multiplier) or rank_slowdown_factor (slow GPU), not both");
      p.rank_slowdown_factor = number(m, "rank_slowdown_factor");
      if (!(p.rank_slowdown_factor >= 1)) m.fail("rank_slowdown_factor", "a rank slow-down factor is a compute-time multiplier >= 1");
      p.slowdown_factor = p.rank_slowdown_factor;  // replaced by the simulated step multiplier (config loading)
    } else {
      p.slowdown_factor = number(m, "slowdown_factor");
      if (!(p.slowdown_factor >= 1)) m.fail("slowdown_factor", "a slowdown factor is a step-time multiplier >= 1");
    }
    no_node_loss("a fail-slow episode slows the job and loses no node",
                 "recovery.fail_slow_evict_after_s evicts a node slow for longer; a lost node is an interrupt process with node_lost: true");
  }
  std::string s = m.str("source", "");
  // A misspelt citation id of the file is refused, as in the catalog (2026-12-06 review): the
  // process's source and its rate's.
  if (!s.empty()) check_citation_word(m, "source", s, sources);
  if (!src.empty() && src.rfind("estimated: ", 0) != 0)
    for (const auto& k : kRateKeys)
      if (m.has(k)) check_citation_word(m, k, src, sources);
  if (s.empty()) s = src;
  auto it = sources.find(s);
  p.source = it != sources.end() ? it->second : s;
  m.finish();
  return p;
}

std::vector<FailureProcess> parse_process_list(const YamlMap& root, const std::string& key, const Observed& obs,
                                               const std::map<std::string, std::string>& sources, double gpus_per_node) {
  const auto dists = make_distribution_registry();
  std::vector<FailureProcess> out;
  for (const auto& pm : root.map_list(key)) out.push_back(parse_process(pm, obs, sources, dists, gpus_per_node));
  return out;
}

std::string preset_path(const std::string& name_or_path) {
  // A bare name (no folder, no .yaml) is a bundled preset first: a file of that name, or a
  // goodput/ folder, in the working directory had replaced it (before 2026-12-03), so the same
  // input gave another result from another directory. A path is a file first.
  const bool yaml = name_or_path.size() > 5 && name_or_path.ends_with(".yaml");
  const bool bare = name_or_path.find('/') == std::string::npos && !yaml;
  auto bundled = [&]() -> std::string {
    try {
      const fs::path p = fs::path(data_dir()) / "goodput" / (name_or_path + (yaml ? "" : ".yaml"));
      if (fs::is_regular_file(p)) return p.string();
    } catch (const Error&) {
    }
    return {};
  };
  if (bare)
    if (std::string b = bundled(); !b.empty()) return b;
  if (fs::is_regular_file(name_or_path)) return name_or_path;
  if (!bare && name_or_path.find('/') == std::string::npos)
    if (std::string b = bundled(); !b.empty()) return b;
  throw Error(SourceLocation{"", 0, 0, "failures.preset"}, "no failure preset '" + name_or_path + "'",
              valid_choices_hint(name_or_path, failure_preset_names()));
}

std::vector<FailureProcess> parse_preset(const YamlMap& m, double gpus_per_node, std::string* description) {
  check_keys_first(m, {"name", "description", "sources", "observed", "processes"});
  std::map<std::string, std::string> sources;
  if (auto s = m.opt_map("sources"))
    for (const auto& k : s->keys()) sources[k] = s->str(k);
  const std::string desc = m.str("description", "");
  m.str("name", "");
  if (description) *description = desc;
  Observed obs;
  obs.in_preset = true;
  if (auto o = m.opt_map("observed")) {
    // nodes and days turn counts into rates (required by a count); gpus_per_node scales the
    // GPU-resident rates (optional).
    // Nodes and GPUs per node are whole (whole_number); the days may be a fraction.
    obs.nodes = whole_number_or(*o, "nodes", 0, 1, "a count of nodes");
    obs.days = o->f64("days", 0);
    obs.gpus_per_node = whole_number_or(*o, "gpus_per_node", 0, 1, "a count of GPUs per node");
    if (o->has("days") && !(obs.days > 0)) o->fail("days", "must be > 0");
    check_citation_word(*o, "source", o->str("source", ""), sources);
    o->str("note", "");
    o->finish();
  }
  auto procs = parse_process_list(m, "processes", obs, sources, gpus_per_node);
  m.finish();
  return procs;
}

// A file named inside an input: beside that input first, then the working directory, then the
// data folder (the working directory came first before 2026-12-03: the same input file gave
// another job from another directory).
std::string resolve_near(const std::string& ref, const std::string& base_dir) {
  if (fs::path(ref).is_absolute()) return ref;
  const auto near = fs::path(base_dir) / ref;
  if (!base_dir.empty() && fs::exists(near)) return near.string();
  if (fs::exists(ref)) return ref;
  return resolve_data_path(ref);
}

}  // namespace

std::vector<std::string> failure_preset_names() {
  std::vector<std::string> names;
  try {
    const fs::path dir = fs::path(data_dir()) / "goodput";
    if (fs::exists(dir))
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  } catch (const Error&) {
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<FailureProcess> load_failure_preset(const std::string& name_or_path, std::string* description) {
  const std::string path = preset_path(name_or_path);
  return parse_preset(YamlMap::load_file(path), 8, description);
}

namespace {
// Alternative spellings of one quantity (duration_days | duration_s): both given is an error that
// names both, as an override of one keeps the other; every spelling is asked, so each is listed
// among the valid keys.
void one_of(const YamlMap& m, std::initializer_list<const char*> keys, const std::string& example) {
  std::string given;
  int n = 0;
  for (const char* k : keys)
    if (m.has(k)) given += std::string(n++ ? " and " : "") + k;
  if (n > 1)
    m.fail("", "the same quantity is given twice: " + given + " (an override of one keeps the other)",
           "give one of them; with --set, override the key the file uses, e.g. " + example);
}

// A checkpoint is taken between steps: the interval is a whole number of steps, at least one, when
// the step time is known (an interval of 0.6 s with 5 s steps was simulated as given, and a step
// longer than the MTTF did not lower the ETTR).
void snap_to_steps(GoodputConfig& c) {
  const double step = c.job.step_time_s;
  if (!(step > 0)) return;
  c.checkpoint.interval_s = std::max(1.0, std::round(c.checkpoint.interval_s / step)) * step;
}
}  // namespace

void resolve_interval(GoodputConfig& c) {
  if (c.checkpoint.interval_rule.empty()) {
    snap_to_steps(c);
    return;
  }
  const auto sched = c.checkpoint.impl->schedule(c.checkpoint.env);
  const double rate = c.work_losing_rate_per_s();  // graceful preemptions lose no work: no reason to save more often
  const double delta = sched.blocking_s;
  double tau;
  if (!(rate > 0)) {
    // Nothing loses work: no periodic checkpoint pays, and the interval is the job's length (its
    // work, or its wall time); the rules' formulas gave sqrt(2 delta 1e12), 1.1e7 s for 60 s saves.
    tau = c.job.work_s > 0 ? c.job.work_s : c.job.horizon_s > 0 ? c.job.horizon_s : 86400.0;
  } else {
    const double m = 1.0 / rate;
    if (c.checkpoint.interval_rule == "young") tau = young_interval_s(delta, m);
    else if (c.checkpoint.interval_rule == "daly") tau = daly_higher_order_interval_s(delta, m);
    else tau = lambert_w_interval_s(delta, m);
  }
  // At least one step, and long enough for the slowest level's persist (a free checkpoint's
  // formulas give 0).
  c.checkpoint.interval_s = std::max(tau, sched.min_interval_s(c.job.step_time_s));
  snap_to_steps(c);
  // No longer than the job (its work, or its wall-time horizon), in whole steps not beyond it:
  // with failures rare the Daly interval is years, and the strategies table gave intervals longer
  // than the job (2026-12-07 review). The engine runs such an interval as the job's length (no
  // periodic checkpoint before the end), as the closed forms take it.
  const double job_len = std::max(c.job.work_s, c.job.horizon_s);
  if (job_len > 0 && c.checkpoint.interval_s > job_len) {
    const double step = c.job.step_time_s;
    c.checkpoint.interval_s = step > 0 ? std::max(1.0, std::floor(job_len / step + 1e-9)) * step : job_len;
  }
}

namespace {
// The expected events of one replica (interruptions and fail-slow episodes), and the figures the
// budget's error names their likelier cause by. Apart from check_simulation_budget, so that the
// searches price each of their evaluations with it (before 2026-12-05 only the configured
// interval was priced, and the sweep's 4x point hung a run that --no-search finished in 0.05 s;
// review).
struct EventEstimate {
  double per_replica = 0;  // 0 where nothing interrupts or slows the job
  double rate = 0, slow_rate = 0, losing = 0, mttf = INFINITY, restart = 0, keep = 1, tau = 0, stretch = 1, delta = 0, persist = 0;
  double blocking_s = 0;
  double weibull_events = 0, weibull_shape = 0, weibull_needed_s = 0, weibull_p = 0;
  bool weibull_binds = false;  // one Weibull process's own bound decides the count (the error says so)
};

// The simulation steps through every interruption of every replica. A failure rate far beyond any
// real fleet's (rate_scale 1e4 on a 16k-GPU job) would keep it busy for hours and, with a fixed
// amount of work, for ever: the expected count is checked first against a budget of about a minute
// of simulation. The wall time is Daly's with free checkpoints, a lower bound, so the check never
// refuses a job the simulation could finish within the budget. This part takes every process as
// Poisson (or more regular: Weibull shape >= 1); estimate_events below takes the Weibull
// processes of shape below 1 apart.
EventEstimate estimate_events_poisson(const GoodputConfig& c) {
  const double rate = c.interruption_rate_per_s();
  double slow_rate = 0;
  for (const auto& p : c.processes)
    if (p.kind == EventKind::FailSlow) slow_rate += c.process_rate_per_s(p);
  EventEstimate e;
  e.rate = rate;
  e.slow_rate = slow_rate;
  if (!(rate > 0) && !(slow_rate > 0)) return e;
  // Daly's wall time counts the work-losing interruptions only (mean_restart_s is theirs); graceful
  // preemptions lose no work and stretch the wall time by their own cost. Before 2026-12-02 they
  // were taken as Daly failures: a preemption-only job at a long interval was refused with 3e109
  // interruptions where it has 2 a day.
  // Interruptions that roll nothing back are left out of Daly's rollbacks here (a budget, not the
  // result): an elastic job continues past a node-losing crash, and checkpoint-on-failure saves
  // the state at a crash its copies survive. Both had been priced as Daly rollbacks, refusing an
  // elastic job whose interval exceeds the time between node failures (2026-12-04).
  const auto budget_sched = c.checkpoint.impl->schedule(c.checkpoint.env);
  double no_rollback = 0;
  for (const auto& p : c.processes) {
    if (p.kind != EventKind::Interrupt) continue;
    const bool continues = c.elastic.enabled && p.node_lost;
    const bool saved = budget_sched.on_failure && (!p.node_lost || c.nodes_lost(p) <= budget_sched.on_failure_survives_lost_nodes);
    if (continues || saved) no_rollback += c.process_rate_per_s(p);
  }
  const double losing = std::max(0.0, c.work_losing_rate_per_s() - no_rollback);
  const double mttf = rate > 0 ? 1.0 / rate : INFINITY, restart = c.mean_restart_s();
  const double keep = c.graceful_keep_fraction();
  // The job checkpoints at most once per its work (at its end): a longer interval is the work.
  const double tau = c.job.work_s > 0 ? std::min(c.checkpoint.interval_s, c.job.work_s) : c.checkpoint.interval_s;
  // The checkpoint's cost and the persist at risk, as the closed forms take them (goodput.cpp):
  // blocking time (or the wait for the previous persist), and a restart that also loses the
  // persist in flight. Before 2026-12-03 the budget took free checkpoints: a 2 h write against a
  // 6 min MTBF was accepted and ran for ever.
  const auto sched = c.checkpoint.impl->schedule(c.checkpoint.env);
  double min_cycle = 0;
  for (const auto& l : sched.levels) min_cycle = std::max(min_cycle, (l.persist_s + sched.blocking_s) / double(l.every_count));
  const double delta = std::max(sched.blocking_s, min_cycle - tau);
  // (A preemption's notice keeps the checkpoint landing within it: persist_at_risk_s, as the
  // closed forms take it since 2026-12-07, review.)
  double persist = 0;
  for (const auto& p : c.processes)
    if (p.kind != EventKind::FailSlow && !c.graceful(p)) {
      persist = c.mean_persist_at_risk_s(sched, tau);
      break;
    }
  const double progress = c.fail_slow_progress();
  // Slow episodes taken at their mean: the work and each interval's compute take 1/progress as
  // long, so an interval stretched beyond the time between failures never checkpoints (slowdown
  // 1000 with a crash a day and a 1 h interval ran for ever).
  const double stretch = progress > 0 ? 1.0 / progress : INFINITY;
  double wall = c.job.horizon_s;
  if (c.job.work_s > 0) {
    const double w = c.job.work_s * stretch, t = tau * stretch;
    wall = losing > 0 ? daly_expected_wall_s(w, t, delta, restart + persist, 1.0 / losing) : w * (t + delta) / t;
    wall = keep > 0 ? wall / keep : INFINITY;
    if (std::isnan(wall)) wall = INFINITY;
  }
  double per_replica = wall * (rate + slow_rate);
  // Daly's wall time takes every process as Poisson. Weibull gaps of shape above 1 are more
  // regular: a gap much longer than the mean is far rarer than an exponential's, and an interval
  // that needs one is finished after very many failures (shape 5, a 1 h MTBF and a 2 h interval:
  // about 7e9 per checkpoint, where Daly counts a few; the run hung, 2026-12-05 review). A lower
  // bound of the failures of one process p alone (the others only interrupt more): each of its
  // gaps g finishes floor((g - restart) / (interval + blocking)) intervals, so by Wald's identity
  // the job's intervals take at least intervals / sum_j S_p(restart + j (interval + blocking))
  // of its gaps, S_p the gap's survival. For an exponential this is Daly's growth e^{tau/M}.
  // Each process with its own restart (the mean over all had let one rare process with a long
  // requeue refuse a job that runs in 34 ms), and without the crashes that roll nothing back (an
  // elastic continuation, a save on failure), as Daly's count above. The sum stops after 10,000
  // terms; its rest is at most (1/span) x the integral of S beyond, below mean/span, so the
  // bound stays a lower bound (it had run a million terms, 21 ms, for a process that cannot bind).
  double weibull_events = 0, weibull_shape = 0, weibull_needed_s = 0, weibull_p = 0;
  if (c.job.work_s > 0) {
    const double span = tau * stretch + sched.blocking_s;
    const double intervals = std::ceil(c.job.work_s / tau);
    for (const auto& p : c.processes) {
      if (p.kind != EventKind::Interrupt || p.distribution != "weibull" || !(p.weibull_shape >= 1.0) || c.graceful(p)) continue;
      const bool continues = c.elastic.enabled && p.node_lost;
      const bool saved = budget_sched.on_failure && (!p.node_lost || c.nodes_lost(p) <= budget_sched.on_failure_survives_lost_nodes);
      if (continues || saved) continue;
      const double r = c.process_rate_per_s(p);
      if (!(r > 0) || !(span > 0)) continue;
      const double k = p.weibull_shape, mean = 1.0 / r, lambda = mean / std::tgamma(1.0 + 1.0 / k);
      const double own_restart = c.restart_s_of(p, sched);
      double sum = 0;
      bool converged = false;
      for (int64_t j = 1; j <= 10000; ++j) {
        const double x = own_restart + double(j) * span;
        const double term = std::exp(-std::pow(x / lambda, k));
        sum += term;
        if (x > lambda && term <= 1e-16 * sum) {
          converged = true;
          break;
        }
      }
      if (!converged) sum += mean / span;  // the rest, bounded above
      const double events = sum > 0 ? intervals / sum : INFINITY;
      if (events > weibull_events) {
        weibull_events = events;
        weibull_shape = k;
        weibull_needed_s = own_restart + span;
        weibull_p = std::exp(-std::pow((own_restart + span) / lambda, k));
      }
    }
    if (weibull_events > per_replica) {
      per_replica = weibull_events;
      e.weibull_binds = true;
    }
  }
  e.per_replica = per_replica;
  e.losing = losing;
  e.mttf = mttf;
  e.restart = restart;
  e.keep = keep;
  e.tau = tau;
  e.stretch = stretch;
  e.delta = delta;
  e.persist = persist;
  e.blocking_s = sched.blocking_s;
  e.weibull_events = weibull_events;
  e.weibull_shape = weibull_shape;
  e.weibull_needed_s = weibull_needed_s;
  e.weibull_p = weibull_p;
  return e;
}

// Weibull failures of shape below 1 (decreasing hazard: bursts of failures, then long quiet gaps)
// finish a job in fewer failures than Poisson ones of the same rate, as the long gaps complete
// many intervals each; Daly's Poisson count was no lower bound for them, and refused jobs the
// simulation finishes quickly (shape 0.3, a 1 h MTBF and an 8 h interval: 2.8e5 events per
// replica counted, 1,495 simulated in 0.16 s for 500 replicas; shape 0.75: 2.8e5 against 2.1e4;
// review of 2026-12-06). The count is then the sum of two lower bounds:
//  - the other processes, as estimate_events_poisson counts them without these (fewer processes
//    interrupt less: their wall time, and so their events, can only be shorter);
//  - each such process p, at least (a) its events over the work alone, work x rate (the wall time
//    is at least the work, and the process runs from its stationary state: its expected count
//    over a window of length w is w x rate, as the engine draws it), and at least (b) Wald's
//    count: the gap after each of its failures completes at most X = floor((g - R) / (tau + b))
//    checkpointed intervals (R its shortest restart: no restore, the cheaper of a spare and a
//    requeue; tau + b the interval at full speed and its blocking save), the gap before its
//    first failure (the forward recurrence G0) at most X0 = floor(G0 / (tau + b)), and the
//    intervals - 1 checkpoints must all be completed, so by Wald's identity (whether the job is
//    still running at a failure depends only on the gaps before it)
//        E[N] >= (intervals - 1 - E[X0]) / E[X],
//    E[X] = sum_j S(R + j (tau + b)), E[X0] = sum_j S_e(j (tau + b)), S the gap's survival and
//    S_e(x) = Q(1/k, (x / lambda)^k) the forward recurrence's. Each sum stops after 10,000
//    terms, E[X]'s rest bounded above by mean / (tau + b) and E[X0]'s by E[G0] / (tau + b), so
//    both stay on the side that keeps the count a lower bound.
// Where the job runs for a fixed wall time (no work) the count is exact for any shape: the
// horizon x the rates.
EventEstimate estimate_events(const GoodputConfig& c) {
  EventEstimate e = estimate_events_poisson(c);
  if (!(c.job.work_s > 0)) return e;
  auto decreasing = [&](const FailureProcess& p) {
    return p.distribution == "weibull" && p.weibull_shape < 1.0 && c.process_rate_per_s(p) > 0;
  };
  if (std::none_of(c.processes.begin(), c.processes.end(), decreasing)) return e;
  GoodputConfig others = c;
  others.processes.clear();
  for (const auto& p : c.processes)
    if (!decreasing(p)) others.processes.push_back(p);
  const EventEstimate rest = others.processes.empty() ? EventEstimate{} : estimate_events_poisson(others);
  double per_replica = rest.per_replica;
  e.weibull_events = rest.weibull_events;
  e.weibull_shape = rest.weibull_shape;
  e.weibull_needed_s = rest.weibull_needed_s;
  e.weibull_p = rest.weibull_p;
  e.weibull_binds = false;
  const auto sched = c.checkpoint.impl->schedule(c.checkpoint.env);
  const double tau = std::min(c.checkpoint.interval_s, c.job.work_s);
  const double span = tau + sched.blocking_s;
  const double intervals = std::ceil(c.job.work_s / tau);
  double top_wald = 0;
  for (const auto& p : c.processes) {
    if (!decreasing(p)) continue;
    const double r = c.process_rate_per_s(p);
    double events = c.job.work_s * r;  // (a)
    const bool continues = c.elastic.enabled && p.node_lost;
    const bool saved = sched.on_failure && (!p.node_lost || c.nodes_lost(p) <= sched.on_failure_survives_lost_nodes);
    if (p.kind == EventKind::Interrupt && !c.graceful(p) && !continues && !saved && span > 0 && intervals > 1) {  // (b)
      const double k = p.weibull_shape, mean = 1.0 / r, lambda = mean / std::tgamma(1.0 + 1.0 / k);
      const double restart = std::min(c.restart_s_of(p, sched, false, 0.0), c.restart_s_of(p, sched, false, 1.0));
      double ex = 0, ex0 = 0;
      bool ex_done = false, ex0_done = false;
      for (int64_t j = 1; j <= 10000 && !(ex_done && ex0_done); ++j) {
        const double x = restart + double(j) * span, x0 = double(j) * span;
        if (!ex_done) {
          const double term = std::exp(-std::pow(x / lambda, k));
          ex += term;
          ex_done = x > lambda && term <= 1e-16 * ex;
        }
        if (!ex0_done) {
          const double term0 = regularized_gamma_q(1.0 / k, std::pow(x0 / lambda, k));
          ex0 += term0;
          ex0_done = x0 > lambda && term0 <= 1e-16 * std::max(ex0, 1e-300);
        }
      }
      if (!ex_done) ex += mean / span;
      if (!ex0_done) ex0 += mean * std::exp(std::lgamma(1.0 + 2.0 / k) - 2.0 * std::lgamma(1.0 + 1.0 / k)) / 2.0 / span;
      const double wald = ex > 0 ? std::max(0.0, intervals - 1.0 - ex0) / ex : INFINITY;
      if (wald > events) {
        events = wald;
        if (wald > top_wald) {
          top_wald = wald;
          if (wald > e.weibull_events) {
            e.weibull_events = wald;
            e.weibull_shape = k;
            e.weibull_needed_s = restart + span;
            e.weibull_p = std::exp(-std::pow((restart + span) / lambda, k));
          }
        }
      }
    }
    per_replica += events;
  }
  // The message names the Weibull failures where one process's own bound is most of the count.
  e.weibull_binds = e.weibull_events > 0 && e.weibull_events >= 0.5 * per_replica;
  e.per_replica = per_replica;
  return e;
}
}  // namespace

double expected_events_per_replica(const GoodputConfig& c) { return estimate_events(c).per_replica; }

void check_simulation_budget(const GoodputConfig& c, const SourceLocation& where) {
  auto g4 = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return std::string(buf);
  };
  // Replicas are kept in memory (about 500 bytes each, with their per-cause times): 1e6 is 0.5 GB
  // and a confidence interval 30x narrower than at the default 1,000. Before 2026-12-03 a
  // failure-free job (rate_scale 1e-9) took any count, and 5e6 ended in std::bad_alloc.
  if (c.sim.replicas > kMaxReplicas || c.sim.search_replicas > kMaxReplicas)
    throw Error(where, (c.sim.replicas > kMaxReplicas ? "simulation.replicas " + std::to_string(c.sim.replicas)
                                                       : "simulation.search_replicas " + std::to_string(c.sim.search_replicas)) +
                           " is beyond the " + std::to_string(kMaxReplicas) + " replicas the simulation holds in memory",
                "at most " + std::to_string(kMaxReplicas) + " (the interval at 1,000 replicas is already about +-0.003 of ETTR)");
  const EventEstimate e = estimate_events(c);
  const double rate = e.rate, slow_rate = e.slow_rate, per_replica = e.per_replica, losing = e.losing, mttf = e.mttf, restart = e.restart;
  const double keep = e.keep, tau = e.tau, stretch = e.stretch, delta = e.delta, persist = e.persist;
  const double weibull_shape = e.weibull_shape, weibull_needed_s = e.weibull_needed_s, weibull_p = e.weibull_p;
  if (!(rate > 0) && !(slow_rate > 0)) return;
  // Replicas simulated: the main batch, then (with the search) about 19 evaluations of the interval
  // sweep and the strategies. A target ETTR's knobs add up to 75 more, fewer when a knob cannot
  // reach the target (one evaluation): they are left out of the count.
  const double searches = c.sim.search ? double(std::min(c.sim.search_replicas, c.sim.replicas)) * kBudgetedSearchEvaluations : 0.0;
  const double replicas = double(c.sim.replicas) + searches;
  if (per_replica * replicas <= kMaxSimulatedEvents) return;
  // Daly's ETTR is the same for any length of work: the interval over its expected wall time.
  const double t_s = tau * stretch;
  const double ettr = std::max(0.0, keep) * (losing > 0 ? tau / daly_expected_wall_s(t_s, t_s, delta, restart + persist, 1.0 / losing)
                                                        : tau / (t_s + delta));
  // The likelier cause: an interval far beyond the time between work-losing interruptions, or a
  // checkpoint (blocking or persist) that takes longer than that time.
  const bool long_interval = losing > 0 && c.job.work_s > 0 && tau * stretch > 1.0 / losing;
  const bool long_checkpoint = losing > 0 && delta + persist > 1.0 / losing;
  // A restart longer than the time between interruptions: the job spends most of its time
  // restarting, whatever its checkpoints (a restart 600x the MTBF was met with "a faster
  // checkpoint"; review of 2026-12-05).
  const bool long_restart = std::isfinite(mttf) && restart > mttf && restart >= delta + persist;
  std::string hint;
  if (e.weibull_binds)
    hint = "the Weibull failures (shape " + g4(weibull_shape) + ") rarely leave a gap of " + g4(weibull_needed_s) +
           " s, a restart and one checkpoint interval (probability " + g4(weibull_p) + " per failure): shorten checkpoint.interval_s "
           "below the typical gap, or a faster recovery. Else l";
  else if (long_restart)
    hint = "a restart takes " + g4(restart) + " s, beyond the " + g4(mttf) + " s between interruptions: the job would spend most of its time "
           "restarting; a faster recovery (recovery.*: detection, replacement, restart, warm-up) or fewer failures. Else l";
  else if (long_checkpoint)
    hint = "a checkpoint takes " + g4(delta + persist) + " s (blocking " + g4(e.blocking_s) + " s, persist at risk " + g4(persist) +
           " s), beyond the " + g4(1.0 / losing) + " s between work-losing interruptions: few checkpoints ever complete; a faster checkpoint "
           "(storage bandwidth, strategy) or fewer failures. Else l";
  else if (long_interval)
    hint = "checkpoint.interval_s (" + g4(c.checkpoint.interval_s) + " s" +
           (stretch > 1.0001 ? ", " + g4(tau * stretch) + " s of wall time with the fail-slow episodes' slowdown" : std::string()) +
           ") is beyond the " + g4(1.0 / losing) + " s between work-losing interruptions: the job would redo most of its work for ever; shorten it. Else l";
  else
    hint = "L";
  throw Error(where,
              "the job is interrupted every " + g4(mttf) + " s on average" + (slow_rate > 0 ? " (and slowed every " + g4(1.0 / slow_rate) + " s)" : "") +
                  " and a restart takes " + g4(restart) + " s: about " +
                  (std::isfinite(per_replica) ? g4(per_replica) : std::string("unboundedly many")) + " events per replica x " + g4(replicas) +
                  " replicas" + (c.sim.search ? " (with the searches)" : "") + ", beyond the simulation's budget of " + g4(kMaxSimulatedEvents) + " (Daly's model puts ETTR at " +
                  g4(ettr) + ")",
              hint + "ower simulation.replicas (or search_replicas, or search: false), failures.rate_scale, or the job's length "
                     "(job.duration_days, job.tokens, job.steps, job.work_s)");
}

static GoodputConfig parse_goodput_document(const std::string& text, const std::string& name,
                                            const std::vector<std::pair<std::string, std::string>>& overrides, const std::string& base_dir,
                                            bool check_budget) {
  YAML::Node n;
  n = parse_yaml_document(text, name);
  if (!n.IsMap()) throw Error(SourceLocation{name}, "a goodput input must be a YAML mapping (job:, failures:, recovery:, checkpoint:)");
  // A --set of checkpoint.strategy to another strategy than the file's: the file's options of its
  // own strategy that the new one does not read (sync-remote's nothing, multi-level's
  // peer_bytes_per_s, ...) would be unknown keys; they are left out, with a note. Before
  // 2026-12-02 such a switch was an "unknown key" error.
  std::string file_strategy = "sync-remote";
  bool strategy_set = false;
  if (n["checkpoint"].IsMap() && n["checkpoint"]["strategy"].IsScalar()) file_strategy = n["checkpoint"]["strategy"].Scalar();
  for (const auto& [k, v] : overrides) strategy_set |= k == "checkpoint.strategy";
  // The interval's spellings exclude each other (interval_s, interval_minutes, interval_steps, the
  // rule interval). A --set of one replaces the one the file writes, as any --set overrides the
  // file: `--set checkpoint.interval=daly` on a file of interval_minutes had been refused as "given
  // twice", and no override could switch a file to a rule (2026-12-06 review). A --set of an
  // interval key replaces every interval key the file writes, one or more: on a file of two, the
  // "given twice" hint's own remedy (a --set of one) had failed again, naming three keys (2026-12-06
  // review). Two given by --set are an error at "(--set)" (see the checkpoint's interval below).
  std::vector<std::string> interval_replaced;
  {
    static const char* const kIntervalKeys[] = {"interval_s", "interval_minutes", "interval_steps", "interval"};
    std::set<std::string> by_set;
    for (const auto& [k, v] : overrides)
      for (const char* ik : kIntervalKeys)
        if (k == std::string("checkpoint.") + ik) by_set.insert(ik);
    const YAML::Node& ck = n["checkpoint"];
    if (!by_set.empty() && ck.IsMap()) {
      std::vector<std::string> in_file;  // the file's interval keys that no --set names
      for (auto it = ck.begin(); it != ck.end(); ++it)
        if (it->first.IsScalar())
          for (const char* ik : kIntervalKeys)
            if (it->first.Scalar() == ik && !by_set.count(ik)) in_file.push_back(ik);
      for (const auto& k : in_file) n["checkpoint"].remove(k);
      if (!in_file.empty() && by_set.size() == 1) {
        std::string list;
        for (const auto& k : in_file) list += (list.empty() ? "" : " and ") + std::string("checkpoint.") + k;
        interval_replaced.push_back(list + " of the file " + (in_file.size() == 1 ? "is" : "are") + " replaced by --set checkpoint." +
                                    *by_set.begin() + " (the interval is given one way)");
      }
    }
  }
  for (const auto& [k, v] : overrides) {
    // An entry of failures.processes named by its index where the file lists none (its processes
    // are a preset's): the override had made a mapping of the missing list and read "expected a
    // list" (2026-12-06 review). A preset's process is changed by listing one of its name.
    const bool indexed = k.rfind("failures.processes.", 0) == 0 || k.rfind("failures.processes[", 0) == 0;
    if (indexed && !(n["failures"].IsMap() && n["failures"]["processes"].IsSequence())) {
      const bool preset = n["failures"].IsMap() && n["failures"]["preset"].IsScalar();
      throw Error(SourceLocation{name + " (--set)", 0, 0, k},
                  "the file has no failures.processes list to index" +
                      (preset ? ": its failure processes are preset " + n["failures"]["preset"].Scalar() + "'s" : std::string()),
                  "list a process under failures.processes (one named as a preset's replaces it), e.g. --set "
                  "'failures.processes=[{name: NAME, component: gpu, rate_per_1000_node_days: 1.5, distribution: weibull, shape: 3}]'; "
                  "failures.remove drops a preset's process, failures.rate_scale scales them all");
    }
    apply_yaml_override(n, k, v, name);
  }
  std::vector<std::string> left_out;
  if (strategy_set && n["checkpoint"].IsMap() && n["checkpoint"]["strategy"].IsScalar() &&
      n["checkpoint"]["strategy"].Scalar() != file_strategy) {
    const std::string to = n["checkpoint"]["strategy"].Scalar();
    const auto reg = make_checkpoint_registry();
    auto keys_of = [&](const std::string& strategy, std::vector<std::string>& keys) {
      try {
        YamlMap probe(YAML::Clone(n["checkpoint"]), name, "checkpoint");
        reg.create(strategy, probe.loc("strategy"), &probe);
        keys = probe.known_keys();
        return true;
      } catch (const Error&) {
        return false;  // an unknown strategy or a bad value: reported by the parse below
      }
    };
    std::vector<std::string> from_keys, to_keys;
    if (keys_of(file_strategy, from_keys) && keys_of(to, to_keys))
      for (const auto& k : from_keys)
        if (std::find(to_keys.begin(), to_keys.end(), k) == to_keys.end() && n["checkpoint"][k]) left_out.push_back(k);
    for (const auto& k : left_out) n["checkpoint"].remove(k);
    if (!left_out.empty()) {
      std::string list;
      for (const auto& k : left_out) list += (list.empty() ? "" : ", ") + std::string("checkpoint.") + k;
      left_out = {"checkpoint.strategy is " + to + " (--set): the file's options of " + file_strategy + " that " + to +
                  " does not read are left out: " + list};
    }
  }
  YamlMap root(n, name);
  check_keys_first(root, {"name", "description", "training", "job", "failures", "recovery", "checkpoint", "elastic", "simulation"});
  GoodputConfig c;
  c.file = name;
  c.notes.insert(c.notes.end(), left_out.begin(), left_out.end());
  c.notes.insert(c.notes.end(), interval_replaced.begin(), interval_replaced.end());
  c.name = root.str("name", fs::path(name).stem().string());
  c.description = root.str("description", "");

  // ---- training scenario (optional) and job
  std::optional<TrainingInfo> train;
  if (root.has("training")) {
    YAML::Node t = root.raw("training");
    if (t.IsScalar()) {
      const std::string path = resolve_near(t.Scalar(), base_dir);
      train = training_from_file(path, root.loc("training"));
    } else if (t.IsMap()) {
      // Read in place: a re-emitted copy lost the quoting ("8192" read as a number) and named its
      // own lines and keys (before 2026-12-03).
      train = training_from_node(t, name);
    } else {
      root.fail("training", "expected a scenario file path or an inline scenario mapping");
    }
  }
  YamlMap job = root.map("job");
  // The job's keys are checked first: a missing num_gpus, step time or length may be a misspelt key
  // (`job: {scenario: FILE}` where the top-level `training:` was meant had read as a missing
  // num_gpus; 2026-12-04 review), and so may a value compared with the scenario's.
  check_keys_first(job, {"num_gpus", "gpus_per_node", "dp", "nodes_per_replica", "tokens_per_step", "step_time_s", "tokens", "steps",
                         "work_s", "work_days", "duration_days", "duration_s"});
  JobConfig& j = c.job;
  if (train) {
    j.num_gpus = train->num_gpus;
    j.gpus_per_node = train->gpus_per_node;
    j.dp = train->dp;
    j.nodes_per_replica = train->nodes_per_replica;
    j.tokens_per_step = train->tokens_per_step;
    j.training_file = train->file;
  }
  if (job.has("num_gpus")) {
    const int64_t n = job.i64("num_gpus");
    // The training scenario sets the step time, tokens and replicas for its own GPU count: another
    // count made half the nodes fail half as often at the same throughput.
    if (train && n != j.num_gpus)
      job.fail("num_gpus", "num_gpus " + std::to_string(n) + " differs from the training scenario's " + std::to_string(j.num_gpus),
               "leave job.num_gpus out (the scenario gives it), or change the scenario's num_gpus");
    j.num_gpus = n;
  }
  // So do its nodes and replicas: 4 GPUs per node against the scenario's 8 had doubled the nodes
  // (and the failures) with the checkpoint still split over the scenario's (before 2026-12-03).
  auto shape_key = [&](const char* key, int64_t& field) {
    if (!job.has(key)) return;
    const int64_t v = job.i64(key);
    if (train && v != field)
      job.fail(key, std::string(key) + " " + std::to_string(v) + " differs from the training scenario's " + std::to_string(field),
               std::string("leave job.") + key + " out (the scenario gives it), or change the scenario");
    field = v;
  };
  shape_key("gpus_per_node", j.gpus_per_node);
  if (j.num_gpus <= 0) job.fail("num_gpus", "the job needs num_gpus (or a training: scenario)");
  if (j.gpus_per_node <= 0) job.fail("gpus_per_node", "must be >= 1");
  shape_key("dp", j.dp);
  shape_key("nodes_per_replica", j.nodes_per_replica);
  if (j.dp < 1) job.fail("dp", "must be >= 1");
  if (j.nodes_per_replica < 1) job.fail("nodes_per_replica", "must be >= 1");
  // Counts beyond any machine: their products overflowed (9.2e18 GPUs read -1.15e18 nodes).
  constexpr int64_t kMaxCount = 1000000000;
  for (const auto& [key, v] : {std::pair<const char*, int64_t>{"num_gpus", j.num_gpus}, {"gpus_per_node", j.gpus_per_node}, {"dp", j.dp},
                               {"nodes_per_replica", j.nodes_per_replica}})
    if (v > kMaxCount) job.fail(key, std::string(key) + " " + std::to_string(v) + " is beyond any machine", "at most 1e9");
  // Given replicas must tile the job's nodes: dp replicas of nodes_per_replica nodes each.
  if ((job.has("dp") || job.has("nodes_per_replica")) && j.dp * j.nodes_per_replica != j.nodes())
    job.fail(job.has("dp") ? "dp" : "nodes_per_replica",
             "dp (" + std::to_string(j.dp) + ") x nodes_per_replica (" + std::to_string(j.nodes_per_replica) + ") = " +
                 std::to_string(j.dp * j.nodes_per_replica) + " nodes, but the job has " + std::to_string(j.nodes()) + " (" +
                 std::to_string(j.num_gpus) + " GPUs / " + std::to_string(j.gpus_per_node) + " per node)",
             "the replicas must tile the job's nodes");
  if (job.has("tokens_per_step")) {
    const double v = whole_number(job, "tokens_per_step", 1, "a token count");
    // The scenario's step time is that of its own batch: another token count at that step time
    // was another token rate, taken without a word (--set job.tokens_per_step=1000 beside a
    // scenario; before 2026-12-05 review), where num_gpus and dp are refused.
    if (train && std::fabs(v - j.tokens_per_step) > 1e-9 * j.tokens_per_step)
      job.fail("tokens_per_step", "tokens_per_step " + format_double(v) + " differs from the training scenario's " + format_double(j.tokens_per_step),
               "leave job.tokens_per_step out (the scenario gives it: global_batch x seq_len), or change the scenario's batch");
    j.tokens_per_step = v;
  }
  if (job.has("step_time_s")) {
    j.step_time_s = positive(job, "step_time_s", &j.step_time_source);
    if (j.step_time_source.empty()) j.step_time_source = "given";
  } else if (train) {
    j.step_time_s = train_step_time_s(*train, root.loc("training"));
    j.step_time_source = "estimate of " + train->file;
    // A plan that does not fit is a job that does not run: its step time is still the rate used,
    // and said so (it had been taken without a word; review of 2026-12-05).
    const StepEstimate e = estimate_step(ir::lower(train->scenario));
    if (!e.fits) {
      char need[64];
      std::snprintf(need, sizeof need, "%.1f GiB per GPU of %.0f", e.memory.total_bytes() / 1073741824.0, e.memory_capacity_bytes / 1073741824.0);
      c.notes.push_back("training: " + train->file + "'s plan does not fit in memory by the model's accounting (" + need +
                        "): its step time is used, but that job would not run as planned (sextant plan finds one that fits)");
    }
    // An estimate beyond every measured MFU on its part is an upper bound, and so is what rests on
    // its step time: said here as estimate says it (a 16k-GPU job took a 51% MFU step and its
    // ETTR and time to train read 20% optimistic without a word; 2026-12-05 review).
    try {
      const auto bundled = Catalog::load_default();
      for (const auto& n : validated_range(default_validation_csvs(), *bundled, train->scenario, e.mfu_fraction, 0.0).notes)
        if (n.rfind("the predicted MFU ", 0) == 0)
          c.notes.push_back("training: " + train->file + ": " + n + "; the step time, time to train and goodput figures that rest on it are "
                            "optimistic alike (give job.step_time_s from a measured step to use it)");
    } catch (const Error&) {
      // Without the bundled catalog or validation rows there is no range to compare with.
    }
  }
  // tokens_per_step is read with the step time (the token rate); alone it did nothing, exit 0.
  if (job.has("tokens_per_step") && !(j.step_time_s > 0))
    job.fail("tokens_per_step", "needs the step time for a token rate", "add job.step_time_s or a training: scenario");
  // Job length: work (tokens, steps, work_s) or wall-clock horizon (duration).
  one_of(job, {"duration_days", "duration_s"}, "job.duration_days=2");
  one_of(job, {"work_days", "work_s"}, "job.work_days=30");
  const bool has_work = job.has("tokens") || job.has("steps") || job.has("work_s") || job.has("work_days");
  const bool has_horizon = job.has("duration_days") || job.has("duration_s");
  if (job.has("tokens")) j.tokens = whole_number(job, "tokens", 1, "a token count");
  if (has_horizon) {
    j.horizon_s = job.has("duration_days") ? positive(job, "duration_days") * 86400.0 : positive(job, "duration_s");
    // Named at the work key given (and the duration key beside it): the message had named
    // duration_days, at the mapping's first line, whatever the file and --set gave.
    for (const char* w : {"steps", "work_s", "work_days"})
      if (job.has(w))
        job.fail(w, std::string("give the job either as work (tokens, steps, work_s, work_days) or as a duration, not both: ") + w +
                        " and " + (job.has("duration_days") ? "duration_days" : "duration_s") + " are given",
                 "tokens: may accompany a duration (for the time-to-train estimate)");
    // The time-to-train estimate needs the nominal token rate: tokens without it were dropped
    // with no result and no note (before 2026-12-04).
    if (job.has("tokens") && !(j.tokens_per_step > 0 && j.step_time_s > 0))
      job.fail("tokens", "beside a duration, tokens are for the time-to-train estimate, which needs the token rate",
               j.tokens_per_step > 0 ? "add job.step_time_s or a training: scenario" : "add job.tokens_per_step and job.step_time_s, or a training: scenario");
  } else if (has_work) {
    // The work is given once: a second measure of it was ignored (steps beside tokens) or refused
    // as an unknown key (steps beside work_days).
    std::vector<std::string> given;
    for (const char* k : {"tokens", "steps", "work_s", "work_days"})
      if (job.has(k)) given.push_back(k);
    if (given.size() > 1)
      job.fail(given[1], "the job's work is given twice (" + given[0] + " and " + given[1] + ")",
               "keep one of tokens, steps, work_s, work_days");
    if (job.has("work_s")) j.work_s = positive(job, "work_s");
    else if (job.has("work_days")) j.work_s = positive(job, "work_days") * 86400.0;
    else {
      if (j.step_time_s <= 0) job.fail("step_time_s", "steps or tokens need the step time", "add step_time_s or a training: scenario");
      double steps;
      if (job.has("steps")) {
        const int64_t n = job.i64("steps");
        // 0 steps had no end event: the simulation ran for ever
        if (n < 1) job.fail("steps", "must be at least 1, got " + std::to_string(n));
        steps = double(n);
      }
      else {
        if (j.tokens_per_step <= 0) job.fail("tokens_per_step", "tokens need tokens_per_step (or a training: scenario)");
        steps = std::ceil(j.tokens / j.tokens_per_step);
      }
      j.work_s = steps * j.step_time_s;
    }
  } else {
    job.fail("", "the job needs its length", "one of tokens, steps, work_s, work_days (run to completion) or duration_days, duration_s (fixed wall time)");
  }
  job.finish();

  // ---- failures
  const double job_gpus_per_node = static_cast<double>(j.num_gpus) / static_cast<double>(j.nodes());
  YamlMap fm = root.map("failures");
  // (A key of no near miss, `preset_file:`, had read "no failure processes".)
  check_keys_first(fm, {"preset", "processes", "rate_scale", "remove"});
  if (fm.has("preset")) {
    c.preset = fm.str("preset");
    std::string path;
    try {
      // A relative path is read beside the input file first, as training: is (it was read from the
      // current directory only).
      const auto near = fs::path(base_dir) / c.preset;
      path = !fs::path(c.preset).is_absolute() && fs::is_regular_file(near) ? near.string() : preset_path(c.preset);
    } catch (const Error& e) {
      throw Error(fm.loc("preset"), e.message(), e.hint());
    }
    std::string desc;
    auto procs = parse_preset(YamlMap::load_file(path), job_gpus_per_node, &desc);
    std::string scaled;
    double scale = 1;
    for (const auto& p : procs)
      if (p.gpu_rate_scale != 1) {
        scaled += (scaled.empty() ? "" : ", ") + p.name;
        scale = p.gpu_rate_scale;
      }
    if (!scaled.empty())
      c.notes.push_back("failures: preset " + c.preset + "'s per-node rates of GPU and HBM failures (" + scaled +
                        ") were observed on nodes of " + format_double(job_gpus_per_node / scale) + " GPUs: scaled by " +
                        format_double(scale) + " to the job's " + format_double(job_gpus_per_node) +
                        " GPUs per node (the other components stay per node)");
    c.processes.insert(c.processes.end(), procs.begin(), procs.end());
  }
  std::vector<std::string> listed;  // the names failures.processes gives (failures.remove may not name one)
  if (fm.has("processes")) {
    std::map<std::string, std::string> sources;
    auto procs = parse_process_list(fm, "processes", Observed{}, sources, job_gpus_per_node);
    for (const auto& p : procs) listed.push_back(p.name);
    // A listed process replaces a preset's of its name, but two of the file's own were one
    // silently dropped (the first) before 2026-12-03.
    for (size_t i = 0; i < procs.size(); ++i)
      for (size_t j = i + 1; j < procs.size(); ++j)
        if (procs[i].name == procs[j].name)
          fm.fail("processes", "two failure processes are named '" + procs[i].name + "' (entries " + std::to_string(i + 1) + " and " +
                                   std::to_string(j + 1) + ")",
                  "give each process its own name (a process named as one of the preset's replaces that one)");
    for (auto& p : procs) {
      auto it = std::find_if(c.processes.begin(), c.processes.end(), [&](const FailureProcess& q) { return q.name == p.name; });
      if (it != c.processes.end()) *it = p;  // a listed process replaces the preset's of the same name
      else c.processes.push_back(p);
    }
  }
  for (const auto& p : c.processes) {
    if (p.distribution == "weibull" && p.weibull_shape_defaulted)
      c.notes.push_back("failure process " + p.name + ": weibull without shape, 0.75 assumed (Schroeder & Gibson, DSN 2006: "
                        "0.7-0.8 in the failure logs of large systems)");
    // Defaults that drive the result and have no published value: said, not silent.
    if (p.sdc_latency_defaulted)
      c.notes.push_back("failure process " + p.name + ": sdc without detection_latency_s, 3600 s assumed (an estimate, not a published "
                        "figure: the time until loss or gradient-norm checks flag the run); the rework grows with it");
    if (!p.preemption_defaulted_keys.empty())
      c.notes.push_back("failure process " + p.name + ": preemption without " + p.preemption_defaulted_keys +
                        ", 0 s assumed (" +
                        (p.preemption_defaulted_keys == "downtime_s"  ? std::string("no downtime: the nodes return at once")
                         : p.preemption_defaulted_keys == "notice_s" ? std::string("no notice: the work since the last checkpoint is lost")
                                                                     : std::string("no notice: the work since the last checkpoint is lost; "
                                                                                   "no downtime: the nodes return at once")) +
                        ")");
  }
  if (fm.has("rate_scale")) {
    // One message for any value not > 0 (-1 had been told ">= 0", and 0 then "> 0").
    c.failure_rate_scale = number(fm, "rate_scale");
    if (!(c.failure_rate_scale > 0) || !std::isfinite(c.failure_rate_scale))
      fm.fail("rate_scale", "must be > 0: a job without failures has no mean time to failure to plan against",
              "a tiny scale (e.g. 1e-9) approximates a failure-free job; failures.remove drops single processes");
  }
  if (fm.has("remove")) {
    const auto removed = fm.str_list("remove");
    // A name given twice is said so, as two processes of one name are: the second had been looked
    // up after the first removed it, and read "no failure process 'x' to remove" with a list of
    // valid names that left out the one given (2026-12-06 review).
    for (size_t i = 0; i < removed.size(); ++i)
      for (size_t j = i + 1; j < removed.size(); ++j)
        if (removed[i] == removed[j])
          fm.fail("remove", "'" + removed[i] + "' is given twice in failures.remove (entries " + std::to_string(i + 1) + " and " +
                                std::to_string(j + 1) + ")",
                  "name each process to remove once");
    // failures.remove drops a preset's processes: one the file also lists in failures.processes
    // had been added (or had replaced the preset's) and then deleted without a word, the job
    // running without the process the user had just described (2026-12-07 review).
    for (size_t i = 0; i < removed.size(); ++i)
      if (std::find(listed.begin(), listed.end(), removed[i]) != listed.end())
        fm.fail("remove", "'" + removed[i] + "' is named in both failures.processes and failures.remove (entry " + std::to_string(i + 1) +
                              "): remove drops a preset's processes, not one this file lists",
                "to run without it, delete its entry from failures.processes (remove still drops a preset's process of that name); "
                "to keep it, take it out of failures.remove");
    for (const auto& name_rm : removed) {
      auto it = std::find_if(c.processes.begin(), c.processes.end(), [&](const FailureProcess& q) { return q.name == name_rm; });
      if (it == c.processes.end()) {
        std::vector<std::string> names;
        for (const auto& q : c.processes) names.push_back(q.name);
        fm.fail("remove", "no failure process '" + name_rm + "' to remove", valid_choices_hint(name_rm, names));
      }
      c.processes.erase(it);
    }
  }
  if (c.processes.empty()) fm.fail("", "no failure processes", "give preset: NAME (" + [] {
    std::string s;
    for (const auto& n : failure_preset_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
  }() + ") and/or processes: [...]");
  fm.finish();
  // Fail-slow given as a slow GPU: its cost to this plan is what `simulate --straggler` says.
  for (auto& p : c.processes) {
    if (p.kind != EventKind::FailSlow || p.rank_slowdown_factor <= 0) continue;
    if (!train)
      fm.fail("processes", "fail-slow process '" + p.name + "' gives rank_slowdown_factor, which needs a training: scenario to simulate",
              "add training: SCENARIO, or give slowdown_factor (the step-time multiplier) instead");
    p.slowdown_factor = fail_slow_step_multiplier(*train, p.rank_slowdown_factor, root.loc("training"));
    c.notes.push_back("fail-slow '" + p.name + "': one GPU " + format_double(p.rank_slowdown_factor) + "x slower makes the step " +
                      format_double(p.slowdown_factor) + "x longer (simulate --straggler on " + train->file + ")");
  }

  // ---- recovery
  RecoveryConfig& r = c.recovery;
  if (auto rm = root.opt_map("recovery")) {
    r.detection_s = nonneg(*rm, "detection_s", r.detection_s);
    r.eviction_s = nonneg(*rm, "eviction_s", r.eviction_s);
    r.replacement = rm->choice("replacement", {"hot-spare", "warm-standby", "requeue"}, r.replacement);
    r.hot_spare_s = nonneg(*rm, "hot_spare_s", r.hot_spare_s);
    r.warm_standby_s = nonneg(*rm, "warm_standby_s", r.warm_standby_s);
    r.requeue_s = nonneg(*rm, "requeue_s", r.requeue_s);
    r.spares_count = rm->i64("spares", r.spares_count);
    if (r.spares_count < 0) rm->fail("spares", "must be >= 0");
    one_of(*rm, {"repair_days", "repair_s"}, "recovery.repair_days=2");
    r.repair_s = rm->has("repair_days") ? nonneg(*rm, "repair_days", 0) * 86400.0 : nonneg(*rm, "repair_s", r.repair_s);
    if (!std::isfinite(r.repair_s))
      rm->fail(rm->has("repair_days") ? "repair_days" : "repair_s", "overflows a double in seconds", "a repair time of days to months");
    r.restart_s = nonneg(*rm, "restart_s", r.restart_s);
    r.rendezvous_base_s = nonneg(*rm, "rendezvous_base_s", r.rendezvous_base_s);
    r.rendezvous_per_node_s = nonneg(*rm, "rendezvous_per_node_s", r.rendezvous_per_node_s);
    r.rendezvous_log2_s = nonneg(*rm, "rendezvous_log2_s", r.rendezvous_log2_s);
    r.warmup_s = nonneg(*rm, "warmup_s", r.warmup_s);
    r.fail_slow_evict_after_s = nonneg(*rm, "fail_slow_evict_after_s", r.fail_slow_evict_after_s);
    rm->finish();
  }

  // ---- checkpoint
  YamlMap cm = root.map("checkpoint");
  CheckpointConfig& ck = c.checkpoint;
  ck.strategy = cm.str("strategy", "sync-remote");
  const auto reg = make_checkpoint_registry();
  ck.impl = reg.create(ck.strategy, cm.loc("strategy"), &cm);
  // A key of another strategy's options is said to be that strategy's, with which strategy takes
  // which keys: `copies` under async-remote had read "unknown key ... did you mean
  // 'state_copies'?", an unrelated key (2026-12-07 review).
  {
    const auto& options = checkpoint_strategy_options();
    auto takes = [&](const std::string& strategy, const std::string& key) {
      for (const auto& [name, keys] : options)
        if (name == strategy) return std::find(keys.begin(), keys.end(), key) != keys.end();
      return false;
    };
    for (const auto& key : cm.keys()) {
      if (takes(ck.strategy, key)) continue;
      std::vector<std::string> owners;
      for (const auto& [name, keys] : options)
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) owners.push_back(name);
      if (owners.empty()) continue;
      auto join = [&](const char* last) {
        std::string s;
        for (size_t i = 0; i < owners.size(); ++i) s += (i ? (i + 1 == owners.size() ? last : ", ") : "") + owners[i];
        return s;
      };
      const std::string owned = join(" and ");
      std::string by_strategy, none;
      for (const auto& [name, keys] : options) {
        if (keys.empty()) {
          none += (none.empty() ? "" : ", ") + name;
          continue;
        }
        by_strategy += (by_strategy.empty() ? "" : "; ") + name + ": ";
        for (size_t i = 0; i < keys.size(); ++i) by_strategy += (i ? ", " : "") + keys[i];
      }
      cm.fail(key, "is an option of checkpoint.strategy " + owned + ", not of " + ck.strategy + " (the strategy here" +
                       (cm.has("strategy") ? "" : ", the default") + ")",
              "give checkpoint.strategy: " + join(" or ") + " to use it, or remove it. Strategy options (keys of checkpoint:): " +
                  by_strategy + (none.empty() ? std::string() : "; " + none + ": none"));
    }
  }
  CheckpointEnv& env = ck.env;
  env.nodes = j.nodes();
  env.nodes_per_replica = j.nodes_per_replica;
  // In-memory copies go to other nodes of the job, one each: at most nodes - 1 of them (a 1-node
  // job keeps its one copy in its own host memory). The strategy reads its options before the
  // node count is known, so the count is checked here: before 2026-12-05 copies 100 on 4 nodes
  // was taken without a word, charged 100 peer copies' persist (49 s against 1.5 s at 3) and
  // survived 3 lost nodes (review).
  if (ck.strategy == "in-memory" && cm.has("copies")) {
    const int64_t copies = cm.i64("copies"), peers = std::max<int64_t>(1, env.nodes - 1);
    if (copies > peers)
      cm.fail("copies",
              env.nodes <= 1 ? "is " + std::to_string(copies) + ": a one-node job has no other node; it keeps its one copy in its own host memory"
                             : "is " + std::to_string(copies) + ": more peer copies than the " + std::to_string(peers) + " other node(s) of the job's " +
                                   std::to_string(env.nodes) + " can hold (one copy per peer node)",
              "1 to " + std::to_string(peers));
  }
  // Size: explicit bytes, or parameters x bytes per parameter, sharded by the plan.
  double params = train ? train->params : 0;
  if (cm.has("params")) params = whole_number(cm, "params", 1, "a parameter count");
  ck.bytes_per_param = train ? train->checkpoint_bytes_per_param : 14.0;
  if (cm.has("bytes_per_param")) ck.bytes_per_param = positive(cm, "bytes_per_param");
  if (cm.has("bytes")) {
    for (const char* k : {"params", "bytes_per_param"})
      if (cm.has(k))
        cm.fail(k, std::string("is given with checkpoint.bytes, which sets the size by itself"),
                "give bytes, or params and bytes_per_param, not both");
    env.total_bytes = positive(cm, "bytes");
    j.checkpoint_size_source = "given";
  } else if (cm.has("bytes_per_param") && !(params > 0)) {
    // (accepted and ignored: a checkpoint of 0 bytes, 2026-12-04 review)
    cm.fail("bytes_per_param", "needs the parameters it multiplies: give checkpoint.params or a training scenario",
            "or give checkpoint.bytes");
  } else if (params > 0) {
    env.total_bytes = params * ck.bytes_per_param;
    j.checkpoint_size_source = format_double(params) + " parameters x " + format_double(ck.bytes_per_param) + " bytes";
  }
  env.state_copies = train ? train->state_copies : 1;
  if (cm.has("state_copies")) {
    env.state_copies = cm.i64("state_copies");
    if (env.state_copies < 1) cm.fail("state_copies", "must be 1 or more (copies of the training state in the job), got " + std::to_string(env.state_copies));
    // The copies are held by data-parallel replicas: at most dp of them (2 copies at dp 1 had
    // saved from a "healthy replica" after the only one was lost, 2026-12-04 review).
    if (env.state_copies > j.dp)
      cm.fail("state_copies", "is " + std::to_string(env.state_copies) + ", more copies of the training state than the job's " + std::to_string(j.dp) +
                                  " data-parallel replica(s) can hold",
              "at most job.dp (" + std::to_string(j.dp) + ")");
    // Shard i is held by the replicas i mod (dp / c) (HSDP's replicated shard groups): the copies
    // split the replicas into equal groups (3 copies at dp 128 had been taken without a word).
    if (j.dp % env.state_copies != 0) {
      std::string near;
      for (int64_t d = env.state_copies; d >= 1; --d)
        if (j.dp % d == 0) {
          near = std::to_string(d);
          break;
        }
      for (int64_t d = env.state_copies + 1; d <= j.dp; ++d)
        if (j.dp % d == 0) {
          near += " or " + std::to_string(d);
          break;
        }
      cm.fail("state_copies", "is " + std::to_string(env.state_copies) + ", which does not divide the job's " + std::to_string(j.dp) +
                                  " data-parallel replicas into equal shard groups",
              "a divisor of job.dp, e.g. " + near);
    }
  }
  // Per node: shards spread over the writer nodes (every node writes when the optimizer state is
  // sharded over data parallelism; otherwise one replica's nodes write).
  // Without a training scenario the state is spread evenly over the job's GPUs: a GPU holds
  // total / num_gpus and the fullest node gpus_per_node of those shards (fewer on a job smaller
  // than a node). Before 2026-12-03 a node's share was divided by gpus_per_node whatever the
  // job: one GPU of an 8-GPU node held an eighth of the state, its snapshot 8x too short.
  if (train) {
    env.per_node_bytes = env.total_bytes / std::max(1.0, train->writer_nodes);
    // The plan's shard, scaled by the size given here (a checkpoint.params or bytes override
    // keeps the plan's split: before 2026-12-04 the 405B shard stayed with an 8B checkpoint).
    const double plan_total = train->params * train->checkpoint_bytes_per_param;
    env.per_gpu_bytes = train->per_gpu_state_bytes * (plan_total > 0 ? env.total_bytes / plan_total : 1.0);
    // A size given beside the scenario is a deliberate override (a checkpoint of part of the
    // state, another optimizer): kept, and said, as it changes what the scenario's plan would
    // write (before 2026-12-05 checkpoint.params 7e9 on a 70B plan was taken without a word; review).
    if (plan_total > 0 && std::fabs(env.total_bytes - plan_total) > 1e-9 * plan_total) {
      std::string keys;
      for (const char* k : {"params", "bytes_per_param", "bytes"})
        if (cm.has(k)) keys += (keys.empty() ? "checkpoint." : ", checkpoint.") + std::string(k);
      auto g4 = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", v);
        return std::string(buf);
      };
      c.notes.push_back("checkpoint size " + g4(env.total_bytes) + " bytes from " + keys + ", in place of the training scenario's " +
                        g4(plan_total) + " (" + g4(train->params) + " parameters x " + g4(train->checkpoint_bytes_per_param) +
                        " bytes): the plan's per-GPU shard is scaled with it; the job, step time and tokens per step stay the scenario's");
    }
  } else {
    env.per_gpu_bytes = env.total_bytes / double(std::max<int64_t>(1, j.num_gpus));
    env.per_node_bytes = env.per_gpu_bytes * double(std::min(j.gpus_per_node, std::max<int64_t>(1, j.num_gpus)));
  }
  if (cm.has("per_gpu_bytes")) env.per_gpu_bytes = positive(cm, "per_gpu_bytes");
  env.storage_write_bytes_per_s = nonneg(cm, "storage_write_bytes_per_s", 0);
  env.storage_read_bytes_per_s = nonneg(cm, "storage_read_bytes_per_s", env.storage_write_bytes_per_s);
  env.node_storage_bytes_per_s = nonneg(cm, "node_storage_bytes_per_s", 0);
  // Bandwidths a strategy divides by: 0 given was an infinite copy ("gave no finite blocking time"
  // with no key, or a budget error about an infinite restart) before 2026-12-03.
  env.d2h_bytes_per_s = positive_or(cm, "d2h_bytes_per_s", 25e9);
  env.peer_bytes_per_s = positive_or(cm, "peer_bytes_per_s", 50e9);
  env.nvme_write_bytes_per_s = positive_or(cm, "nvme_write_bytes_per_s", 5e9);
  env.nvme_read_bytes_per_s = positive_or(cm, "nvme_read_bytes_per_s", env.nvme_write_bytes_per_s * 1.4);
  if (cm.has("write_s")) env.remote_write_s_override = nonneg(cm, "write_s", 0);
  if (cm.has("read_s")) env.remote_read_s_override = nonneg(cm, "read_s", 0);
  if (cm.has("snapshot_s")) {
    // An explicit device-to-host snapshot time. (It was a bandwidth over the shard's size, and
    // without a size the shard was set to 1 byte, which checkpoint_per_gpu_bytes then printed.)
    env.snapshot_s_override = positive(cm, "snapshot_s");
  }
  if (env.remote_write_s_override < 0) {
    if (env.total_bytes <= 0)
      cm.fail("bytes", "the checkpoint size is unknown", "give bytes, params (x bytes_per_param), write_s, or a training: scenario");
    if (env.storage_write_bytes_per_s <= 0)
      cm.fail("storage_write_bytes_per_s", "the remote storage write bandwidth is needed", "e.g. storage_write_bytes_per_s: 2.0e12, or write_s");
  }
  if (env.remote_read_s_override < 0 && env.storage_read_bytes_per_s <= 0 && env.total_bytes > 0)
    cm.fail("storage_read_bytes_per_s", "the remote storage read bandwidth is needed", "or read_s");
  if (env.remote_read_s_override < 0 && env.total_bytes <= 0) env.remote_read_s_override = env.remote_write_s_override;
  // A bandwidth so small that the checkpoint takes no finite time is named with its line, as the
  // schedule reads it: before 2026-12-06 the error came at `checkpoint` with no line and listed
  // four bandwidths, not the one at fault (review). The bandwidth that takes longest for its bytes
  // is named; it is the one at fault unless the size itself overflows.
  if (!std::isfinite(env.total_bytes))
    cm.fail(cm.has("bytes") ? "bytes" : cm.has("params") ? "params" : "bytes_per_param", "the checkpoint size overflows a double",
            "a checkpoint of at most about 1e15 bytes");
  {
    const auto sched = ck.impl->schedule(env);
    bool finite = std::isfinite(sched.blocking_s) && sched.blocking_s >= 0;
    for (const auto& l : sched.levels) finite = finite && std::isfinite(l.persist_s) && std::isfinite(l.restore_s);
    if (!finite) {
      struct Rate {
        const char* key;
        const char* what;
        double bytes;  // what one copy at this bandwidth moves
        double bytes_per_s;
        bool used;
      };
      const Rate rates[] = {
          {"storage_write_bytes_per_s", "all of", env.total_bytes, env.storage_write_bytes_per_s, env.remote_write_s_override < 0},
          {"storage_read_bytes_per_s", "all of", env.total_bytes, env.storage_read_bytes_per_s, env.remote_read_s_override < 0},
          {"node_storage_bytes_per_s", "a node's share of", env.per_node_bytes, env.node_storage_bytes_per_s, env.node_storage_bytes_per_s > 0},
          {"d2h_bytes_per_s", "a GPU's shard of", env.per_gpu_bytes, env.d2h_bytes_per_s, env.snapshot_s_override < 0},
          {"peer_bytes_per_s", "a node's share of", env.per_node_bytes, env.peer_bytes_per_s, true},
          {"nvme_write_bytes_per_s", "a node's share of", env.per_node_bytes, env.nvme_write_bytes_per_s, true},
          {"nvme_read_bytes_per_s", "a node's share of", env.per_node_bytes, env.nvme_read_bytes_per_s, true},
      };
      const Rate* worst = nullptr;
      double worst_s = -1;
      for (const auto& r : rates) {
        if (!r.used || !cm.has(r.key) || !(r.bytes > 0)) continue;
        const double t = r.bytes / r.bytes_per_s;
        if (!(t <= worst_s)) {
          worst = &r;
          worst_s = t;
        }
      }
      if (worst)
        cm.fail(worst->key,
                "is " + format_double(worst->bytes_per_s) + " bytes per second: moving " + worst->what + " the checkpoint, " +
                    format_double(worst->bytes) + " bytes, at it takes no finite time",
                "a bandwidth in bytes per second, e.g. 2.0e12 for storage, 25.0e9 for a device-to-host copy");
    }
  }
  // Interval
  {
    std::string given, given_by_set, second_by_set;
    for (const char* k : {"interval_s", "interval_minutes", "interval_steps", "interval"}) {
      if (!cm.has(k)) continue;
      given += std::string(given.empty() ? "" : " and ") + k;
      // Written by --set (a node of no position in the file): the file's own interval keys are
      // gone by now (a --set of one replaces them all, above), so two here came from --set, and
      // the error is the overrides', at "FILE (--set)"; it had named the file's checkpoint line
      // with the hint to --set one, which they had done (2026-12-06 review).
      if (cm.loc(k).line == 0) {
        if (!given_by_set.empty()) second_by_set = k;
        given_by_set += std::string(given_by_set.empty() ? "" : " and ") + k;
      }
    }
    if (!second_by_set.empty())
      cm.fail(second_by_set, "the checkpoint interval is given twice by --set: " + given_by_set,
              "give one --set of the interval: interval_s, interval_minutes, interval_steps, or interval (young | daly | "
              "lambert-w); it replaces the file's");
    if (given.find(" and ") != std::string::npos)
      cm.fail("", "the checkpoint interval is given twice: " + given,
              "give one of them: remove the others from the file, or a --set of one replaces them all, e.g. --set "
              "checkpoint.interval=daly");
    if (given.empty())
      cm.fail("", "the checkpoint interval is needed", "interval_s, interval_minutes, interval_steps, or interval: young | daly | lambert-w");
  }
  if (cm.has("interval_s")) ck.interval_s = positive(cm, "interval_s");
  if (cm.has("interval_minutes")) ck.interval_s = positive(cm, "interval_minutes") * 60.0;
  if (cm.has("interval_steps")) {
    if (j.step_time_s <= 0) cm.fail("interval_steps", "an interval in steps needs the step time");
    ck.interval_s = double(cm.i64("interval_steps")) * j.step_time_s;
    if (ck.interval_s <= 0) cm.fail("interval_steps", "must be >= 1");
  }
  if (cm.has("interval")) ck.interval_rule = cm.choice("interval", {"young", "daly", "lambert-w"});
  cm.finish();

  // ---- elastic
  ElasticConfig& el = c.elastic;
  if (auto em = root.opt_map("elastic")) {
    // A tuning key does not turn elastic continuation on: a bare `elastic: {reconfigure_s: 60}`
    // (or --set elastic.reconfigure_s=60, the default) had enabled it, the 405B example with two
    // state copies reading 0.9603 where it reads 0.9013 without the key (2026-12-07 review). Only
    // enabled: true does; tuning keys given without it are said to be ignored.
    el.enabled = em->boolean("enabled", false);
    if (!el.enabled) {
      std::string ignored;
      for (const char* k : {"reconfigure_s", "min_replica_fraction", "throughput"})
        if (em->has(k)) ignored += std::string(ignored.empty() ? "" : ", ") + "elastic." + k;
      if (!ignored.empty())
        c.notes.push_back(ignored + " set but elastic.enabled is " + (em->has("enabled") ? "false" : "not given (default false)") +
                          ": ignored (elastic.enabled: true turns elastic continuation on)");
    }
    el.reconfigure_s = nonneg(*em, "reconfigure_s", el.reconfigure_s);
    el.min_replica_fraction = nonneg(*em, "min_replica_fraction", el.min_replica_fraction);
    if (el.min_replica_fraction > 1)
      em->fail("min_replica_fraction", "must be within [0, 1] (the fraction of the data-parallel replicas the job needs to continue)",
               "got " + format_double(el.min_replica_fraction));
    const std::string tp = em->choice("throughput", {"estimate", "proportional"}, train ? "estimate" : "proportional");
    if (el.enabled) {
      if (j.dp < 2) em->fail("enabled", "elastic continuation needs data parallelism (dp >= 2)");
      // The lost replica's optimizer-state shards must live on a surviving one: with ZeRO over
      // the whole data-parallel group each shard exists once, and continuing needs a checkpoint
      // load, a global restart (the continuation was simulated anyway: ETTR 0.960 against 0.901).
      if (env.state_copies < 2)
        em->fail("enabled",
                 "elastic continuation needs every optimizer-state shard on a surviving replica, and the job holds one copy "
                 "of each (state_copies " + std::to_string(env.state_copies) + (train ? ": ZeRO shards it over dp" : "") + ")",
                 "with HSDP-style replicated shard groups, give checkpoint.state_copies (their count); else elastic.enabled: false");
      // At most 16 replicas out at once are modelled (each needs an estimate of the re-planned job).
      // At least one replica must survive (with none the state is gone: a global restart); a
      // fraction of 0 had let the job run on with no replica at the speed floor (before 2026-12-03).
      // (A rounding error of the product is not a replica: 0.56 x 25 is 14.000000000000002.)
      const int64_t need = std::max<int64_t>(1, int64_t(std::ceil(el.min_replica_fraction * double(j.dp) - 1e-9)));
      const int64_t max_lost = std::min<int64_t>(16, std::max<int64_t>(0, j.dp - need));
      // A floor that keeps every replica leaves nothing to continue on: elastic mode would be off
      // without a word (ETTR as with enabled: false, 2026-12-04 review).
      if (max_lost == 0)
        em->fail("min_replica_fraction",
                 "min_replica_fraction " + format_double(el.min_replica_fraction) + " of dp " + std::to_string(j.dp) + " keeps all " +
                     std::to_string(j.dp) + " replicas: no replica can be lost, so the job never continues elastically",
                 "at most " + format_double(double(j.dp - 1) / double(j.dp)) + " lets one replica go; or elastic.enabled: false");
      if (tp == "estimate") {
        if (!train) em->fail("throughput", "throughput: estimate needs a training: scenario", "use throughput: proportional");
        std::string fallback;
        el.throughput_fraction = elastic_throughput_fractions(*train, max_lost, em->loc("throughput"), &fallback);
        if (!fallback.empty()) c.notes.push_back(fallback);
        el.throughput_source = "estimate";
      } else {
        for (int64_t k = 0; k <= max_lost; ++k) el.throughput_fraction.push_back(double(j.dp - k) / double(j.dp));
        el.throughput_source = "proportional";
      }
    }
    em->finish();
  }

  // ---- simulation
  SimulationConfig& s = c.sim;
  if (auto sm = root.opt_map("simulation")) {
    s.replicas = sm->i64("replicas", s.replicas);
    const int64_t seed = sm->i64("seed", int64_t(s.seed));
    if (seed < 0) sm->fail("seed", "must be an integer from 0 to 2^63-1");
    s.seed = uint64_t(seed);
    // Checked before the narrowing (2147483648 had read "must be >= 0", 4294967297 as 1).
    const int64_t threads = sm->i64("threads", s.threads);
    if (threads < 0 || threads > 4096) sm->fail("threads", "must be from 0 (all cores) to 4096, got " + std::to_string(threads));
    s.threads = int(threads);
    s.target_ettr = sm->has("target_ettr") ? nonneg(*sm, "target_ettr", 0) : 0;
    s.search_replicas = sm->i64("search_replicas", s.search_replicas);
    s.search = sm->boolean("search", s.search);
    if (s.replicas < 2) sm->fail("replicas", "need at least 2 replicas for a confidence interval");
    if (s.search_replicas < 2) sm->fail("search_replicas", "must be >= 2");
    if (s.target_ettr >= 1) sm->fail("target_ettr", "an ETTR target is a fraction below 1");
    sm->finish();
  }
  root.finish();
  resolve_interval(c);
  c.simulation_loc = root.loc("simulation");
  if (check_budget) check_simulation_budget(c, c.simulation_loc);
  if (train) c.notes.insert(c.notes.end(), train->notes.begin(), train->notes.end());
  return c;
}

GoodputConfig parse_goodput(const std::string& text, const std::string& name,
                            const std::vector<std::pair<std::string, std::string>>& overrides, const std::string& base_dir,
                            bool check_budget) {
  // A key written without a value is an error: readers of optional keys had taken `restart_s:`
  // for an absent key and used its default (2026-12-06 review). It is looked for after the parse,
  // so that a misspelt key keeps its "did you mean" (`restart_ss:` had read "no value given"); and
  // where the parse failed otherwise, a key without a value is the likelier cause.
  auto reject_nulls = [&] {
    YAML::Node n = parse_yaml_document(text, name);
    if (!n.IsMap()) return;
    for (const auto& [k, v] : overrides) apply_yaml_override(n, k, v, name);
    reject_null_values(n, name);
  };
  GoodputConfig c;
  try {
    c = parse_goodput_document(text, name, overrides, base_dir, check_budget);
  } catch (const Error& e) {
    if (e.message() != "unknown key") reject_nulls();
    throw;
  }
  reject_nulls();
  return c;
}

GoodputConfig load_goodput(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides,
                           bool check_budget) {
  const std::string resolved = resolve_data_path(path);
  if (!fs::exists(resolved)) throw Error(SourceLocation{path}, "goodput input file not found", not_found_hint(path));
  return parse_goodput(read_file(resolved), resolved, overrides, fs::path(resolved).parent_path().string(), check_budget);
}

}  // namespace sextant::goodput
