#pragma once
// Statistics over benchmark repetitions: robust summaries and the two-sample tests that
// `history compare` uses to decide regressions.
#include <cstdint>
#include <string>
#include <vector>

namespace sextant::bench {

struct Summary {
  int64_t count = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double stddev = 0;           // sample standard deviation (n-1); 0 for one sample
  double mad = 0;              // median absolute deviation (unscaled)
  double iqr = 0;              // interquartile range (linear interpolation, type 7)
  double spread_fraction = 0;  // iqr / |median|; infinite when the median is 0 and the iqr is not, 0 without scatter
};

// Throws Error on an empty sample.
Summary summarize(const std::vector<double>& x);

// Quantile q in [0,1] of x with linear interpolation between order statistics (R type 7).
double quantile(std::vector<double> x, double q);

// Two-sided Mann-Whitney U test (Wilcoxon rank-sum) of samples a and b.
//  u_a: the U statistic of a (number of pairs (a_i, b_j) with a_i > b_j, ties count 1/2).
//  p_two_sided: exact (enumerated distribution of U) when there are no ties and
//  |a|*|b| <= 2500; otherwise the normal approximation with tie correction and continuity
//  correction. method says which.
struct MannWhitney {
  double u_a = 0;
  double p_two_sided = 1;
  std::string method;  // "exact" | "normal"
};
MannWhitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// Welch's unequal-variance t test. p from Student's t with Welch-Satterthwaite degrees of
// freedom (regularized incomplete beta). Needs at least two samples on each side.
struct Welch {
  double t = 0, dof = 0, p_two_sided = 1;
};
Welch welch_t_test(const std::vector<double>& a, const std::vector<double>& b);

// Standard normal upper tail P(Z > z).
double normal_sf(double z);
// Student t two-sided tail P(|T| > |t|) with dof degrees of freedom.
double student_t_two_sided(double t, double dof);
// The Student t cut-off with dof degrees of freedom of the two-sided tail that z has under the
// normal: P(|T| > c) = P(|Z| > z). z itself for infinite dof; needs z >= 0 and dof > 0.
double student_t_cutoff(double z, double dof);

}  // namespace sextant::bench
