// Questions: does the results database keep every repetition, migrate old schemas, and stay
// consistent with two concurrent writers and with a writer killed mid-transaction?
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/db/results_db.hpp"
#include "core/error.hpp"

using namespace sextant::bench;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("sextant-test-db-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

RunRecord make_run(int measurements, int reps, double base) {
  RunRecord r;
  r.kind = "suite";
  r.label = "test";
  r.host.hostname = "testhost";
  r.host.cpu.model = "Test CPU";
  r.host.cpu.logical_cpus = 4;
  r.host.memory_bytes = int64_t{8} << 30;
  r.host.sextant_version = "test";
  r.config = {{"quick", true}};
  r.notes = {"a note"};
  for (int i = 0; i < measurements; ++i) {
    Measurement m;
    m.suite = "s";
    m.name = "case" + std::to_string(i);
    m.metric = i % 2 ? "latency_s" : "bytes_per_s";
    m.higher_is_better = i % 2 == 0;
    m.params = {{"size", std::to_string(i)}, {"mode", "x"}};
    for (int k = 0; k < reps; ++k) m.samples.push_back(base + i + 0.25 * k);
    m.warmup_count = 1;
    m.counters = {{"cycles_count", true, 1234, ""}, {"energy_j", false, 0, "no RAPL"}};
    r.measurements.push_back(m);
  }
  return r;
}

int64_t scalar(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
  int64_t v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}
}  // namespace

TEST(ResultsDb, RoundTripKeepsEveryRepetitionParameterAndCounter) {
  TempDir t;
  const std::string path = (t.path / "sub" / "results.db").string();  // folders are created
  ResultsDb db(path);
  EXPECT_EQ(db.schema_version(), ResultsDb::latest_schema_version());
  EXPECT_EQ(db.journal_mode(), "wal");
  const RunRecord in = make_run(6, 5, 10);
  const int64_t id = db.insert_run(in);
  const int64_t id2 = db.insert_run(make_run(2, 3, 20));
  EXPECT_EQ(db.resolve_run("latest"), id2);
  EXPECT_EQ(db.resolve_run("latest~1"), id);
  EXPECT_EQ(db.resolve_run(std::to_string(id)), id);
  EXPECT_THROW(db.resolve_run("newest"), sextant::Error);
  const RunRecord out = db.load_run(id);
  ASSERT_EQ(out.measurements.size(), in.measurements.size());
  for (size_t i = 0; i < in.measurements.size(); ++i) {
    EXPECT_EQ(out.measurements[i].samples, in.measurements[i].samples);
    EXPECT_EQ(out.measurements[i].params, in.measurements[i].params);
    EXPECT_EQ(out.measurements[i].higher_is_better, in.measurements[i].higher_is_better);
    ASSERT_EQ(out.measurements[i].counters.size(), 2u);
    EXPECT_TRUE(out.measurements[i].counters[0].available);
    EXPECT_DOUBLE_EQ(out.measurements[i].counters[0].value, 1234);
    EXPECT_FALSE(out.measurements[i].counters[1].available);
    EXPECT_EQ(out.measurements[i].counters[1].reason, "no RAPL");
  }
  EXPECT_EQ(out.host.fingerprint(), in.host.fingerprint());
  EXPECT_EQ(out.notes, in.notes);
  const auto runs = db.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, id2);
  EXPECT_EQ(runs[1].measurement_count, 6);
  EXPECT_THROW(db.load_run(9999), sextant::Error);
  // Unavailable counters are stored as NULL, not 0.
  EXPECT_EQ(scalar(path, "SELECT COUNT(*) FROM counters WHERE name='energy_j' AND value IS NULL"), 6 + 2);
}

TEST(ResultsDb, MigratesAVersionOneDatabaseKeepingItsRuns) {
  TempDir t;
  const std::string path = (t.path / "old.db").string();
  int64_t id = 0;
  {
    ResultsDb v1(path, 1);
    EXPECT_EQ(v1.schema_version(), 1);
    id = v1.insert_run(make_run(3, 4, 1));  // counters are not stored in v1
  }
  EXPECT_EQ(scalar(path, "SELECT COUNT(*) FROM sqlite_master WHERE name='counters'"), 0);
  {
    // Reading leaves it as it is: an older Sextant sharing the file can still use it.
    const ResultsDb reader = ResultsDb::open_existing(path);
    EXPECT_EQ(reader.schema_version(), 1);
    EXPECT_EQ(reader.load_run(id).measurements.size(), 3u);
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), 1);
  ResultsDb db(path);
  EXPECT_EQ(db.schema_version(), ResultsDb::latest_schema_version());
  EXPECT_EQ(scalar(path, "SELECT COUNT(*) FROM sqlite_master WHERE name='counters'"), 1);
  const RunRecord old = db.load_run(id);
  EXPECT_EQ(old.measurements.size(), 3u);
  EXPECT_TRUE(old.measurements[0].counters.empty());
  const int64_t id2 = db.insert_run(make_run(1, 2, 1));
  EXPECT_EQ(db.load_run(id2).measurements[0].counters.size(), 2u);
  EXPECT_EQ(db.integrity_check(), "ok");
}

TEST(ResultsDb, EachRunKeepsTheHostAsItWasThen) {
  // Two runs on one host (same fingerprint) with different Sextant versions: each run shows its own.
  TempDir t;
  const std::string path = (t.path / "hosts.db").string();
  ResultsDb db(path);
  RunRecord a = make_run(1, 2, 1), b = make_run(1, 2, 1);
  a.host.sextant_version = "0.0.9";
  b.host.sextant_version = "0.1.0";
  ASSERT_EQ(a.host.fingerprint(), b.host.fingerprint());
  const int64_t ia = db.insert_run(a), ib = db.insert_run(b);
  EXPECT_EQ(db.load_run(ia).host.sextant_version, "0.0.9");
  EXPECT_EQ(db.load_run(ib).host.sextant_version, "0.1.0");
}

TEST(ResultsDb, TextThatIsNotUtf8IsStoredAsU_FFFDInEveryColumn) {
  // A byte that is not UTF-8 (a Latin-1 GPU name, a --label) threw in json::dump after the run
  // was measured (2026-12-05 review). It is stored as U+FFFD, in the text columns as in the JSON
  // ones, so the host's row and the run's host have one fingerprint.
  TempDir t;
  const std::string path = (t.path / "latin1.db").string();
  ResultsDb db(path);
  RunRecord in = make_run(1, 2, 1);
  in.label = "lab\xff";
  in.host.gpu = "Example GPU \xe9";
  in.config["dir"] = "d\xe9";
  in.notes = {"note \xfe"};
  in.measurements[0].name = "case \xe9";
  in.measurements[0].params.emplace_back("dir", "d\xe9");
  const int64_t id = db.insert_run(in);
  const RunRecord out = db.load_run(id);
  EXPECT_EQ(out.label, "lab\xef\xbf\xbd");
  EXPECT_EQ(out.host.gpu, "Example GPU \xef\xbf\xbd");
  EXPECT_EQ(out.config["dir"], "d\xef\xbf\xbd");
  EXPECT_EQ(out.notes, std::vector<std::string>{"note \xef\xbf\xbd"});
  EXPECT_EQ(out.measurements[0].name, "case \xef\xbf\xbd");
  EXPECT_EQ(out.measurements[0].param("dir"), "d\xef\xbf\xbd");
  const auto runs = db.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].label, out.label);
  EXPECT_EQ(runs[0].host_fingerprint, out.host.fingerprint());
  // What the commands show before storing (replace_invalid_utf8) is what is stored.
  replace_invalid_utf8(in);
  EXPECT_EQ(in.host.fingerprint(), out.host.fingerprint());
  EXPECT_EQ(in.measurements[0].name, out.measurements[0].name);
}

TEST(ResultsDb, RefusesADatabaseFromANewerSextant) {
  TempDir t;
  const std::string path = (t.path / "new.db").string();
  { ResultsDb db(path); }
  sqlite3* raw = nullptr;
  sqlite3_open(path.c_str(), &raw);
  sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  try {
    ResultsDb db(path);
    FAIL() << "opened a schema-99 database";
  } catch (const sextant::Error& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

// Question (review of 2026-12-05): is a run whose stored JSON or samples were damaged an error
// naming the database, the run and the column (it was the JSON parser's internal error, exit 3)?
TEST(ResultsDb, ADamagedRunNamesTheDatabaseRunAndColumn) {
  TempDir t;
  const std::string path = (t.path / "damaged.db").string();
  int64_t id = 0;
  {
    ResultsDb db(path);
    id = db.insert_run(make_run(2, 3, 1.0));
  }
  for (const auto& [sql, column] : std::vector<std::pair<std::string, std::string>>{
           {"UPDATE runs SET config_json='['", "runs.config_json"},
           {"UPDATE runs SET config_json='{}', host_json='{bad'", "runs.host_json"},
           {"UPDATE runs SET host_json=NULL; UPDATE measurements SET params_json='not json{'", "measurements.params_json"},
           {"UPDATE measurements SET params_json='[]'; DELETE FROM samples", "samples"}}) {
    sqlite3* raw = nullptr;
    sqlite3_open(path.c_str(), &raw);
    ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(raw);
    const ResultsDb db = ResultsDb::open_existing(path);
    try {
      db.load_run(id);
      FAIL() << "loaded a run after " << sql;
    } catch (const sextant::Error& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find(path), std::string::npos) << w;
      EXPECT_NE(w.find(column), std::string::npos) << w;
      EXPECT_NE(w.find("run " + std::to_string(id)), std::string::npos) << w;
    }
  }
}

// Question (review of 2026-12-06): do `history list` (newest first) and latest~N follow the runs'
// start times? Run ids number runs as they were stored (when they finished), so of two runs that
// overlapped the one that started first can have the higher id, and `latest` had been it.
TEST(ResultsDb, RunsAreOrderedByStartTimeThenId) {
  TempDir t;
  const std::string path = (t.path / "order.db").string();
  ResultsDb db(path);
  RunRecord late = make_run(1, 2, 1), early = make_run(1, 2, 1), tie = make_run(1, 2, 1);
  late.started_at = "2026-01-01T00:00:02.000Z";
  early.started_at = "2026-01-01T00:00:01.000Z";  // started first, stored second
  tie.started_at = late.started_at;
  const int64_t i_late = db.insert_run(late), i_early = db.insert_run(early), i_tie = db.insert_run(tie);
  ASSERT_LT(i_late, i_early);
  const auto runs = db.list_runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].id, i_tie);  // the same start: the higher id first
  EXPECT_EQ(runs[1].id, i_late);
  EXPECT_EQ(runs[2].id, i_early);
  EXPECT_EQ(db.list_runs(1).at(0).id, i_tie);
  EXPECT_EQ(db.resolve_run("latest"), i_tie);
  EXPECT_EQ(db.resolve_run("latest~1"), i_late);
  EXPECT_EQ(db.resolve_run("latest~2"), i_early);
}

// Question (review of 2026-12-06): is a damaged file found before a run is measured, and named as
// damage, with what to do? It was found only at the store ("database disk image is malformed ...
// free the database and run again", the advice for a locked one), and history said "SQLite:
// database disk image is malformed" without a word on what to do.
TEST(ResultsDb, ADamagedFileIsFoundAndNamed) {
  TempDir t;
  const std::string path = (t.path / "torn.db").string();
  {
    ResultsDb db(path);
    for (int i = 0; i < 4; ++i) db.insert_run(make_run(6, 5, i));
    EXPECT_EQ(db.quick_check(), "ok");
    EXPECT_NO_THROW(db.require_intact());
  }
  ASSERT_FALSE(fs::exists(path + "-wal") && fs::file_size(path + "-wal") > 0);  // merged at the close
  ASSERT_GE(fs::file_size(path), 8u * 4096);
  {
    // Pages 3 to 8 (4 KiB each) zeroed, as `dd if=/dev/zero bs=4096 seek=2 count=6` does.
    FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 2 * 4096, SEEK_SET);
    const std::vector<char> zeros(6 * 4096, 0);
    ASSERT_EQ(std::fwrite(zeros.data(), 1, zeros.size(), f), zeros.size());
    std::fclose(f);
  }
  auto expect_named = [&](const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find(path), std::string::npos) << w;
    EXPECT_NE(w.find("damaged"), std::string::npos) << w;
    EXPECT_NE(w.find("backup"), std::string::npos) << w;
    EXPECT_EQ(w.find("free the database"), std::string::npos) << w;
  };
  try {
    ResultsDb(path).require_intact();
    FAIL() << "a damaged file passed the check";
  } catch (const DamagedDatabase& e) {
    expect_named(e);
  }
  // Reading names it too, where the damage is read.
  bool found = false;
  try {
    const ResultsDb db = ResultsDb::open_existing(path);
    for (const auto& r : db.list_runs()) db.load_run(r.id);
  } catch (const DamagedDatabase& e) {
    found = true;
    expect_named(e);
  }
  EXPECT_TRUE(found);
}

// Question (review of 2026-12-07): is a database of our schema version with a table or column
// gone refused when it is opened, naming the file, what is missing and what to do? With `drop
// table samples` bench measured first and then failed to store ("SQLite prepare: no such table:
// samples (INSERT INTO samples(..." and the advice for a locked database), and `history show`
// printed SQLite's statement cut mid-word.
TEST(ResultsDb, AMissingTableOrColumnIsRefusedAtTheOpen) {
  TempDir t;
  auto exec = [](const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  };
  auto expect_refused = [](const std::string& path, const std::vector<std::string>& named) {
    for (int writer = 0; writer < 2; ++writer) {
      try {
        if (writer) ResultsDb db(path);
        else ResultsDb::open_existing(path);
        ADD_FAILURE() << "opened: " << path << (writer ? " (writer)" : " (reader)");
      } catch (const DamagedDatabase& e) {
        const std::string w = e.what();
        EXPECT_NE(w.find(path), std::string::npos) << w;
        EXPECT_NE(w.find("is not what sextant writes"), std::string::npos) << w;
        for (const auto& n : named) EXPECT_NE(w.find(n), std::string::npos) << n << ": " << w;
        EXPECT_NE(w.find("backup"), std::string::npos) << w;
        EXPECT_EQ(w.find("free the database"), std::string::npos) << w;
        EXPECT_EQ(w.find("SQLite prepare"), std::string::npos) << w;
      }
    }
  };
  const std::string no_samples = (t.path / "nos.db").string();
  {
    ResultsDb db(no_samples);
    db.insert_run(make_run(2, 3, 1.0));
  }
  exec(no_samples, "DROP TABLE samples");
  expect_refused(no_samples, {"no table samples"});
  EXPECT_EQ(scalar(no_samples, "SELECT count(*) FROM sqlite_master WHERE name = 'samples'"), 0);  // left as it was
  const std::string no_column = (t.path / "nocol.db").string();
  {
    ResultsDb db(no_column);
    db.insert_run(make_run(2, 3, 1.0));
  }
  exec(no_column, "ALTER TABLE runs DROP COLUMN host_json; DROP TABLE counters");
  expect_refused(no_column, {"no table counters", "no column runs.host_json"});
  // An older complete schema is no damage: version 1 has no counters table and is migrated.
  const std::string old = (t.path / "v1.db").string();
  { ResultsDb db(old, 1); }
  EXPECT_NO_THROW(ResultsDb::open_existing(old));
  EXPECT_NO_THROW(ResultsDb db(old));
  EXPECT_EQ(ResultsDb(old).schema_version(), ResultsDb::latest_schema_version());
}

// Question (review of 2026-12-07): is a database another connection holds locked told apart from
// other failures (LockedDatabase, the one bench advises freeing the database for)?
TEST(ResultsDb, ALockedDatabaseIsNamedAsLocked) {
  TempDir t;
  const std::string path = (t.path / "locked.db").string();
  { ResultsDb db(path); }
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  ResultsDb db(path, 0, 0.05);
  try {
    db.insert_run(make_run(1, 2, 1.0));
    ADD_FAILURE() << "stored under another writer's lock";
  } catch (const LockedDatabase& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find(path), std::string::npos) << w;
    EXPECT_NE(w.find("locked"), std::string::npos) << w;
  }
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_NO_THROW(db.insert_run(make_run(1, 2, 1.0)));
}

TEST(ResultsDb, TwoConcurrentWriterProcessesLoseNothing) {
  TempDir t;
  const std::string path = (t.path / "concurrent.db").string();
  { ResultsDb db(path); }
  const int per_writer = 12, measurements = 15;
  std::vector<pid_t> kids;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        ResultsDb db(path);
        for (int i = 0; i < per_writer; ++i) db.insert_run(make_run(measurements, 5, 100 * w + i));
      } catch (...) {
        rc = 1;
      }
      _exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ResultsDb db(path);
  EXPECT_EQ(db.run_count(), 2 * per_writer);
  for (const auto& r : db.list_runs()) EXPECT_EQ(r.measurement_count, measurements) << "run " << r.id;
  EXPECT_EQ(scalar(path, "SELECT COUNT(*) FROM samples"), 2 * per_writer * measurements * 5);
  EXPECT_EQ(db.integrity_check(), "ok");
}

TEST(ResultsDb, WriterKilledMidTransactionLeavesNoPartialRun) {
  TempDir t;
  const std::string path = (t.path / "killed.db").string();
  {
    ResultsDb db(path);
    db.insert_run(make_run(4, 3, 1));
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    ResultsDb db(path);
    db.insert_run(make_run(50, 5, 2), [&](size_t i) {
      if (i == 20) {  // half-way through the transaction: tell the parent, then wait to be killed
        char c = 'x';
        (void)!write(fds[1], &c, 1);
        for (;;) pause();
      }
    });
    _exit(0);
  }
  close(fds[1]);
  char c = 0;
  ASSERT_EQ(read(fds[0], &c, 1), 1);
  close(fds[0]);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ResultsDb db(path);
  EXPECT_EQ(db.integrity_check(), "ok");
  EXPECT_EQ(db.run_count(), 1);
  EXPECT_EQ(scalar(path, "SELECT COUNT(*) FROM measurements"), 4);
  EXPECT_EQ(scalar(path, "SELECT COUNT(*) FROM samples"), 12);
  // The database is writable again right away (the dead writer's lock is gone).
  const int64_t id = db.insert_run(make_run(2, 2, 3));
  EXPECT_EQ(db.load_run(id).measurements.size(), 2u);
}

// Question (review of 2026-12-04): is a relative XDG_DATA_HOME ignored, as the XDG specification
// says, so that the default database does not depend on the working directory?
TEST(ResultsDb, ARelativeXdgDataHomeIsIgnored) {
  const char* old_xdg = std::getenv("XDG_DATA_HOME");
  const char* old_home = std::getenv("HOME");
  const std::string saved = old_xdg ? old_xdg : "", saved_home = old_home ? old_home : "";
  ::setenv("HOME", "/home/tester", 1);
  ::setenv("XDG_DATA_HOME", "rel", 1);
  EXPECT_EQ(default_db_path(), "/home/tester/.local/share/sextant/results.db");
  ::setenv("XDG_DATA_HOME", "/data/x", 1);
  EXPECT_EQ(default_db_path(), "/data/x/sextant/results.db");
  if (old_xdg) ::setenv("XDG_DATA_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_DATA_HOME");
  if (old_home) ::setenv("HOME", saved_home.c_str(), 1);
  else ::unsetenv("HOME");
}

namespace {
void exec_sql(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  sqlite3_open(path.c_str(), &raw);
  char* err = nullptr;
  const int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(raw);
  ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << msg;
}
}  // namespace

// Question (review of 2026-12-07): is a sample that is not a finite number >= 0 (text, a blob, a
// negative or infinite number) refused as damage naming the file, the run, the case, the metric
// and what a sample is? The text 'abc' was read as 0 (sqlite3_column_double), and -1 and Inf as
// they were: `history compare` gave a median of 0 and an "improvement".
TEST(ResultsDb, ASampleThatIsNotAFiniteNumberAtLeastZeroIsDamage) {
  TempDir t;
  const std::string path = (t.path / "samples.db").string();
  int64_t id = 0;
  {
    ResultsDb db(path);
    id = db.insert_run(make_run(2, 3, 1.0));
  }
  // case1 (latency_s), repetition 1.
  const std::string where = "WHERE rep=1 AND measurement_id=(SELECT id FROM measurements WHERE name='case1')";
  for (const auto& [value, shown] : std::vector<std::pair<std::string, std::string>>{
           {"'abc'", "the text 'abc'"}, {"x'00ff'", "a blob"}, {"-1e-3", "-0.001"}, {"9e999", "inf"}, {"-9e999", "-inf"}}) {
    exec_sql(path, "UPDATE samples SET value=" + value + " " + where);
    const ResultsDb db = ResultsDb::open_existing(path);
    try {
      db.load_run(id);
      ADD_FAILURE() << "loaded a run with the sample " << value;
    } catch (const sextant::Error& e) {
      const std::string w = e.what();
      for (const std::string& part : {path, "run " + std::to_string(id), std::string("samples.value"), std::string("not what sextant writes"),
                                      std::string("s/case1 (latency_s), repetition 1"), shown, std::string("a finite number >= 0")})
        EXPECT_NE(w.find(part), std::string::npos) << part << " not in: " << w;
    }
  }
  // 0 is a sample (a short command's user_s); a whole number SQLite keeps as an integer too.
  exec_sql(path, "UPDATE samples SET value=0 " + where);
  EXPECT_EQ(ResultsDb::open_existing(path).load_run(id).measurements[1].samples[1], 0.0);
  exec_sql(path, "UPDATE samples SET value=CAST(7 AS INTEGER) " + where);
  EXPECT_EQ(ResultsDb::open_existing(path).load_run(id).measurements[1].samples[1], 7.0);
  // Nor is one written: a run with a negative or infinite sample is refused whole.
  ResultsDb db(path);
  for (const double bad : {-1.0, HUGE_VAL, std::nan("")}) {
    RunRecord r = make_run(2, 3, 1.0);
    r.measurements[1].samples[2] = bad;
    try {
      db.insert_run(r);
      ADD_FAILURE() << "stored the sample " << bad;
    } catch (const sextant::Error& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find("case s / case1 / latency_s: repetition 2"), std::string::npos) << w;
      EXPECT_NE(w.find("a finite number >= 0"), std::string::npos) << w;
    }
  }
  EXPECT_EQ(db.run_count(), 1);
}

// Question (review of 2026-12-07): is a start time that is not one as sextant writes it refused
// by load_run (runs are ordered by that text: 'yesterday' was the newest run), naming the file,
// the run, the form sextant writes and the sqlite3 commands that repair or delete the run; and
// does the damage stay with that run (second review of 2026-12-07: one such run failed list_runs
// and latest for every run): list_runs lists it last with start_fault, latest passes over it.
TEST(ResultsDb, AStartTimeNotAsSextantWritesItIsDamageOfThatRunOnly) {
  TempDir t;
  const std::string path = (t.path / "started.db").string();
  int64_t first = 0, second = 0, third = 0;
  {
    ResultsDb db(path);
    first = db.insert_run(make_run(1, 2, 1.0));
    second = db.insert_run(make_run(1, 2, 1.0));
    third = db.insert_run(make_run(1, 2, 1.0));
  }
  for (const std::string bad : {"yesterday", "2026-13-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z", "2026-12-07 09:30:00",
                                "2026-12-07T09:30:00.000Z junk", "", "9999-12-31T23:59:59.999Z"}) {
    // The damaged run is the middle one; "9999-..." is valid and then the newest.
    exec_sql(path, "UPDATE runs SET started_at='" + bad + "' WHERE id=" + std::to_string(second));
    const ResultsDb db = ResultsDb::open_existing(path);
    if (bad.rfind("9999", 0) == 0) {
      EXPECT_EQ(db.resolve_run("latest"), second);
      EXPECT_TRUE(db.runs_with_damaged_start().empty());
      continue;
    }
    try {
      db.load_run(second);
      ADD_FAILURE() << "load_run took the start time '" << bad << "'";
    } catch (const sextant::Error& e) {
      const std::string w = e.what();
      for (const std::string& part : {path, "run " + std::to_string(second), std::string("runs.started_at"), "'" + bad + "'",
                                      std::string("not what sextant writes"), std::string("e.g. 2026-12-07T09:30:00.000Z"),
                                      std::string("UPDATE runs SET started_at='"), " WHERE id=" + std::to_string(second) + "\"",
                                      "\"PRAGMA foreign_keys=ON; DELETE FROM runs WHERE id=" + std::to_string(second) + "\""})
        EXPECT_NE(w.find(part), std::string::npos) << part << " not in: " << w;
    }
    const auto runs = db.list_runs();
    ASSERT_EQ(runs.size(), 3u) << bad;
    EXPECT_EQ(runs[0].id, third);
    EXPECT_EQ(runs[1].id, first);
    EXPECT_EQ(runs[2].id, second);  // last, with the stored text and why it is damaged
    EXPECT_EQ(runs[2].started_at, bad);
    EXPECT_NE(runs[2].start_fault.find("not a start time as sextant writes it"), std::string::npos);
    EXPECT_TRUE(runs[0].start_fault.empty() && runs[1].start_fault.empty());
    EXPECT_EQ(db.list_runs(1).at(0).id, third);
    EXPECT_EQ(db.runs_with_damaged_start(), std::vector<int64_t>{second});
    EXPECT_EQ(db.resolve_run("latest"), third);
    EXPECT_EQ(db.resolve_run("latest~1"), first);  // passes over the damaged run
    try {
      db.resolve_run("latest~2");
      ADD_FAILURE() << "latest~2 resolved with two valid runs";
    } catch (const sextant::Error& e) {
      EXPECT_NE(std::string(e.what()).find("1 more with a damaged start time"), std::string::npos) << e.what();
    }
    EXPECT_EQ(db.load_run(first).id, first);  // the other runs still load by id
    EXPECT_EQ(db.load_run(third).id, third);
  }
  exec_sql(path, "UPDATE runs SET started_at='2024-02-29T23:59:59.999Z' WHERE id=" + std::to_string(second));
  ResultsDb db(path);
  EXPECT_EQ(db.list_runs().size(), 3u);
  EXPECT_EQ(db.resolve_run("latest"), third);
  // Nor is one written.
  RunRecord r = make_run(1, 2, 1.0);
  r.started_at = "yesterday";
  EXPECT_THROW(db.insert_run(r), sextant::Error);
  EXPECT_EQ(db.run_count(), 3);
}
