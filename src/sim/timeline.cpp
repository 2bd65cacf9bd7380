#include "sim/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "core/result.hpp"

namespace sextant::sim {

namespace {
// A JSON string's contents: quotes, backslashes and control characters escaped (RFC 8259 7),
// so a scenario name with a tab or a newline still gives a file trace viewers load.
std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(u));
      o += buf;
    } else {
      o += c;
    }
  }
  return o;
}
// Times are written in microseconds with three decimals: whole nanoseconds. A slice's start and
// end are rounded and its duration is their difference, so slices that touch on a track still
// touch (rounding the duration on its own let one overlap the next by 1 ns, which trace viewers
// draw as a nesting error).
int64_t ns(double t_s) { return std::llround(t_s * 1e9); }
const char* const kPassNames[] = {"forward", "backward", "weight"};
std::string us_of_ns(int64_t t_ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%lld.%03lld", t_ns < 0 ? "-" : "", static_cast<long long>(std::llabs(t_ns) / 1000),
                static_cast<long long>(std::llabs(t_ns) % 1000));
  return buf;
}
std::string us(double t_s) { return us_of_ns(ns(t_s)); }
// A flow event's time within the slice [a_ns, b_ns] it binds to: 1 ns inside, so that no other
// slice of the track starts or ends there. A slice under 2 ns has no whole nanosecond strictly
// inside it: its start (written as nanoseconds, half of 1 ns had rounded onto the slice's end, where
// the next slice may start; review of 2026-12-07).
int64_t inside_ns(int64_t a_ns, int64_t b_ns) { return b_ns - a_ns >= 2 ? a_ns + 1 : a_ns; }
const char* const kTrack[] = {"compute", "tp", "cp", "ep", "etp", "dp", "edp", "pp collectives", "pp send"};
}  // namespace

std::string timeline_json(const EngineOutput& eo, const std::vector<UnitSpec>& units, size_t stages, const std::string& scenario) {
  std::string out = "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"scenario\": \"" + esc(scenario) +
                    "\", \"generator\": \"sextant simulate\", \"stages\": " + std::to_string(stages) + "},\n\"traceEvents\": [\n";
  bool first = true;
  auto line = [&](const std::string& s) {
    if (!first) out += ",\n";
    first = false;
    out += s;
  };
  std::vector<size_t> idx(eo.spans.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const Span& x = eo.spans[a];
    const Span& y = eo.spans[b];
    if (x.unit != y.unit) return x.unit < y.unit;
    if (x.t0 != y.t0) return x.t0 < y.t0;
    return x.tid < y.tid;
  });
  // Lanes. Slices on one thread must nest, but a stream's asynchronous work may overlap (interleaved
  // 1F1B's forward and backward sends on the "pp send" stream: 9 partial overlaps on a slow NIC,
  // which viewers flag, before 2026-12-03). Each span goes to the first lane of its stream where it
  // starts after the lane's last end or nests inside it; lane 0 keeps the stream's tid, lane L > 0
  // is tid 16 L + stream, named "<stream> (L + 1)". Output without overlaps is unchanged.
  std::vector<int> tid_out(eo.spans.size(), 0);
  std::map<std::pair<int, int>, std::vector<int64_t>> lane_end;  // (unit, stream) -> each lane's last end, ns
  for (size_t i : idx) {
    const Span& sp = eo.spans[i];
    auto& ends = lane_end[{sp.unit, sp.tid}];
    const int64_t a = ns(sp.t0), b = ns(sp.t1);
    // Pipeline sends are separate transfers, never calls inside one another: one held inside
    // another goes to a lane of its own too (Perfetto had drawn a backward send as a sub-call of a
    // forward one, review of 2026-12-05).
    const bool may_nest = sp.tid != 8;
    size_t lane = 0;
    while (lane < ends.size() && !(ends[lane] <= a || (may_nest && b <= ends[lane]))) ++lane;
    if (lane == ends.size()) ends.push_back(b);
    else ends[lane] = std::max(ends[lane], b);
    tid_out[i] = lane == 0 ? sp.tid : 16 * static_cast<int>(lane) + sp.tid;
  }
  // A transfer's flow starts on the lane of its send span (unit, start): (lane's tid, span's end in ns).
  std::map<std::pair<int, int64_t>, std::pair<int, int64_t>> send_tid;
  for (size_t i = 0; i < eo.spans.size(); ++i)
    if (eo.spans[i].tid == 8)
      send_tid.emplace(std::pair<int, int64_t>{eo.spans[i].unit, ns(eo.spans[i].t0)}, std::pair<int, int64_t>{tid_out[i], ns(eo.spans[i].t1)});
  // Metadata: process per recorded unit, thread per stream (and lane) it used.
  std::vector<std::set<int>> used(units.size());
  for (size_t i = 0; i < eo.spans.size(); ++i) used[static_cast<size_t>(eo.spans[i].unit)].insert(tid_out[i]);
  for (size_t u = 0; u < units.size(); ++u) {
    if (!units[u].record) continue;
    line("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(u) + ", \"args\": {\"name\": \"" +
         esc(units[u].label) + "\"}}");
    line("{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": " + std::to_string(u) + ", \"args\": {\"sort_index\": " +
         std::to_string(u) + "}}");
    used[u].insert(0);
    for (const int t : used[u])
      line("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + std::to_string(u) + ", \"tid\": " + std::to_string(t) +
           ", \"args\": {\"name\": \"" + std::string(kTrack[t % 16]) + (t >= 16 ? " (" + std::to_string(t / 16 + 1) + ")" : "") + "\"}}");
  }
  for (size_t i : idx) {
    const Span& s = eo.spans[i];
    std::string ev = "{\"name\": \"" + esc(s.name) + "\", \"cat\": \"" + s.cat + "\", \"ph\": \"X\", \"pid\": " +
                     std::to_string(s.unit) + ", \"tid\": " + std::to_string(tid_out[i]) + ", \"ts\": " + us(s.t0) +
                     ", \"dur\": " + us_of_ns(ns(s.t1) - ns(s.t0)) + ", \"args\": {";
    ev += "\"microbatch\": " + std::to_string(s.microbatch) + ", \"chunk\": " + std::to_string(s.chunk);
    // The schedule item's pass (a recomputed forward op runs in a backward item; a send carries
    // the pass that produced it).
    ev += std::string(", \"pass\": \"") + (s.microbatch < 0 ? "step" : kPassNames[s.pass < 3 ? s.pass : 0]) + "\"";
    if (s.tid == 0) ev += ", \"flops\": " + format_double(s.flops) + ", \"bytes\": " + format_double(s.bytes);
    else ev += ", \"group\": \"" + std::string(s.cat) + "\", \"bytes\": " + format_double(std::round(s.bytes));  // a layer's mean share: whole bytes
    // A collective's slice runs from this member's arrival, as a profiled NCCL kernel does: its
    // wait for the other members, then the transfer from when all had arrived, which is what the
    // ops and communication tables count. Both parts in whole nanoseconds, summing to "dur"
    // (review of 2026-12-07: nothing told them apart, and a straggler's group read 3.5x its
    // communication total in the trace).
    if (s.t_all_arrived >= 0) {
      const int64_t a = ns(s.t0), b = ns(s.t1), m = std::clamp(ns(s.t_all_arrived), a, b);
      ev += ", \"wait_us\": " + us_of_ns(m - a) + ", \"transfer_us\": " + us_of_ns(b - m);
    }
    ev += "}}";
    line(ev);
  }
  // A flow ends on the receiver's first compute slice at or after the moment it takes the data
  // (its receive, where the consuming pass starts): placed just inside that slice and bound to it
  // ("bp": "e"). Before 2026-12-05 it ended at the arrival time, often inside another
  // micro-batch's op or in an idle gap, and Perfetto bound it to that op or dropped it (flow_no_
  // enclosing_slice): 16 of 48 arrows on a 4-stage 1F1B bound to an unrelated op, 2 dropped.
  // Under DualPipeV a rank's item runs one micro-batch's forward beside another's backward: the
  // arrow goes to the first op of its own micro-batch and pass (a forward send feeds a forward).
  // Looked up among that micro-batch's and pass's ops alone (review of 2026-12-06: the first 256
  // ops after the receive were searched, and a pair whose forward runs more ops than that, 32
  // layers a chunk, bound 11 of 32 arrows to the other micro-batch's forward).
  std::vector<std::vector<const Span*>> compute(units.size());
  std::map<std::tuple<int, int64_t, int>, std::vector<const Span*>> compute_of_pass;  // (unit, micro-batch, pass)
  for (const auto& sp : eo.spans)
    if (sp.tid == 0 && sp.unit >= 0 && static_cast<size_t>(sp.unit) < units.size()) {
      compute[static_cast<size_t>(sp.unit)].push_back(&sp);
      compute_of_pass[{sp.unit, sp.microbatch, sp.pass}].push_back(&sp);
    }
  auto by_start = [](const Span* x, const Span* y) { return x->t0 < y->t0; };
  for (auto& v : compute) std::stable_sort(v.begin(), v.end(), by_start);
  for (auto& [key, v] : compute_of_pass) std::stable_sort(v.begin(), v.end(), by_start);
  auto first_at = [](const std::vector<const Span*>& v, double t) -> const Span* {
    const auto it = std::lower_bound(v.begin(), v.end(), t - 1e-12, [](const Span* x, double u) { return x->t0 < u; });
    return it != v.end() ? *it : nullptr;
  };
  for (size_t i = 0; i < eo.arrows.size(); ++i) {
    const Arrow& a = eo.arrows[i];
    // The start, as the end below, just inside its send slice: written at the slice's start it
    // coincided with the end of the send before it on the lane (43 of 112 flows of an interleaved
    // pp4 step behind a 10 Gb/s NIC), binding by the order a viewer reads events (review of 2026-12-07).
    const auto snd = send_tid.find({a.src, ns(a.t_src)});
    const int64_t s_ns = snd != send_tid.end() ? inside_ns(ns(a.t_src), snd->second.second) : ns(a.t_src);
    line("{\"name\": \"pp transfer\", \"cat\": \"pp\", \"ph\": \"s\", \"id\": " + std::to_string(i) + ", \"pid\": " +
         std::to_string(a.src) + ", \"tid\": " + std::to_string(snd != send_tid.end() ? snd->second.first : 8) +
         ", \"ts\": " + us_of_ns(s_ns) + "}");
    const Span* to = nullptr;
    if (a.dst >= 0 && static_cast<size_t>(a.dst) < compute.size()) {
      // The transfer's own pass, else (none recorded after the receive) the first op after it.
      if (const auto own = compute_of_pass.find({a.dst, a.microbatch, a.pass}); own != compute_of_pass.end()) to = first_at(own->second, a.t_dst);
      if (!to) to = first_at(compute[static_cast<size_t>(a.dst)], a.t_dst);
    }
    if (to) {
      // 1 ns inside the slice: enclosed, whatever order a viewer reads events of the same
      // timestamp in.
      line("{\"name\": \"pp transfer\", \"cat\": \"pp\", \"ph\": \"f\", \"bp\": \"e\", \"id\": " + std::to_string(i) + ", \"pid\": " +
           std::to_string(a.dst) + ", \"tid\": 0, \"ts\": " + us_of_ns(inside_ns(ns(to->t0), ns(to->t1))) + "}");
    } else {
      line("{\"name\": \"pp transfer\", \"cat\": \"pp\", \"ph\": \"f\", \"id\": " + std::to_string(i) + ", \"pid\": " +
           std::to_string(a.dst) + ", \"tid\": 0, \"ts\": " + us(a.t_dst) + "}");
    }
  }
  out += "\n]}\n";
  return out;
}

void timeline_table(const EngineOutput& eo, const std::vector<UnitSpec>& units, int64_t limit, SimResult& r) {
  const char* const* kPass = kPassNames;
  const auto& sp = eo.spans;
  r.timeline.clear();
  r.timeline_spans_count = static_cast<int64_t>(sp.size());
  r.timeline_rows_limit = limit;
  r.timeline_merge_gap_s = std::nan("");  // none merged (a gap of 0 merges touching spans)
  r.timeline_dropped_count = 0;
  if (limit <= 0 || sp.empty()) return;
  std::vector<size_t> idx(sp.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const Span& x = sp[a];
    const Span& y = sp[b];
    if (x.unit != y.unit) return x.unit < y.unit;
    if (x.tid != y.tid) return x.tid < y.tid;
    return x.t0 < y.t0;
  });
  auto pass_of = [](const Span& s) { return s.microbatch < 0 ? 3 : static_cast<int>(s.pass); };
  // Adjacent pairs that may merge (same unit, stream, category, pass) and their gaps.
  auto mergeable = [&](const Span& a, const Span& b) {
    return a.unit == b.unit && a.tid == b.tid && pass_of(a) == pass_of(b) && std::string_view(a.cat) == std::string_view(b.cat);
  };
  // Merge exactly the pairs needed to come down to `limit` rows: the smallest gaps, ties broken by
  // start time (the pair's first span's; then by position, unit and stream order, so the choice is
  // deterministic). Merging every pair at or below the threshold gap collapsed all back-to-back
  // pairs at once (gap 0): 122 rows where 1,000 were asked, before 2026-12-03. Before 2026-12-07
  // (review) ties went by position, i.e. unit order: of 9,068 spans of a pp4 step cut to 5,000
  // rows, all at gap 0, units 0-2 took 1,136 merges each and the last stage 574, so the report's
  // Gantt drew the last stage finer than the others.
  double gap = -1;
  const int64_t n = static_cast<int64_t>(sp.size());
  std::vector<char> merge(idx.size(), 0);  // merge[k]: span idx[k] joins the row of idx[k - 1]
  if (n > limit) {
    std::vector<std::tuple<double, double, size_t>> gaps;  // (gap, start of the pair, position)
    for (size_t i = 1; i < idx.size(); ++i)
      if (mergeable(sp[idx[i - 1]], sp[idx[i]]))
        gaps.emplace_back(std::max(0.0, sp[idx[i]].t0 - sp[idx[i - 1]].t1), sp[idx[i - 1]].t0, i);
    const size_t need = static_cast<size_t>(std::min<int64_t>(n - limit, static_cast<int64_t>(gaps.size())));
    if (need > 0) {
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(need - 1), gaps.end());
      for (size_t i = 0; i < need; ++i) {
        merge[std::get<2>(gaps[i])] = 1;
        gap = std::max(gap, std::get<0>(gaps[i]));
      }
    }
  }
  r.timeline_merge_gap_s = gap >= 0 ? gap : std::nan("");  // the largest gap merged (it was -1: a negative time)
  auto name_of = [](TimelineRow& row, bool same_name, int64_t mb_last) {
    if (same_name) return;  // merged spans of one op keep its name
    if (row.pass == "step") {
      row.name = "step-level work";
      return;
    }
    row.name = row.pass + " mb " + std::to_string(row.microbatch) + (mb_last != row.microbatch ? "-" + std::to_string(mb_last) : "");
  };
  TimelineRow cur;
  bool open = false, same_name = true;
  int64_t mb_last = -1;
  const char* first_name = "";
  auto flush = [&] {
    if (!open) return;
    name_of(cur, same_name, mb_last);
    r.timeline.push_back(std::move(cur));
    cur = TimelineRow{};
    open = false;
  };
  for (size_t k = 0; k < idx.size(); ++k) {
    const Span& s = sp[idx[k]];
    if (open && merge[k]) {
      cur.end_s = std::max(cur.end_s, s.t1);
      cur.busy_s += s.t1 - s.t0;
      cur.spans_count += 1;
      same_name = same_name && std::string_view(first_name) == std::string_view(s.name);
      if (s.microbatch >= 0) mb_last = s.microbatch;
      continue;
    }
    flush();
    const UnitSpec& u = units[static_cast<size_t>(s.unit)];
    cur.unit = s.unit;
    cur.rank = u.representative_rank;
    cur.stream = kTrack[s.tid];
    cur.name = s.name;
    cur.category = s.cat;
    const int pi = pass_of(s);
    cur.pass = pi == 3 ? "step" : kPass[pi];
    cur.microbatch = s.microbatch;
    cur.start_s = s.t0;
    cur.end_s = s.t1;
    cur.busy_s = s.t1 - s.t0;
    cur.spans_count = 1;
    first_name = s.name;
    same_name = true;
    mb_last = s.microbatch;
    open = true;
  }
  flush();
  if (static_cast<int64_t>(r.timeline.size()) > limit) {
    // Still too many: keep the rows that start first (the whole job up to a time), in order.
    std::vector<size_t> order(r.timeline.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return r.timeline[a].start_s < r.timeline[b].start_s; });
    std::vector<char> keep(order.size(), 0);
    for (int64_t i = 0; i < limit; ++i) keep[order[static_cast<size_t>(i)]] = 1;
    std::vector<TimelineRow> kept;
    kept.reserve(static_cast<size_t>(limit));
    for (size_t i = 0; i < r.timeline.size(); ++i) {
      if (keep[i]) kept.push_back(std::move(r.timeline[i]));
      else r.timeline_dropped_count += r.timeline[i].spans_count;
    }
    r.timeline = std::move(kept);
  }
}

}  // namespace sextant::sim
