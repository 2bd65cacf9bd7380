#include "infer/stats.hpp"

#include <algorithm>
#include <cmath>

namespace sextant::infer {

void sort_values(std::vector<double>& v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  std::sort(v.begin(), v.end());
}

double percentile(std::vector<double> v, double q) {
  sort_values(v);
  return percentile_sorted(v, q);
}

double percentile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return std::nan("");
  const double pos = std::clamp(q, 0.0, 1.0) * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

}  // namespace sextant::infer
