#include "sim/timeline.hpp"

#include <algorithm>
#include <cstdio>

#include "core/result.hpp"

namespace sextant::sim {

namespace {
std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}
std::string us(double t_s) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", t_s * 1e6);
  return buf;
}
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
  // Metadata: process per recorded unit, thread per stream it used.
  std::vector<std::vector<char>> used(units.size(), std::vector<char>(9, 0));
  for (const auto& sp : eo.spans) used[static_cast<size_t>(sp.unit)][static_cast<size_t>(sp.tid)] = 1;
  for (size_t u = 0; u < units.size(); ++u) {
    if (!units[u].record) continue;
    line("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(u) + ", \"args\": {\"name\": \"" +
         esc(units[u].label) + "\"}}");
    line("{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": " + std::to_string(u) + ", \"args\": {\"sort_index\": " +
         std::to_string(u) + "}}");
    for (int t = 0; t < 9; ++t)
      if (used[u][static_cast<size_t>(t)] || t == 0)
        line("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + std::to_string(u) + ", \"tid\": " + std::to_string(t) +
             ", \"args\": {\"name\": \"" + kTrack[t] + "\"}}");
  }
  std::vector<size_t> idx(eo.spans.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const Span& x = eo.spans[a];
    const Span& y = eo.spans[b];
    if (x.unit != y.unit) return x.unit < y.unit;
    if (x.t0 != y.t0) return x.t0 < y.t0;
    return x.tid < y.tid;
  });
  for (size_t i : idx) {
    const Span& s = eo.spans[i];
    std::string ev = "{\"name\": \"" + esc(s.name) + "\", \"cat\": \"" + s.cat + "\", \"ph\": \"X\", \"pid\": " +
                     std::to_string(s.unit) + ", \"tid\": " + std::to_string(s.tid) + ", \"ts\": " + us(s.t0) +
                     ", \"dur\": " + us(s.t1 - s.t0) + ", \"args\": {";
    ev += "\"microbatch\": " + std::to_string(s.microbatch) + ", \"chunk\": " + std::to_string(s.chunk);
    if (s.tid == 0) ev += ", \"flops\": " + format_double(s.flops) + ", \"bytes\": " + format_double(s.bytes);
    else ev += ", \"group\": \"" + std::string(s.cat) + "\", \"bytes\": " + format_double(s.bytes);
    ev += "}}";
    line(ev);
  }
  for (size_t i = 0; i < eo.arrows.size(); ++i) {
    const Arrow& a = eo.arrows[i];
    line("{\"name\": \"pp transfer\", \"cat\": \"pp\", \"ph\": \"s\", \"id\": " + std::to_string(i) + ", \"pid\": " +
         std::to_string(a.src) + ", \"tid\": 8, \"ts\": " + us(a.t_src) + "}");
    line("{\"name\": \"pp transfer\", \"cat\": \"pp\", \"ph\": \"f\", \"bp\": \"e\", \"id\": " + std::to_string(i) +
         ", \"pid\": " + std::to_string(a.dst) + ", \"tid\": 0, \"ts\": " + us(a.t_dst) + "}");
  }
  out += "\n]}\n";
  return out;
}

}  // namespace sextant::sim
