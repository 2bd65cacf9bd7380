// GPipe: all forwards, then all backwards. Holds every micro-batch's activations. On one stage
// there is no pipeline to fill: gradient accumulation runs each micro-batch's forward and
// backward in turn and holds one (as 1F1B, and as the note "without effect" at pp = 1 says;
// before 2026-12-02 one stage held all m, 57 GB against 30 GB on GPT-3 1.3B at m = 8).
#include <algorithm>

#include "ir/schedule.hpp"

namespace sextant::ir {
namespace {
class GPipe final : public PipelineSchedule {
 public:
  std::string name() const override { return "gpipe"; }
  std::vector<ScheduleItem> order(int, int p, int v, int64_t m) const override {
    std::vector<ScheduleItem> out;
    if (p == 1) {
      for (int64_t i = 0; i < m; ++i) {
        for (int c = 0; c < v; ++c) out.push_back({ScheduleItem::Forward, i, c});
        for (int c = v - 1; c >= 0; --c) out.push_back({ScheduleItem::Backward, i, c});
      }
      return out;
    }
    for (int64_t i = 0; i < m; ++i)
      for (int c = 0; c < v; ++c) out.push_back({ScheduleItem::Forward, i, c});
    for (int64_t i = 0; i < m; ++i)
      for (int c = v - 1; c >= 0; --c) out.push_back({ScheduleItem::Backward, i, c});
    return out;
  }
  double pipeline_time_s(const StageTimes& t, int p, int, int64_t m) const override {
    // Forward wave then backward wave, each (m - 1) * slowest + sum over stages.
    double fmax = 0, bmax = 0, fsum = 0, bsum = 0;
    for (int r = 0; r < p; ++r) {
      fmax = std::max(fmax, t.forward_s[r]);
      bmax = std::max(bmax, t.backward_s[r]);
      fsum += t.forward_s[r];
      bsum += t.backward_s[r];
    }
    return static_cast<double>(m - 1) * (fmax + bmax) + fsum + bsum;
  }
  double inflight(int, int p, int v, int64_t m) const override { return p == 1 ? static_cast<double>(v) : static_cast<double>(m) * v; }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_gpipe() { return std::make_unique<GPipe>(); }
}  // namespace sextant::ir
