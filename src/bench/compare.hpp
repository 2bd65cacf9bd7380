#pragma once
// Comparison of two runs for `sextant history compare A B`: cases are matched by (suite, name,
// metric); each pair of repetition samples goes through a two-sample test, and a case is a
// regression only when the test rejects equality at `alpha` AND B's median is worse than A's
// by at least min_effect_fraction (statistically significant and large enough to matter).
// With n repetitions on each side the exact Mann-Whitney test cannot go below
// 2 / C(2n, n): n >= 4 is needed for alpha = 0.05.
#include <string>
#include <vector>

#include "bench/db/results_db.hpp"

namespace sextant::bench {

struct CompareOptions {
  double alpha = 0.05;
  double min_effect_fraction = 0.05;
  std::string test = "mann-whitney";  // mann-whitney | welch
  std::vector<std::string> suites, metrics;  // compare only these (empty: all)
};

struct CaseComparison {
  std::string suite, name, metric;
  bool higher_is_better = true;
  int64_t count_a = 0, count_b = 0;
  double median_a = 0, median_b = 0;
  double change_fraction = 0;  // median_b / median_a - 1
  double p_value = 1;
  std::string method;          // exact | normal | welch
  std::string verdict;         // regression | improvement | unchanged | untestable
};

struct Comparison {
  std::vector<CaseComparison> cases;
  int regression_count = 0, improvement_count = 0;
  std::vector<std::string> only_in_a, only_in_b;
  bool same_host = true;
};

const std::vector<std::string>& compare_test_names();
Comparison compare_runs(const RunRecord& a, const RunRecord& b, const CompareOptions& opt);

}  // namespace sextant::bench
