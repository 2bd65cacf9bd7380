// Kernel launch statistics: for each kernel, memcpy or memset launched by a runtime call, the
// CPU duration of the call, the GPU duration, and the launch delay (GPU start minus the end of
// the call, floored at 0). Summaries: short kernels (GPU time below the CPU launch cost),
// runtime-call outliers and launch-delay outliers.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <optional>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

void run_launch_stats(const AnalysisContext& ctx, Result& r) {
  // HTA matches only these runtime names; Sextant adds the driver API and HIP.
  std::unordered_set<std::string> launch = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
                                            "cudaMemsetAsync"};
  if (!ctx.opt.hta)
    launch.insert({"cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel", "hipExtModuleLaunchKernel",
                   "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream", "cudaLaunchCooperativeKernel"});
  const bool rows_wanted = ctx.opt.hta || ctx.opt.per_launch_rows;
  Table* t = nullptr;
  if (rows_wanted) {
    t = &r.add_table("cuda_kernel_launch_stats", "one row per launch: CPU call, GPU duration, launch delay");
    t->add_i64("rank");
    t->add_i64("correlation");
    t->add_f64("cpu_duration");
    t->add_f64("gpu_duration");
    t->add_f64("launch_delay");
  }
  Table* sum = nullptr;
  if (!ctx.opt.hta) {
    sum = &r.add_table("launch_summary", "kernel launches per rank");
    sum->add_i64("rank");
    sum->add_i64("launches_count");
    sum->add_i64("short_kernels_count");
    sum->add_i64("runtime_outliers_count");
    sum->add_i64("launch_delay_outliers_count");
    sum->add_f64("mean_cpu_duration_us");
    sum->add_f64("mean_launch_delay_us");
    sum->add_f64("p50_launch_delay_us");
    sum->add_f64("p95_launch_delay_us");
    sum->add_f64("max_launch_delay_us");
  }
  for (const Frame& f : ctx.frames) {
    // HTA joins calls and GPU events on the correlation id (every call of a repeated id with every
    // event of it); Sextant pairs each GPU event with its own launching call (Frame::gpu runtime).
    const std::optional<GpuByCorrelation> gpu_by_corr = ctx.opt.hta ? std::optional<GpuByCorrelation>(std::in_place, f) : std::nullopt;
    const std::optional<GpuByLaunch> gpu_by_launch = ctx.opt.hta ? std::nullopt : std::optional<GpuByLaunch>(std::in_place, f);
    if (gpu_by_corr) {
      std::vector<char> launches(f.trace->strings.size(), 0);
      for (const auto& n : launch)
        if (uint32_t id = f.trace->strings.find(n); id != UINT32_MAX) launches[id] = 1;
      check_hta_join(f, *gpu_by_corr, launches, "launch_stats");
    }
    if (!ctx.opt.hta && f.repeated_correlation_ids > 0)
      ctx.diagnostics.add_count("launch_stats: correlation ids carried by several launching calls (merged processes?): each GPU event "
                                "paired with the latest call of its id before it (processes running at once can still be mispaired)",
                                "warning", f.trace->file, f.repeated_correlation_ids);
    std::vector<char> is_launch(f.trace->strings.size(), 0);  // by string id: 1 a launch, 2 a graph launch
    for (const auto& n : launch) {
      uint32_t id = f.trace->strings.find(n);
      if (id != UINT32_MAX) is_launch[id] = 1;
    }
    // A graph launch is one launch (Sextant only; HTA leaves graphs out): its delay is to the
    // graph's first kernel, its GPU time the graph's span (70 launches, 23% of a trace's GPU time,
    // had been left out silently).
    if (!ctx.opt.hta)
      for (const char* g : {"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"}) {
        uint32_t id = f.trace->strings.find(g);
        if (id != UINT32_MAX) is_launch[id] = 2;
      }
    std::vector<double> delays;
    int64_t n = 0, shorts = 0, rt_out = 0, ld_out = 0;
    double cpu_sum = 0;
    const double cut_rt = static_cast<double>(ctx.opt.runtime_cutoff_us);
    const double cut_ld = static_cast<double>(ctx.opt.launch_delay_cutoff_us);
    for (size_t k = 0; k < f.cpu.size(); ++k) {
      const CpuEvent& c = f.cpu[k];
      if (!is_launch[f.trace->name[c.event]]) continue;
      int64_t corr = f.trace->correlation[c.event];
      if (corr == -1) continue;
      auto [first, last] = gpu_by_corr ? gpu_by_corr->find(corr) : gpu_by_launch->find(k);
      if (is_launch[f.trace->name[c.event]] == 2) {
        if (first == last) continue;
        int64_t g0 = f.gpu[*first].ts, g1 = f.gpu[*first].end;
        for (const uint32_t* p = first; p != last; ++p) {
          g0 = std::min(g0, f.gpu[*p].ts);
          g1 = std::max(g1, f.gpu[*p].end);
        }
        const double cpu = f.us(c.end - c.ts), gpu = f.us(g1 - g0), delay = std::max(0.0, f.us(g0 - c.end));
        if (t) t->add_row({f.rank(), corr, cpu, gpu, delay});
        ++n;
        cpu_sum += cpu;
        delays.push_back(delay);
        if (cpu <= cut_rt && gpu < cpu) ++shorts;
        if (cpu > cut_rt) ++rt_out;
        if (delay > cut_ld) ++ld_out;
        continue;
      }
      for (const uint32_t* p = first; p != last; ++p) {
        const GpuEvent* g = &f.gpu[*p];
        double cpu = f.us(c.end - c.ts), gpu = f.us(g->end - g->ts);
        double delay = std::max(0.0, f.us(g->ts - c.end));
        if (t) t->add_row({f.rank(), corr, cpu, gpu, delay});
        ++n;
        cpu_sum += cpu;
        delays.push_back(delay);
        if (cpu <= cut_rt && gpu < cpu) ++shorts;
        if (cpu > cut_rt) ++rt_out;
        if (delay > cut_ld) ++ld_out;
      }
    }
    if (sum) {
      auto d = stats::describe(delays);
      std::sort(delays.begin(), delays.end());
      double mean = n ? d.mean : 0.0;
      sum->add_row({f.rank(), n, shorts, rt_out, ld_out, n ? cpu_sum / static_cast<double>(n) : 0.0, mean,
                    n ? d.p50 : 0.0, n ? stats::quantile_linear(delays, 0.95) : 0.0, n ? d.max : 0.0});
    }
  }
}

}  // namespace sextant::trace
