#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace sextant {

namespace {

// ---- live temporaries (see the header: signal-safety state, nothing else reads it)
std::array<std::atomic<char*>, kMaxLiveTemporaries> g_live_temps{};
std::atomic<unsigned long> g_temp_counter{0};

int register_temp(const std::string& tmp) {
  char* copy = static_cast<char*>(std::malloc(tmp.size() + 1));
  if (!copy) return -1;
  std::memcpy(copy, tmp.c_str(), tmp.size() + 1);
  for (size_t i = 0; i < g_live_temps.size(); ++i) {
    char* expected = nullptr;
    if (g_live_temps[i].compare_exchange_strong(expected, copy)) return static_cast<int>(i);
  }
  std::free(copy);
  return -1;
}

void unregister_temp(const std::string& tmp) {
  for (auto& slot : g_live_temps) {
    char* p = slot.load();
    if (p && tmp == p && slot.compare_exchange_strong(p, nullptr)) {
      std::free(p);
      return;
    }
  }
}

extern "C" void cleanup_temps_and_reraise(int sig) {
  for (auto& slot : g_live_temps) {
    char* p = slot.load();
    if (p) ::unlink(p);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

bool is_stdout(const std::string& path) { return path == "-" || path == "/dev/stdout"; }

bool is_special(const std::string& path) {
  if (is_stdout(path)) return true;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

std::string errno_text(int e) { return std::strerror(e); }

// Writes all of content to fd; returns 0 or an errno value.
int write_all(int fd, std::string_view content) {
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    off += static_cast<size_t>(n);
  }
  return 0;
}

void write_special(const std::string& path, std::string_view content) {
  if (is_stdout(path)) {
    std::fflush(stdout);
    if (int e = write_all(STDOUT_FILENO, content))
      throw Error(SourceLocation{path}, "cannot write to standard output: " + errno_text(e));
    return;
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw Error(SourceLocation{path}, "cannot open for writing: " + errno_text(errno));
  int e = write_all(fd, content);
  if (::close(fd) != 0 && e == 0) e = errno;
  if (e) throw Error(SourceLocation{path}, "write failed: " + errno_text(e));
}

// Blocks the signals that the cleanup handler catches for the lifetime of the object.
class SignalBlock {
 public:
  SignalBlock() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~SignalBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t old_;
};

}  // namespace

AtomicFileSet::~AtomicFileSet() {
  if (committed_) return;
  for (const auto& e : entries_) {
    if (e.tmp.empty()) continue;
    ::unlink(e.tmp.c_str());
    unregister_temp(e.tmp);
  }
}

// Two outputs of one run at one place: the later overwrote the earlier (`--timeline t.json --json
// t.json` kept only the trace), or two documents ran together on standard output. /dev/null may
// take any number.
void AtomicFileSet::check_distinct(const std::string& path) const {
  auto key = [](const std::string& p) {
    if (is_stdout(p)) return std::string("<standard output>");
    std::error_code ec;
    const auto c = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
    return ec ? p : c.string();
  };
  const std::string k = key(path);
  if (k == "/dev/null") return;
  for (const auto& e : entries_)
    if (key(e.path) == k)
      throw Error(SourceLocation{path}, "two outputs of this run are written to " + (is_stdout(path) ? std::string("standard output") : "the same file") +
                                            ": one would overwrite or run into the other",
                  "give each output (--json, --csv, --report, --timeline, ...) its own path");
}

// An existing symbolic link is written through, as writing to it does: renaming the temporary over
// it had replaced the link by a regular file and left its target as it was (2026-12-05 review).
static std::string through_links(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  std::error_code ec;
  const auto target = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : target.string();
}

std::string AtomicFileSet::reserve(const std::string& path_in) {
  const std::string path = through_links(path_in);
  // A writer that creates its file by name cannot write a device, a FIFO or standard output, and
  // renaming over one replaced it (`--report /dev/null` made /dev/null a 1 MB regular file; review
  // of 2026-12-05): it writes a temporary in the system's temporary folder, copied to the target
  // at commit(), as staged contents are.
  if (is_special(path)) {
    check_distinct(path);
    std::error_code ec;
    const auto dir = std::filesystem::temp_directory_path(ec);
    std::string tmp = (ec ? std::filesystem::path("/tmp") : dir).string() + "/sextant-out." + std::to_string(::getpid()) + "." +
                      std::to_string(g_temp_counter.fetch_add(1));
    register_temp(tmp);
    entries_.push_back(Entry{path, tmp, {}, true});
    return tmp;
  }
  check_distinct(path);
  // An output creates its folder, as --csv DIR does (`--json out/r.json` failed where `--csv out/`
  // beside it would have made out/).
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw Error(SourceLocation{path}, "cannot create the output's folder " + parent.string() + ": " + ec.message());
  }
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(g_temp_counter.fetch_add(1));
  register_temp(tmp);
  entries_.push_back(Entry{path, tmp, {}});
  return tmp;
}

void AtomicFileSet::stage(const std::string& path_in, std::string_view content) {
  const std::string path = path_in.find('\0') == std::string::npos ? through_links(path_in) : path_in;
  if (committed_) throw Error(SourceLocation{path}, "internal: file set already committed");
  // As read_file: a NUL would cut the path short and write another file than the one named.
  if (path.find('\0') != std::string::npos)
    throw Error(SourceLocation{path.substr(0, path.find('\0'))}, "the path holds a NUL byte (\\0): no file has such a name");
  if (is_special(path)) {
    check_distinct(path);
    entries_.push_back(Entry{path, {}, std::string(content)});
    return;
  }
  const std::string tmp = reserve(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(SourceLocation{path}, "cannot open for writing: " + errno_text(errno));
  if (int e = write_all(fd, content)) {
    ::close(fd);
    throw Error(SourceLocation{path}, "write failed: " + errno_text(e));
  }
  if (::fsync(fd) != 0) {
    int e = errno;
    ::close(fd);
    throw Error(SourceLocation{path}, "fsync failed: " + errno_text(e));
  }
  if (::close(fd) != 0) throw Error(SourceLocation{path}, "close failed: " + errno_text(errno));
}

void AtomicFileSet::commit() {
  if (committed_) return;
  for (auto& e : entries_) {
    if (e.tmp.empty()) write_special(e.path, e.content);
    if (e.copy_to_special) {  // a reserved temporary for a device, FIFO or standard output
      write_special(e.path, read_file(e.tmp));
      ::unlink(e.tmp.c_str());
      unregister_temp(e.tmp);
    }
  }
  {
    SignalBlock block;  // all renames happen, or (on an error) none of the remaining ones
    for (size_t i = 0; i < entries_.size(); ++i) {
      const auto& e = entries_[i];
      if (e.tmp.empty() || e.copy_to_special) continue;
      struct stat st {};
      if (::stat(e.tmp.c_str(), &st) != 0)
        throw Error(SourceLocation{e.path}, "temporary output " + e.tmp + " was not written");
      if (::rename(e.tmp.c_str(), e.path.c_str()) != 0) {
        const int err = errno;
        throw Error(SourceLocation{e.path}, "rename failed: " + errno_text(err));
      }
      unregister_temp(e.tmp);
    }
    committed_ = true;
  }
  // After the new set is in place; a file that cannot be removed stays (the new set's index, a
  // --csv folder's tables.csv, no longer names it), so the run still succeeds.
  for (const auto& p : removals_) ::unlink(p.c_str());
}

void AtomicFileSet::remove_at_commit(const std::string& path) {
  if (committed_) throw Error(SourceLocation{path}, "internal: file set already committed");
  removals_.push_back(path);
}

void write_file_atomic(const std::string& path, std::string_view content) {
  AtomicFileSet set;
  set.stage(path, content);
  set.commit();
}

std::string read_file(const std::string& path) {
  // A NUL inside the path would cut it short at the system call: another file than the one named
  // was read (Python's "PATH\0garbage", 2026-12-05 review). Refused, as Python's open() does.
  if (path.find('\0') != std::string::npos)
    throw Error(SourceLocation{path.substr(0, path.find('\0'))}, "the path holds a NUL byte (\\0): no file has such a name");
  // O_NONBLOCK: opening a FIFO without a writer must not hang; only regular files are read
  // (a FIFO, /dev/zero or /dev/urandom would block or never end).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error(SourceLocation{path}, "cannot open file: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error(SourceLocation{path}, "cannot open file: " + errno_text(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(SourceLocation{path}, "is a directory, not a file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(SourceLocation{path}, "not a regular file (a FIFO, device or socket): refusing to read it");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string out;
  if (S_ISREG(st.st_mode) && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw Error(SourceLocation{path}, "read error at byte offset " + std::to_string(out.size()) + ": " +
                                            errno_text(e));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

void install_temp_cleanup_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = cleanup_temps_and_reraise;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // Respect an ignored signal (nohup, a shell's background job): leave it ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace sextant
