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
  int64_t microbatch_multiple(int p) const override { return p; }
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
  double pipeline_time_s(const StageTimes& t, int p, int v, int64_t m) const override { return pipeline_time_cached_s(t, p, v, m, nullptr); }
  double pipeline_time_cached_s(const StageTimes& t, int p, int v, int64_t m, const OrderCache* orders) const override {
    // m micro-batches at the pace of the slowest rank; the bubble is one pass through all
    // stages of a single chunk: (p - 1) / v of a rank's per-micro-batch time. Exact when the
    // last rank is (one of) the slowest, as for 1F1B; with a slower rank before it the ranks after
    // it fill in behind it and the closed form errs high (+9.4% at p 4, v 2, m 8 with rank 0
    // twice as heavy; Llama 3 8B on stages [4,6,4,2,...]: estimate 0.698 s against simulate's
    // 0.654 s, before 2026-12-04): there the order itself is timed (order_time_s).
    // It assumes a rank's chunks alike too (the loss head's, the model's last, aside: the form
    // holds with it). Where another chunk is heavier than its rank's others (the embedding's chunk
    // under ZeRO-3, which gathers the embedding unhidden, 25% above the rest for Llama 3 8B at
    // tp 2, pp 4, vpp 2, dp 8) the first rank's pace enters the cycle and the form was 3.7% low
    // against the order's time (0.682 s against 0.707 s; simulate 0.711 s; before 2026-12-05).
    double mx = 0, sum = 0;
    for (int r = 0; r < p; ++r) {
      const double x = t.forward_s[r] + t.backward_s[r];
      mx = std::max(mx, x);
      sum += x;
    }
    const double last = t.forward_s[p - 1] + t.backward_s[p - 1];
    const double form = (static_cast<double>(m) - 1.0 / v) * mx + sum / v;
    if (p < 2 || m < 2) return form;
    // A slowest rank before the last: the order's time, which the form equals where the last rank
    // is the slowest (continuous there). Chunks of a rank spreading apart: from the form to the
    // order's time by degrees, between a 2.5% and a 5% spread; switching at 5% had made the step
    // jump 1.3% when a bandwidth rose by 2e-9 of itself, slower with faster hardware (2026-12-04
    // review). (Always timing the order would be exact and monotone, at 2.4x an estimate's time.)
    if (mx > last * (1 + 1e-9)) return order_time_s(*this, t, p, v, m, nullptr, nullptr, nullptr, orders);
    const double w = std::clamp((chunk_spread(t, p, v) - kChunkSpread / 2) / (kChunkSpread / 2), 0.0, 1.0);
    if (w <= 0) return form;
    const double ordered = order_time_s(*this, t, p, v, m, nullptr, nullptr, nullptr, orders);
    return w >= 1 ? ordered : (1 - w) * form + w * ordered;
  }
  // Whether some rank's chunks (the last virtual stage's aside) differ by more than
  // kChunkSpread in forward + backward time. The closed form's error grows with the spread: over
  // the interleaved rows of the validation set, under 0.1% below 5% and 0.3% at 8% (an embedding
  // chunk); 3.7% at 25% (above). Timing the order costs about as much as the rest of an estimate.
  static constexpr double kChunkSpread = 0.05;
  // The largest spread of a rank's chunks, hi / lo - 1 (the last rank's last chunk aside where it
  // is the rank's heaviest, below); 0 when alike.
  static double chunk_spread(const StageTimes& t, int p, int v) {
    double spread = 0;
    if (v < 2 || t.chunk_forward_s.size() != static_cast<size_t>(p) * v || t.chunk_backward_s.size() != t.chunk_forward_s.size())
      return 0;
    auto chunk_time = [&](int r, int c) {
      const size_t k = static_cast<size_t>(r) * v + c;
      return t.chunk_forward_s[k] + t.chunk_backward_s[k];
    };
    for (int r = 0; r < p; ++r) {
      // The last rank's last chunk (the loss head's) is left out only where it is the rank's
      // heaviest, the case the form holds for: a head alone on a light last chunk beside a heavy
      // one ([4,4,4,8,4,4,4,0]) had been taken as alike, 21% low (2026-12-04 review).
      int n = v;
      if (r == p - 1) {
        double others = 0;
        for (int c = 0; c < v - 1; ++c) others = std::max(others, chunk_time(r, c));
        if (chunk_time(r, v - 1) >= others) n = v - 1;
      }
      if (n < 2) continue;
      double lo = 0, hi = 0;
      for (int c = 0; c < n; ++c) {
        const double x = chunk_time(r, c);
        lo = c == 0 ? x : std::min(lo, x);
        hi = c == 0 ? x : std::max(hi, x);
      }
      if (lo > 0) spread = std::max(spread, hi / lo - 1.0);
      else if (hi > 0) spread = std::max(spread, 1.0);
    }
    return spread;
  }
  static int64_t warmup(int r, int p, int v, int64_t m) {
    return std::min<int64_t>(static_cast<int64_t>(p - r - 1) * 2 + static_cast<int64_t>(v - 1) * p, m * v);
  }
  double inflight(int r, int p, int v, int64_t m) const override {
    return static_cast<double>(std::min<int64_t>(warmup(r, p, v, m) + 1, m * v));
  }
  // Chunks differ (the loss head on the last rank's last chunk): which chunks are held matters.
  // After the steady-state step j's forward, rank r holds forwards [0, warm + j] less backwards
  // [0, j); forward k runs chunk (k mod pv) / p, backward k chunk v - 1 - (k mod pv) / p. Both
  // counts advance by p per chunk every pv steps, so the held set repeats with period pv and
  // the peak is the largest over its first period (warm-up only adds, cool-down only removes).
  double peak_activation_bytes(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes) const override {
    bool uniform = true;
    for (const double b : chunk_bytes) uniform = uniform && b == chunk_bytes[0];
    if (uniform || v == 1) return PipelineSchedule::peak_activation_bytes(r, p, v, m, chunk_bytes);
    const int64_t pv = static_cast<int64_t>(p) * v, total = m * v, warm = warmup(r, p, v, m);
    // Items of chunk c among the first n of a sequence whose k-th item runs chunk slot(k).
    auto count = [&](int64_t n, int slot) { return (n / pv) * p + std::clamp<int64_t>(n % pv - static_cast<int64_t>(slot) * p, 0, p); };
    auto held = [&](int64_t forwards, int64_t backwards) {
      double bytes = 0;
      for (int c = 0; c < v; ++c)
        bytes += chunk_bytes[static_cast<size_t>(c)] * static_cast<double>(count(forwards, c) - count(backwards, v - 1 - c));
      return bytes;
    };
    if (warm >= total) return held(total, 0);
    // Step by step, the held bytes change by the chunk the next forward adds and the chunk the
    // next backward frees: O(pv) over the period, not O(pv v). The running sum finds the peak
    // step (the first of equal ones); that step is then counted exactly (held).
    const int64_t steps = std::min(pv, total - warm);
    auto slot = [&](int64_t k) { return static_cast<size_t>((k % pv) / p); };
    double bytes = held(warm + 1, 0), top = bytes;
    int64_t at = 0;
    for (int64_t j = 1; j < steps; ++j) {
      bytes += chunk_bytes[slot(warm + j)] - chunk_bytes[static_cast<size_t>(v - 1) - slot(j - 1)];
      if (bytes > top) top = bytes, at = j;
    }
    return held(warm + at + 1, at);
  }
  // With chunk_recompute_bytes[c] more while a Backward of chunk c runs (the loss head's chunk
  // frees its logits before its first recompute: its set differs from the other chunks';
  // 2026-12-06 review). Before the steady state's backward j the rank holds what it held after the
  // forward warm + j: that and the backward's chunk repeat with period pv, as above. The cool-down
  // runs backwards only, fewer than the warm-up's forwards, O(pv) too. The warm-up only adds and
  // is followed by a backward. O(pv) in all, as the plan search needs.
  double peak_with_recompute(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes,
                             const std::vector<double>& chunk_recompute_bytes) const override {
    bool uniform = true;
    for (const double x : chunk_recompute_bytes) uniform = uniform && x == chunk_recompute_bytes[0];
    if (uniform || v == 1 || chunk_recompute_bytes.size() != static_cast<size_t>(v) || chunk_bytes.size() != static_cast<size_t>(v))
      return PipelineSchedule::peak_with_recompute(r, p, v, m, chunk_bytes, chunk_recompute_bytes);
    const int64_t pv = static_cast<int64_t>(p) * v, total = m * v, warm = warmup(r, p, v, m), steps = total - warm;
    auto count = [&](int64_t n, int slot) { return (n / pv) * p + std::clamp<int64_t>(n % pv - static_cast<int64_t>(slot) * p, 0, p); };
    auto held = [&](int64_t forwards, int64_t backwards) {
      double bytes = 0;
      for (int c = 0; c < v; ++c)
        bytes += chunk_bytes[static_cast<size_t>(c)] * static_cast<double>(count(forwards, c) - count(backwards, v - 1 - c));
      return bytes;
    };
    auto slot = [&](int64_t k) { return static_cast<size_t>((k % pv) / p); };
    auto bwd_chunk = [&](int64_t k) { return static_cast<size_t>(v - 1) - slot(k); };  // the chunk of backward k
    double top = peak_activation_bytes(r, p, v, m, chunk_bytes);
    if (steps > 0) {
      double bytes = held(warm + 1, 0), best = bytes + chunk_recompute_bytes[bwd_chunk(0)];
      int64_t at = 0;
      for (int64_t j = 1; j < std::min(pv, steps); ++j) {
        bytes += chunk_bytes[slot(warm + j)] - chunk_bytes[bwd_chunk(j - 1)];
        if (bytes + chunk_recompute_bytes[bwd_chunk(j)] > best) best = bytes + chunk_recompute_bytes[bwd_chunk(j)], at = j;
      }
      top = std::max(top, held(warm + at + 1, at) + chunk_recompute_bytes[bwd_chunk(at)]);
    }
    for (int64_t k = std::max<int64_t>(steps, 0); k < total; ++k)
      top = std::max(top, held(total, k) + chunk_recompute_bytes[bwd_chunk(k)]);
    return top;
  }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_interleaved_1f1b() { return std::make_unique<Interleaved>(); }
}  // namespace sextant::ir
