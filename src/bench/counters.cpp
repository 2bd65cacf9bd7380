#include "bench/counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace sextant::bench {
namespace fs = std::filesystem;

namespace {
long perf_open(perf_event_attr* attr, pid_t tid, int group_fd) {
  return syscall(SYS_perf_event_open, attr, tid, -1, group_fd, 0);
}

std::string read_text(const std::string& path, bool* ok) {
  std::ifstream in(path);
  std::string s;
  *ok = static_cast<bool>(in >> s);
  return s;
}

const char* kNames[3] = {"cycles_count", "instructions_count", "cache_misses_count"};
const uint64_t kConfigs[3] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CACHE_MISSES};
}  // namespace

RaplZones find_rapl_zones(const std::string& powercap_dir) {
  RaplZones z;
  std::error_code ec;
  if (!fs::is_directory(powercap_dir, ec)) {
    z.reason = powercap_dir + " absent (no RAPL powercap driver, or a virtual machine)";
    return z;
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(powercap_dir, ec)) {
    const std::string n = e.path().filename().string();
    // Package zones are intel-rapl:N (AMD exposes its packages under the same driver name);
    // sub-zones intel-rapl:N:M are parts of the package and would double count.
    if (n.rfind("intel-rapl:", 0) == 0 && n.find(':', 11) == std::string::npos) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    z.reason = "no package zone intel-rapl:N under " + powercap_dir;
    return z;
  }
  for (const auto& n : names) {
    const std::string f = powercap_dir + "/" + n + "/energy_uj";
    bool ok = false;
    read_text(f, &ok);
    if (!ok) {
      z.reason = f + " not readable (root only since Linux 5.10, CVE-2020-8694)";
      z.energy_files.clear();
      z.max_range_uj.clear();
      return z;
    }
    bool ok2 = false;
    const std::string r = read_text(powercap_dir + "/" + n + "/max_energy_range_uj", &ok2);
    z.energy_files.push_back(f);
    z.max_range_uj.push_back(ok2 ? std::atof(r.c_str()) : 0);
  }
  return z;
}

struct CounterSession::Impl {
  std::vector<std::vector<int>> fds;  // per thread: 3 fds (leader first); -1 when not opened
  std::string perf_reason;
  RaplZones rapl;
  std::vector<double> energy_start_uj;
  bool available[3] = {false, false, false};
};

CounterSession::CounterSession() : impl_(std::make_unique<Impl>()) {}

CounterSession::~CounterSession() {
  for (auto& g : impl_->fds)
    for (int fd : g)
      if (fd >= 0) close(fd);
}

void CounterSession::start() {
  Impl& im = *impl_;
  for (auto& g : im.fds)
    for (int fd : g)
      if (fd >= 0) close(fd);
  im.fds.clear();
  im.perf_reason.clear();
  std::vector<pid_t> tids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc/self/task", ec)) tids.push_back(std::atoi(e.path().filename().c_str()));
  if (tids.empty()) tids.push_back(static_cast<pid_t>(syscall(SYS_gettid)));
  for (int c = 0; c < 3; ++c) im.available[c] = true;
  for (pid_t tid : tids) {
    std::vector<int> g(3, -1);
    for (int c = 0; c < 3; ++c) {
      perf_event_attr a{};
      a.size = sizeof a;
      a.type = PERF_TYPE_HARDWARE;
      a.config = kConfigs[c];
      a.disabled = 1;
      a.exclude_kernel = 1;  // allowed at perf_event_paranoid <= 2
      a.exclude_hv = 1;
      a.inherit = 1;
      const long fd = perf_open(&a, tid, -1);
      if (fd < 0) {
        const int err = errno;
        if (err == ESRCH) continue;  // the thread ended meanwhile
        im.available[c] = false;
        bool ok = false;
        const std::string paranoid = read_text("/proc/sys/kernel/perf_event_paranoid", &ok);
        im.perf_reason = std::string("perf_event_open: ") + std::strerror(err) +
                         (ok ? " (kernel.perf_event_paranoid=" + paranoid + ")" : "") +
                         (err == ENOENT || err == EOPNOTSUPP ? " (no such hardware event, e.g. a virtual machine)" : "") +
                         (err == ENOSYS ? " (perf_event_open not supported here)" : "");
        continue;
      }
      g[c] = static_cast<int>(fd);
    }
    im.fds.push_back(g);
  }
  for (auto& g : im.fds)
    for (int fd : g)
      if (fd >= 0) {
        ioctl(fd, PERF_EVENT_IOC_RESET, 0);
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
      }
  im.rapl = find_rapl_zones();
  im.energy_start_uj.clear();
  for (const auto& f : im.rapl.energy_files) {
    bool ok = false;
    im.energy_start_uj.push_back(std::atof(read_text(f, &ok).c_str()));
  }
}

std::vector<CounterValue> CounterSession::stop() {
  Impl& im = *impl_;
  std::vector<CounterValue> out;
  double totals[3] = {0, 0, 0};
  for (auto& g : im.fds)
    for (int c = 0; c < 3; ++c) {
      if (g[c] < 0) continue;
      ioctl(g[c], PERF_EVENT_IOC_DISABLE, 0);
      uint64_t v = 0;
      if (read(g[c], &v, sizeof v) == static_cast<ssize_t>(sizeof v)) totals[c] += static_cast<double>(v);
      else im.available[c] = false;
    }
  for (int c = 0; c < 3; ++c) {
    CounterValue cv;
    cv.name = kNames[c];
    cv.available = im.available[c] && !im.fds.empty();
    if (cv.available) cv.value = totals[c];
    else cv.reason = im.perf_reason.empty() ? "perf counter could not be read" : im.perf_reason;
    out.push_back(cv);
  }
  CounterValue e;
  e.name = "energy_j";
  if (im.rapl.energy_files.empty()) {
    e.reason = im.rapl.reason;
  } else {
    double total_uj = 0;
    bool ok_all = true;
    for (size_t i = 0; i < im.rapl.energy_files.size(); ++i) {
      bool ok = false;
      double now = std::atof(read_text(im.rapl.energy_files[i], &ok).c_str());
      ok_all = ok_all && ok;
      double d = now - im.energy_start_uj[i];
      if (d < 0 && im.rapl.max_range_uj[i] > 0) d += im.rapl.max_range_uj[i];  // counter wrapped
      total_uj += d;
    }
    e.available = ok_all;
    e.value = total_uj / 1e6;
    if (!ok_all) e.reason = "RAPL energy_uj became unreadable";
  }
  out.push_back(e);
  for (auto& g : im.fds)
    for (int fd : g)
      if (fd >= 0) close(fd);
  im.fds.clear();
  return out;
}

}  // namespace sextant::bench
