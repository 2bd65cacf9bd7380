// Zero-bubble ZB-H1 (Qi et al., ICLR 2024): 1F1B with the backward split into the input-
// gradient pass B and the weight-gradient pass W. W of a micro-batch may be deferred: in the
// steady state rank r runs F, B and the W that is r micro-batches behind, so in the cool-down
// every rank after the first has W work to run while it waits for the next B, and the Bs reach
// rank 0 without the Ws in between; the cool-down runs one pending W after each B and the rest
// at the end. Rank 0 (the last to finish) defers nothing. Same activation peak as 1F1B (rank r
// holds p - r micro-batches in flight and r pending Ws); bubble (p-1)(T_F + T_B - T_W) instead of
// (p-1)(T_F + T_B + T_W). (Deferring by p - r - 1 instead, as before 2026-12-01, left the
// bubble within one T_W of 1F1B's: checked over p = 4..16 in an event model of the dependencies.)
#include <algorithm>

#include "ir/schedule.hpp"

namespace sextant::ir {
namespace {
class ZBH1 final : public PipelineSchedule {
 public:
  std::string name() const override { return "zb-h1"; }
  bool splits_weight_gradient() const override { return true; }
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
  double pipeline_time_s(const StageTimes& t, int p, int, int64_t m) const override {
    double mx = 0, fbw = 0;
    for (int r = 0; r < p; ++r) {
      mx = std::max(mx, t.forward_s[r] + t.backward_s[r]);
      fbw = std::max(fbw, t.forward_s[r] + t.backward_s[r] - 2 * t.weight_s[r]);
    }
    return static_cast<double>(m) * mx + static_cast<double>(p - 1) * std::max(0.0, fbw);
  }
  double inflight(int r, int p, int, int64_t m) const override { return static_cast<double>(std::min<int64_t>(p - r, m)); }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_zb_h1() { return std::make_unique<ZBH1>(); }
}  // namespace sextant::ir
