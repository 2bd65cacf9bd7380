// Zero-bubble ZB-H1 (Qi et al., ICLR 2024): 1F1B with the backward split into the input-
// gradient pass B and the weight-gradient pass W. W of a micro-batch may be deferred; rank r
// defers it by (p - r - 1) micro-batches so that deferred W work fills the cool-down bubble.
// Same activation memory as 1F1B; bubble (p-1)(T_F + T_B - T_W) instead of (p-1)(T_F+T_B+T_W).
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
    const int64_t defer = p - r - 1;
    int64_t next_w = 0;
    auto backward = [&](int64_t i) {
      out.push_back({ScheduleItem::Backward, i, 0});
      // Weight passes run once they are `defer` micro-batches behind the newest backward.
      while (next_w <= i - defer) out.push_back({ScheduleItem::Weight, next_w++, 0});
    };
    for (int64_t i = 0; i < warm; ++i) out.push_back({ScheduleItem::Forward, i, 0});
    for (int64_t i = 0; i < m - warm; ++i) {
      out.push_back({ScheduleItem::Forward, warm + i, 0});
      backward(i);
    }
    for (int64_t i = m - warm; i < m; ++i) {
      backward(i);
      // In the cool-down the rank would idle waiting for the next backward: do one W.
      if (next_w < m && next_w <= i) out.push_back({ScheduleItem::Weight, next_w++, 0});
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
