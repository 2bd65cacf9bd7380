// Question: does estimate's compute model add the GEMM operand-traffic term of an entry that gives
// bandwidth_by_working_set (calibrated CPU hosts) to the compute time, as the closed form says,
// and leave every other entry's GEMM time exactly as it was?
#include <gtest/gtest.h>

#include "catalog/catalog.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"

using namespace sextant;

namespace {
constexpr double MiB = 1024 * 1024;

Accelerator host() {
  Accelerator a;
  a.id = "host";
  a.kind = "cpu";
  a.peak_flops[DType::FP64] = Sourced{40e9, "test", "", true};
  a.gemm_peak_fraction[DType::FP64] = Sourced{0.9, "test", "", true};
  a.gemm_half_dim = Sourced{3, "test", "", true};
  a.memory_bandwidth_bytes_per_s = Sourced{13e9, "test", "", true};
  a.kernel_overhead_s = Sourced{0, "test", "", true};
  return a;
}

Accelerator with_traffic(Accelerator a) {
  a.bandwidth_by_working_set.points = {{1 * MiB, 75e9}, {8 * MiB, 58e9}, {16 * MiB, 27e9}, {32 * MiB, 13e9}, {128 * MiB, 12.5e9}};
  a.bandwidth_by_working_set.source = "test";
  a.gemm_fitted_footprint_bytes = Sourced{6 * MiB, "test", "", true};
  return a;
}

ir::ComputeOp gemm(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  ir::ComputeOp op;
  op.cls = ir::OpClass::Gemm;
  op.dtype = DType::FP64;
  op.m = m;
  op.n = n;
  op.k = k;
  op.batch = batch;
  op.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch);
  return op;
}
}  // namespace

TEST(OperandTrafficEstimate, InCacheShapeHasNoPenalty) {
  const Accelerator plain = host(), cal = with_traffic(host());
  for (const auto& op : {gemm(512, 32, 512), gemm(512, 512, 512), gemm(64, 64, 64)}) {
    const ComputeTime a = compute_time(op, plain), b = compute_time(op, cal);
    EXPECT_EQ(b.operand_traffic_s, 0.0);
    EXPECT_EQ(b.compute_s, a.compute_s);  // bit for bit
    EXPECT_EQ(b.time_s, a.time_s);
  }
}

TEST(OperandTrafficEstimate, DramResidentOperandAddsBytesOverBandwidth) {
  const Accelerator plain = host(), cal = with_traffic(host());
  // 1536x48x1536 fp64: F = 20.1 MB, in the 32 MiB level (13 GB/s); the fitted 6 MiB lies in the
  // 8 MiB level (58 GB/s): time = compute + F / 13 GB/s - F / 58 GB/s.
  const ir::ComputeOp op = gemm(1536, 48, 1536);
  const double f = (1536.0 * 1536 + 2 * 1536.0 * 48) * 8;
  const double compute = compute_time(op, plain).compute_s;
  const ComputeTime t = compute_time(op, cal);
  EXPECT_NEAR(t.operand_traffic_s, f / 13e9 - f / 58e9, 1e-15);
  EXPECT_NEAR(t.compute_s, compute + f / 13e9 - f / 58e9, 1e-15);
  EXPECT_GT(t.operand_traffic_s, 0.1 * compute);  // a material share here (1.2 ms on about 7 ms)
  // Every GEMM of a batch streams its own operands.
  EXPECT_NEAR(compute_time(gemm(1536, 48, 1536, 4), cal).operand_traffic_s, 4 * (f / 13e9 - f / 58e9), 1e-14);
}

TEST(OperandTrafficEstimate, EntriesWithoutTheTableAreUnchanged) {
  // A GPU-like entry (no bandwidth_by_working_set): the traffic term is never evaluated, even
  // for a shape far beyond any cache.
  const Accelerator plain = host();
  const ComputeTime t = compute_time(gemm(8192, 8192, 8192), plain);
  EXPECT_EQ(t.operand_traffic_s, 0.0);
  EXPECT_EQ(t.compute_s, 2.0 * 8192 * 8192 * 8192 / (40e9 * 0.9));
}
