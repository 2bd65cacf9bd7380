// Question (review of 2026-12-07, the plan search's speed): the pipeline orders are compiled once
// per (schedule, p, v, micro-batches) (ir::OrderWalk) and shared by the estimates of a search
// (ir::OrderCache, owned by the Estimator). Does the compiled walk time an order bit for bit as the
// ranks' round-robin walk it replaces, and does an estimate read the same whether the Estimator's
// caches are cold, warm, shared by two threads or moved?
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "estimate/estimate.hpp"
#include "ir/schedule.hpp"
#include "ir/workload.hpp"
#include "scenario/scenario.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {

// The walk ir::order_makespan_s ran before 2026-12-07: every rank's order rebuilt, each rank run as
// far as its inputs allow, round after round.
double round_robin_makespan_s(const ir::PipelineSchedule& s, const ir::StageTimes& t, int p, int v, int64_t m,
                              std::vector<double>& rank_end, std::vector<double>& grad_end, std::vector<double>& first_fwd) {
  using ir::ScheduleItem;
  const bool split = s.splits_weight_gradient();
  const size_t M = static_cast<size_t>(m), P = static_cast<size_t>(p), V = static_cast<size_t>(v);
  const int nvs = p * v;
  std::vector<std::vector<ScheduleItem>> orders(P);
  size_t remaining = 0;
  for (int r = 0; r < p; ++r) remaining += (orders[static_cast<size_t>(r)] = s.order(r, p, v, m)).size();
  std::vector<double> f_end(static_cast<size_t>(nvs) * M, -1.0), b_end(static_cast<size_t>(nvs) * M, -1.0), free_at(P, 0.0);
  grad_end.assign(P * V, 0.0);
  first_fwd.assign(P * V, -1.0);
  std::vector<size_t> pos(P, 0);
  const double per_chunk = 1.0 / v;
  const bool by_chunk = t.chunk_forward_s.size() == P * V;
  auto fwd_of = [&](size_t R, int c) { return by_chunk ? t.chunk_forward_s[R * V + static_cast<size_t>(c)] : t.forward_s[R] * per_chunk; };
  auto wgt_of = [&](size_t R, int c) { return by_chunk ? t.chunk_weight_s[R * V + static_cast<size_t>(c)] : t.weight_s[R] * per_chunk; };
  auto bwd_of = [&](size_t R, int c) {
    return (by_chunk ? t.chunk_backward_s[R * V + static_cast<size_t>(c)] : t.backward_s[R] * per_chunk) - (split ? wgt_of(R, c) : 0.0);
  };
  auto vstage = [&](size_t R, int c) { return static_cast<size_t>(s.virtual_stage(static_cast<int>(R), c, p, v)); };
  while (remaining > 0) {
    bool progress = false;
    for (size_t R = 0; R < P; ++R)
      while (pos[R] < orders[R].size()) {
        const auto& o = orders[R];
        const ScheduleItem& it = o[pos[R]];
        if (it.with_next && pos[R] + 1 < o.size()) {
          const ScheduleItem& nb = o[pos[R] + 1];
          const size_t VF = vstage(R, it.chunk), VB = vstage(R, nb.chunk);
          double dep = 0;
          if (VF > 0) {
            if (f_end[(VF - 1) * M + static_cast<size_t>(it.microbatch)] < 0) break;
            dep = f_end[(VF - 1) * M + static_cast<size_t>(it.microbatch)];
          }
          if (static_cast<int>(VB) < nvs - 1) {
            const double d = b_end[(VB + 1) * M + static_cast<size_t>(nb.microbatch)];
            if (d < 0) break;
            dep = std::max(dep, d);
          }
          const bool full = ir::weight_joins_backward(o, pos[R] + 1);
          const double begin = std::max(free_at[R], dep), end = begin + fwd_of(R, it.chunk) + bwd_of(R, nb.chunk) + (full ? wgt_of(R, nb.chunk) : 0.0);
          if (first_fwd[R * V + static_cast<size_t>(it.chunk)] < 0) first_fwd[R * V + static_cast<size_t>(it.chunk)] = begin;
          f_end[VF * M + static_cast<size_t>(it.microbatch)] = b_end[VB * M + static_cast<size_t>(nb.microbatch)] = end;
          if (!split || full) grad_end[R * V + static_cast<size_t>(nb.chunk)] = end;
          free_at[R] = end;
          pos[R] += full ? 3 : 2;
          remaining -= full ? 3 : 2;
          progress = true;
          continue;
        }
        const size_t i = static_cast<size_t>(it.microbatch), VS = vstage(R, it.chunk);
        double dep = 0, dur = 0;
        const bool full = ir::weight_joins_backward(o, pos[R]);
        if (it.kind == ScheduleItem::Forward) {
          if (VS > 0 && (dep = f_end[(VS - 1) * M + i]) < 0) break;
          dur = fwd_of(R, it.chunk);
        } else if (it.kind == ScheduleItem::Backward) {
          if (static_cast<int>(VS) < nvs - 1 && (dep = b_end[(VS + 1) * M + i]) < 0) break;
          dur = bwd_of(R, it.chunk) + (full ? wgt_of(R, it.chunk) : 0.0);
        } else {
          dur = wgt_of(R, it.chunk);
        }
        const double end = std::max(free_at[R], dep) + dur;
        if (it.kind == ScheduleItem::Forward && first_fwd[R * V + static_cast<size_t>(it.chunk)] < 0)
          first_fwd[R * V + static_cast<size_t>(it.chunk)] = end - dur;
        if (it.kind == ScheduleItem::Forward) f_end[VS * M + i] = end;
        if (it.kind == ScheduleItem::Backward) b_end[VS * M + i] = end;
        if (full || it.kind == (split ? ScheduleItem::Weight : ScheduleItem::Backward)) grad_end[R * V + static_cast<size_t>(it.chunk)] = end;
        free_at[R] = end;
        pos[R] += full ? 2 : 1;
        remaining -= full ? 2 : 1;
        progress = true;
      }
    if (!progress) throw Error("deadlock");
  }
  rank_end = free_at;
  return *std::max_element(free_at.begin(), free_at.end());
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

// Every built-in schedule, uneven random stage and chunk times: the compiled walk's makespan, rank
// ends, chunk gradient ends and first-forward starts equal the round-robin walk's to the bit, and
// the cache hands out one compiled walk per key.
TEST(OrderWalk, TimesEveryScheduleBitForBitAsTheRoundRobinWalk) {
  const ir::ScheduleRegistry reg;
  const ir::OrderCache cache;
  std::mt19937_64 rng(20261207);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  int checked = 0;
  for (const auto& name : reg.names()) {
    const auto& s = reg.get(name);
    for (const int p : {2, 3, 4, 5}) {
      const std::vector<int> vs = name == "interleaved-1f1b" ? std::vector<int>{2, 3} : name == "dualpipev" ? std::vector<int>{2} : std::vector<int>{1};
      for (const int v : vs)
        for (const int64_t k : {1, 2, 3, 6}) {
          // A count order() accepts (DualPipeV: at least 2p).
          const int64_t m = name == "dualpipev" ? 2 * p * k : k * std::max<int64_t>(1, s.microbatch_multiple(p));
          for (const bool by_chunk : {false, true}) {
            ir::StageTimes t;
            for (int r = 0; r < p; ++r) {
              t.forward_s.push_back(u(rng));
              t.weight_s.push_back(0.4 * u(rng));
              t.backward_s.push_back(t.weight_s.back() + u(rng));
            }
            if (by_chunk)
              for (int r = 0; r < p; ++r)
                for (int c = 0; c < v; ++c) {
                  t.chunk_forward_s.push_back(u(rng));
                  t.chunk_weight_s.push_back(0.4 * u(rng));
                  t.chunk_backward_s.push_back(t.chunk_weight_s.back() + u(rng));
                }
            std::vector<double> re0, ge0, ff0, re1, ge1, ff1;
            const double want = round_robin_makespan_s(s, t, p, v, m, re0, ge0, ff0);
            const auto walk = cache.get(s, p, v, m);
            EXPECT_EQ(walk.get(), cache.get(s, p, v, m).get()) << name;
            const double got = ir::order_makespan_s(s, *walk, t, &re1, &ge1, &ff1);
            EXPECT_EQ(std::memcmp(&want, &got, sizeof got), 0) << name << " p " << p << " v " << v << " m " << m << ": " << want << " against " << got;
            EXPECT_TRUE(same_bits(re0, re1) && same_bits(ge0, ge1) && same_bits(ff0, ff1)) << name << " p " << p << " v " << v << " m " << m;
            const double uncached = ir::order_makespan_s(s, t, p, v, m);
            EXPECT_EQ(std::memcmp(&want, &uncached, sizeof want), 0) << name;
            ++checked;
          }
        }
    }
  }
  EXPECT_GE(checked, 100);
}

// A ZeRO-3 interleaved pipeline across nodes (timed orders, the card's stretch through the order,
// the root unit's run delays) and a DualPipeV one: an Estimator whose caches are warm, one that
// two threads share, and a moved one all read what a fresh one reads, to the bit.
TEST(OrderWalk, EstimatesReadTheSameWithColdWarmSharedAndMovedCaches) {
  const std::vector<std::string> plans = {
      "parallel: {tp: 2, pp: 4, vpp: 2, schedule: interleaved-1f1b, zero_stage: 3, overlap: {grad_reduce: true, param_gather: true}}\n",
      "parallel: {tp: 2, pp: 4, vpp: 2, schedule: dualpipev, zero_stage: 1, overlap: {grad_reduce: true, param_gather: true}}\n",
      "parallel: {tp: 1, pp: 4, schedule: zb-h1, zero_stage: 3}\n"};
  const Estimator warm;
  for (const auto& plan : plans) {
    const Scenario s = parse_scenario("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 64\n" + plan +
                                          "training: {global_batch: 64, micro_batch: 1, seq_len: 4096, precision: bf16}\n",
                                      "t.yaml", *test_catalogs::frozen());
    const ir::Workload w = ir::lower(s);
    auto key = [](const StepEstimate& e) {
      return std::vector<double>{e.step_time_s, e.bubble_s, e.exposed_comm_s, e.grad_sync_exposed_s, e.memory.total_bytes(), e.mfu_fraction};
    };
    const std::vector<double> cold = key(Estimator().run(w));
    EXPECT_TRUE(same_bits(cold, key(warm.run(w)))) << plan;
    EXPECT_TRUE(same_bits(cold, key(warm.run(w)))) << plan;  // warm now
    std::vector<double> a, b;
    std::thread t1([&] { a = key(warm.run(w)); }), t2([&] { b = key(warm.run(w)); });
    t1.join();
    t2.join();
    EXPECT_TRUE(same_bits(cold, a) && same_bits(cold, b)) << plan;
    Estimator first;
    (void)first.run(w);
    const Estimator moved(std::move(first));
    EXPECT_TRUE(same_bits(cold, key(moved.run(w)))) << plan;
  }
}
