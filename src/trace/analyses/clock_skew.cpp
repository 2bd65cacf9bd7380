// Clock-skew correction across ranks. A collective (all-reduce, all-gather, ...) ends at nearly the
// same instant on every rank that takes part, whoever arrived last, so the ends of matched
// collectives (collectives.cpp) are a set of synchronisation points. Within each set of ranks that
// ran collectives together, a rank's offset is the median, over those collectives, of its end minus
// the collective's median end; sets that share ranks (tensor- and data-parallel groups) are joined
// through them, then one round over all collectives on the corrected ends evens the estimate out.
// Offsets are relative to the lowest rank of each group of ranks so joined. The collectives and
// straggler tables use the corrected times (--no-clock-sync turns it off).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {
double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// "0-3, 6, 8-9" for sorted ranks.
std::string rank_list(const std::vector<int64_t>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
    i = j + 1;
  }
  return s;
}
}  // namespace

std::map<int64_t, ClockOffset> estimate_clock_offsets(const CollectiveMatches& m) {
  std::map<int64_t, ClockOffset> out;
  // Times relative to the earliest end, in integer ns, before any conversion to double: an epoch
  // time (1.7e18 ns) keeps only 256 ns in a double, a relative one every ns.
  int64_t base = INT64_MAX;
  for (const auto& [k, occ] : m)
    for (const auto& o : occ) base = std::min(base, o.end_ns);
  auto rel = [base](int64_t t) { return static_cast<double>(t - base); };
  // The collectives seen on two ranks or more, grouped by the exact set of ranks that ran them.
  // Within one set, a rank's median deviation from the collectives' median ends is its offset up to
  // one constant shared by the set (exact in one pass: the same constant at every collective).
  std::map<std::vector<int64_t>, std::vector<const std::vector<CollectiveOccurrence>*>> sets;
  std::map<int64_t, std::vector<double>> raw;  // per rank: end - the collective's median end, uncorrected
  std::vector<double> ends;
  for (const auto& [k, occ] : m) {
    if (occ.size() < 2) continue;
    std::vector<int64_t> ranks;
    for (const auto& o : occ) ranks.push_back(o.rank);
    std::sort(ranks.begin(), ranks.end());
    sets[ranks].push_back(&occ);
    ends.clear();
    for (const auto& o : occ) ends.push_back(rel(o.end_ns));
    const double mid = median(ends);
    for (const auto& o : occ) raw[o.rank].push_back(rel(o.end_ns) - mid);
  }
  if (raw.empty()) return out;
  for (auto& [rank, d] : raw) {
    std::vector<double> a;
    for (double x : d) a.push_back(std::fabs(x));
    out[rank].raw_end_skew_ns = median(a);
    out[rank].collectives = static_cast<int64_t>(d.size());
  }
  // Sets that share a rank are joined through it: the shift between two sets is the median, over
  // their common ranks, of the difference of their offsets. The sets with the most collectives are
  // placed first (the best measured); `comp` numbers the groups of ranks joined so far. Exact
  // whatever the groups (a tree of sets as well as a grid), where each set's ends agree.
  // Before 2026-12-06 (review) every collective was compared with its own median end from the start,
  // in two rounds: exact for one group spanning the job, but with ranks in several groups (tensor-
  // and data-parallel) each round closed only part of the gap: 4 ranks in a 2x2 grid kept 25% of
  // their offsets (0/750/1500/2250 us for 0/1000/2000/3000) and the rank whose clock ran furthest
  // ahead was named a straggler. Where every collective ran on the same ranks (one set), the
  // offsets are the same as before.
  std::vector<std::pair<size_t, std::map<int64_t, double>>> within;  // per set: its collectives, offsets
  for (const auto& [ranks, occs] : sets) {
    std::map<int64_t, std::vector<double>> dev;
    for (const auto* occ : occs) {
      ends.clear();
      for (const auto& o : *occ) ends.push_back(rel(o.end_ns));
      const double mid = median(ends);
      for (const auto& o : *occ) dev[o.rank].push_back(rel(o.end_ns) - mid);
    }
    std::map<int64_t, double> a;
    for (auto& [rank, d] : dev) a[rank] = median(std::move(d));
    within.emplace_back(occs.size(), std::move(a));
  }
  std::vector<size_t> order(within.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return within[x].first > within[y].first; });
  std::map<int64_t, double> off;              // current estimate, ns
  std::map<int64_t, size_t> comp;             // rank -> its group of joined ranks
  std::vector<std::vector<int64_t>> members;  // group -> its ranks
  for (const size_t i : order) {
    const auto& a = within[i].second;
    std::map<size_t, std::vector<int64_t>> touched;  // group -> its ranks in this set
    for (const auto& [rank, v] : a) {
      auto c = comp.find(rank);
      if (c != comp.end()) touched[c->second].push_back(rank);
    }
    size_t g = members.size();
    double shift = 0;  // this set's offsets + shift are on the clock of group g
    if (touched.empty()) {
      members.emplace_back();
    } else {
      // Joined to the largest group it touches (the lowest-numbered of equal ones); the others
      // are moved onto that group's clock.
      for (const auto& [c, rs] : touched)
        if (g == members.size() || members[c].size() > members[g].size()) g = c;
      std::vector<double> d;
      for (const int64_t rank : touched.at(g)) d.push_back(off.at(rank) - a.at(rank));
      shift = median(std::move(d));
      for (const auto& [c, rs] : touched) {
        if (c == g) continue;
        d.clear();
        for (const int64_t rank : rs) d.push_back(a.at(rank) + shift - off.at(rank));
        const double move = median(std::move(d));
        for (const int64_t rank : members[c]) {
          off[rank] += move;
          comp[rank] = g;
          members[g].push_back(rank);
        }
        members[c].clear();
      }
    }
    for (const auto& [rank, v] : a)
      if (comp.emplace(rank, g).second) {
        off[rank] = v + shift;
        members[g].push_back(rank);
      }
  }
  // One more round on all collectives at once, each against its median corrected end: it keeps
  // exact offsets exact and evens out what one set's collectives alone had measured.
  {
    std::map<int64_t, std::vector<double>> dev;
    for (const auto& [k, occ] : m) {
      if (occ.size() < 2) continue;
      ends.clear();
      for (const auto& o : occ) ends.push_back(rel(o.end_ns) - off.at(o.rank));
      const double ref = median(ends);
      for (const auto& o : occ) dev[o.rank].push_back(rel(o.end_ns) - ref);
    }
    for (auto& [rank, d] : dev) off[rank] = median(std::move(d));
  }
  // Relative to the lowest rank of each group of joined ranks: groups that share no collective
  // have no common instant, and their clocks cannot be compared.
  for (const auto& ms : members) {
    if (ms.empty()) continue;
    const int64_t lowest = *std::min_element(ms.begin(), ms.end());
    const double ref = off.at(lowest);
    for (const int64_t rank : ms) {
      out[rank].offset_ns = static_cast<int64_t>(std::llround(off.at(rank) - ref));
      out[rank].clock_group = lowest;
    }
  }
  // Residuals after correction.
  std::map<int64_t, std::vector<double>> res;
  for (const auto& [k, occ] : m) {
    if (occ.size() < 2) continue;
    ends.clear();
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
  // Ranks of different jobs share no collective: matched by order, their kernels gave a 372-day
  // offset (review of 2026-12-07). The loader's warning says why and what is skipped.
  if (!ctx.set.not_one_job.empty()) return;
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
  // Ranks in groups that share no collective (tensor-parallel groups without a data-parallel
  // collective profiled, say) have offsets relative to their own group's lowest rank only.
  std::map<int64_t, std::vector<int64_t>> groups;
  for (const auto& [rank, o] : off) groups[o.clock_group].push_back(rank);
  if (groups.size() > 1) {
    std::string names;
    size_t shown = 0;
    for (const auto& [lowest, ranks] : groups) {
      if (shown++ == 8) {
        names += "; and " + std::to_string(groups.size() - 8) + " more";
        break;
      }
      names += (names.empty() ? "" : "; ") + std::string(ranks.size() > 1 ? "ranks " : "rank ") + rank_list(ranks);
    }
    r.notes.push_back("clock_skew: the ranks form " + std::to_string(groups.size()) +
                      " groups that share no matched collective (" + names +
                      "): offsets are relative to the lowest rank of each group, and times of ranks in "
                      "different groups are not on one clock");
  }
}

}  // namespace sextant::trace
