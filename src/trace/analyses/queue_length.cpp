// Launch-queue length per GPU stream: +1 when a runtime call enqueues work on the stream, -1
// when the work starts on the GPU (HTA's definition). The summary gives pandas' describe() of
// the queue length over its change points; outside HTA mode Sextant adds the time each stream
// spent with the queue at the driver's limit (launches then block the CPU).
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
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
    // Change points (ts, delta, stream): launches in file order, then GPU starts in file order
    // (the row order of HTA's dataframe), sorted by ts. With --compat hta the sort is numpy's
    // (unstable) quicksort, so equal timestamps come out in the order pandas gives them;
    // otherwise a GPU start sorts before a launch at equal ts. One 16-byte record per change
    // point, reserved once (launches <= cpu rows, starts <= GPU rows; untouched capacity costs no
    // memory), then sorted by stream and that order: the per-stream sequences of the former
    // ts/delta/stream arrays, argsort and map of per-stream copies, in a quarter of the memory.
    // Streams by dense index in ascending order, so that sorting by index sorts by stream.
    std::vector<int64_t> streams;
    for (const auto& g : f.gpu) {
      auto it = std::lower_bound(streams.begin(), streams.end(), g.stream);
      if (it == streams.end() || *it != g.stream) streams.insert(it, g.stream);
    }
    auto stream_index = [&](int64_t s) {
      return static_cast<uint32_t>(std::lower_bound(streams.begin(), streams.end(), s) - streams.begin());
    };
    // key: the position in the row order (before sorting), then in HTA's ts order; its top bit
    // (kStart) marks a GPU start (-1), clear for a launch (+1).
    struct Change {
      int64_t ts;
      uint32_t stream;
      uint32_t key;
    };
    constexpr uint32_t kStart = 0x80000000u, kPos = 0x7fffffffu;
    if (f.cpu.size() + f.gpu.size() > kPos)
      throw Error(SourceLocation{f.trace->file, 0, 0, "traceEvents"}, "queue_length: more than 2^31 change points in one rank");
    std::vector<Change> changes;
    changes.reserve(f.cpu.size() + f.gpu.size());
    std::vector<uint8_t> launched(f.gpu.size(), 0);
    {
      const GpuByCorrelation gpu_by_corr(f);
      for (const auto& c : f.cpu) {
        if (!ids.count(f.trace->name[c.event])) continue;
        int64_t corr = f.trace->correlation[c.event];
        if (corr == -1) continue;
        auto [first, last] = gpu_by_corr.find(corr);
        if (first == last) continue;
        changes.push_back(Change{c.ts, stream_index(f.gpu[*first].stream), static_cast<uint32_t>(changes.size())});
        for (const uint32_t* p = first; p != last; ++p) launched[*p] = 1;
      }
    }
    if (ctx.opt.hta) {
      std::vector<uint32_t> gfile;  // launched GPU events in file order
      for (size_t k = 0; k < f.gpu.size(); ++k)
        if (launched[k]) gfile.push_back(static_cast<uint32_t>(k));
      // Event indices are distinct: a plain sort (no buffer) gives the stable order.
      std::sort(gfile.begin(), gfile.end(), [&](uint32_t a, uint32_t b) { return f.gpu[a].event < f.gpu[b].event; });
      for (uint32_t k : gfile)
        changes.push_back(Change{f.gpu[k].ts, stream_index(f.gpu[k].stream), kStart | static_cast<uint32_t>(changes.size())});
    } else {
      // Only the relative order of GPU starts matters here (the sort below puts starts before
      // launches at equal ts, then row order): the event index orders them as the file does,
      // without listing the launched events in file order first.
      if (f.trace->size() > kPos)
        throw Error(SourceLocation{f.trace->file, 0, 0, "traceEvents"}, "queue_length: more than 2^31 events in one rank");
      for (size_t k = 0; k < f.gpu.size(); ++k)
        if (launched[k]) changes.push_back(Change{f.gpu[k].ts, stream_index(f.gpu[k].stream), kStart | f.gpu[k].event});
    }
    launched = {};
    if (ctx.opt.hta) {
      std::vector<size_t> order;
      {
        std::vector<int64_t> ts(changes.size());
        for (size_t i = 0; i < changes.size(); ++i) ts[i] = changes[i].ts;
        order = stats::numpy_argsort(ts);
      }
      for (size_t pos = 0; pos < order.size(); ++pos) {
        Change& c = changes[order[pos]];
        c.key = (c.key & kStart) | static_cast<uint32_t>(pos);
      }
      order = {};
      std::sort(changes.begin(), changes.end(), [&](const Change& a, const Change& b) {
        return a.stream != b.stream ? a.stream < b.stream : (a.key & kPos) < (b.key & kPos);
      });
    } else {
      // By stream, then ts, then GPU start before launch, then row order.
      std::sort(changes.begin(), changes.end(), [&](const Change& a, const Change& b) {
        if (a.stream != b.stream) return a.stream < b.stream;
        if (a.ts != b.ts) return a.ts < b.ts;
        if ((a.key & kStart) != (b.key & kStart)) return (a.key & kStart) > (b.key & kStart);
        return (a.key & kPos) < (b.key & kPos);
      });
    }
    int64_t span_lo = INT64_MAX, span_hi = INT64_MIN;
    for (const auto& c : f.cpu) {
      span_lo = std::min(span_lo, c.ts);
      span_hi = std::max(span_hi, c.end);
    }
    for (const auto& g : f.gpu) {
      span_lo = std::min(span_lo, g.ts);
      span_hi = std::max(span_hi, g.end);
    }
    // pandas' describe() of each stream's queue lengths without an array of them: the lengths
    // are integers, so their sum is exact in any order and their sorted order is a histogram;
    // the squared deviations are summed in sequence order in a second pass, as stats::describe
    // does (same operations, same bits).
    const auto sign = [](const Change& c) { return (c.key & kStart) ? int64_t{-1} : int64_t{+1}; };
    for (size_t lo = 0, hi; lo < changes.size(); lo = hi) {
      const uint32_t si = changes[lo].stream;
      const int64_t stream = streams[si];
      for (hi = lo + 1; hi < changes.size() && changes[hi].stream == si;) ++hi;
      std::map<int64_t, int64_t> histogram;  // queue length -> change points
      double sum = 0;
      int64_t run = 0;
      int64_t at_limit = 0;
      for (size_t i = lo; i < hi; ++i) {
        run += sign(changes[i]);
        sum += static_cast<double>(run);
        ++histogram[run];
        if (run >= ctx.opt.max_queue_length && i + 1 < hi) at_limit += changes[i + 1].ts - changes[i].ts;
      }
      stats::Describe d;
      const size_t n = hi - lo;
      d.count = static_cast<double>(n);
      d.mean = sum / d.count;
      if (n > 1) {
        double ss = 0;
        run = 0;
        for (size_t i = lo; i < hi; ++i) {
          run += sign(changes[i]);
          const double x = static_cast<double>(run);
          ss += (x - d.mean) * (x - d.mean);
        }
        d.std = std::sqrt(ss / (d.count - 1));
      } else {
        d.std = std::nan("");
      }
      // The value at position k of the sorted lengths; quantiles as stats::quantile_linear.
      auto sorted_at = [&histogram](size_t k) {
        size_t seen = 0;
        for (const auto& [v, c] : histogram) {
          seen += static_cast<size_t>(c);
          if (k < seen) return static_cast<double>(v);
        }
        return static_cast<double>(histogram.rbegin()->first);
      };
      auto quantile = [&](double qf) {
        const double pos = qf * static_cast<double>(n - 1);
        const auto qlo = static_cast<size_t>(std::floor(pos));
        const size_t qhi = std::min(qlo + 1, n - 1);
        const double frac = pos - static_cast<double>(qlo);
        const double a = sorted_at(qlo), b = sorted_at(qhi);
        return a + (b - a) * frac;
      };
      d.min = static_cast<double>(histogram.begin()->first);
      d.max = static_cast<double>(histogram.rbegin()->first);
      d.p25 = quantile(0.25);
      d.p50 = quantile(0.5);
      d.p75 = quantile(0.75);
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
