// Temporal breakdown: over the GPU-active span of each rank (first kernel start to last kernel
// end), the time with no GPU work (idle), with computation kernels (compute), and the rest
// (communication or memory only: non-compute). Same definitions as HTA's get_temporal_breakdown.
#include <cmath>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {
int64_t union_length(const std::vector<std::pair<int64_t, int64_t>>& merged) {
  int64_t s = 0;
  for (const auto& [a, b] : merged) s += b - a;
  return s;
}
}  // namespace

void run_temporal_breakdown(const AnalysisContext& ctx, Result& r) {
  Table& t = r.add_table("temporal_breakdown", "GPU time per rank: idle, compute, non-compute over the GPU-active span");
  t.add_i64("rank");
  t.add_f64("idle_time(us)");
  t.add_f64("compute_time(us)");
  t.add_f64("non_compute_time(us)");
  t.add_f64("kernel_time(us)");
  t.add_f64("idle_time_pctg");
  t.add_f64("compute_time_pctg");
  t.add_f64("non_compute_time_pctg");
  for (const Frame& f : ctx.frames) {
    // GPU work (and, with --compat hta, cuda_sync waits) merged; the sorted GPU events are merged
    // as they are read unless sync intervals join them.
    std::vector<std::pair<int64_t, int64_t>> merged;
    if (f.sync.empty()) {
      merged = merge_gpu_intervals(f, [](const GpuEvent&) { return true; });
    } else {
      std::vector<std::pair<int64_t, int64_t>> all;
      all.reserve(f.gpu.size() + f.sync.size());
      for (const auto& g : f.gpu) all.emplace_back(g.ts, g.end);
      all.insert(all.end(), f.sync.begin(), f.sync.end());
      merged = merge_intervals(std::move(all));
    }
    if (merged.empty()) {
      ctx.diagnostics.add("no GPU kernels: temporal breakdown is zero", "info", "rank " + std::to_string(f.rank()));
      t.add_row({f.rank(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
      continue;
    }
    if (const size_t nd = devices_of(f).size(); nd > 1)
      ctx.diagnostics.add("a rank drives several GPUs: its temporal breakdown and GPU-utilisation windows take the union of their "
                          "busy time; communication overlap and exposure are per device",
                          "info", "rank " + std::to_string(f.rank()) + " (" + std::to_string(nd) + " devices)");
    int64_t kernel_time = merged.back().second - merged.front().first;
    int64_t idle = kernel_time - union_length(merged);
    int64_t compute = union_length(merge_gpu_intervals(f, gpu_of_kind(KernelKind::Computation)));
    int64_t non_compute = kernel_time - compute - idle;
    double kt = static_cast<double>(kernel_time);
    // Rounded to 2 decimals only under --compat hta (HTA's CSV convention); the Sextant rules keep
    // full precision, as every other fraction (they had been rounded in both; review of 2026-12-06).
    auto pct = [&](int64_t x) {
      if (kt <= 0) return 0.0;
      const double p = 100.0 * static_cast<double>(x) / kt;
      return ctx.opt.hta ? stats::round_to(p, 2) : p;
    };
    t.add_row({f.rank(), f.us(idle), f.us(compute), f.us(non_compute), f.us(kernel_time), pct(idle), pct(compute),
               pct(non_compute)});
  }
}

}  // namespace sextant::trace
