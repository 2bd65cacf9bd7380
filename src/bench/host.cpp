#include "bench/host.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/random.hpp"

#ifndef SEXTANT_VERSION_STRING
#define SEXTANT_VERSION_STRING "unknown"
#endif

namespace sextant::bench {
namespace fs = std::filesystem;

const char* sextant_version() { return SEXTANT_VERSION_STRING; }

namespace {
std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int64_t parse_size_text(const std::string& t) {  // "32K", "1024K", "32M"
  std::string s = trim(t);
  if (s.empty()) return 0;
  double v = std::atof(s.c_str());
  char u = s.back();
  if (u == 'K' || u == 'k') v *= 1024;
  else if (u == 'M') v *= 1024.0 * 1024;
  else if (u == 'G') v *= 1024.0 * 1024 * 1024;
  return static_cast<int64_t>(v);
}
}  // namespace

bool CpuInfo::has(const std::string& flag) const { return std::find(flags.begin(), flags.end(), flag) != flags.end(); }

CpuInfo parse_cpuinfo(const std::string& text) {
  CpuInfo c;
  std::istringstream in(text);
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;
  std::string phys;
  bool first_flags = true;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(line.substr(0, colon)), val = trim(line.substr(colon + 1));
    if (key == "processor") ++c.logical_cpus;
    else if (key == "model name" && c.model.empty()) c.model = val;
    else if (key == "cpu MHz") c.max_mhz = std::max(c.max_mhz, std::atof(val.c_str()));
    else if (key == "vendor_id" && c.vendor.empty()) c.vendor = val;
    else if (key == "cpu family" && c.family == 0) c.family = std::atoi(val.c_str());
    else if (key == "physical id") phys = val;
    else if (key == "core id") cores.insert({phys, val});
    else if ((key == "flags" || key == "Features") && first_flags) {
      std::istringstream fs(val);
      std::string f;
      while (fs >> f) c.flags.push_back(f);
      first_flags = false;
    }
  }
  c.physical_cores = static_cast<int>(cores.size());
  auto at = c.model.find('@');
  if (at != std::string::npos) {
    double g = std::atof(c.model.c_str() + at + 1);
    if (c.model.find("GHz", at) != std::string::npos) c.model_ghz = g;
  }
  return c;
}

CpuVectorPeak cpu_vector_peak(const CpuInfo& cpu) {
  CpuVectorPeak p;
  const bool fma = cpu.has("fma");
  const bool zen4 = cpu.vendor == "AuthenticAMD" && cpu.family == 25;
  if (cpu.has("avx512f") && fma && zen4) {
    // Zen 4 splits a 512-bit operation over its 256-bit pipes (before 2026-12-03 it was counted
    // as 32 FLOP/cycle, twice its rate: an EPYC 9xx4's efficiency read half).
    p.isa = "avx512+fma (zen4: 256-bit units)";
    p.fp64_flops_per_cycle = 4 * 2 * 2;
  } else if (cpu.has("avx512f") && fma) {
    p.isa = "avx512+fma";
    p.fp64_flops_per_cycle = 8 * 2 * 2;  // 8 lanes x FMA x 2 pipes
  } else if (cpu.has("avx2") && fma) {
    p.isa = "avx2+fma";
    p.fp64_flops_per_cycle = 4 * 2 * 2;
  } else if (cpu.has("avx")) {
    p.isa = "avx";
    p.fp64_flops_per_cycle = 4 * 2;  // one add + one multiply pipe
  } else {
    p.isa = "sse2";
    p.fp64_flops_per_cycle = 2 * 2;
  }
  p.fp32_flops_per_cycle = 2 * p.fp64_flops_per_cycle;
  if (cpu.has("amx_bf16")) {
    p.bf16_isa = "amx_bf16";
    p.bf16_flops_per_cycle = 1024;  // AMX TMUL: 512 bf16 multiply-adds per cycle
  } else if (cpu.has("avx512_bf16")) {
    p.bf16_isa = "avx512_bf16";
    p.bf16_flops_per_cycle = 2 * p.fp32_flops_per_cycle;  // vdpbf16ps: 2 products per fp32 lane
  }
  return p;
}

// The cores `threads` threads run on: SMT siblings share a core's vector units, so threads beyond
// the physical cores add no peak (Linux spreads threads over cores before siblings). Before
// 2026-12-02 the thread count was taken as cores: a 16-core, 32-thread host had twice its peak.
static int cores_for(const CpuInfo& cpu, int threads) {
  return cpu.physical_cores > 0 ? std::min(threads, cpu.physical_cores) : threads;
}

double HostInfo::peak_flops(const std::string& dtype, int threads) const {
  const CpuVectorPeak v = cpu_vector_peak(cpu);
  double per_cycle = dtype == "fp64" ? v.fp64_flops_per_cycle
                     : dtype == "fp32" ? v.fp32_flops_per_cycle
                     : dtype == "bf16" ? (v.bf16_flops_per_cycle > 0 ? v.bf16_flops_per_cycle : v.fp32_flops_per_cycle)
                                       : 0;
  return per_cycle * cpu_ghz * 1e9 * cores_for(cpu, threads);
}

std::string HostInfo::peak_provenance(const std::string& dtype, int threads) const {
  if (!(cpu_ghz > 0))
    return "unknown: no CPU clock could be read (cpufreq cpuinfo_max_freq, /proc/cpuinfo cpu MHz, a GHz figure in the model "
           "name), so no peak is derived";
  const CpuVectorPeak v = cpu_vector_peak(cpu);
  double per_cycle = dtype == "fp64" ? v.fp64_flops_per_cycle
                     : dtype == "fp32" ? v.fp32_flops_per_cycle
                                       : v.bf16_flops_per_cycle;
  const int cores = cores_for(cpu, threads);
  // Threads beyond the cores: SMT siblings where the host has them, else more threads than CPUs
  // (time-shared; called SMT siblings on a host of one thread per core before 2026-12-04).
  const bool oversubscribed = cpu.logical_cpus > 0 && threads > cpu.logical_cpus;
  const std::string on =
      cores == threads ? fmt::format("{} cores", cores)
      : oversubscribed ? fmt::format("{} cores ({} threads on {} logical CPUs: oversubscribed, the threads time-share them)", cores, threads,
                                     cpu.logical_cpus)
                       : fmt::format("{} cores ({} threads on {} physical cores: SMT siblings share a core's vector units)", cores, threads,
                                     cpu.physical_cores);
  if (dtype == "bf16" && per_cycle == 0)
    return fmt::format("{} x {} GHz ({}) x {} fp32 FLOP/cycle ({}; no bf16 instructions in /proc/cpuinfo flags, "
                       "so bf16 GEMMs convert to fp32 and run at the fp32 FMA rate; 2 vector FMA pipes assumed)",
                       on, fmt::format("{:g}", cpu_ghz), cpu_ghz_source, v.fp32_flops_per_cycle, v.isa);
  return fmt::format("{} x {} GHz ({}) x {} {} FLOP/cycle ({}, from /proc/cpuinfo flags; 2 vector FMA pipes assumed)",
                     on, fmt::format("{:g}", cpu_ghz), cpu_ghz_source, per_cycle, dtype, dtype == "bf16" ? v.bf16_isa : v.isa);
}

std::string HostInfo::fingerprint() const {
  const std::string id = fmt::format("{}|{}|{}|{}|{}|{}|{}", hostname, cpu.model, cpu.logical_cpus, memory_bytes,
                                     kernel, gpu, gpu_driver);
  uint64_t h = 0x6a09e667f3bcc908ULL;
  for (unsigned char ch : id) h = mix64(h ^ ch);
  return fmt::format("{:016x}", h);
}

nlohmann::ordered_json HostInfo::to_json() const {
  nlohmann::ordered_json j;
  j["fingerprint"] = fingerprint();
  j["hostname"] = hostname;
  j["cpu_model"] = cpu.model;
  j["logical_cpus"] = cpu.logical_cpus;
  j["physical_cores"] = cpu.physical_cores;
  j["cpu_ghz"] = cpu_ghz;
  j["cpu_ghz_source"] = cpu_ghz_source;
  j["cpu_flags"] = cpu.flags;
  j["memory_bytes"] = memory_bytes;
  j["l1d_bytes"] = l1d_bytes;
  j["l2_bytes"] = l2_bytes;
  j["l3_bytes"] = l3_bytes;
  j["kernel"] = kernel;
  j["os"] = os;
  j["gpu"] = gpu;
  j["gpu_driver"] = gpu_driver;
  j["sextant_version"] = sextant_version;
  return j;
}

HostInfo HostInfo::from_json(const nlohmann::json& j) {
  // A fact absent or null is unknown: 0 or "" here, as stored since the first schema (older
  // databases hold 0 for what a run did not know; run_result shows both as missing). A null had
  // thrown nlohmann's type error (review of 2026-12-06).
  auto get = [&j]<class T>(const char* key, T fallback) -> T {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? fallback : it->template get<T>();
  };
  HostInfo h;
  h.hostname = get("hostname", std::string());
  h.cpu.model = get("cpu_model", std::string());
  h.cpu.logical_cpus = get("logical_cpus", 0);
  h.cpu.physical_cores = get("physical_cores", 0);
  h.cpu_ghz = get("cpu_ghz", 0.0);
  h.cpu_ghz_source = get("cpu_ghz_source", std::string());
  if (j.contains("cpu_flags") && !j["cpu_flags"].is_null()) h.cpu.flags = j["cpu_flags"].get<std::vector<std::string>>();
  h.memory_bytes = get("memory_bytes", int64_t{0});
  h.l1d_bytes = get("l1d_bytes", int64_t{0});
  h.l2_bytes = get("l2_bytes", int64_t{0});
  h.l3_bytes = get("l3_bytes", int64_t{0});
  h.kernel = get("kernel", std::string());
  h.os = get("os", std::string());
  h.gpu = get("gpu", std::string());
  h.gpu_driver = get("gpu_driver", std::string());
  h.sextant_version = get("sextant_version", std::string());
  return h;
}

HostInfo detect_host() {
  HostInfo h;
  h.sextant_version = sextant_version();
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  struct utsname u {};
  if (uname(&u) == 0) {
    h.kernel = std::string(u.sysname) + " " + u.release;
  }
  {
    std::istringstream in(slurp("/etc/os-release"));
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("PRETTY_NAME=", 0) == 0) {
        h.os = line.substr(12);
        h.os.erase(std::remove(h.os.begin(), h.os.end(), '"'), h.os.end());
      }
  }
  h.cpu = parse_cpuinfo(slurp("/proc/cpuinfo"));
  if (h.cpu.logical_cpus == 0) h.cpu.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const std::string maxf = trim(slurp("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"));
  if (!maxf.empty()) {
    h.cpu_ghz = std::atof(maxf.c_str()) / 1e6;
    h.cpu_ghz_source = "cpufreq cpuinfo_max_freq";
  } else if (h.cpu.max_mhz > 0) {
    h.cpu_ghz = h.cpu.max_mhz / 1e3;
    h.cpu_ghz_source = "/proc/cpuinfo cpu MHz";
  } else if (h.cpu.model_ghz > 0) {
    h.cpu_ghz = h.cpu.model_ghz;
    h.cpu_ghz_source = "CPU model name";
  }
  {
    std::istringstream in(slurp("/proc/meminfo"));
    std::string k;
    int64_t kb = 0;
    while (in >> k >> kb) {
      if (k == "MemTotal:") {
        h.memory_bytes = kb * 1024;
        break;
      }
      std::string rest;
      std::getline(in, rest);
    }
  }
  const fs::path cache = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code ec;
  if (fs::is_directory(cache, ec)) {
    for (const auto& e : fs::directory_iterator(cache, ec)) {
      if (e.path().filename().string().rfind("index", 0) != 0) continue;
      const std::string level = trim(slurp((e.path() / "level").string()));
      const std::string type = trim(slurp((e.path() / "type").string()));
      const int64_t size = parse_size_text(slurp((e.path() / "size").string()));
      if (level == "1" && type == "Data") h.l1d_bytes = size;
      if (level == "2") h.l2_bytes = size;
      if (level == "3") h.l3_bytes = size;
    }
  }
  const std::string nv = slurp("/proc/driver/nvidia/version");
  if (!nv.empty()) {
    // "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  Release Build ...":
    // the driver version is the first token of the first line made of digits and dots.
    const std::string line = nv.substr(0, nv.find('\n'));
    std::istringstream in(line);
    for (std::string tok; in >> tok;) {
      const bool version = !tok.empty() && std::isdigit(static_cast<unsigned char>(tok[0])) && tok.find('.') != std::string::npos &&
                           tok.find_first_not_of("0123456789.") == std::string::npos;
      if (version) {
        h.gpu_driver = tok;
        break;
      }
    }
    if (h.gpu_driver.empty()) h.gpu_driver = trim(line);
    std::vector<std::string> models;
    if (fs::is_directory("/proc/driver/nvidia/gpus", ec)) {
      for (const auto& g : fs::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
        std::istringstream info(slurp((g.path() / "information").string()));
        std::string l;
        while (std::getline(info, l))
          if (l.rfind("Model:", 0) == 0) models.push_back(trim(l.substr(6)));
      }
    }
    std::sort(models.begin(), models.end());
    for (size_t i = 0; i < models.size(); ++i) h.gpu += (i ? ", " : "") + models[i];
  }
  return h;
}

}  // namespace sextant::bench
