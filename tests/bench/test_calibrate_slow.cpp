// Question: calibrated from a bench run of this machine (GEMM grid and the read-bandwidth sweep
// over working sets), does the GEMM model (efficiency plus operand traffic) predict shapes outside
// the fitted range (larger and more skewed than any fitted shape) within 20%, and is the written
// catalog entry accepted by the catalog loader?
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <iostream>

#include "bench/calibrate/calibrate.hpp"
#include "bench/suite.hpp"
#include "catalog/catalog.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"
#include "core/atomic_file.hpp"

using namespace sextant::bench;
namespace fs = std::filesystem;

TEST(CalibrateCpu, HeldOutLargerAndSkewedGemmsPredictedWithin20Percent) {
  SuiteConfig c;
  c.quick = true;
  c.threads = 1;  // one core, timed by process CPU time: the machine running the tests may be
  c.timer = Timer::ProcessCpu;  // busy with other work, which wall time would measure instead
  // Achievable rates on a shared VM: 30 repetitions of every shape, interleaved across shapes (a
  // slow period lowers one repetition of every shape, not every repetition of some), of at least
  // 20 ms each (short enough that some run without being preempted); calibrate takes the best
  // repetition of each shape, fitted and held-out alike.
  c.interleave_repetitions = true;
  c.repetition_count = 30;
  c.warmup_count = 2;
  c.min_rep_s = 0.02;
  c.counters = false;
  c.gemm_dtypes = {"fp64"};
  c.host = detect_host();
  RunRecord run;
  run.id = 1;
  run.host = c.host;
  run.started_at = "2026-01-01T00:00:00.000Z";
  run.measurements = make_gemm_cpu_suite()->run(c).measurements;
  if (run.measurements.empty()) GTEST_SKIP() << "no BLAS in this build";
  // The read-bandwidth sweep over working sets (for the operand-traffic term), measured like the
  // GEMMs: same timer, 30 repetitions interleaved across sizes, the best one per size.
  for (auto& m : make_cache_bandwidth_suite()->run(c).measurements) run.measurements.push_back(std::move(m));
  // Fit on shapes up to 512 with skew (largest / smallest dimension) up to 16; hold out 768^3,
  // 1024x1024x256 (larger) and 48x1536x1536 / 1536x48x1536 (larger and skew 32).
  CalibrateOptions o;
  o.id = "test-host";
  o.max_fit_dim = 512;
  o.max_fit_skew = 16;
  const Calibration cal = calibrate_from_run(run, o);
  ASSERT_EQ(cal.gemm.size(), 1u);
  const GemmFit& fit = cal.gemm[0];
  std::cout << "fp64 fit over " << fit.fitted_count << " shapes: symmetric h = " << fit.gemm_half_dim << " (rms "
            << fit.symmetric_rms_error_fraction << ", AICc " << fit.symmetric_aicc << "); per-role h_m = " << fit.half_dim_m
            << ", h_n = " << fit.half_dim_n << ", h_k = " << fit.half_dim_k << " (rms " << fit.role_rms_error_fraction << ", AICc "
            << fit.role_aicc << "); written: " << (fit.roles_written ? "per-role" : "symmetric") << "\n";
  ASSERT_GE(cal.bandwidth_by_working_set.size(), 2u);
  for (const auto& p : cal.bandwidth_by_working_set)
    std::cout << "read bandwidth at " << p.working_set_bytes / 1024 << " KiB: " << p.bytes_per_s / 1e9 << " GB/s\n";
  std::cout << "fitted footprint " << cal.gemm_fitted_footprint_bytes / (1024 * 1024) << " MiB\n";
  double fitted_max_dim = 0, fitted_max_skew = 0;
  for (const auto& p : cal.points)
    if (!p.held_out) {
      fitted_max_dim = std::max({fitted_max_dim, p.m, p.n, p.k});
      fitted_max_skew = std::max(fitted_max_skew, std::max({p.m, p.n, p.k}) / std::min({p.m, p.n, p.k}));
    }
  // The entry loads through the catalog loader with the fitted values.
  const fs::path dir = fs::temp_directory_path() / ("sextant-test-cal-" + std::to_string(getpid()));
  fs::create_directories(dir / "accelerators");
  sextant::write_file_atomic((dir / "accelerators" / "host.yaml").string(), cal.accelerator_yaml);
  std::shared_ptr<const sextant::Catalog> cat;
  ASSERT_NO_THROW(cat = sextant::Catalog::load(dir.string())) << cal.accelerator_yaml;
  fs::remove_all(dir);
  const auto& a = cat->accelerator("test-host");
  EXPECT_EQ(a.kind, "cpu");
  EXPECT_NEAR(a.gemm_fraction(sextant::DType::FP64), fit.gemm_peak_fraction, 1e-6);
  EXPECT_NEAR(a.gemm_half_dim.value, fit.gemm_half_dim, 1e-6 * (1 + fit.gemm_half_dim));
  EXPECT_TRUE(a.gemm_half_dim.known);
  EXPECT_EQ(a.gemm_half_dim_m.known, fit.roles_written);
  if (fit.roles_written) {
    EXPECT_NEAR(a.gemm_half_dim_m.value, fit.half_dim_m, 1e-6 * (1 + fit.half_dim_m));
    EXPECT_NEAR(a.gemm_half_dim_n.value, fit.half_dim_n, 1e-6 * (1 + fit.half_dim_n));
    EXPECT_NEAR(a.gemm_half_dim_k.value, fit.half_dim_k, 1e-6 * (1 + fit.half_dim_k));
  }
  EXPECT_NEAR(a.peak(sextant::DType::FP64), c.host.peak_flops("fp64", 1), 1e-3 * a.peak(sextant::DType::FP64));
  // The operand-traffic data round-trips: the sweep's table and the fitted footprint.
  ASSERT_EQ(a.bandwidth_by_working_set.points.size(), cal.bandwidth_by_working_set.size());
  for (size_t i = 0; i < cal.bandwidth_by_working_set.size(); ++i) {
    EXPECT_DOUBLE_EQ(a.bandwidth_by_working_set.points[i].working_set_bytes, cal.bandwidth_by_working_set[i].working_set_bytes);
    EXPECT_NEAR(a.bandwidth_by_working_set.points[i].bytes_per_s, cal.bandwidth_by_working_set[i].bytes_per_s,
                1e-9 * cal.bandwidth_by_working_set[i].bytes_per_s);
  }
  EXPECT_NEAR(a.gemm_fitted_footprint_bytes.value, cal.gemm_fitted_footprint_bytes, 1e-9 * cal.gemm_fitted_footprint_bytes);
  // Every shape through estimate's compute model on the written entry: the held-out ones within 20%.
  int held_out = 0;
  for (const auto& p : cal.points) {
    sextant::ir::ComputeOp op;
    op.cls = sextant::ir::OpClass::Gemm;
    op.dtype = sextant::DType::FP64;
    op.m = static_cast<int64_t>(p.m);
    op.n = static_cast<int64_t>(p.n);
    op.k = static_cast<int64_t>(p.k);
    op.flops = 2 * p.m * p.n * p.k;
    const double estimated_flops_per_s = op.flops / sextant::compute_time(op, a).compute_s;
    const double error = estimated_flops_per_s / p.achieved_flops_per_s - 1;
    EXPECT_NEAR(error, p.error_fraction, 1e-9);  // calibrate reports the entry's model, the one estimate evaluates
    const std::string what = std::to_string(int(p.m)) + "x" + std::to_string(int(p.n)) + "x" + std::to_string(int(p.k));
    std::cout << (p.held_out ? "held-out " : "fitted   ") << what << ": measured efficiency " << p.efficiency_fraction
              << ", estimate's model error " << error << " (symmetric fit " << p.symmetric_error_fraction << ", per-role fit "
              << p.role_error_fraction << "; footprint " << p.footprint_bytes / (1024 * 1024) << " MiB, operand traffic "
              << p.operand_traffic_s * 1e3 << " ms of " << op.flops / p.achieved_flops_per_s * 1e3 << " ms measured)\n";
    if (!p.held_out) continue;
    ++held_out;
    EXPECT_TRUE(std::max({p.m, p.n, p.k}) > fitted_max_dim || std::max({p.m, p.n, p.k}) / std::min({p.m, p.n, p.k}) > fitted_max_skew);
    EXPECT_LT(std::abs(error), 0.20) << "fp64 " << what << ": measured " << p.achieved_flops_per_s << " FLOP/s, estimate "
                                     << estimated_flops_per_s;
  }
  EXPECT_EQ(held_out, 4);
}
