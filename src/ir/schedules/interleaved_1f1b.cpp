// Interleaved 1F1B (Narayanan et al. SC'21, Megatron-LM): each rank holds v chunks; virtual
// micro-batch k maps to chunk (k / p) % v of micro-batch (k / (p v)) p + k % p. Warm-up
// (p - r - 1) * 2 + (v - 1) * p chunk-forwards. Bubble (p-1)/(v m). Needs m % p == 0.
#include <algorithm>

#include "ir/schedule.hpp"

namespace sextant::ir {
namespace {
class Interleaved final : public PipelineSchedule {
 public:
  std::string name() const override { return "interleaved-1f1b"; }
  static ScheduleItem item(ScheduleItem::Kind kind, int64_t k, int p, int v) {
    const int64_t group = k / (static_cast<int64_t>(p) * v);
    const int64_t in_group = k % (static_cast<int64_t>(p) * v);
    int chunk = static_cast<int>(in_group / p);
    const int64_t mb = group * p + in_group % p;
    if (kind == ScheduleItem::Backward) chunk = v - 1 - chunk;
    return {kind, mb, chunk};
  }
  std::vector<ScheduleItem> order(int r, int p, int v, int64_t m) const override {
    std::vector<ScheduleItem> out;
    const int64_t total = m * v;
    const int64_t warm = std::min<int64_t>(static_cast<int64_t>(p - r - 1) * 2 + static_cast<int64_t>(v - 1) * p, total);
    for (int64_t k = 0; k < warm; ++k) out.push_back(item(ScheduleItem::Forward, k, p, v));
    for (int64_t k = 0; k < total - warm; ++k) {
      out.push_back(item(ScheduleItem::Forward, warm + k, p, v));
      out.push_back(item(ScheduleItem::Backward, k, p, v));
    }
    for (int64_t k = total - warm; k < total; ++k) out.push_back(item(ScheduleItem::Backward, k, p, v));
    return out;
  }
  double pipeline_time_s(const StageTimes& t, int p, int v, int64_t m) const override {
    // m micro-batches at the pace of the slowest rank; the bubble is one pass through all
    // stages of a single chunk: (p - 1) / v of a rank's per-micro-batch time.
    double mx = 0, sum = 0;
    for (int r = 0; r < p; ++r) {
      const double x = t.forward_s[r] + t.backward_s[r];
      mx = std::max(mx, x);
      sum += x;
    }
    return (static_cast<double>(m) - 1.0 / v) * mx + sum / v;
  }
  double inflight(int r, int p, int v, int64_t m) const override {
    return static_cast<double>(
        std::min<int64_t>(static_cast<int64_t>(p - r - 1) * 2 + static_cast<int64_t>(v - 1) * p + 1, m * v));
  }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_interleaved_1f1b() { return std::make_unique<Interleaved>(); }
}  // namespace sextant::ir
