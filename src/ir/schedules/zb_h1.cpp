// Zero-bubble ZB-H1 (Qi et al., ICLR 2024): 1F1B with the backward split into the input-
// gradient pass B and the weight-gradient pass W. W of a micro-batch may be deferred: in the
// steady state rank r runs F, B and the W that is r micro-batches behind, so in the cool-down
// every rank after the first has W work to run while it waits for the next B, and the Bs reach
// rank 0 without the Ws in between; the cool-down runs one pending W after each B and the rest
// at the end. Rank 0 (the last to finish) defers nothing. Rank r holds p - r micro-batches in
// flight, as under 1F1B, and the inputs of r pending Ws (ir::peak_held_bytes); bubble (p-1)(T_F + T_B - T_W) instead of
// (p-1)(T_F + T_B + T_W) when m >= p (closed form below). (Deferring by p - r - 1 instead, as before 2026-12-01, left the
// bubble within one T_W of 1F1B's: checked over p = 4..16 in an event model of the dependencies.)
#include <algorithm>

#include "ir/schedule.hpp"

namespace sextant::ir {
namespace {
class ZBH1 final : public PipelineSchedule {
 public:
  std::string name() const override { return "zb-h1"; }
  bool splits_weight_gradient() const override { return true; }
  // Each rank's end comes from timing order(): rank r runs the r weight passes it deferred after its
  // last backward, so with a heavier last stage that rank ends the step, not rank 0 (1F1B's drain
  // named rank 0 with the last rank's step time and its bubble: 0.232 s where it waits 0.024 s).
  bool drain_from_order() const override { return true; }
  std::vector<ScheduleItem> order(int r, int p, int, int64_t m) const override {
    std::vector<ScheduleItem> out;
    const int64_t warm = std::min<int64_t>(p - r - 1, m);
    const int64_t defer = r;
    int64_t next_w = 0;
    for (int64_t i = 0; i < warm; ++i) out.push_back({ScheduleItem::Forward, i, 0});
    for (int64_t i = 0; i < m - warm; ++i) {
      out.push_back({ScheduleItem::Forward, warm + i, 0});
      out.push_back({ScheduleItem::Backward, i, 0});
      // Weight passes run once they are `defer` micro-batches behind the newest backward.
      while (next_w <= i - defer) out.push_back({ScheduleItem::Weight, next_w++, 0});
    }
    for (int64_t i = m - warm; i < m; ++i) {
      out.push_back({ScheduleItem::Backward, i, 0});
      // In the cool-down the rank would idle waiting for the next backward: do one pending W.
      if (next_w <= i) out.push_back({ScheduleItem::Weight, next_w++, 0});
    }
    while (next_w < m) out.push_back({ScheduleItem::Weight, next_w++, 0});
    return out;
  }
  // Closed form (backward_s holds B + W; B alone is backward_s - weight_s). The first micro-batch
  // passes every stage's F and B, and rank 0, which defers nothing, ends with its W; the other
  // ranks' weight passes leave that chain. The next min(m, p) - 1 micro-batches follow at the
  // slowest stage's F + B, their weight passes filling what would be bubble; beyond p in flight
  // every W is in the steady pace, F + B + W of the slowest stage:
  //   T = sum_r (F_r + B_r) + W_0 + (k - 1) max_r (F_r + B_r) + (m - k) max_r (F_r + B_r + W_r),
  //   k = min(m, p),
  // and no less than any rank's own work after the first forward reaches it,
  // sum_{q<r} F_q + m (F_r + B_r + W_r): a heavier last stage defers its Ws to the end of the step.
  // Uniform stages, m >= p: (m + p - 1)(F + B + W) - 2 (p - 1) W, the paper's bubble
  // (p-1)(T_F + T_B - T_W); m < p: (m + p - 1)(F + B) + W, (m + p - 2) W below 1F1B (only one W
  // per micro-batch in flight leaves the chain). Against an event model of order()
  // (tests/sim/test_sim.cpp): exact for uniform stages and for a heavier last stage when W is no
  // longer than F and B (a transformer layer's weight-gradient GEMMs against its forward and
  // input-gradient passes). With W longer than F or B the cool-down's Ws delay the Bs and the
  // closed form was low (12% with W = 1.9 F): there the order itself is timed
  // (order_makespan_s, O(p m)), exact. With the first stage heavier it errs high as 1F1B's closed
  // form does, less (24% against 28% at 1.6x). Never above 1F1B's closed form.
  double pipeline_time_s(const StageTimes& t, int p, int v, int64_t m) const override { return pipeline_time_cached_s(t, p, v, m, nullptr); }
  double pipeline_time_cached_s(const StageTimes& t, int p, int, int64_t m, const OrderCache* orders) const override {
    for (int r = 0; r < p; ++r) {
      const double w = t.weight_s[r], b = t.backward_s[r] - w;
      if (w > t.forward_s[r] * (1 + 1e-12) || w > b * (1 + 1e-12)) return order_time_s(*this, t, p, 1, m, nullptr, nullptr, nullptr, orders);
    }
    double pass = 0, fb_max = 0, fbw_max = 0, arrive = 0, own = 0;
    for (int r = 0; r < p; ++r) {
      const double fb = t.forward_s[r] + t.backward_s[r] - t.weight_s[r];
      const double fbw = t.forward_s[r] + t.backward_s[r];
      pass += fb;
      fb_max = std::max(fb_max, fb);
      fbw_max = std::max(fbw_max, fbw);
      own = std::max(own, arrive + static_cast<double>(m) * fbw);
      arrive += t.forward_s[r];
    }
    const int64_t k = std::min<int64_t>(m, p);
    return std::max(own, pass + t.weight_s[0] + static_cast<double>(k - 1) * fb_max + static_cast<double>(m - k) * fbw_max);
  }
  double inflight(int r, int p, int, int64_t m) const override { return static_cast<double>(std::min<int64_t>(p - r, m)); }
  // order() in closed form (the plan search evaluates it per candidate): warm = min(p - r - 1, m)
  // forwards, then s = m - warm steady steps F, B, Ws r behind, then the cool-down's B + one W.
  // Before step i's forward the rank holds warm forwards and min(i, r) pending Ws; the steady
  // peaks are at its last step, after the F ((warm + 1) A + min(s - 1, r) W) or the B (warm A +
  // (min(s - 1, r) + 1) W); the cool-down's first B, before its W, holds (warm - 1) A +
  // (min(s, r) + 1) W (the larger when W > A and s <= r). Checked against the walk
  // (ClosedForms.ZeroBubbleHoldsTheInputsOfItsDeferredWeightPasses).
  // With recompute_bytes R alive while a B runs: the steady B runs holding (warm + 1) A + pend W,
  // the cool-down's first B warm A + min(s, r) W (each + R).
  using PipelineSchedule::peak_with_weight_holds;
  double peak_with_weight_holds(int r, int p, int, int64_t m, const std::vector<double>& chunk_bytes,
                                const std::vector<double>& chunk_weight_bytes,
                                const std::vector<double>& chunk_recompute_bytes) const override {
    const double a = chunk_bytes.empty() ? 0.0 : chunk_bytes[0], w = chunk_weight_bytes.empty() ? 0.0 : chunk_weight_bytes[0];
    const double R = chunk_recompute_bytes.empty() ? 0.0 : chunk_recompute_bytes[0];
    const int64_t warm = std::min<int64_t>(p - r - 1, m), steady = m - warm, rr = r;
    double peak = static_cast<double>(warm) * a;
    if (steady >= 1) {
      const auto pend = static_cast<double>(std::min(steady - 1, rr));
      peak = std::max({peak, static_cast<double>(warm + 1) * a + pend * w + R, static_cast<double>(warm) * a + (pend + 1) * w});
    }
    if (warm >= 1)
      peak = std::max({peak, static_cast<double>(warm) * a + static_cast<double>(std::min(steady, rr)) * w + R,
                       static_cast<double>(warm - 1) * a + static_cast<double>(std::min(steady, rr) + 1) * w});
    return peak;
  }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_zb_h1() { return std::make_unique<ZBH1>(); }
}  // namespace sextant::ir
