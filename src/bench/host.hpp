#pragma once
// The host a benchmark runs on: identity (its fingerprint in the results database) and the
// CPU's theoretical peak, derived from the clock and the vector instruction set.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sextant::bench {

struct CpuInfo {
  std::string model;                // "model name"
  int logical_cpus = 0;             // processor entries
  int physical_cores = 0;           // distinct (physical id, core id); 0 when not listed
  double max_mhz = 0;               // highest "cpu MHz" seen
  double model_ghz = 0;             // "@ 2.40GHz" in the model name; 0 when absent
  std::vector<std::string> flags;   // of the first processor
  std::string vendor;               // "vendor_id": GenuineIntel, AuthenticAMD, ...
  int family = 0;                   // "cpu family" (AMD Zen 4: 25, Zen 5: 26)
  bool has(const std::string& flag) const;
};

// Parses the text of /proc/cpuinfo (x86 layout; other layouts yield what they have).
CpuInfo parse_cpuinfo(const std::string& text);

// Floating-point operations per cycle per core by vector ISA, from the flags. One FMA counts two
// operations; two vector FMA pipes per core are assumed (true of Intel cores since Haswell
// (server Skylake-SP Gold 6xxx/Platinum for AVX-512) and AMD Zen 2 and later; the assumption
// is written into every peak's provenance). AMD Zen 4 (cpu family 25 with avx512f) executes
// 512-bit instructions on its 256-bit units in two passes: its AVX-512 rate is the AVX2 rate
// (16 fp64 FLOP/cycle), not 32.
struct CpuVectorPeak {
  std::string isa;             // avx512+fma | avx2+fma | avx | sse2
  double fp64_flops_per_cycle = 0;
  double fp32_flops_per_cycle = 0;
  double bf16_flops_per_cycle = 0;  // 0 when the CPU has no bf16 dot-product instructions
  std::string bf16_isa;              // amx_bf16 | avx512_bf16 | ""
};
CpuVectorPeak cpu_vector_peak(const CpuInfo& cpu);

struct HostInfo {
  std::string hostname, kernel, os;
  CpuInfo cpu;
  double cpu_ghz = 0;               // clock used for the peak
  std::string cpu_ghz_source;       // where it came from
  int64_t memory_bytes = 0;
  int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // per instance, from sysfs; 0 unknown
  std::string gpu;                  // GPU models, comma-separated; empty when none
  std::string gpu_driver;
  std::string sextant_version;

  // Stable identity: a hex hash of hostname, CPU model, logical CPUs, memory, kernel, GPU and
  // driver. Two runs on the same machine and software share it.
  std::string fingerprint() const;
  nlohmann::ordered_json to_json() const;
  static HostInfo from_json(const nlohmann::json& j);
  // Peak FLOP/s of `threads` cores for dtype "fp64", "fp32" or "bf16" (0 when unknown).
  double peak_flops(const std::string& dtype, int threads) const;
  std::string peak_provenance(const std::string& dtype, int threads) const;
};

// Reads /proc/cpuinfo, /proc/meminfo, uname, /sys cache and cpufreq, /proc/driver/nvidia.
HostInfo detect_host();

const char* sextant_version();

}  // namespace sextant::bench
