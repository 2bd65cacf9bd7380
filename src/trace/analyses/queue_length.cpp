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
#include <optional>

#include "trace/analyses/analysis.hpp"
#include "trace/analyze.hpp"

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
  // HTA's names; outside --compat hta, stats.cpp gives them their unit (queue_length_mean_count:
  // a number of queued launches; queue_length_samples_count: the number of change points).
  for (const char* c : {"count", "mean", "std", "min", "25%", "50%", "75%", "max"})
    t.add_f64(std::string("queue_length_") + c);
  Table* full = nullptr;
  if (!ctx.opt.hta) {
    full = &r.add_table("queue_full_time", "time each stream's launch queue was at the limit (CPU blocked on launch)");
    full->add_i64("rank");
    full->add_i64("stream");
    // The limit (AnalyzeOptions::max_queue_length: CUDA's launch-queue depth), the same on every row;
    // the depth reached is queue_length_summary's queue_length_max_count. Named
    // max_queue_length_count before 2026-12-07, which read as an observed depth (review).
    full->add_i64("queue_limit_count");
    full->add_f64("time_at_limit_us");
    full->add_f64("time_at_limit_fraction");
  }
  // Below the sizes where analyses run one after the other (analyze.hpp), a buffer of the change
  // points buys an O(n) ordering; above, the in-place sort keeps the memory of one copy.
  const bool small = ctx.set.raw_bytes < kConcurrentAnalysesMaxRawBytes;
  for (const Frame& f : ctx.frames) {
    std::vector<char> is_launch(f.trace->strings.size(), 0);  // by string id: 1 a launch, 2 a graph launch
    for (const auto& n : launch) {
      uint32_t id = f.trace->strings.find(n);
      if (id != UINT32_MAX) is_launch[id] = 1;
    }
    // A CUDA/HIP graph launch enqueues each of its kernels at once (Sextant only: HTA leaves them
    // out; 345 kernels, 23% of a trace's GPU time, were missing from the queue).
    if (!ctx.opt.hta)
      for (const char* n : {"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"}) {
        uint32_t id = f.trace->strings.find(n);
        if (id != UINT32_MAX) is_launch[id] = 2;
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
    // Sextant: when each launched GPU event's launch was, so that a start the trace puts before
    // its launch (CPU/GPU clock skew) counts just after it; and one GPU event per plain launch. Both
    // had made the queue negative (queue_length_min_count -1) without a word before 2026-12-02.
    std::vector<int64_t> launch_ts(ctx.opt.hta ? 0 : f.gpu.size(), INT64_MIN);
    int64_t extra_per_launch = 0;
    // The launch queue's limit is on entries, and a graph launch is one entry however many kernels
    // it holds (it leaves the queue when its last kernel starts): the change points that the
    // limit's count skips, by key (launches: position; GPU starts: event index). Sorted below. Ten
    // graph launches of 339-502 kernels had been 24% of a stream's time "at the limit, CPU
    // blocked" while the launches around them took their usual 7 us (2026-12-04 review).
    std::vector<uint32_t> slot_skip_launch, slot_skip_start;
    {
      // HTA: its join on the correlation id; Sextant: each GPU event's own launching call.
      const std::optional<GpuByCorrelation> gpu_by_corr = ctx.opt.hta ? std::optional<GpuByCorrelation>(std::in_place, f) : std::nullopt;
      const std::optional<GpuByLaunch> gpu_by_launch = ctx.opt.hta ? std::nullopt : std::optional<GpuByLaunch>(std::in_place, f);
      if (gpu_by_corr) check_hta_join(f, *gpu_by_corr, is_launch, "queue_length");
      for (size_t k = 0; k < f.cpu.size(); ++k) {
        const CpuEvent& c = f.cpu[k];
        if (!is_launch[f.trace->name[c.event]]) continue;
        int64_t corr = f.trace->correlation[c.event];
        if (corr == -1) continue;
        auto [first, last] = gpu_by_corr ? gpu_by_corr->find(corr) : gpu_by_launch->find(k);
        if (first == last) continue;
        // A graph launch enqueues each of its kernels. Under --compat hta so does any launch with
        // several GPU events of its correlation: HTA's inner join of runtime calls and kernels on
        // correlation repeats the call once per event, +1 each (one +1 for several -1s had made
        // the queue negative under --compat hta, before 2026-12-03).
        if (is_launch[f.trace->name[c.event]] == 2 || ctx.opt.hta) {
          const uint32_t* last_started = first;
          for (const uint32_t* p = first; p != last; ++p) {
            if (!ctx.opt.hta && p != first) slot_skip_launch.push_back(static_cast<uint32_t>(changes.size()));
            changes.push_back(Change{c.ts, stream_index(f.gpu[*p].stream), static_cast<uint32_t>(changes.size())});
            launched[*p] = 1;
            if (!ctx.opt.hta) launch_ts[*p] = c.ts;
            if (f.gpu[*p].ts > f.gpu[*last_started].ts) last_started = p;
          }
          if (!ctx.opt.hta)
            for (const uint32_t* p = first; p != last; ++p)
              if (p != last_started) slot_skip_start.push_back(f.gpu[*p].event);
          continue;
        }
        changes.push_back(Change{c.ts, stream_index(f.gpu[*first].stream), static_cast<uint32_t>(changes.size())});
        launched[*first] = 1;
        launch_ts[*first] = c.ts;
        extra_per_launch += (last - first) - 1;
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
      int64_t before_launch = 0;
      for (size_t k = 0; k < f.gpu.size(); ++k)
        if (launched[k]) {
          const bool early = f.gpu[k].ts <= launch_ts[k];
          before_launch += early;
          changes.push_back(Change{early ? launch_ts[k] + 1 : f.gpu[k].ts, stream_index(f.gpu[k].stream), kStart | f.gpu[k].event});
        }
      if (before_launch > 0)
        ctx.diagnostics.add_count("queue_length: a GPU event starts at or before its launch (CPU/GPU clock skew): counted from 1 ns after it",
                                  "warning", f.trace->file, before_launch);
      if (extra_per_launch > 0)
        ctx.diagnostics.add_count("queue_length: GPU events beyond the first of one launch's correlation id (left out of the queue)",
                                  "warning", f.trace->file, extra_per_launch);
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
      // By stream, then key. The keys are the positions 0..n-1 (a permutation), so placing each
      // change at its key and then a stable counting sort by stream gives that order in O(n),
      // with a second array of the change points; from the sizes where the memory bound applies
      // (analyses run one after the other there) an in-place sort instead.
      if (!small) {
        std::sort(changes.begin(), changes.end(), [&](const Change& a, const Change& b) {
          return a.stream != b.stream ? a.stream < b.stream : (a.key & kPos) < (b.key & kPos);
        });
      } else {
      std::vector<Change> tmp(changes.size());
      for (const Change& c : changes) tmp[c.key & kPos] = c;
      std::vector<size_t> at(streams.size() + 1, 0);
      for (const Change& c : tmp) ++at[c.stream + 1];
      for (size_t i = 1; i < at.size(); ++i) at[i] += at[i - 1];
      for (const Change& c : tmp) changes[at[c.stream]++] = c;
      }
    } else if (!small) {
      std::sort(changes.begin(), changes.end(), [&](const Change& a, const Change& b) {
        if (a.stream != b.stream) return a.stream < b.stream;
        if (a.ts != b.ts) return a.ts < b.ts;
        if ((a.key & kStart) != (b.key & kStart)) return (a.key & kStart) > (b.key & kStart);
        return (a.key & kPos) < (b.key & kPos);
      });
    } else {
      // By stream, then ts, then GPU start before launch, then row order. A stable counting sort
      // by stream keeps each stream's launches (pushed first) before its GPU starts; each of the
      // two runs is nearly always in that order already (sorted only when not), and the stream's
      // sequence is their merge: O(n) instead of a comparison sort of every change point, with a
      // second array of them (below the sizes where the memory bound applies).
      const auto before = [](const Change& a, const Change& b) {
        if (a.ts != b.ts) return a.ts < b.ts;
        if ((a.key & kStart) != (b.key & kStart)) return (a.key & kStart) > (b.key & kStart);
        return (a.key & kPos) < (b.key & kPos);
      };
      std::vector<Change> tmp(changes.size());
      std::vector<size_t> at(streams.size() + 1, 0);
      for (const Change& c : changes) ++at[c.stream + 1];
      for (size_t i = 1; i < at.size(); ++i) at[i] += at[i - 1];
      {
        std::vector<size_t> fill(at.begin(), at.end() - 1);
        for (const Change& c : changes) tmp[fill[c.stream]++] = c;
      }
      for (size_t si = 0; si + 1 < at.size(); ++si) {
        const auto lo = tmp.begin() + static_cast<ptrdiff_t>(at[si]), hi = tmp.begin() + static_cast<ptrdiff_t>(at[si + 1]);
        const auto mid = std::find_if(lo, hi, [](const Change& c) { return (c.key & kStart) != 0; });
        if (!std::is_sorted(lo, mid, before)) std::sort(lo, mid, before);
        if (!std::is_sorted(mid, hi, before)) std::sort(mid, hi, before);
        std::merge(lo, mid, mid, hi, changes.begin() + static_cast<ptrdiff_t>(at[si]), before);
      }
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
    std::sort(slot_skip_launch.begin(), slot_skip_launch.end());
    std::sort(slot_skip_start.begin(), slot_skip_start.end());
    const bool any_skip = !slot_skip_launch.empty();
    // The change of the launch queue's entry count at a change point (graph kernels: one entry).
    const auto slot_sign = [&](const Change& c) {
      if (!any_skip) return sign(c);
      const auto& skip = (c.key & kStart) ? slot_skip_start : slot_skip_launch;
      return std::binary_search(skip.begin(), skip.end(), c.key & kPos) ? int64_t{0} : sign(c);
    };
    for (size_t lo = 0, hi; lo < changes.size(); lo = hi) {
      const uint32_t si = changes[lo].stream;
      const int64_t stream = streams[si];
      for (hi = lo + 1; hi < changes.size() && changes[hi].stream == si;) ++hi;
      // Queue length -> change points, as counts by length (lengths are consecutive integers
      // from the first change point on, each step +-1: a dense array from the lowest length).
      int64_t run_min = 0, run_max = 0;
      {
        int64_t x = 0;
        for (size_t i = lo; i < hi; ++i) {
          x += sign(changes[i]);
          if (i == lo) run_min = run_max = x;
          run_min = std::min(run_min, x);
          run_max = std::max(run_max, x);
        }
      }
      std::vector<int64_t> histogram(static_cast<size_t>(run_max - run_min) + 1, 0);
      double sum = 0;
      int64_t run = 0, entries = 0;
      int64_t at_limit = 0;
      for (size_t i = lo; i < hi; ++i) {
        run += sign(changes[i]);
        entries += slot_sign(changes[i]);
        sum += static_cast<double>(run);
        ++histogram[static_cast<size_t>(run - run_min)];
        if (entries >= ctx.opt.max_queue_length && i + 1 < hi) at_limit += changes[i + 1].ts - changes[i].ts;
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
      auto sorted_at = [&](size_t k) {
        size_t seen = 0;
        for (size_t v = 0; v < histogram.size(); ++v) {
          seen += static_cast<size_t>(histogram[v]);
          if (k < seen) return static_cast<double>(run_min + static_cast<int64_t>(v));
        }
        return static_cast<double>(run_max);
      };
      auto quantile = [&](double qf) {
        const double pos = qf * static_cast<double>(n - 1);
        const auto qlo = static_cast<size_t>(std::floor(pos));
        const size_t qhi = std::min(qlo + 1, n - 1);
        const double frac = pos - static_cast<double>(qlo);
        const double a = sorted_at(qlo), b = sorted_at(qhi);
        return a + (b - a) * frac;
      };
      d.min = static_cast<double>(run_min);
      d.max = static_cast<double>(run_max);
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
