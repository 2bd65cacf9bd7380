#pragma once
// The results database: every benchmark run with its host fingerprint and every measurement
// with all repetitions. SQLite in WAL mode; the schema is versioned (PRAGMA user_version) and
// migrated forward in one immediate transaction on open, so two processes opening an old
// database at once migrate it once.
//
// Consistency: a run and all its measurements are written in one transaction (BEGIN IMMEDIATE
// ... COMMIT); a writer killed before COMMIT leaves no trace of its run, and concurrent writers
// wait for each other (busy timeout) instead of failing. A ResultsDb object belongs to one
// thread; open one per thread.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/host.hpp"
#include "bench/measurement.hpp"

#include "core/error.hpp"

struct sqlite3;

namespace sextant::bench {

// A results database whose file is damaged (SQLite's "database disk image is malformed": a disk
// fault, a copy taken mid-write, bytes overwritten). Thrown wherever it is found, naming the file,
// the damage and what to do; `bench` looks for it (PRAGMA quick_check) before it measures. Before
// 2026-12-06 a damaged file was found only when the run was stored, after the measurement, with
// the advice for a locked one ("free the database and run again"; review).
class DamagedDatabase : public Error {
 public:
  using Error::Error;
};

// A results database that another connection holds locked past the busy timeout (SQLite BUSY or
// LOCKED): the one failure to store that freeing the database and running again cures. `bench`
// gives that advice for it alone (2026-12-07 review: it gave it for every failure to store, a
// missing table included).
class LockedDatabase : public Error {
 public:
  using Error::Error;
};

struct RunRecord {
  int64_t id = 0;
  std::string kind;   // suite | command | import
  std::string label;  // free text (suites run, command line, imported file)
  std::string started_at, finished_at;  // ISO 8601 UTC
  HostInfo host;
  nlohmann::json config = nlohmann::json::object();  // options the run was made with
  std::vector<Measurement> measurements;
  std::vector<std::string> notes;
};

struct RunSummary {
  int64_t id = 0;
  std::string kind, label, started_at, finished_at, host_fingerprint, hostname, cpu_model, sextant_version;
  int64_t measurement_count = 0;
  // "" when started_at is a start time as sextant writes it; else why it is not (the run was
  // edited or damaged). Such a run is listed, after the others, instead of failing the whole list
  // (2026-12-07 review).
  std::string start_fault;
};

// Replaces the bytes of the run's text that are not UTF-8 (a --label, a folder's name, a GPU name
// in Latin-1 in an imported log) with U+FFFD, as the JSON columns write them, so that its text
// columns, JSON columns and host fingerprint agree. insert_run stores a run so; the commands
// apply it before showing a run, so what they show is what is stored (before 2026-12-05 such a
// byte threw in json::dump after the run was measured, and the run was lost).
void replace_invalid_utf8(RunRecord& run);

// Default location: $XDG_DATA_HOME/sextant/results.db, else ~/.local/share/sextant/results.db.
std::string default_db_path();

// Current UTC time as ISO 8601 with milliseconds.
std::string utc_now_iso();

class ResultsDb {
 public:
  static int latest_schema_version();
  // Opens (creating the file and folders when missing) and migrates to target_version
  // (default: latest). Throws Error naming the path on failure, or when the database was made
  // by a newer Sextant.
  explicit ResultsDb(const std::string& path, int target_version = 0, double busy_timeout_s = 60);
  // target_version kAsItIs: open without switching to WAL or migrating (reading only).
  static constexpr int kAsItIs = -1;
  // For the commands that only read (history, calibrate --db): the file must exist and be a
  // Sextant results database (a missing path is a typo, an empty or foreign SQLite file is not
  // turned into one). It is read as it is: not migrated, its journal mode kept, so that an older
  // Sextant sharing it can still use it (before 2026-12-02 reading migrated it). A database of a
  // newer Sextant is an error.
  static ResultsDb open_existing(const std::string& path);
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb(ResultsDb&& o) noexcept : path_(std::move(o.path_)), db_(o.db_) { o.db_ = nullptr; }
  ResultsDb& operator=(const ResultsDb&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const;
  std::string journal_mode() const;

  // Writes the run atomically and returns its id. after_measurement(i) is called inside the
  // transaction after measurement i was written (progress; the tests kill a writer there).
  int64_t insert_run(const RunRecord& r, const std::function<void(size_t)>& after_measurement = {});

  // Newest first by start time (started_at), then by run id; 0 = all. Run ids number the runs in
  // the order they were stored (a run is stored when it finishes), so runs that overlapped can
  // start in another order (by id alone before 2026-12-06; review). Runs whose started_at is not a
  // start time as sextant writes it come last, newest id first, with start_fault set (2026-12-07
  // review: one such run made the whole list an error).
  std::vector<RunSummary> list_runs(int64_t limit = 0) const;
  // The ids of the runs whose started_at is not a start time as sextant writes it, newest id
  // first: latest and latest~N pass over them (the commands name them in a note).
  std::vector<int64_t> runs_with_damaged_start() const;
  RunRecord load_run(int64_t id) const;                        // throws Error when absent
  // "latest" (the run that started last; of runs started in the same millisecond, the higher id),
  // "latest~N" (N runs before it, in list_runs' order), or a run id. latest~N counts only the runs
  // with a valid start time (see runs_with_damaged_start).
  int64_t resolve_run(const std::string& ref) const;
  int64_t run_count() const;
  std::string integrity_check() const;  // "ok" when consistent
  // PRAGMA quick_check (every page and record read, indexes not cross-checked: linear in the
  // file's size); "ok", or SQLite's first findings joined with "; ".
  std::string quick_check() const;
  // Throws DamagedDatabase naming the file and the damage when quick_check finds any.
  void require_intact() const;

 private:
  void exec(const std::string& sql) const;
  void migrate(int target);
  // Throws DamagedDatabase naming the file when a table or column that the schema at the file's
  // version has is missing (a dropped table: 2026-12-07 review), before anything is read or written.
  void require_schema() const;
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace sextant::bench
