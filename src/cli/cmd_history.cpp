// sextant history list | show RUN | compare A B   (the results database of `sextant bench`)
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <tuple>

#include "bench/compare.hpp"
#include "bench/db/results_db.hpp"
#include "bench/runner.hpp"
#include "cli/cli.hpp"
#include "core/error.hpp"

namespace sextant::cli {

namespace {
using namespace sextant::bench;

struct HistoryArgs {
  std::string db, run, a, b, test = "mann-whitney", correction = "none";
  int64_t limit = 0, history = 15;  // 15 since the 2026-12-07 review (a `bench run` command needs 13; see --history)
  std::vector<std::string> suites, metrics;
  double alpha = 0.05, min_effect = 0.05;
  bool params = false, allow_missing = false, allow_unchecked = false;
  OutputOptions out;
};

// The database the history commands read. They only read: a --db that does not exist is a typo to
// report, not a new empty database to create (and report 0 runs from).
std::string path_of(const HistoryArgs& h) { return h.db.empty() ? default_db_path() : h.db; }

// Opens the database for reading and reads it whole once (PRAGMA quick_check, linear in its size),
// refusing a damaged file as `bench` does: naming it, SQLite's findings and what to do. Before
// 2026-12-06 a damaged hosts table made the runs' JOIN return no rows, so `history list` printed
// run_count 3 with an empty table and `show`/`compare` said "no run" (exit 0 or a wrong error; review).
ResultsDb open_intact(const HistoryArgs& h) {
  ResultsDb db = ResultsDb::open_existing(path_of(h));
  db.require_intact();
  return db;
}

std::string join_ids(const std::vector<int64_t>& ids) {
  std::string out;
  for (const int64_t id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
  return out;
}

Result list(const HistoryArgs& h) {
  ResultsDb db = open_intact(h);
  Result r;
  r.command = "history list";
  r.set("db", db.path());
  // The database's own schema, not the result's (schema_version, top level): named apart since 2026-12-03.
  r.set("db_schema_version", int64_t{db.schema_version()});
  r.set("run_count", db.run_count());
  Table& t = r.add_table("runs", "newest first: by start time, then run id");
  t.add_i64("run_id");
  t.add_str("started_at");
  t.add_str("kind");
  t.add_str("label");
  t.add_i64("measurement_count");
  t.add_str("hostname");
  t.add_str("host_fingerprint");
  t.add_str("sextant_version");
  // 1: started_at is not a start time as sextant writes it; the run is listed with the stored text,
  // after the others, and named in a note (2026-12-07 review: one such run failed the whole list).
  t.add_i64("start_damaged_flag");
  for (const auto& s : db.list_runs(h.limit))
    t.add_row({s.id, s.started_at, s.kind, s.label, s.measurement_count, s.hostname, s.host_fingerprint, s.sextant_version,
               int64_t{s.start_fault.empty() ? 0 : 1}});
  const std::vector<int64_t> damaged = db.runs_with_damaged_start();
  r.set("start_damaged_count", static_cast<int64_t>(damaged.size()));
  if (!damaged.empty())
    r.notes.push_back("run(s) " + join_ids(damaged) + " have a damaged start time (runs.started_at not as sextant writes it, start_damaged_flag 1): " +
                      "listed last with the stored text, passed over by latest and latest~N, and not shown or compared; " +
                      "`sextant history show ID` on one says how to repair or delete it");
  return r;
}

// The note of a command that resolved latest or latest~N past runs with a damaged start time.
void note_skipped_latest(const ResultsDb& db, const std::vector<std::string>& refs, Result& r) {
  if (std::none_of(refs.begin(), refs.end(), [](const std::string& x) { return x.rfind("latest", 0) == 0; })) return;
  const std::vector<int64_t> damaged = db.runs_with_damaged_start();
  if (!damaged.empty())
    r.notes.push_back("latest counts only runs with a valid start time: run(s) " + join_ids(damaged) +
                      " with a damaged runs.started_at are passed over (see `sextant history list`)");
}

Result show(const HistoryArgs& h) {
  ResultsDb db = open_intact(h);
  const RunRecord run = db.load_run(db.resolve_run(h.run));
  Result r = run_result(run, "history show", h.params);
  r.set("db", db.path());
  note_skipped_latest(db, {h.run}, r);
  return r;
}

Result compare(const HistoryArgs& h, int* regressions, bool* missing) {
  ResultsDb db = open_intact(h);
  const int64_t ida = db.resolve_run(h.a), idb = db.resolve_run(h.b);
  // A run against itself compares nothing: a CI gate given the same id twice always passed.
  if (ida == idb)
    throw Error(SourceLocation{db.path(), 0, 0, "B"}, "runs A ('" + h.a + "') and B ('" + h.b + "') are both run " + std::to_string(ida) + ": nothing to compare",
                "compare two different runs, e.g. latest~1 latest");
  const RunRecord a = db.load_run(ida);
  const RunRecord b = db.load_run(idb);
  CompareOptions o;
  o.alpha = h.alpha;
  o.min_effect_fraction = h.min_effect;
  o.test = h.test;
  o.correction = h.correction;
  o.suites = h.suites;
  o.metrics = h.metrics;
  // The runs of B's host before A and B (newest first, up to --history), for the drift between runs.
  // Before and newest by start time, then id, as `history list` and latest~N order runs (by id
  // before 2026-12-06, which is the order runs were stored in: overlapping runs read out of order;
  // review).
  auto started_before = [](const std::string& started_at, int64_t id, const RunRecord& x) {
    return std::tie(started_at, id) < std::tie(x.started_at, x.id);
  };
  std::vector<RunRecord> earlier;
  std::vector<std::string> damaged_history;
  std::vector<int64_t> undated_history;
  std::set<std::string> a_commands;
  for (const auto& m : a.measurements)
    if (m.suite == "command") a_commands.insert(m.name);
  if (h.history > 0)
    for (const auto& s : db.list_runs()) {
      // A run with a damaged start time is neither before nor after A and B: left out, with a
      // note when it is of B's host (2026-12-07 review).
      if (!s.start_fault.empty()) {
        if (s.host_fingerprint == b.host.fingerprint()) undated_history.push_back(s.id);
        continue;
      }
      // Before both runs only: a run between A and B may be the change itself (a step in the
      // runs after A widened the "drift" until a 62% slow-down read within_run_noise, own
      // review of 2026-12-04).
      if (started_before(s.started_at, s.id, a) && started_before(s.started_at, s.id, b) && s.host_fingerprint == b.host.fingerprint()) {
        // Only runs that measured one of B's cases count towards --history: ten `bench run`
        // commands after five GEMM runs had used up the default ten and turned the drift check
        // off without a word (2026-12-04 review).
        // A damaged earlier run is left out of the history, with a note: it had stopped the
        // comparison of two intact runs (review of 2026-12-05).
        RunRecord e;
        try {
          e = db.load_run(s.id);
        } catch (const Error& err) {
          damaged_history.push_back(std::to_string(s.id));
          continue;
        }
        bool shares = false;
        for (const auto& me : e.measurements) {
          for (const auto& mb : b.measurements)
            // A `bench run` case is its command line: A's or B's (runs of other commands had used
            // up --history and left the drift unestimated; review of 2026-12-05).
            if (me.suite == mb.suite && me.metric == mb.metric && (me.suite != "command" || me.name == mb.name || a_commands.count(me.name))) {
              shares = true;
              break;
            }
          if (shares) break;
        }
        if (!shares) continue;
        earlier.push_back(std::move(e));
        if (static_cast<int64_t>(earlier.size()) >= h.history) break;
      }
    }
  for (const auto& e : earlier) o.history.push_back(&e);
  const Comparison c = compare_runs(a, b, o);
  Result r;
  r.command = "history compare";
  note_skipped_latest(db, {h.a, h.b}, r);
  if (!undated_history.empty())
    r.notes.push_back("run(s) " + join_ids(undated_history) + " of this host have a damaged start time (runs.started_at) and are left out of the drift history");
  if (!damaged_history.empty()) {
    std::string ids;
    for (const auto& id : damaged_history) ids += (ids.empty() ? "" : ", ") + id;
    r.notes.push_back("earlier run(s) " + ids + " of this host could not be read (damaged) and are left out of the drift history");
  }
  r.set("run_a", a.id);
  r.set("run_b", b.id);
  r.set("test", o.test);
  r.set("correction", o.correction);
  r.set("alpha", o.alpha);
  r.set("min_effect_fraction", o.min_effect_fraction);
  r.set("same_host", c.same_host);
  r.set("case_count", static_cast<int64_t>(c.cases.size()));
  r.set("regression_count", int64_t{c.regression_count});
  r.set("improvement_count", int64_t{c.improvement_count});
  r.set("parameters_differ_count", int64_t{c.parameters_differ_count});
  r.set("unchecked_count", int64_t{c.unchecked_count});
  r.set("unchecked_failure_count", int64_t{c.unchecked_failure_count});
  r.set("below_resolution_count", int64_t{c.below_resolution_count});
  r.set("history_run_count", static_cast<int64_t>(earlier.size()));
  {
    int64_t within = 0;
    for (const auto& x : c.cases) within += x.verdict == "within_run_noise";
    r.set("within_run_noise_count", within);
  }
  Table& t = r.add_table("cases", "B against A; regression = significant at alpha and worse by at least min_effect");
  t.add_str("suite");
  t.add_str("case");
  t.add_str("metric");
  t.add_f64("median_a");
  t.add_f64("median_b");
  t.add_f64("change_fraction");
  t.add_f64("p_value");
  t.add_f64("min_p_value");
  t.add_str("method");
  t.add_i64("count_a");
  t.add_i64("count_b");
  t.add_str("verdict");
  t.add_str("parameter_changes");
  t.add_f64("spread_a_fraction");
  t.add_f64("spread_b_fraction");
  t.add_str("direction");  // worse | better | same: readable where change_fraction is infinite (JSON null)
  t.add_i64("unchecked_failure_flag");  // 1: an unchecked case that fails the gate (see the note)
  t.add_i64("family_excluded_flag");    // 1: left out of Holm's family by Tarone's rule (testable alone)
  t.add_i64("history_count");           // earlier runs of B's host holding the case with B's parameters
  t.add_f64("run_to_run_sd_fraction");  // sd of the case's median between earlier runs (not A; within stretches between level shifts; successive differences; pooled over its suite and metric), as a fraction
  // Its effective degrees of freedom (0: not estimated): fractional, those of the successive-difference
  // estimate (2 (n - 1)^2 / (3 n - 4) for n runs in one stretch); run_to_run_dof_count before the
  // 2026-12-07 review, when it was the runs less one per stretch.
  t.add_f64("run_to_run_effective_dof_count");
  // The change within which a significant one reads within_run_noise (NaN: drift not trusted).
  t.add_f64("drift_cutoff_fraction");
  std::string first_change;
  for (const auto& x : c.cases) {
    t.add_row({x.suite, x.name, x.metric, x.median_a, x.median_b, x.change_fraction, x.p_value, x.min_p_value, x.method.empty() ? std::string("-") : x.method,
               x.count_a, x.count_b, x.verdict, x.parameter_changes.empty() ? std::string("-") : x.parameter_changes, x.spread_a, x.spread_b,
               x.direction, int64_t{x.unchecked_failure ? 1 : 0}, int64_t{x.family_excluded ? 1 : 0}, x.history_count,
               std::isfinite(x.run_to_run_sd_log) ? std::expm1(x.run_to_run_sd_log) : std::nan(""), x.run_to_run_dof,
               x.drift_cutoff_fraction});
    if (first_change.empty()) first_change = x.parameter_changes;
  }
  for (const auto& sw : c.software_changes)
    r.notes.push_back("software differs between the runs: " + sw + "; the verdicts are the change it brought (with the host's drift)");
  if (c.parameters_differ_count > 0)
    r.notes.push_back(std::to_string(c.parameters_differ_count) + " case(s) ran with different parameters (e.g. " + first_change +
                      "): their verdict is parameters_differ, not regression or improvement; compare runs of one configuration");
  if (o.correction == "none") {
    int64_t testable = 0;
    // Only the cases a test ran on: not the unchecked ones, nor those with other parameters.
    for (const auto& x : c.cases)
      testable += x.verdict == "regression" || x.verdict == "improvement" || x.verdict == "unchanged";
    if (testable >= 20)
      r.notes.push_back(std::to_string(testable) + " cases tested at alpha " + format_double(o.alpha) + " each: about " +
                        format_double(std::round(double(testable) * o.alpha * 10) / 10) +
                        " false alarms are expected among unchanged cases before the min-effect filter (--correction holm or "
                        "benjamini-hochberg controls for it)");
  }
  // The p-values count the noise within each run only. Drift between runs (other work on the
  // host, clocks, thermals) is not in them: where the repetitions of a run already scatter by more
  // than the smallest effect that counts, the host was not quiet and verdicts are unreliable.
  // Only the cases a timing verdict was given to (review, 2026-12-07: user_s and sys_s of a
  // below_resolution pair, whose median is a tick or 0, had counted, and two identical runs read
  // "3 of 4 cases ... the host was not quiet" over one judged wall_s).
  auto judged = [](const std::string& v) {
    return v == "regression" || v == "improvement" || v == "unchanged" || v == "within_run_noise" || v == "underpowered";
  };
  int64_t noisy = 0, judged_count = 0;
  for (const auto& x : c.cases) {
    judged_count += judged(x.verdict);
    noisy += judged(x.verdict) && std::max(x.spread_a, x.spread_b) > o.min_effect_fraction;
  }
  r.set("noisy_case_count", noisy);
  if (noisy > 0)
    r.notes.push_back(std::to_string(noisy) + " of " + std::to_string(judged_count) + " judged case(s) scatter within a run by more than " +
                      format_double(o.min_effect_fraction) + " (IQR / median): the host was not quiet, and the test counts noise within a "
                      "run, not drift between runs; repeat both runs on a quiet host (bench --interleave, --timer cpu) before "
                      "trusting a verdict");
  if (c.below_resolution_count > 0)
    r.notes.push_back(std::to_string(c.below_resolution_count) + " case(s) changed by less than their metric's resolution: below_resolution, " +
                      "no verdict and no gate failure (rusage user_s and sys_s: the kernel charges CPU time to user or system by whole " +
                      "scheduler ticks of 1-10 ms, so medians closer than " + format_double(kRusageCpuResolutionS) +
                      " s tell nothing; wall_s is timed by a monotonic clock and judged)");
  // Drift between runs: estimated from the history where the host has it, said where it has not.
  {
    int64_t with_drift = 0, within = 0, few_dof = 0;
    for (const auto& x : c.cases) {
      // Trusted only with kMinDriftDof degrees of freedom (2026-12-06 review: 3 of them let an 18%
      // slow-down pass as within_run_noise).
      const bool estimated = std::isfinite(x.run_to_run_sd_log);
      with_drift += estimated && x.run_to_run_dof >= kMinDriftDof;
      few_dof += estimated && x.run_to_run_dof < kMinDriftDof;
      within += x.verdict == "within_run_noise";
    }
    const int64_t tested = static_cast<int64_t>(c.cases.size());
    if (within > 0)
      r.notes.push_back(std::to_string(within) + " case(s) changed significantly within the runs but by no more than " +
                        format_double(o.history_z) + " x sqrt(2) standard deviations of the drift between runs of this host (the medians of " +
                        "earlier runs, run_to_run_sd_fraction; sqrt(2): the spread of a difference of two run medians; a Student t "
                        "cut-off of the same tail for a deviation estimated with run_to_run_effective_dof_count degrees of freedom): "
                        "within_run_noise, not a regression or an improvement");
    if (!c.history_runs_left_out.empty()) {
      std::string runs;
      for (size_t i = 0; i < c.history_runs_left_out.size(); ++i) {
        char shift[32];
        std::snprintf(shift, sizeof shift, "%+.0f%%", 100 * c.history_runs_left_out_shift_fraction[i]);
        runs += (i ? ", run " : "run ") + std::to_string(c.history_runs_left_out[i]) + " (" + shift + " in " + c.history_runs_left_out_cases[i] + ")";
      }
      r.notes.push_back("left out of the drift between runs: " + runs + ", whose cases of that suite and metric ran as a whole more than max(5 robust deviations, " +
                        "10%) from the other runs' (a run under load or at another clock is no sample of the drift; it had widened the drift " +
                        "enough to pass a uniform slow-down as within_run_noise)");
    }
    if (c.drift_cases_left_out > 0)
      r.notes.push_back(std::to_string(c.drift_cases_left_out) + " case(s) whose medians varied between runs far beyond the others of their " +
                        "suite and metric (beyond the 99.9th percentile of the pooled variance's spread) are left out of the pooled drift " +
                        "and judged with it");
    // Level shifts in the history (a new build): the drift is taken within the stretches between
    // them (2026-12-06 review: a 25% step half-way through the history had read as a 12% drift).
    if (!c.drift_level_shift_runs.empty()) {
      std::string runs;
      for (size_t i = 0; i < c.drift_level_shift_runs.size(); ++i) {
        char shift[32];
        std::snprintf(shift, sizeof shift, "%+.0f%%", 100 * c.drift_level_shift_fraction[i]);
        runs += (i ? ", run " : "run ") + std::to_string(c.drift_level_shift_runs[i]) + " (" + shift + " in " + c.drift_level_shift_cases[i] + ")";
      }
      r.notes.push_back("level shifts in the history at " + runs + " (the first run at the new level): the cases of that suite and metric moved together " +
                        "by more than max(5 robust deviations of such moves, " + format_double(o.min_effect_fraction) +
                        "), a change and no drift; the drift between runs is taken within the stretches between them");
    }
    r.set("drift_level_shift_count", static_cast<int64_t>(c.drift_level_shift_runs.size()));
    r.set("drift_history_runs_left_out_count", static_cast<int64_t>(c.history_runs_left_out.size()));
    r.set("drift_cases_left_out_count", c.drift_cases_left_out);
    if (with_drift < tested && h.history <= 0)
      r.notes.push_back("the drift between runs is not estimated (--history 0 turns it off): the p-values count only the noise within a run, "
                        "which two back-to-back runs of one build can exceed");
    else if (with_drift < tested) {
      if (tested - with_drift - few_dof > 0)
        r.notes.push_back(std::to_string(tested - with_drift - few_dof) + " of " + std::to_string(tested) + " case(s) have fewer than " +
                          std::to_string(kMinHistoryRuns) + " earlier runs of this host with their parameters (--history " +
                          std::to_string(h.history) + "): the drift between runs is not estimated for them, and their p-values count "
                          "only the noise within a run, which two back-to-back runs of one build can exceed");
      if (few_dof > 0)
        r.notes.push_back(std::to_string(few_dof) + " of " + std::to_string(tested) + " case(s) have a drift between runs estimated from fewer than " +
                          format_double(kMinDriftDof) + " degrees of freedom (run_to_run_effective_dof_count; earlier runs of this host, pooled over " +
                          "the cases of a suite and metric, --history " + std::to_string(h.history) + "): too few to excuse a change " +
                          "(the t cut-off would pass several run-to-run deviations), so their within-run verdicts stand");
    }
  }
  if (c.unchecked_count > 0) {
    int64_t underpowered = 0, excluded = 0, untestable = 0, wrong = 0, exits = 0, floor = 0;
    double min_p = 1, max_excluded_p = 0;
    for (const auto& x : c.cases) {
      underpowered += x.verdict == "underpowered" && !x.family_excluded;
      excluded += x.verdict == "underpowered" && x.family_excluded;
      untestable += x.verdict == "untestable";
      wrong += x.verdict == "wrong_results";
      exits += x.verdict == "exit_status_differs";
      floor += x.verdict == "at_rss_floor";
      if (x.verdict == "underpowered" && !x.family_excluded) min_p = std::min(min_p, x.min_p_value);
      if (x.family_excluded) max_excluded_p = std::max(max_excluded_p, x.min_p_value);
    }
    std::string what;
    // The smallest p of a case is set by its repetition counts and by ties among its values (a
    // metric that is 0 in every repetition can never differ).
    if (underpowered)
      what += std::to_string(underpowered) + " underpowered (their repetitions, by count or by tied values, cannot give a p below " +
              format_double(std::round(min_p * 1000) / 1000) + ", not below alpha " + format_double(o.alpha) +
              "; without ties 4 repetitions a side reach 0.05)";
    if (excluded)
      what += (what.empty() ? "" : ", ") + std::to_string(excluded) + " left out of Holm's family (Tarone's rule: their smallest p, up to " +
              format_double(std::round(max_excluded_p * 10000) / 10000) + ", cannot reach alpha / K = " +
              format_double(std::round(c.family_alpha * 10000) / 10000) + "; they fail only when worse and their own p is below " +
              format_double(o.alpha) + "; more repetitions bring them back)";
    if (untestable) what += (what.empty() ? "" : ", ") + std::to_string(untestable) + " untestable (fewer than 2 repetitions on a side)";
    if (wrong) what += (what.empty() ? "" : ", ") + std::to_string(wrong) + " with wrong results (nccl-tests #wrong > 0)";
    if (exits)
      what += (what.empty() ? "" : ", ") + std::to_string(exits) + " whose command exited otherwise in one run than in the other (exit_statuses)";
    if (floor)
      what += (what.empty() ? "" : ", ") + std::to_string(floor) +
              " whose peak resident set is within 25% of Sextant's own at the spawn (max_rss_floor_bytes): the command's memory "
              "was not measured, and these never fail the gate";
    r.notes.push_back(std::to_string(c.unchecked_count) + " case(s) could not be checked: " + what + "; " +
                      std::to_string(c.unchecked_failure_count) + " of them worse by at least " + format_double(o.min_effect_fraction) +
                      " or wrong (unchecked_failure)" +
                      (c.unchecked_failure_count == 0 ? std::string()
                       : h.allow_unchecked          ? std::string(": accepted (--allow-unchecked)")
                                                    : std::string(": exit status 1, as for a regression (--allow-unchecked accepts it)")));
  }
  if (!c.same_host) r.notes.push_back("runs A and B come from different hosts (fingerprints differ)");
  r.set("missing_in_b_count", static_cast<int64_t>(c.only_in_a.size()));
  if (!c.only_in_a.empty()) {
    Table& m = r.add_table("missing_in_b", "cases of the baseline A that the candidate B does not have (a suite skipped or failed)");
    m.add_str("case");
    for (const auto& x : c.only_in_a) m.add_row({x});
    r.notes.push_back(std::to_string(c.only_in_a.size()) + " case(s) of A are missing from B (table missing_in_b)" +
                      (h.allow_missing ? "" : ": exit status 1, as for a regression (--allow-missing accepts it)"));
  }
  if (!c.only_in_b.empty()) r.notes.push_back(std::to_string(c.only_in_b.size()) + " case(s) only in B");
  *regressions = c.regression_count + (h.allow_unchecked ? 0 : c.unchecked_failure_count);
  *missing = !c.only_in_a.empty() && !h.allow_missing;
  // The gate's verdict, as the exit status gives it (the report's headline reads it).
  r.set("gate_failed", *regressions > 0 || *missing);
  return r;
}
}  // namespace

void add_history_command(CLI::App& app) {
  auto h = std::make_shared<HistoryArgs>();
  auto* cmd = app.add_subcommand("history", "Runs in the results database: list, show, compare (exit 1 on a regression)");
  cmd->require_subcommand(1);
  auto db_opt = [h](CLI::App* c) {
    c->add_option("--db", h->db, "Results database (default: $XDG_DATA_HOME/sextant/results.db or ~/.local/share/sextant/results.db)")->check(non_empty_path());
    add_output_options(*c, h->out);
  };
  auto* ls = cmd->add_subcommand("list", "List runs, newest first (by start time, then run id)");
  ls->add_option("--limit", h->limit, "At most N runs (default: all)")->check(positive_number());
  db_opt(ls);
  auto* sh = cmd->add_subcommand("show", "Show one run: medians, spreads, counters");
  sh->add_option("run", h->run, "Run id, latest or latest~N (latest: the run that started last; ~N: N runs before it, as history list orders them)")->required();
  sh->add_flag("--params", h->params, "Add a table of every case's parameters");
  db_opt(sh);
  auto* cp = cmd->add_subcommand("compare", "Compare run B against run A with a test over the repetitions");
  cp->add_option("a", h->a, "Baseline run (id, latest, latest~N)")->required();
  cp->add_option("b", h->b, "Candidate run")->required();
  cp->add_option("--alpha", h->alpha, "Significance level (default 0.05)");
  cp->add_option("--min-effect", h->min_effect, "Smallest relative change of the median that counts (default 0.05)");
  cp->add_option("--test", h->test, "mann-whitney (default) or welch");
  cp->add_option("--history", h->history,
                 "Runs of B's host started before A and B to read for the drift between runs (default 15; 0: none). With 3 or more "
                 "holding a case and 8 effective degrees of freedom in its deviation (successive differences of consecutive runs, "
                 "so a steady trend is no drift; pooled over the cases of its suite and metric, within the stretches between level "
                 "shifts; A is not among them; a `bench run` command needs 13 earlier runs), a change "
                 "within 3 x sqrt(2) standard deviations of that drift (that of a difference of two run medians; a Student t "
                 "cut-off) is within_run_noise")
      ->check(non_negative_number());
  cp->add_option("--correction", h->correction,
                 "Multiple-comparison adjustment of the p-values over the cases: none (default), holm (family-wise error) or "
                 "benjamini-hochberg (false discovery rate)");
  cp->add_option("--suite", h->suites, "Compare only this suite (repeatable)");
  cp->add_option("--metric", h->metrics, "Compare only this metric (repeatable), e.g. wall_s");
  cp->add_flag("--allow-missing", h->allow_missing, "Exit 0 even when cases of A are missing from B (default: exit 1)");
  cp->add_flag("--allow-unchecked", h->allow_unchecked,
               "Exit 0 even when a case the test cannot check (too few repetitions, nccl-tests wrong results) is worse by at least "
               "--min-effect (default: exit 1)");
  db_opt(cp);
  ls->callback([h] { emit(list(*h), h->out); });
  sh->callback([h] { emit(show(*h), h->out); });
  cp->callback([h] {
    int regressions = 0;
    bool missing = false;
    emit(compare(*h, &regressions, &missing), h->out);
    if (regressions > 0 || missing) throw CLI::RuntimeError(1);  // exit status 1 for CI pipelines
  });
}

}  // namespace sextant::cli
