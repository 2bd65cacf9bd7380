#include "ir/schedule.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "core/error.hpp"

namespace sextant::ir {

ScheduleRegistry::ScheduleRegistry() : InstanceRegistry("parallel.schedule", "pipeline schedule") {
  add(make_gpipe());
  add(make_1f1b());
  add(make_interleaved_1f1b());
  add(make_zb_h1());
}

double PipelineSchedule::peak_activation_bytes(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes) const {
  double sum = 0;
  for (const double b : chunk_bytes) sum += b;
  return inflight(r, p, v, m) * sum / v;
}

double order_makespan_s(const PipelineSchedule& s, const StageTimes& t, int p, int64_t m) {
  const bool split = s.splits_weight_gradient();
  const size_t M = static_cast<size_t>(m);
  std::vector<std::vector<ScheduleItem>> orders(static_cast<size_t>(p));
  size_t remaining = 0;
  for (int r = 0; r < p; ++r) {
    orders[static_cast<size_t>(r)] = s.order(r, p, 1, m);
    remaining += orders[static_cast<size_t>(r)].size();
  }
  std::vector<double> f_end(static_cast<size_t>(p) * M, -1.0), b_end(static_cast<size_t>(p) * M, -1.0);
  std::vector<double> free_at(static_cast<size_t>(p), 0.0);
  std::vector<size_t> pos(static_cast<size_t>(p), 0);
  while (remaining > 0) {
    bool progress = false;
    for (int r = 0; r < p; ++r) {
      const size_t R = static_cast<size_t>(r);
      while (pos[R] < orders[R].size()) {
        const ScheduleItem& it = orders[R][pos[R]];
        const size_t i = static_cast<size_t>(it.microbatch);
        double dep = 0, dur = 0;
        if (it.kind == ScheduleItem::Forward) {
          if (r > 0 && (dep = f_end[(R - 1) * M + i]) < 0) break;
          dur = t.forward_s[R];
        } else if (it.kind == ScheduleItem::Backward) {
          if (r < p - 1 && (dep = b_end[(R + 1) * M + i]) < 0) break;
          dur = t.backward_s[R] - (split ? t.weight_s[R] : 0.0);
        } else {
          dur = t.weight_s[R];
        }
        const double end = std::max(free_at[R], dep) + dur;
        if (it.kind == ScheduleItem::Forward) f_end[R * M + i] = end;
        if (it.kind == ScheduleItem::Backward) b_end[R * M + i] = end;
        free_at[R] = end;
        ++pos[R];
        --remaining;
        progress = true;
      }
    }
    if (!progress) throw Error("schedule '" + s.name() + "': its order deadlocks (order_makespan_s)");
  }
  return *std::max_element(free_at.begin(), free_at.end());
}

void validate_schedule(const PipelineSchedule& s, int p, int v, int64_t m) {
  std::vector<std::vector<ScheduleItem>> orders(p);
  for (int r = 0; r < p; ++r) {
    orders[r] = s.order(r, p, v, m);
    // Completeness: each (kind, mb, chunk) exactly once.
    std::set<std::tuple<int, int64_t, int>> seen;
    for (const auto& it : orders[r]) {
      if (it.microbatch < 0 || it.microbatch >= m || it.chunk < 0 || it.chunk >= v)
        throw Error("schedule '" + s.name() + "': rank " + std::to_string(r) + " lists micro-batch " +
                    std::to_string(it.microbatch) + " chunk " + std::to_string(it.chunk) + ", out of range");
      if (!seen.insert({it.kind, it.microbatch, it.chunk}).second)
        throw Error("schedule '" + s.name() + "': rank " + std::to_string(r) + " runs an item twice");
    }
    const size_t expect = static_cast<size_t>(m * v) * (s.splits_weight_gradient() ? 3 : 2);
    if (seen.size() != expect)
      throw Error("schedule '" + s.name() + "': rank " + std::to_string(r) + " has " + std::to_string(seen.size()) +
                  " items, expected " + std::to_string(expect));
  }
  // Dependency-driven execution with unit times.
  const int nvs = p * v;
  std::set<std::tuple<int, int64_t, int>> done;  // (kind, mb, virtual stage)
  std::vector<size_t> pos(p, 0);
  auto vstage = [&](int r, int chunk) { return chunk * p + r; };
  size_t remaining = 0;
  for (const auto& o : orders) remaining += o.size();
  while (remaining > 0) {
    bool progress = false;
    for (int r = 0; r < p; ++r) {
      while (pos[r] < orders[r].size()) {
        const auto& it = orders[r][pos[r]];
        const int vs = vstage(r, it.chunk);
        bool ready = true;
        if (it.kind == ScheduleItem::Forward) {
          ready = vs == 0 || done.count({ScheduleItem::Forward, it.microbatch, vs - 1});
        } else if (it.kind == ScheduleItem::Backward) {
          ready = done.count({ScheduleItem::Forward, it.microbatch, vs}) &&
                  (vs == nvs - 1 || done.count({ScheduleItem::Backward, it.microbatch, vs + 1}));
        } else {
          ready = done.count({ScheduleItem::Backward, it.microbatch, vs}) > 0;
        }
        if (!ready) break;
        done.insert({it.kind, it.microbatch, vs});
        ++pos[r];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      std::string msg = "schedule '" + s.name() + "' deadlocks (p=" + std::to_string(p) + ", v=" + std::to_string(v) +
                        ", m=" + std::to_string(m) + "): ";
      static const char* kinds[] = {"F", "B", "W"};
      for (int r = 0; r < p; ++r)
        if (pos[r] < orders[r].size()) {
          const auto& it = orders[r][pos[r]];
          msg += "rank " + std::to_string(r) + " waits at " + kinds[it.kind] + "(mb " + std::to_string(it.microbatch) +
                 ", chunk " + std::to_string(it.chunk) + "); ";
        }
      throw Error(msg);
    }
  }
}

}  // namespace sextant::ir
