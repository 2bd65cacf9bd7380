#include "bench/nccl_format.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sextant::bench {

namespace {
const std::vector<std::string>& known_collectives() {
  static const std::vector<std::string> c = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                                             "reduce",     "sendrecv",   "scatter",        "gather",   "hypercube",
                                             "pingpong"};
  return c;
}

std::vector<std::string> split_ws(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> v;
  std::string t;
  while (in >> t) v.push_back(t);
  return v;
}

std::string strip_prefix(std::string line) {
  // mpirun --tag-output prefix "[1,0]<stdout>:"
  if (!line.empty() && line[0] == '[') {
    auto p = line.find(">:");
    if (p != std::string::npos && line.find("]<") != std::string::npos && p < 32) line = line.substr(p + 2);
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

bool parse_num(const std::string& s, double* out) {
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0';
}

// A whole number from lo to INT64_MAX written as digits ("1048576") or as a number that is one
// ("1e6"), or nullopt. 2026-12-07 review: the size, count and root columns were cast with
// static_cast<int64_t>, undefined for 1e30, and a negative size was stored (a negative busbw).
std::optional<int64_t> whole_in_range(const std::string& s, int64_t lo) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() && *end == '\0') {
    if (errno == ERANGE || n < lo) return std::nullopt;
    return static_cast<int64_t>(n);
  }
  double d = 0;
  // 2^63 is the first double beyond int64.
  if (!parse_num(s, &d) || !std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) || d >= 9223372036854775808.0)
    return std::nullopt;
  return static_cast<int64_t>(d);
}

// A time column that is a duration: finite and > 0. Another (0, negative, inf, nan) gives the
// row's printed bandwidth instead; an infinite time had been taken as one and stored a bandwidth
// of 0 B/s (2026-12-07 review).
bool nccl_time_is_duration(double time_us) { return std::isfinite(time_us) && time_us > 0; }
}  // namespace

std::string nccl_collective_from_name(const std::string& text) {
  // Candidates with their canonical names, longest first so "all_reduce" and "allreduce" win
  // over "reduce".
  std::vector<std::pair<std::string, std::string>> c;
  for (const auto& n : known_collectives()) c.emplace_back(n, n);
  c.insert(c.end(), {{"allreduce", "all_reduce"}, {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
                     {"all_to_all", "alltoall"}});
  std::stable_sort(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string t = text;
  std::replace(t.begin(), t.end(), '-', '_');
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  for (const auto& [pattern, name] : c)
    if (t.find(pattern) != std::string::npos) return name;
  return {};
}

const std::vector<std::string>& nccl_collective_names() { return known_collectives(); }

double nccl_bus_factor(const std::string& c, int n) {
  if (n <= 0) return 1;
  if (c == "all_reduce") return 2.0 * (n - 1) / n;
  // nccl-tests' AllGatherGetBw, ReduceScatterGetBw, AlltoAllGetBw, GatherGetBw, ScatterGetBw and
  // HyperCubeGetBw all scale by (n - 1) / n.
  if (c == "all_gather" || c == "reduce_scatter" || c == "alltoall" || c == "gather" || c == "scatter" || c == "hypercube")
    return static_cast<double>(n - 1) / n;
  return 1;  // broadcast, reduce, sendrecv, pingpong
}

NcclLog parse_nccl_log(const std::string& text, const std::string& file, const std::string& default_collective) {
  NcclLog log;
  std::istringstream in(text);
  std::string raw;
  int lineno = 0;
  std::string collective = default_collective;
  // Whether the rows' collective is named by a "Collective test starting" line, and the first line
  // of each row's case (collective, size, type, reduction, root), for a row printed twice.
  bool collective_from_line = false;
  bool rows_since_start_line = false;  // a header after them, with no start line between, opens an unnamed block
  std::map<std::tuple<std::string, int64_t, std::string, std::string, int64_t>, int> first_line_of;
  std::vector<std::string> cols;  // current header columns
  while (std::getline(in, raw)) {
    ++lineno;
    const std::string line = strip_prefix(raw);
    if (line.empty()) continue;
    if (line.rfind("#sextant-samples", 0) == 0) {
      auto t = split_ws(line);
      if (t.size() < 4) continue;
      const std::string op = t[1];
      const int64_t size = std::atoll(t[2].c_str());
      std::vector<double> s;
      // Each sample is a duration in seconds: a positive finite number. Before 2026-12-03 atof read
      // "abc" and "0" as 0 (stored as an infinite bus bandwidth) and "-1e-4" as a negative one.
      for (size_t i = 4; i < t.size(); ++i) {
        char* end = nullptr;
        const double v = std::strtod(t[i].c_str(), &end);
        if (end == t[i].c_str() || *end != '\0' || !std::isfinite(v) || !(v > 0))
          throw Error(SourceLocation{file, lineno, 0, "#sextant-samples"},
                      "sample " + std::to_string(i - 3) + " is '" + t[i] + "', not a positive duration in seconds",
                      "write each repetition's time in seconds, e.g. 0.000123");
        s.push_back(v);
      }
      for (auto it = log.rows.rbegin(); it != log.rows.rend(); ++it)
        if (it->collective == op && it->size_bytes == size) {
          (t[3] == "in-place" ? it->ip_samples_s : it->oop_samples_s) = s;
          break;
        }
      continue;
    }
    if (line[0] == '#') {
      auto pos = line.find("Collective test starting:");
      if (pos != std::string::npos) {
        collective = nccl_collective_from_name(line.substr(pos + 25));
        collective_from_line = true;
        rows_since_start_line = false;
        cols.clear();
        continue;
      }
      if (line.find("nccl-tests version") != std::string::npos) log.version = line.substr(line.find("version") + 8);
      auto t = split_ws(line.substr(1));
      if (t.size() >= 2 && t[0] == "Rank") {
        log.ranks = std::max(log.ranks, std::atoi(t[1].c_str()) + 1);
        auto add_once = [](std::vector<std::string>& v, const std::string& x) {
          if (!x.empty() && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
        };
        const auto on = std::find(t.begin(), t.end(), "on");
        if (on != t.end() && on + 1 != t.end()) add_once(log.hosts, *(on + 1));
        const auto bus = std::find_if(on == t.end() ? t.end() : on, t.end(), [](const std::string& w) { return w.size() > 2 && w.front() == '[' && w.back() == ']'; });
        if (bus != t.end()) {
          std::string gpu;
          for (auto w = bus + 1; w != t.end(); ++w) gpu += (gpu.empty() ? "" : " ") + *w;
          add_once(log.gpus, gpu);
        }
      }
      if (!t.empty() && t[0] == "size" && (std::find(t.begin(), t.end(), "busbw") != t.end() || std::find(t.begin(), t.end(), "algbw") != t.end())) {
        cols = t;
        if (rows_since_start_line) collective_from_line = false;  // a block of its own, its collective the block before's
      }
      pos = line.find("Avg bus bandwidth");
      if (pos != std::string::npos) log.avg_busbw_gb_per_s = std::atof(line.substr(line.find(':', pos) + 1).c_str());
      continue;
    }
    if (cols.empty()) continue;
    auto t = split_ws(line);
    double first = 0;
    if (t.empty() || !parse_num(t[0], &first)) continue;  // NCCL INFO lines and other noise
    if (t.size() != cols.size()) {
      // A result row (it starts with a size) of another width: a log cut off mid-row or two rows
      // run together. Skipped, and said (it vanished without a word before 2026-12-04, and a later
      // compare reported its size as missing).
      log.diagnostics.push_back(fmt::format("line {}: a row of {} columns where the header has {}: not stored", lineno, t.size(),
                                            cols.size()));
      continue;
    }
    if (collective.empty())
      throw Error(SourceLocation{file, lineno, 0, "collective"},
                  "data row before any 'Collective test starting' line and no collective known",
                  [] {
                    std::string v;
                    for (const auto& n : known_collectives()) v += (v.empty() ? "" : ", ") + n;
                    return "name the file after the test (all_reduce_perf.txt) or pass --collective; valid: " + v;
                  }());
    NcclRow r;
    r.collective = collective;
    int seen_time = 0, seen_algbw = 0, seen_busbw = 0, seen_wrong = 0;
    for (size_t i = 0; i < cols.size(); ++i) {
      const std::string& c = cols[i];
      const std::string& v = t[i];
      double d = 0;
      const bool num = parse_num(v, &d);
      auto need = [&] {
        if (!num) throw Error(SourceLocation{file, lineno, 0, c}, "expected a number, got '" + v + "'");
      };
      // A size, count or root is a whole number within int64 (see whole_in_range). A size of 0
      // is what nccl-tests prints where a small size rounds down to no element per rank; its
      // bandwidth is 0.
      auto whole = [&](int64_t lo, const char* valid) {
        const std::optional<int64_t> n = whole_in_range(v, lo);
        if (!n)
          throw Error(SourceLocation{file, lineno, 0, c}, "expected " + std::string(valid) + ", got '" + v + "'");
        return *n;
      };
      if (c == "size") r.size_bytes = whole(0, "a whole number of bytes from 0 to 9223372036854775807 (int64)");
      else if (c == "count") r.count = whole(0, "a whole number of elements from 0 to 9223372036854775807 (int64)");
      else if (c == "type") r.type = v;
      else if (c == "redop") r.redop = v;
      else if (c == "root") r.root = whole(-1, "a rank: a whole number from -1 (no root) to 9223372036854775807 (int64)");
      else if (c == "time") { need(); (seen_time++ ? r.ip_time_us : r.oop_time_us) = d; }
      else if (c == "algbw") { need(); (seen_algbw++ ? r.ip_algbw_gb_per_s : r.oop_algbw_gb_per_s) = d; }
      else if (c == "busbw") { need(); (seen_busbw++ ? r.ip_busbw_gb_per_s : r.oop_busbw_gb_per_s) = d; }
      else if (c == "#wrong" || c == "error" || c == "#") { (seen_wrong++ ? r.ip_wrong : r.oop_wrong) = v; }
    }
    r.has_in_place = seen_time > 1;
    if (r.collective == "pingpong") {
      // The time is the sample (a latency), with no printed value to take its place: one that is
      // no time is refused at its line (2026-12-07 review: it failed at the store, by case only).
      if (seen_time > 0 && !(nccl_time_is_duration(r.oop_time_us) || r.oop_time_us == 0))
        throw Error(SourceLocation{file, lineno, 0, "time"}, fmt::format("a one-way time of {} us is not a duration", r.oop_time_us),
                    "nccl-tests prints a finite time >= 0 in microseconds; correct or remove the row");
    } else {
      bool noted = false;
      const auto check_half = [&](double time_us, double algbw_gb_per_s, double busbw_gb_per_s) {
        if (seen_time == 0 || nccl_time_is_duration(time_us)) return;
        // The printed bandwidth is stored in place of such a time (see nccl_measurements): it must
        // be one, and is refused at its line otherwise (2026-12-07 review: a negative busbw with a
        // time of 0 failed at the store, naming the case only).
        for (const auto& [key, gb_per_s] : {std::pair<const char*, double>{"busbw", busbw_gb_per_s}, {"algbw", algbw_gb_per_s}})
          if (!std::isfinite(gb_per_s) || gb_per_s < 0)
            throw Error(SourceLocation{file, lineno, 0, key},
                        fmt::format("a bandwidth of {} GB/s, stored in place of the time of {} us, is not a finite number >= 0", gb_per_s, time_us),
                        "nccl-tests prints a time and bandwidths >= 0; correct or remove the row");
        if (!noted)
          log.diagnostics.push_back(fmt::format("line {}: a time of {} us is not a duration: the row's printed bandwidth is stored instead",
                                                lineno, time_us));
        noted = true;
      };
      check_half(r.oop_time_us, r.oop_algbw_gb_per_s, r.oop_busbw_gb_per_s);
      if (r.has_in_place) check_half(r.ip_time_us, r.ip_algbw_gb_per_s, r.ip_busbw_gb_per_s);
    }
    // A case printed twice in one file is refused here, naming both lines and why (review,
    // 2026-12-07). Several result blocks without their "Collective test starting" lines (logs of
    // several tests run into one file, the lines filtered out) all take the one collective given
    // for the file: the import had failed at the store with "case 'all_reduce size=8' is also in
    // <the same file> ... import each file into its own run", which no import of that file can follow.
    const auto [seen, inserted] = first_line_of.emplace(std::make_tuple(r.collective, r.size_bytes, r.type, r.redop, r.root), lineno);
    if (!inserted) {
      const std::string row = fmt::format("the {} row of size {}{}{} (first at line {})", r.collective, r.size_bytes,
                                          r.type.empty() ? std::string() : " type " + r.type, r.redop.empty() ? std::string() : " redop " + r.redop,
                                          seen->second);
      if (!collective_from_line)
        throw Error(SourceLocation{file, lineno, 0, "collective"},
                    "this row repeats " + row + ": the file holds several nccl-tests result blocks without 'Collective test starting' "
                        "lines, and each such block was given the collective " + r.collective +
                        " (from --collective, the file's name or the block before it)",
                    "keep the '# Collective test starting: <test>_perf' line nccl-tests prints before each block, or split the file, one "
                    "file per collective named after its test (all_gather_perf.log), and import those files together");
      throw Error(SourceLocation{file, lineno, 0, "size"},
                  "this row repeats " + row + ": the file holds two result blocks of " + r.collective + " (two runs of the test in one log)",
                  "split the file, one result block per file, and import each file into its own run (one bench import-nccl per file)");
    }
    if (std::find(log.collectives.begin(), log.collectives.end(), collective) == log.collectives.end())
      log.collectives.push_back(collective);
    rows_since_start_line = true;
    log.rows.push_back(std::move(r));
  }
  return log;
}

std::string render_nccl_rows(const std::vector<NcclRow>& rows) {
  std::string out;
  std::string current;
  for (const auto& r : rows) {
    if (r.collective != current) {
      current = r.collective;
      if (r.collective == "pingpong") {
        out += "# pingpong (one-way time = half the round trip)\n";
        out += "#       size      time   algbw\n#        (B)      (us)  (GB/s)\n";
      } else {
        out += fmt::format("# {}\n", r.collective);
        out += "#                                                              out-of-place                       in-place          \n";
        out += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
        out += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n";
      }
    }
    if (r.collective == "pingpong")
      out += fmt::format("{:>12}  {:>8.2f}  {:>6.2f}\n", r.size_bytes, r.oop_time_us, r.oop_algbw_gb_per_s);
    else
      out += fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7.2f}  {:>6.2f}  {:>6.2f}  {:>6}  {:>7.2f}  {:>6.2f}  {:>6.2f}  {:>6}\n",
                         r.size_bytes, r.count, r.type, r.redop, r.root, r.oop_time_us, r.oop_algbw_gb_per_s,
                         r.oop_busbw_gb_per_s, r.oop_wrong, r.ip_time_us, r.ip_algbw_gb_per_s, r.ip_busbw_gb_per_s,
                         r.ip_wrong);
  }
  return out;
}

std::vector<Measurement> nccl_measurements(const NcclLog& log, const std::string& suite, const std::string& origin) {
  std::vector<Measurement> out;
  // A log of several data types or reductions (nccl-tests -d all, -o all) has one row per size
  // and type: the case names say the type and reduction then (they collided before 2026-12-02,
  // and the import failed), and stay "COLLECTIVE size=N" for a log of one.
  // The types and reductions are counted per collective: an all_gather section in the same file
  // had renamed the all_reduce cases, and a comparison with a log of all_reduce alone found
  // nothing in common (2026-12-04 review).
  std::map<std::string, std::set<std::pair<std::string, std::string>>> kinds;
  for (const auto& r : log.rows) kinds[r.collective].emplace(r.type, r.redop);
  for (const auto& r : log.rows) {
    const bool qualify = kinds[r.collective].size() > 1;
    Measurement m;
    m.suite = suite;
    m.params = {{"collective", r.collective},
                {"size_bytes", std::to_string(r.size_bytes)},
                {"ranks", std::to_string(log.ranks)},
                {"origin", origin}};
    if (!r.type.empty()) m.set_param("type", r.type);
    if (r.collective == "pingpong") {
      m.name = fmt::format("pingpong size={}", r.size_bytes);
      m.metric = "latency_s";
      m.higher_is_better = false;
      if (!r.oop_samples_s.empty()) m.samples = r.oop_samples_s;
      else m.samples = {r.oop_time_us * 1e-6};
      m.set_param("time", "one-way (half the round trip)");
    } else {
      m.name = fmt::format("{} size={}", r.collective, r.size_bytes);
      if (qualify) m.name += " type=" + r.type + (r.redop.empty() ? std::string() : " redop=" + r.redop);
      m.metric = "busbw_bytes_per_s";
      m.higher_is_better = true;
      double f = nccl_bus_factor(r.collective, log.ranks);
      if (!(f > 0)) {
        // One rank: nccl-tests' bus bandwidth is 0 by convention, and a store of zeros hid a 2x
        // slow-down from the regression gate (2026-12-04 review): algbw = size / time, as the gpu
        // suite stores a one-GPU collective.
        f = 1;
        m.metric = "algbw_bytes_per_s";
        m.set_param("note", "one rank: busbw is 0 by nccl-tests' convention, so this is algbw = size / time");
      }
      // Bus bandwidth from the time column (nccl-tests: algbw = size / time, busbw = algbw x
      // factor): the printed busbw has two decimals in GB/s, 0 for every row below ~10 KiB,
      // where the time keeps about four significant digits.
      auto busbw = [&](double time_us, double printed_gb_per_s) {
        return nccl_time_is_duration(time_us) ? static_cast<double>(r.size_bytes) / (time_us * 1e-6) * f : printed_gb_per_s * 1e9;
      };
      if (!r.oop_samples_s.empty()) {
        for (double s : r.oop_samples_s) m.samples.push_back(static_cast<double>(r.size_bytes) / s * f);
        m.set_param("samples", "out-of-place repetitions");
      } else {
        const bool alg = m.metric == "algbw_bytes_per_s";
        m.samples.push_back(busbw(r.oop_time_us, alg ? r.oop_algbw_gb_per_s : r.oop_busbw_gb_per_s));
        if (r.has_in_place) m.samples.push_back(busbw(r.ip_time_us, alg ? r.ip_algbw_gb_per_s : r.ip_busbw_gb_per_s));
        m.set_param("samples", r.has_in_place ? "out-of-place and in-place time of nccl-tests, as busbw = size / time x bus_factor"
                                              : "time of nccl-tests, as busbw = size / time x bus_factor");
      }
      m.set_param("bus_factor", fmt::format("{}", f));
      m.set_param("wrong", r.oop_wrong.empty() ? "n/a" : r.oop_wrong);
      if (r.has_in_place) m.set_param("wrong_in_place", r.ip_wrong.empty() ? "n/a" : r.ip_wrong);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace sextant::bench
