// sextant bench [--quick] [--suite NAME...] | bench run -- CMD... | bench import-nccl FILE...
#include <optional>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "bench/db/results_db.hpp"
#include "bench/nccl_format.hpp"
#include "bench/process.hpp"
#include "bench/runner.hpp"
#include "bench/stats.hpp"
#include "cli/cli.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sextant::cli {

namespace {
using namespace sextant::bench;

struct BenchArgs {
  bool quick = false, list = false, no_db = false, no_counters = false, params = false, ignore_failure = false, interleave = false;
  std::vector<std::string> suites, gemm_dtypes, command, files;
  int reps = 0, warmup = -1, threads = 0, mpi_ranks = 2;
  double min_rep_s = 0;
  std::string storage_dir, mpirun, mpi_helper, db, label, collective, timer = "wall";
  int ranks = 0;
  OutputOptions out;
  std::vector<std::string> given;  // the suite options given on the command line (by name)
  // Values of the options `bench run` and `bench import-nccl` take only to refuse them by name
  // (by option; a map keeps each value's address while options are added).
  std::map<std::string, std::vector<std::string>> refused_values;
  bool refused_flag = false;
};

// The suites that read each suite option: one given without any of them did nothing, exit 0
// (before 2026-12-04; --gemm-dtype was already refused so).
const std::vector<std::pair<std::string, std::vector<std::string>>>& suite_options() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> k = {
      {"--timer", {"gemm_cpu", "memory_bandwidth", "memory_latency", "cache_bandwidth"}},
      {"--min-rep-s", {"gemm_cpu", "memory_bandwidth", "memory_latency", "cache_bandwidth", "gpu"}},
      {"--interleave", {"gemm_cpu", "cache_bandwidth"}},
      {"--threads", {"gemm_cpu", "memory_bandwidth"}},
      {"--storage-dir", {"storage"}},
      {"--mpi-ranks", {"comm_mpi"}},
      {"--mpirun", {"comm_mpi"}},
      {"--mpi-helper", {"comm_mpi"}},
  };
  return k;
}

std::string db_path(const BenchArgs& a) { return a.db.empty() ? default_db_path() : a.db; }

// The suites' configuration of a run with these options, quick or not: `bench --list` states the
// quick run's expected durations from it, and the run uses it.
SuiteConfig suite_config(const BenchArgs& a, bool quick) {
  SuiteConfig c;
  c.quick = quick;
  c.repetition_count = a.reps > 0 ? a.reps : 5;
  c.warmup_count = a.warmup >= 0 ? a.warmup : 1;
  c.threads = a.threads;
  c.min_rep_s = a.min_rep_s > 0 ? a.min_rep_s : (quick ? 0.01 : 0.05);
  c.timer = parse_timer(a.timer);
  c.storage_dir = a.storage_dir;
  c.mpi_ranks = a.mpi_ranks;
  c.mpirun = a.mpirun;
  c.mpi_helper = a.mpi_helper;
  c.counters = !a.no_counters;
  for (const auto& d : a.gemm_dtypes)  // a dtype given twice is one (it made two cases of one name)
    if (std::find(c.gemm_dtypes.begin(), c.gemm_dtypes.end(), d) == c.gemm_dtypes.end()) c.gemm_dtypes.push_back(d);
  c.interleave_repetitions = a.interleave;
  c.host = detect_host();
  return c;
}

// Stores the run; a database that cannot take it (locked past the busy timeout, a full disk) does
// not lose the measurements: the error is returned, the caller shows the result (table, --json,
// --csv) and then fails with it (before 2026-12-04 a locked database threw away a finished run
// before anything was printed).
std::optional<Error> store(BenchArgs& a, RunRecord& run, Result& res) {
  if (a.no_db) {
    res.notes.push_back("not stored (--no-db)");
    return std::nullopt;
  }
  try {
    ResultsDb db(db_path(a));
    run.id = db.insert_run(run);
    res.set("run_id", run.id);
    res.set("db", db.path());
  } catch (const DamagedDatabase& e) {
    // A damaged file is no lock to wait out (it had read "free the database and run again";
    // 2026-12-06 review): say what it is and what to do.
    res.notes.push_back("NOT STORED: " + std::string(e.what()) + " (the measurements are only in this output)");
    return Error(e.where(), "the run was measured but not stored: " + e.message(),
                 "its measurements are in the output above; " + e.hint());
  } catch (const LockedDatabase& e) {
    // Locked past the busy timeout: the one failure that freeing the database cures.
    res.notes.push_back("NOT STORED: " + std::string(e.what()) + " (the measurements are only in this output)");
    return Error(e.where(), "the run was measured but not stored: " + e.message(),
                 "its measurements are in the output above; free the database and run again to store one");
  } catch (const Error& e) {
    // Any other failure (a full disk, a trigger or constraint of an edited database) is no lock:
    // its own advice where it has one (2026-12-07 review: every failure to store read "free the
    // database and run again", a dropped table included).
    res.notes.push_back("NOT STORED: " + std::string(e.what()) + " (the measurements are only in this output)");
    return Error(e.where(), "the run was measured but not stored: " + e.message(),
                 "its measurements are in the output above; " +
                     (e.hint().empty() ? std::string("fix what the message names and run again to store one") : e.hint()));
  } catch (const std::exception& e) {
    // Any other failure to store takes the same path (a JSON dump's "invalid UTF-8 byte" had
    // ended the command as an internal error, exit 3, and the run was lost; 2026-12-05 review).
    res.notes.push_back("NOT STORED: " + std::string(e.what()) + " (the measurements are only in this output)");
    return Error(SourceLocation{db_path(a), 0, 0, "--db"}, "the run was measured but not stored: " + std::string(e.what()),
                 "its measurements are in the output above; run again to store one");
  }
  return std::nullopt;
}

// Shows the result, then fails if the store did.
// With -q and no file output nothing would be shown: then the table is printed anyway (a refused
// database had lost the run while the error pointed to "the output above", 2026-12-05 review).
void store_and_emit(BenchArgs& a, RunRecord& run, Result& res) {
  const auto failed = store(a, run, res);
  OutputOptions out = a.out;
  if (failed && out.quiet && out.json.empty() && out.csv_dir.empty() && out.report.empty()) out.quiet = false;
  emit(res, out);
  if (failed) throw *failed;
}

void run_bench(BenchArgs& a) {
  const SuiteRegistry reg = make_suite_registry();
  if (a.list) {
    Result r;
    r.command = "bench --list";
    Table& t = r.add_table("suites");
    t.add_str("suite");
    t.add_str("description");
    t.add_f64("expected_quick_s");
    // The configuration `bench --quick` with these options runs (the list had used the library's
    // default min_rep_s, 0.02 s, against --quick's 0.01: gemm_cpu listed 5.78 s and its quick
    // run said about 4; 2026-12-05 review).
    const SuiteConfig c = suite_config(a, true);
    for (const Suite* s : reg.all()) t.add_row({s->name(), s->description(), s->expected_duration_s(c)});
    emit(r, a.out);
    return;
  }
  SuiteConfig c = suite_config(a, a.quick);
  auto suites = select_suites(reg, a.suites);
  for (const auto& [option, readers] : suite_options()) {
    if (std::find(a.given.begin(), a.given.end(), option) == a.given.end()) continue;
    if (std::none_of(suites.begin(), suites.end(), [&](const Suite* s) {
          return std::find(readers.begin(), readers.end(), s->name()) != readers.end();
        })) {
      std::string names;
      for (const auto& r : readers) names += (names.empty() ? "" : ", ") + r;
      throw Error(SourceLocation{"", 0, 0, option}, "no selected suite reads it (read by " + names + ")",
                  "add one of those suites, or leave " + option + " out");
    }
  }
  // The cpu timer sums every thread's CPU time: gemm_cpu refused it mid-run, after the suites
  // before it had run (2026-12-04 review).
  if (c.timer == Timer::ProcessCpu && c.effective_threads() != 1 &&
      std::any_of(suites.begin(), suites.end(), [](const Suite* s) { return s->name() == "gemm_cpu"; }))
    throw Error(SourceLocation{"", 0, 0, "--timer"}, "the cpu timer sums the CPU time of all threads, and gemm_cpu runs " +
                                                         std::to_string(c.effective_threads()),
                "use --threads 1 with --timer cpu, or the wall timer");
  // comm_mpi starts mpirun itself, which Open MPI refuses inside an mpirun job ("does not support
  // recursive calls"), and a PMIx step (srun --mpi=pmix) is no place for it either: named, it is
  // an error (below); in the default set it is left out with a note.
  const bool in_mpi_job = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK");
  const bool comm_named = std::find(a.suites.begin(), a.suites.end(), "comm_mpi") != a.suites.end();
  std::vector<std::string> left_out_notes;
  if (in_mpi_job && !comm_named) {
    const auto before = suites.size();
    suites.erase(std::remove_if(suites.begin(), suites.end(), [](const Suite* s) { return s->name() == "comm_mpi"; }), suites.end());
    if (suites.size() != before)
      left_out_notes.push_back("comm_mpi left out: this process runs inside an MPI job (it launches mpirun itself; run "
                               "`sextant bench --suite comm_mpi` outside one)");
  }
  // Options of the suites that run last are checked before the first runs (a bad --storage-dir
  // or --mpi-ranks threw away every suite measured before them).
  // --gemm-dtype is gemm_cpu's: checked before any suite runs (an fp16 after fp64 failed once
  // fp64 was measured, and nothing was stored), and refused without that suite (it was ignored).
  if (!c.gemm_dtypes.empty()) {
    if (std::none_of(suites.begin(), suites.end(), [](const Suite* s) { return s->name() == "gemm_cpu"; }))
      throw Error(SourceLocation{"", 0, 0, "--gemm-dtype"}, "only the gemm_cpu suite reads it, and it is not selected",
                  "add --suite gemm_cpu, or leave --gemm-dtype out (the GPU suite measures its backend's dtypes)");
    for (const auto& d : c.gemm_dtypes)
      if (d != "fp32" && d != "fp64" && d != "bf16")
        throw Error(SourceLocation{"", 0, 0, "--gemm-dtype"}, "unsupported CPU GEMM dtype '" + d + "'",
                    valid_choices_hint(d, {"fp32", "fp64", "bf16"}));
  }
  for (const Suite* s : suites) {
    if (s->name() == "storage" && !a.storage_dir.empty()) {
      std::error_code ec;
      if (!std::filesystem::is_directory(a.storage_dir, ec))
        throw Error(SourceLocation{a.storage_dir, 0, 0, "--storage-dir"}, "not a directory", "an existing folder on the storage to measure");
      // A folder the suite cannot write into (/proc, a read-only mount) fails here, not after the
      // other suites ran, and at its own option (it had been reported at --suite).
      const auto probe = std::filesystem::path(a.storage_dir) / (".sextant-bench-probe-" + std::to_string(::getpid()));
      if (!std::filesystem::create_directory(probe, ec) || ec)
        throw Error(SourceLocation{a.storage_dir, 0, 0, "--storage-dir"}, "cannot create a folder in it" + (ec ? ": " + ec.message() : std::string()),
                    "a writable folder on the storage to measure");
      std::filesystem::remove(probe, ec);
    }
    if (s->name() == "comm_mpi") {
      if (a.mpi_ranks < 2)
        throw Error(SourceLocation{"", 0, 0, "--mpi-ranks"}, "the communication suite needs at least 2 ranks, got " + std::to_string(a.mpi_ranks));
      // Named inside an MPI job (it failed after the other suites had run).
      if (in_mpi_job)
        throw Error(SourceLocation{"", 0, 0, "comm_mpi"}, "the communication suite launches mpirun itself and cannot run under mpirun",
                    "run `sextant bench --suite comm_mpi --mpi-ranks N` outside mpirun");
      // An mpirun or helper given by name must exist (a missing --mpirun was a skip with the note
      // "not found in PATH ... or pass --mpirun", exit 0; a bad --mpi-helper failed mid-run).
      if (!a.mpirun.empty() && find_in_path(a.mpirun).empty())
        throw Error(SourceLocation{a.mpirun, 0, 0, "--mpirun"}, "no such executable", "a path to mpirun, or a name found in PATH");
      if (!a.mpi_helper.empty() && access(a.mpi_helper.c_str(), X_OK) != 0)
        throw Error(SourceLocation{a.mpi_helper, 0, 0, "--mpi-helper"}, "not an executable file",
                    "the path to sextant-mpi-bench (built beside sextant)");
    }
  }
  // Open (and migrate) the database before a long run, so a bad --db fails fast; a damaged file
  // too (it was found only at the store, after the measurement; 2026-12-06 review).
  if (!a.no_db) ResultsDb(db_path(a)).require_intact();
  const double expected = expected_duration_s(suites, c);
  const bool chatty = !a.out.quiet && !a.out.json_to_stdout();
  if (chatty) std::fprintf(stderr, "sextant bench: %zu suite(s), expected duration about %.0f s\n", suites.size(), expected);
  int index = 0;
  std::string current;
  c.progress = [&](const std::string& suite, const std::string& what, double frac) {
    if (!chatty) return;
    if (suite != current) {
      current = suite;
      ++index;
    }
    std::fprintf(stderr, "  [%d/%zu %s %3.0f%%] %s\n", index, suites.size(), suite.c_str(), frac * 100, what.c_str());
  };
  RunRecord run = run_suites(suites, c);
  run.notes.insert(run.notes.begin(), left_out_notes.begin(), left_out_notes.end());
  if (run.measurements.empty()) {
    // Every requested suite was skipped (no BLAS, no bf16 GEMM, no GPU): an empty run stored as a
    // success would later compare as "nothing in common" or calibrate nothing.
    std::string why;
    for (const auto& n : run.notes) why += (why.empty() ? "" : "; ") + n;
    throw Error(SourceLocation{"", 0, 0, "--suite"}, "nothing was measured" + (why.empty() ? std::string() : ": " + why),
                "choose suites this host can run (sextant bench --list)");
  }
  if (!a.label.empty()) run.label = a.label;
  run.config["expected_duration_s"] = expected;
  {
    // A note of the run, stored with it (it was the printed result's only, and `history show`
    // lacked it; 2026-12-06 review).
    SuiteConfig all = c;
    all.threads = 0;
    if (c.threads > all.effective_threads())
      run.notes.push_back("--threads " + std::to_string(c.threads) + " is above the " + std::to_string(all.effective_threads()) +
                          " CPU(s) this process may use: threads share cores, and the rates are not the host's");
  }
  replace_invalid_utf8(run);  // shown as stored (a --storage-dir or --label that is not UTF-8)
  Result res = run_result(run, "bench", a.params);  // expected_duration_s from run.config
  store_and_emit(a, run, res);
  // Stored and shown first: a failed suite is an error (exit 2), not the loss of the others.
  if (run.config.contains("failed_suites")) {
    std::string what, first;
    for (const auto& [name, msg] : run.config["failed_suites"].items()) {
      if (first.empty()) first = name;
      what += (what.empty() ? "" : "; ") + name + ": " + msg.get<std::string>();
    }
    throw Error(SourceLocation{"", 0, 0, first}, "suite(s) failed: " + what,
                a.no_db ? std::string("the other suites' measurements are in the output above")
                        : "the other suites' measurements are stored (run " + std::to_string(run.id) + ")");
  }
}

void run_command(BenchArgs& a) {
  if (a.command.empty()) throw Error(SourceLocation{"", 0, 0, "COMMAND"}, "no command given", "sextant bench run -- CMD ARGS...");
  // The database is opened (and migrated) first, as for the suites: a bad --db had failed only
  // after every repetition had run (2026-12-04 review); a damaged one too (2026-12-06 review).
  if (!a.no_db) ResultsDb(db_path(a)).require_intact();
  const int reps = a.reps > 0 ? a.reps : 10;
  const int warmup = a.warmup >= 0 ? a.warmup : 1;
  // The case's name: the command line as a shell reads it back (joined with spaces, two argv
  // could share a name and their histories mixed; 2026-12-05 review). A command of plain words
  // keeps the name it had before.
  const std::string cmdline = shell_command_line(a.command);
  RunRecord run;
  run.kind = "command";
  run.host = detect_host();
  run.label = a.label.empty() ? cmdline : a.label;
  run.started_at = utc_now_iso();
  run.config = {{"command", a.command}, {"repetition_count", reps}, {"warmup_count", warmup}};
  Measurement wall, user, sys, rss;
  for (auto* m : {&wall, &user, &sys, &rss}) {
    m->suite = "command";
    m->warmup_count = warmup;
    m->higher_is_better = false;
    m->params = {{"command", cmdline}, {"repetition_count", std::to_string(reps)}};
  }
  // The case is the command: a --label names the run, so two labelled runs of one command compare.
  wall.name = user.name = sys.name = rss.name = cmdline;
  wall.metric = "wall_s";
  user.metric = "user_s";
  sys.metric = "sys_s";
  rss.metric = "max_rss_bytes";
  int64_t failures = 0, rss_floor = 0;
  std::vector<int64_t> exit_codes;
  for (int i = 0; i < warmup + reps; ++i) {
    const ProcessResult p = run_process(a.command, false, true);
    const bool failed = p.exit_code != 0;
    if (failed && !a.ignore_failure)
      throw Error(SourceLocation{"", 0, 0, "COMMAND"},
                  fmt::format("'{}' {} (run {})", cmdline, p.signal ? fmt::format("was killed by signal {}", p.signal) : fmt::format("exited with status {}", p.exit_code), i + 1),
                  "use --ignore-failure to benchmark it anyway");
    if (i < warmup) continue;
    failures += failed;
    exit_codes.push_back(p.signal ? -p.signal : p.exit_code);
    wall.samples.push_back(p.wall_s);
    user.samples.push_back(p.user_s);
    sys.samples.push_back(p.sys_s);
    rss.samples.push_back(static_cast<double>(p.max_rss_bytes));
    rss_floor = std::max(rss_floor, p.max_rss_floor_bytes);
  }
  if (rss_floor > 0) rss.set_param("max_rss_floor_bytes", std::to_string(rss_floor));
  std::string codes;
  for (auto c : exit_codes) codes += (codes.empty() ? "" : ",") + std::to_string(c);
  for (auto* m : {&wall, &user, &sys, &rss}) m->set_param("exit_statuses", codes);
  run.measurements = {wall, user, sys, rss};
  run.finished_at = utc_now_iso();
  // The caveats are notes of the run, stored with it, and the scalars (wall_*, failed_run_count)
  // come from its measurements in run_result: `history show` prints what this printed (before
  // 2026-12-06 both were the printed result's only; review).
  if (rss_floor > 0 && rss.summary().median <= 1.25 * static_cast<double>(rss_floor))
    run.notes.push_back(fmt::format("max_rss is within 25% of Sextant's own peak resident set ({:.1f} MB), which Linux carries into a "
                                    "spawned command's ru_maxrss: the command's own peak is at most that, not measured",
                                    static_cast<double>(rss_floor) / 1e6));
  // Said beside the figures (a run whose every repetition crashed had exited 0 with no word,
  // 2026-12-04 review): with --ignore-failure the times are those of failing runs.
  if (failures > 0) {
    // Each status once, compared as values (a substring search had taken 1 for part of 11 and
    // listed 11,1,1,1 as "11"; 2026-12-05 review).
    std::vector<int64_t> failed_codes;
    for (auto c : exit_codes)
      if (c != 0 && std::find(failed_codes.begin(), failed_codes.end(), c) == failed_codes.end()) failed_codes.push_back(c);
    std::string sigs;
    for (auto c : failed_codes) sigs += (sigs.empty() ? "" : ", ") + std::to_string(c);
    run.notes.push_back(fmt::format("{} of {} measured run(s) failed (exit statuses {}; negative: killed by that signal): the times are "
                                    "those of failing runs{}",
                                    failures, reps, sigs, failures == reps ? ", every one of them" : ""));
  }
  replace_invalid_utf8(run);  // shown as stored (a --label, or an argument in config, that is not UTF-8)
  Result res = run_result(run, "bench run", a.params);
  store_and_emit(a, run, res);
}

void import_nccl(BenchArgs& a) {
  if (!a.no_db) ResultsDb(db_path(a)).require_intact();  // a bad or damaged --db fails before the logs are read
  RunRecord run;
  run.kind = "import";
  // The host is the log's, not this machine's: a log of node01's GPUs filed under the importing
  // host had compared as the same host and taken this machine's history for its drift (2026-12-06
  // review). Its hosts and GPUs are the log's "#  Rank" lines'; what the log does not say is
  // unknown.
  run.host.hostname = "unknown (imported log)";
  run.host.sextant_version = sextant_version();
  std::vector<std::string> log_hosts, log_gpus;
  run.started_at = utc_now_iso();
  std::string label;
  if (!a.collective.empty()) {
    const auto& names = nccl_collective_names();
    if (std::find(names.begin(), names.end(), a.collective) == names.end())
      throw Error(SourceLocation{"", 0, 0, "--collective"}, "unknown collective '" + a.collective + "'",
                  valid_choices_hint(a.collective, names));
  }
  for (const auto& f : a.files) {
    const std::string text = read_file(f);
    // The file's own name, not its folder's: all_reduce_sweeps/all_gather_perf.log is all_gather.
    std::string coll = a.collective.empty() ? nccl_collective_from_name(std::filesystem::path(f).filename().string()) : a.collective;
    NcclLog log = parse_nccl_log(text, f, coll);
    for (const auto* pair : {&log.hosts, &log.gpus})
      for (const auto& x : *pair) {
        auto& into = pair == &log.hosts ? log_hosts : log_gpus;
        if (std::find(into.begin(), into.end(), x) == into.end()) into.push_back(x);
      }
    if (log.rows.empty())
      throw Error(SourceLocation{f}, "no nccl-tests result rows found", "expected the '#  size  count  type ...' header and rows");
    // --ranks is for logs that list no ranks: where the log lists them, a different count would
    // scale its bus bandwidth by another factor than nccl-tests used (8 against a 2-rank log read
    // 1.75x, silently, before 2026-12-03).
    if (a.ranks > 0 && log.ranks > 0 && a.ranks != log.ranks)
      throw Error(SourceLocation{f, 0, 0, "--ranks"},
                  "--ranks " + std::to_string(a.ranks) + " but the log lists " + std::to_string(log.ranks) + " ranks ('#  Rank N' lines)",
                  "leave out --ranks: it is for logs that list none");
    if (a.ranks > 0) log.ranks = a.ranks;
    if (log.ranks == 0)
      throw Error(SourceLocation{f, 0, 0, "--ranks"}, "the log lists no '#  Rank N' lines, so the bus factor is unknown",
                  "pass --ranks N, the number of ranks the test ran on");
    auto ms = nccl_measurements(log, "nccl_tests", "nccl-tests");
    // nccl-tests checks every result (-c 1, the default): a row with #wrong > 0 measured a broken
    // collective. It is stored, and compares as wrong_results.
    std::string wrong_rows;
    for (const auto& r : log.rows)
      for (const std::string* w : {&r.oop_wrong, &r.ip_wrong}) {
        char* end = nullptr;
        const long long v = std::strtoll(w->c_str(), &end, 10);
        if (end != w->c_str() && *end == '\0' && v > 0) {
          wrong_rows += (wrong_rows.empty() ? "" : ", ") + r.collective + " size=" + std::to_string(r.size_bytes) + " (" + *w + " wrong)";
          break;
        }
      }
    if (!wrong_rows.empty())
      run.notes.push_back(f + ": nccl-tests counted wrong results in " + wrong_rows +
                          ": these rows time a collective that returned wrong data; `history compare` reports them as wrong_results");
    for (auto& m : ms) {
      // Two files of one case (a log per node) cannot share a run: said here, naming both files
      // (the store had failed after the run, blaming the database; 2026-12-04 review).
      for (const auto& prev : run.measurements)
        if (prev.name == m.name && prev.suite == m.suite)
          throw Error(SourceLocation{f, 0, 0, ""}, "case '" + m.name + "' is also in " + prev.param("file") + ": one run holds one measurement per case",
                      "import each file into its own run, one bench import-nccl per file");
      m.set_param("file", f);
      if (!log.version.empty()) m.set_param("nccl_tests_version", log.version);
      run.measurements.push_back(std::move(m));
    }
    for (const auto& d : log.diagnostics) run.notes.push_back(f + ": " + d);
    run.notes.push_back(f + " (nccl-tests layout):\n" + render_nccl_rows(log.rows));
    label += (label.empty() ? "" : ",") + f;
  }
  auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
    return out;
  };
  if (!log_hosts.empty()) run.host.hostname = joined(log_hosts);
  run.host.gpu = joined(log_gpus);
  if (log_hosts.empty())
    run.notes.push_back("the log names no host ('#  Rank N ... on HOST' lines): the run is filed under host '" + run.host.hostname +
                        "', not this machine, and compares with other runs of it only");
  run.label = a.label.empty() ? "nccl-tests: " + label : a.label;
  run.finished_at = utc_now_iso();
  run.config = {{"files", a.files}};
  replace_invalid_utf8(run);  // shown as stored (a log's GPU name in Latin-1)
  Result res = run_result(run, "bench import-nccl", a.params);
  store_and_emit(a, run, res);
}

void add_db_option(CLI::App* c, BenchArgs& a) {
  auto* db = c->add_option("--db", a.db, "Results database (default: $XDG_DATA_HOME/sextant/results.db or ~/.local/share/sextant/results.db)")
                 ->check(non_empty_path());
  // --no-db with --db is a contradiction: --db had been dropped without a word.
  c->add_flag("--no-db", a.no_db, "Do not store the run")->excludes(db);
  // A label that reads as an option ("--label --suite memory_latency" had stored a run labelled
  // "--suite" and measured every suite) is refused.
  c->add_option("--label", a.label, "Label stored with the run")->check(CLI::Validator(
      [](std::string& v) { return v.rfind("--", 0) == 0 ? "a label may not start with '--' (it reads as an option): got '" + v + "'" : std::string(); },
      "", "label"));
  c->add_flag("--params", a.params, "Add a table of every case's parameters");
}
}  // namespace

void add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Benchmark this host (GEMM, memory, storage, MPI, GPU) and store the results");
  cmd->require_subcommand(0, 1);
  cmd->add_flag("--quick", a->quick, "Reduced suite (under a minute)");
  cmd->add_option("--suite", a->suites, "Suite to run (repeatable; default all): gemm_cpu, memory_bandwidth, memory_latency, cache_bandwidth, storage, comm_mpi, gpu");
  cmd->add_flag("--list", a->list, "List the suites and stop");
  cmd->add_option("--reps", a->reps, "Timed repetitions per case (default 5)")->check(positive_number());
  cmd->add_option("--warmup", a->warmup, "Untimed warm-up repetitions per case (default 1)")->check(non_negative_number());
  cmd->add_option("--min-rep-s", a->min_rep_s, "Minimum duration of one repetition (inner loops; default 0.05, quick 0.01)")
      ->check(positive_number());
  cmd->add_option("--threads", a->threads,
                  "Threads for GEMM and multi-threaded memory cases (0, the default: the CPUs this process may use: affinity, "
                  "cgroup quota; as --threads 0 of the other commands)")
      ->check(non_negative_number());
  cmd->add_option("--timer", a->timer, "wall (default) or cpu: process CPU time, for single-threaded cases on a busy machine");
  cmd->add_option("--gemm-dtype", a->gemm_dtypes, "CPU GEMM dtype (repeatable): fp32, fp64, bf16");
  cmd->add_flag("--interleave", a->interleave,
                "gemm_cpu, cache_bandwidth: time repetition r of every shape / working set before repetition r+1 (robust to slow periods of a shared machine; no per-case counters)");
  cmd->add_option("--storage-dir", a->storage_dir, "Directory the storage suite writes into (default: the temp directory)");
  cmd->add_option("--mpi-ranks", a->mpi_ranks, "Processes for the MPI suite (default 2)");
  cmd->add_option("--mpirun", a->mpirun, "mpirun to use (default: from PATH)");
  cmd->add_option("--mpi-helper", a->mpi_helper, "sextant-mpi-bench to launch (default: beside sextant)");
  cmd->add_flag("--no-counters", a->no_counters, "Do not read perf counters and RAPL energy");
  add_db_option(cmd, *a);
  add_output_options(*cmd, a->out);

  auto* run = cmd->add_subcommand("run", "Benchmark a command like hyperfine: sextant bench run [--reps N] -- CMD ARGS...");
  run->add_option("--reps", a->reps, "Timed runs (default 10)")->check(positive_number());
  run->add_option("--warmup", a->warmup, "Untimed runs first (default 1)")->check(non_negative_number());
  run->add_flag("--ignore-failure", a->ignore_failure, "Keep going when the command exits non-zero");
  add_db_option(run, *a);
  add_output_options(*run, a->out);
  run->add_option("command", a->command, "The command and its arguments (after --)")->required();

  auto* imp = cmd->add_subcommand("import-nccl", "Import nccl-tests output files into the results database");
  imp->add_option("files", a->files, "nccl-tests output files")->required()->check(CLI::ExistingFile);
  imp->add_option("--collective", a->collective, "Collective of rows before any 'Collective test starting' line");
  imp->add_option("--ranks", a->ranks, "Number of ranks (when the log lists none)")->check(positive_number());
  add_db_option(imp, *a);
  add_output_options(*imp, a->out);

  // The suites' options are not read by `bench run` or `bench import-nccl` (they were ignored,
  // exit 0, before 2026-12-04). Checked before the subcommand runs its command. Given after the
  // subcommand's word they are taken by the subcommand itself, hidden from its --help, only to be
  // refused by name: CLI11 had handed them to `bench`, and the command after -- read as not
  // expected ("The following argument was not expected: true" for `bench run --threads 4 --
  // true`; review of 2026-12-07).
  static const std::vector<const char*> kSuiteOptions = {"--quick",       "--suite",      "--list",      "--min-rep-s",  "--threads",
                                                         "--timer",       "--gemm-dtype", "--interleave", "--storage-dir", "--mpi-ranks",
                                                         "--mpirun",      "--mpi-helper", "--no-counters"};
  // An option taken to be refused reads the words its owner reads: as many values, as often.
  // Taken as single-valued, `bench run --gemm-dtype fp32 bf16 -- true` had left "bf16" to the
  // command ("The following argument was not expected: true"), `--suite a --suite b` had failed
  // ": At Most 1 required but received 2", and `bench import-nccl --gemm-dtype fp32 bf16 LOG`
  // read "bf16" as a log (review of 2026-12-07). The arity is the owner's own option's (no second
  // list to drift); any number of repeats is taken, all to be refused by name.
  auto take_to_refuse = [a](CLI::App* sub, const CLI::App* owner, const char* name) {
    const CLI::Option* own = owner->get_option(name);  // throws where the owner has no such option
    if (own->get_type_size_max() == 0) {
      sub->add_flag(name, a->refused_flag)->group("")->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      return;
    }
    sub->add_option(name, a->refused_values[name])
        ->group("")
        ->type_size(own->get_type_size_min(), own->get_type_size_max())
        ->expected(own->get_expected_min(), own->get_expected_max())
        ->allow_extra_args(own->get_allow_extra_args())
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };
  for (const char* name : kSuiteOptions) {
    take_to_refuse(run, cmd, name);
    take_to_refuse(imp, cmd, name);
  }
  for (const char* o : {"--reps", "--warmup"}) take_to_refuse(imp, cmd, o);
  take_to_refuse(imp, run, "--ignore-failure");
  // The options a subcommand reads, for the refusal: "--reps, --warmup, ..., -q/--quiet".
  auto options_of = [](CLI::App* sub) {
    std::string list;
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_group().empty() || o->get_lnames().empty() || o->get_lnames().front() == "help" || o->get_positional()) continue;
      std::string n;
      for (const auto& s : o->get_snames()) n += "-" + s + "/";
      n += "--" + o->get_lnames().front();
      list += (list.empty() ? "" : ", ") + n;
    }
    return list;
  };
  auto refuse_suite_options = [cmd, run, imp, options_of](const std::string& sub) {
    CLI::App* own = sub == "run" ? run : imp;
    for (const char* o : kSuiteOptions) {
      if (cmd->count(o) > 0 || own->count(o) > 0)
        throw Error(SourceLocation{"", 0, 0, o},
                    "is an option of the suites `sextant bench` runs, not of `bench " + sub + "` (its options: " + options_of(own) + ")",
                    "leave it out");
    }
    if (sub == "import-nccl" && own->count("--ignore-failure") > 0)
      throw Error(SourceLocation{"", 0, 0, "--ignore-failure"},
                  "is an option of `bench run`, not of `bench import-nccl` (its options: " + options_of(own) + ")", "leave it out");
  };
  run->callback([a, refuse_suite_options] {
    refuse_suite_options("run");
    run_command(*a);
  });
  imp->callback([a, refuse_suite_options, cmd, imp] {
    refuse_suite_options("import-nccl");
    // An import measures nothing: repetitions and warm-ups are the log's own (they were ignored,
    // exit 0, before 2026-12-04).
    for (const char* o : {"--reps", "--warmup"})
      if (cmd->count(o) > 0 || imp->count(o) > 0)
        throw Error(SourceLocation{"", 0, 0, o}, "`bench import-nccl` reads measurements from nccl-tests logs: it runs nothing to repeat",
                    "leave it out (nccl-tests' own -n and -w set its iterations)");
    import_nccl(*a);
  });
  cmd->callback([a, cmd] {
    if (!cmd->get_subcommands().empty()) return;
    for (const auto& [option, readers] : suite_options())
      if (cmd->count(option) > 0) a->given.push_back(option);
    run_bench(*a);
  });
}

}  // namespace sextant::cli
