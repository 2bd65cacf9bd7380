// Launch-queue length per GPU stream: +1 when a runtime call enqueues work on the stream, -1
// when the work starts on the GPU (HTA's definition). The summary gives pandas' describe() of
// the queue length over its change points; outside HTA mode Sextant adds the time each stream
// spent with the queue at the driver's limit (launches then block the CPU).
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

void run_queue_length(const AnalysisContext& ctx, Result& r) {
  static const std::unordered_set<std::string> launch = {
      "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",   "cuLaunchKernelEx",
      "cudaMemcpyAsync",  "cudaMemsetAsync",     "hipLaunchKernel",  "hipExtModuleLaunchKernel",
      "hipMemsetAsync",   "hipMemcpyAsync",      "hipMemcpyWithStream",
      "runFunction - job_prep_and_submit_for_execution"};
  Table& t = r.add_table("queue_length_summary", "launch-queue length per stream (statistics over change points)");
  t.add_i64("rank");
  t.add_i64("stream");
  for (const char* c : {"count", "mean", "std", "min", "25%", "50%", "75%", "max"})
    t.add_f64(std::string("queue_length_") + c);
  Table* full = nullptr;
  if (!ctx.opt.hta) {
    full = &r.add_table("queue_full_time", "time each stream's launch queue was at the limit (CPU blocked on launch)");
    full->add_i64("rank");
    full->add_i64("stream");
    full->add_i64("max_queue_length_count");
    full->add_f64("time_at_limit_us");
    full->add_f64("time_at_limit_fraction");
  }
  for (const Frame& f : ctx.frames) {
    std::unordered_set<uint32_t> ids;
    for (const auto& n : launch) {
      uint32_t id = f.trace->strings.find(n);
      if (id != UINT32_MAX) ids.insert(id);
    }
    GpuByCorrelation gpu_by_corr(f);
    // Change points (ts, delta, stream): launches in file order, then GPU starts in file order
    // (the row order of HTA's dataframe), sorted by ts. With --compat hta the sort is numpy's
    // (unstable) quicksort, so equal timestamps come out in the order pandas gives them;
    // otherwise a GPU start sorts before a launch at equal ts.
    std::vector<int64_t> ts;
    std::vector<int> delta;
    std::vector<int64_t> strm;
    std::vector<uint8_t> launched(f.gpu.size(), 0);
    for (const auto& c : f.cpu) {
      if (!ids.count(f.trace->name[c.event])) continue;
      int64_t corr = f.trace->correlation[c.event];
      if (corr == -1) continue;
      auto [first, last] = gpu_by_corr.find(corr);
      if (first == last) continue;
      ts.push_back(c.ts);
      delta.push_back(+1);
      strm.push_back(f.gpu[*first].stream);
      for (const uint32_t* p = first; p != last; ++p) launched[*p] = 1;
    }
    std::vector<const GpuEvent*> gfile;
    for (size_t k = 0; k < f.gpu.size(); ++k)
      if (launched[k]) gfile.push_back(&f.gpu[k]);
    std::stable_sort(gfile.begin(), gfile.end(), [](const GpuEvent* a, const GpuEvent* b) { return a->event < b->event; });
    for (const GpuEvent* g : gfile) {
      ts.push_back(g->ts);
      delta.push_back(-1);
      strm.push_back(g->stream);
    }
    std::vector<size_t> order;
    if (ctx.opt.hta) {
      order = stats::numpy_argsort(ts);
    } else {
      order.resize(ts.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return ts[a] != ts[b] ? ts[a] < ts[b] : delta[a] < delta[b];
      });
    }
    std::map<int64_t, std::vector<std::pair<int64_t, int>>> ev;
    for (size_t k : order) ev[strm[k]].emplace_back(ts[k], delta[k]);
    int64_t span_lo = INT64_MAX, span_hi = INT64_MIN;
    for (const auto& c : f.cpu) {
      span_lo = std::min(span_lo, c.ts);
      span_hi = std::max(span_hi, c.end);
    }
    for (const auto& g : f.gpu) {
      span_lo = std::min(span_lo, g.ts);
      span_hi = std::max(span_hi, g.end);
    }
    for (auto& [stream, v] : ev) {
      std::vector<double> q;
      q.reserve(v.size());
      int64_t run = 0;
      int64_t at_limit = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        run += v[i].second;
        q.push_back(static_cast<double>(run));
        if (run >= ctx.opt.max_queue_length && i + 1 < v.size()) at_limit += v[i + 1].first - v[i].first;
      }
      auto d = stats::describe(q);
      t.add_row({f.rank(), stream, d.count, d.mean, d.std, d.min, d.p25, d.p50, d.p75, d.max});
      if (full) {
        double span = span_hi > span_lo ? static_cast<double>(span_hi - span_lo) : 0.0;
        full->add_row({f.rank(), stream, ctx.opt.max_queue_length, f.us(at_limit),
                       span > 0 ? static_cast<double>(at_limit) / span : 0.0});
      }
    }
  }
}

}  // namespace sextant::trace
