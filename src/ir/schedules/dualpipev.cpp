// DualPipeV (DeepSeek-AI's DualPipe cut in half, "V" shape; Sea AI Lab's "cut-in-half" procedure):
// each of the p ranks holds two model chunks, folded into a V: chunk 0 of rank r is virtual stage
// r, chunk 1 is virtual stage 2p - 1 - r. A micro-batch runs down the ranks on chunk 0, turns on
// rank p - 1 (no transfer) and comes back up on chunk 1, so rank 0 holds both the embedding and
// the loss head. The backward pass is split into the input gradient B and the weight gradient W
// only where DualPipe's reference code (dualpipe/dualpipev.py) turns on its WeightGradStore
// (enable_zb): steps 3 and 7 and the second half of step 6, whose Ws are deferred to fill what
// would be bubble (zero-bubble style). Every other backward (the turn, the pairs, step 5, the first
// half of step 6) is a full backward, run_backward for the whole chunk: its W runs at once and its
// input gradient is sent after it (ScheduleItem::full_backward). Before 2026-12-07 every input
// gradient was sent before its W, which ran the order (p - 1) units below DualPipe's at
// F = B = W = 1 (review).
//
// Order of rank r with m >= 2p micro-batches (F0/F1, B0/B1: forward and backward of chunk 0/1;
// micro-batches of each pass in order 0..m-1; Wq: the oldest deferred W; a B not marked deferred
// is a full backward, its W included, sending after it):
//   1. 2 (p - r - 1) x F0                     warm-up down the V
//   2. (r + 1) x [F0 F1]                       the first micro-batches turn
//   3. (p - r - 1) x [B1 (W deferred), Wq, F1]
//   4. (m - 2p + r + 1) x [F0 B1 F1 B0]        steady state: each F beside a B of the other chunk
//   5. (p - r - 1) x [B1 F1 B0]
//   6. (r + 1) x [B1 B0]                       the second half of these defer their W
//   7. (p - r - 1) x [Wq, B0 (W deferred)]
//   8. (r + 1) x Wq
// DualPipe runs each steady-state F beside a B of the other chunk (one micro-batch's expert all-
// to-all under the other's compute). Sextant executes the pair in sequence; the overlap of their
// communication is what parallel.overlap.ep_comm grants, which this schedule turns on by default
// (docs/models.md). Published per-device figures for PP = 2p stages on p ranks (DeepSeek-V3
// report, Table 2, and DualPipe's README, whose B is the full backward, B + W here): bubble
// (PP/2 - 1)(F&B + B - 3W), activations PP + 1 chunk-micro-batches. The order's bubble is the
// formula's exactly where a forward is as long as an input gradient (F = B here) and W is no
// longer than it (2 (p - 1) units at F = B = W = 1); tests/sim/test_sim.cpp (SimPipeline.DualPipeV*)
// checks the order against them. The table's 2x parameters are DualPipe's (two copies of the model, one per direction);
// DualPipeV's V layout gives each rank two chunks of one copy, 1x.
#include <algorithm>
#include <deque>
#include <utility>

#include "core/error.hpp"
#include "ir/schedule.hpp"

namespace sextant::ir {
namespace {
class DualPipeV final : public PipelineSchedule {
 public:
  std::string name() const override { return "dualpipev"; }
  bool splits_weight_gradient() const override { return true; }
  bool drain_from_order() const override { return true; }
  int virtual_stage(int r, int c, int p, int) const override { return c == 0 ? r : 2 * p - 1 - r; }

  std::vector<ScheduleItem> order(int r, int p, int v, int64_t m) const override {
    if (v != 2 || p < 1 || m < 2 * static_cast<int64_t>(p))
      throw Error("schedule 'dualpipev' needs vpp = 2 and at least 2 pp micro-batches (vpp " + std::to_string(v) + ", pp " +
                  std::to_string(p) + ", " + std::to_string(m) + " micro-batches)");
    std::vector<ScheduleItem> out;
    out.reserve(static_cast<size_t>(6 * m));
    int64_t next_f[2] = {0, 0}, next_b[2] = {0, 0};
    std::deque<std::pair<int64_t, int>> deferred;  // (micro-batch, chunk) of Ws not yet run, oldest first
    auto F = [&](int c) { out.push_back({ScheduleItem::Forward, next_f[c]++, c}); };
    auto B = [&](int c, bool defer) {
      const int64_t i = next_b[c]++;
      out.push_back({ScheduleItem::Backward, i, c});
      if (defer) {
        deferred.emplace_back(i, c);
      } else {
        // A full backward: its input gradient leaves after the weight pass (2026-12-07 review).
        out.back().full_backward = true;
        out.push_back({ScheduleItem::Weight, i, c});
      }
    };
    auto FB = [&](int cf, int cb) {  // a forward beside a backward of the other chunk (full backward)
      F(cf);
      out.back().with_next = true;
      B(cb, false);
    };
    auto Wq = [&] {
      out.push_back({ScheduleItem::Weight, deferred.front().first, deferred.front().second});
      deferred.pop_front();
    };
    const int64_t down = p - r - 1, up = r + 1;
    for (int64_t i = 0; i < 2 * down; ++i) F(0);
    for (int64_t i = 0; i < up; ++i) F(0), F(1);
    for (int64_t i = 0; i < down; ++i) B(1, true), Wq(), F(1);
    for (int64_t i = 0; i < m - 2 * p + r + 1; ++i) {
      if (i == 0 && r == p - 1)
        F(0), B(1, false);  // the turn: its own chunk 1 waits on this forward, so not paired
      else
        FB(0, 1);
      FB(1, 0);
    }
    for (int64_t i = 0; i < down; ++i) B(1, false), FB(1, 0);
    bool defer = false;
    for (int64_t i = 0; i < up; ++i) {
      // Half of these 2 (r + 1) backwards defer their W, which steps 7 and 8 then run.
      if (i == up / 2 && r % 2 == 1) defer = true;
      B(1, defer);
      if (i == up / 2 && r % 2 == 0) defer = true;
      B(0, defer);
    }
    for (int64_t i = 0; i < down; ++i) Wq(), B(0, true);
    while (!deferred.empty()) Wq();
    return out;
  }

  // Timed from the order itself, each chunk at the rank's times over 2: exact for the dependency
  // model simulate executes with free transfers when a rank's two chunks are equal. With unequal
  // chunks (stage_layers giving one chunk more layers) the mean stands for both, 2.6-4.8% below
  // simulate on a 12-layer model split [2,2,2,2,1,1,1,1] (review of 2026-12-03; interleaved 1F1B
  // has the same approximation, docs/models.md).
  double pipeline_time_s(const StageTimes& t, int p, int v, int64_t m) const override { return pipeline_time_cached_s(t, p, v, m, nullptr); }
  double pipeline_time_cached_s(const StageTimes& t, int p, int v, int64_t m, const OrderCache* orders) const override {
    return order_time_s(*this, t, p, v, m, nullptr, nullptr, nullptr, orders);
  }

  double inflight(int r, int p, int v, int64_t m) const override {
    return peak_activation_bytes(r, p, v, m, std::vector<double>(static_cast<size_t>(v), 1.0));
  }
  // The micro-batches whose order is walked for a memory peak. Phase 4 repeats [F0 B1 F1 B0] with
  // each W run at once: a period that ends holding what it began with and reaches the same peak
  // every time, and the phases after it depend on r and p alone. So m micro-batches peak where
  // min(m, 2p + 4) do (phase 4 then runs r + 5 >= 5 periods). Before 2026-12-05 the whole order was
  // walked: an estimate at 1e7 micro-batches took 50 s and 1.4 GB, and 2^31 would have needed
  // about 250 GB (review of 2026-12-05).
  static int64_t memory_walk(int p, int64_t m) { return std::min<int64_t>(m, 2 * static_cast<int64_t>(p) + 4); }
  using PipelineSchedule::peak_with_weight_holds;
  double peak_with_weight_holds(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                                const std::vector<double>& chunk_weight_bytes,
                                const std::vector<double>& chunk_recompute_bytes) const override {
    return PipelineSchedule::peak_with_weight_holds(r, p, v, memory_walk(p, m), chunk_bytes, chunk_weight_bytes, chunk_recompute_bytes);
  }
  // A chunk-micro-batch is held from the start of its forward to the end of its backward; its W
  // keeps what the weight-gradient GEMMs read until it runs, counted by ir::peak_held_bytes.
  double peak_activation_bytes(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes) const override {
    double held = 0, top = 0;
    for (const auto& it : order(r, p, v, memory_walk(p, m))) {
      if (it.kind == ScheduleItem::Forward) top = std::max(top, held += chunk_bytes[static_cast<size_t>(it.chunk)]);
      if (it.kind == ScheduleItem::Backward) held -= chunk_bytes[static_cast<size_t>(it.chunk)];
    }
    return top;
  }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_dualpipev() { return std::make_unique<DualPipeV>(); }
}  // namespace sextant::ir
