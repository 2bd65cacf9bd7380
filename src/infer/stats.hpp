#pragma once
// Order statistics used by the inference reports. Deterministic; NaNs are ignored.
#include <vector>

namespace sextant::infer {

// q-quantile (0..1) by linear interpolation between order statistics; NaN when empty.
double percentile(std::vector<double> values, double q);

}  // namespace sextant::infer
