// sextant simulate SCENARIO [--set k=v] [--straggler R=F] [--all-ranks] [--timeline FILE.json[.gz]]
//                           [--timeline-ranks LIST] [--seed S] [--jitter SIGMA] [--no-contention]


#include <algorithm>
#include <cctype>
#include <cstdio>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "plan/plan.hpp"
#include "validate/training_validation.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "scenario/scenario.hpp"
#include "sim/simulate.hpp"

namespace sextant::cli {

namespace {
struct SimulateArgs {
  std::string scenario, catalog_dir, timeline, timeline_ranks;
  std::vector<std::string> sets, stragglers;
  bool all_ranks = false, no_contention = false, no_interference = false;
  uint64_t seed = 0;
  double jitter = 0;
  int64_t timeline_rows = 5000;
  OutputOptions out;
};

// The keys of --set KEY=VALUE overrides.
std::vector<std::string> set_keys(const std::vector<std::string>& sets) {
  std::vector<std::string> keys;
  for (const auto& kv : sets) keys.push_back(kv.substr(0, kv.find('=')));
  return keys;
}

// A rank of --timeline-ranks: digits, or a '-' and digits (a negative rank is then named as
// outside the job). Blanks and a '+' are refused at either end (review of 2026-12-07: std::stoll
// took " 3" and "+3" but refused "3 "). `entry` is the list entry it came from, quoted when it is
// a range ("24-" had read "'' is not an integer").
int64_t parse_rank(const std::string& piece, const std::string& entry, const char* key = "--timeline-ranks") {
  const SourceLocation at{"", 0, 0, key};
  const std::string hint = std::string(key) == "--timeline-ranks" ? "ranks and ranges of digits separated by commas, without blanks or signs, e.g. 0-7,64"
                                                                   : "RANK=FACTOR, the rank in digits without blanks or signs, e.g. 17=1.3";
  const std::string where = piece == entry ? "" : "bad range '" + entry + "': ";
  const size_t digits = piece.size() > 1 && piece[0] == '-' ? 1 : 0;
  bool ok = piece.size() > digits;
  for (size_t i = digits; i < piece.size(); ++i) ok = ok && std::isdigit(static_cast<unsigned char>(piece[i]));
  if (!ok) throw Error(at, where + "'" + piece + "' is not an integer", hint);
  try {
    return std::stoll(piece);
  } catch (const std::exception&) {
    throw Error(at, where + "'" + piece + "' is out of range for a rank", hint);
  }
}

std::vector<int64_t> parse_rank_list(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    // An empty entry lists nothing: "," or "0,,1" had been read as the default, every unit (2026-12-05).
    if (item.empty())
      throw Error(SourceLocation{"", 0, 0, "--timeline-ranks"}, "empty entry in '" + text + "'", "ranks and ranges separated by commas, e.g. 0-7,64");
    const auto dash = item.find('-', 1);
    if (dash == std::string::npos) {
      out.push_back(parse_rank(item, item));
      continue;
    }
    const int64_t a = parse_rank(item.substr(0, dash), item), b = parse_rank(item.substr(dash + 1), item);
    if (b < a)
      throw Error(SourceLocation{"", 0, 0, "--timeline-ranks"}, "bad range '" + item + "': the end is below the start", "e.g. 0-7,64");
    // (unsigned: b - a of a range from -9e18 to 9e18 overflowed an int64)
    const uint64_t span = static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
    if (span >= 100000)
      throw Error(SourceLocation{"", 0, 0, "--timeline-ranks"},
                  "range '" + item + "' lists " + (span == UINT64_MAX ? "18446744073709551616" : std::to_string(span + 1)) +
                      " ranks; a range lists at most 100000",
                  "e.g. 0-7,64");
    for (int64_t r = a; r <= b; ++r) out.push_back(r);
  }
  return out;
}


// The printed text shows at most this many rows of rank_classes: with --all-ranks (or --jitter)
// it has one row per rank, and the 70B example printed 1,024 of them before critical_path and the
// notes, the 405B one 16,384 (review of 2026-12-06). --json, --csv, --report and Python hold all.
constexpr size_t kTextRankClassesFirstRows = 16;   // units 0..15
constexpr size_t kTextRankClassesLastRows = 8;     // then the units ending last (the critical one first)
constexpr size_t kTextRankClassesSlowedRows = 8;   // and those slowed most (--straggler, --jitter)
constexpr size_t kTextRankClassesMaxRows = kTextRankClassesFirstRows + kTextRankClassesLastRows + kTextRankClassesSlowedRows;

// rank_classes as printed: every row when there are at most kTextRankClassesMaxRows, else the
// first units, the critical unit (critical_row) and the other units ending last, and the units
// slowed most (slow-down factor above 1), in unit order, the header saying how many were left out.
Table printed_rank_classes(const Table& t, int64_t critical_row) {
  const size_t n = t.rows();
  if (n <= kTextRankClassesMaxRows) return t;
  std::vector<bool> keep(n, false);
  for (size_t i = 0; i < kTextRankClassesFirstRows; ++i) keep[i] = true;
  // Keeps the count rows not kept yet, among the eligible ones, with the highest score (ties: in unit order).
  auto take_top = [&](auto score, auto eligible, size_t count) {
    std::vector<size_t> order;
    for (size_t i = 0; i < n; ++i)
      if (!keep[i] && eligible(i)) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return score(x) > score(y); });
    for (size_t k = 0; k < std::min(count, order.size()); ++k) keep[order[k]] = true;
  };
  size_t last = kTextRankClassesLastRows;
  if (critical_row >= 0 && static_cast<size_t>(critical_row) < n && !keep[static_cast<size_t>(critical_row)]) {
    keep[static_cast<size_t>(critical_row)] = true;
    --last;
  }
  const auto& end = t.column("end_s").f64;
  const auto& factor = t.column("slowdown_factor").f64;
  take_top([&](size_t i) { return end[i]; }, [](size_t) { return true; }, last);
  take_top([&](size_t i) { return factor[i]; }, [&](size_t i) { return factor[i] > 1; }, kTextRankClassesSlowedRows);
  const size_t shown = static_cast<size_t>(std::count(keep.begin(), keep.end(), true));
  Table out(t.name(), t.description() + "; " + std::to_string(shown) + " of " + std::to_string(n) + " rows shown (units 0-" +
                          std::to_string(kTextRankClassesFirstRows - 1) + ", the critical unit and others ending last, those slowed most), " +
                          std::to_string(n - shown) + " left out: --json and --csv hold every row");
  for (const auto& c : t.columns())
    if (c.type == Column::Type::F64) out.add_f64(c.name);
    else if (c.type == Column::Type::I64) out.add_i64(c.name);
    else out.add_str(c.name);
  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    std::vector<Value> row;
    for (const auto& c : t.columns())
      if (c.type == Column::Type::F64) row.emplace_back(c.f64[i]);
      else if (c.type == Column::Type::I64) row.emplace_back(c.i64[i]);
      else row.emplace_back(c.str[i]);
    out.add_row(row);
  }
  return out;
}
}  // namespace

void add_simulate_command(CLI::App& app) {
  auto a = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand("simulate",
                                 "Event-level simulation of one training step over the same workload as estimate: "
                                 "per-rank streams, pipeline schedule, network contention, stragglers, timeline");
  cmd->add_option("scenario", a->scenario, "Scenario YAML (see docs/scenario.md)")->required();
  one_value_per_use(cmd->add_option("--set", a->sets, "Override a scenario key, e.g. --set parallel.tp=4 (repeatable)"));
  one_value_per_use(
      cmd->add_option("--straggler", a->stragglers, "RANK=FACTOR: that rank's compute takes FACTOR times as long (repeatable)"));
  cmd->add_flag("--all-ranks", a->all_ranks, "Simulate every rank instead of one unit per class of equivalent ranks");
  // An output as --json is: refused when empty and checked before the run (an empty path had run
  // and written nothing, exit 0; an unwritable one failed after the whole simulation; review of
  // 2026-12-05).
  add_output_file_option(*cmd, a->out, "--timeline", a->timeline, "Write a Chrome trace-event JSON (Perfetto, chrome://tracing) to FILE; gzip when FILE ends in .gz");
  auto* o_ranks = cmd->add_option("--timeline-ranks", a->timeline_ranks, "Ranks to put in the timeline, e.g. 0-7,64 (default: every class, or the first pipeline replica with --all-ranks)");
  auto* o_rows = cmd->add_option("--timeline-rows", a->timeline_rows,
                  "Rows of the result's timeline table (the report's per-rank Gantt chart; in --json, --csv and --report, not in the "
                  "printed text): spans of the --timeline-ranks units, closest ones merged beyond N (default 5000; 0: no table)")
      ->check(unsigned_64("COUNT"));  // a whole count: "must be a number >= 0" had refused 1e3 as no number
  auto* o_seed = cmd->add_option("--seed", a->seed, "Seed of the random slow-downs (--jitter): an integer from 0 to 2^63-1 "
                                                   "(default: the scenario's seed:)")->check(unsigned_64());
  auto* o_jitter = cmd->add_option("--jitter", a->jitter, "Per-rank lognormal slow-down of compute with this sigma, at most 1: median factor 1, mean e^(sigma^2/2) (simulates every rank)")
      ->check(finite_in_range(0, 1));
  o_seed->needs(o_jitter);  // the seed draws the jitter only: alone it changed nothing, exit 0 (before 2026-12-04)
  cmd->add_flag("--no-contention", a->no_contention, "Every collective runs at its idle-network speed (no link sharing)");
  cmd->add_flag("--no-interference", a->no_interference, "Overlapped communication does not slow compute");
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  add_output_options(*cmd, a->out);
  cmd->callback([a, o_seed, o_ranks, o_rows] {
    auto cat = a->catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->catalog_dir);
    const Scenario s = load_scenario(a->scenario, *cat, parse_sets(a->sets));
    sim::SimOptions o;
    o.all_ranks = a->all_ranks;
    o.contention = !a->no_contention;
    o.interference = !a->no_interference;
    // The scenario's seed: applies unless --seed is given (it was never read, before 2026-12-03).
    o.seed = o_seed->count() ? a->seed : s.seed;
    o.jitter_sigma = a->jitter;
    // The seed draws the jitter only: at sigma 0 it draws nothing (as --seed alone, refused).
    if (o_seed->count() && !(a->jitter > 0))
      throw Error(SourceLocation{"", 0, 0, "--seed"}, "draws the --jitter slow-downs, and --jitter 0 draws none", "give --jitter > 0, or leave --seed out");
    for (const auto& st : a->stragglers) {
      const auto eq = st.find('=');
      if (eq == std::string::npos || eq == 0)
        throw Error(SourceLocation{"", 0, 0, "--straggler"}, "expected RANK=FACTOR, got '" + st + "'", "e.g. --straggler 17=1.3");
      double f = 0;
      const std::string factor = st.substr(eq + 1);
      // A plain decimal (a '-' allowed, so that a negative factor is named as out of range): no
      // blank, '+' or hexadecimal form, as --timeline-ranks (review of 2026-12-07: std::stod took
      // " 1.5", "+1.5" and "0x1.8p0", and the rank " 3" and "+3" where "3 " was refused).
      const size_t lead = !factor.empty() && factor[0] == '-' ? 1 : 0;
      bool plain = factor.size() > lead && (std::isdigit(static_cast<unsigned char>(factor[lead])) || factor[lead] == '.');
      for (const char ch : factor) plain = plain && !std::isspace(static_cast<unsigned char>(ch)) && ch != 'x' && ch != 'X' && ch != 'p' && ch != 'P';
      try {
        size_t used = 0;
        if (!plain) throw std::invalid_argument("not a plain decimal");
        f = std::stod(factor, &used);
        if (used != factor.size()) throw std::invalid_argument("trailing characters");
      } catch (const std::exception&) {
        throw Error(SourceLocation{"", 0, 0, "--straggler"}, "'" + factor + "' is not a number", "a decimal without blanks or signs, e.g. --straggler 17=1.3");
      }
      const std::string rank = st.substr(0, eq);
      o.stragglers.emplace_back(parse_rank(rank, rank, "--straggler"), f);
    }
    o.record_timeline = !a->timeline.empty();
    // A timeline on standard output is the output: the printed result would run into it.
    if (a->timeline == "-" || a->timeline == "/dev/stdout") a->out.quiet = true;
    if (o_ranks->count() && a->timeline_ranks.empty())
      throw Error(SourceLocation{"", 0, 0, "--timeline-ranks"}, "lists no rank", "ranks and ranges separated by commas, e.g. 0-7,64");
    if (!a->timeline_ranks.empty()) o.timeline_ranks = parse_rank_list(a->timeline_ranks);
    // Only an output file carries the table; a printed result needs no spans recorded for it.
    const bool files_out = !a->out.json.empty() || !a->out.csv_dir.empty() || !a->out.report.empty();
    o.timeline_rows = files_out ? a->timeline_rows : 0;
    // Jitter (or --all-ranks) simulates every rank: on a large job that is minutes where the class
    // mode takes a fraction of a second (the 405B example at 16k GPUs: 77 s against 0.09 s), which
    // had started without a word (2026-12-03 review).
    if ((o.jitter_sigma > 0 || o.all_ranks) && s.num_gpus > 4096 && !a->out.quiet)
      std::fprintf(stderr, "note: %s simulates each of the %lld ranks; on this job that can take minutes (without it one rank per equivalence class)\n",
                   o.jitter_sigma > 0 ? "--jitter" : "--all-ranks", static_cast<long long>(s.num_gpus));
    sim::SimResult r;
    try {
      r = sim::simulate(s, o);
    } catch (const Error& e) {
      // The simulation knows the key of a scenario value it refuses, not where it was written:
      // point at its line (the budget's error named training.global_batch at line 0).
      if (e.where().line == 0 && !e.where().key.empty() && e.where().file == s.file)
        if (const auto at = scenario_key_location(s.file, nullptr, e.where().key, set_keys(a->sets)))
          throw Error(*at, e.message(), e.hint());
      throw;
    }
    // The timeline file is one of the run's outputs: staged with --json, --csv and --report and
    // renamed with them, so a failed run leaves the previous timeline too.
    std::vector<std::pair<std::string, std::string>> extra;
    if (!a->timeline.empty())
      extra.emplace_back(a->timeline, names_gzip(a->timeline) ? gzip_text(r.timeline_json, a->timeline, "--timeline") : std::move(r.timeline_json));
    Result res = sim::to_result(r, s);
    // The timeline options shape outputs that were not asked for: said, as other settings without
    // effect are (they ran silently, review of 2026-12-05).
    if (!files_out && o_rows->count() && a->timeline_rows > 0)
      res.notes.push_back("--timeline-rows shapes the timeline table of --json, --csv and --report, and none is written: it changes nothing here");
    if (!files_out && a->timeline.empty() && o_ranks->count())
      res.notes.push_back("--timeline-ranks picks the ranks of --timeline and of the timeline table (--json, --csv, --report), and none is "
                          "written: it changes nothing here");
    plan::add_framework_note(res, s, *cat);
    add_validated_range_for(res, s, *cat, a->catalog_dir, plan::kValidatedMedianAbsErrorFraction * 100);
    // The printed text leaves out the timeline table and shortens rank_classes (one row per rank
    // with --all-ranks or --jitter): the files keep both whole.
    const Table* classes = res.table("rank_classes");
    const bool long_classes = classes && classes->rows() > kTextRankClassesMaxRows;
    if ((!res.table("timeline") && !long_classes) || a->out.quiet || a->out.json_to_stdout()) {
      emit(res, a->out, extra);
      return;
    }
    OutputOptions files = a->out;
    files.quiet = true;
    emit(res, files, extra);
    Result shown;
    shown.command = res.command;
    shown.scalars = res.scalars;
    shown.notes = res.notes;
    for (const auto& t : res.tables)
      if (t.name() == "rank_classes") shown.tables.push_back(printed_rank_classes(t, r.critical_unit));
      else if (t.name() != "timeline") shown.tables.push_back(t);
    const std::string text = render_text(shown);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  });
}

}  // namespace sextant::cli
