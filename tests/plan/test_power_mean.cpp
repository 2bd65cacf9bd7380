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
  // A limit applies to each board: the 14-layer rank's board meets it first. A limit between the
  // mean board's draw and the busiest one's caps the plan (the mean was held against it, and such
  // a plan ran at full clock with its busiest boards above the limit, before 2026-12-03).
  ASSERT_GT(pw.busiest_board_w, pw.power_w + 20);
  const plan::PowerPoint capped = plan::gpu_power(s, e, (pw.power_w + pw.busiest_board_w) / 2, po);
  EXPECT_TRUE(capped.capped);
  EXPECT_LT(capped.clock_ratio, 1.0);
  EXPECT_NEAR(capped.busiest_board_w, (pw.power_w + pw.busiest_board_w) / 2, 1e-9);
  EXPECT_LT(capped.power_w, capped.busiest_board_w);
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
  // A cap point is a board flat out at that limit: a board at activity u meets a limit L where a
  // flat-out one draws 70 + (L - 70) / u, and the table is read there (before 2026-12-03 it was
  // read at L, so a plan drawing 356 W went from clock 1.0 at 357 W to 0.742 at 355 W).
  const double u = (plan::gpu_power(s, e, 0, po).busiest_board_w - 70) / (700 - 70);
  ASSERT_GT(u, 0.3);
  ASSERT_LT(u, 1.0);
  const plan::PowerPoint at = plan::gpu_power(s, e, 70 + 330 * u, po);
  ASSERT_TRUE(at.capped);
  EXPECT_TRUE(at.clock_from_caps);
  EXPECT_NEAR(at.clock_ratio, 700 / 989.4, 1e-9);
  EXPECT_NEAR(at.busiest_board_w, 70 + 330 * u, 1e-9);
  EXPECT_LE(at.power_w, at.busiest_board_w + 1e-9);
  EXPECT_NEAR(plan::gpu_power(s, e, 70 + 480 * u, po).clock_ratio, (700 / 989.4 + 1) / 2, 1e-9);  // halfway to the TDP
  // Just below the plan's own draw the clock stays near 1 (no jump to the table's 400 W point).
  EXPECT_GT(plan::gpu_power(s, e, plan::gpu_power(s, e, 0, po).busiest_board_w - 1, po).clock_ratio, 0.99);
  double last = 0;
  for (double w : {300.0, 350.0, 399.0, 400.0, 401.0, 500.0, 650.0}) {
    const double r = plan::gpu_power(s, e, w, po).clock_ratio;
    EXPECT_GT(r, last) << w << " W";
    last = r;
  }
}
