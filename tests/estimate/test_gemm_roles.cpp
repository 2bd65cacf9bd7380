// Question: does estimate's compute model time a GEMM with the catalog's shape factor, the
// per-role half-dimensions of the entry where it gives them and gemm_half_dim (or 128) otherwise?
#include <gtest/gtest.h>

#include <array>

#include "catalog/catalog.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"

using namespace sextant;

namespace {
Accelerator accelerator() {
  Accelerator a;
  a.id = "roles";
  a.peak_flops[DType::BF16] = Sourced{1e15, "test", "", true};
  a.gemm_peak_fraction[DType::BF16] = Sourced{0.8, "test", "", true};
  a.memory_bandwidth_bytes_per_s = Sourced{3e12, "test", "", true};
  a.kernel_overhead_s = Sourced{0, "test", "", true};
  return a;
}

ir::ComputeOp gemm(int64_t m, int64_t n, int64_t k) {
  ir::ComputeOp op;
  op.cls = ir::OpClass::Gemm;
  op.dtype = DType::BF16;
  op.m = m;
  op.n = n;
  op.k = k;
  op.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return op;
}

// The closed form: prod over roles of min(1, [x/(x+h)] / [8192/(8192+h)]).
double factor(double x, double h) {
  const double v = x / (x + h) * (8192 + h) / 8192;
  return v < 1 ? v : 1;
}
}  // namespace

TEST(GemmRoles, ComputeTimeUsesThePerRoleHalfDims) {
  Accelerator a = accelerator();
  a.gemm_half_dim = Sourced{200, "test", "", true};
  a.gemm_half_dim_m = Sourced{900, "test", "", true};
  a.gemm_half_dim_k = Sourced{30, "test", "", true};
  for (const auto& s : {std::array<int64_t, 3>{64, 4096, 4096}, {4096, 64, 4096}, {4096, 4096, 64}, {1024, 2048, 512}}) {
    const ir::ComputeOp op = gemm(s[0], s[1], s[2]);
    const double expected = op.flops / (1e15 * 0.8 * factor(double(s[0]), 900) * factor(double(s[1]), 200) * factor(double(s[2]), 30));
    EXPECT_NEAR(compute_time(op, a).compute_s, expected, 1e-12 * expected) << s[0] << "x" << s[1] << "x" << s[2];
  }
  // m and n cost differently: a small m (h_m = 900) is slower than an equally small n (h = 200).
  EXPECT_GT(compute_time(gemm(64, 4096, 4096), a).compute_s, compute_time(gemm(4096, 64, 4096), a).compute_s);
}

TEST(GemmRoles, WithoutRoleValuesTheModelIsTheSymmetricOne) {
  Accelerator a = accelerator();
  a.gemm_half_dim = Sourced{300, "test", "", true};
  const ir::ComputeOp op = gemm(96, 5000, 700);
  const double symmetric = op.flops / (1e15 * 0.8 * factor(96, 300) * factor(5000, 300) * factor(700, 300));
  EXPECT_NEAR(compute_time(op, a).compute_s, symmetric, 1e-12 * symmetric);
  // No half-dimension at all: 128 for every role.
  const Accelerator b = accelerator();
  const double dflt = op.flops / (1e15 * 0.8 * factor(96, 128) * factor(5000, 128) * factor(700, 128));
  EXPECT_NEAR(compute_time(op, b).compute_s, dflt, 1e-12 * dflt);
}
