// Questions: does the GPU suite compute FLOP/s and copy bandwidth right (through the fake
// backend, so on any machine), and does calibration recover the efficiency the GPU has?
#include <gtest/gtest.h>

#include <cmath>

#include "bench/calibrate/calibrate.hpp"
#include "bench/efficiency_model.hpp"
#include "catalog/catalog.hpp"
#include "bench/gpu_backend.hpp"
#include "bench/suite.hpp"

using namespace sextant::bench;

namespace {
SuiteConfig fake_config(const FakeGpuSpec& spec) {
  SuiteConfig c;
  c.quick = true;
  c.repetition_count = 3;
  c.warmup_count = 1;
  c.min_rep_s = 0.01;
  c.counters = false;
  c.gpu = make_fake_gpu_backend(spec);
  return c;
}
}  // namespace

TEST(GpuSuite, AchievedFlopsAndCopyBandwidthFollowTheBackendsTimes) {
  FakeGpuSpec spec;
  const SuiteOutput out = make_gpu_suite()->run(fake_config(spec));
  int gemms = 0, copies = 0;
  for (const auto& m : out.measurements) {
    EXPECT_EQ(m.param("backend"), "fake");
    ASSERT_EQ(m.samples.size(), 3u);
    if (m.metric == "flops_per_s") {
      ++gemms;
      const double mm = m.param_f64("m"), n = m.param_f64("n"), k = m.param_f64("k");
      const double peak = spec.peak_flops.at(m.param("dtype"));
      const double t = spec.launch_overhead_s +
                       2 * mm * n * k / (peak * spec.gemm_peak_fraction * sextant::gemm_shape_factor(mm, n, k, spec.gemm_half_dim));
      EXPECT_NEAR(m.samples[0], 2 * mm * n * k / t, 1e-9 * m.samples[0]) << m.name;
      EXPECT_DOUBLE_EQ(m.param_f64("peak_flops_per_s"), peak);
    } else {
      ++copies;
      const double bytes = m.param_f64("bytes");
      const std::string kind = m.param("copy");
      const double bw = kind == "d2d" ? spec.d2d_bytes_per_s / 2 : kind == "h2d" ? spec.h2d_bytes_per_s : spec.d2h_bytes_per_s;
      EXPECT_NEAR(m.samples[0], bytes / (spec.copy_overhead_s + bytes / bw), 1e-9 * m.samples[0]) << m.name;
    }
  }
  EXPECT_EQ(gemms, 3 * 6);  // fp32, bf16, fp16 x 6 quick shapes
  EXPECT_EQ(copies, 3 * 2);
}

TEST(GpuSuite, WithoutCudaOrBackendItIsSkippedWithTheReason) {
#ifndef SEXTANT_HAVE_CUDA
  SuiteConfig c;
  c.quick = true;
  const SuiteOutput out = make_gpu_suite()->run(c);
  EXPECT_TRUE(out.measurements.empty());
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("skipped"), std::string::npos);
#else
  std::string why;
  auto be = make_cuda_backend(&why);
  if (!be) {
    EXPECT_FALSE(why.empty());
  }
  else GTEST_SKIP() << "a CUDA device is present; the skip path is not taken";
#endif
}

TEST(GpuCalibration, RecoversTheFakeGpusEfficiencyCurve) {
  FakeGpuSpec spec;
  spec.launch_overhead_s = 0;  // the model exactly: the fit must return its parameters
  spec.gemm_peak_fraction = 0.72;
  spec.gemm_half_dim = 300;
  RunRecord run;
  run.id = 7;
  run.host.hostname = "gpuhost";
  run.measurements = make_gpu_suite()->run(fake_config(spec)).measurements;
  const Calibration c = calibrate_from_run(run, {});
  ASSERT_EQ(c.gemm.size(), 3u);
  for (const auto& f : c.gemm) {
    // The fake follows the catalog model exactly: the written entry must be its parameters.
    EXPECT_NEAR(f.gemm_peak_fraction, 0.72, 1e-6) << f.dtype;
    EXPECT_NEAR(f.gemm_half_dim, 300, 1e-3) << f.dtype;
    EXPECT_LT(f.fit_rms_error_fraction, 1e-6);
    EXPECT_GT(f.half_dim_m, 0) << f.dtype;  // the diagnostic per-role model sees the shape effect too
  }
  EXPECT_NE(c.accelerator_yaml.find("kind: gpu"), std::string::npos);
}

TEST(GpuCalibration, FitOfExactModelPointsIsExact) {
  std::vector<double> d, e;
  for (double x : {64.0, 128.0, 256.0, 1024.0, 4096.0}) {
    d.push_back(x);
    e.push_back(0.9 * x / (x + 200));
  }
  const auto [f, h] = fit_gemm_efficiency(d, e);
  EXPECT_NEAR(f, 0.9, 1e-12);
  EXPECT_NEAR(h, 200, 1e-9);
  // Per-role fit of points made with different half-dimensions per role recovers them.
  std::vector<double> vm, vn, vk, ve;
  for (double m : {32.0, 256.0, 1024.0})
    for (double n : {64.0, 512.0})
      for (double k : {48.0, 2048.0}) {
        vm.push_back(m);
        vn.push_back(n);
        vk.push_back(k);
        ve.push_back(gemm_efficiency_roles(0.8, 90, 30, 10, m, n, k));
      }
  const RoleFit rf = fit_gemm_efficiency_roles(vm, vn, vk, ve);
  EXPECT_NEAR(rf.f, 0.8, 1e-9);
  EXPECT_NEAR(rf.h_m, 90, 1e-6);
  EXPECT_NEAR(rf.h_n, 30, 1e-6);
  EXPECT_NEAR(rf.h_k, 10, 1e-6);
  // Efficiency that does not grow with size: a constant fraction, half-dimension 0.
  const auto [f2, h2] = fit_gemm_efficiency({100, 200, 400}, {0.5, 0.5, 0.5});
  EXPECT_NEAR(f2, 0.5, 1e-12);
  EXPECT_NEAR(h2, 0, 1e-9);
}
