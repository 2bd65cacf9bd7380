// Questions: is the CPU read correctly from /proc/cpuinfo, and is the peak derived from clock
// and vector width as documented?
#include <gtest/gtest.h>

#include <cmath>

#include "bench/host.hpp"
#include "bench/runner.hpp"

using namespace sextant::bench;

static const char* kCpuinfo =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n"
    "cpu MHz\t\t: 2095.078\nphysical id\t: 0\ncore id\t\t: 0\n"
    "flags\t\t: fpu sse2 avx fma avx2 avx512f avx512bw\n\n"
    "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\ncpu MHz\t\t: 2800.5\n"
    "physical id\t: 0\ncore id\t\t: 1\nflags\t\t: fpu sse2 avx fma avx2 avx512f avx512bw\n\n";

TEST(CpuInfo, ParsesModelCountsClockAndFlags) {
  const CpuInfo c = parse_cpuinfo(kCpuinfo);
  EXPECT_EQ(c.model, "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
  EXPECT_EQ(c.logical_cpus, 2);
  EXPECT_EQ(c.physical_cores, 2);
  EXPECT_DOUBLE_EQ(c.max_mhz, 2800.5);
  EXPECT_DOUBLE_EQ(c.model_ghz, 2.10);
  EXPECT_TRUE(c.has("avx512f"));
  EXPECT_FALSE(c.has("amx_bf16"));
}

TEST(CpuPeak, FlopsPerCycleByVectorIsa) {
  CpuInfo c;
  c.flags = {"sse2"};
  EXPECT_EQ(cpu_vector_peak(c).fp64_flops_per_cycle, 4);
  c.flags = {"sse2", "avx"};
  EXPECT_EQ(cpu_vector_peak(c).fp64_flops_per_cycle, 8);
  c.flags = {"avx", "avx2", "fma"};
  EXPECT_EQ(cpu_vector_peak(c).fp64_flops_per_cycle, 16);
  EXPECT_EQ(cpu_vector_peak(c).fp32_flops_per_cycle, 32);
  EXPECT_EQ(cpu_vector_peak(c).bf16_flops_per_cycle, 0);
  c.flags = {"avx2", "fma", "avx512f", "avx512_bf16"};
  EXPECT_EQ(cpu_vector_peak(c).isa, "avx512+fma");
  EXPECT_EQ(cpu_vector_peak(c).fp64_flops_per_cycle, 32);
  EXPECT_EQ(cpu_vector_peak(c).bf16_flops_per_cycle, 128);
  // AMD Zen 4 (family 25) runs AVX-512 on 256-bit units: the AVX2 rate. Zen 5 (26) has full width.
  c.vendor = "AuthenticAMD";
  c.family = 25;
  EXPECT_EQ(cpu_vector_peak(c).fp64_flops_per_cycle, 16);
  EXPECT_EQ(cpu_vector_peak(c).bf16_flops_per_cycle, 64);
  c.family = 26;
  EXPECT_EQ(cpu_vector_peak(c).fp64_flops_per_cycle, 32);
  const CpuInfo genoa = parse_cpuinfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
      "model name\t: AMD EPYC 9654 96-Core Processor\nflags\t\t: sse2 avx fma avx2 avx512f avx512_bf16\n");
  EXPECT_EQ(genoa.vendor, "AuthenticAMD");
  EXPECT_EQ(genoa.family, 25);
  EXPECT_EQ(cpu_vector_peak(genoa).fp64_flops_per_cycle, 16);
}

TEST(CpuPeak, PeakIsCoresTimesClockTimesFlopsPerCycle) {
  HostInfo h;
  h.cpu = parse_cpuinfo(kCpuinfo);
  h.cpu_ghz = 2.1;
  h.cpu_ghz_source = "test";
  // AVX-512 + FMA: 32 fp64 / 64 fp32 FLOP per cycle per core.
  EXPECT_DOUBLE_EQ(h.peak_flops("fp64", 2), 2 * 2.1e9 * 32);
  // Four threads on the two physical cores: SMT siblings share a core's vector units, so the peak
  // is two cores' (it was four's before 2026-12-02), and the provenance says why.
  EXPECT_DOUBLE_EQ(h.peak_flops("fp32", 4), 2 * 2.1e9 * 64);
  // The test's cpuinfo lists 2 logical CPUs: 4 threads time-share them (they were called SMT
  // siblings before 2026-12-04); on a host of 4 logical CPUs over 2 cores they are SMT siblings.
  EXPECT_NE(h.peak_provenance("fp32", 4).find("4 threads on 2 logical CPUs: oversubscribed"), std::string::npos) << h.peak_provenance("fp32", 4);
  HostInfo smt = h;
  smt.cpu.logical_cpus = 4;
  EXPECT_DOUBLE_EQ(smt.peak_flops("fp32", 4), 2 * 2.1e9 * 64);
  EXPECT_NE(smt.peak_provenance("fp32", 4).find("4 threads on 2 physical cores: SMT siblings"), std::string::npos) << smt.peak_provenance("fp32", 4);
  HostInfo unknown = h;
  unknown.cpu.physical_cores = 0;  // no core ids listed (some VMs): the threads are the cores
  EXPECT_DOUBLE_EQ(unknown.peak_flops("fp32", 4), 4 * 2.1e9 * 64);
  // No bf16 instructions: bf16 GEMMs run at the fp32 rate, and the provenance says so.
  EXPECT_DOUBLE_EQ(h.peak_flops("bf16", 1), 2.1e9 * 64);
  EXPECT_NE(h.peak_provenance("bf16", 1).find("no bf16 instructions"), std::string::npos);
}

TEST(HostFingerprint, StableAndSensitiveToIdentity) {
  HostInfo a;
  a.hostname = "n1";
  a.cpu.model = "cpu";
  a.memory_bytes = 1 << 30;
  HostInfo b = a;
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  b.memory_bytes *= 2;
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  const HostInfo c = HostInfo::from_json(a.to_json());
  EXPECT_EQ(c.fingerprint(), a.fingerprint());
  const HostInfo here = detect_host();
  EXPECT_GT(here.cpu.logical_cpus, 0);
  EXPECT_GT(here.memory_bytes, 0);
}

// Review of 2026-12-06: a host fact the run does not know (an imported nccl-tests log names no CPU,
// memory or kernel) is missing in the run's result, not 0 CPUs, 0 GHz, 0 bytes and empty text. A
// database of before, which holds 0 and "" for them, reads the same way, and a null loads too.
TEST(HostUnknown, UnknownFactsAreMissingNotZero) {
  auto is_missing = [](const sextant::Result& r, const char* name) {
    const sextant::Value* v = r.scalar(name);
    return v && std::holds_alternative<double>(*v) && std::isnan(std::get<double>(*v));
  };
  const nlohmann::json old_db = {{"hostname", "node01"}, {"cpu_model", ""}, {"logical_cpus", 0}, {"cpu_ghz", 0.0},
                                 {"memory_bytes", 0}, {"kernel", ""}, {"gpu", "Example GPU"}, {"gpu_driver", ""}};
  nlohmann::json nulls = old_db;
  for (const char* k : {"cpu_model", "logical_cpus", "cpu_ghz", "memory_bytes", "kernel", "gpu_driver", "cpu_flags"}) nulls[k] = nullptr;
  for (const nlohmann::json& j : {old_db, nulls}) {
    RunRecord run;
    run.kind = "import";
    run.host = HostInfo::from_json(j);
    // The fingerprint, the host's identity in the database, is the one it always had.
    EXPECT_EQ(run.host.fingerprint(), HostInfo::from_json(old_db).fingerprint());
    const sextant::Result r = run_result(run, "bench import-nccl", false);
    for (const char* k : {"logical_cpu_count", "cpu_ghz", "memory_bytes"}) EXPECT_TRUE(is_missing(r, k)) << k << " of " << j.dump();
    for (const char* k : {"cpu_model", "kernel", "gpu_driver"}) EXPECT_EQ(r.scalar(k), nullptr) << k << " of " << j.dump();
    EXPECT_EQ(std::get<std::string>(*r.scalar("gpu")), "Example GPU");
  }
  // A known host keeps its numbers, with their types.
  RunRecord here;
  here.host = detect_host();
  const sextant::Result r = run_result(here, "bench", false);
  EXPECT_EQ(std::get<int64_t>(*r.scalar("logical_cpu_count")), here.host.cpu.logical_cpus);
  EXPECT_EQ(std::get<int64_t>(*r.scalar("memory_bytes")), here.host.memory_bytes);
}
