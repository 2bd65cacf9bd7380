// Clock-skew correction across ranks. A collective (all-reduce, all-gather, ...) ends at nearly the
// same instant on every rank that takes part, whoever arrived last, so the ends of matched
// collectives (collectives.cpp) are a set of synchronisation points. Each rank's clock offset is
// the median, over the collectives it took part in, of its end minus the collective's median end
// (two rounds, the second on corrected ends), relative to the lowest rank. The collectives and
// straggler tables use the corrected times (--no-clock-sync turns it off).
#include <algorithm>
#include <cmath>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {
double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

std::map<int64_t, ClockOffset> estimate_clock_offsets(const CollectiveMatches& m) {
  std::map<int64_t, ClockOffset> out;
  std::map<int64_t, double> off;  // current estimate, ns
  // Times relative to the earliest end, in integer ns, before any conversion to double: an epoch
  // time (1.7e18 ns) keeps only 256 ns in a double, a relative one every ns.
  int64_t base = INT64_MAX;
  for (const auto& [k, occ] : m)
    for (const auto& o : occ) {
      off.emplace(o.rank, 0.0);
      base = std::min(base, o.end_ns);
    }
  if (off.empty()) return out;
  auto rel = [base](int64_t t) { return static_cast<double>(t - base); };
  auto round = [&](bool record_raw) {
    std::map<int64_t, std::vector<double>> dev;
    for (const auto& [k, occ] : m) {
      if (occ.size() < 2) continue;
      std::vector<double> ends;
      for (const auto& o : occ) ends.push_back(rel(o.end_ns) - off[o.rank]);
      const double ref = median(ends);
      for (const auto& o : occ) dev[o.rank].push_back(rel(o.end_ns) - ref);
    }
    std::map<int64_t, double> next;
    for (auto& [rank, d] : dev) {
      next[rank] = median(d);
      if (record_raw) {
        std::vector<double> a;
        for (double x : d) a.push_back(std::fabs(x));
        out[rank].raw_end_skew_ns = median(a);
      }
      out[rank].collectives = static_cast<int64_t>(d.size());
    }
    for (auto& [rank, v] : next) off[rank] = v;
  };
  round(true);
  round(false);
  // Relative to the lowest rank.
  const double ref = off.begin()->second;
  for (auto& [rank, v] : off) {
    v -= ref;
    out[rank].offset_ns = static_cast<int64_t>(std::llround(v));
  }
  // Residuals after correction.
  std::map<int64_t, std::vector<double>> res;
  for (const auto& [k, occ] : m) {
    if (occ.size() < 2) continue;
    std::vector<double> ends;
    for (const auto& o : occ) ends.push_back(rel(o.end_ns - out[o.rank].offset_ns));
    const double mid = median(ends);
    for (const auto& o : occ) res[o.rank].push_back(std::fabs(rel(o.end_ns - out[o.rank].offset_ns) - mid));
  }
  for (auto& [rank, v] : res) out[rank].residual_end_skew_ns = median(v);
  return out;
}

void run_clock_skew(const AnalysisContext& ctx, Result& r) {
  if (ctx.frames.size() < 2) {
    ctx.diagnostics.add("clock_skew: one rank loaded, no offsets to estimate", "info", "");
    return;
  }
  auto m = match_collectives(ctx.frames);
  auto off = estimate_clock_offsets(m);
  Table& t = r.add_table("clock_skew",
                         "per-rank clock offsets from the ends of matched collectives (corrected time = t - offset)");
  t.add_i64("rank");
  t.add_f64("offset_us");
  t.add_i64("collectives_count");
  t.add_f64("end_skew_before_us");
  t.add_f64("end_skew_after_us");
  for (const Frame& f : ctx.frames) {
    auto it = off.find(f.rank());
    if (it == off.end()) {
      ctx.diagnostics.add("clock_skew: rank without matched collectives (offset unknown, 0 used)", "info",
                          "rank " + std::to_string(f.rank()));
      continue;
    }
    const ClockOffset& o = it->second;
    t.add_row({f.rank(), static_cast<double>(o.offset_ns) / 1000.0, o.collectives, o.raw_end_skew_ns / 1000.0,
               o.residual_end_skew_ns / 1000.0});
  }
}

}  // namespace sextant::trace
