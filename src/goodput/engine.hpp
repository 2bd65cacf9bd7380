#pragma once
// Monte Carlo discrete-event simulation of a whole training job under failures (docs/goodput.md).
//
// One replica simulates the job from start to completion (or to the wall-clock horizon). Events
// are few per replica: failure arrivals of each process at job scope (renewal processes in wall
// time), SDC detections, fail-slow episode ends, elastic re-joins and the end of the job. Between
// events the job's progress under periodic checkpointing is computed in closed form (a period of
// constant speed: compute tau, block b, wait for persists), so the cost per replica is O(events),
// independent of the number of checkpoints and GPUs.
//
// Determinism: replica i draws only from RandomStream(seed, i); replicas are independent and
// written to their own slot; reductions run in replica order. Results do not depend on threads.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "goodput/config.hpp"

namespace sextant::goodput {

enum Cause : int {
  kCheckpointSave = 0,  // stalls for checkpoints (blocking, waiting for persists, final/graceful saves)
  kRestore,             // loading a checkpoint
  kRework,              // computation redone after a rollback
  kDetection,           // failure detection (heartbeat/watchdog timeout)
  kEviction,            // diagnosis and eviction of failed nodes
  kReplacement,         // swapping in a spare
  kQueueing,            // waiting in the queue for nodes (no spare left, or requeue)
  kRestart,             // process restart, rendezvous and initialisation, elastic reconfiguration
  kWarmup,              // slower first steps after a restart
  kDegraded,            // time lost running slow (fail-slow, fewer elastic replicas)
  kDowntime,            // planned downtime after a preemption or maintenance notice
  kCorrupted,           // work done since a silent data corruption still undetected when the job ends
  kCauseCount
};
const char* cause_name(int c);

// Everything one replica needs, flattened from a GoodputConfig.
struct SimModel {
  struct Proc {
    EventKind kind = EventKind::Interrupt;
    std::unique_ptr<InterArrival> dist;  // null when the rate is 0
    bool node_lost = false;
    int64_t nodes_lost = 1;
    // A domain process on a job that partly fills its last domain (2026-12-07 review): the job's
    // domains, and its nodes in the last one (0 where every domain is full), which an event there
    // takes instead of nodes_lost.
    int64_t domains = 1, last_domain_nodes = 0;
    double detection_s = 0, notice_s = 0, downtime_s = 0, sdc_latency_mean_s = 0;
    double slow_duration_mean_s = 0, slowdown = 1;
  };
  double work_s = 0, horizon_s = 0, step_time_s = 0;
  int64_t nodes = 1, dp = 1, nodes_per_replica = 1;
  double tau_s = 0;  // compute between checkpoints
  CheckpointSchedule sched;
  // Recovery
  double eviction_s = 0, hot_spare_s = 0, warm_standby_s = 0, requeue_s = 0, repair_s = 0;
  int replacement = 0;  // 0 hot spare, 1 warm standby, 2 requeue
  int64_t spares = 0;
  double restart_s = 0;  // restart + rendezvous
  double warmup_s = 0;
  double evict_slow_after_s = 0;
  // Elastic
  bool elastic = false;
  double reconfigure_s = 0;
  std::vector<double> elastic_throughput;  // index: replicas lost
  // Copies of each optimizer-state shard (HSDP: dp = state_copies groups x dp / state_copies
  // shards; replica i holds shard i mod that): a continuation that loses every copy of a shard
  // is a global restart.
  int64_t state_copies = 1;
  std::vector<Proc> procs;
  // Exponential processes are pooled: one Poisson stream of the summed rate, the process drawn by
  // its share (exact by memorylessness; one draw per event instead of one per process).
  std::vector<int> pooled;          // indices into procs
  std::vector<double> pooled_cum;   // cumulative rates
  double pooled_rate_per_s = 0;
};
SimModel build_model(const GoodputConfig& c);

struct ReplicaResult {
  double wall_s = 0;        // makespan (work mode) or horizon
  double productive_s = 0;  // useful training time (work done at full speed)
  std::array<double, kCauseCount> lost_s{};
  int64_t interruptions = 0;  // restarts of the job (unplanned + planned)
  int64_t requeues = 0;
  int64_t max_nodes_in_repair = 0;
  int64_t remote_fallbacks = 0;  // restores that could not use a faster level
  bool undetected_sdc = false;   // the job ended with a silent data corruption not yet detected
  double ettr() const { return wall_s > 0 ? productive_s / wall_s : 0; }
};

// Runs one replica. counts (size = procs) receives the events of each process that took effect,
// absorbed the arrivals that did not (an SDC while one is pending or the job is down, a fail-slow
// episode while one lasts or the job is down; 2026-12-07 review); per_proc_lost_s the rework and
// recovery time each process caused.
ReplicaResult simulate_replica(const SimModel& m, uint64_t seed, uint64_t replica, int64_t* counts, int64_t* absorbed,
                               double* per_proc_lost_s);

struct Batch {
  std::vector<ReplicaResult> replicas;
  std::vector<int64_t> counts;       // replicas x procs: events that took effect
  std::vector<int64_t> absorbed;     // replicas x procs: arrivals that took none (simulate_replica)
  std::vector<double> proc_lost_s;   // replicas x procs
  size_t procs = 0;
};
// Replicas [0, n) with seed, on `threads` threads (0 = hardware concurrency).
Batch simulate_batch(const SimModel& m, int64_t n, uint64_t seed, int threads);
// E[productive] / E[wall] over the replicas, as run_goodput's ettr_fraction (searches).
double mean_ettr(const SimModel& m, int64_t n, uint64_t seed, int threads);

}  // namespace sextant::goodput
