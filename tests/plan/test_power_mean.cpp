// Question: is a sweep's power per GPU that of an average GPU of the job? An unbalanced pipeline
// (a stage of 2 layers ends the step while one of 14 computes longer) must not be priced at the
// waiting critical rank's activity.
#include <gtest/gtest.h>

#include <algorithm>

#include "estimate/estimate.hpp"
#include "plan/sweep.hpp"
#include "scenario/scenario.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

TEST(SweepPower, ActivityIsTheMeanOverPipelineRanks) {
  const Scenario s = parse_scenario("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 16\n"
                                    "parallel: {tp: 4, pp: 4, stage_layers: [2, 8, 8, 14]}\n"
                                    "training: {global_batch: 64, micro_batch: 1, seq_len: 4096}\n",
                                    "t.yaml", *sextant::test_catalogs::frozen());
  const StepEstimate e = Estimator{}.run(ir::lower(s));
  ASSERT_GT(e.mean_compute_s, 1.5 * e.compute_s) << "the critical rank holds 2 layers, the mean rank 8";
  const plan::PowerOptions po;
  const double busy = std::min(1.0, e.mean_compute_s / e.step_time_s);
  const double comm = std::min(1.0 - busy, e.mean_exposed_comm_s / e.step_time_s);
  const plan::PowerPoint pw = plan::gpu_power(s, e, 0, po);
  EXPECT_NEAR(pw.activity_fraction, busy + po.comm_activity_fraction * comm, 1e-12);
  // Without a pipeline the mean rank is the critical rank.
  const Scenario flat = parse_scenario("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 16\nparallel: {tp: 4}\n"
                                       "training: {global_batch: 64, micro_batch: 1, seq_len: 4096}\n",
                                       "t.yaml", *sextant::test_catalogs::frozen());
  const StepEstimate f = Estimator{}.run(ir::lower(flat));
  EXPECT_NEAR(f.mean_compute_s, f.compute_s, 1e-12 * f.compute_s);
}

// Question (review of 2026-12-03): under a published power cap (H100 at 400 W: 700 of 989.4 bf16
// TFLOP/s), does a limit at the cap run at that clock and draw the limit, is the clock monotonic in
// the limit around the lowest cap point, and does a limit between points interpolate? Every cap
// read as clock 1 before (its rate scaled by 1e12 twice).
TEST(SweepPower, PublishedCapsSetTheClock) {
  const std::string hw =
      "model: llama3-8b\nsystem: dgx-h100\naccelerator: hx\nnum_gpus: 8\nparallel: {tp: 8}\n"
      "training: {global_batch: 64, micro_batch: 1, seq_len: 4096}\n"
      "hardware:\n  accelerators:\n    - {id: hx, name: hx, vendor: nvidia, kind: gpu, memory_gib: {value: 80, source: x},\n"
      "       memory_bandwidth_gb_per_s: {value: 3350, source: x}, tdp_w: {value: 700, source: x}, idle_w: {value: 70, source: x},\n"
      "       peak_tflops: {bf16: {value: 989.4, source: x}},\n"
      "       power_caps: [{power_w: 400, bf16_tflops: {value: 700, source: x}}]}\n";
  const Scenario s = parse_scenario(hw, "t.yaml", *sextant::test_catalogs::frozen());
  ASSERT_EQ(s.accelerator.power_caps.size(), 1u);
  EXPECT_NEAR(s.accelerator.power_caps[0].clock_ratio, 700 / 989.4, 1e-12);
  const StepEstimate e = Estimator{}.run(ir::lower(s));
  const plan::PowerOptions po;
  const plan::PowerPoint at = plan::gpu_power(s, e, 400, po);
  ASSERT_TRUE(at.capped);
  EXPECT_TRUE(at.clock_from_caps);
  EXPECT_NEAR(at.clock_ratio, 700 / 989.4, 1e-9);
  EXPECT_NEAR(plan::gpu_power(s, e, 550, po).clock_ratio, (700 / 989.4 + 1) / 2, 1e-9);  // halfway to the TDP
  double last = 0;
  for (double w : {300.0, 350.0, 399.0, 400.0, 401.0, 500.0, 650.0}) {
    const double r = plan::gpu_power(s, e, w, po).clock_ratio;
    EXPECT_GT(r, last) << w << " W";
    last = r;
  }
}
