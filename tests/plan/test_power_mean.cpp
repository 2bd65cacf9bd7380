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
