// Question: calibrated from a profiler trace's GEMM operators (their Input Dims and the GPU time of
// their kernels), does the written catalog entry make `estimate`'s compute model reproduce the
// traced GEMM rates, and are the collectives' latency and bus bandwidth recovered?
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <filesystem>

#include "bench/calibrate/calibrate.hpp"
#include "catalog/catalog.hpp"
#include "core/atomic_file.hpp"
#include "estimate/estimate.hpp"

using namespace sextant;
using namespace sextant::bench;
namespace fs = std::filesystem;

namespace {
const Accelerator& h100() {
  static auto cat = Catalog::load(std::string(SEXTANT_SOURCE_DIR) + "/data/catalog");
  return cat->accelerator("h100-sxm-80gb");
}
}  // namespace

TEST(CalibrateTrace, GemmShapesFromInputDims) {
  double m, n, k, b;
  ASSERT_TRUE(gemm_shape_of("aten::mm", "[[128, 256], [256, 512]]", m, n, k, b));
  EXPECT_EQ(m, 128);
  EXPECT_EQ(n, 512);
  EXPECT_EQ(k, 256);
  EXPECT_EQ(b, 1);
  ASSERT_TRUE(gemm_shape_of("aten::addmm", "[[512], [128, 256], [256, 512], [], []]", m, n, k, b));
  EXPECT_EQ(m, 128);
  EXPECT_EQ(n, 512);
  ASSERT_TRUE(gemm_shape_of("aten::linear", "[[4, 2048, 4096], [11008, 4096], []]", m, n, k, b));
  EXPECT_EQ(m, 4 * 2048);  // leading dimensions fold into rows
  EXPECT_EQ(n, 11008);     // the weight is (out x in)
  EXPECT_EQ(k, 4096);
  ASSERT_TRUE(gemm_shape_of("aten::bmm", "[[32, 128, 64], [32, 64, 128]]", m, n, k, b));
  EXPECT_EQ(b, 32);
  EXPECT_EQ(n, 128);
  ASSERT_TRUE(gemm_shape_of("aten::matmul", "[[2, 16, 128, 64], [2, 16, 64, 128]]", m, n, k, b));
  EXPECT_EQ(b, 32);
  EXPECT_FALSE(gemm_shape_of("aten::add", "[[128], [128]]", m, n, k, b));
  EXPECT_FALSE(gemm_shape_of("aten::mm", "[[128, 256]]", m, n, k, b));   // one operand only
  EXPECT_FALSE(gemm_shape_of("aten::mm", "not json", m, n, k, b));
}

TEST(CalibrateTrace, EntryMakesEstimateReproduceTheTracedRates) {
  // A "trace" whose GEMMs ran at 0.62 x shape factor (h = 700) of the bf16 peak, and whose
  // all-reduces took 20 us + busbw-limited time at 300 GB/s.
  const Accelerator& base = h100();
  const double f_true = 0.62, h_true = 700, peak = base.peak(DType::BF16);
  Result a;
  Table& rt = a.add_table("roofline");
  for (const char* c : {"op", "input_dims", "dtype"}) rt.add_str(c);
  rt.add_f64("achieved_flops_per_s");
  const std::vector<std::array<int, 3>> shapes = {{8192, 4096, 4096}, {8192, 11008, 4096}, {8192, 4096, 11008}, {2048, 1024, 1024},
                                                  {512, 4096, 4096},  {8192, 128, 4096},   {16384, 8192, 8192}};
  for (const auto& s : shapes) {
    const double eff = f_true * gemm_shape_factor(s[0], s[1], s[2], h_true);
    rt.add_row({std::string("aten::mm"), "[[" + std::to_string(s[0]) + ", " + std::to_string(s[2]) + "], [" + std::to_string(s[2]) + ", " +
                                             std::to_string(s[1]) + "]]",
                std::string("bf16"), eff * peak});
  }
  rt.add_row({std::string("aten::add"), std::string("[[8192], [8192]]"), std::string("bf16"), 1e12});  // not a GEMM: ignored
  Table& ct = a.add_table("collectives");
  ct.add_str("operation");
  ct.add_i64("ranks_count");
  ct.add_f64("size_bytes");
  ct.add_f64("sync_duration_us");
  for (double size : {1e6, 8e6, 64e6, 256e6}) {
    const double t = 20e-6 + size * 2 * 7 / 8 / 300e9;
    ct.add_row({std::string("allreduce"), int64_t{8}, size, t * 1e6});
  }
  TraceCalibrateOptions o;
  o.id = "h100-test-trace";
  o.trace_ref = "synthetic";
  const Calibration c = calibrate_from_trace(a, base, o);
  ASSERT_EQ(c.gemm.size(), 1u);
  EXPECT_NEAR(c.gemm[0].gemm_peak_fraction, f_true, 1e-4);
  EXPECT_NEAR(c.gemm[0].gemm_half_dim, h_true, 0.5);
  EXPECT_EQ(c.gemm[0].fitted_count, 7);
  ASSERT_TRUE(c.network.present);
  EXPECT_NEAR(c.network.latency_s, 20e-6, 1e-7);
  EXPECT_NEAR(c.network.bandwidth_bytes_per_s / 300e9, 1.0, 1e-3);

  // The entry loads, and estimate's compute model on it reproduces each traced rate.
  const fs::path dir = fs::temp_directory_path() / ("sextant-test-trace-cal-" + std::to_string(getpid()));
  fs::create_directories(dir / "accelerators");
  write_file_atomic((dir / "accelerators" / "t.yaml").string(), c.accelerator_yaml);
  std::shared_ptr<const Catalog> cat;
  ASSERT_NO_THROW(cat = Catalog::load(dir.string())) << c.accelerator_yaml;
  fs::remove_all(dir);
  Accelerator cal = cat->accelerator("h100-test-trace");
  cal.kernel_overhead_s = Sourced{0, "test", "", true};  // compare rates, not launch costs
  for (const auto& s : shapes) {
    ir::ComputeOp op;
    op.cls = ir::OpClass::Gemm;
    op.m = s[0];
    op.n = s[1];
    op.k = s[2];
    op.flops = 2.0 * s[0] * s[1] * s[2];
    op.bytes = 0;
    op.dtype = DType::BF16;
    const double rate = op.flops / compute_time_s(op, cal);
    EXPECT_NEAR(rate / (f_true * gemm_shape_factor(s[0], s[1], s[2], h_true) * peak), 1.0, 1e-3) << s[0] << "x" << s[1] << "x" << s[2];
  }
}

TEST(CalibrateTrace, EntryCarriesTheBaseKernelOverheadInMicroseconds) {
  // The catalog reads kernel_overhead_us; a base entry's overhead must survive the round trip.
  Accelerator base = h100();
  base.kernel_overhead_s = Sourced{4.5e-6, "test", "", true};
  base.tdp_w = Sourced{500, "", "a 500 W part: no published figure", true};
  Result a;
  Table& rt = a.add_table("roofline");
  for (const char* c : {"op", "input_dims", "dtype"}) rt.add_str(c);
  rt.add_f64("achieved_flops_per_s");
  for (int d : {256, 512, 1024, 2048, 4096, 8192})
    rt.add_row({std::string("aten::mm"), "[[" + std::to_string(d) + ", " + std::to_string(d) + "], [" + std::to_string(d) + ", " +
                                             std::to_string(d) + "]]",
                std::string("bf16"), 0.6 * gemm_shape_factor(d, d, d, 400) * base.peak(DType::BF16)});
  TraceCalibrateOptions o;
  o.id = "h100-test-overhead";
  o.trace_ref = "synthetic";
  const Calibration c = calibrate_from_trace(a, base, o);
  const fs::path dir = fs::temp_directory_path() / ("sextant-test-trace-ovh-" + std::to_string(getpid()));
  fs::create_directories(dir / "accelerators");
  write_file_atomic((dir / "accelerators" / "t.yaml").string(), c.accelerator_yaml);
  std::shared_ptr<const Catalog> cat;
  ASSERT_NO_THROW(cat = Catalog::load(dir.string())) << c.accelerator_yaml;
  fs::remove_all(dir);
  const Accelerator& cal = cat->accelerator("h100-test-overhead");
  EXPECT_TRUE(cal.kernel_overhead_s.known);
  EXPECT_NEAR(cal.kernel_overhead_s.value, 4.5e-6, 1e-12);
  // An estimate of the base stays an estimate, with its basis; a cited value stays cited.
  EXPECT_NE(cal.tdp_w.estimated.find("a 500 W part: no published figure"), std::string::npos) << c.accelerator_yaml;
  EXPECT_TRUE(cal.kernel_overhead_s.estimated.empty());
  EXPECT_EQ(cal.kernel_overhead_s.source.rfind("base", 0), 0u) << cal.kernel_overhead_s.source;
}

TEST(CalibrateTrace, TooFewShapesIsAClearError) {
  Result a;
  Table& rt = a.add_table("roofline");
  for (const char* c : {"op", "input_dims", "dtype"}) rt.add_str(c);
  rt.add_f64("achieved_flops_per_s");
  rt.add_row({std::string("aten::mm"), std::string("[[64, 64], [64, 64]]"), std::string("bf16"), 1e12});
  try {
    calibrate_from_trace(a, h100(), {});
    ADD_FAILURE() << "one shape accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("record_shapes"), std::string::npos) << e.what();
  }
}

// Question: does a bench run with two dtypes whose shapes scale differently (fp32 of half-dimension
// 500, fp64 of 20, both well below their peaks) calibrate, writing no fraction for the dtype that
// cannot share the entry's half-dimensions? It was refused as "fp64 GEMMs fit 12.537 of the peak"
// (before 2026-12-03).
TEST(CalibrateBench, ADtypeThatCannotShareTheHalfDimensionIsLeftOutNotAnError) {
  RunRecord run;
  run.id = 7;
  run.started_at = "2026-01-01T00:00:00.000Z";
  auto factor = [](double m, double n, double k, double h) {
    double r = 1;
    for (double x : {m, n, k}) r *= std::min(1.0, (x / (x + h)) / (8192 / (8192 + h)));
    return r;
  };
  for (const auto& [dt, f, h, peak] : {std::tuple{"fp32", 0.5, 500.0, 2e11}, std::tuple{"fp64", 0.6, 20.0, 1e11}})
    for (double m : {64.0, 128.0, 256.0, 512.0})
      for (double k : {64.0, 256.0, 512.0}) {
        Measurement x;
        x.suite = "gemm_cpu";
        x.name = std::string(dt) + " " + std::to_string(m) + " " + std::to_string(k);
        x.metric = "flops_per_s";
        x.higher_is_better = true;
        x.params = {{"dtype", dt}, {"m", std::to_string(m)}, {"n", std::to_string(m)}, {"k", std::to_string(k)},
                    {"peak_flops_per_s", std::to_string(peak)}, {"peak_source", "test"}};
        x.samples = {peak * f * factor(m, m, k, h)};
        run.measurements.push_back(x);
      }
  CalibrateOptions o;
  o.id = "two-dtypes";
  Calibration cal;
  ASSERT_NO_THROW(cal = calibrate_from_run(run, o));
  ASSERT_EQ(cal.gemm.size(), 2u);
  const GemmFit& f32 = cal.gemm[0].dtype == "fp32" ? cal.gemm[0] : cal.gemm[1];
  const GemmFit& f64 = cal.gemm[0].dtype == "fp64" ? cal.gemm[0] : cal.gemm[1];
  EXPECT_TRUE(f32.primary);
  EXPECT_TRUE(f32.fraction_written);
  EXPECT_NEAR(f32.gemm_peak_fraction, 0.5, 1e-3);
  EXPECT_FALSE(f64.fraction_written);
  EXPECT_NEAR(f64.symmetric_peak_fraction, 0.6, 1e-3);
  EXPECT_LT(f64.fit_rms_error_fraction, 1e-3);  // its points predicted by its own fit
  EXPECT_EQ(cal.accelerator_yaml.find("        fp64: {value"), std::string::npos) << cal.accelerator_yaml;
  bool said = false;
  for (const auto& n : cal.notes) said = said || n.find("no fp64 fraction is written") != std::string::npos;
  EXPECT_TRUE(said);
}
