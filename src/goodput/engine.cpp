#include "goodput/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "core/c_locale.hpp"
#include "core/error.hpp"
#include "core/random.hpp"
#include "core/threads.hpp"

namespace sextant::goodput {

const char* cause_name(int c) {
  static const char* names[kCauseCount] = {"checkpoint_save", "restore",  "rework",  "detection",
                                           "eviction",        "replacement", "queueing", "restart",
                                           "warmup",          "degraded", "downtime", "undetected_corruption"};
  return c >= 0 && c < kCauseCount ? names[c] : "?";
}

SimModel build_model(const GoodputConfig& c) {
  SimModel m;
  m.work_s = c.job.work_s;
  m.horizon_s = c.job.horizon_s;
  m.step_time_s = c.job.step_time_s;
  m.nodes = c.job.nodes();
  m.dp = c.job.dp;
  m.nodes_per_replica = c.job.nodes_per_replica;
  m.tau_s = c.checkpoint.interval_s;
  if (!(m.tau_s > 0)) throw Error("goodput: the checkpoint interval must be positive");
  m.sched = c.checkpoint.impl->schedule(c.checkpoint.env);
  // At the file and the checkpoint section, naming the rates (a bandwidth of 1e-300 had been
  // called 0, with neither file nor key; 2026-12-06 review).
  const char* rates = "checkpoint.storage_write_bytes_per_s, storage_read_bytes_per_s, node_storage_bytes_per_s and d2h_bytes_per_s are "
                      "in bytes per second (e.g. 2.0e12)";
  if (!(m.sched.blocking_s >= 0) || !std::isfinite(m.sched.blocking_s))
    throw Error(SourceLocation{c.file, 0, 0, "checkpoint"},
                "checkpoint strategy '" + c.checkpoint.strategy + "' blocks the training for no finite time: a bandwidth is too small for the checkpoint's bytes",
                rates);
  for (const auto& l : m.sched.levels)
    if (!std::isfinite(l.persist_s) || !std::isfinite(l.restore_s))
      throw Error(SourceLocation{c.file, 0, 0, "checkpoint"},
                  "checkpoint level '" + l.name + "' takes no finite time to " + (std::isfinite(l.persist_s) ? "read" : "write") +
                      ": a bandwidth is too small for the checkpoint's bytes",
                  rates);
  const auto& r = c.recovery;
  m.eviction_s = r.eviction_s;
  m.hot_spare_s = r.hot_spare_s;
  m.warm_standby_s = r.warm_standby_s;
  m.requeue_s = r.requeue_s;
  m.repair_s = r.repair_s;
  m.replacement = r.replacement == "hot-spare" ? 0 : r.replacement == "warm-standby" ? 1 : 2;
  m.spares = r.spares_count;
  m.restart_s = r.restart_s + r.rendezvous_s(m.nodes);
  m.warmup_s = r.warmup_s;
  m.evict_slow_after_s = r.fail_slow_evict_after_s;
  m.elastic = c.elastic.enabled && c.elastic.throughput_fraction.size() > 1;
  m.reconfigure_s = c.elastic.reconfigure_s;
  m.elastic_throughput = c.elastic.throughput_fraction;
  m.state_copies = std::max<int64_t>(1, c.checkpoint.env.state_copies);
  const auto dists = make_distribution_registry();
  for (const auto& p : c.processes) {
    SimModel::Proc q;
    q.kind = p.kind;
    const double rate = c.process_rate_per_s(p);
    if (rate > 0) {
      q.dist = p.distribution == "weibull" ? make_weibull_shape(1.0 / rate, p.weibull_shape)
                                           : dists.create(p.distribution, {}, 1.0 / rate, nullptr);
    }
    q.node_lost = p.node_lost;
    q.nodes_lost = std::max<int64_t>(1, c.nodes_lost(p));  // at most the job's nodes
    if (q.node_lost && p.nodes_per_domain > 0 && p.rate_per_domain_s > 0) {
      // The job's domains, and its nodes in the last where it partly fills it (nodes_taken).
      q.domains = (m.nodes + p.nodes_per_domain - 1) / p.nodes_per_domain;
      const int64_t last = m.nodes - (q.domains - 1) * p.nodes_per_domain;
      if (q.domains > 1 && last < p.nodes_per_domain) q.last_domain_nodes = last;
    }
    q.detection_s = p.detection_s >= 0 ? p.detection_s : r.detection_s;
    q.notice_s = p.notice_s;
    q.downtime_s = p.downtime_s;
    q.sdc_latency_mean_s = p.sdc_detection_latency_s;
    q.slow_duration_mean_s = p.slow_duration_s;
    q.slowdown = p.slowdown_factor;
    if (rate > 0 && p.distribution == "exponential") {
      m.pooled_rate_per_s += rate;
      m.pooled.push_back(int(m.procs.size()));
      m.pooled_cum.push_back(m.pooled_rate_per_s);
    }
    m.procs.push_back(std::move(q));
  }
  return m;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxLevels = 4;
constexpr int kMaxPhases = 10;

// A stretch of running at constant speed. Virtual start s (a cycle boundary, possibly before the
// actual start a): cycles of compute tc = tau * slow, blocking b, then waiting w (C = tc + b + w).
struct Period {
  double s = 0, a = 0, W0 = 0, slow = 1, tc = 0, C = 0;
  double fail_slow = 1;  // the fail-slow factor within slow (the rest is elastic)
  int64_t n0 = 0;
  double tau = 0, b = 0;

  double cum_save(double t) const {
    const double u = t - s;
    const double j = std::floor(u / C);
    const double r = u - j * C;
    return j * (C - tc) + std::max(0.0, r - tc);
  }
  double progress(double t) const {
    const double u = t - s;
    const double j = std::floor(u / C);
    const double r = u - j * C;
    return W0 + j * tau + std::min(r, tc) / slow;
  }
  // Index (1-based, within this period) of the last checkpoint whose block ended by t - extra.
  int64_t blocks_done(double t, double extra) const {
    const double v = t - s - tc - b - extra;
    if (v < 0) return 0;
    return int64_t(std::floor(v / C)) + 1;
  }
  double block_end(int64_t j) const { return s + double(j - 1) * C + tc + b; }
};

// The process a phase is charged to: the plan's own (Plan::proc), unless a replica's rejoin
// lengthened the plan (Sim::rejoin_while_down), which is charged to the process that removed it.
constexpr int kPlanProc = -2;

struct Phase {
  int cause;
  double dur;
  int proc = kPlanProc;
};

struct Plan {
  double start = 0;
  Phase ph[kMaxPhases];
  int n = 0;
  double resume_W = 0;
  int commit_after = -1;  // phase index whose completion makes commit_W durable (remote)
  double commit_W = 0;
  int proc = -1;
  // An elastic continuation or a replica's rejoin: no state was rolled back, so the checkpoint
  // cycle goes on where it was (the interval is not restarted); a rejoin also keeps the saves in
  // flight (no failure). Before 2026-12-03 both restarted the interval and dropped the saves.
  bool continues_cycle = false;
  bool keeps_saves = false;
  double total() const {
    double t = 0;
    for (int i = 0; i < n; ++i) t += ph[i].dur;
    return t;
  }
  void add(int cause, double dur) {
    if (dur > 0 && n < kMaxPhases) ph[n++] = {cause, dur};
  }
  int proc_of(int i) const { return ph[i].proc == kPlanProc ? proc : ph[i].proc; }
};

struct Sim {
  const SimModel& m;
  RandomStream rng;
  ReplicaResult res;
  int64_t* counts;
  int64_t* absorbed;
  double* proc_lost;

  int L = 0;
  double durable[kMaxLevels];
  double pend_W[kMaxLevels], pend_t[kMaxLevels];
  int64_t pend_n[kMaxLevels];  // the number of the checkpoint each level is persisting
  int64_t ckpt_count = 0;  // checkpoints taken so far (multi-level numbering)
  // The periodic checkpoints of the current line of progress, one run per period: indices
  // n0 + 1 .. n0 + jb at progress W0 + j tau. A restore takes the index of the state it restores
  // (checkpoints_up_to), as a framework saving at step % interval restores the step: before
  // 2026-12-06 the count went on through the checkpoints a rollback discarded, so after restoring
  // remote checkpoint 10 with 11-14 lost the next remote save (every 10th) came 6 intervals later
  // (in-memory every 1,800 s with remote_every 10 read 0.651 under preemptions where remote saves
  // every 18,000 s give 0.614; review).
  struct CheckpointRun {
    double W0, tau;
    int64_t n0, jb;
  };
  std::vector<CheckpointRun> runs;

  // The number of periodic checkpoints at or before progress W on the current line, dropping
  // those after it (rolled back).
  int64_t checkpoints_up_to(double W) {
    while (!runs.empty()) {
      CheckpointRun& r = runs.back();
      const double k = std::floor((W - r.W0) / r.tau + 1e-9);
      if (k >= 1) {
        r.jb = int64_t(std::min(k, double(r.jb)));
        return r.n0 + r.jb;
      }
      runs.pop_back();
    }
    return 0;
  }

  bool up = true;
  double carry_until = -kInf;  // end of an aborted plan's wait (abort_plan)
  int carry_cause = 0;
  Period per;
  double t_done = kInf;  // work mode: compute of the last work ends (then final save)
  Plan plan;

  // Fail-slow and elastic state
  double slow_fs = 1.0;
  double slow_end = kInf, slow_evict = kInf;
  int64_t lost_rep = 0;
  // Replicas coming back after an elastic continuation: (time, replicas, the process whose
  // failure removed them). Their rejoin pause is charged to that process (it was charged to none
  // before 2026-12-03: 19,600 s of the example went to no process).
  struct Rejoin {
    double first;
    int64_t second;
    int proc;
    std::vector<int64_t> which;  // the replicas coming back
  };
  std::vector<Rejoin> rejoins;
  // Which data-parallel replicas are out, and the stream that places a failure on one. A stream
  // of its own: drawing placements from rng would move every later failure of elastic jobs.
  std::vector<char> out;
  RandomStream place_rng;
  // The stream that places a domain failure in the job's partly filled last domain (nodes_taken).
  RandomStream domain_rng;

  // Takes r replicas out at random among those in; false (nothing taken) when that leaves some
  // optimizer-state shard with no copy on a replica still in (elastic continuation allowed any
  // number out with state_copies 2, before 2026-12-04).
  bool take_out(int64_t r, std::vector<int64_t>& which) {
    if (out.empty()) out.assign(size_t(m.dp), 0);
    which.clear();
    for (int64_t i = 0; i < r; ++i) {
      int64_t x;
      do x = int64_t(place_rng.below(uint64_t(m.dp)));
      while (out[size_t(x)] || std::find(which.begin(), which.end(), x) != which.end());
      which.push_back(x);
    }
    const int64_t shards = std::max<int64_t>(1, m.dp / std::min(m.state_copies, m.dp));
    for (const int64_t x : which) {
      bool kept = false;
      for (int64_t y = x % shards; y < m.dp && !kept; y += shards)
        kept = !out[size_t(y)] && std::find(which.begin(), which.end(), y) == which.end();
      if (!kept) return false;
    }
    for (const int64_t x : which) out[size_t(x)] = 1;
    return true;
  }
  // SDC
  // A silent corruption pending detection: when it will be found, the checkpoint to roll back
  // to, and the progress at which the state went bad.
  double sdc_detect = kInf, sdc_target = 0, sdc_progress = 0;
  // Processes behind the pending SDC and the running fail-slow episode (failures_by_process).
  int sdc_proc = -1, slow_proc = -1;
  // Spares
  int64_t spares = 0;
  // Nodes in repair, in order of their return (the repair time is one constant): when each is
  // back, and whether its replacement came from the pool, which it then refills.
  struct Repair {
    double back_s;
    bool refills_pool;
  };
  std::vector<Repair> repair;
  size_t repair_head = 0;

  std::vector<double> next;  // next arrival per process

  Sim(const SimModel& model, uint64_t seed, uint64_t replica, int64_t* c, int64_t* ab, double* pl)
      : m(model), rng(seed, replica), counts(c), absorbed(ab), proc_lost(pl), place_rng(seed ^ 0x5851f42d4c957f2dULL, replica),
        domain_rng(seed ^ 0x2545f4914f6cdd1dULL, replica) {
    L = int(std::min<size_t>(m.sched.levels.size(), kMaxLevels));
    for (int l = 0; l < L; ++l) {
      durable[l] = 0;
      pend_W[l] = 0;
      pend_t[l] = kInf;
      pend_n[l] = 0;
    }
    spares = m.spares;
    next.resize(m.procs.size());
    size_t pi = 0;
    for (size_t k = 0; k < m.procs.size(); ++k) {
      const bool pooled = pi < m.pooled.size() && m.pooled[pi] == int(k);
      pi += pooled;
      next[k] = !pooled && m.procs[k].dist ? m.procs[k].dist->sample_first(rng) : kInf;  // processes running before the job
      if (!pooled && m.procs[k].dist) unpooled.push_back(k);
    }
    next_pool = m.pooled_rate_per_s > 0 ? -std::log(rng.uniform_open()) / m.pooled_rate_per_s : kInf;
  }

  double next_pool = kInf;
  std::vector<size_t> unpooled;
  int draw_pooled() {
    const double u = rng.uniform() * m.pooled_rate_per_s;
    size_t i = 0;
    while (i + 1 < m.pooled_cum.size() && u >= m.pooled_cum[i]) ++i;
    return m.pooled[i];
  }

  double slow() const {
    double s = slow_fs;
    if (lost_rep > 0) s /= std::max(1e-6, m.elastic_throughput[size_t(lost_rep)]);
    return s;
  }

  double min_cycle() const {
    double c = 0;
    for (int l = 0; l < L; ++l) {
      const auto& lv = m.sched.levels[size_t(l)];
      c = std::max(c, (lv.persist_s + m.sched.blocking_s) / double(lv.every_count));
    }
    return c;
  }

  // Start a period at time a with progress W and `left` compute remaining before the next checkpoint.
  void start_period(double a, double W, double left, int64_t n0, double checkpoint_offset = -1) {
    Period& p = per;
    p.a = a;
    p.slow = slow();
    p.fail_slow = slow_fs;
    p.tau = m.tau_s;
    p.b = m.sched.blocking_s;
    p.tc = p.tau * p.slow;
    p.C = std::max(p.tc + p.b, min_cycle());
    if (checkpoint_offset >= 0) {
      // Resume inside the checkpoint phase of the current cycle.
      p.s = a - p.tc - checkpoint_offset;
      p.W0 = W - p.tau;
      p.n0 = n0;
    } else {
      p.s = a - (p.tau - left) * p.slow;
      p.W0 = W - (p.tau - left);
      p.n0 = n0;
    }
    up = true;
    t_done = kInf;
    if (m.work_s > 0) {
      const double R = m.work_s - p.W0;
      const double jf = std::max(0.0, std::ceil(R / p.tau - 1e-12) - 1.0);
      const double rem = R - jf * p.tau;
      t_done = std::max(a, p.s + jf * p.C + rem * p.slow);
    }
  }

  // The progress of the newest periodic checkpoint at or before W on the current line (0, the
  // job's start, before the first): where the checkpoint schedule stands.
  double checkpoint_anchor(double W) const {
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      const double k = std::floor((W - it->W0) / it->tau + 1e-9);
      if (k >= 1) return it->W0 + std::min(k, double(it->jb)) * it->tau;
    }
    return 0.0;
  }

  // The compute left before the next checkpoint for a job resuming at progress W: the distance to
  // the schedule's next point, a multiple of the interval after its anchor (a full interval on
  // such a point: the save there was taken, or the state saved there stands in for it). Without
  // an elastic retake (which saves at once, off the multiples) the points are the multiples of
  // the interval from the job's start, step % interval. The 1e-9 absorbs the rounding of progress
  // that lands on a point.
  double grid_left(double W) const {
    const double x = W - checkpoint_anchor(W);
    const double below = std::floor(x / m.tau_s + 1e-9) * m.tau_s;
    return std::clamp(m.tau_s - (x - below), 0.0, m.tau_s);
  }

  double progress_at(double t) const { return std::min(per.progress(std::min(t, t_done)), m.work_s > 0 ? m.work_s : kInf); }

  // Account the running period from its start to t; returns the progress at t.
  double close_period(double t) {
    const double te = std::min(t, t_done);
    const double save = per.cum_save(te) - per.cum_save(per.a);
    const double compute = (te - per.a) - save;
    const double P = progress_at(t);
    const double dW = P - per.progress(per.a);
    res.lost_s[kCheckpointSave] += save + (t - te);
    // (At full speed compute and dW differ by rounding only: no degraded time.)
    const double degraded = compute - dW > 1e-9 * std::max(1.0, compute) ? compute - dW : 0.0;
    res.lost_s[kDegraded] += degraded;
    // The fail-slow episode's share: compute (1 - 1/fs) of the compute at slowdown fs x elastic.
    if (slow_proc >= 0 && per.fail_slow > 1) proc_lost[slow_proc] += std::min(degraded, std::max(0.0, compute) * (1 - 1 / per.fail_slow));
    // Checkpoints of this period: durable ones and the pending one per level.
    const int64_t jb = per.blocks_done(te, 0);
    for (int l = 0; l < L; ++l) {
      const auto& lv = m.sched.levels[size_t(l)];
      int64_t jl = jb;
      jl -= (per.n0 + jl) % lv.every_count;
      if (jl < 1) continue;
      const double W = per.W0 + double(jl) * per.tau;
      const double done = per.block_end(jl) + lv.persist_s;
      if (done <= t) {
        durable[l] = std::max(durable[l], W);
      } else {
        // A save recorded by an earlier period (the run split by a change of speed) that finished
        // by t is durable before this newer one takes its place (before 2026-12-03 it was dropped:
        // a fail-slow episode that changed nothing cost 7 points of ETTR with 1,200 s saves).
        if (pend_t[l] <= t) durable[l] = std::max(durable[l], pend_W[l]);
        pend_W[l] = W;
        pend_t[l] = done;
        pend_n[l] = per.n0 + jl;
        // The previous checkpoint of this level is durable by construction of C.
        const int64_t jp = jl - lv.every_count;
        if (jp >= 1) durable[l] = std::max(durable[l], per.W0 + double(jp) * per.tau);
      }
    }
    ckpt_count = per.n0 + jb;
    if (jb > 0) runs.push_back({per.W0, per.tau, per.n0, jb});
    return P;
  }

  // The checkpoint (1-based within the running period) whose blocking write is under way at t,
  // 0 where none is (computing, waiting for a persist, or writing the final save). After
  // close_period(t), which counts the blocks ended by t: this is the next one.
  int64_t block_in_progress(double t) const {
    if (!(t < t_done) || !(per.b > 0)) return 0;
    const int64_t jl = per.blocks_done(t, 0) + 1;
    const double end = per.block_end(jl);
    return t >= end - per.b && t < end ? jl : 0;
  }

  // Counts checkpoint jl of the running period as taken (its block finished after close_period
  // closed the period: a preemption's notice let it end), so that the checkpoint numbering and
  // the interval's grid follow it as they follow the blocks close_period counted.
  void take_checkpoint(int64_t jl) {
    if (!runs.empty() && runs.back().W0 == per.W0 && runs.back().tau == per.tau && runs.back().n0 == per.n0)
      runs.back().jb = std::max(runs.back().jb, jl);
    else
      runs.push_back({per.W0, per.tau, per.n0, jl});
    ckpt_count = std::max(ckpt_count, per.n0 + jl);
  }

  // What a preemption at t with `notice` seconds lets the job keep without a final save: the
  // remote checkpoints that land within the notice, a periodic persist in flight or a checkpoint
  // whose blocking write is under way (going to the remote level; its block and persist end
  // within the notice). Sets wait (until the newest of them lands, 0 where none) and W (the
  // newest durable progress then, at least durable[L - 1]); returns the checkpoint (1-based in the
  // running period) whose block it finishes, 0 where none. Changes nothing. Before 2026-12-07
  // only background persists counted, so under sync-remote, whose remote write is the block
  // itself, a notice 1 s short of the save was worth nothing (1,799 s and 0 s of notice gave the
  // same ETTR, 0.3542, with 1,800 s saves every 1,800 s; review).
  int64_t short_notice_keep(double t, double notice, double& wait, double& W) const {
    wait = 0;
    W = durable[L - 1];
    if (pend_t[L - 1] <= t + notice) {
      if (pend_t[L - 1] > t) wait = pend_t[L - 1] - t;
      W = std::max(W, pend_W[L - 1]);
    }
    const int64_t jl = block_in_progress(t);
    if (jl > 0 && (per.n0 + jl) % m.sched.remote().every_count == 0) {
      const double land = per.block_end(jl) + m.sched.remote().persist_s;
      if (land <= t + notice) {
        wait = std::max(wait, land - t);
        W = std::max(W, per.W0 + double(jl) * per.tau);
        return jl;
      }
    }
    return 0;
  }

  void settle_pending(double t, bool drop_unfinished) {
    for (int l = 0; l < L; ++l) {
      if (pend_t[l] <= t) durable[l] = std::max(durable[l], pend_W[l]);
      if (pend_t[l] <= t || drop_unfinished) pend_t[l] = kInf;
    }
  }

  int best_level(int64_t nodes_lost, bool node_lost) const {
    int best = -1;
    for (int l = 0; l < L; ++l) {
      const auto& lv = m.sched.levels[size_t(l)];
      if (node_lost && nodes_lost > lv.survives_lost_nodes) continue;
      if (durable[l] < 0) continue;
      if (best < 0 || durable[l] > durable[best] ||
          (durable[l] == durable[best] && lv.restore_s < m.sched.levels[size_t(best)].restore_s))
        best = l;
    }
    return best < 0 ? L - 1 : best;
  }

  // A preemption gives the job's nodes back: host memory, peers' copies and local NVMe go with
  // them, and only the remote level survives (the restore had been charged at the remote level's
  // time while the state came from a memory level: 290 s of rework per preemption, not ~3,000).
  void invalidate_local_levels() {
    for (int l = 0; l < L - 1; ++l) durable[l] = -1;
  }

  void invalidate_levels(int64_t nodes_lost) {
    for (int l = 0; l < L - 1; ++l)
      if (nodes_lost > m.sched.levels[size_t(l)].survives_lost_nodes) durable[l] = -1;
  }

  // A repaired node refills the pool only where a pool node took its place; one whose place a
  // node from the cluster's queue took goes back to the cluster. The pool is then an Erlang loss
  // system (M/G/c/c): the share of losses that requeue is Erlang-B B(spares, rate x repair time).
  // Before 2026-12-06 every repaired node refilled the pool (up to its size), so the job kept
  // the nodes it had been lent by the queue as spares: 10 losses a day with 1-day repairs and 5
  // spares requeued 161 times in 100 days where Erlang-B gives 564 (review).
  void return_repaired(double t) {
    while (repair_head < repair.size() && repair[repair_head].back_s <= t) {
      if (repair[repair_head].refills_pool) ++spares;
      ++repair_head;
    }
  }

  // Replacement phase for f lost nodes at time t. The pool replaces them all, or the job waits in
  // the queue and the cluster replaces them all (the pool keeps its spares for the next loss).
  void replace_nodes(Plan& p, double t, int64_t f) {
    return_repaired(t);
    const bool from_pool = m.replacement != 2 && spares >= f;
    for (int64_t i = 0; i < f; ++i) repair.push_back({t + m.repair_s, from_pool});
    res.max_nodes_in_repair = std::max<int64_t>(res.max_nodes_in_repair, int64_t(repair.size() - repair_head));
    if (from_pool) {
      spares -= f;
      p.add(kReplacement, m.replacement == 0 ? m.hot_spare_s : m.warm_standby_s);
    } else {
      ++res.requeues;
      p.add(kQueueing, m.requeue_s);
    }
  }

  // Interrupt the running recovery at t: account the elapsed phases, apply a commit that happened.
  // A wait that runs on its own clock (a requeue for nodes, a replacement being provisioned, a
  // maintenance downtime) is not cut short by the new failure: its end is carried to the next
  // plan, which cannot restart before it (a software crash had ended a 2 h requeue early: ETTR
  // 0.745 against Daly's 0.698).
  void abort_plan(double t) {
    double el = t - plan.start, end = plan.start;
    carry_until = -kInf;
    for (int i = 0; i < plan.n; ++i) {
      end += plan.ph[i].dur;
      const int c = plan.ph[i].cause;
      if ((c == kQueueing || c == kReplacement || c == kDowntime) && end > t && end > carry_until) {
        carry_until = end;
        carry_cause = c;
      }
      if (el <= 0) continue;
      const double d = std::min(el, plan.ph[i].dur);
      res.lost_s[plan.ph[i].cause] += d;
      // A save a process triggers (a preemption's final save, a save at a failure or before an
      // eviction) is a checkpoint save, charged to no process as the periodic ones are: it had
      // been counted in both, the process sums exceeding the lost time (2026-12-04 review).
      if (plan.proc_of(i) >= 0 && plan.ph[i].cause != kCheckpointSave) proc_lost[plan.proc_of(i)] += d;
      if (i == plan.commit_after && d >= plan.ph[i].dur) durable[L - 1] = std::max(durable[L - 1], plan.commit_W);
      el -= d;
    }
  }

  // The rest of an aborted plan's wait (abort_plan), before the new plan's restart: the restart
  // starts once both the new plan's own phases so far and the carried wait are over.
  void add_carried_wait(Plan& np) {
    if (carry_until > np.start + np.total()) np.add(carry_cause, carry_until - (np.start + np.total()));
    carry_until = -kInf;
  }

  void finish_plan() {
    for (int i = 0; i < plan.n; ++i) {
      res.lost_s[plan.ph[i].cause] += plan.ph[i].dur;
      if (plan.proc_of(i) >= 0 && plan.ph[i].cause != kCheckpointSave) proc_lost[plan.proc_of(i)] += plan.ph[i].dur;
    }
    if (plan.commit_after >= 0) durable[L - 1] = std::max(durable[L - 1], plan.commit_W);
  }

  // Work lost by a rollback (negative when a restore finds a checkpoint newer than the state the
  // previous rollback kept, e.g. after an elastic pause rounded down to a step).
  void rework(double amount, int proc) {
    if (amount == 0) return;
    res.lost_s[kRework] += amount;
    if (proc >= 0) proc_lost[proc] += amount;
  }

  // Global restart after an unplanned failure of process k at time t, taking f nodes (0: none).
  void global_restart(double t, int k, double P, bool was_up, int64_t f) {
    const auto& q = m.procs[size_t(k)];
    const bool lost = q.node_lost;
    double prev_target = was_up ? P : plan.resume_W;
    settle_pending(t, true);
    Plan np;
    np.start = t;
    np.proc = k;
    np.add(kDetection, q.detection_s);
    if (lost) {
      np.add(kEviction, m.eviction_s);
      replace_nodes(np, t, f);
    }
    double target;
    int level;
    if (was_up && m.sched.on_failure && f <= m.sched.on_failure_survives_lost_nodes) {
      // Healthy replicas write the current state (the interrupted step is lost).
      target = m.step_time_s > 0 ? std::floor(P / m.step_time_s + 1e-9) * m.step_time_s : P;
      np.add(kCheckpointSave, m.sched.on_failure_save_s);
      np.commit_after = np.n - 1;
      np.commit_W = target;
      level = L - 1;
    } else {
      invalidate_levels(f);
      level = best_level(f, lost);
      target = durable[level];
      if (level == L - 1 && L > 1) ++res.remote_fallbacks;
    }
    rework(prev_target - target, k);
    rolled_back_to(target);
    add_carried_wait(np);
    np.add(kRestart, m.restart_s);
    np.add(kRestore, m.sched.levels[size_t(level)].restore_s);
    np.add(kWarmup, m.warmup_s);
    np.resume_W = target;
    plan = np;
    up = false;
    ++res.interruptions;
  }

  // The nodes an interrupt of process k takes from the job: its domain's (Proc::nodes_lost), or,
  // where the job partly fills its last domain, the job's nodes there when the event lands in that
  // one. The rate is per domain, so each of the job's domains is equally likely: the last with
  // probability 1 / domains, drawn from a stream of its own (drawing from rng would move every
  // later failure), and only for such a job (the others draw nothing and keep their results).
  // Before 2026-12-07 every event took a full domain: a 33-node job under 32-node rack failures
  // lost 32 nodes at each failure of its second rack, where it has 1 there, and read as the
  // 64-node job (review: ETTR 0.9459 and 1.616 requeues for both).
  int64_t nodes_taken(int k) {
    const auto& q = m.procs[size_t(k)];
    if (!q.node_lost) return 0;
    if (q.last_domain_nodes > 0 && domain_rng.below(uint64_t(q.domains)) == uint64_t(q.domains - 1)) return q.last_domain_nodes;
    return q.nodes_lost;
  }

  void on_interrupt(double t, int k) {
    const int64_t f = nodes_taken(k);
    if (up) {
      const auto& q = m.procs[size_t(k)];
      const double P = close_period(t);
      if (m.elastic && q.node_lost) {
        const int64_t r = std::min<int64_t>(m.dp, (f + m.nodes_per_replica - 1) / m.nodes_per_replica);
        std::vector<int64_t> which;
        if (lost_rep + r < int64_t(m.elastic_throughput.size()) && take_out(r, which)) {
          // Continue without the lost replica(s): detect, reconfigure, resume at the last whole step.
          const double keep = m.step_time_s > 0 ? std::floor(P / m.step_time_s + 1e-9) * m.step_time_s : P;
          rework(P - keep, k);
          Plan np;
          np.start = t;
          np.proc = k;
          np.add(kDetection, q.detection_s);
          np.add(kRestart, m.reconfigure_s);
          np.resume_W = keep;
          np.continues_cycle = true;
          Plan tmp;  // replacement timeline (not on the critical path)
          replace_nodes(tmp, t, f);
          rejoins.push_back({t + q.detection_s + m.eviction_s + tmp.total(), r, int(k), std::move(which)});
          lost_rep += r;
          plan = np;
          up = false;
          ++res.interruptions;
          return;
        }
      }
      global_restart(t, k, P, true, f);
    } else {
      abort_plan(t);
      global_restart(t, k, 0, false, f);
    }
  }

  void on_preemption(double t, int k) {
    const auto& q = m.procs[size_t(k)];
    Plan np;
    np.start = t;
    np.proc = k;
    double target;
    if (up) {
      const double P = close_period(t);
      const double save = m.sched.final_save_s();
      // What the notice lets the job keep without a final save (short_notice_keep): the remote
      // checkpoints landing within it, the job holding its nodes until the last of them lands.
      double wait = 0, keep_W = durable[L - 1];
      const int64_t jl = short_notice_keep(t, q.notice_s, wait, keep_W);
      // A notice that covers the final save takes the cheapest way to stop, the time before the
      // job gives its nodes back plus the work it loses: the final save (S, nothing lost), what a
      // shorter notice does (wait for the saves landing within it, lose the work since the newest),
      // or stopping at once (lose the work since the last durable checkpoint). Before 2026-12-07
      // it always wrote the final save, so a notice covering it could do worse than one 1 s short
      // (review: 1,800 s saves every 1,800 s under sync-remote, 12 preemptions a day with 600 s of
      // downtime, 200 replicas: 0.3966 at 1,800 s of notice against 0.4322 at 1,799 s). A stack
      // on SIGTERM finishes the save under way and skips the final one when nothing was done since
      // (Megatron-LM's saved_checkpoint), and a final save costing more than the work since the last
      // checkpoint is not worth writing. The short rule comes first, so a tie keeps it.
      int how = 0;  // 0: as a short notice, 1: stop at once, 2: the final save
      double best = wait + (P - keep_W);
      double now_W = durable[L - 1];
      if (pend_t[L - 1] <= t) now_W = std::max(now_W, pend_W[L - 1]);
      if (P - now_W < best) {
        how = 1;
        best = P - now_W;
      }
      if (q.notice_s >= save && save < best) how = 2;
      if (how == 2) {
        settle_pending(t, true);
        np.add(kCheckpointSave, save);
        np.commit_after = np.n - 1;
        np.commit_W = P;
        target = P;
      } else {
        // Too short for a final save (or not worth one), the notice still lets a periodic remote
        // persist already in flight land: it is the state the job restarts from (before 2026-12-04
        // it was dropped, and a notice short of the final save was worth nothing).
        // The job holds its nodes until that persist lands (the nodes hold the data it sends),
        // then gives them back: the wait is wall time, charged as checkpoint save (it had cost
        // nothing, the downtime starting at the notice, 2026-12-04 review). Without a persist to
        // wait for, the job gives the nodes back at once, as a graceful one does after its save.
        // So does a periodic save whose blocking write is under way (short_notice_keep).
        if (how == 0) {
          durable[L - 1] = std::max(durable[L - 1], keep_W);
          if (jl > 0) take_checkpoint(jl);
        } else {
          wait = 0;
        }
        settle_pending(t, true);
        invalidate_local_levels();
        target = durable[L - 1];
        rework(P - target, k);
        if (wait > 0) np.add(kCheckpointSave, wait);
      }
    } else {
      // Down, possibly saving for an earlier graceful preemption: a notice that covers the rest of
      // that save lets it finish, as the new plan's first phase (before 2026-12-03 the save was
      // thrown away: rework grew with the save time, 2,794 s per job at a 600 s save, where the
      // notice covered it).
      double save_end = -kInf, end = plan.start;
      for (int i = 0; i < plan.n && i <= plan.commit_after; ++i) end += plan.ph[i].dur;
      if (plan.commit_after >= 0 && plan.commit_after < plan.n) save_end = end;
      const bool finish_save = save_end > t && q.notice_s >= save_end - t;
      const double commit_W = plan.commit_W;
      // What remains of the old plan up to its save, each phase under its own cause (a wait
      // before the save is not save time).
      Plan rest;
      if (finish_save) {
        double from = plan.start;
        for (int i = 0; i <= plan.commit_after; ++i) {
          const double to = from + plan.ph[i].dur;
          rest.add(plan.ph[i].cause, to - std::max(from, t));
          from = to;
        }
      }
      abort_plan(t);
      if (finish_save) {
        for (int i = 0; i < rest.n; ++i) np.add(rest.ph[i].cause, rest.ph[i].dur);
        np.commit_after = np.n - 1;
        np.commit_W = commit_W;
      }
      invalidate_local_levels();
      target = std::min(plan.resume_W, finish_save ? std::max(durable[L - 1], commit_W) : durable[L - 1]);
      rework(plan.resume_W - target, k);
    }
    invalidate_local_levels();
    rolled_back_to(target);
    np.add(kDowntime, q.downtime_s);
    add_carried_wait(np);
    np.add(kRestart, m.restart_s);
    np.add(kRestore, m.sched.remote().restore_s);
    np.add(kWarmup, m.warmup_s);
    np.resume_W = target;
    plan = np;
    up = false;
    ++res.interruptions;
  }

  // A rollback to state saved before a pending corruption erases it: nothing is left to detect
  // (its detection had rolled back a second time, for nothing).
  void rolled_back_to(double W) {
    if (sdc_detect < kInf && W <= sdc_progress) sdc_detect = kInf;
  }

  // The useful part of progress P at the end of the job: with a corruption still undetected, the
  // work since the last checkpoint before it is not (the detection would roll it back); it is
  // counted as kCorrupted, so wall time still adds up. Before 2026-12-03 it counted as productive:
  // a job whose corruptions surface after it ends read as unharmed.
  double useful_at_end(double P) {
    if (!(sdc_detect < kInf) || P <= sdc_target) return P;
    res.lost_s[kCorrupted] += P - sdc_target;
    if (sdc_proc >= 0) proc_lost[sdc_proc] += P - sdc_target;
    res.undetected_sdc = true;
    return sdc_target;
  }

  void on_sdc_detected(double t) {
    sdc_detect = kInf;
    const double target = sdc_target;
    if (up) {
      const double P = close_period(t);
      settle_pending(t, true);
      rework(P - target, sdc_proc);
    } else {
      abort_plan(t);
      rework(plan.resume_W - target, sdc_proc);
    }
    for (int l = 0; l < L; ++l) durable[l] = std::min(durable[l], target);
    Plan np;
    np.proc = sdc_proc;
    np.start = t;
    add_carried_wait(np);
    np.add(kRestart, m.restart_s);
    np.add(kRestore, m.sched.remote().restore_s);
    np.add(kWarmup, m.warmup_s);
    np.resume_W = target;
    plan = np;
    up = false;
    ++res.interruptions;
  }

  // A replica's replacement arriving at t while the job is down (a continuation's or a rejoin's
  // reconfiguration, or a recovery). It is one more member of the next (re)configuration of the
  // job's ranks: arriving before the plan's first restart phase (the relaunch and rendezvous, or
  // the elastic reconfiguration) begins, it joins that one at no cost; arriving after, that
  // configuration is already formed without it and it takes another, reconfigure_s from its
  // arrival, as when it arrives while the job runs: the plan ends no earlier than t +
  // reconfigure_s (the time a join costs), charged as restart to the process that removed the
  // replica. Before 2026-12-07 any replacement arriving while the job was down rejoined for free,
  // one arriving 1 s after the job resumed costing a full pause, so a longer reconfigure_s could
  // raise ETTR: on the 405B example (elastic, state_copies 2, proportional) 359 s read 0.9184 and
  // 361 s 0.9427, where detection + 361 s outlasts detection + eviction + hot spare and every
  // replacement came back during its own continuation's pause (review). A node that arrives during
  // an in-progress re-rendezvous joins it; one that arrives after the new group formed needs a
  // new round (TorchElastic's agents restart their workers when a node waits to join).
  void rejoin_while_down(double t, int proc) {
    double join_by = plan.start;
    for (int i = 0; i < plan.n; ++i) {
      const int c = plan.ph[i].cause;
      if (c == kRestart || c == kRestore || c == kWarmup) break;
      join_by += plan.ph[i].dur;
    }
    if (t <= join_by) return;
    const double extra = t + m.reconfigure_s - (plan.start + plan.total());
    if (!(extra > 0)) return;
    const int i = plan.n - 1;
    if (i >= 0 && ((plan.ph[i].cause == kRestart && plan.proc_of(i) == proc) || plan.n == kMaxPhases))
      plan.ph[i].dur += extra;  // the same rejoiner's pause goes on (or no room: the last phase lasts longer)
    else
      plan.ph[plan.n++] = {kRestart, extra, proc};
  }

  // Run to completion, the work is done and the final save is being written: a change of speed,
  // a rejoin or a slow-node eviction no longer matters (each had restarted the final save, charged
  // twice, before 2026-12-04).
  bool finishing(double t) const { return up && m.work_s > 0 && t >= t_done; }

  // Change of speed while running (fail-slow start/end, elastic re-join): split the period.
  void change_speed(double t) {
    if (finishing(t)) return;
    const double P = close_period(t);
    const double u = t - per.s;
    const double j = std::floor(u / per.C);
    const double r = u - j * per.C;
    const int64_t n_before = per.n0 + int64_t(j);
    if (r < per.tc) {
      const double left = per.tau - r / per.slow;
      start_period(t, P, left, n_before);
    } else {
      const double off = r - per.tc;
      const double new_slow = slow();
      const double tc2 = per.tau * new_slow;
      const double C2 = std::max(tc2 + per.b, min_cycle());
      if (off < C2 - tc2) start_period(t, P, 0, n_before, off);
      else start_period(t, P, per.tau, n_before + 1);
    }
  }

  ReplicaResult run() {
    const double horizon = m.horizon_s > 0 ? m.horizon_s : kInf;
    start_period(0, 0, m.tau_s, 0);
    for (;;) {
      // Next process event.
      double tp = next_pool;
      int kp = -2;  // -2: the pooled stream
      for (size_t k : unpooled)
        if (next[k] < tp) {
          tp = next[k];
          kp = int(k);
        }
      double tr = kInf;
      size_t ir = 0;
      for (size_t i = 0; i < rejoins.size(); ++i)
        if (rejoins[i].first < tr) {
          tr = rejoins[i].first;
          ir = i;
        }
      const double t_end = up ? (m.work_s > 0 ? t_done + m.sched.final_save_s() : kInf) : plan.start + plan.total();
      const double t_slow = up ? std::min(slow_end, slow_evict) : kInf;
      double t = std::min({tp, tr, t_end, t_slow, sdc_detect, horizon});
      if (t == horizon && horizon < kInf && t <= std::min({tp, tr, t_end, t_slow, sdc_detect})) {
        if (up) {
          const double P = close_period(horizon);
          res.productive_s = useful_at_end(P);
        } else {
          abort_plan(horizon);
          res.productive_s = useful_at_end(plan.resume_W);
          // Work restored but not yet resumed counts as productive (it is kept).
        }
        res.wall_s = horizon;
        break;
      }
      if (t == t_end && t <= std::min({tp, tr, t_slow, sdc_detect})) {
        if (up) {  // job complete
          close_period(t);
          res.productive_s = useful_at_end(m.work_s);
          res.wall_s = t;
          break;
        }
        // Recovery complete: resume.
        finish_plan();
        // The newest checkpoint, durable or in flight.
        auto newest = [&] {
          double last = 0;
          for (int l = 0; l < L; ++l) {
            last = std::max(last, durable[l]);
            if (pend_t[l] < kInf) last = std::max(last, pend_W[l]);
          }
          return last;
        };
        // The lowest number among the saves this resume drops (persists still in flight).
        int64_t dropped_n = std::numeric_limits<int64_t>::max();
        if (!plan.keeps_saves)
          for (int l = 0; l < L; ++l)
            if (pend_t[l] > t && pend_t[l] < kInf) dropped_n = std::min(dropped_n, pend_n[l]);
        settle_pending(t, !plan.keeps_saves);
        if (std::min(slow_end, slow_evict) <= t) {  // the slow episode ended while the job was down
          slow_fs = 1.0;
          slow_end = slow_evict = kInf;
        }
        // After a rollback the count follows the restored state (checkpoints_up_to); a
        // continuation rolled nothing back but the interrupted step.
        int64_t n0 = plan.continues_cycle ? ckpt_count : checkpoints_up_to(plan.resume_W);
        // The next checkpoint comes at the schedule's next point (grid_left: the next multiple of
        // the interval in progress, as a framework saving at step % interval takes it), wherever
        // the resumed state lies: before 2026-12-06 a resume from a state off that grid (a
        // graceful preemption's or slow-node eviction's save, a checkpoint-on-failure save at the
        // last whole step) opened a full interval there, so each such event threw away the
        // cycle's progress, half an interval on average, and saved that much less often (sync-remote, 300 s saves every 3,600 s, four
        // graceful preemptions a day without downtime: 0.9165 against the closed form's 0.9103,
        // 655.7 periodic saves where the work takes 720; review).
        double left = grid_left(plan.resume_W);
        if (plan.continues_cycle) {
          // The compute since the newest checkpoint counts towards the interval. A save dropped
          // here did not happen: the next checkpoint takes its number (its level, under a
          // multi-level schedule), not the one after. That is the dropped save of any level, not
          // only where the newest checkpoint went back: before 2026-12-06 in-memory with
          // remote_every 10 kept its memory copy of the checkpoint whose remote persist was
          // dropped, so the remote save came 10 intervals later (with 5,000 s remote writes,
          // elastic, 0.428 against 0.481 for async-remote at the same remote schedule; review).
          // Where the save at the schedule's point below the resumed state was dropped, it is
          // retaken at once (the newest checkpoint is older than that point); otherwise the
          // schedule stands, also after an off-grid graceful save (2026-12-06 review).
          const double last = newest();
          left = std::min(left, std::clamp(m.tau_s - (plan.resume_W - last), 0.0, m.tau_s));
          if (dropped_n <= n0) n0 = std::max<int64_t>(0, dropped_n - 1);
        }
        start_period(t, plan.resume_W, left, n0);
        continue;
      }
      if (t == sdc_detect && t <= std::min({tp, tr, t_slow})) {
        on_sdc_detected(t);
        continue;
      }
      if (t == tr && t <= std::min(tp, t_slow)) {
        const int64_t r = rejoins[ir].second;
        const int rejoin_proc = rejoins[ir].proc;
        for (const int64_t x : rejoins[ir].which) out[size_t(x)] = 0;
        rejoins.erase(rejoins.begin() + long(ir));
        lost_rep = std::max<int64_t>(0, lost_rep - r);
        if (up && !finishing(t)) {
          close_period(t);
          const double P = progress_at(t);
          Plan np;
          np.start = t;
          np.proc = rejoin_proc;
          np.add(kRestart, m.reconfigure_s);
          np.resume_W = P;
          np.continues_cycle = true;
          np.keeps_saves = true;
          plan = np;
          up = false;
        } else if (!up) {
          rejoin_while_down(t, rejoin_proc);
        }
        continue;
      }
      if (t == t_slow && t <= tp) {
        if (t == slow_evict && !finishing(t)) {
          // Evict the slow node gracefully: checkpoint, replace, restart.
          slow_evict = kInf;
          slow_end = kInf;
          const double P = close_period(t);
          slow_fs = 1.0;
          settle_pending(t, true);
          Plan np;
          np.proc = slow_proc;
          np.start = t;
          np.add(kCheckpointSave, m.sched.final_save_s());
          np.commit_after = np.n - 1;
          np.commit_W = P;
          np.add(kEviction, m.eviction_s);
          replace_nodes(np, t, 1);
          np.add(kRestart, m.restart_s);
          np.add(kRestore, m.sched.remote().restore_s);
          np.add(kWarmup, m.warmup_s);
          np.resume_W = P;
          plan = np;
          up = false;
          ++res.interruptions;
        } else {
          slow_end = slow_evict = kInf;
          slow_fs = 1.0;
          change_speed(t);
        }
        continue;
      }
      // Process event kp at tp.
      size_t k;
      if (kp == -2) {
        k = size_t(draw_pooled());
        next_pool = t - std::log(rng.uniform_open()) / m.pooled_rate_per_s;
      } else {
        k = size_t(kp);
        next[k] = t + m.procs[k].dist->sample(rng);
      }
      const auto& q = m.procs[k];
      // counts[k] takes the events that took effect, absorbed[k] the arrivals that did not: an SDC
      // while one is pending or the job is down, a fail-slow episode while one lasts or the job is
      // down. Before 2026-12-07 every arrival was counted (review: 12 SDC a day for 100 days read
      // a mean_count of 1,201 where 587 were taken, and interruptions_mean_count 587.3). An
      // interrupt or a preemption always takes effect, up or down.
      switch (q.kind) {
        case EventKind::Interrupt:
          ++counts[k];
          on_interrupt(t, int(k));
          break;
        case EventKind::Preemption:
          ++counts[k];
          on_preemption(t, int(k));
          break;
        case EventKind::Sdc:
          ++(up && sdc_detect == kInf ? counts[k] : absorbed[k]);
          if (up && sdc_detect == kInf) {
            // Roll back to the last remote checkpoint taken before the corruption.
            const double P = progress_at(t);
            double target = durable[L - 1];
            const int64_t jb = per.blocks_done(std::min(t, t_done), m.sched.remote().persist_s);
            int64_t jl = jb - (per.n0 + jb) % m.sched.remote().every_count;
            if (jl >= 1) target = std::max(target, per.W0 + double(jl) * per.tau);
            if (pend_t[L - 1] <= t) target = std::max(target, pend_W[L - 1]);
            sdc_target = std::min(target, P);
            sdc_progress = P;
            sdc_proc = int(k);
            sdc_detect = t + (q.sdc_latency_mean_s > 0 ? -std::log(rng.uniform_open()) * q.sdc_latency_mean_s : 0.0);
          }
          break;
        case EventKind::FailSlow:
          ++(up && slow_fs == 1.0 ? counts[k] : absorbed[k]);
          if (up && slow_fs == 1.0) {
            const double d = -std::log(rng.uniform_open()) * q.slow_duration_mean_s;
            slow_fs = q.slowdown;
            slow_proc = int(k);
            if (m.evict_slow_after_s > 0 && d > m.evict_slow_after_s) slow_evict = t + m.evict_slow_after_s;
            else slow_end = t + d;
            change_speed(t);
          }
          break;
      }
    }
    return res;
  }
};

}  // namespace

ReplicaResult simulate_replica(const SimModel& m, uint64_t seed, uint64_t replica, int64_t* counts, int64_t* absorbed,
                               double* per_proc_lost_s) {
  Sim s(m, seed, replica, counts, absorbed, per_proc_lost_s);
  return s.run();
}

Batch simulate_batch(const SimModel& m, int64_t n, uint64_t seed, int threads) {
  Batch b;
  b.procs = m.procs.size();
  b.replicas.resize(size_t(n));
  b.counts.assign(size_t(n) * b.procs, 0);
  b.absorbed.assign(size_t(n) * b.procs, 0);
  b.proc_lost_s.assign(size_t(n) * b.procs, 0.0);
  int T = threads > 0 ? threads : usable_cpus();
  T = int(std::min<int64_t>(T, std::max<int64_t>(1, n / 16)));
  // Writes replicas [lo, hi) whole: their counts and lost time start from zero, so a slice run
  // again (run_slices, after running out of memory on a thread) gives the same bytes.
  auto work = [&](int64_t lo, int64_t hi) {
    std::fill(b.counts.begin() + lo * int64_t(b.procs), b.counts.begin() + hi * int64_t(b.procs), 0);
    std::fill(b.absorbed.begin() + lo * int64_t(b.procs), b.absorbed.begin() + hi * int64_t(b.procs), 0);
    std::fill(b.proc_lost_s.begin() + lo * int64_t(b.procs), b.proc_lost_s.begin() + hi * int64_t(b.procs), 0.0);
    for (int64_t i = lo; i < hi; ++i)
      b.replicas[size_t(i)] = simulate_replica(m, seed, uint64_t(i), b.counts.data() + size_t(i) * b.procs,
                                               b.absorbed.data() + size_t(i) * b.procs, b.proc_lost_s.data() + size_t(i) * b.procs);
  };
  if (T <= 1) {
    work(0, n);
  } else {
    // Slice t of the replicas on worker t; a worker whose thread cannot be started, or that runs
    // out of memory, has its slice run on this thread (run_slices): the same replicas, the same bytes.
    run_slices(T, [&](int t) {
      const CNumericLocale c_numbers;
      work(n * t / T, n * (t + 1) / T);
    });
  }
  return b;
}

double mean_ettr(const SimModel& m, int64_t n, uint64_t seed, int threads) {
  const Batch b = simulate_batch(m, n, seed, threads);
  // E[productive] / E[wall] (run_goodput's ettr_fraction), summed in replica order.
  double p = 0, w = 0;
  for (const auto& r : b.replicas) {
    p += r.productive_s;
    w += r.wall_s;
  }
  return w > 0 ? p / w : 0.0;
}

}  // namespace sextant::goodput
