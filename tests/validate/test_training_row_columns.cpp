// Question: does the validation harness read the optional columns of a training row (head_dim,
// moe_dispatcher, ep_comm_overlap, fp8_recipe, known_issue) as documented, and name the file, line
// and column of a bad value with the valid choices?
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "catalog/catalog.hpp"
#include "core/csv.hpp"
#include "core/error.hpp"
#include "estimate/estimate.hpp"
#include "validate/training_validation.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {
std::shared_ptr<const Catalog> frozen() { return sextant::test_catalogs::frozen(); }

const char* kHeader =
    "id,source,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,mlp,num_experts,moe_topk,moe_ffn_hidden,"
    "shared_experts,dense_layers,accelerator,system,num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,micro_batch,global_batch,"
    "sequence_parallel,recompute,zero_stage,precision,target_step_time_s,head_dim,moe_dispatcher,ep_comm_overlap,fp8_recipe\n";

std::string row(const std::string& head_dim, const std::string& dispatcher, const std::string& overlap,
                const std::string& precision = "bf16", const std::string& recipe = "") {
  return std::string(kHeader) +
         "R1,S,Qwen3-30B-A3B,4,2048,32,4,,151936,4096,swiglu,128,8,768,0,0,h100-sxm-80gb,dgx-h100,16,8,1,1,16,1,16,1,1,64,"
         "false,none,1," + precision + ",1.0," + head_dim + "," + dispatcher + "," + overlap + "," + recipe + "\n";
}

Scenario scenario(const std::string& text) {
  const auto t = CsvTable::parse(text, "rows.csv");
  return scenario_from_training_row(t, 0, *frozen());
}
}  // namespace

TEST(TrainingRowColumns, EmptyColumnsFollowTheDocumentedPolicy) {
  const Scenario s = scenario(row("", "", ""));
  EXPECT_EQ(s.model.head_dim, 2048 / 32);
  EXPECT_EQ(s.plan.moe_dispatcher, "alltoall");
  EXPECT_FALSE(s.plan.ep_comm_overlap);
  EXPECT_EQ(scenario(row("", "", "", "fp8", "")).train.fp8_recipe, "delayed");
}

TEST(TrainingRowColumns, StatedValuesReachThePlanAndChangeThePrediction) {
  const Scenario plain = scenario(row("", "", ""));
  const Scenario wide = scenario(row("128", "", ""));
  EXPECT_EQ(wide.model.head_dim, 128);
  // Query width 4096 instead of 2048: more attention FLOPs and larger Q/O projections.
  EXPECT_GT(ir::lower(wide).model_flops_per_step(), ir::lower(plain).model_flops_per_step());
  const Scenario dedup = scenario(row("128", "hybridep", "false"));
  const Scenario hidden = scenario(row("128", "hybridep", "true"));
  EXPECT_EQ(dedup.plan.moe_dispatcher, "hybridep");
  EXPECT_TRUE(hidden.plan.ep_comm_overlap);
  const double t_wide = estimate_step(ir::lower(wide)).step_time_s;
  const double t_dedup = estimate_step(ir::lower(dedup)).step_time_s;
  const double t_hidden = estimate_step(ir::lower(hidden)).step_time_s;
  EXPECT_LT(t_dedup, t_wide);    // EP16 over two nodes: the NIC carries fewer copies
  EXPECT_LT(t_hidden, t_dedup);  // and overlap hides what remains
  // Current scaling reads each quantised operand once more than delayed scaling.
  const Scenario cs = scenario(row("128", "", "", "fp8", "current"));
  EXPECT_EQ(cs.train.fp8_recipe, "current");
  EXPECT_GT(estimate_step(ir::lower(cs)).step_time_s, estimate_step(ir::lower(scenario(row("128", "", "", "fp8", "delayed")))).step_time_s);
}

// Question (2026-12-05 review): does a `qk_norm` column give the row's model QK-norm, as the
// catalog's Qwen3 has (its kernels and saved pre-norm Q and K), and is a bad value named? The
// harness had no such column: the Qwen3 rows ran a model without it.
TEST(TrainingRowColumns, AQkNormColumnGivesTheModelQkNorm) {
  auto with = [](const std::string& v) {
    std::string text = row("128", "", "");
    const auto nl = text.find('\n');
    text.insert(nl, ",qk_norm");
    text.insert(text.size() - 1, "," + v);
    return text;
  };
  const Scenario none = scenario(row("128", "", "")), off = scenario(with("false")), on = scenario(with("true"));
  EXPECT_FALSE(none.model.qk_norm);
  EXPECT_FALSE(off.model.qk_norm);
  EXPECT_TRUE(on.model.qk_norm);
  EXPECT_FALSE(scenario(with("")).model.qk_norm);
  const auto e_off = estimate_step(ir::lower(off)), e_on = estimate_step(ir::lower(on));
  EXPECT_GT(e_on.step_time_s, e_off.step_time_s);
  EXPECT_GT(e_on.memory.activations_bytes, e_off.memory.activations_bytes);
  try {
    scenario(with("yes"));
    ADD_FAILURE() << "qk_norm 'yes' accepted";
  } catch (const Error& err) {
    const std::string m = err.what();
    EXPECT_NE(m.find("rows.csv:2"), std::string::npos) << m;
    EXPECT_NE(m.find("qk_norm"), std::string::npos) << m;
    EXPECT_NE(m.find("true, false"), std::string::npos) << m;
  }
}

TEST(TrainingRowColumns, BadValuesNameFileLineColumnAndChoices) {
  struct Case {
    std::string text, column, hint;
  } cases[] = {
      {row("", "deep_ep", ""), "moe_dispatcher", "deepep"},
      {row("", "", "yes"), "ep_comm_overlap", "true, false"},
      {row("0", "", ""), "head_dim", "from 1"},
      {row("", "", "", "fp8", "tensorwise"), "fp8_recipe", "current"},
  };
  for (const auto& c : cases) {
    try {
      scenario(c.text);
      ADD_FAILURE() << c.column << ": no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("rows.csv:2"), std::string::npos) << what;
      EXPECT_NE(what.find(c.column), std::string::npos) << what;
      EXPECT_NE(what.find(c.hint), std::string::npos) << what;
    }
  }
}

// Review of 2026-12-03: required columns have no silent default, a near-miss column name is not
// ignored, and errors of the scenario's own checks name the CSV's column.
TEST(TrainingRowColumns, EmptyRequiredCellsAreErrorsNotDefaults) {
  const std::string good = row("", "", "");
  const std::string cells = good.substr(good.find('\n') + 1);
  // Column index of each required column in kHeader, emptied one at a time.
  std::vector<std::string> header;
  {
    std::string h = kHeader;
    h.pop_back();
    size_t a = 0;
    for (size_t b; (b = h.find(',', a)) != std::string::npos; a = b + 1) header.push_back(h.substr(a, b - a));
    header.push_back(h.substr(a));
  }
  for (const char* col : {"kv_heads", "cp", "ep", "zero_stage", "recompute", "layers", "tp"}) {
    std::vector<std::string> f;
    size_t a = 0;
    std::string line = cells.substr(0, cells.size() - 1);
    for (size_t b; (b = line.find(',', a)) != std::string::npos; a = b + 1) f.push_back(line.substr(a, b - a));
    f.push_back(line.substr(a));
    const size_t i = static_cast<size_t>(std::find(header.begin(), header.end(), col) - header.begin());
    ASSERT_LT(i, f.size()) << col;
    f[i].clear();
    std::string text = kHeader;
    for (size_t k = 0; k < f.size(); ++k) text += (k ? "," : "") + f[k];
    text += "\n";
    try {
      scenario(text);
      ADD_FAILURE() << col << ": an empty cell was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.where().key, col) << e.what();
      EXPECT_EQ(e.where().line, 2) << e.what();
      // and its column's number (review of 2026-12-06: range and choice errors gave none).
      EXPECT_EQ(e.where().column, static_cast<int>(i) + 1) << e.what();
    }
  }
  // vpp stays optional: empty is 1, the schema's "not stated".
  std::string text = good;
  EXPECT_EQ(scenario(text).plan.vpp, 1);
}

TEST(TrainingRowColumns, NearMissColumnsAndHeadDimAreErrors) {
  // `head_dims` beside no `head_dim`: would be ignored.
  std::string text = row("128", "", "");
  const std::string renamed = std::string(text).replace(text.find("head_dim"), 8, "head_dims");
  try {
    check_training_columns(CsvTable::parse(renamed, "rows.csv"));
    ADD_FAILURE() << "head_dims accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().key, "head_dims");
    EXPECT_NE(std::string(e.what()).find("rename it to 'head_dim'"), std::string::npos) << e.what();
  }
  // Columns the harness does not read and that are no near miss are accepted (notes, a note of one's own).
  EXPECT_NO_THROW(check_training_columns(CsvTable::parse(std::string(text).replace(text.find("head_dim"), 8, "reviewer"), "rows.csv")));
  EXPECT_NO_THROW(check_training_columns(CsvTable::parse(text, "rows.csv")));
  // hidden not a multiple of heads without a head_dim: an error, not a rounded-down head.
  std::string odd = row("", "", "");
  odd.replace(odd.find(",2048,32,"), 9, ",2300,32,");
  try {
    scenario(odd);
    ADD_FAILURE() << "hidden 2300 / 32 heads accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().key, "hidden");
    const auto h = CsvTable::parse(odd, "rows.csv");
    EXPECT_EQ(e.where().column, static_cast<int>(h.col("hidden")) + 1) << e.what();
  }
  // A header with spaces after the commas reads as the same columns.
  std::string spaced = row("", "", "");
  for (size_t at = 0; (at = spaced.find(',', at)) != std::string::npos && at < spaced.find('\n'); at += 2) spaced.insert(at + 1, " ");
  EXPECT_EQ(scenario(spaced).model.heads, 32);
}

TEST(TrainingRowColumns, PlanErrorsNameTheCsvColumn) {
  std::string text = row("", "", "");
  // num_gpus 17 against tp*pp*dp*cp = 16: the CSV has num_gpus, not the scenario's derived dp.
  text.replace(text.find("dgx-h100,16,"), 12, "dgx-h100,17,");
  try {
    scenario(text);
    ADD_FAILURE() << "17 GPUs accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().key, "num_gpus") << e.what();
    EXPECT_EQ(e.where().line, 2);
    EXPECT_GT(e.where().column, 0) << e.what();
  }
  // A hexadecimal number is not a number of this file.
  std::string hex = row("", "", "");
  hex.replace(hex.find("dgx-h100,16,"), 12, "dgx-h100,0x10,");
  try {
    scenario(hex);
    ADD_FAILURE() << "0x10 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().key, "num_gpus");
    EXPECT_NE(std::string(e.what()).find("decimal"), std::string::npos) << e.what();
  }
}

// known_issue: a cited regression is predicted and counted like any other row, shown in the row
// table, reported apart in one scalar, and kept out of the fit of the hardware's constants.
namespace {
const char* kIssueHeader =
    "id,source,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,mlp,num_experts,moe_topk,moe_ffn_hidden,"
    "shared_experts,dense_layers,accelerator,system,num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,micro_batch,global_batch,"
    "sequence_parallel,recompute,zero_stage,precision,target_step_time_s,known_issue\n";
std::string dense_row(const std::string& id, double target_s, const std::string& issue) {
  return id + ",S,GPT-1.3B,24,2048,16,16,8192,51200,2048,gelu,,,,,,h100-sxm-80gb,dgx-h100,8,8,1,1,8,1,1,1,4,256,"
              "false,none,1,bf16," + std::to_string(target_s) + "," + issue + "\n";
}
const std::string kUrl = "https://github.com/example/framework/issues/1";
}  // namespace

TEST(TrainingRowColumns, KnownIssueMustBeAnHttpsAddress) {
  for (const std::string bad : {"slow release", "http://example.org/1", "https://"}) {
    const auto t = CsvTable::parse(std::string(kIssueHeader) + dense_row("R1", 1.0, bad), "rows.csv");
    try {
      known_issue_of(t, 0);
      ADD_FAILURE() << bad << ": no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("rows.csv:2"), std::string::npos) << what;
      EXPECT_NE(what.find("known_issue"), std::string::npos) << what;
      EXPECT_NE(what.find("https address"), std::string::npos) << what;
    }
  }
  const auto ok = CsvTable::parse(std::string(kIssueHeader) + dense_row("R1", 1.0, kUrl) + dense_row("R2", 1.0, ""), "rows.csv");
  EXPECT_EQ(known_issue_of(ok, 0), kUrl);
  EXPECT_EQ(known_issue_of(ok, 1), "");
}

TEST(TrainingRowColumns, KnownIssueRowsAreCountedButNotFitted) {
  // Two runs of one configuration: one as the model predicts it, one three times slower and
  // cited as a regression.
  const auto probe = CsvTable::parse(std::string(kIssueHeader) + dense_row("R1", 1.0, ""), "rows.csv");
  const double predicted = estimate_step(ir::lower(scenario_from_training_row(probe, 0, *frozen()))).step_time_s;
  const std::string text = std::string(kIssueHeader) + dense_row("GOOD", predicted, "") + dense_row("SLOW", 3 * predicted, kUrl);
  const auto t = CsvTable::parse(text, "rows.csv");
  std::vector<Scenario> scen{scenario_from_training_row(t, 0, *frozen()), scenario_from_training_row(t, 1, *frozen())};
  const auto fitted = fit_constants(t, scen);
  ASSERT_EQ(fitted.size(), 1u);
  EXPECT_EQ(fitted[0].rows, 1u);  // the cited run is not in the fit
  // The same table without the citation fits both rows.
  std::string uncited = text;
  uncited.replace(uncited.find(kUrl), kUrl.size(), "");
  const auto t2 = CsvTable::parse(uncited, "rows.csv");
  EXPECT_EQ(fit_constants(t2, scen)[0].rows, 2u);

  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("sextant-test-known-issue-" + std::to_string(getpid()) + ".csv");
  std::ofstream(file) << text;
  const Result r = validate_training_csv(file.string(), *frozen());
  fs::remove(file);
  EXPECT_EQ(r.number("rows_count"), 2);
  EXPECT_EQ(r.number("known_issue_rows_count"), 1);
  // Every statistic keeps the cited row (about 67% fast); the apart figure leaves it out.
  EXPECT_NEAR(r.number("max_abs_error_pct"), 100.0 * 2 / 3, 0.5);
  EXPECT_NEAR(r.number("max_abs_error_excl_known_issue_pct"), 0.0, 0.01);
  const Table* rows = r.table("validation_rows");
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->column("known_issue").str[1], kUrl);
  EXPECT_EQ(rows->column("known_issue").str[0], "");
}

// Question (review of 2026-12-06): is a dense row's MoE cell, or a throughput that is no positive
// number, refused with the file, line and column? The MoE columns of a row without num_experts,
// and target_tokens_per_s_per_gpu, were never read: moe_topk=abc on a dense row, or a throughput
// of nan, ran as if the cell were empty.
TEST(TrainingRowColumns, DenseRowsMoeCellsAndABadThroughputAreRefused) {
  const std::string header = std::string(kIssueHeader).insert(std::string(kIssueHeader).size() - 1, ",target_tokens_per_s_per_gpu");
  // dense_row's cells: ...,mlp,num_experts,moe_topk,moe_ffn_hidden,shared_experts,dense_layers,accelerator,...
  auto dense = [&](const std::string& moe_cells, const std::string& tps) {
    std::string line = dense_row("R1", 1.0, "");
    line.replace(line.find(",gelu,,,,,,"), 11, ",gelu," + moe_cells + ",");
    line.insert(line.size() - 1, "," + tps);
    return header + line;
  };
  EXPECT_NO_THROW(scenario(dense(",,,,", "")));
  EXPECT_NO_THROW(scenario(dense(",,,,", "9287.93")));
  struct Case {
    std::string moe_cells, tps, column, says;
  } cases[] = {
      {",abc,,,", "", "moe_topk", "num_experts is empty"},
      {",8,,,", "", "moe_topk", "num_experts is empty"},
      {",,768,,", "", "moe_ffn_hidden", "num_experts is empty"},
      {",,,0,", "", "shared_experts", "num_experts is empty"},
      {",,,,1", "", "dense_layers", "num_experts is empty"},
      {",,,,", "abc", "target_tokens_per_s_per_gpu", "finite decimal number"},
      {",,,,", "nan", "target_tokens_per_s_per_gpu", "finite decimal number"},
      {",,,,", "-1", "target_tokens_per_s_per_gpu", "positive number"},
      {",,,,", "0", "target_tokens_per_s_per_gpu", "positive number"},
  };
  for (const auto& c : cases) {
    try {
      scenario(dense(c.moe_cells, c.tps));
      ADD_FAILURE() << c.column << " '" << c.moe_cells << c.tps << "' accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.where().key, c.column) << what;
      EXPECT_NE(what.find("rows.csv:2"), std::string::npos) << what;
      EXPECT_NE(what.find(c.says), std::string::npos) << what;
    }
  }
}

// Review of 2026-12-06: six defects of the harness, each with its question.
namespace {
const char* kPlainHeader =
    "id,source,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,mlp,num_experts,moe_topk,moe_ffn_hidden,"
    "shared_experts,dense_layers,accelerator,system,num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,micro_batch,global_batch,"
    "sequence_parallel,recompute,zero_stage,precision,target_step_time_s";
// A dense GPT row on 8 H100s: `plan` is tp,pp,dp,cp,ep,vpp,micro_batch,global_batch; `extra` the
// cells of extra_cols.
std::string gpt_row(const std::string& id, int layers, const std::string& plan, const std::string& sp, double target_s,
                    const std::string& extra = "") {
  return id + ",S,GPT-1.3B," + std::to_string(layers) + ",2048,16,16,8192,51200,2048,gelu,,,,,,h100-sxm-80gb,dgx-h100,8,8," +
         plan + "," + sp + ",none,1,bf16," + std::to_string(target_s) + extra + "\n";
}
std::string with_extra(const std::string& extra_cols) { return std::string(kPlainHeader) + extra_cols + "\n"; }
}  // namespace

// Question: does a stated vpp that the micro-batch count cannot interleave run as vpp 1, laid out
// as the row with vpp 1 is? The fallback had set fewer-first-last whenever pp did not divide the
// layers, and 61 layers over pp 4 (the SC'21 row with vpp 2 and 6 micro-batches) were refused.
TEST(TrainingRowColumns, AVppFallbackLaysTheStagesOutAsVppOne) {
  // 25 layers over pp 4: neither 25 nor 27 is a multiple of 4; 12 / (1 x 2) = 6 micro-batches.
  const Scenario v2 = scenario(with_extra("") + gpt_row("R1", 25, "1,4,2,1,1,2,1,12", "false", 1.0));
  const Scenario v1 = scenario(with_extra("") + gpt_row("R1", 25, "1,4,2,1,1,1,1,12", "false", 1.0));
  EXPECT_EQ(v2.plan.vpp, 1);
  EXPECT_EQ(v2.plan.schedule, "1f1b");
  EXPECT_EQ(v2.plan.stage_rule, v1.plan.stage_rule);
  EXPECT_EQ(v2.plan.stage_layers, v1.plan.stage_layers);
  EXPECT_DOUBLE_EQ(estimate_step(ir::lower(v2)).step_time_s, estimate_step(ir::lower(v1)).step_time_s);
  // 26 layers over pp 4: 28 is a multiple, fewer-first-last as with vpp 1.
  const Scenario f2 = scenario(with_extra("") + gpt_row("R1", 26, "1,4,2,1,1,2,1,12", "false", 1.0));
  EXPECT_EQ(f2.plan.stage_rule, "fewer-first-last");
  EXPECT_EQ(f2.plan.stage_rule, scenario(with_extra("") + gpt_row("R1", 26, "1,4,2,1,1,1,1,12", "false", 1.0)).plan.stage_rule);
}

// Question: does a plan-check error name the CSV's column, with its remedy in column terms? TP
// overlap without sequence parallelism had named "scenario key parallel.overlap.tp_comm" and
// told to "set parallel.sequence_parallel: true, or parallel.overlap.tp_comm: false".
TEST(TrainingRowColumns, PlanCheckErrorsSpeakInCsvColumns) {
  try {
    scenario(with_extra(",tp_comm_overlap") + gpt_row("R1", 24, "2,1,4,1,1,1,1,64", "false", 1.0, ",true"));
    ADD_FAILURE() << "TP overlap without sequence parallelism accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.where().key, "tp_comm_overlap") << what;
    EXPECT_EQ(e.where().line, 2) << what;
    EXPECT_NE(what.find("sequence_parallel = true"), std::string::npos) << what;
    EXPECT_NE(what.find("tp_comm_overlap = false"), std::string::npos) << what;
    EXPECT_EQ(what.find("parallel."), std::string::npos) << what;
    EXPECT_EQ(what.find("scenario key"), std::string::npos) << what;
  }
  // The global batch against micro_batch x dp: the column, and no training.* key in the text.
  try {
    scenario(with_extra("") + gpt_row("R1", 24, "1,1,8,1,1,1,3,64", "false", 1.0));
    ADD_FAILURE() << "global_batch 64 over micro_batch 3 x dp 8 accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.where().key, "global_batch") << what;
    EXPECT_EQ(what.find("training."), std::string::npos) << what;
  }
  // Every overlap key a column sets maps to that column.
  for (const char* col : {"overlap_grad_reduce", "overlap_param_gather", "ep_comm_overlap", "tp_comm_overlap"})
    EXPECT_NO_THROW(scenario(with_extra(std::string(",") + col) + gpt_row("R1", 24, "1,1,8,1,1,1,1,64", "false", 1.0, ",false"))) << col;
}

// Question: does --leave-one-source-out start from the catalog's constants under --fit? A source
// whose accelerator no other source has keeps "the catalog's values", as the table says; with
// --fit it had kept the constants fitted to its own rows (in-sample, labelled as the catalog's).
TEST(TrainingRowColumns, LeaveOneSourceOutUnderFitUsesTheCatalogsConstants) {
  const auto probe = CsvTable::parse(with_extra("") + gpt_row("P", 24, "1,1,8,1,1,1,4,256", "false", 1.0), "rows.csv");
  const double predicted = estimate_step(ir::lower(scenario_from_training_row(probe, 0, *frozen()))).step_time_s;
  // One source, two rows measured slower than the catalog predicts: the fit moves towards them.
  const std::string text = with_extra("") + gpt_row("A", 24, "1,1,8,1,1,1,4,256", "false", 1.3 * predicted) +
                           gpt_row("B", 24, "1,1,8,1,1,1,2,256", "false", 1.5 * predicted);
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("sextant-test-loso-fit-" + std::to_string(getpid()) + ".csv");
  std::ofstream(file) << text;
  ValidationOptions plain, fitted;
  plain.leave_one_source_out = fitted.leave_one_source_out = true;
  fitted.fit = true;
  const Result rp = validate_training_csv(file.string(), *frozen(), plain);
  const Result rf = validate_training_csv(file.string(), *frozen(), fitted);
  fs::remove(file);
  const Table *lp = rp.table("leave_one_source_out"), *lf = rf.table("leave_one_source_out");
  ASSERT_NE(lp, nullptr);
  ASSERT_NE(lf, nullptr);
  ASSERT_EQ(lf->column("refitted_constants").size(), 1u);
  EXPECT_NE(lf->column("refitted_constants").str[0].find("not refitted"), std::string::npos);
  // The catalog's error, not the in-sample fit's.
  EXPECT_DOUBLE_EQ(lf->column("median_abs_error_pct").f64[0], lp->column("median_abs_error_pct").f64[0]);
  EXPECT_LT(rf.number("median_abs_error_pct"), lf->column("median_abs_error_pct").f64[0] - 1.0);
}

// Question: is a plausible column of one's own (`dim`, `issue`, `fp8`, `recipe`, `dispatcher`)
// accepted, and a misspelling of a read one still refused? A read column's name containing the
// extra one had made it a "near miss".
TEST(TrainingRowColumns, NearMissesAreMisspellingsNotSubstrings) {
  const std::string extra = ",dim,issue,fp8,recipe,dispatcher,head,moe";
  EXPECT_NO_THROW(check_training_columns(CsvTable::parse(with_extra(extra) + gpt_row("R1", 24, "1,1,8,1,1,1,4,256", "false", 1.0, ",1,2,3,4,5,6,7"), "rows.csv")));
  for (const char* miss : {"head_dims", "frameworks", "known_isue", "fp8_recipes", "moe_dispatch", "tp_comm_overlpa", "qknorm"}) {
    try {
      check_training_columns(CsvTable::parse(with_extra(std::string(",") + miss) + gpt_row("R1", 24, "1,1,8,1,1,1,4,256", "false", 1.0, ",x"), "rows.csv"));
      ADD_FAILURE() << miss << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.where().key, miss);
    }
  }
  // A misspelt required column: refused (the header lacks the column, and names the near miss).
  for (const auto& [right, wrong] : std::vector<std::pair<std::string, std::string>>{{"micro_batch", "micro_bach"}, {"seq_len", "seq_lenght"}}) {
    std::string text = with_extra("") + gpt_row("R1", 24, "1,1,8,1,1,1,4,256", "false", 1.0);
    text.replace(text.find(right), right.size(), wrong);
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("sextant-test-near-" + wrong + "-" + std::to_string(getpid()) + ".csv");
    std::ofstream(file) << text;
    try {
      validate_training_csv(file.string(), *frozen());
      ADD_FAILURE() << wrong << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(right), std::string::npos) << e.what();
    }
    fs::remove(file);
  }
}

// Question: are boolean cells read in any letter case? pandas writes True/False: "'False' is not a
// valid sequence_parallel".
TEST(TrainingRowColumns, BooleansInAnyLetterCase) {
  for (const char* v : {"True", "TRUE", " true "}) {
    const Scenario s = scenario(with_extra(",tp_comm_overlap,qk_norm") + gpt_row("R1", 24, "2,1,4,1,1,1,1,64", v, 1.0, std::string(",") + v + "," + v));
    EXPECT_TRUE(s.plan.sequence_parallel) << v;
    EXPECT_TRUE(s.plan.tp_comm_overlap) << v;
    EXPECT_TRUE(s.model.qk_norm) << v;
  }
  for (const char* v : {"False", "FALSE"}) {
    const Scenario s = scenario(with_extra(",overlap_grad_reduce,qk_norm") + gpt_row("R1", 24, "2,1,4,1,1,1,1,64", v, 1.0, std::string(",") + v + "," + v));
    EXPECT_FALSE(s.plan.sequence_parallel) << v;
    EXPECT_FALSE(s.plan.overlap_grad_reduce) << v;
    EXPECT_FALSE(s.model.qk_norm) << v;
  }
  EXPECT_TRUE(scenario(with_extra("") + gpt_row("R1", 24, "2,1,4,1,1,1,1,64", "Unknown", 1.0)).plan.sequence_parallel);  // tp 2
  for (const char* bad : {"yes", "1", "Tru"}) {
    EXPECT_THROW(scenario(with_extra("") + gpt_row("R1", 24, "2,1,4,1,1,1,1,64", bad, 1.0)), Error) << bad;
    EXPECT_THROW(scenario(with_extra(",qk_norm") + gpt_row("R1", 24, "2,1,4,1,1,1,1,64", "true", 1.0, std::string(",") + bad)), Error) << bad;
  }
}

// Question (review of 2026-12-06): does an invalid sequence_parallel name its empty choice? The hint
// had read "valid: true, false, , unknown".
TEST(TrainingRowColumns, TheEmptyChoiceIsNamed) {
  try {
    scenario(with_extra("") + gpt_row("R1", 24, "2,1,4,1,1,1,1,64", "yes", 1.0));
    ADD_FAILURE() << "sequence_parallel=yes accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sequence_parallel"), std::string::npos) << what;
    EXPECT_NE(what.find("valid: true, false, empty, unknown"), std::string::npos) << what;
    EXPECT_EQ(what.find(", ,"), std::string::npos) << what;
  }
}

// Question (review of 2026-12-06): does --fit find the constants that made the step times, when
// the half-dimension is not a power of two, and say when the optimum lies on a bound of its
// search? gemm_half_dim had been tried at 32, 64, ..., 1024 only: an optimum between or below
// them came out as the nearest grid value, and one at the bottom of the grid read as chosen.
namespace {
// Two rows whose GEMMs differ in width (tp 8: 256-wide; tp 1: 2048), measured as the model gives
// them with the constants (sus, half) on the H100.
std::string rows_made_with(double sus, double half) {
  const std::string plans[] = {"8,1,1,1,1,1,4,256", "1,1,8,1,1,1,4,256", "2,1,4,1,1,1,1,64"};
  std::string text = with_extra("");
  int n = 0;
  for (const auto& plan : plans) {
    const auto probe = CsvTable::parse(with_extra("") + gpt_row("P", 24, plan, "false", 1.0), "rows.csv");
    Scenario s = scenario_from_training_row(probe, 0, *frozen());
    s.accelerator.sustained_compute_fraction = Sourced{sus, "test", "", true};
    s.accelerator.gemm_half_dim = Sourced{half, "test", "", true};
    s.accelerator.gemm_half_dim_m = s.accelerator.gemm_half_dim_n = s.accelerator.gemm_half_dim_k = Sourced{};
    char target[32];
    std::snprintf(target, sizeof target, "%.9g", estimate_step(ir::lower(s)).step_time_s);
    std::string line = gpt_row("R" + std::to_string(++n), 24, plan, "false", 1.0);
    line.replace(line.rfind(',') + 1, std::string::npos, std::string(target) + "\n");
    text += line;
  }
  return text;
}
std::vector<FittedConstants> fit_of(const std::string& text) {
  const auto t = CsvTable::parse(text, "rows.csv");
  std::vector<Scenario> scen;
  for (size_t i = 0; i < t.rows(); ++i) scen.push_back(scenario_from_training_row(t, i, *frozen()));
  return fit_constants(t, scen);
}
}  // namespace

TEST(TrainingRowColumns, TheFitFindsAHalfDimensionOffTheGridAndSaysWhenItIsOnABound) {
  {
    const auto f = fit_of(rows_made_with(0.85, 45));
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NEAR(f[0].sustained_compute_fraction, 0.85, 0.005);
    EXPECT_NEAR(f[0].gemm_half_dim, 45, 45 * 0.1);  // the grid's nearest, 32 or 64, is 29% off
    EXPECT_LT(f[0].objective, 1e-3);
    EXPECT_EQ(f[0].at_bound, "");
  }
  {
    // No shape term at all: 0, the half-dimension's own bound, said.
    const auto f = fit_of(rows_made_with(0.8, 0));
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].gemm_half_dim, 0);
    EXPECT_NEAR(f[0].sustained_compute_fraction, 0.8, 0.005);
    EXPECT_NE(f[0].at_bound.find("gemm_half_dim at 0"), std::string::npos) << f[0].at_bound;
  }
  {
    // Faster than the search's largest sustained fraction allows: said, in the table and a note.
    const std::string text = rows_made_with(1.6, 256);
    const auto f = fit_of(text);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_DOUBLE_EQ(f[0].sustained_compute_fraction, kFitSustainedHi);
    EXPECT_NE(f[0].at_bound.find("sustained_compute_fraction at the search's bound 1.2"), std::string::npos) << f[0].at_bound;
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("sextant-test-fit-bound-" + std::to_string(getpid()) + ".csv");
    std::ofstream(file) << text;
    ValidationOptions o;
    o.fit = o.leave_one_source_out = true;
    const Result r = validate_training_csv(file.string(), *frozen(), o);
    fs::remove(file);
    const Table* ft = r.table("fitted_constants");
    ASSERT_NE(ft, nullptr);
    EXPECT_EQ(ft->column("at_search_bound").str[0], f[0].at_bound);
    // The objective the search reports (on workloads lowered once) is the rows' own at the fitted
    // constants, each row lowered anew by the harness.
    const Table* rows = r.table("validation_rows");
    ASSERT_NE(rows, nullptr);
    double sum = 0;
    for (size_t i = 0; i < rows->column("id").size(); ++i)
      sum += std::fabs(std::log(rows->column("predicted_step_time_s").f64[i] / rows->column("target_step_time_s").f64[i]));
    EXPECT_NEAR(ft->column("sum_abs_log_ratio").f64[0], sum, 1e-9);
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("lies on a bound of the search") != std::string::npos;
    EXPECT_TRUE(noted);
  }
}

// Review of 2026-12-07: three defects of the harness, each with its question.
namespace {
Result validate_text(const std::string& text, const std::string& tag, const ValidationOptions& o = {}) {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("sextant-test-" + tag + "-" + std::to_string(getpid()) + ".csv");
  std::ofstream(file) << text;
  try {
    Result r = validate_training_csv(file.string(), *frozen(), o);
    fs::remove(file);
    return r;
  } catch (...) {
    fs::remove(file);
    throw;
  }
}
std::string with_source(std::string row, const std::string& source) {
  row.replace(row.find(",S,"), 3, "," + source + ",");
  return row;
}
}  // namespace

// Question: does the row table say which inputs a row left to the policy (an empty micro_batch ran
// at 1 and nothing said so), with a note counting them, the required columns first as before?
TEST(TrainingRowColumns, InputsLeftToThePolicyAreListedPerRowAndCounted) {
  const std::string text = with_extra("") + gpt_row("R1", 24, "1,1,8,1,1,1,,256", "false", 1.0) +
                           gpt_row("R2", 24, "1,1,8,1,1,1,2,256", "false", 1.0) +
                           gpt_row("R3", 24, "2,1,4,1,1,1,1,64", "unknown", 1.0) +
                           gpt_row("R4", 25, "1,4,2,1,1,2,1,12", "false", 1.0) +  // 6 micro-batches: vpp 2 falls back
                           gpt_row("R5", 24, "1,4,2,1,1,,1,64", "false", 1.0) +
                           gpt_row("R6", 24, "2,1,4,1,1,1,,64", "", 1.0) +
                           gpt_row("R7", 24, "1,1,8,1,1,,1,256", "", 1.0);  // pp 1 and tp 1: vpp and SP change nothing
  const Result r = validate_text(text, "assumed");
  const Table* rows = r.table("validation_rows");
  ASSERT_NE(rows, nullptr);
  const std::vector<std::string> first = {"id", "source", "model", "num_gpus", "predicted_step_time_s", "target_step_time_s", "error_pct"};
  for (size_t c = 0; c < first.size(); ++c) EXPECT_EQ(rows->columns()[c].name, first[c]);
  const auto& a = rows->column("assumed").str;
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(a[0], "micro_batch=1");
  EXPECT_EQ(a[1], "");
  EXPECT_EQ(a[2], "sequence_parallel=true");
  EXPECT_EQ(a[3].rfind("vpp=1 (stated 2", 0), 0u) << a[3];
  EXPECT_EQ(a[4], "vpp=1");
  EXPECT_EQ(a[5], "micro_batch=1; sequence_parallel=true");
  EXPECT_EQ(a[6], "");
  std::string note;
  for (const auto& n : r.notes)
    if (n.find("column `assumed`") != std::string::npos) note = n;
  EXPECT_EQ(note.rfind("5 of 7 rows", 0), 0u) << note;
  EXPECT_NE(note.find("micro_batch=1 in 2 rows"), std::string::npos) << note;
  EXPECT_NE(note.find("sequence_parallel=true in 2 rows"), std::string::npos) << note;
  EXPECT_NE(note.find("vpp=1 in 2 rows"), std::string::npos) << note;
  // The policy itself is unchanged: an empty micro_batch predicts as a stated 1.
  const Result stated = validate_text(with_extra("") + gpt_row("R1", 24, "1,1,8,1,1,1,1,256", "false", 1.0), "assumed-stated");
  EXPECT_DOUBLE_EQ(stated.table("validation_rows")->column("predicted_step_time_s").f64[0], rows->column("predicted_step_time_s").f64[0]);
  EXPECT_EQ(stated.table("validation_rows")->column("assumed").str[0], "");
  for (const auto& n : stated.notes) EXPECT_EQ(n.find("column `assumed`"), std::string::npos) << n;
}

// Question: is a misspelt column refused beside the correctly named one? `head_dims` next to an
// empty `head_dim` had been skipped without a word, and the rows ran without the value.
TEST(TrainingRowColumns, ANearMissBesideTheReadColumnIsRefused) {
  const auto t = CsvTable::parse(with_extra(",head_dim,head_dims") + gpt_row("R1", 24, "1,1,8,1,1,1,1,256", "false", 1.0, ",,128"), "rows.csv");
  try {
    check_training_columns(t);
    ADD_FAILURE() << "head_dims beside head_dim accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().key, "head_dims");
    EXPECT_EQ(e.where().line, 1);
    EXPECT_EQ(e.where().column, static_cast<int>(t.col("head_dims")) + 1);
    const std::string what = e.what();
    EXPECT_NE(what.find("rows.csv"), std::string::npos) << what;
    EXPECT_NE(what.find("'head_dim'"), std::string::npos) << what;
    EXPECT_NE(what.find("both are present"), std::string::npos) << what;
  }
  // Misspellings of required columns, which are always present, are refused as well.
  for (const char* miss : {"micro_batchs", "seqlen", "global_bach"}) {
    try {
      check_training_columns(CsvTable::parse(with_extra(std::string(",") + miss) + gpt_row("R1", 24, "1,1,8,1,1,1,1,256", "false", 1.0, ",2"), "rows.csv"));
      ADD_FAILURE() << miss << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.where().key, miss);
      EXPECT_NE(std::string(e.what()).find("both are present"), std::string::npos) << e.what();
    }
  }
  // The read column alone, and own columns beside it that are no misspelling (one a read name
  // contains, names under 4 characters that one edit puts near `cp` or `tp`), are accepted.
  EXPECT_NO_THROW(check_training_columns(CsvTable::parse(with_extra(",head_dim,dim") + gpt_row("R1", 24, "1,1,8,1,1,1,1,256", "false", 1.0, ",,128"), "rows.csv")));
  EXPECT_NO_THROW(check_training_columns(CsvTable::parse(with_extra(",head,layer,sp,cpu,tps") + gpt_row("R1", 24, "1,1,8,1,1,1,1,256", "false", 1.0, ",1,2,3,4,5"), "rows.csv")));
  // A read column in another unit is one's own (second review of 2026-12-07: the target in ms
  // beside target_step_time_s was refused, with a hint to move the ms values into the s column).
  EXPECT_NO_THROW(check_training_columns(CsvTable::parse(with_extra(",target_step_time_ms") + gpt_row("R1", 24, "1,1,8,1,1,1,1,256", "false", 1.0, ",1000"), "rows.csv")));
}

// Question: do the per-row leave-one-source-out columns reproduce the per-source and pooled
// figures (the table gave per-source median and max only, so p90 and the held-out figures could
// not be recomputed)? Absent without the flag.
TEST(TrainingRowColumns, LeaveOneSourceOutPerRowColumnsReproduceItsFigures) {
  const auto probe = CsvTable::parse(with_extra("") + gpt_row("P", 24, "1,1,8,1,1,1,4,256", "false", 1.0), "rows.csv");
  const double t0 = estimate_step(ir::lower(scenario_from_training_row(probe, 0, *frozen()))).step_time_s;
  std::string a100 = gpt_row("C1", 24, "1,1,8,1,1,1,4,256", "false", 1.4 * t0);
  a100.replace(a100.find("h100-sxm-80gb,dgx-h100"), 22, "a100-sxm-80gb,dgx-a100");
  const std::string text = with_extra("") + with_source(gpt_row("A1", 24, "1,1,8,1,1,1,4,256", "false", 1.2 * t0), "A") +
                           with_source(gpt_row("A2", 24, "1,1,8,1,1,1,2,256", "false", 1.1 * t0), "A") +
                           with_source(gpt_row("B1", 24, "1,1,8,1,1,1,4,256", "false", 0.9 * t0), "B") +
                           with_source(gpt_row("B2", 24, "2,1,4,1,1,1,1,64", "true", 0.5 * t0), "B") + with_source(a100, "C");
  EXPECT_FALSE(validate_text(text, "loso-plain").table("validation_rows")->has_column("loso_error_pct"));
  ValidationOptions o;
  o.leave_one_source_out = true;
  const Result r = validate_text(text, "loso-rows", o);
  const Table* rows = r.table("validation_rows");
  const Table* lo = r.table("leave_one_source_out");
  ASSERT_NE(rows, nullptr);
  ASSERT_NE(lo, nullptr);
  const auto& src = rows->column("source").str;
  const auto& pred = rows->column("loso_predicted_step_time_s").f64;
  const auto& err = rows->column("loso_error_pct").f64;
  const auto& refit = rows->column("loso_refitted").str;
  const auto& target = rows->column("target_step_time_s").f64;
  std::vector<double> all, held;
  for (size_t i = 0; i < src.size(); ++i) {
    EXPECT_NEAR(err[i], (pred[i] - target[i]) / target[i] * 100.0, 1e-9);
    all.push_back(err[i]);
    if (refit[i] == "true") held.push_back(err[i]);
    else EXPECT_DOUBLE_EQ(pred[i], rows->column("predicted_step_time_s").f64[i]);  // the catalog's constants
  }
  EXPECT_EQ(refit, (std::vector<std::string>{"true", "true", "true", "true", "false"}));
  // A row's loso prediction is not the catalog's (its accelerator was refitted).
  EXPECT_GT(std::fabs(pred[0] - rows->column("predicted_step_time_s").f64[0]), 1e-6 * pred[0]);
  for (size_t k = 0; k < lo->rows(); ++k) {
    std::vector<double> e;
    for (size_t i = 0; i < src.size(); ++i)
      if (src[i] == lo->column("held_out_source").str[k]) e.push_back(err[i]);
    const auto x = summarize_errors(e);
    EXPECT_EQ(static_cast<size_t>(lo->column("rows_count").i64[k]), x.rows);
    EXPECT_DOUBLE_EQ(lo->column("median_abs_error_pct").f64[k], x.median_abs_pct);
    EXPECT_DOUBLE_EQ(lo->column("max_abs_error_pct").f64[k], x.max_abs_pct);
  }
  const auto p = summarize_errors(all), h = summarize_errors(held);
  EXPECT_DOUBLE_EQ(r.number("loso_median_abs_error_pct"), p.median_abs_pct);
  EXPECT_DOUBLE_EQ(r.number("loso_p90_abs_error_pct"), p.p90_abs_pct);
  EXPECT_DOUBLE_EQ(r.number("loso_max_abs_error_pct"), p.max_abs_pct);
  EXPECT_EQ(r.number("loso_held_out_rows_count"), 4);
  EXPECT_DOUBLE_EQ(r.number("loso_held_out_median_abs_error_pct"), h.median_abs_pct);
  EXPECT_DOUBLE_EQ(r.number("loso_held_out_p90_abs_error_pct"), h.p90_abs_pct);
  EXPECT_DOUBLE_EQ(r.number("loso_held_out_max_abs_error_pct"), h.max_abs_pct);
}
