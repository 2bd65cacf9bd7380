// Question: does estimate tell a reader when a prediction lies outside what the bundled
// validation rows measured (accelerator, precision, MoE, framework, MFU above the highest
// measured), and name the pipeline stage that is the bottleneck when it is not the one whose
// breakdown is shown?
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.hpp"
#include "estimate/estimate.hpp"
#include "plan/plan.hpp"
#include "scenario/scenario.hpp"
#include "validate/training_validation.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {
std::shared_ptr<const Catalog> bundled() { return sextant::test_catalogs::bundled(); }
const std::vector<std::string> kCsvs = {std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv",
                                        std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training-qwen3-30b-a3b.csv"};
Scenario scenario(const std::string& yaml) { return parse_scenario(yaml, "t.yaml", *bundled()); }
bool has_note(const ValidatedRange& v, const std::string& text) {
  for (const auto& n : v.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST(ValidatedRange, InsideTheRangeSaysNothing) {
  const Scenario s = scenario("model: llama3-70b\nsystem: dgx-h100\nnum_gpus: 64\nparallel: {tp: 8, pp: 2}\n"
                              "training: {global_batch: 64, micro_batch: 1, seq_len: 4096}\n");
  const ValidatedRange v = validated_range(kCsvs, *bundled(), s, 0.40, 3.9);
  EXPECT_GT(v.accelerator_rows, 10u);
  EXPECT_GT(v.precision_rows, 5u);
  ASSERT_TRUE(v.mfu_max.has_value());
  EXPECT_GT(v.mfu_max->mfu_fraction, 0.40);
  EXPECT_LT(v.mfu_max->mfu_fraction, 0.60);
  EXPECT_TRUE(v.notes.empty()) << v.notes.front();
  // The same plan predicted above the highest measured MFU (x 1.05) is flagged, naming the row.
  const ValidatedRange hi = validated_range(kCsvs, *bundled(), s, v.mfu_max->mfu_fraction * 1.2, 3.9);
  EXPECT_TRUE(has_note(hi, "above the highest measured on h100-sxm-80gb in bf16")) << hi.notes.size();
  EXPECT_TRUE(has_note(hi, v.mfu_max->id));
}

TEST(ValidatedRange, UnmeasuredAcceleratorPrecisionFrameworkAndMoe) {
  // No row ran on an MI300X at all.
  EXPECT_TRUE(has_note(validated_range(kCsvs, *bundled(),
                                       scenario("model: llama3-8b\nsystem: mi300x-8gpu\nnum_gpus: 8\n"
                                                "training: {global_batch: 8, micro_batch: 1, seq_len: 4096}\n"),
                                       0.3, 3.9),
                       "no validation row ran on mi300x"));
  // On a B200 the only rows are MoE runs (Qwen3-30B-A3B, fp8): a dense model is not held to their
  // MFU, and the note says so.
  const ValidatedRange b200 = validated_range(kCsvs, *bundled(),
                                              scenario("model: llama3-8b\nsystem: dgx-b200\nnum_gpus: 8\n"
                                                       "training: {global_batch: 8, micro_batch: 1, seq_len: 4096, precision: fp8}\n"),
                                              0.3, 3.9);
  EXPECT_GT(b200.precision_rows, 0u);
  EXPECT_EQ(b200.kind_rows, 0u);
  EXPECT_FALSE(b200.mfu_max.has_value());
  EXPECT_TRUE(has_note(b200, "are all MoE models"));
  // A100 80 GB rows exist, none in fp32... nor fp8 (no fp8 on the part): take tf32.
  const ValidatedRange tf32 = validated_range(kCsvs, *bundled(),
                                              scenario("model: llama3-8b\nsystem: dgx-a100\nnum_gpus: 8\n"
                                                       "training: {global_batch: 8, micro_batch: 1, seq_len: 2048, precision: tf32}\n"),
                                              0.3, 3.9);
  EXPECT_GT(tf32.accelerator_rows, 0u);
  EXPECT_TRUE(has_note(tf32, "in tf32"));
  // A framework no row used.
  EXPECT_TRUE(has_note(validated_range(kCsvs, *bundled(),
                                       scenario("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 8\nframework: pytorch-fsdp\n"
                                                "parallel: {zero_stage: 3}\n"
                                                "training: {global_batch: 8, micro_batch: 1, seq_len: 4096}\n"),
                                       0.3, 3.9),
                       "no validation row used framework pytorch-fsdp"));
  // An MoE model: the MoE rows' own error, which is not the dense rows'.
  const ValidatedRange moe = validated_range(kCsvs, *bundled(),
                                             scenario("model: mixtral-8x7b\nsystem: dgx-h100\nnum_gpus: 64\n"
                                                      "parallel: {tp: 2, pp: 1, ep: 8}\n"
                                                      "training: {global_batch: 256, micro_batch: 1, seq_len: 4096}\n"),
                                             0.3, 3.9);
  EXPECT_GE(moe.moe_rows, 10u);
  EXPECT_GT(moe.moe_median_abs_pct, 3.9);
  EXPECT_TRUE(has_note(moe, "MoE validation rows are predicted with median"));
  // The same model in fp8: the MoE rows split by precision class, each class counted once, and
  // the sign of the class's errors read out when it is systematic.
  const ValidatedRange moe8 = validated_range(kCsvs, *bundled(),
                                              scenario("model: mixtral-8x7b\nsystem: dgx-h100\nnum_gpus: 64\n"
                                                       "parallel: {tp: 2, pp: 1, ep: 8}\n"
                                                       "training: {global_batch: 256, micro_batch: 1, seq_len: 4096, precision: fp8}\n"),
                                              0.3, 3.9);
  EXPECT_EQ(moe8.moe_rows, moe.moe_rows);
  EXPECT_GT(moe.moe_class_rows, 0u);
  EXPECT_GT(moe8.moe_class_rows, 0u);
  EXPECT_EQ(moe.moe_class_rows + moe8.moe_class_rows, moe.moe_rows);
  EXPECT_TRUE(has_note(moe8, "in 8-bit precisions"));
  EXPECT_TRUE(has_note(moe, "in 16- and 32-bit precisions"));
  for (const ValidatedRange* v : {&moe, &moe8}) {
    EXPECT_LE(v->moe_class_faster_rows, v->moe_class_rows);
    const bool optimistic = v->moe_class_rows >= 4 && v->moe_class_faster_rows * 4 >= v->moe_class_rows * 3;
    EXPECT_EQ(has_note(*v, "the model is optimistic there"), optimistic);
  }
  // A missing CSV is skipped, not an error.
  EXPECT_NO_THROW(validated_range({"/nonexistent.csv"}, *bundled(),
                                  scenario("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 8\n"
                                           "training: {global_batch: 8, micro_batch: 1, seq_len: 4096}\n"),
                                  0.3, 3.9));
}

// A heavier stage (more layers) is the bottleneck while stage 0 ends the step: the note names it,
// and the stages table's compute and exposed communication add up to its busy time
// (tests/plan/test_power_mean.cpp: power from the means over the ranks).
TEST(ValidatedRange, BottleneckStageIsNamedAndPowerIsTheMeanRank) {
  const Scenario s = scenario("model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 16\n"
                              "parallel: {tp: 4, pp: 4, stage_layers: [2, 8, 8, 14]}\n"
                              "training: {global_batch: 64, micro_batch: 1, seq_len: 4096}\n");
  const ir::Workload w = ir::lower(s);
  const Estimator est;
  StepEstimate e = est.run(w);
  e.stages = stage_table(w, est);
  for (const auto& st : e.stages) EXPECT_NEAR(st.compute_s + st.exposed_comm_s, st.busy_s, 1e-9 * st.busy_s) << st.stage;
  const Result r = to_result(e, s);
  bool named = false;
  for (const auto& n : r.notes) named = named || n.find("pipeline stage 3 is the bottleneck") != std::string::npos;
  EXPECT_EQ(e.critical_stage, 0);
  EXPECT_TRUE(named);
  EXPECT_GT(e.mean_compute_s, e.compute_s) << "the critical rank holds 2 layers, the mean rank 8";
}
