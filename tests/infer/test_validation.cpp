// Scoring against the published inference measurements (data/validation/inference.csv).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "common.hpp"
#include "core/result.hpp"
#include "infer/csv.hpp"
#include "infer/validate_inference.hpp"
#include "test_temp.hpp"

using namespace sextant;
using namespace sextant::infer;
using namespace sextant::infer::fixtures;

namespace {
const std::string kCsv = std::string(SEXTANT_SOURCE_DIR) + "/data/validation/inference.csv";
const Result& validation() {
  static const Result r = infer::validate_inference_csv(kCsv, catalog(), infer_data());
  return r;
}
}  // namespace

// Question: is the inference CSV told apart from the training and component CSVs by its columns?
TEST(Validation, RecognisesSchemaByColumns) {
  EXPECT_TRUE(looks_like_inference_csv(read_csv(kCsv).header));
  EXPECT_FALSE(looks_like_inference_csv({"id", "source", "model", "layers", "hidden", "accelerator", "system", "num_gpus", "tp", "pp",
                                         "target_step_time_s"}));
  EXPECT_FALSE(looks_like_inference_csv({"id", "kind", "accelerator", "system", "dtype", "op", "metric", "value", "unit"}));
}

// Question: does the model meet the bar: median |error| <= 10%, no row worse than 35%?
TEST(Validation, MedianAndMaxErrorWithinBounds) {
  const Result& r = validation();
  EXPECT_EQ(r.number("rows_count"), 57);
  EXPECT_EQ(r.number("rows_unpredicted_count"), 0);
  EXPECT_LE(r.number("median_abs_error_pct"), 10.0);
  EXPECT_LE(r.number("max_abs_error_pct"), 35.0);
  // The leave-one-chip-out error is reported and stays within the same row bound.
  EXPECT_TRUE(std::isfinite(r.number("lodo_median_abs_error_pct")));
  EXPECT_LE(r.number("lodo_max_abs_error_pct"), 35.0);
}

// Question: are the per-row table and the per-source summaries complete and signed?
TEST(Validation, RowsAndPerSourceTables) {
  const Result& r = validation();
  const Table* t = r.table("validation_rows");
  ASSERT_NE(t, nullptr);
  for (const char* c : {"id", "metric", "predicted", "target", "error_pct", "lodo_error_pct"}) EXPECT_TRUE(t->has_column(c)) << c;
  ASSERT_EQ(t->rows(), 57u);
  const auto& p = t->column("predicted").f64;
  const auto& g = t->column("target").f64;
  const auto& e = t->column("error_pct").f64;
  for (size_t i = 0; i < t->rows(); ++i) EXPECT_NEAR(e[i], 100 * (p[i] - g[i]) / g[i], 1e-9);
  const Table* s = r.table("per_source");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->rows(), 2u);  // llama.cpp-d4167 and splitwise-sim-db
  for (double v : s->column("median_abs_error_pct").f64) EXPECT_LE(v, 10.0);
}

// Question: are the catalogued engine constants the ones the fit reproduces from the rows
// (calibration in the catalog with its origin, not hand-tuned)?
TEST(Validation, CataloguedConstantsMatchTheRefit) {
  const Table* t = validation().table("fitted_constants");
  ASSERT_NE(t, nullptr);
  const auto& cv = t->column("catalog_value").f64;
  const auto& rv = t->column("refit_value").f64;
  const auto& name = t->column("constant").str;
  for (size_t i = 0; i < t->rows(); ++i) EXPECT_NEAR(cv[i] / rv[i], 1.0, 0.02) << t->column("engine").str[i] << " " << name[i];
}

// Question: does the decode of Llama-2-7B on Apple Silicon track memory bandwidth (the README's
// tg128 x file size estimate) within the bound, for a chip left out of the fit?
TEST(Validation, LeaveOneDeviceOutRowsArePredicted) {
  const Table* t = validation().table("per_device");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rows(), 8u);
  for (double v : t->column("lodo_median_abs_error_pct").f64) EXPECT_LE(v, 25.0);
}

// Question: does the validator reject a CSV with a missing column or an unknown metric?
TEST(Validation, BadInputsAreErrors) {
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string p = sextant::test_temp::path(name);
    FILE* f = std::fopen(p.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    return p;
  };
  const std::string hdr = "id,model,accelerator,tp,engine,weight_format,activation_format,kv_format,batch,prompt_len,gen_len,metric,value\n";
  EXPECT_THROW(infer::validate_inference_csv(write("a.csv", "id,model\nx,y\n"), catalog(), infer_data()), Error);
  EXPECT_THROW(infer::validate_inference_csv(write("b.csv", hdr + "r1,llama-2-7b,apple-m1-8c,1,llama.cpp,q4_0,f32,f16,1,0,128,speed,14\n"),
                                             catalog(), infer_data()),
               Error);
  // An unknown accelerator is reported in the row, not thrown.
  const Result r = infer::validate_inference_csv(
      write("c.csv", hdr + "r1,llama-2-7b,no-such-chip,1,llama.cpp,q4_0,f32,f16,1,0,128,decode_tokens_per_s,14\n"), catalog(), infer_data());
  EXPECT_EQ(r.number("rows_unpredicted_count"), 1);
}

// Question: does the out-of-sample (lodo) refit leave a whole chip out, its binned variants with
// it? The M2 Ultra 60c rows predicted with the 76c rows in the file equal those predicted from a
// file without them: in both fits neither bin is present.
TEST(Validation, LeaveOneChipOutDropsTheBinnedVariantsToo) {
  const auto lines = [] {
    std::ifstream f(kCsv);
    std::vector<std::string> out;
    for (std::string l; std::getline(f, l);) out.push_back(l);
    return out;
  }();
  const std::string path = sextant::test_temp::path("inference-no-76c.csv");
  {
    std::ofstream o(path);
    for (const auto& l : lines)
      if (l.find("apple-m2-ultra-76c") == std::string::npos) o << l << "\n";
  }
  const Result without = infer::validate_inference_csv(path, catalog(), infer_data());
  auto lodo_of = [](const Result& r, const std::string& device) {
    std::map<std::string, double> out;
    const Table* t = r.table("validation_rows");
    for (size_t i = 0; i < t->rows(); ++i)
      if (t->column("accelerator").str[i] == device) out[t->column("id").str[i]] = t->column("lodo_predicted").f64[i];
    return out;
  };
  const auto a = lodo_of(validation(), "apple-m2-ultra-60c"), b = lodo_of(without, "apple-m2-ultra-60c");
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 5u);
  for (const auto& [id, v] : a) EXPECT_NEAR(v / b.at(id), 1.0, 1e-9) << id;
}

namespace {
// A one-row-per-line inference CSV in the test's temporary folder, with the shipped file's header.
std::string write_rows(const std::string& name, const std::vector<std::string>& rows) {
  std::ifstream in(kCsv);
  std::string header;
  std::getline(in, header);
  const std::string path = sextant::test_temp::path(name);
  std::ofstream o(path);
  o << header << "\n";
  for (const auto& r : rows) o << r << "\n";
  return path;
}
// id,source,model,params_b,accelerator,num_devices,tp,engine,weight_format,activation_format,
// kv_format,batch,prompt_len,gen_len,metric,value,unit,confidence,notes
std::string tg_row(const std::string& id, const std::string& model, const std::string& params_b, const std::string& accel,
                   const std::string& num_devices, const std::string& wfmt, const std::string& prompt) {
  return id + ",s," + model + "," + params_b + "," + accel + "," + num_devices + ",1,llama.cpp," + wfmt + ",f32,f16,1," + prompt +
         ",128,decode_tokens_per_s,90,tok/s,primary,";
}
}  // namespace

// Question: is a row that cannot have been run as stated (13.5 GB of fp16 weights on a 6 GiB
// iPhone, params_b 70 for the 6.74B llama-2-7b) reported in the problem column and left out of the
// error statistics, a row beyond the context window scored with a caveat (the shipped Splitwise rows
// at 8,192-token prompts were measured so), and a row of two devices without a pp column named at
// num_devices? All had been scored, or named at a pp the file does not have (2026-12-06 review).
TEST(Validation, RowsThatCannotHaveRunAreNotScored) {
  const std::string path = write_rows(
      "cannot-run.csv", {tg_row("ok", "llama-2-7b", "6.74", "apple-m2-ultra-76c", "1", "q4_0", "0"),
                         tg_row("too-big", "llama-2-7b", "6.74", "apple-a16", "1", "f16", "0"),
                         tg_row("other-model", "llama-2-7b", "70", "apple-m2-ultra-76c", "1", "q4_0", "0"),
                         tg_row("long", "llama-2-7b", "6.74", "apple-m2-ultra-76c", "1", "q4_0", "100000"),
                         tg_row("two", "llama-2-7b", "6.74", "apple-m2-ultra-76c", "2", "q4_0", "0")});
  const Result r = infer::validate_inference_csv(path, catalog(), infer_data());
  const Table* t = r.table("validation_rows");
  ASSERT_NE(t, nullptr);
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < t->rows(); ++i) at[t->column("id").str[i]] = i;
  const auto& problem = t->column("problem").str;
  const auto& caveat = t->column("caveat").str;
  const auto& err = t->column("error_pct").f64;
  EXPECT_EQ(problem[at["ok"]], "");
  EXPECT_NE(problem[at["too-big"]].find("does not fit: weights"), std::string::npos) << problem[at["too-big"]];
  EXPECT_NE(problem[at["other-model"]].find("params_b 70 is not llama-2-7b's 6.74 billion parameters"), std::string::npos)
      << problem[at["other-model"]];
  for (const char* id : {"too-big", "other-model"}) {
    EXPECT_TRUE(std::isfinite(t->column("predicted").f64[at[id]])) << id;  // predicted, not scored
    EXPECT_TRUE(std::isnan(err[at[id]])) << id;
  }
  EXPECT_EQ(problem[at["long"]], "");
  EXPECT_NE(caveat[at["long"]].find("100128 tokens is beyond llama-2-7b's context window of 4096 tokens"), std::string::npos)
      << caveat[at["long"]];
  EXPECT_NE(problem[at["two"]].find("key 'two.num_devices': num_devices 2 with tp 1 is a pipeline of 2 stages"), std::string::npos)
      << problem[at["two"]];
  EXPECT_EQ(r.number("rows_unpredicted_count"), 1);
  EXPECT_EQ(r.number("rows_excluded_count"), 3);
  // The statistics are those of the two scored rows.
  const double a = std::abs(err[at["ok"]]), b = std::abs(err[at["long"]]);
  EXPECT_NEAR(r.number("max_abs_error_pct"), std::max(a, b), 1e-9);
  // The shipped rows are all runs that happened: none is left out, and the four Splitwise rows at
  // 4,096 and 8,192-token prompts carry the window caveat.
  const Table* v = validation().table("validation_rows");
  EXPECT_EQ(validation().number("rows_excluded_count"), 0);
  size_t beyond = 0;
  for (const auto& c : v->column("caveat").str) beyond += c.empty() ? 0 : 1;
  EXPECT_EQ(beyond, 4u);
}

// Question: does the fit keep what the fitted engine states beside its six constants, so that
// llama.cpp's refitted overhead is per its 32 reference layers as the catalogued one is (the fit
// had started from the generic prior's profile, which has no reference layers)?
TEST(Validation, TheRefitKeepsTheEnginesOverheadReferenceLayers) {
  std::vector<InferenceRow> cpp;
  for (const auto& row : read_inference_rows(kCsv))
    if (row.engine == "llama.cpp" && cpp.size() < 4) cpp.push_back(row);
  const EngineProfile f = fit_engine(cpp, catalog(), infer_data(), infer_data().engine("generic"));
  EXPECT_EQ(f.id, "llama.cpp");
  ASSERT_TRUE(f.overhead_reference_layers.known);
  EXPECT_EQ(f.overhead_reference_layers.value, 32);
}

// Question (review of 2026-12-06): do the inference validation CSV and the request trace read
// numbers by the core reader's decimal rule? strtod had read value 0x6C as 108 tok/s and params_b
// 0x1p+2 as 4 B parameters.
TEST(InferCsv, HexadecimalNumbersAreRefusedAtTheirColumn) {
  const CsvTable t = parse_csv("id,value,params_b,batch\na,0x6C,6.74,1\nb,7.92,0x1p+2,1\nc,1e400,1,0x10\nd, 7.5 ,2, 3 \n", "v.csv");
  auto col_of = [&](size_t row, int col) {
    try {
      (void)cell_f64(t, row, col);
    } catch (const Error& e) {
      EXPECT_EQ(e.where().line, int(row) + 2);
      EXPECT_EQ(e.where().key, t.header[size_t(col)]);
      return e.where().column;
    }
    return 0;
  };
  EXPECT_EQ(col_of(0, 1), 2);
  EXPECT_EQ(col_of(1, 2), 3);
  EXPECT_EQ(col_of(2, 1), 2);
  EXPECT_THROW(cell_i64(t, 2, 3), Error);
  EXPECT_DOUBLE_EQ(cell_f64(t, 3, 1), 7.5);
  EXPECT_EQ(cell_i64(t, 3, 3), 3);
}
