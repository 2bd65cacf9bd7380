#include "bench/db/results_db.hpp"

#include <set>
#include <tuple>
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cctype>
#include <cmath>
#include <ctime>
#include <string_view>
#include <filesystem>

#include <fmt/format.h>
#include <unistd.h>

#include "core/error.hpp"

namespace sextant::bench {
namespace fs = std::filesystem;

namespace {
// Migrations: entry i brings the schema from version i to i+1. Never edit a released entry;
// append a new one, and add the tables and columns it creates to schema_columns() below.
const std::vector<std::string>& migrations() {
  static const std::vector<std::string> m = {
      // 0 -> 1: hosts, runs, measurements, samples.
      R"sql(
CREATE TABLE hosts(
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  hostname TEXT, cpu_model TEXT, logical_cpus INTEGER, memory_bytes INTEGER,
  kernel TEXT, gpu TEXT, gpu_driver TEXT,
  info_json TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  host_id INTEGER NOT NULL REFERENCES hosts(id),
  kind TEXT NOT NULL, label TEXT,
  started_at TEXT NOT NULL, finished_at TEXT,
  sextant_version TEXT, config_json TEXT NOT NULL, notes_json TEXT NOT NULL);
CREATE TABLE measurements(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  suite TEXT NOT NULL, name TEXT NOT NULL, metric TEXT NOT NULL,
  higher_is_better INTEGER NOT NULL, params_json TEXT NOT NULL,
  warmup_count INTEGER NOT NULL, median REAL,
  UNIQUE(run_id, suite, name, metric));
CREATE TABLE samples(
  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
  rep INTEGER NOT NULL, value REAL NOT NULL,
  PRIMARY KEY(measurement_id, rep));
)sql",
      // 1 -> 2: hardware counters and energy per measurement (availability kept: an unreadable
      // counter is stored as unavailable with its reason, never as 0); index for history lists.
      R"sql(
CREATE TABLE counters(
  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
  name TEXT NOT NULL, available INTEGER NOT NULL, value REAL, reason TEXT,
  PRIMARY KEY(measurement_id, name));
CREATE INDEX runs_by_start ON runs(started_at);
CREATE INDEX measurements_by_case ON measurements(suite, name, metric);
)sql",
      // 2 -> 3: the host as it was at each run (version, clock, cache, flags): a host row keeps
      // the first run's description for its fingerprint, so after an upgrade `history show`
      // reported the first run's Sextant version. NULL for runs written before.
      R"sql(
ALTER TABLE runs ADD COLUMN host_json TEXT;
)sql",
  };
  return m;
}

// The tables and columns each schema version has (those sextant reads or writes), for the check
// that a database at our version still has them (2026-12-07 review: with `drop table samples`
// bench measured, then failed to store with "no such table: samples ... free the database and run
// again", and `history show` printed SQLite's statement cut mid-word).
struct SchemaTable {
  int since_version;
  const char* table;
  std::vector<const char*> columns;
};
const std::vector<SchemaTable>& schema_columns() {
  static const std::vector<SchemaTable> t = {
      {1, "hosts", {"id", "fingerprint", "hostname", "cpu_model", "logical_cpus", "memory_bytes", "kernel", "gpu", "gpu_driver", "info_json"}},
      {1, "runs", {"id", "host_id", "kind", "label", "started_at", "finished_at", "sextant_version", "config_json", "notes_json"}},
      {1, "measurements", {"id", "run_id", "suite", "name", "metric", "higher_is_better", "params_json", "warmup_count", "median"}},
      {1, "samples", {"measurement_id", "rep", "value"}},
      {2, "counters", {"measurement_id", "name", "available", "value", "reason"}},
      {3, "runs", {"host_json"}},
  };
  return t;
}

// The error of a damaged file: its name, the damage and what to do (2026-12-06 review: a damaged
// file read "SQLite: database disk image is malformed", and bench advised freeing the database).
DamagedDatabase damaged_file(const std::string& path, const std::string& detail) {
  return DamagedDatabase(SourceLocation{path, 0, 0, "--db"}, "the results database file is damaged (SQLite: " + detail + ")",
                         "restore it from a backup, or copy what is still readable into a new file (sqlite3 " + path +
                             " .recover | sqlite3 recovered.db) and give that as --db; or give another --db");
}

// SQLite's codes for a damaged file: a malformed page or record.
bool is_damage(int rc) { return (rc & 0xff) == SQLITE_CORRUPT; }

// SQLite's codes for a database another connection holds (past the busy timeout).
bool is_lock(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

LockedDatabase locked_file(const std::string& path, const std::string& detail) {
  return LockedDatabase(SourceLocation{path, 0, 0, "--db"}, "the results database is locked by another process (SQLite: " + detail + ")",
                        "free the database (another sextant writing it, or a program holding it open) and run again");
}

// The start of a statement for an error, cut at a word (it was cut at 60 bytes mid-word).
std::string sql_excerpt(const std::string& sql) {
  std::string one_line;
  for (const char c : sql) one_line += (c == '\n' || c == '\t') ? ' ' : c;
  if (one_line.size() <= 60) return one_line;
  size_t cut = one_line.rfind(' ', 60);
  if (cut == std::string::npos || cut < 20) cut = 60;
  return one_line.substr(0, cut) + " ...";
}

class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql, const std::string& path) : db_(db), path_(path) {
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr);
    if (is_damage(rc)) throw damaged_file(path, sqlite3_errmsg(db));
    if (is_lock(rc)) throw locked_file(path, sqlite3_errmsg(db));
    if (rc != SQLITE_OK)
      throw Error(SourceLocation{path}, fmt::format("SQLite prepare: {} ({})", sqlite3_errmsg(db), sql_excerpt(sql)));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt& bind(int i, const std::string& v) { check(sqlite3_bind_text(s_, i, v.c_str(), -1, SQLITE_TRANSIENT)); return *this; }
  Stmt& bind(int i, int64_t v) { check(sqlite3_bind_int64(s_, i, v)); return *this; }
  Stmt& bind(int i, double v) { check(sqlite3_bind_double(s_, i, v)); return *this; }
  Stmt& bind_null(int i) { check(sqlite3_bind_null(s_, i)); return *this; }
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (is_damage(rc)) throw damaged_file(path_, sqlite3_errmsg(db_));
    if (is_lock(rc)) throw locked_file(path_, sqlite3_errmsg(db_));
    throw Error(SourceLocation{path_}, std::string("SQLite: ") + sqlite3_errmsg(db_));
  }
  void reset() { sqlite3_reset(s_); sqlite3_clear_bindings(s_); }
  int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  double f64(int c) const { return sqlite3_column_double(s_, c); }
  bool is_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  int type(int c) const { return sqlite3_column_type(s_, c); }
  std::string str(int c) const {
    const unsigned char* t = sqlite3_column_text(s_, c);
    return t ? reinterpret_cast<const char*>(t) : "";
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) throw Error(SourceLocation{path_}, std::string("SQLite bind: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  std::string path_;
};

// A run's start time as utc_now_iso writes it, UTC to the millisecond. Runs are ordered by this
// text (history list, latest~N, the runs before A and B in a comparison), so another text was
// ordered by its letters: 'yesterday' was the newest run (2026-12-07 review).
constexpr const char* kStartedAtExample = "2026-12-07T09:30:00.000Z";
bool is_start_time(const std::string& t) {
  static constexpr std::string_view kForm = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (t.size() != kForm.size()) return false;
  for (size_t i = 0; i < kForm.size(); ++i)
    if (kForm[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(t[i])) : t[i] != kForm[i]) return false;
  const auto num = [&](size_t at, size_t n) { return std::stoi(t.substr(at, n)); };
  const int year = num(0, 4), month = num(5, 2), day = num(8, 2);
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) return false;
  if (month == 2 && day == 29 && !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))) return false;
  return num(11, 2) <= 23 && num(14, 2) <= 59 && num(17, 2) <= 59;
}
std::string start_time_fault(const std::string& t) {
  return fmt::format("'{}' is not a start time as sextant writes it (UTC to the millisecond, e.g. {})", t, kStartedAtExample);
}

// A text as one argument of a POSIX shell: as it is where it has no character special to it,
// else single-quoted.
std::string shell_quoted(const std::string& s) {
  if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./-+:@%,=").find(c) != std::string_view::npos;
      }))
    return s;
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// What to do about run id's start time that is not one as sextant writes it: the sqlite3 commands
// that set it, or delete the run (its measurements, samples and counters go with it by the
// foreign keys' ON DELETE CASCADE, which SQLite applies only with PRAGMA foreign_keys=ON).
// 2026-12-07 review.
std::string start_time_repair_hint(const std::string& path, int64_t id, const std::string& finished_at) {
  const bool finish_known = is_start_time(finished_at);
  const std::string set_sql =
      fmt::format("UPDATE runs SET started_at='{}' WHERE id={}", finish_known ? finished_at : std::string(kStartedAtExample), id);
  const std::string delete_sql = fmt::format("PRAGMA foreign_keys=ON; DELETE FROM runs WHERE id={}", id);
  // The statements hold no character a double-quoted shell word expands ($, `, \, ").
  return "the database was edited or damaged; set the run's start time (UTC, as sextant writes it" +
         (finish_known ? "; the run finished at " + finished_at + ", which the command sets" : std::string()) + "): sqlite3 " +
         shell_quoted(path) + " \"" + set_sql + "\", or delete the run: sqlite3 " + shell_quoted(path) + " \"" + delete_sql +
         "\"; the other runs can be listed, shown and compared meanwhile";
}

// Why a sample is not one sextant stores ("" when it is one): a finite number, not negative. The
// metrics are times, rates and sizes (wall_s, latency_s, bytes_per_s, busbw_bytes_per_s,
// max_rss_bytes ...); 0 is one (a short command's user_s or sys_s, a bandwidth nccl-tests printed
// as 0.00), a negative or infinite one is not. 2026-12-07 review: the text 'abc' in samples.value
// was read as 0 and -1 and Inf as they were, and decided `history compare` verdicts.
std::string sample_fault(double v) {
  if (!std::isfinite(v) || v < 0) return fmt::format("{}, where a sample is a finite number >= 0", v);
  return {};
}
std::string stored_sample_fault(const Stmt& s, int c) {
  switch (s.type(c)) {
    case SQLITE_FLOAT:
    case SQLITE_INTEGER:
      return sample_fault(s.f64(c));
    case SQLITE_NULL:
      return "NULL, where a sample is a finite number >= 0";
    case SQLITE_BLOB:
      return "a blob, where a sample is a finite number >= 0";
    default:
      return "the text '" + s.str(c) + "', where a sample is a finite number >= 0";
  }
}

nlohmann::json params_json(const Measurement& m) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [k, v] : m.params) a.push_back({k, v});
  return a;
}

// JSON text of a column. Bytes that are not UTF-8 become U+FFFD (the strict dump threw on them
// after the run was measured, and the run was lost; 2026-12-05 review); replace_invalid_utf8 has
// replaced them already where a run goes through insert_run, so this is the same text.
template <class Json>
std::string json_text(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// s with the bytes that are not UTF-8 replaced by U+FFFD exactly as json_text writes them.
void to_valid_utf8(std::string& s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return;
  s = nlohmann::json::parse(json_text(nlohmann::json(s))).get<std::string>();
}
}  // namespace

void replace_invalid_utf8(RunRecord& run) {
  for (auto* s : {&run.kind, &run.label, &run.started_at, &run.finished_at})
    to_valid_utf8(*s);
  HostInfo& h = run.host;
  for (auto* s : {&h.hostname, &h.kernel, &h.os, &h.cpu.model, &h.cpu.vendor, &h.cpu_ghz_source, &h.gpu, &h.gpu_driver, &h.sextant_version})
    to_valid_utf8(*s);
  for (auto& f : h.cpu.flags) to_valid_utf8(f);
  try {
    (void)run.config.dump();  // strict: throws only where a text is not UTF-8
  } catch (const nlohmann::json::type_error&) {
    run.config = nlohmann::json::parse(json_text(run.config));
  }
  for (auto& m : run.measurements) {
    for (auto* s : {&m.suite, &m.name, &m.metric}) to_valid_utf8(*s);
    for (auto& [k, v] : m.params) {
      to_valid_utf8(k);
      to_valid_utf8(v);
    }
    for (auto& c : m.counters) {
      to_valid_utf8(c.name);
      to_valid_utf8(c.reason);
    }
  }
  for (auto& n : run.notes) to_valid_utf8(n);
}

std::string default_db_path() {
  // A relative XDG_DATA_HOME is invalid (XDG Base Directory specification: "all paths set in
  // these environment variables must be absolute ... the path is invalid and should be ignored"):
  // taken as given it made the default database depend on the working directory (2026-12-04).
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && *xdg && fs::path(xdg).is_absolute()) return (fs::path(xdg) / "sextant" / "results.db").string();
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    throw Error(SourceLocation{"", 0, 0, "--db"}, "neither an absolute XDG_DATA_HOME nor HOME is set", "pass --db PATH");
  return (fs::path(home) / ".local" / "share" / "sextant" / "results.db").string();
}

std::string utc_now_iso() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, ms);
}

int ResultsDb::latest_schema_version() { return static_cast<int>(migrations().size()); }

// A database that only reads may lie where this process cannot write: a WAL database needs its
// -shm file created beside it, and SQLite answered "attempt to write a readonly database" to
// `history list` on a colleague's read-only results (before 2026-12-03). There it is opened
// immutable (no lock, no -shm) when no change is pending in a -wal or -journal beside it.
static bool writable_here(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return access(path.c_str(), W_OK) == 0 && access(parent.empty() ? "." : parent.c_str(), W_OK) == 0;
}

static std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const unsigned char c : fs::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') uri += static_cast<char>(c);
    else uri += fmt::format("%{:02X}", c);
  }
  return uri + "?immutable=1";
}

static int open_for_reading(const std::string& path, sqlite3** db, int flags) {
  if (writable_here(path)) return sqlite3_open_v2(path.c_str(), db, flags, nullptr);
  // Immutable reads skip the -wal and a hot -journal: with changes still there (a bench running or
  // killed, not yet checkpointed) they would serve old data, so then a plain read-only open,
  // which reads the WAL when its -shm exists, and else an error.
  std::error_code ec;
  const auto size_of = [&](const std::string& p) { return fs::exists(p, ec) ? fs::file_size(p, ec) : 0; };
  if (size_of(path + "-wal") > 0 || fs::exists(path + "-journal", ec)) {
    if (!fs::exists(path + "-shm", ec))
      throw Error(SourceLocation{path, 0, 0, "--db"},
                  "the results database has changes not yet merged into it (its -wal file), and its folder is read-only",
                  "ask its owner to run `sextant history list` on it once (which merges them), or read a copy");
    return sqlite3_open_v2(path.c_str(), db, SQLITE_OPEN_READONLY | (flags & SQLITE_OPEN_FULLMUTEX), nullptr);
  }
  return sqlite3_open_v2(immutable_uri(path).c_str(), db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | (flags & SQLITE_OPEN_FULLMUTEX), nullptr);
}

ResultsDb::ResultsDb(const std::string& path, int target_version, double busy_timeout_s) : path_(path) {
  // kAsItIs (open_existing): no WAL switch and no migration, so that reading never rewrites a
  // database that an older Sextant shares.
  const bool as_it_is = target_version == kAsItIs;
  if (target_version <= 0) target_version = latest_schema_version();
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw Error(SourceLocation{path, 0, 0, "--db"}, "the results database path is a folder", "give a file path, e.g. " + (fs::path(path) / "results.db").string());
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::exists(parent, ec)) {
    fs::create_directories(parent, ec);
    if (ec) throw Error(SourceLocation{path, 0, 0, "--db"}, "cannot create folder " + parent.string() + ": " + ec.message());
  }
  const int rc = as_it_is ? open_for_reading(path, &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX)
                          : sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(SourceLocation{path, 0, 0, "--db"}, "cannot open results database: " + msg);
  }
  try {
    sqlite3_busy_timeout(db_, static_cast<int>(busy_timeout_s * 1000));
    {
      // A file that is not SQLite at all is refused as a foreign file is (it read "SQLite: file is
      // not a database" without the key or what to give; review of 2026-12-05).
      sqlite3_stmt* st = nullptr;
      int prc = sqlite3_prepare_v2(db_, "SELECT count(*) FROM sqlite_master", -1, &st, nullptr);
      if (prc == SQLITE_OK) prc = sqlite3_step(st);
      sqlite3_finalize(st);
      if (prc == SQLITE_NOTADB)
        throw Error(SourceLocation{path_, 0, 0, "--db"}, "not a Sextant results database (not a SQLite file)",
                    "give a new file or the database sextant bench wrote (--db)");
    }
    exec("PRAGMA foreign_keys=ON");
    if (as_it_is) {
      if (schema_version() > latest_schema_version())
        throw Error(SourceLocation{path_, 0, 0, "--db"},
                    fmt::format("results database has schema version {}, newer than this Sextant's {}", schema_version(),
                                latest_schema_version()),
                    "use a newer sextant or another --db");
      require_schema();
      return;
    }
    // Look before touching (as open_existing does): a database newer than this build, or a SQLite
    // file of another application (tables, but no schema version of ours), is refused before the
    // WAL switch and the migration. Before 2026-12-03 bench added its tables to another
    // application's file, and switched a newer database to WAL before refusing it.
    if (schema_version() > latest_schema_version())
      throw Error(SourceLocation{path_, 0, 0, "--db"},
                  fmt::format("results database has schema version {}, newer than this Sextant's {}", schema_version(), latest_schema_version()),
                  "use a newer sextant or another --db");
    // A database at one of our versions with a table or column gone (dropped, edited) is refused
    // before anything is measured or migrated (2026-12-07 review).
    if (schema_version() >= 1) require_schema();
    if (schema_version() == 0) {
      Stmt t(db_, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", path_);
      std::string tables;
      while (t.step()) tables += (tables.empty() ? "" : ", ") + t.str(0);
      if (!tables.empty())
        throw Error(SourceLocation{path_, 0, 0, "--db"}, "not a Sextant results database: a SQLite file of another application (tables " + tables + ")",
                    "give a new file or the database sextant bench wrote (--db)");
    }
    // WAL: readers never block the writer; a killed writer's uncommitted frames are ignored.
    // Setting it needs a moment without other connections mid-transaction; retry on BUSY.
    for (int attempt = 0;; ++attempt) {
      if (journal_mode() == "wal") break;
      char* err = nullptr;
      const int r = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, &err);
      sqlite3_free(err);
      if (r == SQLITE_OK && journal_mode() == "wal") break;
      if (attempt > 200) throw locked_file(path, "cannot switch it to WAL mode: busy");
      sqlite3_sleep(50);
    }
    exec("PRAGMA synchronous=FULL");
    migrate(target_version);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

ResultsDb ResultsDb::open_existing(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(SourceLocation{path, 0, 0, "--db"}, "no results database at this path (--db, or its default when not given)",
                "sextant bench writes one; check the path");
  if (fs::is_directory(path, ec))
    throw Error(SourceLocation{path, 0, 0, "--db"}, "the results database path is a folder", "give the database file sextant bench wrote (--db)");
  // Look before touching: read-only, no WAL switch, no migration of a file that is not ours.
  sqlite3* raw = nullptr;
  bool ours = false;
  std::string failure;  // an error reading the file, as opposed to a readable file that is not ours
  if (open_for_reading(path, &raw, SQLITE_OPEN_READONLY) == SQLITE_OK) {
    sqlite3_busy_timeout(raw, 60000);  // a bench writing its first run holds the lock briefly
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(raw, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'", -1, &st, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) ours = sqlite3_column_int64(st, 0) == 1;
    else if (is_damage(rc)) {
      const std::string detail = sqlite3_errmsg(raw);
      sqlite3_finalize(st);
      sqlite3_close(raw);
      throw damaged_file(path, detail);
    } else if (rc != SQLITE_NOTADB) failure = sqlite3_errmsg(raw);
    sqlite3_finalize(st);
    // A runs table alone is not ours (MLflow's database has one): our schema version is set too.
    // Before 2026-12-03 such a file passed, and `history list` failed with "no such table: hosts".
    if (ours && failure.empty()) {
      st = nullptr;
      rc = sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, nullptr);
      if (rc == SQLITE_OK) rc = sqlite3_step(st);
      if (rc == SQLITE_ROW) ours = sqlite3_column_int64(st, 0) >= 1;
      else failure = sqlite3_errmsg(raw);
      sqlite3_finalize(st);
    }
  } else {
    failure = raw ? sqlite3_errmsg(raw) : "out of memory";
  }
  sqlite3_close(raw);
  if (!failure.empty()) throw Error(SourceLocation{path, 0, 0, "--db"}, "cannot read results database: " + failure);
  if (!ours)
    throw Error(SourceLocation{path, 0, 0, "--db"}, "not a Sextant results database (no runs table or no schema version of ours; empty, foreign or not SQLite)",
                "give the database sextant bench wrote (--db), or run sextant bench to make one");
  return ResultsDb(path, kAsItIs);
}

ResultsDb::~ResultsDb() {
  if (db_) sqlite3_close(db_);
}

void ResultsDb::exec(const std::string& sql) const {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    if (is_damage(rc)) throw damaged_file(path_, msg);
    if (is_lock(rc)) throw locked_file(path_, msg);
    throw Error(SourceLocation{path_}, "SQLite: " + msg);
  }
}

void ResultsDb::require_schema() const {
  const int version = std::min(schema_version(), latest_schema_version());
  std::set<std::string> tables;
  {
    Stmt t(db_, "SELECT name FROM sqlite_master WHERE type = 'table'", path_);
    while (t.step()) tables.insert(t.str(0));
  }
  std::vector<std::string> missing_tables, missing_columns;
  std::set<std::string> expected;
  for (const SchemaTable& st : schema_columns()) {
    if (st.since_version > version) continue;
    expected.insert(st.table);
    if (!tables.count(st.table)) {
      if (std::find(missing_tables.begin(), missing_tables.end(), st.table) == missing_tables.end()) missing_tables.push_back(st.table);
      continue;
    }
    std::set<std::string> columns;
    Stmt c(db_, fmt::format("PRAGMA table_info(\"{}\")", st.table), path_);
    while (c.step()) columns.insert(c.str(1));
    for (const char* col : st.columns)
      if (!columns.count(col)) missing_columns.push_back(std::string(st.table) + "." + col);
  }
  if (missing_tables.empty() && missing_columns.empty()) return;
  auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  std::string what;
  if (!missing_tables.empty()) what += (missing_tables.size() == 1 ? "no table " : "no tables ") + joined(missing_tables);
  if (!missing_columns.empty()) what += (what.empty() ? "" : " and ") + std::string(missing_columns.size() == 1 ? "no column " : "no columns ") + joined(missing_columns);
  throw DamagedDatabase(SourceLocation{path_, 0, 0, "--db"},
                        fmt::format("the results database is not what sextant writes: schema version {} has tables {}, but this file has {}",
                                    version, joined(std::vector<std::string>(expected.begin(), expected.end())), what),
                        "it was edited or damaged: restore it from a backup, or give another --db (a new file starts a new history); "
                        "sextant neither adds runs to it nor reads it");
}

int ResultsDb::schema_version() const {
  Stmt s(db_, "PRAGMA user_version", path_);
  s.step();
  return static_cast<int>(s.i64(0));
}

std::string ResultsDb::journal_mode() const {
  Stmt s(db_, "PRAGMA journal_mode", path_);
  s.step();
  return s.str(0);
}

void ResultsDb::migrate(int target) {
  if (target > latest_schema_version())
    throw Error(SourceLocation{path_}, fmt::format("schema version {} requested; this build knows up to {}", target, latest_schema_version()));
  if (schema_version() >= target) {
    if (schema_version() > latest_schema_version())
      throw Error(SourceLocation{path_, 0, 0, "--db"},
                  fmt::format("results database has schema version {}, newer than this Sextant's {}", schema_version(),
                              latest_schema_version()),
                  "use a newer sextant or another --db");
    return;
  }
  exec("BEGIN IMMEDIATE");
  try {
    int v = schema_version();  // re-read under the write lock: another process may have migrated
    for (; v < target; ++v) exec(migrations()[static_cast<size_t>(v)]);
    exec(fmt::format("PRAGMA user_version={}", v));
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int64_t ResultsDb::insert_run(const RunRecord& in, const std::function<void(size_t)>& after_measurement) {
  // Text columns, JSON columns and the host's fingerprint from the same valid UTF-8: a GPU name
  // in Latin-1 had been one byte in hosts.gpu and U+FFFD in runs.host_json, so the fingerprint of
  // the run as loaded differed from its host's row (2026-12-05 review).
  RunRecord r = in;
  replace_invalid_utf8(r);
  if (schema_version() < 1) throw Error(SourceLocation{path_}, "results database schema too old to write runs");
  {
    // A run holds one measurement per case (suite, name, metric): a second would make history
    // ambiguous. Named here, before anything is written (SQLite's UNIQUE constraint named neither
    // the case nor where it came from).
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const auto& m : r.measurements)
      if (!seen.emplace(m.suite, m.name, m.metric).second)
        throw Error(SourceLocation{path_}, "the run holds the case '" + m.suite + " / " + m.name + " / " + m.metric + "' twice" +
                                               (m.has_param("file") ? " (the second from " + m.param("file") + ")" : std::string()),
                    "one measurement per case and run: import or run the duplicates as separate runs");
    // What load_run refuses is not written either (2026-12-07 review): a start time in another
    // form, a sample that is not a finite number >= 0.
    for (const std::string* t : {&r.started_at, &r.finished_at})
      if (!t->empty() && !is_start_time(*t))
        throw Error(SourceLocation{path_, 0, 0, t == &r.started_at ? "started_at" : "finished_at"}, "the run's " + start_time_fault(*t));
    for (const auto& m : r.measurements)
      for (size_t k = 0; k < m.samples.size(); ++k)
        if (const std::string fault = sample_fault(m.samples[k]); !fault.empty())
          throw Error(SourceLocation{path_, 0, 0, m.suite + "/" + m.name},
                      fmt::format("case {} / {} / {}: repetition {} measured {}", m.suite, m.name, m.metric, k, fault),
                      "sextant stores times, rates and sizes, which are finite and not negative; the run is not stored");
  }
  const bool has_counters = schema_version() >= 2;
  const bool has_run_host = schema_version() >= 3;
  exec("BEGIN IMMEDIATE");
  try {
    const std::string fp = r.host.fingerprint();
    {
      Stmt s(db_, "INSERT OR IGNORE INTO hosts(fingerprint, hostname, cpu_model, logical_cpus, memory_bytes, kernel, gpu, gpu_driver, info_json) VALUES(?,?,?,?,?,?,?,?,?)", path_);
      s.bind(1, fp).bind(2, r.host.hostname).bind(3, r.host.cpu.model).bind(4, int64_t{r.host.cpu.logical_cpus})
          .bind(5, r.host.memory_bytes).bind(6, r.host.kernel).bind(7, r.host.gpu).bind(8, r.host.gpu_driver)
          .bind(9, json_text(r.host.to_json()));
      s.step();
    }
    int64_t host_id = 0;
    {
      Stmt s(db_, "SELECT id FROM hosts WHERE fingerprint=?", path_);
      s.bind(1, fp);
      s.step();
      host_id = s.i64(0);
    }
    int64_t run_id = 0;
    {
      Stmt s(db_, "INSERT INTO runs(host_id, kind, label, started_at, finished_at, sextant_version, config_json, notes_json) VALUES(?,?,?,?,?,?,?,?)", path_);
      s.bind(1, host_id).bind(2, r.kind).bind(3, r.label).bind(4, r.started_at.empty() ? utc_now_iso() : r.started_at)
          .bind(5, r.finished_at.empty() ? utc_now_iso() : r.finished_at).bind(6, r.host.sextant_version)
          .bind(7, json_text(r.config)).bind(8, json_text(nlohmann::json(r.notes)));
      s.step();
      run_id = sqlite3_last_insert_rowid(db_);
    }
    if (has_run_host) {
      Stmt s(db_, "UPDATE runs SET host_json=? WHERE id=?", path_);
      s.bind(1, json_text(r.host.to_json())).bind(2, run_id);
      s.step();
    }
    Stmt ms(db_, "INSERT INTO measurements(run_id, suite, name, metric, higher_is_better, params_json, warmup_count, median) VALUES(?,?,?,?,?,?,?,?)", path_);
    Stmt ss(db_, "INSERT INTO samples(measurement_id, rep, value) VALUES(?,?,?)", path_);
    std::unique_ptr<Stmt> cs;
    if (has_counters) cs = std::make_unique<Stmt>(db_, "INSERT INTO counters(measurement_id, name, available, value, reason) VALUES(?,?,?,?,?)", path_);
    for (size_t i = 0; i < r.measurements.size(); ++i) {
      const Measurement& m = r.measurements[i];
      if (m.samples.empty())
        throw Error(SourceLocation{path_, 0, 0, m.suite + "/" + m.name}, "measurement without samples");
      ms.reset();
      ms.bind(1, run_id).bind(2, m.suite).bind(3, m.name).bind(4, m.metric).bind(5, int64_t{m.higher_is_better})
          .bind(6, json_text(params_json(m))).bind(7, m.warmup_count).bind(8, m.summary().median);
      ms.step();
      const int64_t mid = sqlite3_last_insert_rowid(db_);
      for (size_t k = 0; k < m.samples.size(); ++k) {
        ss.reset();
        ss.bind(1, mid).bind(2, static_cast<int64_t>(k)).bind(3, m.samples[k]);
        ss.step();
      }
      if (cs)
        for (const auto& c : m.counters) {
          cs->reset();
          cs->bind(1, mid).bind(2, c.name).bind(3, int64_t{c.available});
          if (c.available) cs->bind(4, c.value);
          else cs->bind_null(4);
          cs->bind(5, c.reason);
          cs->step();
        }
      if (after_measurement) after_measurement(i);
    }
    exec("COMMIT");
    return run_id;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<int64_t> ResultsDb::runs_with_damaged_start() const {
  std::vector<int64_t> out;
  Stmt s(db_, "SELECT id, started_at FROM runs ORDER BY id DESC", path_);
  while (s.step())
    if (!is_start_time(s.str(1))) out.push_back(s.i64(0));
  return out;
}

std::vector<RunSummary> ResultsDb::list_runs(int64_t limit) const {
  // A run whose start time is not one as sextant writes it has no place in the order by that text:
  // it is listed after the others with start_fault set, and the others are listed as before
  // (2026-12-07 review: one such run failed the whole list, latest and every comparison).
  std::vector<RunSummary> out, damaged;
  Stmt s(db_,
         "SELECT r.id, r.kind, r.label, r.started_at, r.finished_at, h.fingerprint, h.hostname, h.cpu_model, r.sextant_version, "
         "(SELECT COUNT(*) FROM measurements m WHERE m.run_id=r.id) FROM runs r JOIN hosts h ON h.id=r.host_id ORDER BY r.started_at DESC, r.id DESC",
         path_);
  while (s.step()) {
    RunSummary r;
    r.id = s.i64(0);
    r.kind = s.str(1);
    r.label = s.str(2);
    r.started_at = s.str(3);
    r.finished_at = s.str(4);
    r.host_fingerprint = s.str(5);
    r.hostname = s.str(6);
    r.cpu_model = s.str(7);
    r.sextant_version = s.str(8);
    r.measurement_count = s.i64(9);
    if (!is_start_time(r.started_at)) {
      r.start_fault = start_time_fault(r.started_at);
      damaged.push_back(std::move(r));
    } else {
      out.push_back(std::move(r));
    }
  }
  std::sort(damaged.begin(), damaged.end(), [](const RunSummary& a, const RunSummary& b) { return a.id > b.id; });
  for (auto& d : damaged) out.push_back(std::move(d));
  if (limit > 0 && static_cast<int64_t>(out.size()) > limit) out.resize(static_cast<size_t>(limit));
  return out;
}

int64_t ResultsDb::run_count() const {
  Stmt s(db_, "SELECT COUNT(*) FROM runs", path_);
  s.step();
  return s.i64(0);
}

RunRecord ResultsDb::load_run(int64_t id) const {
  RunRecord r;
  // A column sextant wrote as JSON that no longer parses (the file was edited or damaged): an
  // error naming the database, the run and the column, not a parser's internal error (review of
  // 2026-12-05).
  auto damaged = [&](const std::string& column, const std::string& what) {
    return Error(SourceLocation{path_, 0, 0, column}, fmt::format("run {}: {} is not what sextant writes ({})", id, column, what),
                 "the database was edited or damaged; `sextant history list` shows the other runs, which can still be compared");
  };
  auto parse = [&](const std::string& text, const std::string& column) {
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw damaged(column, e.what());
    }
  };
  {
    // The host as it was at the run (schema 3), else the host row's first description.
    Stmt s(db_, std::string("SELECT r.id, r.kind, r.label, r.started_at, r.finished_at, r.config_json, r.notes_json, ") +
                    (schema_version() >= 3 ? "COALESCE(r.host_json, h.info_json)" : "h.info_json") +
                    " FROM runs r JOIN hosts h ON h.id=r.host_id WHERE r.id=?",
           path_);
    s.bind(1, id);
    if (!s.step()) throw Error(SourceLocation{path_, 0, 0, "RUN"}, fmt::format("no run {} in the results database", id), "see `sextant history list`");
    r.id = s.i64(0);
    r.kind = s.str(1);
    r.label = s.str(2);
    r.started_at = s.str(3);
    r.finished_at = s.str(4);
    // The run itself cannot be shown or compared (it has no place among the others by start
    // time); the hint gives the commands that repair or delete it (2026-12-07 review: the hint
    // said the other runs could still be compared while one such run failed them all).
    if (!is_start_time(r.started_at))
      throw Error(SourceLocation{path_, 0, 0, "runs.started_at"},
                  fmt::format("run {}: runs.started_at is not what sextant writes ({})", id, start_time_fault(r.started_at)),
                  start_time_repair_hint(path_, id, r.finished_at));
    r.config = parse(s.str(5), "runs.config_json");
    try {
      for (const auto& n : parse(s.str(6), "runs.notes_json")) r.notes.push_back(n.get<std::string>());
    } catch (const nlohmann::json::exception& e) {
      throw damaged("runs.notes_json", e.what());
    }
    try {
      r.host = HostInfo::from_json(parse(s.str(7), "runs.host_json"));
    } catch (const nlohmann::json::exception& e) {
      throw damaged("runs.host_json", e.what());
    }
  }
  Stmt s(db_, "SELECT id, suite, name, metric, higher_is_better, params_json, warmup_count FROM measurements WHERE run_id=? ORDER BY id", path_);
  s.bind(1, id);
  Stmt ss(db_, "SELECT rep, value FROM samples WHERE measurement_id=? ORDER BY rep", path_);
  const bool has_counters = schema_version() >= 2;
  std::unique_ptr<Stmt> cs;
  if (has_counters) cs = std::make_unique<Stmt>(db_, "SELECT name, available, value, reason FROM counters WHERE measurement_id=? ORDER BY rowid", path_);
  while (s.step()) {
    Measurement m;
    const int64_t mid = s.i64(0);
    m.suite = s.str(1);
    m.name = s.str(2);
    m.metric = s.str(3);
    m.higher_is_better = s.i64(4) != 0;
    try {
      for (const auto& kv : parse(s.str(5), "measurements.params_json")) m.params.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    } catch (const nlohmann::json::exception& e) {
      throw damaged("measurements.params_json", "case " + m.suite + "/" + m.name + ": " + e.what());
    }
    m.warmup_count = s.i64(6);
    ss.reset();
    ss.bind(1, mid);
    while (ss.step()) {
      // Each a finite number >= 0, as insert_run stores it (see stored_sample_fault).
      if (const std::string fault = stored_sample_fault(ss, 1); !fault.empty())
        throw damaged("samples.value", fmt::format("case {}/{} ({}), repetition {}: {}", m.suite, m.name, m.metric, ss.i64(0), fault));
      m.samples.push_back(ss.f64(1));
    }
    if (cs) {
      cs->reset();
      cs->bind(1, mid);
      while (cs->step()) {
        CounterValue c;
        c.name = cs->str(0);
        c.available = cs->i64(1) != 0;
        c.value = cs->is_null(2) ? 0 : cs->f64(2);
        c.reason = cs->str(3);
        m.counters.push_back(c);
      }
    }
    if (m.samples.empty())
      throw damaged("samples", "case " + m.suite + "/" + m.name + " (" + m.metric + ") has no samples; sextant stores every repetition");
    r.measurements.push_back(std::move(m));
  }
  return r;
}

int64_t ResultsDb::resolve_run(const std::string& ref) const {
  if (ref.rfind("latest", 0) == 0) {
    int64_t back = 0;
    if (ref.size() > 6) {
      if (ref[6] != '~') throw Error(SourceLocation{"", 0, 0, "RUN"}, "bad run reference '" + ref + "'", "use an id, latest or latest~N");
      char* e = nullptr;
      errno = 0;
      back = std::strtoll(ref.c_str() + 7, &e, 10);
      if (e == ref.c_str() + 7 || *e || back < 0 || errno == ERANGE)
        throw Error(SourceLocation{"", 0, 0, "RUN"}, "bad run reference '" + ref + "'", "latest~N counts back N >= 0 runs from the newest");
    }
    // By start time, then id, as list_runs (by id alone before 2026-12-06: of two overlapping runs,
    // latest was the one stored last, which started first; review).
    // Over the runs with a start time as sextant writes it: one in another form has no place in
    // that order and is passed over (the commands name it in a note; 2026-12-07 review: it failed
    // every latest).
    std::vector<int64_t> ids;
    int64_t damaged = 0;
    Stmt s(db_, "SELECT id, started_at FROM runs ORDER BY started_at DESC, id DESC", path_);
    while (s.step()) {
      if (is_start_time(s.str(1))) ids.push_back(s.i64(0));
      else ++damaged;
    }
    if (back >= static_cast<int64_t>(ids.size())) {
      const int64_t n = static_cast<int64_t>(ids.size());
      const std::string skipped = damaged > 0 ? fmt::format(" ({} more with a damaged start time, not counted)", damaged) : "";
      throw Error(SourceLocation{path_, 0, 0, "RUN"}, "no run '" + ref + "' in the results database",
                  n == 0 ? "the database holds no runs with a valid start time yet" + skipped :
                           "it holds " + std::to_string(n) + " run(s)" + skipped + ": latest to latest~" + std::to_string(n - 1) +
                               "; see `sextant history list`");
    }
    return ids[static_cast<size_t>(back)];
  }
  char* end = nullptr;
  errno = 0;
  const long long id = std::strtoll(ref.c_str(), &end, 10);
  if (end == ref.c_str() || *end) throw Error(SourceLocation{"", 0, 0, "RUN"}, "bad run reference '" + ref + "'", "use an id, latest or latest~N");
  // Beyond 64 bits strtoll clamps: "no run 9223372036854775807" named an id nobody gave (2026-12-05).
  if (errno == ERANGE) throw Error(SourceLocation{path_, 0, 0, "RUN"}, "no run '" + ref + "' in the results database (beyond any run id)");
  return id;
}

std::string ResultsDb::quick_check() const {
  Stmt s(db_, "PRAGMA quick_check(5)", path_);
  std::string out;
  while (s.step()) {
    std::string row = s.str(0);
    std::replace(row.begin(), row.end(), '\n', ' ');
    const std::string marker = "*** in database main *** ";  // SQLite's heading of its findings
    if (row.rfind(marker, 0) == 0) row.erase(0, marker.size());
    out += (out.empty() ? "" : "; ") + row;
  }
  return out;
}

void ResultsDb::require_intact() const {
  const std::string found = quick_check();
  if (found != "ok") throw damaged_file(path_, "quick_check: " + found);
}

std::string ResultsDb::integrity_check() const {
  Stmt s(db_, "PRAGMA integrity_check", path_);
  std::string out;
  while (s.step()) out += (out.empty() ? "" : "; ") + s.str(0);
  Stmt f(db_, "PRAGMA foreign_key_check", path_);
  while (f.step()) out += "; foreign key violation in " + f.str(0);
  return out;
}

}  // namespace sextant::bench
