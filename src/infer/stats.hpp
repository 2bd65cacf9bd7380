#pragma once
// Order statistics used by the inference reports. Deterministic; NaNs are ignored.
#include <vector>

namespace sextant::infer {

// q-quantile (0..1) by linear interpolation between order statistics; NaN when empty.
double percentile(std::vector<double> values, double q);
// The same on values already sorted ascending without NaNs (no copy).
double percentile_sorted(const std::vector<double>& sorted, double q);
// Sorts ascending and drops NaNs, for repeated percentile_sorted calls.
void sort_values(std::vector<double>& values);

}  // namespace sextant::infer
