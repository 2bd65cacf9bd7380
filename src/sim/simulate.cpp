// sim::simulate: builds the units (classes of equivalent ranks or every rank), their group
// rendezvous sets and the stage programs, runs the engine and turns its output into the
// estimate schema plus per-unit and critical-path tables. See docs/simulate.md.
#include "sim/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/random.hpp"
#include "sim/engine.hpp"
#include "sim/timeline.hpp"

namespace sextant::sim {

using namespace ir;

namespace {

double known_or(const Sourced& s, double dflt) { return s.known ? s.value : dflt; }

struct Layout {
  int tp, cp, dp, pp, ep, etp;
  int64_t per_stage() const { return static_cast<int64_t>(tp) * cp * dp; }
  int64_t rank(int stage, int dpi, int cpi, int tpi) const {
    return ((static_cast<int64_t>(stage) * dp + dpi) * cp + cpi) * tp + tpi;
  }
};

struct Units {
  std::vector<UnitSpec> specs;
  std::vector<std::vector<int>> members;
  std::vector<int64_t> rank_to_unit;  // filled lazily by unit_of
  bool all_ranks = false;
  // Class mode: the replica kind of each dp index holding a straggler (the others are kind 0):
  // sparse, as a dense list over dp had taken 8 GB at 2^31 GPUs (2026-12-05 review).
  std::map<int, int> slow_kind_of_dp;
  int kind_of_dp(int dpi) const {
    const auto it = slow_kind_of_dp.find(dpi);
    return it == slow_kind_of_dp.end() ? 0 : it->second;
  }
  int kinds = 1;
};

int new_group(Units& u, std::vector<int> members) {
  u.members.push_back(std::move(members));
  return static_cast<int>(u.members.size()) - 1;
}

// Class mode: one unit per (replica kind, stage). Replicas (dp indices) holding a straggler
// each form their own kind; all others share kind 0.
Units class_units(const Layout& L, const std::map<int64_t, double>& slow) {
  Units u;
  std::set<int> slow_dp;
  for (const auto& [rank, f] : slow) slow_dp.insert(static_cast<int>((rank % L.per_stage()) / (static_cast<int64_t>(L.tp) * L.cp)));
  std::vector<int> rep_dp;  // representative dp index of each kind
  std::vector<int64_t> replicas;
  const bool has_normal = static_cast<int>(slow_dp.size()) < L.dp;
  if (has_normal) {
    int first = 0;
    while (slow_dp.count(first)) ++first;
    rep_dp.push_back(first);
    replicas.push_back(L.dp - static_cast<int64_t>(slow_dp.size()));
  }
  for (int d : slow_dp) {
    u.slow_kind_of_dp[d] = static_cast<int>(rep_dp.size());
    rep_dp.push_back(d);
    replicas.push_back(1);
  }
  u.kinds = static_cast<int>(rep_dp.size());
  const int K = u.kinds, p = L.pp;
  u.specs.resize(static_cast<size_t>(K * p));
  const bool ep_spans_replicas = static_cast<int64_t>(L.ep) * L.etp > static_cast<int64_t>(L.tp) * L.cp;
  std::vector<int> dp_inst(static_cast<size_t>(p)), edp_inst(static_cast<size_t>(p)), ep_inst(static_cast<size_t>(p));
  for (int s = 0; s < p; ++s) {
    std::vector<int> all;
    for (int k = 0; k < K; ++k) all.push_back(k * p + s);
    dp_inst[static_cast<size_t>(s)] = new_group(u, all);
    edp_inst[static_cast<size_t>(s)] = new_group(u, all);
    ep_inst[static_cast<size_t>(s)] = ep_spans_replicas ? new_group(u, all) : -1;
  }
  for (int k = 0; k < K; ++k) {
    const int pp_inst = new_group(u, p > 1 ? std::vector<int>{k * p, k * p + p - 1} : std::vector<int>{k * p});
    for (int s = 0; s < p; ++s) {
      const int id = k * p + s;
      UnitSpec& sp = u.specs[static_cast<size_t>(id)];
      sp.stage = s;
      sp.representative_rank = L.rank(s, rep_dp[static_cast<size_t>(k)], 0, 0);
      sp.ranks_count = replicas[static_cast<size_t>(k)] * L.tp * L.cp;
      sp.next = k * p + (s + 1) % p;
      sp.prev = k * p + (s + p - 1) % p;
      sp.group_instance[static_cast<int>(GroupKind::TP)] = new_group(u, {id});
      sp.group_instance[static_cast<int>(GroupKind::CP)] = new_group(u, {id});
      sp.group_instance[static_cast<int>(GroupKind::ETP)] = new_group(u, {id});
      sp.group_instance[static_cast<int>(GroupKind::DP)] = dp_inst[static_cast<size_t>(s)];
      sp.group_instance[static_cast<int>(GroupKind::EDP)] = edp_inst[static_cast<size_t>(s)];
      sp.group_instance[static_cast<int>(GroupKind::EP)] = ep_spans_replicas ? ep_inst[static_cast<size_t>(s)] : new_group(u, {id});
      if (s == 0 || s == p - 1) sp.group_instance[static_cast<int>(GroupKind::PP)] = pp_inst;
      sp.label = "class stage " + std::to_string(s) + (K > 1 ? " replica-kind " + std::to_string(k) : "") + " (rank " +
                 std::to_string(sp.representative_rank) + ", " + std::to_string(sp.ranks_count) + " ranks)";
    }
  }
  // The unit runs at its slowest member's pace: the largest listed factor, or 1 while a member of
  // its tp x cp ranks is not listed (a faster rank beside ranks at speed 1 leaves it at 1; before
  // 2026-12-03 the whole TP group took it: 0.073 s where --all-ranks gives 0.138 s at tp 2, factor
  // 0.5). With every member listed, the largest of their factors, below 1 too (a TP group of eight
  // ranks at 0.8 had run at 1 here and at 0.8 under --all-ranks; review of 2026-12-05).
  struct Listed {
    double max_factor = 0;
    int64_t count = 0, pace_rank = -1;
  };
  std::map<size_t, Listed> listed;
  for (const auto& [rank, f] : slow) {
    const int s = static_cast<int>(rank / L.per_stage());
    const int dpi = static_cast<int>((rank % L.per_stage()) / (static_cast<int64_t>(L.tp) * L.cp));
    Listed& e = listed[static_cast<size_t>(u.kind_of_dp(dpi) * p + s)];
    if (e.count == 0 || f >= e.max_factor) {  // (ties: the last listed, as before)
      e.max_factor = f;
      e.pace_rank = rank;
    }
    ++e.count;
  }
  for (const auto& [idx, e] : listed) {
    UnitSpec& sp = u.specs[idx];
    const bool all_listed = e.count >= static_cast<int64_t>(L.tp) * L.cp;
    sp.factor = all_listed ? e.max_factor : std::max(e.max_factor, 1.0);
    // The unit is represented by the rank that sets its pace (rank 2 had stood for a unit slowed by
    // its member rank 3, in the table and the timeline, 2026-12-03 review).
    if (sp.factor == e.max_factor && sp.factor != 1.0 && sp.representative_rank != e.pace_rank) {
      const std::string old_rep = " (rank " + std::to_string(sp.representative_rank) + ",";
      sp.representative_rank = e.pace_rank;
      if (const size_t at = sp.label.find(old_rep); at != std::string::npos)
        sp.label.replace(at, old_rep.size(), " (rank " + std::to_string(e.pace_rank) + ",");
    }
  }
  return u;
}

Units rank_units(const Layout& L, const std::map<int64_t, double>& slow, double sigma, uint64_t seed) {
  Units u;
  u.all_ranks = true;
  const int64_t per = L.per_stage();
  const int64_t n = per * L.pp;
  u.specs.resize(static_cast<size_t>(n));
  std::map<int64_t, int> inst[kGroupKinds];
  auto group_of = [&](int g, int64_t key, int unit) {
    auto it = inst[g].find(key);
    if (it == inst[g].end()) it = inst[g].emplace(key, new_group(u, {})).first;
    u.members[static_cast<size_t>(it->second)].push_back(unit);
    return it->second;
  };
  const int64_t epw = static_cast<int64_t>(L.ep) * L.etp;
  for (int64_t r = 0; r < n; ++r) {
    UnitSpec& sp = u.specs[static_cast<size_t>(r)];
    const int s = static_cast<int>(r / per);
    const int64_t x = r % per;
    const int tpi = static_cast<int>(x % L.tp);
    const int unit = static_cast<int>(r);
    sp.stage = s;
    sp.representative_rank = r;
    sp.ranks_count = 1;
    sp.next = static_cast<int>((r + per) % n);
    sp.prev = static_cast<int>((r - per + n) % n);
    const int dpi = static_cast<int>(x / (static_cast<int64_t>(L.tp) * L.cp));
    const int cpi = static_cast<int>((x / L.tp) % L.cp);
    sp.group_instance[static_cast<int>(GroupKind::TP)] = group_of(0, s * per + x / L.tp, unit);
    sp.group_instance[static_cast<int>(GroupKind::CP)] = group_of(1, (static_cast<int64_t>(s) * L.dp + dpi) * L.tp + tpi, unit);
    sp.group_instance[static_cast<int>(GroupKind::DP)] = group_of(4, static_cast<int64_t>(s) * L.tp + tpi, unit);
    if (epw > 0 && per % epw == 0) {
      sp.group_instance[static_cast<int>(GroupKind::EP)] = group_of(2, s * per + (x / epw) * L.etp + x % L.etp, unit);
      sp.group_instance[static_cast<int>(GroupKind::ETP)] = group_of(3, s * per + x / L.etp, unit);
      sp.group_instance[static_cast<int>(GroupKind::EDP)] = group_of(5, s * per + x % epw, unit);
    }
    if (s == 0 || s == L.pp - 1) sp.group_instance[static_cast<int>(GroupKind::PP)] = group_of(6, x, unit);
    (void)cpi;
    double f = 1;
    if (sigma > 0) {
      RandomStream rs(seed, static_cast<uint64_t>(r));
      f = rs.lognormal(0.0, sigma);
    }
    if (auto it = slow.find(r); it != slow.end()) f *= it->second;
    sp.factor = f;
    sp.label = "rank " + std::to_string(r) + " (stage " + std::to_string(s) + ")";
  }
  return u;
}

int unit_of(const Units& u, const Layout& L, int64_t rank) {
  if (u.all_ranks) return static_cast<int>(rank);
  const int s = static_cast<int>(rank / L.per_stage());
  const int dpi = static_cast<int>((rank % L.per_stage()) / (static_cast<int64_t>(L.tp) * L.cp));
  return u.kind_of_dp(dpi) * L.pp + s;
}

const char* const kGroupName[kGroupKinds] = {"tp", "cp", "ep", "etp", "dp", "edp", "pp"};

}  // namespace

SimResult simulate(const Scenario& s, const SimOptions& o) {
  const Workload w = lower(s);
  return simulate(w, o);
}

SimResult simulate(const Workload& w, const SimOptions& o) {
  const Scenario& s = w.scenario();
  const Estimator est;
  const Fabric fabric = make_fabric(s);
  const auto& sched = est.schedules().get(w.schedule);
  const int p = s.plan.pp, v = s.plan.vpp;
  // The simulation executes every micro-batch of every chunk (its programs, and the schedule's
  // validation before them, hold them all): time and memory grow with their count, about 4,000
  // events a micro-batch on a 70B stage. Bound it like goodput's simulation budget, so a global
  // batch typed with three zeros too many is an error, not hours and gigabytes (1,024,000
  // sequences took 52 s and 2.4 GB).
  constexpr int64_t kMaxChunkMicrobatches = 100000;
  if (static_cast<int64_t>(w.microbatches) * v > kMaxChunkMicrobatches)
    throw Error(SourceLocation{s.file, 0, 0, "training.global_batch"},
                std::to_string(w.microbatches) + " micro-batches per pipeline" + (v > 1 ? " x " + std::to_string(v) + " chunks" : "") +
                    " exceed the simulation budget of " + std::to_string(kMaxChunkMicrobatches) + " micro-batch passes per step",
                "use `estimate` (closed form, any batch), or a larger micro_batch or fewer sequences per step");
  validate_schedule(sched, p, v, w.microbatches);

  Layout L{s.plan.tp, s.plan.cp, s.plan.dp, p, std::max(1, s.plan.ep), s.plan.etp > 0 ? s.plan.etp : s.plan.tp};
  const int64_t total = L.per_stage() * p;
  std::map<int64_t, double> slow;
  for (const auto& [rank, f] : o.stragglers) {
    if (rank < 0 || rank >= total)
      throw Error(SourceLocation{"", 0, 0, "--straggler"}, "rank " + std::to_string(rank) + " is outside the job",
                  "valid: 0.." + std::to_string(total - 1));
    if (!(f >= 0.01 && f <= 1e6) || !std::isfinite(f))
      throw Error(SourceLocation{"", 0, 0, "--straggler"},
                  "slow-down factor of rank " + std::to_string(rank) + " must be a finite number from 0.01 to 1e6, got " + format_double(f),
                  "e.g. --straggler 17=1.3 for 30% slower compute (Python: stragglers={17: 1.3})");
    if (slow.count(rank))
      throw Error(SourceLocation{"", 0, 0, "--straggler"}, "rank " + std::to_string(rank) + " is given twice",
                  "give each straggling rank once");
    slow[rank] = f;
  }
  // Jitter is run-to-run noise: measured per-rank spreads of a few percent (sigma 0.01-0.1). A sigma
  // of 1 already slows one rank in a thousand 22x (e^3.1); the bound was 10 (factors from 9e-11 to
  // 3.6e9, a step of 1.4e9 s, no note) before 2026-12-03. A slow rank is --straggler's.
  if (o.jitter_sigma < 0 || o.jitter_sigma > 1 || !std::isfinite(o.jitter_sigma))
    throw Error(SourceLocation{"", 0, 0, "--jitter"}, "jitter sigma must be a finite number from 0 to 1",
                "e.g. --jitter 0.05 (a rank far slower than the others is --straggler RANK=FACTOR)");
  const bool all = o.all_ranks || o.jitter_sigma > 0;
  Units units = all ? rank_units(L, slow, o.jitter_sigma, o.seed) : class_units(L, slow);

  if (o.timeline_rows < 0) throw Error(SourceLocation{"", 0, 0, "--timeline-rows"}, "must not be negative");
  // Checked whether or not a timeline is asked for: a rank outside the job is a typo either way.
  // A rank in a run of consecutive ones (a range, "0-40") names that run and its part outside the
  // job: "0-40" on 32 ranks had read "rank 32 is outside the job" (review of 2026-12-07). "ranks",
  // not "range": a list (62,63,64,65) makes the same run (second review of 2026-12-07).
  const auto& tr = o.timeline_ranks;
  for (size_t i = 0; i < tr.size(); ++i) {
    if (tr[i] >= 0 && tr[i] < total) continue;
    size_t lo = i, hi = i;
    while (lo > 0 && tr[lo - 1] < tr[lo] && tr[lo] - tr[lo - 1] == 1) --lo;
    while (hi + 1 < tr.size() && tr[hi + 1] > tr[hi] && tr[hi + 1] - tr[hi] == 1) ++hi;
    const std::string valid = "valid: 0.." + std::to_string(total - 1);
    if (lo == hi) throw Error(SourceLocation{"", 0, 0, "--timeline-ranks"}, "rank " + std::to_string(tr[i]) + " is outside the job", valid);
    const int64_t a = tr[lo], b = tr[hi];
    std::string outside;
    if (a < 0) outside = std::to_string(a) + (std::min<int64_t>(b, -1) > a ? "-" + std::to_string(std::min<int64_t>(b, -1)) : "");
    if (b >= total) {
      const int64_t c = std::max(a, total);
      outside += (outside.empty() ? "" : " and ") + std::to_string(c) + (b > c ? "-" + std::to_string(b) : "");
    }
    throw Error(SourceLocation{"", 0, 0, "--timeline-ranks"},
                "ranks " + std::to_string(a) + "-" + std::to_string(b) + " include ranks outside the job: " + outside, valid);
  }
  if (o.record_timeline || o.timeline_rows > 0) {
    if (!o.timeline_ranks.empty()) {
      for (int64_t r : o.timeline_ranks) units.specs[static_cast<size_t>(unit_of(units, L, r))].record = true;
    } else if (!all) {
      for (auto& sp : units.specs) sp.record = true;
    } else {
      for (int st = 0; st < p; ++st) units.specs[static_cast<size_t>(L.rank(st, 0, 0, 0))].record = true;
    }
  }

  // Leaf uplinks (an oversubscribed leaf/spine level): the ranks of one leaf switch and rail (the
  // same local GPU index, i.e. NIC, of the leaf's nodes) share one uplink link in --all-ranks mode;
  // a class unit keeps a link of its own, of the capacity its ranks own, which is exact when all
  // ranks of a leaf behave alike. (With NIC aggregation a GPU's traffic spreads over the node's
  // NICs; per-rail links are then exact for symmetric load and keep flow components small.)
  const bool leaf_uplinks = o.contention && fabric.oversubscription > 1;
  if (leaf_uplinks && units.all_ranks) {
    const int64_t leaf_ranks = static_cast<int64_t>(fabric.domains_per_leaf) * std::max(1, fabric.gpus_per_domain);
    const int gpn = std::max(1, s.system.gpus_per_node);
    const int rails = std::max(1, std::min(s.system.nics_per_node, gpn));
    std::map<int64_t, int> sharers;
    auto key = [&](int64_t r) { return (r / leaf_ranks) * rails + (r % gpn) * rails / gpn; };
    for (const auto& sp : units.specs) ++sharers[key(sp.representative_rank)];
    for (auto& sp : units.specs) {
      const int64_t k = key(sp.representative_rank);
      sp.uplink_group = static_cast<int>(k);
      sp.uplink_share = 1.0 / sharers[k];
    }
  }

  const bool p2p_async = sched.name() == "interleaved-1f1b";
  const auto programs = build_programs(w, est, fabric, sched, p2p_async);
  EngineConfig cfg;
  cfg.contention = o.contention;
  cfg.leaf_uplinks = leaf_uplinks;
  cfg.interference = o.interference ? known_or(s.accelerator.comm_compute_interference, 0.0) : 0.0;
  cfg.record_path = true;  // bounded memory at any scale (PathAcc)
  cfg.microbatches = w.microbatches;
  cfg.vpp = v;
  const EngineOutput eo = run_engine(programs, units.specs, units.members, cfg);

  SimResult r;
  r.all_ranks = all;
  r.contention = o.contention;
  r.interference = o.interference;
  r.interference_fraction = cfg.interference;
  r.jitter_sigma = o.jitter_sigma;
  r.seed = o.seed;
  for (const auto& [rank, f] : o.stragglers) r.stragglers += (r.stragglers.empty() ? "" : ",") + std::to_string(rank) + "=" + format_double(f);
  r.events_count = eo.events;
  r.units_count = static_cast<int64_t>(units.specs.size());

  // The largest slow-down factor in each unit's data-parallel replica (its pipeline chain).
  const std::vector<double> replica_factor = replica_factors(units.specs);
  // Units, critical unit, memory. Units that end together (the DP synchronisation makes every
  // replica end at once): the one in the replica with the slowest rank, whose breakdown shows
  // why the step is that long (a normal replica's had shown a straggler's delay as exposed DP
  // communication, 2026-12-04 review); then the slowest unit; then the first.
  int crit = 0;
  int mem_unit = 0;
  double worst_mem = -1;
  for (size_t i = 0; i < units.specs.size(); ++i) {
    const auto& sp = units.specs[i];
    const auto& uo = eo.units[i];
    ClassStats cs;
    cs.unit = static_cast<int>(i);
    cs.stage = sp.stage;
    cs.representative_rank = sp.representative_rank;
    cs.ranks_count = sp.ranks_count;
    cs.slowdown_factor = sp.factor;
    cs.end_s = uo.end_s;
    cs.compute_s = uo.compute_s;
    for (double x : uo.exposed_by_group_s) cs.exposed_comm_s += x;
    cs.pipeline_wait_s = uo.pipeline_wait_s;
    cs.optimizer_s = uo.optimizer_s;
    cs.activation_peak_bytes = uo.activation_peak_bytes;
    cs.peak_memory_bytes = programs[static_cast<size_t>(sp.stage)].static_memory_bytes + uo.activation_peak_bytes;
    cs.peak_memory_time_s = uo.peak_time_s;
    {
      const double ce = eo.units[static_cast<size_t>(crit)].end_s;
      const double tol = 1e-9 * std::max(ce, uo.end_s);
      if (uo.end_s > ce + tol) {
        crit = static_cast<int>(i);
      } else if (uo.end_s >= ce - tol && i > 0) {
        const double fi = replica_factor[i], fc = replica_factor[static_cast<size_t>(crit)];
        if (fi > fc || (fi == fc && sp.factor > units.specs[static_cast<size_t>(crit)].factor)) crit = static_cast<int>(i);
      }
    }
    if (cs.peak_memory_bytes > worst_mem) {
      worst_mem = cs.peak_memory_bytes;
      mem_unit = static_cast<int>(i);
    }
    r.units.push_back(cs);
  }

  r.critical_unit = crit;
  StepEstimate& e = r.step;
  const auto& cu = eo.units[static_cast<size_t>(crit)];
  e.step_time_s = cu.end_s;
  e.critical_stage = units.specs[static_cast<size_t>(crit)].stage;
  e.compute_s = cu.compute_s;
  e.optimizer_s = cu.optimizer_s;
  e.grad_sync_exposed_s = cu.step_sync_exposed_s;
  for (int c = 0; c < 9; ++c)
    if (cu.by_class_s[c] > 0) e.compute_by_class_s.emplace_back(to_string(static_cast<OpClass>(c)), cu.by_class_s[c]);
  for (int g = 0; g < kGroupKinds; ++g) {
    if (cu.comm_by_group_s[g] <= 0 && cu.exposed_by_group_s[g] <= 0) continue;
    e.comm_by_group_s.emplace_back(kGroupName[g], cu.comm_by_group_s[g]);
    e.exposed_by_group_s.emplace_back(kGroupName[g], cu.exposed_by_group_s[g]);
    e.total_comm_s += cu.comm_by_group_s[g];
    e.exposed_comm_s += cu.exposed_by_group_s[g];
  }
  e.bubble_s = std::max(0.0, e.step_time_s - e.compute_s - e.exposed_comm_s - e.optimizer_s);
  {  // means over the ranks (each unit stands for ranks_count ranks)
    double n = 0;
    for (const auto& u : r.units) {
      n += static_cast<double>(u.ranks_count);
      e.mean_compute_s += static_cast<double>(u.ranks_count) * u.compute_s;
      e.mean_exposed_comm_s += static_cast<double>(u.ranks_count) * u.exposed_comm_s;
    }
    if (n > 0) {
      e.mean_compute_s /= n;
      e.mean_exposed_comm_s /= n;
    }
  }
  const StepEstimate closed = est.run(w);  // model FLOPs and hardware FLOPs of the step (same IR)
  e.model_flops = closed.model_flops;
  e.hardware_flops = closed.hardware_flops;
  const double tokens = static_cast<double>(s.tokens_per_step());
  const double peak = s.accelerator.peak(s.accelerator.has_peak(s.train.precision) ? s.train.precision : DType::BF16);
  if (e.step_time_s > 0) {
    e.tokens_per_s_per_gpu = tokens / (e.step_time_s * s.num_gpus);
    e.mfu_fraction = e.model_flops / (e.step_time_s * s.num_gpus * peak);
    e.hfu_fraction = e.hardware_flops / (e.step_time_s * s.num_gpus * peak);
  }
  e.memory = stage_memory(w, units.specs[static_cast<size_t>(mem_unit)].stage, eo.units[static_cast<size_t>(mem_unit)].activation_peak_bytes);
  e.memory_capacity_bytes = s.accelerator.memory_bytes.value;
  e.fits = e.memory.total_bytes() <= e.memory_capacity_bytes;
  r.peak_memory_time_s = eo.units[static_cast<size_t>(mem_unit)].peak_time_s;

  // Critical path: accumulated online by the engine (the critical unit's compute-stream
  // activity, switching to the sender's path at every pipeline receive it waited for), closed
  // at the end of the step.
  if (cfg.record_path) {
    PathAcc pa = eo.paths[static_cast<size_t>(crit)];
    const double step_end = e.step_time_s;
    if (step_end > pa.end_s + 1e-12) {
      const std::string& wait = pa.started ? std::string("idle") : std::string("step start");
      for (size_t k = 0; k < eo.path_keys.size(); ++k)
        if (eo.path_keys[k].category == "wait" && eo.path_keys[k].item == wait) {
          pa.time_s[k] += step_end - pa.end_s;
          pa.count[k] += 1;
          pa.last_s[k] = step_end;
        }
    }
    std::vector<size_t> order;
    for (size_t k = 0; k < eo.path_keys.size(); ++k)
      if (pa.count[k] > 0 && pa.time_s[k] > 0) order.push_back(k);
    // Longest first; ties in the order a backward walk from the step's end meets them.
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      if (pa.time_s[x] != pa.time_s[y]) return pa.time_s[x] > pa.time_s[y];
      return pa.last_s[x] > pa.last_s[y];
    });
    for (size_t k : order)
      r.critical_path.push_back(PathItem{eo.path_keys[k].category, eo.path_keys[k].item, pa.time_s[k], pa.count[k]});
  }

  {
    const auto& rows = programs[static_cast<size_t>(e.critical_stage)].comm_rows;
    for (size_t k = 0; k < rows.size() && k < cu.comm_rows.size(); ++k) {
      if (cu.comm_rows[k].calls == 0) continue;
      const CommRow& row = rows[k];
      r.comm_ops.push_back(CommOpStat{row.block, row.pass, row.name, kGroupName[static_cast<int>(row.group)], to_string(row.kind), row.bytes,
                                      cu.comm_rows[k].time_s, cu.comm_rows[k].calls});
    }
  }

  if (o.record_timeline) r.timeline_json = timeline_json(eo, units.specs, programs.size(), s.name);
  if (o.timeline_rows > 0) timeline_table(eo, units.specs, o.timeline_rows, r);
  return r;
}

namespace {
// The communication rows of the per-op table as the engine ran them for the critical unit (they
// had been estimate's idle-network times: on Llama 3 8B at tp 2 pp 4 the table summed pp to
// 0.0058 s and dp to 0.0144 s beside a communication table, and a timeline, of 0.0029 s and
// 0.0159 s; review of 2026-12-05). A row takes the simulated time and calls of its collectives
// (pp: the unit's own sends, which the communication table counts, where estimate's row counts
// a transfer each way); rows sharing a block, pass, name and group (two templates of one block
// name, the two pipeline directions when they cost differently) share the time in proportion to
// estimate's; a row the simulation did not run is 0; a simulated one without a row is added. Per
// group the rows then sum to the communication table's total_s. The rows keep estimate's order.
void simulated_comm_rows(std::vector<OpStat>& ops, const std::vector<CommOpStat>& measured) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, std::vector<size_t>> rows_of;
  for (size_t i = 0; i < ops.size(); ++i)
    if (!ops[i].group.empty()) rows_of[Key{ops[i].block, ops[i].pass, ops[i].name, ops[i].group}].push_back(i);
  std::set<Key> seen;
  for (const auto& m : measured) {
    const Key key{m.block, m.pass, m.name, m.group};
    seen.insert(key);
    const auto it = rows_of.find(key);
    if (it == rows_of.end()) {
      OpStat row;
      row.block = m.block;
      row.pass = m.pass;
      row.name = m.name;
      row.op_class = m.kind;
      row.group = m.group;
      row.bytes = m.bytes;
      row.count = m.calls;
      row.time_s = m.calls > 0 ? m.time_s / static_cast<double>(m.calls) : 0.0;
      row.bound = "comm";
      ops.push_back(std::move(row));
      continue;
    }
    if (it->second.size() == 1) {
      OpStat& row = ops[it->second.front()];
      row.count = m.calls;
      row.time_s = m.calls > 0 ? m.time_s / static_cast<double>(m.calls) : 0.0;
      continue;
    }
    double est_s = 0;
    for (const size_t i : it->second) est_s += ops[i].time_s * static_cast<double>(ops[i].count);
    for (const size_t i : it->second) {
      OpStat& row = ops[i];
      const double share = est_s > 0 ? row.time_s * static_cast<double>(row.count) / est_s : 1.0 / static_cast<double>(it->second.size());
      row.time_s = row.count > 0 ? m.time_s * share / static_cast<double>(row.count) : 0.0;
    }
  }
  for (const auto& [key, idx] : rows_of)
    if (!seen.count(key))
      for (const size_t i : idx) ops[i].time_s = 0;
}
}  // namespace

Result to_result(const SimResult& r, const Scenario& s) {
  // The per-op table of the critical unit's stage (the op times simulate executes are these):
  // compute at the unit's slow-down factor (a straggler's, or its jitter draw), as the engine runs
  // it (the nominal times had summed to 0.68 of a straggler's compute, 2026-12-04 review).
  StepEstimate with_ops = r.step;
  with_ops.ops = op_table(lower(s), with_ops.critical_stage, Estimator{});
  const double factor = r.critical_unit >= 0 && static_cast<size_t>(r.critical_unit) < r.units.size()
                            ? r.units[static_cast<size_t>(r.critical_unit)].slowdown_factor
                            : 1.0;
  if (factor != 1.0)
    for (auto& op : with_ops.ops)
      if (op.group.empty()) op.time_s *= factor;
  simulated_comm_rows(with_ops.ops, r.comm_ops);
  Result out = sextant::to_result(with_ops, s);
  out.command = "simulate";
  out.set("simulated_units_count", r.units_count);
  out.set("all_ranks", r.all_ranks);
  out.set("contention", r.contention);
  out.set("interference", r.interference);
  out.set("interference_fraction", r.interference_fraction);
  if (!r.interference && known_or(s.accelerator.comm_compute_interference, 0.0) == 0)
    out.notes.push_back("--no-interference changes nothing here: " + s.accelerator.id + " has no comm_compute_interference in the "
                        "catalog, so overlapped communication never slows its compute (interference_fraction 0 either way)");
  // Class mode runs the replicas without a straggler in lock step: where an expert-parallel group
  // spans several replicas, those sharing the straggler's fall behind and the rest run ahead, and
  // under contention their DP traffic overlaps otherwise (2-4% apart on Mixtral at tp 2, ep 8;
  // review of 2026-12-05).
  {
    const int64_t etp = s.plan.etp > 0 ? s.plan.etp : s.plan.tp;
    if (!r.all_ranks && r.contention && !r.stragglers.empty() && static_cast<int64_t>(s.plan.ep) * etp > static_cast<int64_t>(s.plan.tp) * s.plan.cp)
      out.notes.push_back("stragglers in class mode: an expert-parallel group here spans " +
                          std::to_string(static_cast<int64_t>(s.plan.ep) * etp / (static_cast<int64_t>(s.plan.tp) * s.plan.cp)) +
                          " data-parallel replicas, and the classes run the replicas without a straggler in lock step, where those "
                          "sharing its expert group fall behind and the others run ahead: with contention the step can read a few "
                          "percent fast; --all-ranks simulates every rank");
  }
  out.set("jitter_sigma", r.jitter_sigma);
  if (r.jitter_sigma > 0) out.set("seed", static_cast<int64_t>(r.seed));  // read by the jitter only
  out.set("stragglers", r.stragglers.empty() ? std::string("none") : r.stragglers);
  out.set("events_count", r.events_count);
  out.set("peak_memory_time_s", r.peak_memory_time_s);

  Table& t = out.add_table("rank_classes", "per simulated unit (a rank, or a class of equivalent ranks): when it finished and where its time went");
  t.add_i64("unit");
  t.add_i64("stage");
  t.add_i64("representative_rank");
  t.add_i64("ranks_count");
  t.add_f64("slowdown_factor");
  t.add_f64("end_s");
  t.add_f64("compute_s");
  t.add_f64("exposed_comm_s");
  t.add_f64("pipeline_wait_s");
  t.add_f64("optimizer_s");
  t.add_f64("peak_memory_bytes");
  t.add_f64("peak_memory_time_s");
  for (const auto& u : r.units)
    t.add_row({int64_t{u.unit}, int64_t{u.stage}, u.representative_rank, u.ranks_count, u.slowdown_factor, u.end_s, u.compute_s,
               u.exposed_comm_s, u.pipeline_wait_s, u.optimizer_s, u.peak_memory_bytes, u.peak_memory_time_s});

  Table& c = out.add_table("critical_path", "ops and waits on the critical path of the step, longest first");
  c.add_str("category");
  c.add_str("item");
  c.add_f64("time_s");
  c.add_f64("share_fraction");
  c.add_i64("count");
  const double step = r.step.step_time_s;
  for (const auto& p : r.critical_path) c.add_row({p.category, p.item, p.time_s, step > 0 ? p.time_s / step : 0.0, p.count});
  if (r.timeline_rows_limit > 0) {
    out.set("timeline_spans_count", r.timeline_spans_count);
    out.set("timeline_rows_limit_count", r.timeline_rows_limit);
    out.set("timeline_merge_gap_s", r.timeline_merge_gap_s);
    out.set("timeline_dropped_count", r.timeline_dropped_count);
    Table& tl = out.add_table("timeline", "per-rank timeline of the recorded units, at most " + std::to_string(r.timeline_rows_limit) +
                                              " rows: one row per span, or spans of one stream, category and pass closer than "
                                              "timeline_merge_gap_s merged; timeline_dropped_count spans left out");
    tl.add_i64("unit");
    tl.add_i64("rank");
    tl.add_str("stream");
    tl.add_str("name");
    tl.add_str("category");
    tl.add_str("pass");
    tl.add_i64("microbatch");
    tl.add_f64("start_s");
    tl.add_f64("end_s");
    tl.add_f64("busy_s");
    tl.add_i64("spans_count");
    for (const auto& x : r.timeline)
      tl.add_row({int64_t{x.unit}, x.rank, x.stream, x.name, x.category, x.pass, x.microbatch, x.start_s, x.end_s, x.busy_s, x.spans_count});
    if (r.timeline_dropped_count > 0)
      out.notes.push_back("timeline table: " + std::to_string(r.timeline_dropped_count) + " of " + std::to_string(r.timeline_spans_count) +
                          " spans left out (over " + std::to_string(r.timeline_rows_limit) + " rows after merging); --timeline writes them all");
  }
  return out;
}

}  // namespace sextant::sim
