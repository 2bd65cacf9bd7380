// Questions: does the GPU suite compute FLOP/s and copy bandwidth right (through the fake
// backend, so on any machine), and does calibration recover the efficiency the GPU has?
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "bench/calibrate/calibrate.hpp"
#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "estimate/estimate.hpp"
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
      const double es = m.param("dtype") == "fp32" ? 4 : 2;
      const double t = spec.launch_overhead_s +
                       std::max(2 * mm * n * k / (peak * spec.gemm_peak_fraction * sextant::gemm_shape_factor(mm, n, k, spec.gemm_half_dim)),
                                (mm * k + k * n + mm * n) * es / spec.d2d_bytes_per_s);
      EXPECT_NEAR(m.samples[0], 2 * mm * n * k / t, 1e-9 * m.samples[0]) << m.name;
      EXPECT_DOUBLE_EQ(m.param_f64("peak_flops_per_s"), peak);
    } else if (m.metric == "bytes_per_s") {
      ++copies;
      const double bytes = m.param_f64("bytes");
      const std::string kind = m.param("copy");
      const double bw = kind == "d2d" ? spec.d2d_bytes_per_s / 2 : kind == "h2d" ? spec.h2d_bytes_per_s : spec.d2h_bytes_per_s;
      EXPECT_NEAR(m.samples[0], bytes / (spec.copy_overhead_s + bytes / bw), 1e-9 * m.samples[0]) << m.name;
    }
  }
  EXPECT_EQ(gemms, 3 * 7);  // fp32, bf16, fp16 x 7 quick shapes
  EXPECT_EQ(copies, 3 * 2);
  EXPECT_EQ(out.measurements.size(), static_cast<size_t>(gemms + copies));  // no collectives configured
  bool noted = false;
  for (const auto& n : out.notes) noted = noted || n.find("gpu collectives skipped") != std::string::npos;
  EXPECT_TRUE(noted);
}

// Collectives over the backend's GPUs follow nccl-tests' conventions: size is the whole buffer,
// algbw = size / time and busbw = algbw x 2(n-1)/n (all_reduce) or (n-1)/n (the others); one GPU
// records algbw (its busbw is 0 by that convention).
TEST(GpuSuite, CollectivesAreRecordedWithNcclTestsBusBandwidth) {
  for (int ranks : {8, 1}) {
    FakeGpuSpec spec;
    spec.collective_ranks = ranks;
    const SuiteOutput out = make_gpu_suite()->run(fake_config(spec));
    int colls = 0;
    for (const auto& m : out.measurements) {
      if (!m.has_param("collective")) continue;
      ++colls;
      const std::string op = m.param("collective");
      const double bytes = m.param_f64("size_bytes");
      EXPECT_EQ(m.param_f64("ranks"), ranks);
      const double factor = op == "all_reduce" ? 2.0 * (ranks - 1) / ranks : static_cast<double>(ranks - 1) / ranks;
      const double t = spec.collective_latency_s + bytes * factor / spec.collective_busbw_bytes_per_s;
      if (ranks > 1) {
        EXPECT_EQ(m.metric, "busbw_bytes_per_s");
        EXPECT_NEAR(m.samples[0], bytes / t * factor, 1e-9 * m.samples[0]) << m.name;
      } else {
        EXPECT_EQ(m.metric, "algbw_bytes_per_s");
        EXPECT_NEAR(m.samples[0], bytes / t, 1e-9 * m.samples[0]) << m.name;
      }
    }
    EXPECT_EQ(colls, 4 * 2) << ranks;  // all_reduce, all_gather, reduce_scatter, alltoall x 2 quick sizes
  }
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
    // The per-role fit also finds the symmetric curve, and buys nothing: the entry stays symmetric.
    EXPECT_NEAR(f.half_dim_m, 300, 0.3) << f.dtype;
    EXPECT_NEAR(f.half_dim_n, 300, 0.3) << f.dtype;
    EXPECT_NEAR(f.half_dim_k, 300, 0.3) << f.dtype;
    EXPECT_FALSE(f.roles_written) << f.dtype;
  }
  EXPECT_NE(c.accelerator_yaml.find("kind: gpu"), std::string::npos);
  EXPECT_EQ(c.accelerator_yaml.find("gemm_half_dim_m"), std::string::npos) << c.accelerator_yaml;
}

// A GPU whose BLAS is asymmetric (a small m costs more than a small n, k barely matters): the
// per-role fit recovers each role's half-dimension, the entry carries them, and the entry's model
// (the one estimate evaluates, read back through the catalog loader) reproduces every measured rate.
TEST(GpuCalibration, RecoversAsymmetricPerRoleHalfDims) {
  FakeGpuSpec spec;
  spec.launch_overhead_s = 0;
  spec.gemm_peak_fraction = 0.7;
  spec.gemm_half_dim_m = 900;
  spec.gemm_half_dim_n = 150;
  spec.gemm_half_dim_k = 40;
  RunRecord run;
  run.id = 8;
  run.host.hostname = "gpuhost";
  run.measurements = make_gpu_suite()->run(fake_config(spec)).measurements;
  const Calibration c = calibrate_from_run(run, {});
  ASSERT_EQ(c.gemm.size(), 3u);
  for (const auto& f : c.gemm) {
    EXPECT_TRUE(f.roles_written) << f.dtype;
    EXPECT_NEAR(f.gemm_peak_fraction, 0.7, 1e-5) << f.dtype;
    EXPECT_NEAR(f.half_dim_m, 900, 0.5) << f.dtype;
    EXPECT_NEAR(f.half_dim_n, 150, 0.5) << f.dtype;
    EXPECT_NEAR(f.half_dim_k, 40, 0.5) << f.dtype;
    EXPECT_LT(f.fit_rms_error_fraction, 1e-5) << f.dtype;
    EXPECT_GT(f.symmetric_rms_error_fraction, 0.01) << f.dtype;  // one symmetric half-dimension cannot follow it
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("sextant-test-gpu-roles-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "accelerators");
  std::ofstream(dir / "accelerators" / "gpu.yaml") << c.accelerator_yaml;
  std::shared_ptr<const sextant::Catalog> cat;
  ASSERT_NO_THROW(cat = sextant::Catalog::load(dir.string())) << c.accelerator_yaml;
  std::filesystem::remove_all(dir);
  const sextant::Accelerator& a = cat->accelerator("host-calibrated");
  EXPECT_NEAR(a.gemm_half_dim_m.value, 900, 0.5);
  EXPECT_NEAR(a.gemm_half_dim_n.value, 150, 0.5);
  EXPECT_NEAR(a.gemm_half_dim_k.value, 40, 0.5);
  for (const auto& p : c.points) {
    const double eff = a.gemm_fraction(sextant::parse_dtype(p.dtype, {})) * sextant::gemm_shape_factor(p.m, p.n, p.k, a.gemm_half_dims(128));
    EXPECT_NEAR(eff / p.efficiency_fraction, 1.0, 1e-5) << p.dtype << " " << p.m << "x" << p.n << "x" << p.k;
  }
}

TEST(GpuCalibration, FitOfExactModelPointsIsExact) {
  // Symmetric: points of the catalog model with one half-dimension give it back.
  std::vector<double> vm, vn, vk, ve, rm, rn, rk, re;
  for (double m : {32.0, 256.0, 1024.0})
    for (double n : {64.0, 512.0})
      for (double k : {48.0, 2048.0}) {
        vm.push_back(m);
        vn.push_back(n);
        vk.push_back(k);
        ve.push_back(0.9 * sextant::gemm_shape_factor(m, n, k, 200.0));
        re.push_back(0.8 * sextant::gemm_shape_factor(m, n, k, sextant::GemmHalfDims{90, 30, 10}));
      }
  const auto [f, h] = fit_catalog_gemm_model(vm, vn, vk, ve);
  EXPECT_NEAR(f, 0.9, 1e-9);
  EXPECT_NEAR(h, 200, 1e-4);
  // Per-role: points made with a different half-dimension per role give each back.
  const RoleFit rf = fit_catalog_gemm_model_roles(vm, vn, vk, re);
  EXPECT_NEAR(rf.f, 0.8, 1e-7);
  EXPECT_NEAR(rf.h_m, 90, 1e-3);
  EXPECT_NEAR(rf.h_n, 30, 1e-3);
  EXPECT_NEAR(rf.h_k, 10, 1e-3);
  EXPECT_LT(rf.log_rss, 1e-16);
  // AICc: an exact per-role fit beats an inexact symmetric one; equal residuals favour fewer parameters.
  const auto [sf, sh] = fit_catalog_gemm_model(vm, vn, vk, re);
  double ss = 0;
  for (size_t i = 0; i < re.size(); ++i) {
    const double r = std::log(sf * sextant::gemm_shape_factor(vm[i], vn[i], vk[i], sh) / re[i]);
    ss += r * r;
  }
  EXPECT_LT(gemm_fit_aicc(rf.log_rss, re.size(), 4), gemm_fit_aicc(ss, re.size(), 2));
  EXPECT_GT(gemm_fit_aicc(0.01, 12, 4), gemm_fit_aicc(0.01, 12, 2));
  EXPECT_TRUE(std::isinf(gemm_fit_aicc(0.01, 5, 4)));  // too few points for 4 parameters
  // Efficiency that does not grow with size: a constant fraction, half-dimension 0.
  const auto [f2, h2] = fit_catalog_gemm_model({100, 200, 400}, {100, 200, 400}, {100, 200, 400}, {0.5, 0.5, 0.5});
  EXPECT_NEAR(f2, 0.5, 1e-12);
  EXPECT_NEAR(h2, 0, 1e-9);
}

// A GPU like the H200 measured in docs/bench.md: launch-bound small GEMMs (a fixed per-kernel
// time) and memory-bound skinny ones (128 x 8192 x 8192 streams a 64 Mi-element operand). The
// calibration fits the whole time model estimate evaluates (roofline and kernel overhead), so it
// must return the GPU's parameters exactly, write them, and the entry read back through the
// catalog must reproduce every measured time through estimate's own compute_time_s.
TEST(GpuCalibration, RecoversKernelOverheadAndMemoryRoofline) {
  FakeGpuSpec spec;
  spec.launch_overhead_s = 6.5e-6;
  spec.copy_overhead_s = 0;  // the copies then measure the memory bandwidth exactly
  spec.d2d_bytes_per_s = 4.3e12;
  spec.gemm_peak_fraction = 0.75;
  spec.gemm_half_dim = 60;
  SuiteConfig cfg = fake_config(spec);
  cfg.quick = false;  // the full grid has the skinny shapes
  RunRecord run;
  run.id = 9;
  run.host.hostname = "gpuhost";
  run.measurements = make_gpu_suite()->run(cfg).measurements;
  CalibrateOptions o;
  o.id = "fake-h200";
  o.memory_peak_bytes_per_s = 4.8e12;
  o.device_memory_bytes = 141.0 * (1 << 30);
  const Calibration c = calibrate_from_run(run, o);
  EXPECT_NEAR(c.kernel_overhead_s, 6.5e-6, 0.01e-6);
  EXPECT_NEAR(c.memory_bandwidth_bytes_per_s, 4.3e12, 1e6);
  int memory_bound = 0, overhead_bound = 0;
  for (const auto& p : c.points) {
    const double es = p.dtype == "fp32" ? 4 : 2;
    const double compute_s = 2 * p.m * p.n * p.k / (p.peak_flops_per_s * 0.75 * sextant::gemm_shape_factor(p.m, p.n, p.k, 60.0));
    if ((p.m * p.k + p.k * p.n + p.m * p.n) * es / 4.3e12 > compute_s) ++memory_bound;
    if (6.5e-6 > compute_s) ++overhead_bound;
  }
  EXPECT_GT(memory_bound, 0);
  EXPECT_GT(overhead_bound, 0);
  for (const auto& f : c.gemm) {
    EXPECT_NEAR(f.gemm_peak_fraction, 0.75, 2e-3) << f.dtype;
    EXPECT_NEAR(f.gemm_half_dim, 60, 1.0) << f.dtype;
    EXPECT_LT(f.fit_rms_error_fraction, 2e-3) << f.dtype;
  }
  EXPECT_NE(c.accelerator_yaml.find("kernel_overhead_us"), std::string::npos) << c.accelerator_yaml;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("sextant-test-gpu-roofline-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "accelerators");
  std::ofstream(dir / "accelerators" / "gpu.yaml") << c.accelerator_yaml;
  std::shared_ptr<const sextant::Catalog> cat;
  ASSERT_NO_THROW(cat = sextant::Catalog::load(dir.string())) << c.accelerator_yaml;
  std::filesystem::remove_all(dir);
  const sextant::Accelerator& a = cat->accelerator("fake-h200");
  EXPECT_NEAR(a.memory_bandwidth_bytes_per_s.value * a.memory_bandwidth_fraction.value, 4.3e12, 1e6);
  for (const auto& p : c.points) {
    sextant::ir::ComputeOp op;
    op.cls = sextant::ir::OpClass::Gemm;
    op.m = static_cast<int64_t>(p.m);
    op.n = static_cast<int64_t>(p.n);
    op.k = static_cast<int64_t>(p.k);
    op.dtype = sextant::parse_dtype(p.dtype, {});
    op.flops = 2 * p.m * p.n * p.k;
    op.bytes = (p.m * p.k + p.k * p.n + p.m * p.n) * (p.dtype == "fp32" ? 4 : 2);
    const double measured_s = op.flops / p.achieved_flops_per_s;
    EXPECT_NEAR(sextant::compute_time_s(op, a) / measured_s, 1.0, 5e-3) << p.dtype << " " << p.m << "x" << p.n << "x" << p.k;
  }
}

// Does a calibrated MPI network stay loadable when the largest all-reduce beats the ping-pong
// rate (through shared memory: 1.07x on a 2-core host, where `bench --quick && calibrate` then
// failed on the catalog's "a fraction ... in (0, 1]")? The fraction is capped at 1 and the entry
// says by how much the measurement exceeded it.
TEST(NetworkCalibration, AllReduceAbovePingPongIsCappedAtTheLinkRate) {
  RunRecord run;
  run.id = 9;
  run.host.hostname = "host";
  FakeGpuSpec spec;  // the GEMM part of the run (calibrate needs one); the network is the question
  run.measurements = make_gpu_suite()->run(fake_config(spec)).measurements;
  auto m = [](const std::string& coll, const std::string& metric, double size, double value) {
    Measurement x;
    x.suite = "comm_mpi";
    x.name = coll + " " + std::to_string(static_cast<int64_t>(size));
    x.metric = metric;
    x.params = {{"collective", coll}, {"size_bytes", std::to_string(static_cast<int64_t>(size))}, {"ranks", "2"}};
    x.samples = {value, value, value};
    return x;
  };
  const double bw = 10e9, lat = 2e-6;  // ping-pong: t = lat + s / bw
  for (double s : {1e3, 1e5, 1e7}) run.measurements.push_back(m("pingpong", "latency_s", s, lat + s / bw));
  run.measurements.push_back(m("all_reduce", "busbw_bytes_per_s", 1e7, 1.074 * bw));
  const Calibration c = calibrate_from_run(run, {});
  ASSERT_TRUE(c.network.present);
  EXPECT_NEAR(c.network.bandwidth_bytes_per_s, bw, 1e-6 * bw);
  EXPECT_DOUBLE_EQ(c.network.achievable_fraction, 1.0);
  EXPECT_NE(c.network_yaml.find("= 1.074, capped at 1"), std::string::npos) << c.network_yaml;
}

// Does each case run --warmup untimed repetitions at the timed size after the sizing call, then
// the timed ones? (The sizing call of one iteration had counted as the first warm-up.)
TEST(GpuSuite, WarmupRepetitionsRunAtTheTimedSize) {
  for (int warmup : {0, 1, 3}) {
    FakeGpuSpec spec;
    spec.gemm_calls = std::make_shared<std::vector<int>>();
    SuiteConfig c = fake_config(spec);
    c.warmup_count = warmup;
    const SuiteOutput out = make_gpu_suite()->run(c);
    const auto& calls = *spec.gemm_calls;
    const size_t per_case = 1 + static_cast<size_t>(warmup) + 3;
    ASSERT_EQ(calls.size(), 21 * per_case) << warmup;
    for (size_t i = 0; i < calls.size(); i += per_case) {
      EXPECT_EQ(calls[i], 1);
      for (size_t j = 1; j < per_case; ++j) EXPECT_EQ(calls[i + j], calls[i + 1]) << "warmup " << warmup << " case " << i / per_case;
    }
  }
}

// Does calibrate say so when the run's repetitions scatter (other work shared the host), and stay
// quiet on a steady run?
TEST(GpuCalibration, ANoisyRunIsNoted) {
  FakeGpuSpec spec;
  RunRecord run;
  run.id = 11;
  run.host.hostname = "gpuhost";
  run.measurements = make_gpu_suite()->run(fake_config(spec)).measurements;
  auto noisy_note = [](const Calibration& c) {
    for (const auto& n : c.notes)
      if (n.find("is noisy") != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(noisy_note(calibrate_from_run(run, {})));
  // Every GEMM's first repetition at 60% and second at 80% of the rate: a 20% spread.
  for (auto& m : run.measurements)
    if (m.metric == "flops_per_s") {
      m.samples[0] *= 0.6;
      m.samples[1] *= 0.8;
    }
  const Calibration c = calibrate_from_run(run, {});
  EXPECT_TRUE(noisy_note(c));
}

// Question (review of 2026-12-05): is a run whose stored rates are damaged (a copy bandwidth of
// -1 in the database) refused, naming the case, as a damaged GEMM rate is? A bandwidth case had
// been dropped without a word and the entry written without it.
TEST(GpuCalibration, ADamagedRateIsRefusedNamingItsCase) {
  FakeGpuSpec spec;
  RunRecord run;
  run.id = 11;
  run.host.hostname = "gpuhost";
  run.measurements = make_gpu_suite()->run(fake_config(spec)).measurements;
  ASSERT_NO_THROW(calibrate_from_run(run, {}));
  for (double bad : {-1.0, 0.0, std::nan("")}) {
    RunRecord damaged = run;
    Measurement* copy = nullptr;
    for (auto& m : damaged.measurements)
      if (m.metric == "bytes_per_s" && m.has_param("copy")) copy = &m;
    ASSERT_NE(copy, nullptr);
    copy->samples[0] = bad;
    try {
      calibrate_from_run(damaged, {});
      ADD_FAILURE() << "a sample of " << bad << " was taken";
    } catch (const sextant::Error& e) {
      EXPECT_NE(std::string(e.what()).find("run 11: case gpu/" + copy->name), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("must be positive and finite"), std::string::npos) << e.what();
    }
  }
}
