// Question: how do the published plans of the validation set compare with the best plan the
// search finds for the same job? Every published plan must be among the valid plans, and its
// predicted step time within 15% of the best found, unless the row is listed, with its reason
// (a real opportunity or a model weakness), in data/validation/plan-practice-exceptions.csv
// (summarised in docs/plan.md). A listed row that is within 15% is stale and fails too.
#include <gtest/gtest.h>

#include <map>

#include "core/csv.hpp"
#include "plan/plan.hpp"

using namespace sextant;
using namespace sextant::plan;

TEST(PlanPracticeSlow, PublishedPlansAgainstBestFound) {
  auto cat = Catalog::load(std::string(SEXTANT_SOURCE_DIR) + "/data/catalog");
  const CsvTable ex = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/plan-practice-exceptions.csv");
  std::map<std::string, std::string> listed;
  for (size_t r = 0; r < ex.rows(); ++r) {
    const std::string kind = ex.at(r, "kind");
    ASSERT_TRUE(kind == "opportunity" || kind == "model_weakness") << ex.at(r, "id") << ": kind " << kind;
    ASSERT_FALSE(ex.at(r, "reason").empty()) << ex.at(r, "id");
    listed[ex.at(r, "id")] = kind;
  }
  SearchOptions o;
  o.threads = 0;
  const Estimator est;
  const Result res = check_against_practice(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv", *cat, o, est);
  const Table* t = res.table("practice");
  ASSERT_NE(t, nullptr);
  ASSERT_GT(t->rows(), 100u);
  const auto& id = t->column("id").str;
  const auto& found = t->column("found").str;
  const auto& ratio = t->column("predicted_speedup_ratio").f64;
  size_t within = 0;
  for (size_t i = 0; i < t->rows(); ++i) {
    EXPECT_EQ(found[i], "yes") << id[i];
    const bool ok = ratio[i] <= 1.15;
    within += ok;
    if (ok) {
      EXPECT_EQ(listed.count(id[i]), 0u) << id[i] << " is listed as an exception but its predicted step time is within 15% of the best ("
                                         << ratio[i] << ")";
    } else {
      EXPECT_EQ(listed.count(id[i]), 1u) << id[i] << ": published plan predicted " << ratio[i]
                                         << "x slower than the best plan found, and not listed with a reason";
    }
  }
  EXPECT_EQ(listed.size(), t->rows() - within) << "exceptions that name no row of training.csv";
}
