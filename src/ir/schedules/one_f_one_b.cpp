// 1F1B (PipeDream-Flush): rank r runs min(p-r-1, m) warm-up forwards, then alternates one
// forward and one backward, then drains the remaining backwards. Bubble (p-1)/m.
#include <algorithm>

#include "ir/schedule.hpp"

namespace sextant::ir {
namespace {
class OneFOneB final : public PipelineSchedule {
 public:
  std::string name() const override { return "1f1b"; }
  std::vector<ScheduleItem> order(int r, int p, int, int64_t m) const override {
    std::vector<ScheduleItem> out;
    const int64_t warm = std::min<int64_t>(p - r - 1, m);
    for (int64_t i = 0; i < warm; ++i) out.push_back({ScheduleItem::Forward, i, 0});
    for (int64_t i = 0; i < m - warm; ++i) {
      out.push_back({ScheduleItem::Forward, warm + i, 0});
      out.push_back({ScheduleItem::Backward, i, 0});
    }
    for (int64_t i = m - warm; i < m; ++i) out.push_back({ScheduleItem::Backward, i, 0});
    return out;
  }
  // (m - 1) micro-batches at the pace of the slowest stage plus one pass through all stages: exact
  // when the last stage is (one of) the slowest, uniform stages included, as it then never waits
  // after its first forward. With a slower stage before it the stages after the slow one fill in
  // behind it and the closed form errs high (12% with a middle stage twice as heavy at m = 4,
  // 28% with a first stage 1.6x): there the order itself is timed (order_makespan_s, O(p m),
  // exact against simulate's compute-only walk; before 2026-12-03 the closed form was used).
  double pipeline_time_s(const StageTimes& t, int p, int, int64_t m) const override {
    double mx = 0, sum = 0;
    for (int r = 0; r < p; ++r) {
      const double x = t.forward_s[r] + t.backward_s[r];
      mx = std::max(mx, x);
      sum += x;
    }
    const double last = t.forward_s[p - 1] + t.backward_s[p - 1];
    if (p > 1 && m > 1 && mx > last * (1 + 1e-9)) return order_makespan_s(*this, t, p, 1, m);
    return static_cast<double>(m - 1) * mx + sum;
  }
  double inflight(int r, int p, int, int64_t m) const override { return static_cast<double>(std::min<int64_t>(p - r, m)); }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_1f1b() { return std::make_unique<OneFOneB>(); }
}  // namespace sextant::ir
