// Memory timeline from the profiler's "[memory]" instant events (profile_memory=True): allocated
// and reserved bytes over time per rank and device, their peaks, and the peak per iteration.
#include <algorithm>
#include <cmath>
#include <map>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

void run_memory_timeline(const AnalysisContext& ctx, Result& r) {
  bool any = false;
  for (const Frame& f : ctx.frames) any = any || !f.trace->memory.empty();
  if (!any) {
    ctx.diagnostics.add("memory_timeline: no [memory] events in the trace (record with profile_memory=True)", "info", "");
    return;
  }
  Table& t = r.add_table("memory_summary", "device memory from [memory] events");
  t.add_i64("rank");
  t.add_i64("device");
  t.add_i64("samples_count");
  t.add_f64("peak_allocated_bytes");
  t.add_f64("peak_reserved_bytes");
  t.add_f64("final_allocated_bytes");
  Table& it = r.add_table("memory_per_iteration", "peak allocated memory within each ProfilerStep");
  it.add_i64("rank");
  it.add_i64("device");
  it.add_i64("step");
  it.add_f64("peak_allocated_bytes");
  for (const Frame& f : ctx.frames) {
    std::map<int64_t, std::vector<const MemorySample*>> by_dev;
    for (const auto& m : f.trace->memory) by_dev[m.device].push_back(&m);
    std::vector<std::tuple<int64_t, int64_t, int64_t>> steps;
    for (const auto& c : f.cpu) {
      if (f.trace->cat[c.event] == Category::GpuUserAnnotation) continue;  // the GPU-side copy of the step
      const std::string& n = f.trace->name_of(c.event);
      if (const int64_t k = profiler_step_number(n); k >= 0)
        steps.emplace_back(f.trace->ts_ns[c.event], f.trace->ts_ns[c.event] + f.trace->dur_ns[c.event], k);
    }
    for (auto& [dev, v] : by_dev) {
      std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->ts_ns < b->ts_ns; });
      // A sample without "Total Allocated" / "Total Reserved" (-1) states no level: the last stated
      // one stands (a final level of -1 bytes was reported before 2026-12-02); none stated: NaN.
      double peak_a = std::nan(""), peak_r = std::nan(""), final_a = std::nan("");
      for (const auto* m : v) {
        if (m->total_allocated_bytes >= 0) {
          const double x = static_cast<double>(m->total_allocated_bytes);
          peak_a = std::isnan(peak_a) ? x : std::max(peak_a, x);
          final_a = x;
        }
        if (m->total_reserved_bytes >= 0) {
          const double x = static_cast<double>(m->total_reserved_bytes);
          peak_r = std::isnan(peak_r) ? x : std::max(peak_r, x);
        }
      }
      t.add_row({f.rank(), dev, static_cast<int64_t>(v.size()), peak_a, peak_r, final_a});
      // Per step, by binary search over the stated levels in time order: the work is the samples
      // inside the steps, not steps x samples (20,000 steps of 50 samples took 44 s before
      // 2026-12-03). The level carried in at the step's start counts: a step that begins by
      // freeing memory peaks at what it held before its first sample, and a step without a
      // sample of its own holds the carried level throughout (it had no row before 2026-12-03).
      std::vector<std::pair<int64_t, double>> levels;  // (ts, allocated), stated samples only
      levels.reserve(v.size());
      for (const auto* m : v)
        if (m->total_allocated_bytes >= 0) levels.emplace_back(m->ts_ns, static_cast<double>(m->total_allocated_bytes));
      for (const auto& [a, b, n] : steps) {
        auto i = std::lower_bound(levels.begin(), levels.end(), a, [](const auto& x, int64_t ts) { return x.first < ts; });
        double p = i == levels.begin() ? -1.0 : std::prev(i)->second;  // carried in
        for (; i != levels.end() && i->first < b; ++i) p = std::max(p, i->second);
        if (p >= 0) it.add_row({f.rank(), dev, n, p});
      }
    }
  }
}

}  // namespace sextant::trace
