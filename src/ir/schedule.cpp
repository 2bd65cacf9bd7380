#include "ir/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>

#include "core/error.hpp"

namespace sextant::ir {

ScheduleRegistry::ScheduleRegistry() : InstanceRegistry("parallel.schedule", "pipeline schedule") {
  add(make_gpipe());
  add(make_1f1b());
  add(make_interleaved_1f1b());
  add(make_zb_h1());
  add(make_dualpipev());
}

int virtual_stage_of(const std::string& schedule, int r, int c, int p, int v) {
  (void)v;
  return schedule == "dualpipev" ? (c == 0 ? r : 2 * p - 1 - r) : c * p + r;
}

double largest_weight_elements(const Block& b) {
  double largest = 0;
  for (const auto& step : b.forward)
    // The output head's logits GEMM too (its class is Logits): the head had floored at its weight
    // and final norm together (2026-12-06 review).
    if (const auto* op = std::get_if<ComputeOp>(&step);
        op && (op->cls == OpClass::Gemm || op->cls == OpClass::Logits) && op->grad == ComputeOp::Grad::None)
      largest = std::max(largest, static_cast<double>(op->n) * static_cast<double>(op->k));
  return largest > 0 ? std::min(largest, b.params) : b.params;
}

double largest_weight_elements(const Block& b, const Scenario& s) {
  if (b.name != "embedding" && b.name != "mtp_embedding") return largest_weight_elements(b);
  const double word = std::min(b.params, static_cast<double>(s.model.vocab) * s.model.hidden / std::max(1, s.plan.tp));
  return std::max(word, b.params - word);
}

double zero3_resident_elements(double units, double largest_tensor, double max_live) {
  if (!(max_live > 0)) return units;
  return std::min(units, std::max(largest_tensor, max_live));
}

double weight_pass_held_bytes(const Chunk& c) {
  double bytes = 0;
  // Every weight-gradient GEMM (lowering's gemm_grads marks them so), wherever lowering placed it:
  // a schedule that does not split the backward keeps some beside the input gradient (under TP
  // overlap), and the plan search's memory model lowers once for every schedule.
  // The output head's logits gradient counts too (its op class is Logits; before 2026-12-03 only
  // class Gemm was read, and ZB-H1's last rank held 1 GB less per deferred pass of Llama 3 8B's
  // head than it does). A re-gathered input (SP) is held as its shard.
  for (const auto& b : c.blocks) {
    double one = 0;
    for (const StepList* list : {&b.backward_input, &b.backward_weight})
      for (const auto& step : *list)
        if (const auto* op = std::get_if<ComputeOp>(&step); op && op->grad == ComputeOp::Grad::Weight)
          one += static_cast<double>(op->batch) *
                 (static_cast<double>(op->m) * static_cast<double>(op->k) / std::max(1, op->input_shards) +
                  static_cast<double>(op->k) * static_cast<double>(op->n)) *
                 dtype_bytes(op->dtype);
    bytes += one * b.count;
  }
  return bytes;
}

double chunk_recompute_peak_bytes(const Chunk& c, bool block_method) {
  // The chunk's tail after its layers, in position (lowering appends the loss head, then per MTP
  // module its projection, layer and head): its backward runs first, each block freeing its saved
  // activations before the one before it runs (2026-12-06 review: the head's logits had been held
  // beside the first recomputed layer's set).
  auto in_tail = [](const Block& b) { return b.name == "head" || b.name.rfind("mtp_", 0) == 0; };
  size_t tail_begin = c.blocks.size();
  while (tail_begin > 0 && in_tail(c.blocks[tail_begin - 1])) --tail_begin;
  double peak = 0, freed = 0;
  for (size_t k = c.blocks.size(); k-- > tail_begin;) {
    const Block& b = c.blocks[k];
    if (b.count <= 0) continue;
    if (b.recompute_bytes > 0) peak = std::max(peak, b.recompute_bytes - freed);  // an MTP module's recomputed layer
    freed += b.activation_bytes * b.count;
  }
  // The layers, grouped by template, not by position: only what is known to be freed first is
  // taken off. Under the block method, the layers that rematerialise nothing are the chunk's last,
  // whose backward runs before any recomputed one's. Under selective recompute a layer without a
  // set may come first (DeepSeek-V3's dense layers under recompute_modules [moe]): nothing more is
  // taken off (it had dropped the MoE layers' whole set, 2026-12-05 review).
  double set = 0, stored_layers = 0;
  for (size_t k = 0; k < tail_begin; ++k) {
    const Block& b = c.blocks[k];
    if (b.count <= 0) continue;
    if (b.recompute_bytes > 0) set = std::max(set, b.recompute_bytes);
    else if (b.name.size() > 6 && b.name.compare(b.name.size() - 6, 6, "_layer") == 0) stored_layers += b.activation_bytes * b.count;
  }
  if (set > 0) peak = std::max(peak, (block_method ? set - stored_layers : set) - freed);
  return std::max(0.0, peak);
}

double peak_held_bytes(const PipelineSchedule& s, int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                       const std::vector<double>& chunk_weight_bytes, const std::vector<double>& chunk_recompute_bytes) {
  if (!s.splits_weight_gradient()) return s.peak_with_recompute(r, p, v, m, chunk_bytes, chunk_recompute_bytes);
  return s.peak_with_weight_holds(r, p, v, m, chunk_bytes, chunk_weight_bytes, chunk_recompute_bytes);
}

double peak_held_bytes(const PipelineSchedule& s, int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                       const std::vector<double>& chunk_weight_bytes, double recompute_bytes) {
  return peak_held_bytes(s, r, p, v, m, chunk_bytes, chunk_weight_bytes, std::vector<double>(chunk_bytes.size(), recompute_bytes));
}

double PipelineSchedule::peak_with_recompute(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                                             const std::vector<double>& chunk_recompute_bytes) const {
  bool uniform = true;
  for (const double x : chunk_recompute_bytes) uniform = uniform && x == chunk_recompute_bytes[0];
  if (uniform) return peak_activation_bytes(r, p, v, m, chunk_bytes) + (chunk_recompute_bytes.empty() ? 0.0 : chunk_recompute_bytes[0]);
  // Sets that differ by chunk: the walk (nothing is held from a Backward to a Weight here).
  return PipelineSchedule::peak_with_weight_holds(r, p, v, m, chunk_bytes, std::vector<double>(chunk_bytes.size(), 0.0), chunk_recompute_bytes);
}

double PipelineSchedule::peak_with_weight_holds(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                                                const std::vector<double>& chunk_weight_bytes,
                                                const std::vector<double>& chunk_recompute_bytes) const {
  double held = 0, peak = 0;
  for (const auto& it : order(r, p, v, m)) {
    const auto c = static_cast<size_t>(it.chunk);
    const double a = c < chunk_bytes.size() ? chunk_bytes[c] : 0.0, w = c < chunk_weight_bytes.size() ? chunk_weight_bytes[c] : 0.0;
    if (it.kind == ScheduleItem::Forward) {
      held += a;
    } else if (it.kind == ScheduleItem::Backward) {
      // While it runs: its chunk's inputs and the chunk's recomputed set.
      peak = std::max(peak, held + (c < chunk_recompute_bytes.size() ? chunk_recompute_bytes[c] : 0.0));
      held += w - a;
    } else {
      held -= w;
    }
    peak = std::max(peak, held);
  }
  return peak;
}

double PipelineSchedule::peak_activation_bytes(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes) const {
  double sum = 0;
  for (const double b : chunk_bytes) sum += b;
  return inflight(r, p, v, m) * sum / v;
}

bool weight_joins_backward(const std::vector<ScheduleItem>& order, size_t k) {
  if (k + 1 >= order.size()) return false;
  const ScheduleItem &b = order[k], &w = order[k + 1];
  return b.kind == ScheduleItem::Backward && b.full_backward && w.kind == ScheduleItem::Weight && w.microbatch == b.microbatch &&
         w.chunk == b.chunk;
}

OrderWalk compile_order_walk(const PipelineSchedule& s, int p, int v, int64_t m) {
  OrderWalk w;
  w.p = p;
  w.v = v;
  w.m = m;
  w.split = s.splits_weight_gradient();
  const size_t M = static_cast<size_t>(m), P = static_cast<size_t>(p), V = static_cast<size_t>(v);
  const int nvs = p * v;
  std::vector<std::vector<ScheduleItem>> orders(P);
  size_t remaining = 0;
  w.item_begin.assign(P + 1, 0);
  for (int r = 0; r < p; ++r) {
    orders[static_cast<size_t>(r)] = s.order(r, p, v, m);
    remaining += orders[static_cast<size_t>(r)].size();
    w.item_begin[static_cast<size_t>(r) + 1] = w.item_begin[static_cast<size_t>(r)] + static_cast<int32_t>(orders[static_cast<size_t>(r)].size());
  }
  if (remaining > static_cast<size_t>(INT32_MAX)) throw Error("schedule '" + s.name() + "': its order is too long to time");
  std::vector<int> vstage(P * V);
  for (int r = 0; r < p; ++r)
    for (int c = 0; c < v; ++c) vstage[static_cast<size_t>(r) * V + static_cast<size_t>(c)] = s.virtual_stage(r, c, p, v);
  // Chunks' first forwards and last gradient passes, and the runs (as order_rank_ends_s and
  // root_end_delays in estimate read them).
  w.first_forward_item.assign(P * V, -1);
  w.last_grad_item.assign(P * V, -1);
  w.runs.assign(P * V, 0);
  const auto grad_kind = w.split ? ScheduleItem::Weight : ScheduleItem::Backward;
  for (size_t r = 0; r < P; ++r) {
    const auto& o = orders[r];
    const int32_t base = w.item_begin[r];
    for (size_t k = 0; k < o.size(); ++k) {
      if (o[k].chunk < 0 || o[k].chunk >= v) continue;
      const size_t at = r * V + static_cast<size_t>(o[k].chunk);
      if (o[k].kind == ScheduleItem::Forward && w.first_forward_item[at] < 0) w.first_forward_item[at] = base + static_cast<int32_t>(k);
      if (o[k].kind == grad_kind) w.last_grad_item[at] = base + static_cast<int32_t>(k);
    }
    const RunEdges e = run_edges(o, v, w.split, p > 1);
    for (size_t k = 0; k < o.size(); ++k) {
      const int32_t at = static_cast<int32_t>(r * V) + o[k].chunk;
      if (e.opens[k]) w.run_opens.emplace_back(base + static_cast<int32_t>(k), at);
      if (e.closes[k]) w.run_closes.emplace_back(base + static_cast<int32_t>(k), at);
    }
    for (size_t c = 0; c < V && c < e.runs.size(); ++c) w.runs[r * V + c] = e.runs[c];
  }
  // The units in the order the ranks' round-robin walk runs them (each rank as far as its inputs
  // allow, round after round), recording which unit each waits on.
  std::vector<int32_t> f_unit(static_cast<size_t>(nvs) * M, -1), b_unit(static_cast<size_t>(nvs) * M, -1);
  std::vector<size_t> pos(P, 0);
  w.units.reserve(remaining);
  while (remaining > 0) {
    bool progress = false;
    for (int r = 0; r < p; ++r) {
      const size_t R = static_cast<size_t>(r);
      const auto& o = orders[R];
      while (pos[R] < o.size()) {
        const size_t k = pos[R];
        const ScheduleItem& it = o[k];
        OrderWalk::Unit u;
        u.rank = r;
        u.item = w.item_begin[R] + static_cast<int32_t>(k);
        u.chunk = it.chunk;
        u.kind = static_cast<uint8_t>(it.kind);
        if (it.with_next && k + 1 < o.size()) {
          const ScheduleItem& nb = o[k + 1];
          const size_t i = static_cast<size_t>(it.microbatch), j = static_cast<size_t>(nb.microbatch);
          const size_t VF = static_cast<size_t>(vstage[R * V + static_cast<size_t>(it.chunk)]);
          const size_t VB = static_cast<size_t>(vstage[R * V + static_cast<size_t>(nb.chunk)]);
          if (VF > 0 && (u.dep = f_unit[(VF - 1) * M + i]) < 0) break;
          if (static_cast<int>(VB) < nvs - 1 && (u.dep2 = b_unit[(VB + 1) * M + j]) < 0) break;
          u.kind = OrderWalk::kPair;
          u.chunk2 = nb.chunk;
          u.full = weight_joins_backward(o, k + 1);
          const int32_t id = static_cast<int32_t>(w.units.size());
          f_unit[VF * M + i] = id;
          b_unit[VB * M + j] = id;
          w.units.push_back(u);
          pos[R] += u.full ? 3 : 2;
          remaining -= u.full ? 3 : 2;
          progress = true;
          continue;
        }
        const size_t i = static_cast<size_t>(it.microbatch);
        const int vs = vstage[R * V + static_cast<size_t>(it.chunk)];
        const size_t VS = static_cast<size_t>(vs);
        if (it.kind == ScheduleItem::Forward) {
          if (vs > 0 && (u.dep = f_unit[(VS - 1) * M + i]) < 0) break;
        } else if (it.kind == ScheduleItem::Backward) {
          if (vs < nvs - 1 && (u.dep = b_unit[(VS + 1) * M + i]) < 0) break;
        }
        u.full = weight_joins_backward(o, k);
        const int32_t id = static_cast<int32_t>(w.units.size());
        if (it.kind == ScheduleItem::Forward) f_unit[VS * M + i] = id;
        if (it.kind == ScheduleItem::Backward) b_unit[VS * M + i] = id;
        w.units.push_back(u);
        pos[R] += u.full ? 2 : 1;
        remaining -= u.full ? 2 : 1;
        progress = true;
      }
    }
    if (!progress) {
      w.deadlocked = true;
      break;
    }
  }
  return w;
}

std::shared_ptr<const OrderWalk> OrderCache::get(const PipelineSchedule& s, int p, int v, int64_t m) const {
  const auto key = std::make_tuple(&s, p, v, m);
  {
    const std::lock_guard<std::mutex> lock(mu_);
    if (const auto it = walks_.find(key); it != walks_.end()) return it->second;
  }
  // Compiled outside the lock (another thread may compile the same key meanwhile: both are equal).
  auto walk = std::make_shared<const OrderWalk>(compile_order_walk(s, p, v, m));
  const std::lock_guard<std::mutex> lock(mu_);
  if (const auto it = walks_.find(key); it != walks_.end()) return it->second;
  if (units_ + walk->units.size() > kMaxUnits) return walk;
  units_ += walk->units.size();
  walks_.emplace(key, walk);
  return walk;
}

std::shared_ptr<const OrderWalk> order_walk(const PipelineSchedule& s, int p, int v, int64_t m, const OrderCache* cache) {
  return cache ? cache->get(s, p, v, m) : std::make_shared<const OrderWalk>(compile_order_walk(s, p, v, m));
}

double order_makespan_s(const PipelineSchedule& s, const StageTimes& t, int p, int v, int64_t m, std::vector<double>* rank_end_s,
                        std::vector<double>* chunk_grad_end_s, std::vector<double>* chunk_first_fwd_start_s) {
  return order_makespan_s(s, compile_order_walk(s, p, v, m), t, rank_end_s, chunk_grad_end_s, chunk_first_fwd_start_s);
}

double order_makespan_s(const PipelineSchedule& s, const OrderWalk& walk, const StageTimes& t, std::vector<double>* rank_end_s,
                        std::vector<double>* chunk_grad_end_s, std::vector<double>* chunk_first_fwd_start_s) {
  if (walk.deadlocked) throw Error("schedule '" + s.name() + "': its order deadlocks (order_makespan_s)");
  const bool split = walk.split;
  const int v = walk.v;
  const size_t P = static_cast<size_t>(walk.p), V = static_cast<size_t>(v);
  thread_local std::vector<double> end_at;  // each unit's end (sized once per thread: the plan search's hot path)
  end_at.resize(walk.units.size());
  std::vector<double> free_at(P, 0.0);
  std::vector<double> grad_end(P * V, 0.0);
  std::vector<double> first_fwd(P * V, -1.0);  // start of each chunk's first forward on its rank
  const double per_chunk = 1.0 / v;
  // A chunk's times: its own where given (StageTimes::chunk_*), else the rank's over v. Before
  // 2026-12-04 always the latter: the last rank's head chunk ran at its rank's mean chunk time, and
  // the timed interleaved order was 7.4% low on uneven chunks.
  const bool by_chunk = t.chunk_forward_s.size() == P * V && t.chunk_backward_s.size() == P * V && t.chunk_weight_s.size() == P * V;
  // Each chunk's forward, input-gradient (the backward where the schedule does not split it) and
  // weight pass, worked out once (the same expressions as per item before 2026-12-07).
  thread_local std::vector<double> fwd, bwd, wgt;
  fwd.resize(P * V);
  bwd.resize(P * V);
  wgt.resize(P * V);
  for (size_t R = 0; R < P; ++R)
    for (size_t c = 0; c < V; ++c) {
      const size_t k = R * V + c;
      fwd[k] = by_chunk ? t.chunk_forward_s[k] : t.forward_s[R] * per_chunk;
      wgt[k] = by_chunk ? t.chunk_weight_s[k] : t.weight_s[R] * per_chunk;
      const double b = by_chunk ? t.chunk_backward_s[k] : t.backward_s[R] * per_chunk;
      bwd[k] = b - (split ? wgt[k] : 0.0);
    }
  const OrderWalk::Unit* units = walk.units.data();
  for (size_t n = 0; n < walk.units.size(); ++n) {
    const OrderWalk::Unit& u = units[n];
    const size_t R = static_cast<size_t>(u.rank), at = R * V + static_cast<size_t>(u.chunk);
    if (u.kind == OrderWalk::kPair) {
      // An overlapped pair (forward beside the next backward): both inputs first, both outputs at
      // the end of the pair; a full backward's weight pass runs inside it, before both outputs
      // leave (2026-12-07 review).
      const size_t bt = R * V + static_cast<size_t>(u.chunk2);
      double dep = 0;
      if (u.dep >= 0) dep = end_at[static_cast<size_t>(u.dep)];
      if (u.dep2 >= 0) dep = std::max(dep, end_at[static_cast<size_t>(u.dep2)]);
      const double begin = std::max(free_at[R], dep), end = begin + fwd[at] + bwd[bt] + (u.full ? wgt[bt] : 0.0);
      if (first_fwd[at] < 0) first_fwd[at] = begin;
      end_at[n] = end;
      if (!split || u.full) grad_end[bt] = end;
      free_at[R] = end;
      continue;
    }
    const double dep = u.dep >= 0 ? end_at[static_cast<size_t>(u.dep)] : 0.0;
    double dur;
    if (u.kind == ScheduleItem::Forward) dur = fwd[at];
    else if (u.kind == ScheduleItem::Backward) dur = bwd[at] + (u.full ? wgt[at] : 0.0);
    else dur = wgt[at];
    const double end = std::max(free_at[R], dep) + dur;
    if (u.kind == ScheduleItem::Forward && first_fwd[at] < 0) first_fwd[at] = end - dur;
    end_at[n] = end;
    if (u.full || u.kind == (split ? ScheduleItem::Weight : ScheduleItem::Backward)) grad_end[at] = end;
    free_at[R] = end;
  }
  if (rank_end_s) *rank_end_s = free_at;
  if (chunk_grad_end_s) *chunk_grad_end_s = grad_end;
  if (chunk_first_fwd_start_s) *chunk_first_fwd_start_s = first_fwd;
  return *std::max_element(free_at.begin(), free_at.end());
}

int64_t order_walk_microbatches(const PipelineSchedule& s, int p, int v, int64_t m) {
  const int64_t per_mb = static_cast<int64_t>(p) * v * (s.splits_weight_gradient() ? 3 : 2);
  int64_t cap = std::max<int64_t>(4 * static_cast<int64_t>(p) + 2, kOrderWalkItems / std::max<int64_t>(1, per_mb));
  // Even (a V-shaped schedule pairs micro-batches) and a count order() accepts.
  const int64_t g = std::max<int64_t>(1, s.microbatch_multiple(p)), unit = g % 2 == 0 ? g : 2 * g;
  cap = (cap + unit - 1) / unit * unit;
  return std::min(m, cap);
}

double order_time_s(const PipelineSchedule& s, const StageTimes& t, int p, int v, int64_t m, std::vector<double>* rank_end_s,
                    std::vector<double>* chunk_grad_end_s, std::vector<double>* chunk_first_fwd_start_s, const OrderCache* orders) {
  int64_t walk = order_walk_microbatches(s, p, v, m);
  auto timed = [&](int64_t n, std::vector<double>* ends, std::vector<double>* grads, std::vector<double>* firsts) {
    return order_makespan_s(s, *order_walk(s, p, v, n, orders), t, ends, grads, firsts);
  };
  // The first forwards are in the walk (the warm-up): no tail moves them.
  double x = timed(walk, rank_end_s, chunk_grad_end_s, chunk_first_fwd_start_s);
  if (walk >= m) return x;
  // Past the walk, the pace of the order's own steady state: the growth of its makespan over the
  // walk's last quarter, and never below the busiest rank's work per micro-batch. With interleaving
  // and chunks that differ the steady cycle is longer than any rank's total (p 4, v 2, stages
  // [15,10,10,5,5,10,10,15]: 0.0973 s per micro-batch against 0.0865; the busiest rank's total
  // alone had put m = 512 8.3% low, 2026-12-04 review).
  double busiest = 0;
  for (int r = 0; r < p; ++r) busiest = std::max(busiest, t.forward_s[static_cast<size_t>(r)] + t.backward_s[static_cast<size_t>(r)]);
  double pace = busiest;
  if (v > 1) {
    // The walk is steady when its last two quarters grow alike and no slower than the busiest
    // rank; until then it is doubled (at most to 32 x kOrderWalkItems items). A V whose ranks
    // differ little absorbs the fill and drain idle over about 1/imbalance micro-batches: DualPipeV
    // at p 16, m 192, with the first rank 0.4% heavier, had kept the idle of a 66 micro-batch walk
    // and read 0.9% (a bubble 5x) above simulate (2026-12-06 review).
    const int64_t g = std::max<int64_t>(1, s.microbatch_multiple(p)), unit = g % 2 == 0 ? g : 2 * g;
    const int64_t per_mb = static_cast<int64_t>(p) * v * (s.splits_weight_gradient() ? 3 : 2);
    // At least four times the first walk (a pipeline of 48 stages or more had its first walk above
    // the item bound and was never doubled: +0.65% at p 64; 2026-12-06 review).
    const int64_t max_walk = std::max(4 * walk, 32 * kOrderWalkItems / std::max<int64_t>(1, per_mb));
    for (;;) {
      const int64_t q = std::max<int64_t>(unit, (walk / 4) / unit * unit);
      if (walk - 2 * q < unit) break;
      const double x1 = timed(walk - q, nullptr, nullptr, nullptr);
      const double x2 = timed(walk - 2 * q, nullptr, nullptr, nullptr);
      const double recent = (x - x1) / static_cast<double>(q), before = (x1 - x2) / static_cast<double>(q);
      pace = std::max(busiest, recent);
      const bool steady = std::abs(recent - before) <= 1e-4 * pace && recent >= busiest * (1 - 1e-4);
      if (steady || walk >= max_walk) break;
      walk = std::min(m, (std::min(2 * walk, max_walk) + unit - 1) / unit * unit);
      x = timed(walk, rank_end_s, chunk_grad_end_s, chunk_first_fwd_start_s);
      if (walk >= m) return x;
    }
  }
  const double tail = static_cast<double>(m - walk) * pace;
  if (rank_end_s)
    for (double& e : *rank_end_s) e += tail;
  if (chunk_grad_end_s)
    for (double& e : *chunk_grad_end_s) e += tail;
  return x + tail;
}

void validate_schedule(const PipelineSchedule& s, int p, int v, int64_t m) {
  std::vector<std::vector<ScheduleItem>> orders(p);
  for (int r = 0; r < p; ++r) {
    orders[r] = s.order(r, p, v, m);
    // Completeness: each (kind, mb, chunk) exactly once.
    std::set<std::tuple<int, int64_t, int>> seen;
    for (const auto& it : orders[r]) {
      if (it.microbatch < 0 || it.microbatch >= m || it.chunk < 0 || it.chunk >= v)
        throw Error("schedule '" + s.name() + "': rank " + std::to_string(r) + " lists micro-batch " +
                    std::to_string(it.microbatch) + " chunk " + std::to_string(it.chunk) + ", out of range");
      if (!seen.insert({it.kind, it.microbatch, it.chunk}).second)
        throw Error("schedule '" + s.name() + "': rank " + std::to_string(r) + " runs an item twice");
    }
    for (size_t k = 0; k < orders[r].size(); ++k)
      if (orders[r][k].full_backward && !weight_joins_backward(orders[r], k))
        throw Error("schedule '" + s.name() + "': rank " + std::to_string(r) + " marks the backward of micro-batch " +
                    std::to_string(orders[r][k].microbatch) + " chunk " + std::to_string(orders[r][k].chunk) +
                    " full, but its weight pass does not follow it");
    const size_t expect = static_cast<size_t>(m * v) * (s.splits_weight_gradient() ? 3 : 2);
    if (seen.size() != expect)
      throw Error("schedule '" + s.name() + "': rank " + std::to_string(r) + " has " + std::to_string(seen.size()) +
                  " items, expected " + std::to_string(expect));
  }
  // Dependency-driven execution with unit times.
  const int nvs = p * v;
  std::set<std::tuple<int, int64_t, int>> done;  // (kind, mb, virtual stage)
  std::vector<size_t> pos(p, 0);
  auto vstage = [&](int r, int chunk) { return s.virtual_stage(r, chunk, p, v); };
  size_t remaining = 0;
  for (const auto& o : orders) remaining += o.size();
  while (remaining > 0) {
    bool progress = false;
    for (int r = 0; r < p; ++r) {
      while (pos[r] < orders[r].size()) {
        const auto& it = orders[r][pos[r]];
        const int vs = vstage(r, it.chunk);
        bool ready = true;
        if (it.kind == ScheduleItem::Forward) {
          ready = vs == 0 || done.count({ScheduleItem::Forward, it.microbatch, vs - 1});
        } else if (it.kind == ScheduleItem::Backward) {
          ready = done.count({ScheduleItem::Forward, it.microbatch, vs}) &&
                  (vs == nvs - 1 || done.count({ScheduleItem::Backward, it.microbatch, vs + 1}));
        } else {
          ready = done.count({ScheduleItem::Backward, it.microbatch, vs}) > 0;
        }
        if (!ready) break;
        done.insert({it.kind, it.microbatch, vs});
        ++pos[r];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      std::string msg = "schedule '" + s.name() + "' deadlocks (p=" + std::to_string(p) + ", v=" + std::to_string(v) +
                        ", m=" + std::to_string(m) + "): ";
      static const char* kinds[] = {"F", "B", "W"};
      for (int r = 0; r < p; ++r)
        if (pos[r] < orders[r].size()) {
          const auto& it = orders[r][pos[r]];
          msg += "rank " + std::to_string(r) + " waits at " + kinds[it.kind] + "(mb " + std::to_string(it.microbatch) +
                 ", chunk " + std::to_string(it.chunk) + "); ";
        }
      throw Error(msg);
    }
  }
}

}  // namespace sextant::ir
