// Memcpy/memset bandwidth: per rank (and across ranks when there are several) and per kind of
// transfer (HtoD, DtoH, DtoD, PtoP, HtoH, memset) and host memory (pageable, pinned, ...), the
// number of calls, the bytes moved, the GPU time, the achieved bandwidth per call (median, p10,
// p90), the bytes-weighted mean of the per-call bandwidths, the aggregate bandwidth (all bytes
// over all time) and the share of the rank's GPU-active span with at least one such transfer
// running (the union of their intervals, so at most 1).
//
// Bytes come from the event's "bytes" arg (RankTrace::transfers). The bandwidth of a call is
// Kineto's "memory bandwidth (GB/s)" arg when present (Kineto computes it from the exact ns
// duration, which integer-µs traces round: a 1 µs copy may have taken 0.6 or 1.4 µs), else
// bytes / duration in ns = GB/s (1e9 bytes/s). The aggregate bandwidth divides all bytes by the
// calls' times implied by those bandwidths (bytes / GB/s). total_time_us is the durations as
// written, in ns in both rule sets (HTA's µs rounding would make short copies 0 long). Events
// without a usable bytes arg, or of zero duration without a bandwidth arg, are counted in the
// diagnostics and left out of the bandwidth figures (their time still counts in total_time_us).
#include <cmath>
#include <algorithm>
#include <map>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {

struct TransferKind {
  std::string kind;         // HtoD, DtoH, DtoD, PtoP, HtoH, memset, other
  std::string host_memory;  // pageable, pinned, host, managed, none (device only), unknown
};

std::string host_memory_of(const std::string& side) {
  if (side == "Pageable") return "pageable";
  if (side == "Pinned") return "pinned";
  if (side == "Host") return "host";
  if (side == "Managed") return "managed";
  return "";
}

// "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoD (Device -> Device)", "Memset (Device)".
TransferKind transfer_kind(const std::string& name, Category cat) {
  TransferKind k;
  if (cat == Category::GpuMemset) {
    k.kind = "memset";
  } else {
    static const char* kKinds[] = {"HtoD", "DtoH", "DtoD", "PtoP", "HtoH", "DtoA", "AtoD", "AtoA", "HtoA", "AtoH"};
    k.kind = "other";
    for (const char* kk : kKinds)
      if (name.find(kk) != std::string::npos) {
        k.kind = kk;
        break;
      }
  }
  auto open = name.find('('), close = name.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    k.host_memory = "unknown";
    return k;
  }
  std::string inside = name.substr(open + 1, close - open - 1);
  std::string a = inside, b;
  auto arrow = inside.find(" -> ");
  if (arrow != std::string::npos) {
    a = inside.substr(0, arrow);
    b = inside.substr(arrow + 4);
  }
  std::string m = host_memory_of(a);
  if (m.empty()) m = host_memory_of(b);
  if (m.empty()) m = (a == "Device" && (b.empty() || b == "Device")) ? "none" : "unknown";
  k.host_memory = m;
  return k;
}

struct Acc {
  int64_t calls = 0;
  int64_t calls_with_bytes = 0;
  int64_t calls_with_arg = 0;    // bandwidth from Kineto's arg
  int64_t bytes = 0;
  int64_t time_ns = 0;           // all calls, durations as written
  double timed_bytes_ns = 0;     // implied time of the calls with a bandwidth
  int64_t timed_bytes = 0;
  std::vector<double> gbps;      // per call with bytes and a non-zero duration
  double bytes_x_gbps = 0;
  std::vector<std::pair<int64_t, int64_t>> spans;  // the calls' (start, end) in the frame's ticks
  int64_t union_ns = 0;          // wall time with at least one call running (set per rank; summed across ranks)
  void add(const Acc& o) {
    union_ns += o.union_ns;
    calls += o.calls;
    calls_with_bytes += o.calls_with_bytes;
    calls_with_arg += o.calls_with_arg;
    bytes += o.bytes;
    time_ns += o.time_ns;
    timed_bytes_ns += o.timed_bytes_ns;
    timed_bytes += o.timed_bytes;
    gbps.insert(gbps.end(), o.gbps.begin(), o.gbps.end());
    bytes_x_gbps += o.bytes_x_gbps;
  }
};

}  // namespace

void run_memcpy_bandwidth(const AnalysisContext& ctx, Result& r) {
  Table& t = r.add_table("memcpy_bandwidth",
                         "memcpy/memset per rank and kind: calls, bytes, time, achieved bandwidth, share of GPU span");
  t.add_i64("rank");  // -1: all ranks together
  t.add_str("kind");
  t.add_str("host_memory");
  t.add_i64("calls_count");
  t.add_i64("calls_without_bytes_count");
  t.add_i64("calls_with_bandwidth_arg_count");
  t.add_i64("bytes");
  t.add_f64("total_time_us");
  t.add_f64("p10_bandwidth_gb_per_s");
  t.add_f64("median_bandwidth_gb_per_s");
  t.add_f64("p90_bandwidth_gb_per_s");
  t.add_f64("bytes_weighted_bandwidth_gb_per_s");
  t.add_f64("aggregate_bandwidth_gb_per_s");
  t.add_f64("gpu_span_share_fraction");

  auto emit = [&](int64_t rank, const std::map<std::pair<std::string, std::string>, Acc>& by, int64_t span_ns) {
    for (auto [key, a] : by) {
      std::sort(a.gbps.begin(), a.gbps.end());
      const bool any = !a.gbps.empty();
      t.add_row({rank, key.first, key.second, a.calls, a.calls - a.calls_with_bytes, a.calls_with_arg, a.bytes,
                 static_cast<double>(a.time_ns) / 1000.0, any ? stats::quantile_linear(a.gbps, 0.10) : std::nan(""),
                 any ? stats::quantile_linear(a.gbps, 0.50) : std::nan(""), any ? stats::quantile_linear(a.gbps, 0.90) : std::nan(""),
                 a.timed_bytes > 0 ? a.bytes_x_gbps / static_cast<double>(a.timed_bytes) : std::nan(""),
                 a.timed_bytes_ns > 0 ? static_cast<double>(a.timed_bytes) / a.timed_bytes_ns : std::nan(""),
                 span_ns > 0 ? std::min(1.0, static_cast<double>(a.union_ns) / static_cast<double>(span_ns)) : 0.0});
    }
  };

  std::map<std::pair<std::string, std::string>, Acc> all_ranks;
  int64_t all_span_ns = 0;
  for (const Frame& f : ctx.frames) {
    const RankTrace& tr = *f.trace;
    const std::string where = "rank " + std::to_string(f.rank());
    // GPU-active span of the rank (first GPU event start to last end), in ns.
    int64_t span_ns = 0;
    if (!f.gpu.empty()) {
      int64_t lo = f.gpu.front().ts, hi = f.gpu.front().end;
      for (const auto& g : f.gpu) hi = std::max(hi, g.end);
      span_ns = static_cast<int64_t>(f.us(hi - lo) * 1000.0 + 0.5);
    }
    std::map<uint32_t, TransferKind> kinds;  // by name id
    std::map<std::pair<std::string, std::string>, Acc> by;
    for (const auto& g : f.gpu) {
      const Category cat = tr.cat[g.event];
      if (cat != Category::GpuMemcpy && cat != Category::GpuMemset) continue;
      auto kit = kinds.find(g.name);
      if (kit == kinds.end()) {
        kit = kinds.emplace(g.name, transfer_kind(f.name(g.name), cat)).first;
        if (kit->second.kind == "other")
          ctx.diagnostics.add("memcpy name without a known direction (HtoD, DtoH, DtoD, PtoP, ...)", "info",
                              f.name(g.name) + " on " + where);
      }
      Acc& a = by[{kit->second.kind, kit->second.host_memory}];
      const int64_t dur = tr.dur_ns[g.event];
      ++a.calls;
      a.time_ns += dur;
      a.spans.emplace_back(g.ts, g.end);
      auto it = std::lower_bound(tr.transfers.begin(), tr.transfers.end(), g.event,
                                 [](const TransferArgs& x, uint32_t e) { return x.event < e; });
      const bool found = it != tr.transfers.end() && it->event == g.event;
      const int64_t bytes = found ? it->bytes : -1;
      if (bytes < 0) {
        ctx.diagnostics.add("memcpy/memset without an integer bytes arg (left out of bandwidth)", "warning",
                            f.name(g.name) + " on " + where);
        continue;
      }
      ++a.calls_with_bytes;
      a.bytes += bytes;
      double gbps = 0, ns = 0;
      if (found && it->bandwidth_gbps > 0) {
        ++a.calls_with_arg;
        gbps = it->bandwidth_gbps;
        ns = static_cast<double>(bytes) / gbps;
      } else if (dur > 0) {
        gbps = static_cast<double>(bytes) / static_cast<double>(dur);
        ns = static_cast<double>(dur);
      } else {
        ctx.diagnostics.add("memcpy/memset of zero duration (left out of bandwidth)", "info",
                            f.name(g.name) + " on " + where);
        continue;
      }
      a.gbps.push_back(gbps);
      a.bytes_x_gbps += static_cast<double>(bytes) * gbps;
      a.timed_bytes += bytes;
      a.timed_bytes_ns += ns;
    }
    // The share of the span is the union of the calls' intervals: copies running at once on
    // several streams had summed their durations (2 copies side by side: a share of 2; 2026-12-03
    // review).
    for (auto& [k, a] : by) {
      std::sort(a.spans.begin(), a.spans.end());
      int64_t ticks = 0, lo = INT64_MIN, hi = INT64_MIN;
      for (const auto& [s0, e0] : a.spans) {
        if (s0 > hi) {
          if (hi > lo) ticks += hi - lo;
          lo = s0;
          hi = e0;
        } else {
          hi = std::max(hi, e0);
        }
      }
      if (hi > lo) ticks += hi - lo;
      a.union_ns = static_cast<int64_t>(f.us(ticks) * 1000.0 + 0.5);
      a.spans.clear();
    }
    emit(f.rank(), by, span_ns);
    if (ctx.frames.size() > 1) {
      for (const auto& [k, a] : by) all_ranks[k].add(a);
      all_span_ns += span_ns;
    }
  }
  if (ctx.frames.size() > 1) emit(-1, all_ranks, all_span_ns);
}

}  // namespace sextant::trace
