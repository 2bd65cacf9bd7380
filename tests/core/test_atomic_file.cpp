// Atomic outputs (src/core/atomic_file.hpp): all-or-nothing sets, no temporaries left behind on
// errors or on SIGINT/SIGTERM, strict reading. Plus the range checks of core CSV integers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/csv.hpp"
#include "core/error.hpp"

namespace fs = std::filesystem;
using namespace sextant;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/sextant-atomic-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}
}  // namespace

TEST(AtomicFileSet, CommitReplacesEveryFile) {
  TempDir d;
  write_file_atomic((d.path / "a.csv").string(), "old a\n");
  AtomicFileSet s;
  s.stage((d.path / "a.csv").string(), "new a\n");
  s.stage((d.path / "b.csv").string(), "new b\n");
  EXPECT_EQ(slurp(d.path / "a.csv"), "old a\n");  // nothing visible before commit
  s.commit();
  EXPECT_EQ(slurp(d.path / "a.csv"), "new a\n");
  EXPECT_EQ(slurp(d.path / "b.csv"), "new b\n");
  EXPECT_EQ(names(d.path), (std::vector<std::string>{"a.csv", "b.csv"}));
}

// Question (2026-12-05 review): does an output a writer creates by name (the HTML report) keep a
// FIFO or a device a FIFO or device, and write through a symbolic link? Renaming its temporary
// over the path had made /dev/null a 1 MB regular file and replaced a link by a file.
TEST(AtomicFileSet, AReservedOutputWritesThroughFifosAndLinks) {
  TempDir d;
  const fs::path fifo = d.path / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  {
    AtomicFileSet s;
    const std::string tmp = s.reserve(fifo.string());
    EXPECT_NE(fs::path(tmp).parent_path(), d.path) << "the temporary is not written beside a FIFO";
    std::ofstream(tmp) << "report\n";
    s.commit();
  }
  reader.join();
  EXPECT_EQ(got, "report\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(names(d.path), (std::vector<std::string>{"out.fifo"}));
  // A link: the target gets the content, the link stays a link (reserved and staged alike).
  write_file_atomic((d.path / "target.html").string(), "old\n");
  fs::create_symlink(d.path / "target.html", d.path / "link.html");
  {
    AtomicFileSet s;
    std::ofstream(s.reserve((d.path / "link.html").string())) << "new\n";
    s.commit();
  }
  EXPECT_TRUE(fs::is_symlink(d.path / "link.html"));
  EXPECT_EQ(slurp(d.path / "target.html"), "new\n");
  write_file_atomic((d.path / "link.html").string(), "staged\n");
  EXPECT_TRUE(fs::is_symlink(d.path / "link.html"));
  EXPECT_EQ(slurp(d.path / "target.html"), "staged\n");
}

TEST(AtomicFileSet, UncommittedSetLeavesPreviousFilesAndNoTemporaries) {
  TempDir d;
  write_file_atomic((d.path / "a.csv").string(), "old a\n");
  {
    AtomicFileSet s;
    s.stage((d.path / "a.csv").string(), "new a\n");
    s.stage((d.path / "b.csv").string(), "new b\n");
  }
  EXPECT_EQ(names(d.path), (std::vector<std::string>{"a.csv"}));
  EXPECT_EQ(slurp(d.path / "a.csv"), "old a\n");
}

TEST(AtomicFileSet, FailureInAnyFileWritesNone) {
  TempDir d;
  write_file_atomic((d.path / "a.json").string(), "old\n");
  try {
    AtomicFileSet s;
    s.stage((d.path / "a.json").string(), "new\n");
    // a folder that cannot be made: its would-be parent is a regular file
    s.stage((d.path / "a.json" / "b.csv").string(), "b\n");
    s.commit();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a.json/b.csv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot create the output's folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(names(d.path), (std::vector<std::string>{"a.json"}));
  EXPECT_EQ(slurp(d.path / "a.json"), "old\n");
}

TEST(AtomicFileSet, AMissingFolderOfAnOutputIsCreated) {
  // as --csv DIR makes DIR: `--json out/r.json` beside it failed when out/ was not there yet
  TempDir d;
  write_file_atomic((d.path / "out" / "deeper" / "r.json").string(), "{}\n");
  EXPECT_EQ(slurp(d.path / "out" / "deeper" / "r.json"), "{}\n");
  EXPECT_EQ(names(d.path / "out" / "deeper"), (std::vector<std::string>{"r.json"}));
}

TEST(AtomicFileSet, DiskFullOnASpecialFileWritesNoRegularFile) {
  TempDir d;
  try {
    AtomicFileSet s;
    s.stage((d.path / "a.csv").string(), "a\n");
    s.stage("/dev/full", std::string(1 << 16, 'x'));
    s.commit();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(names(d.path).empty());
}

// An interrupted run: the child stages outputs, then receives SIGTERM (or SIGINT) before it can
// commit. The handler removes the temporaries and the process dies of that signal.
TEST(AtomicFileSet, SignalRemovesTemporariesAndKeepsPreviousOutputs) {
  for (int sig : {SIGTERM, SIGINT}) {
    TempDir d;
    write_file_atomic((d.path / "result.json").string(), "previous\n");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      install_temp_cleanup_on_signals();
      AtomicFileSet s;
      s.stage((d.path / "result.json").string(), "new\n");
      s.stage((d.path / "table.csv").string(), "x\n");
      ::raise(sig);
      ::_exit(0);  // not reached: the handler re-raises with the default action
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status)) << "status " << status;
    if (WIFSIGNALED(status)) {
      EXPECT_EQ(WTERMSIG(status), sig);
    }
    EXPECT_EQ(names(d.path), (std::vector<std::string>{"result.json"}));
    EXPECT_EQ(slurp(d.path / "result.json"), "previous\n");
  }
}

// Many staged files (a --csv DIR of many tables): every temporary goes.
TEST(AtomicFileSet, SignalBeforeCommitRemovesEveryStagedTemporary) {
  TempDir d;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    install_temp_cleanup_on_signals();
    AtomicFileSet s;
    for (int i = 0; i < 50; ++i) s.stage((d.path / ("t" + std::to_string(i) + ".csv")).string(), "x\n");
    ::kill(::getpid(), SIGTERM);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(names(d.path).empty());
}

TEST(ReadFile, NamesTheProblem) {
  TempDir d;
  auto message = [](const std::string& p) {
    try {
      (void)read_file(p);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message(d.path.string()).find("is a directory"), std::string::npos);
  EXPECT_NE(message((d.path / "missing").string()).find("No such file"), std::string::npos);
  const std::string mem = message("/proc/self/mem");
  EXPECT_NE(mem.find("/proc/self/mem"), std::string::npos) << mem;
  EXPECT_NE(mem.find("read error"), std::string::npos) << mem;
  write_file_atomic((d.path / "x").string(), "abc");
  EXPECT_EQ(read_file((d.path / "x").string()), "abc");
}

TEST(CsvTable, IntegersOutOfRangeAreErrors) {
  auto t = CsvTable::parse("n\n1e300\n100000000000000000\n42\n-inf\n", "t.csv");
  EXPECT_THROW((void)t.i64(0, "n"), Error);
  EXPECT_THROW((void)t.i64(1, "n"), Error);
  EXPECT_EQ(t.i64(2, "n"), 42);
  EXPECT_THROW((void)t.f64(3, "n"), Error);
}
