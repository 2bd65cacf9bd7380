#include "bench/process.hpp"

#include <cstdio>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bench/timing.hpp"
#include "core/error.hpp"

extern char** environ;

namespace sextant::bench {
namespace fs = std::filesystem;

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : std::string();
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::string p = path;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string cand = dir + "/" + name;
    struct stat st {};
    if (stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return {};
}

namespace {
// Bytes of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, surrogates or code points
// above U+10FFFF) that starts at s[i]; 0 when none does.
size_t utf8_sequence_bytes(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  const unsigned char c = b(0);
  const auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) { return b(k) >= lo && b(k) <= hi; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
}  // namespace

std::string shell_quote(const std::string& word, bool first_word) {
  const auto plain = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || std::strchr("@%+=:,./-_", c) != nullptr;
  };
  // '=' first: zsh (EQUALS, on by default) expands =x to the path of command x; '%' first in
  // argv[0]: bash reads %1 as a job (review of 2026-12-05).
  bool is_plain = !word.empty() && !(first_word && word.find('=') != std::string::npos) && word.front() != '=' &&
                  !(first_word && word.front() == '%');
  bool needs_escapes = false;
  for (size_t i = 0; i < word.size();) {
    const auto c = static_cast<unsigned char>(word[i]);
    const size_t n = utf8_sequence_bytes(word, i);
    is_plain = is_plain && c != 0 && plain(c);
    if (n == 0 || c < 0x20 || c == 0x7F) needs_escapes = true;
    i += n == 0 ? 1 : n;
  }
  if (is_plain) return word;
  std::string out;
  if (!needs_escapes) {
    out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    return out + "'";
  }
  out = "$'";
  for (size_t i = 0; i < word.size();) {
    const auto c = static_cast<unsigned char>(word[i]);
    const size_t n = utf8_sequence_bytes(word, i);
    if (n == 0 || c < 0x20 || c == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
      ++i;
      continue;
    }
    if (c == '\\' || c == '\'') out += '\\';
    out.append(word, i, n);
    i += n;
  }
  return out + "'";
}

std::string shell_command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (size_t i = 0; i < argv.size(); ++i) out += (i ? " " : "") + shell_quote(argv[i], i == 0);
  return out;
}

std::string executable_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

ProcessResult run_process(const std::vector<std::string>& argv, bool capture, bool quiet, double timeout_s) {
  if (argv.empty()) throw Error(SourceLocation{"", 0, 0, "command"}, "no command given");
  const std::string exe = find_in_path(argv[0]);
  if (exe.empty()) throw Error(SourceLocation{"", 0, 0, "command"}, "command not found: '" + argv[0] + "'", "check PATH");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pipefd[2] = {-1, -1};
  if (capture && pipe2(pipefd, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  // posix_spawn (vfork-like): the child does not copy this process's pages, but it starts in this
  // process's memory, and Linux keeps that memory's peak in the child's ru_maxrss across exec
  // (exec_mmap records the old memory's high-water mark). So ru_maxrss is at least this process's
  // own peak: it is read (VmHWM) and reported as the floor of the figure.
  int64_t floor_bytes = 0;
  {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (f) {
      char line[256];
      long long kb = 0;
      while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1) {
          floor_bytes = kb * 1024;
          break;
        }
      std::fclose(f);
    }
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (capture) {
    // A helper (mpirun) reads nothing from the user: its stdin is /dev/null. mpirun forwards stdin
    // to rank 0 and had consumed the rest of a shell loop's input (`while read c; do ... bench ...`),
    // 2026-12-03.
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  } else if (quiet) {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const double t0 = now_s();
  pid_t pid = 0;
  const int spawn_err = posix_spawn(&pid, exe.c_str(), &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (spawn_err != 0) {
    if (capture) {
      close(pipefd[0]);
      close(pipefd[1]);
    }
    throw Error(SourceLocation{"", 0, 0, "command"}, "cannot run '" + exe + "': " + std::strerror(spawn_err));
  }
  if (capture) close(pipefd[1]);
  ProcessResult r;
  bool killed = false;
  if (capture) {
    char buf[65536];
    for (;;) {
      int wait_ms = -1;
      if (timeout_s > 0) {
        const double left = timeout_s - (now_s() - t0);
        if (left <= 0) {
          kill(-pid, SIGKILL);
          killed = true;
          break;
        }
        wait_ms = static_cast<int>(left * 1000) + 1;
      }
      pollfd pfd{pipefd[0], POLLIN, 0};
      const int pr = poll(&pfd, 1, wait_ms);
      if (pr < 0 && errno == EINTR) continue;
      if (pr == 0) continue;
      const ssize_t n = read(pipefd[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      r.output.append(buf, static_cast<size_t>(n));
    }
    close(pipefd[0]);
  }
  int status = 0;
  rusage ru {};
  for (;;) {
    pid_t w;
    if (timeout_s > 0 && !killed) {
      w = wait4(pid, &status, WNOHANG, &ru);
      if (w == 0) {
        if (now_s() - t0 > timeout_s) {
          kill(-pid, SIGKILL);
          killed = true;
        } else {
          usleep(1000);
        }
        continue;
      }
    } else {
      w = wait4(pid, &status, 0, &ru);
    }
    if (w < 0 && errno == EINTR) continue;
    break;
  }
  r.wall_s = now_s() - t0;
  r.user_s = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec * 1e-6;
  r.sys_s = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec * 1e-6;
  r.max_rss_bytes = static_cast<int64_t>(ru.ru_maxrss) * 1024;
  r.max_rss_floor_bytes = floor_bytes;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace sextant::bench
