// Question: is every published plan of the validation set among the plans the search enumerates?
// (The full check against practice, with the step-time comparison, is the slow tier:
// test_plan_practice_slow.cpp.)
#include <gtest/gtest.h>

#include "core/csv.hpp"
#include "plan/plan.hpp"
#include "validate/training_validation.hpp"

using namespace sextant;
using namespace sextant::plan;

TEST(PlanPractice, EveryPublishedPlanIsEnumerated) {
  auto cat = Catalog::load(std::string(SEXTANT_SOURCE_DIR) + "/data/catalog");
  const CsvTable t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv");
  ASSERT_GT(t.rows(), 100u);
  for (size_t r = 0; r < t.rows(); ++r) {
    const Scenario s = scenario_from_training_row(t, r, *cat);
    // The published degrees fixed keep the enumeration small; everything else is searched.
    SearchOptions o;
    o.fixed = {{"tp", s.plan.tp}, {"pp", s.plan.pp}, {"cp", s.plan.cp}, {"dp", s.plan.dp}, {"ep", s.plan.ep}};
    const auto cands = enumerate_plans(s, o);
    const Candidate own = candidate_of(s, o);
    size_t hits = 0;
    for (const auto& c : cands) hits += same_plan(c, own, s.model.moe.has_value());
    EXPECT_EQ(hits, 1u) << t.at(r, "id") << ": " << describe_own(own, o, s);
  }
}

// Question: does every published plan use only features of the software stack its row names?
// (The check against practice ranks it against the best plan of that stack, so it must be there.)
TEST(PlanPractice, EveryPublishedPlanIsWithinItsStack) {
  auto cat = Catalog::load(std::string(SEXTANT_SOURCE_DIR) + "/data/catalog");
  const CsvTable t = CsvTable::read_file(std::string(SEXTANT_SOURCE_DIR) + "/data/validation/training.csv");
  size_t restricted = 0;
  for (size_t r = 0; r < t.rows(); ++r) {
    const Scenario s = scenario_from_training_row(t, r, *cat);
    if (s.framework.empty()) continue;
    SearchOptions o;
    o.stack = stack_features(cat->framework(s.framework));
    restricted += cat->framework(s.framework).capabilities.stated;
    EXPECT_EQ(stack_violations(candidate_of(s, o), s, o), "") << t.at(r, "id") << " (" << s.framework << ")";
  }
  EXPECT_EQ(restricted, t.rows()) << "every row names a framework that states its capabilities";
}
