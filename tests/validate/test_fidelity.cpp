// Question: how close is `estimate` to published step times and component measurements?
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "catalog/catalog.hpp"
#include "core/csv.hpp"
#include "estimate/collective.hpp"
#include "estimate/estimate.hpp"
#include "plan/plan.hpp"
#include "validate/training_validation.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {
std::shared_ptr<const Catalog> bundled() { return sextant::test_catalogs::bundled(); }
}  // namespace

TEST(Fidelity, PublicTrainingSetMedianError) {
  const auto r = validate_training_csv(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv", *bundled());
  EXPECT_EQ(r.number("rows_count"), 124);
  // Issue 2's target is median <= 10% and max <= 35%. One row is beyond 35% (docs/validation.md
  // says which and why): MBRIDGE-ARCHIVE-27, a run its publisher's maintainers call a 2x
  // regression of that software release (Megatron-Bridge issue #1998, cited in the row's
  // `known_issue` column). So the overall maximum (56.4% measured) misses the bound, and
  // this test does not pretend otherwise: it holds the median (4.5%) and p90 (14.3%) within the
  // issue's 10% and a 20% bound, every other row within 35%, exactly that one row cited (by id,
  // so that moving the citation is a reviewed change) and that row within 60%, so that it cannot
  // drift further unseen.
  EXPECT_LE(r.number("median_abs_error_pct"), 10.0);
  EXPECT_LE(r.number("p90_abs_error_pct"), 20.0);
  EXPECT_EQ(r.number("known_issue_rows_count"), 1);
  EXPECT_LE(r.number("max_abs_error_excl_known_issue_pct"), 35.0);
  const Table* rows = r.table("validation_rows");
  ASSERT_NE(rows, nullptr);
  for (size_t i = 0; i < rows->column("error_pct").size(); ++i) {
    const std::string& id = rows->column("id").str[i];
    const double err = std::fabs(rows->column("error_pct").f64[i]);
    if (!rows->column("known_issue").str[i].empty()) {
      EXPECT_EQ(id, "MBRIDGE-ARCHIVE-27") << "a new known_issue citation";
      EXPECT_LE(err, 60.0) << id;
    } else {
      EXPECT_LE(err, 35.0) << id << " is beyond 35% without a citation";
    }
  }
  // `plan` shows differences below the validated median error as ties: its constant must be the
  // median measured here (within a quarter of a percentage point), not a figure of an older model.
  EXPECT_NEAR(plan::kValidatedMedianAbsErrorFraction * 100.0, r.number("median_abs_error_pct"), 0.25);
}

// Question (2026-12-04 audit): does leave-one-source-out refit the constants without the held-out
// source, and does it say which rows could not be held out? Every row is predicted once; the rows
// of an accelerator no other source has (MPT-LLMFOUNDRY's A100-40GB) keep the catalog's constants,
// are named in the table, and are left out of the held-out figures, which are then no kinder than
// the in-sample ones.
TEST(Fidelity, LeaveOneSourceOutRefitsAndSaysWhatItCouldNot) {
  ValidationOptions opt;
  opt.leave_one_source_out = true;
  const auto r = validate_training_csv(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv", *bundled(), opt);
  const Table* lo = r.table("leave_one_source_out");
  ASSERT_NE(lo, nullptr);
  // The H100 constants fitted to every row and to every row but MBRIDGE-ARCHIVE's, computed here
  // (review of 2026-12-06: the fold's text had been compared with a hard-coded 0.86, which no fit
  // gave any longer, so the check passed whatever the fold did).
  const auto t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv");
  std::vector<Scenario> scen;
  for (size_t i = 0; i < t.rows(); ++i) scen.push_back(scenario_from_training_row(t, i, *bundled()));
  auto h100_text = [](const std::vector<FittedConstants>& fit) {
    for (const auto& f : fit)
      if (f.accelerator == "h100-sxm-80gb")
        return f.accelerator + " sustained=" + format_double(f.sustained_compute_fraction) + " half_dim=" + format_double(f.gemm_half_dim);
    return std::string("no h100 fit");
  };
  const std::string all_rows = h100_text(fit_constants(t, scen)), without = h100_text(fit_constants(t, scen, "MBRIDGE-ARCHIVE"));
  // Without MBRIDGE-ARCHIVE the H100 fit moves (its rows pin the H100 constants).
  EXPECT_NE(all_rows, without);
  int64_t rows = 0;
  bool named = false, fold_seen = false;
  for (size_t i = 0; i < lo->column("held_out_source").size(); ++i) {
    rows += lo->column("rows_count").i64[i];
    const std::string& c = lo->column("refitted_constants").str[i];
    named = named || (lo->column("held_out_source").str[i] == "MPT-LLMFOUNDRY" && c.find("a100-sxm-40gb not refitted") != std::string::npos);
    if (lo->column("held_out_source").str[i] != "MBRIDGE-ARCHIVE") continue;
    fold_seen = true;
    // The fold's H100 constants are those fitted without the source, not those of every row.
    auto lists = [&c](const std::string& item) {  // the item, whole (0.77 is not 0.778)
      const size_t at = c.find(item);
      return at != std::string::npos && (at + item.size() == c.size() || c[at + item.size()] == ';' || c[at + item.size()] == ' ');
    };
    EXPECT_TRUE(lists(without)) << c << " | expected " << without;
    EXPECT_FALSE(lists(all_rows)) << c << " | the all-rows fit " << all_rows;
  }
  EXPECT_EQ(rows, 124);
  EXPECT_TRUE(named);
  EXPECT_TRUE(fold_seen);
  const double held = r.number("loso_held_out_rows_count");
  EXPECT_GT(held, 0);
  EXPECT_LT(held, 124);
  EXPECT_GE(r.number("loso_held_out_median_abs_error_pct"), r.number("median_abs_error_pct"));
  EXPECT_GE(r.number("loso_median_abs_error_pct"), r.number("median_abs_error_pct"));
}

// Question (review of 2026-12-06): does the row table give the MFU over the measured step beside
// the one over the predicted step? docs/validation.md compares the first with published MFUs, and
// had quoted it while the table printed only the second (0.4510 for MLM-README-H100-03, where the
// measured step gives 0.4708): a reader would have blamed FLOP conventions for a step-time error.
TEST(Fidelity, RowTableGivesTheMfuOverTheMeasuredStep) {
  const auto r = validate_training_csv(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv", *bundled());
  const Table* rows = r.table("validation_rows");
  ASSERT_NE(rows, nullptr);
  const auto& measured = rows->column("measured_mfu_fraction").f64;
  const auto& predicted = rows->column("predicted_mfu_fraction").f64;
  const auto& pred_s = rows->column("predicted_step_time_s").f64;
  const auto& target_s = rows->column("target_step_time_s").f64;
  ASSERT_EQ(measured.size(), predicted.size());
  double best_h100_bf16 = 0;
  const auto t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv");
  for (size_t i = 0; i < measured.size(); ++i) {
    // One FLOP count: the two differ exactly by the row's step-time error.
    EXPECT_NEAR(measured[i], predicted[i] * pred_s[i] / target_s[i], 1e-12) << rows->column("id").str[i];
    if (pred_s[i] != target_s[i]) {
      EXPECT_NE(measured[i], predicted[i]) << rows->column("id").str[i];
    }
    if (t.at(i, "accelerator") == "h100-sxm-80gb" && t.at(i, "precision") == "bf16" && rows->column("known_issue").str[i].empty())
      best_h100_bf16 = std::max(best_h100_bf16, measured[i]);
  }
  // The same figure estimate and plan report as the highest measured (validated_mfu_max_fraction).
  const auto m = highest_measured_mfu(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv", *bundled(), "h100-sxm-80gb", DType::BF16);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->mfu_fraction, best_h100_bf16, 1e-12);
}

TEST(Fidelity, GemmRatesOfComponentsWithinTenPercent) {
  const auto t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/components.csv");
  int checked = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "kind") != "gemm") continue;
    const auto& acc = bundled()->accelerator(t.at(i, "accelerator"));
    const DType d = parse_dtype(t.at(i, "dtype"), {});
    // The best-shape rate of the compute model: a large square GEMM, burst (not sustained) rate.
    ir::ComputeOp op;
    op.cls = ir::OpClass::Gemm;
    op.m = op.n = op.k = 8192;
    op.flops = 2.0 * 8192.0 * 8192 * 8192;
    op.dtype = d;
    Accelerator burst = acc;
    burst.sustained_compute_fraction = Sourced{};
    burst.kernel_overhead_s = Sourced{0, "test", "", true};
    const double tflops = op.flops / compute_time_s(op, burst) / 1e12;
    const double measured = t.f64(i, "value");
    EXPECT_NEAR(tflops / measured, 1.0, 0.10) << t.at(i, "id") << ": model " << tflops << " measured " << measured;
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

TEST(Fidelity, SingleNodeCollectiveBusBandwidthWithinTenPercent) {
  const auto t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/components.csv");
  CollectiveRegistry reg;
  int checked = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "kind") != "collective" || t.at(i, "num_gpus") != "8") continue;
    const auto& sys = bundled()->system(t.at(i, "system"));
    Scenario s;
    s.system = sys;
    s.accelerator = bundled()->accelerator(sys.accelerator);
    s.scale_up = bundled()->network(sys.scale_up_network);
    const Fabric f = make_fabric(s);
    const std::string op = t.at(i, "op");
    ir::CollKind k = op.rfind("all_gather", 0) == 0 ? ir::CollKind::AllGather
                     : op.rfind("reduce_scatter", 0) == 0 ? ir::CollKind::ReduceScatter
                                                          : ir::CollKind::AllReduce;
    const bool nvls = op.find("NVLS") != std::string::npos && op.find("ring") == std::string::npos;
    const std::string algo = nvls ? "nvls" : "ring";
    ir::Group g{ir::GroupKind::TP, 8, 1, 8, 1};
    const double bytes = t.at(i, "message_bytes").empty() ? 16e9 : t.f64(i, "message_bytes");
    const double time = reg.get(algo).time_s(k, bytes, g, f);
    const double busbw = bytes * ir::bus_factor(k, 8) / time / 1e9;
    EXPECT_NEAR(busbw / t.f64(i, "value"), 1.0, 0.10) << t.at(i, "id") << ": model " << busbw;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

// Question (2026-12-04 audit): do the inter-node all-reduce rates of components.csv come out of
// the ring over the scale-out network? (Only the single-node rows had been checked.) The NICs'
// achievable fractions of these fabrics come from these rows or their sources (docs/catalog.md),
// so this checks that the ring's composition of NVLink and NICs is consistent with them.
TEST(Fidelity, MultiNodeAllReduceBusBandwidthWithinTenPercent) {
  const auto t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/components.csv");
  CollectiveRegistry reg;
  int checked = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "kind") != "collective" || t.at(i, "num_gpus").empty() || t.at(i, "num_gpus") == "8") continue;
    if (t.at(i, "op").rfind("all_reduce", 0) != 0) continue;
    const auto& sys = bundled()->system(t.at(i, "system"));
    Scenario s;
    s.system = sys;
    s.accelerator = bundled()->accelerator(sys.accelerator);
    s.scale_up = bundled()->network(sys.scale_up_network);
    s.scale_out = bundled()->network(sys.scale_out_network);
    s.num_gpus = std::stoi(t.at(i, "num_gpus"));
    const Fabric f = make_fabric(s);
    const int n = s.num_gpus, per = sys.gpus_per_node;
    ir::Group g{ir::GroupKind::DP, n, 1, per, n / per, per};
    const double bytes = t.at(i, "message_bytes").empty() ? 16e9 : t.f64(i, "message_bytes");
    const double time = reg.get("ring").time_s(ir::CollKind::AllReduce, bytes, g, f);
    const double busbw = bytes * ir::bus_factor(ir::CollKind::AllReduce, n) / time / 1e9;
    if (t.at(i, "metric") == "busbw_avg") {
      // nccl-tests' "Avg bus bandwidth" averages every size of the sweep, latency-bound ones
      // included: a floor for the large-message rate, not that rate (ib-hdr had taken its
      // fraction from one, 0.848, and charged the latency a second time; 2026-12-04 audit). The
      // large-message rate lies between it and the NICs' line rate.
      const double port = sys.nic_bandwidth_bytes_per_s.known ? sys.nic_bandwidth_bytes_per_s.value : s.scale_out->bandwidth_bytes_per_s.value;
      const double line_gbps = port * sys.nics_per_node / 1e9;  // a ring's bus bandwidth: the node's NICs together
      EXPECT_GE(busbw, t.f64(i, "value")) << t.at(i, "id");
      EXPECT_LE(busbw, line_gbps) << t.at(i, "id");
    } else {
      EXPECT_NEAR(busbw / t.f64(i, "value"), 1.0, 0.10) << t.at(i, "id") << ": model " << busbw;
    }
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

// Question: does the memory accounting admit the plans that ran? Every published run of the
// fidelity set fits by the model's accounting except MBRIDGE-ARCHIVE-26 (GPT-OSS-120B), a
// documented model weakness (docs/plan.md, Memory). MLM-SC21-T2-04 (DeepSpeed ZeRO-3, GPT-530B)
// fits since its stack holds at most stage3_max_live_parameters gathered (review of 2026-12-05;
// two whole layers had put it at 1.045 of 80 GB). A user's 16xH100 Qwen3-30B-A3B run
// (Megatron-Bridge issue #949: pp2 vpp2 ep2, 8 x 4096-token micro-batches, full recompute) ran
// on 80 GB; the model admitted it (within 1% of the card since QK-norm is counted, below) only once interleaved 1F1B held one micro-batch of the last
// chunk's fp32 logits (it had counted 10 GB more) and the Megatron-Bridge stack reduced in bf16
// (15 GB of fp32 gradients less).
TEST(Fidelity, PlansThatRanFitInMemory) {
  const auto r = validate_training_csv(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv", *bundled());
  const Table* rows = r.table("validation_rows");
  ASSERT_NE(rows, nullptr);
  std::vector<std::string> over;
  for (size_t i = 0; i < rows->column("id").size(); ++i)
    if (rows->column("fits_memory").str[i] != "true") over.push_back(rows->column("id").str[i]);
  EXPECT_EQ(over, (std::vector<std::string>{"MBRIDGE-ARCHIVE-26"}));

  const auto t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training-qwen3-30b-a3b.csv");
  const Estimator est;
  int checked = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "source") != "MBRIDGE-ISSUE-949") continue;
    const auto e = est.run(ir::lower(scenario_from_training_row(t, i, *bundled())));
    // At the edge of the card, within the precision of the count: with the model's QK-norm (the
    // `qk_norm` column, 2026-12-05) the plan reads 80.12 GiB of 80, its pre-norm Q and K saved
    // beside the attention's inputs (0.28 GiB a recomputed layer), while the 2 GiB reserve is an
    // estimate and whether the stack keeps the fused QKV output alive through its V view (0.28 GiB
    // the other way) is not modelled. 1% of the capacity is that precision.
    EXPECT_LT(e.memory.total_bytes(), 1.01 * e.memory_capacity_bytes)
        << t.at(i, "id") << ": " << e.memory.total_bytes() / (1 << 30) << " GiB of " << e.memory_capacity_bytes / (1 << 30);
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

// Question: do the MoE dispatchers reproduce runs whose expert-parallel group crosses nodes?
// Megatron-Bridge's 16xH100 Qwen3-30B-A3B runs (EP16 over two DGX nodes, HybridEP, with and
// without EP overlap; data/validation/training-qwen3-30b-a3b.csv, not used by any fit) are
// predicted within 15% with the deduplicating dispatcher; modelled with the per-expert
// all-to-all instead, the NIC carries four times the bytes and the run without overlap comes
// out more than 35% slow.
TEST(Fidelity, NodeCrossingHybridEpRunsWithinFifteenPercent) {
  const std::string file = std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training-qwen3-30b-a3b.csv";
  const auto t = CsvTable::read_file(file);
  const Estimator est;
  int checked = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "source") != "MBRIDGE-SKILL-5225") continue;
    Scenario s = scenario_from_training_row(t, i, *bundled());
    EXPECT_EQ(s.plan.moe_dispatcher, "hybridep");
    EXPECT_EQ(s.plan.ep, 16);
    const double target = t.f64(i, "target_step_time_s");
    const double dedup = est.run(ir::lower(s)).step_time_s;
    EXPECT_NEAR(dedup / target, 1.0, 0.15) << t.at(i, "id") << ": predicted " << dedup << " s, measured " << target << " s";
    if (!s.plan.ep_comm_overlap) {
      s.plan.moe_dispatcher = "alltoall";
      EXPECT_GT(est.run(ir::lower(s)).step_time_s / target, 1.35) << t.at(i, "id");
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}
