// Questions (review, 2026-12-07), on a synthetic CPU bench run (GEMMs, a STREAM triad and a
// cache_bandwidth sweep that rises where it should not):
//  - is the entry's bandwidth_by_working_set non-increasing in the working set (the envelope of the
//    measured sweep, the measured values kept beside it), so that a larger GEMM never gets less
//    operand-traffic time per byte than a smaller one?
//  - does every figure the run measured or derived name the run (id, start time, host) in the
//    loaded entry's provenance, not only memory_gib and compute_units?
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/calibrate/calibrate.hpp"
#include "catalog/catalog.hpp"
#include "core/atomic_file.hpp"

using namespace sextant::bench;
namespace fs = std::filesystem;

namespace {

Measurement measurement(const std::string& suite, const std::string& name, const std::string& metric,
                        std::vector<std::pair<std::string, std::string>> params, std::vector<double> samples) {
  Measurement m;
  m.suite = suite;
  m.name = name;
  m.metric = metric;
  m.params = std::move(params);
  m.samples = std::move(samples);
  return m;
}

// The read bandwidth (GB/s) per working set (KiB) of the sweep: it rises from 1 to 2 MiB and from
// 64 to 128 MiB, as a best-of-5 sweep on a shared VM did (45 -> 78 GB/s, 23.6 -> 27.1 GB/s).
const std::vector<std::pair<double, double>> kSweep = {{32, 400}, {64, 150}, {256, 140}, {1024, 45}, {2048, 78},
                                                       {8192, 40}, {32768, 30}, {65536, 23.6}, {131072, 27.1}};

RunRecord synthetic_cpu_run() {
  RunRecord run;
  run.id = 42;
  run.started_at = "2026-12-07T10:00:00.000Z";
  run.host.hostname = "testhost";
  run.host.cpu.model = "Test CPU";
  run.host.cpu.logical_cpus = 1;
  run.host.memory_bytes = int64_t{8} << 30;
  const double peak = 1e11, fraction = 0.6, h = 40;
  auto factor = [&](double x) { return std::min(1.0, (x / (x + h)) / (8192 / (8192 + h))); };
  const std::vector<std::array<double, 3>> shapes = {{32, 32, 32},    {64, 64, 64},    {128, 128, 128}, {256, 256, 256}, {32, 256, 256},
                                                     {256, 32, 256},  {256, 256, 32},  {64, 128, 256},  {128, 256, 64},  {192, 192, 192}};
  int rep = 0;
  for (const auto& s : shapes) {
    const double rate = peak * fraction * factor(s[0]) * factor(s[1]) * factor(s[2]);
    std::vector<double> samples;
    for (double w : {0.97, 1.0, 0.99}) samples.push_back(rate * w * (1 - 0.001 * (rep++ % 3)));
    run.measurements.push_back(measurement(
        "gemm_cpu", fmt::format("fp64 m={} n={} k={}", s[0], s[1], s[2]), "flops_per_s",
        {{"dtype", "fp64"}, {"m", fmt::format("{}", s[0])}, {"n", fmt::format("{}", s[1])}, {"k", fmt::format("{}", s[2])},
         {"threads", "1"}, {"peak_flops_per_s", "100000000000"}, {"peak_source", "1 core x 3.125 GHz x 32 fp64 FLOP/cycle"}},
        samples));
  }
  run.measurements.push_back(measurement("memory_bandwidth", "triad threads=1", "bytes_per_s", {{"kernel", "triad"}, {"threads", "1"}},
                                         {2.0e10, 2.1e10, 2.05e10}));
  for (const auto& [kib, gb] : kSweep)
    run.measurements.push_back(measurement("cache_bandwidth", fmt::format("read working_set={}KiB threads=1", kib), "bytes_per_s",
                                           {{"kernel", "read"}, {"working_set_bytes", fmt::format("{}", kib * 1024)}, {"threads", "1"}},
                                           {gb * 0.9e9, gb * 1e9, gb * 0.95e9}));
  return run;
}

std::shared_ptr<const sextant::Catalog> load_entry(const std::string& yaml, const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("sextant-test-calcpu-" + tag + "-" + std::to_string(getpid()));
  fs::create_directories(dir / "accelerators");
  sextant::write_file_atomic((dir / "accelerators" / "host.yaml").string(), yaml);
  std::shared_ptr<const sextant::Catalog> cat;
  try {
    cat = sextant::Catalog::load(dir.string());
  } catch (...) {
    fs::remove_all(dir);
    throw;
  }
  fs::remove_all(dir);
  return cat;
}

}  // namespace

TEST(CalibrateCpu, EnvelopeIsTheRunningMinimumFromTheSmallestWorkingSet) {
  std::vector<sextant::WorkingSetBandwidth> t = {{1, 10}, {2, 12}, {4, 8}, {8, 9}, {16, 3}};
  EXPECT_EQ(non_increasing_envelope(t), 2);
  const std::vector<double> want = {10, 10, 8, 8, 3};
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i].bytes_per_s, want[i]) << i;
  EXPECT_EQ(non_increasing_envelope(t), 0);  // an envelope is its own
}

TEST(CalibrateCpu, ReadBandwidthTableIsNonIncreasingAndKeepsTheMeasuredValues) {
  const RunRecord run = synthetic_cpu_run();
  CalibrateOptions o;
  o.id = "test-cpu";
  const Calibration c = calibrate_from_run(run, o);
  ASSERT_EQ(c.bandwidth_by_working_set.size(), kSweep.size());
  ASSERT_EQ(c.bandwidth_by_working_set_measured.size(), kSweep.size());
  for (size_t i = 0; i < kSweep.size(); ++i) EXPECT_DOUBLE_EQ(c.bandwidth_by_working_set_measured[i].bytes_per_s, kSweep[i].second * 1e9);
  EXPECT_EQ(c.bandwidth_points_lowered, 2);
  EXPECT_DOUBLE_EQ(c.bandwidth_by_working_set[4].bytes_per_s, 45e9);    // 2 MiB: 1 MiB's
  EXPECT_DOUBLE_EQ(c.bandwidth_by_working_set[8].bytes_per_s, 23.6e9);  // 128 MiB: 64 MiB's
  // The entry says it is an envelope and how many points were lowered, keeps each lowered point's
  // measured value in a comment, and a note says so.
  EXPECT_NE(c.accelerator_yaml.find("non-increasing envelope"), std::string::npos) << c.accelerator_yaml;
  EXPECT_NE(c.accelerator_yaml.find("2 of 9 points lowered"), std::string::npos) << c.accelerator_yaml;
  EXPECT_NE(c.accelerator_yaml.find("gb_per_s: 45}  # measured 78 GB/s"), std::string::npos) << c.accelerator_yaml;
  EXPECT_NE(c.accelerator_yaml.find("gb_per_s: 23.6}  # measured 27.1 GB/s"), std::string::npos) << c.accelerator_yaml;
  bool noted = false;
  for (const auto& n : c.notes) noted = noted || n.find("2 of 9 working sets") != std::string::npos;
  EXPECT_TRUE(noted);
  // The loaded entry's model: the operand-traffic time per byte never falls as the footprint grows
  // (the 1024 x 10240 x 1024 fp32 GEMM, 84 MiB, had less per byte than 1024 x 5120 x 1024, 44 MiB).
  const auto cat = load_entry(c.accelerator_yaml, "env");
  const auto& a = cat->accelerator("test-cpu");
  const auto& table = a.bandwidth_by_working_set.points;
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LE(table[i].bytes_per_s, table[i - 1].bytes_per_s) << i;
  const double fit = a.gemm_fitted_footprint_bytes.value;
  double last_per_byte = 0;
  for (double n : {64.0, 256.0, 1024.0, 2048.0, 5120.0, 10240.0, 20480.0}) {
    const double t = sextant::gemm_operand_traffic_s(1024, n, 1024, 4, table, fit);
    const double per_byte = t / sextant::gemm_footprint_bytes(1024, n, 1024, 4);
    EXPECT_GE(per_byte, last_per_byte) << "n = " << n;
    last_per_byte = per_byte;
  }
  EXPECT_GT(sextant::gemm_operand_traffic_s(1024, 10240, 1024, 4, table, fit), sextant::gemm_operand_traffic_s(1024, 5120, 1024, 4, table, fit));
}

TEST(CalibrateCpu, EveryMeasuredFigureNamesTheRunItCameFrom) {
  const RunRecord run = synthetic_cpu_run();
  CalibrateOptions o;
  o.id = "test-cpu";
  const Calibration c = calibrate_from_run(run, o);
  const auto cat = load_entry(c.accelerator_yaml, "prov");
  const auto& a = cat->accelerator("test-cpu");
  const std::string run_words = "sextant bench run 42 (2026-12-07T10:00:00.000Z) on host testhost";
  auto provenance = [](const sextant::Sourced& s) { return s.estimated.empty() ? s.source : s.estimated; };
  auto expect_run = [&](const char* field, const sextant::Sourced& s) {
    ASSERT_TRUE(s.known) << field;
    EXPECT_NE(provenance(s).find(run_words), std::string::npos) << field << ": " << provenance(s);
  };
  expect_run("peak_tflops.fp64 (derived from the run's clock)", a.peak_flops.at(sextant::DType::FP64));
  expect_run("memory_gib", a.memory_bytes);
  expect_run("memory_bandwidth_gb_per_s (the run's triad)", a.memory_bandwidth_bytes_per_s);
  expect_run("compute_units", a.compute_units);
  expect_run("gemm_peak_fraction.fp64", a.gemm_peak_fraction.at(sextant::DType::FP64));
  expect_run("gemm_half_dim", a.gemm_half_dim);
  expect_run("gemm_fitted_footprint_mib", a.gemm_fitted_footprint_bytes);
  EXPECT_NE(a.bandwidth_by_working_set.source.find(run_words), std::string::npos) << a.bandwidth_by_working_set.source;
  // A peak given on the command line is not the run's: it names no run.
  CalibrateOptions given = o;
  given.peak_override_by_dtype["fp64"] = 2e11;
  const Calibration g = calibrate_from_run(run, given);
  const auto gcat = load_entry(g.accelerator_yaml, "given");
  const std::string gp = provenance(gcat->accelerator("test-cpu").peak_flops.at(sextant::DType::FP64));
  EXPECT_NE(gp.find("--peak-tflops"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("sextant bench run"), std::string::npos) << gp;
}
