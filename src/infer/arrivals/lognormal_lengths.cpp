// Lognormal lengths with the given mean and coefficient of variation (sigma^2 = ln(1 + cv^2),
// mu = ln(mean) - sigma^2 / 2), rounded, clamped to [min, max].
#include <algorithm>
#include <cmath>

#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {
namespace {
class Lognormal final : public LengthDistribution {
 public:
  int32_t draw(const LengthSpec& s, RandomStream& rng) const override {
    // A cv above 1.3e154 overflowed cv^2 to inf, and the lengths were NaN cast to int (2026-12-06
    // review): there ln(1 + cv^2) is 2 ln(cv) to the last bit.
    const double cv2 = s.cv * s.cv;
    const double s2 = std::isfinite(cv2) ? std::log(1 + cv2) : 2 * std::log(s.cv);
    const double x = std::round(rng.lognormal(std::log(s.mean) - s2 / 2, std::sqrt(s2)));
    return static_cast<int32_t>(std::clamp<double>(x, std::max(1, s.min), s.max));
  }
};
}  // namespace
std::unique_ptr<LengthDistribution> make_lognormal_lengths() { return std::make_unique<Lognormal>(); }
}  // namespace sextant::infer
