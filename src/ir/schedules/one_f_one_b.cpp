// 1F1B (PipeDream-Flush): rank r runs min(p-r-1, m) warm-up forwards, then alternates one
// forward and one backward, then drains the remaining backwards. Bubble (p-1)/m.
#include <algorithm>
#include <vector>

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
    if (p > 1 && m > 1 && mx > last * (1 + 1e-9)) {
      // As order_time_s: walk at most order_walk_microbatches, then the slowest stage's pace.
      const int64_t walk = order_walk_microbatches(*this, p, 1, m);
      return timed_order_s(t, p, walk) + static_cast<double>(m - walk) * mx;
    }
    return static_cast<double>(m - 1) * mx + sum;
  }

 private:
  // order() timed as order_makespan_s times it, without building it (the plan search times most
  // 1F1B plans so: under fewer-first-last the last stage is rarely the slowest; the general walk
  // made a 1F1B plan cost 4x a GPipe one). Item k of rank r: the first warm = min(p-r-1, m) are
  // forwards, then forward warm+j/2 (j = k - warm even) and backward j/2 (odd) in pairs, then
  // the remaining backwards. Each rank runs as far as its inputs allow, round after round.
  static double timed_order_s(const StageTimes& t, int p, int64_t m) {
    thread_local std::vector<double> f_end, b_end, free_at;
    thread_local std::vector<int64_t> pos;
    const size_t P = static_cast<size_t>(p), M = static_cast<size_t>(m);
    f_end.assign(P * M, -1.0);
    b_end.assign(P * M, -1.0);
    free_at.assign(P, 0.0);
    pos.assign(P, 0);
    int64_t remaining = 2 * m * p;
    // Sweeps alternate direction, so that forwards (which wait on the rank before) and backwards
    // (on the rank after) both move in few rounds.
    for (bool down = true; remaining > 0; down = !down) {
      bool progress = false;
      for (int q = 0; q < p; ++q) {
        const int r = down ? q : p - 1 - q;
        const size_t R = static_cast<size_t>(r);
        const int64_t warm = std::min<int64_t>(p - r - 1, m), pairs_end = warm + 2 * (m - warm);
        for (int64_t k = pos[R]; k < 2 * m; ++k) {
          bool fwd;
          int64_t i;
          if (k < warm) {
            fwd = true;
            i = k;
          } else if (k < pairs_end) {
            const int64_t j = k - warm;
            fwd = j % 2 == 0;
            i = fwd ? warm + j / 2 : j / 2;
          } else {
            fwd = false;
            i = m - warm + (k - pairs_end);
          }
          const size_t I = static_cast<size_t>(i);
          double dep = 0;
          if (fwd && r > 0 && (dep = f_end[(R - 1) * M + I]) < 0) break;
          if (!fwd && r < p - 1 && (dep = b_end[(R + 1) * M + I]) < 0) break;
          const double end = std::max(free_at[R], dep) + (fwd ? t.forward_s[R] : t.backward_s[R]);
          (fwd ? f_end : b_end)[R * M + I] = end;
          free_at[R] = end;
          pos[R] = k + 1;
          --remaining;
          progress = true;
        }
      }
      if (!progress) break;  // unreachable for a valid 1F1B order
    }
    double end = 0;
    for (double x : free_at) end = std::max(end, x);
    return end;
  }
  double inflight(int r, int p, int, int64_t m) const override { return static_cast<double>(std::min<int64_t>(p - r, m)); }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_1f1b() { return std::make_unique<OneFOneB>(); }
}  // namespace sextant::ir
