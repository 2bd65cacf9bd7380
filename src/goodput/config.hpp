#pragma once
// The goodput input: a training job (its size, step time and checkpoint size, from a training
// scenario or given), its failure processes (from a bundled preset and/or listed), the recovery
// timeline, the checkpoint strategy and the simulation settings. Format: docs/goodput.md.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/yaml_reader.hpp"
#include "goodput/checkpoint/strategy.hpp"
#include "goodput/closed_forms.hpp"
#include "goodput/failures/distribution.hpp"

namespace sextant::goodput {

enum class EventKind {
  Interrupt,   // the job stops: crash or hang, optionally taking nodes with it
  Sdc,         // silent data corruption, found after a detection latency; roll back past it
  FailSlow,    // a rank runs slower for a while
  Preemption,  // planned: notice, graceful checkpoint, downtime, restart (maintenance, preemption)
};
std::string to_string(EventKind k);

// One failure process at job scope. Its events arrive as a renewal process whose inter-arrival
// distribution has mean 1/rate_per_s (rate summed over the job's nodes or domains).
struct FailureProcess {
  std::string name;
  std::string component;  // one of failure_components()
  EventKind kind = EventKind::Interrupt;
  // Rate: per node (grows with job size), per domain (correlated failures), or per job (does not).
  double rate_per_node_s = 0;
  double rate_per_domain_s = 0;
  double rate_per_job_s = 0;
  int64_t nodes_per_domain = 0;  // > 0: a correlated domain failure taking this many nodes
  std::string distribution = "exponential";
  double weibull_shape = 0.75;
  bool weibull_shape_defaulted = false;  // `distribution: weibull` without `shape:` (a note says so)
  bool sdc_latency_defaulted = false;       // sdc without detection_latency_s (a note says so)
  std::string preemption_defaulted_keys;    // "notice_s", "downtime_s" or both, left out of a preemption (a note says so)
  bool node_lost = true;          // the node(s) must be replaced (hardware), vs restart in place
  double detection_s = -1;        // < 0: recovery.detection_s
  // Preemption / maintenance
  double notice_s = 0, downtime_s = 0;
  // SDC
  double sdc_detection_latency_s = 0;  // mean, exponential
  // Fail-slow
  double slow_duration_s = 0;  // mean, exponential
  double slowdown_factor = 1;  // step time multiplier while slow
  // > 0: given instead of slowdown_factor, the compute slow-down of the one slow GPU; the step
  // multiplier is then simulated for the job's plan (needs a training: scenario).
  double rank_slowdown_factor = 0;
  std::string source;          // provenance text
  // A preset's per-node rate of a GPU-resident component (gpu, hbm) observed on nodes of another
  // size is scaled by the job's GPUs per node over the observation's: this factor (1: not scaled).
  double gpu_rate_scale = 1;
};

// The components a failure process may name (docs/goodput.md). A closed set, as two defaults
// rest on the name: a gpu or hbm rate observed on nodes of another size is scaled to the job's
// GPUs per node, and software and user failures keep their nodes. Before 2026-12-06 any text was
// taken, and `component: sofware` lost a node at every crash (review: ETTR 0.972 against 0.981).
const std::vector<std::string>& failure_components();
// Whether the component sits on a GPU (gpu, hbm): its failures grow with the GPUs, not the nodes.
bool gpu_resident_component(const std::string& component);
// Whether a crash of the component leaves its node usable (software, user): node_lost's default.
bool component_keeps_node(const std::string& component);
// The component of a process that names none: its name where that is a component, else "other".
std::string default_component(const std::string& process_name);

struct RecoveryConfig {
  double detection_s = 60;         // heartbeat / watchdog timeout for a crash
  double eviction_s = 180;         // diagnosis and eviction of the failed node(s) (hardware)
  std::string replacement = "hot-spare";  // hot-spare | warm-standby | requeue
  double hot_spare_s = 60;         // swap in an idle allocated node
  double warm_standby_s = 600;     // bring up a powered standby node
  double requeue_s = 3600;         // queue wait when no spare is left (or replacement = requeue)
  int64_t spares_count = 16;       // spare pool size (hot-spare / warm-standby)
  double repair_s = 3 * 86400.0;   // a failed node returns to the pool after this
  double restart_s = 0;            // fixed restart cost (process launch) per restart
  double rendezvous_base_s = 30;   // rendezvous + initialisation: base + per_node * nodes + log2 * log2(nodes)
  double rendezvous_per_node_s = 0;
  double rendezvous_log2_s = 0;
  double warmup_s = 60;            // first steps slower: data loader, allocator, NCCL warm-up
  double fail_slow_evict_after_s = 0;  // > 0: a slow node is evicted (graceful restart) after this

  double rendezvous_s(int64_t nodes) const;
};

struct ElasticConfig {
  bool enabled = false;
  double reconfigure_s = 60;      // pause to rebuild communicators without the lost replica
  double min_replica_fraction = 0.5;  // below this many replicas, fall back to a global restart
  // Throughput with k replicas lost, k = 0..max (fraction of full-job throughput).
  std::vector<double> throughput_fraction;
  std::string throughput_source;  // "estimate" or "proportional"
};

struct JobConfig {
  int64_t num_gpus = 0, gpus_per_node = 8;
  int64_t nodes() const { return (num_gpus + gpus_per_node - 1) / gpus_per_node; }
  int64_t dp = 1, nodes_per_replica = 1;
  double step_time_s = 0;
  double tokens_per_step = 0;
  double work_s = 0;        // > 0: run until this much training (seconds at full speed) is done
  double horizon_s = 0;     // > 0: run for this wall time
  double tokens = 0;        // tokens to train (for time-to-train); with horizon only informative
  std::string training_file;  // scenario the job came from ("" if explicit)
  std::string step_time_source, checkpoint_size_source;
};

struct CheckpointConfig {
  std::string strategy = "sync-remote";
  std::shared_ptr<const CheckpointStrategy> impl;
  std::string interval_rule;   // "" (explicit seconds) | young | daly | lambert-w
  double interval_s = 0;       // compute time between checkpoints (resolved)
  CheckpointEnv env;
  double bytes_per_param = 0;  // as used for total_bytes
};

struct SimulationConfig {
  int64_t replicas = 1000;
  uint64_t seed = 1;
  int threads = 0;             // 0 = hardware concurrency
  double target_ettr = 0;      // > 0: solve each knob for this ETTR
  int64_t search_replicas = 200;  // replicas per evaluation in the interval search and knob solving
  bool search = true;          // run the interval search and knob solving
};

struct GoodputConfig {
  std::string file, name, description;
  JobConfig job;
  std::vector<FailureProcess> processes;
  std::string preset;  // preset name, when one was used
  double failure_rate_scale = 1.0;
  RecoveryConfig recovery;
  CheckpointConfig checkpoint;
  ElasticConfig elastic;
  SimulationConfig sim;
  // Where the budget's error points: the `simulation` map (or the root) of the file read.
  SourceLocation simulation_loc;
  std::vector<std::string> notes;  // assumptions made while loading

  // Total event rate of one process over this job (events per second).
  double process_rate_per_s(const FailureProcess& p) const;
  // Sum over interrupting processes (Interrupt + Preemption + detected Sdc) per second.
  double interruption_rate_per_s() const;
  // A preemption whose notice covers the final checkpoint (blocking + remote persist) loses no
  // work: graceful. The closed forms take the work-losing events (interrupts, detected SDC,
  // preemptions with too short a notice) as Daly's failures, and charge each graceful one its
  // save and downtime and restart, without rework.
  bool graceful(const FailureProcess& p) const;
  double work_losing_rate_per_s() const;
  double graceful_rate_per_s() const;
  // Rate-weighted mean cost of a graceful preemption: its stop (graceful_stop_s) + downtime +
  // restart + restore + warm-up.
  double graceful_cost_s() const;
  // The mean time a graceful preemption of p (notice >= the final save S) costs before the job
  // stops, plus the work it loses, with checkpoints every interval_s: the cheapest of the final
  // save, stopping at once, and waiting for a remote checkpoint landing within the notice, as the
  // engine takes it (2026-12-07 review; S before). At most S.
  double graceful_stop_s(const FailureProcess& p, const CheckpointSchedule& sched, double interval_s) const;
  // The share of the wall time graceful preemptions leave the job, at rate lambda_g in wall time
  // each costing its save S, then D' (downtime + restart + restore + warm-up) that a preemption
  // arriving in it starts again (one during the save lets it finish): 1 / (lambda_g S +
  // e^{lambda_g D'}), the renewal form of Daly's e^{R/M}; 1 without graceful preemptions.
  double graceful_keep_fraction() const;
  // Rate of node-losing failures per node (for spare sizing).
  double node_loss_rate_per_node_s() const;
  // Nodes a failure of p takes from the job: 0 when it loses none, else its domain's nodes (1
  // without a domain), at most the job's (a 32-node domain failure takes all of an 8-node job's
  // 8; it took 32 before 2026-12-03 and every such failure requeued for want of spares).
  int64_t nodes_lost(const FailureProcess& p) const;
  // The sizes of p's node losses, each with its share of p's events: nodes_lost(p) alone, except
  // for a domain failure of a job that partly fills its last domain, whose events land in each of
  // its domains alike (the rate is per domain), 1/domains of them in the last, taking the job's
  // nodes there (2026-12-07 review: a 33-node job lost 32 nodes at each failure of its second
  // 32-node rack). The spare pool's loads and shares take them; the restore level and the
  // checkpoint on failure take nodes_lost(p), the most, as the first-order closed forms do.
  std::vector<std::pair<double, int64_t>> loss_sizes(const FailureProcess& p) const;
  // The checkpoint level a work-losing failure of p restores from: the lowest that survives the
  // nodes it loses; an SDC (rolled back past the corruption) and a preemption (nodes given back)
  // the remote one. The engine's choice when every level holds a checkpoint.
  size_t restore_level(const FailureProcess& p, const CheckpointSchedule& sched) const;
  // Mean recovery time of a work-losing interruption (closed forms' R), by rate-weighted average,
  // each restoring from its restore_level (before 2026-12-03 every failure was given the fastest
  // level's restore: a node-losing failure under multi-level NVMe + remote read 1,100 s where it
  // restores from remote in 108 s). `with_restore` false leaves the restore out (the multi-level
  // closed form adds each level's own).
  double mean_restart_s(bool with_restore = true) const;
  // The work a failure of p loses beyond Daly's (the time since its checkpoint cycle began), with
  // checkpoints every interval_s, as the engine runs it: the persist P of its restore_level (a
  // failure within P of that level's checkpoint falls back one more of its cycles, C_l =
  // every_count x max(interval + blocking, min_cycle)), less, for a preemption of notice n short
  // of the final save, what the notice saves: a checkpoint whose block or persist ends within n
  // of the notice is kept (the job waits for it), so a preemption d <= n before it lands saves
  // C_l - d against none (the wait d against a fall back of one cycle), on average over the cycle
  // n - n^2 / (2 C_l). Negative where the notice saves more than P (sync-remote, where P = 0 and
  // the block is the remote write). 2026-12-07 review: the closed forms had
  // charged P whatever the notice (async-remote, a 300 s persist, 299 s of notice: Daly 0.8338
  // where the simulation gives 0.8447).
  double persist_at_risk_s(const FailureProcess& p, const CheckpointSchedule& sched, double interval_s) const;
  // Its rate-weighted mean over the work-losing processes (those restoring from `level` alone
  // where level >= 0); the level's persist (the remote one's where level < 0) where there are none.
  double mean_persist_at_risk_s(const CheckpointSchedule& sched, double interval_s, int level = -1) const;
  // The spare pool's load: every loss that takes spares, each a class of its size with
  // mean_events = its rate per second of wall time x repair_s. Node-losing interrupts arrive over
  // the whole wall time (the engine draws them while the job is down too); slow-node evictions
  // only while it runs, at eviction_rate_per_s's rate per second of running times
  // running_fraction. The one load of requeue_share(s) and nodes_in_repair_mean, which take it
  // at pool_running_fraction().
  std::vector<LossGroup> spare_pool_loads(double running_fraction) const;
  // The load were the job up at full speed all the time (evictions at r e^{-a/d} per second of
  // wall time): an upper bound, which spares_p99_count sizes the pool with.
  std::vector<LossGroup> spare_pool_loads_at_full_speed() const;
  // The share of the wall time the job runs (neither recovering nor queueing for nodes), the
  // closed forms' view: u = max(0, 1 - lambda_g D_g - sum_k lambda_k R_k) / (1 + lambda_e D_e),
  // graceful preemptions and work-losing failures at their rates per second of wall time (the
  // engine draws them while the job is down too), each down for its recovery (restart_s_of, a
  // node loss requeueing at the pool's share), and slow-node evictions per second of running,
  // each down for eviction_cost_s. The shares depend on the pool's load, which depends on u
  // through the evictions: implied_running_fraction(u) is the u that the shares at load
  // spare_pool_loads(u) give, and running_fraction() its fixed point, u = implied(u), found by
  // bisection (implied is monotone in u, so the fixed point lies between implied(0) and
  // implied(1)) to within kRunningFractionTolerance, in at most 64 halvings. Before 2026-12-06
  // the pool took the evictions at their rate as if the job always ran (review: 5 spares, a job
  // queueing 0.29 of its wall time, a share of 0.76 where the simulation requeues 0.60).
  double running_fraction() const;
  double implied_running_fraction(double running_fraction) const;
  // The running fraction the pool's load takes: running_fraction() where slow-node evictions load
  // a pool that may run short, else 1 (the load does not depend on it; nothing is solved).
  double pool_running_fraction() const;
  // The job's wall time as the closed forms take it for the pool: the horizon, or the work at the
  // fail-slow episodes' mean progress for a job run to completion (a lower bound of its wall).
  double closed_form_wall_s() const;
  // The share of p's node losses that find the spare pool short and requeue, over a job of
  // closed_form_wall_s starting with a full pool: the multi-rate Erlang loss system
  // (spare_pool_requeue_share) loaded by spare_pool_loads; 1 under replacement: requeue or where
  // p loses more nodes than the pool holds. requeue_shares: one per process, in one pass.
  // The shares at pool_running_fraction(); requeue_shares(u) at the load spare_pool_loads(u).
  double requeue_share(const FailureProcess& p) const;
  std::vector<double> requeue_shares() const;
  std::vector<double> requeue_shares(double running_fraction) const;
  // The nodes in repair on average over the job (closed_form_wall_s), the pool's load growing
  // from none at the start to spare_pool_loads' after a repair time.
  double nodes_in_repair_mean() const;
  // Slow-node evictions (recovery.fail_slow_evict_after_s) per second of running: each fail-slow
  // episode outlasting the cap, episodes starting only while the job runs at full speed. Each is a
  // graceful interruption (no work lost) costing eviction_cost_s: the final save, the eviction,
  // a spare or a requeue at the pool's share, the restart, the remote restore and the warm-up.
  // The closed forms multiply their ETTR by 1 / (1 + rate x cost). 0 without evictions.
  double eviction_rate_per_s() const;
  double eviction_cost_s() const;
  // An eviction's cost where a share `requeue` of them find the pool short.
  double eviction_cost_s(double requeue) const;
  // The share of full speed the fail-slow episodes leave, at their mean rates and durations
  // (capped at fail_slow_evict_after_s): 1 without them. The closed forms leave them out.
  double fail_slow_progress() const;
  // The recovery timeline of one unplanned interruption of process p (mean_restart_s's term);
  // `requeue` the share of its node losses that requeue (requeue_share(p) where negative).
  double restart_s_of(const FailureProcess& p, const CheckpointSchedule& sched, bool with_restore = true, double requeue = -1) const;
};

// How close running_fraction() brings u to implied_running_fraction(u): |u - implied(u)| <= this.
inline constexpr double kRunningFractionTolerance = 1e-6;

// Throws Error (at `where`) when the expected interruptions over every replica, searches included,
// exceed the simulation's budget (docs/goodput.md, Engine).
// Replicas are held in memory (about 500 bytes each): more than this is refused.
inline constexpr int64_t kMaxReplicas = 1000000;
// Events simulated, at about 150 ns each (measured 2026-12-03: 5.1e7 events in 6.6 s on one
// core): 2e8 is about half a minute of the main batch and searches.
inline constexpr double kMaxSimulatedEvents = 2e8;
// The search evaluations the budget reserves beside the main batch (the interval sweep and the
// strategies, search_replicas each): each evaluation of a search is held to its share,
// kMaxSimulatedEvents / kBudgetedSearchEvaluations.
inline constexpr double kBudgetedSearchEvaluations = 19;
void check_simulation_budget(const GoodputConfig& c, const SourceLocation& where);
// The expected events (interruptions, fail-slow episodes) of one replica of c: the count
// check_simulation_budget holds to the budget, a lower bound of the simulation's.
double expected_events_per_replica(const GoodputConfig& c);

// Load from a YAML file (path as given, or relative to data/). `overrides` are dotted key=value
// pairs applied to the YAML before reading (`--set checkpoint.interval_s=1800`). With
// check_budget false the caller applies its own options (replicas, search) first and then calls
// check_simulation_budget itself: a file over budget may be brought within it by them.
GoodputConfig load_goodput(const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& overrides = {}, bool check_budget = true);
GoodputConfig parse_goodput(const std::string& yaml_text, const std::string& name,
                            const std::vector<std::pair<std::string, std::string>>& overrides = {},
                            const std::string& base_dir = ".", bool check_budget = true);

// A failure preset (data/goodput/<name>.yaml or a path): its processes.
std::vector<FailureProcess> load_failure_preset(const std::string& name_or_path, std::string* description = nullptr);
std::vector<std::string> failure_preset_names();

// Re-resolve the checkpoint schedule-dependent values after a knob change (interval rules).
void resolve_interval(GoodputConfig& c);

}  // namespace sextant::goodput
