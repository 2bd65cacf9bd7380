// Exponential lengths of the given mean, rounded up, clamped to [min, max].
#include <algorithm>
#include <cmath>

#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {
namespace {
class Exponential final : public LengthDistribution {
 public:
  int32_t draw(const LengthSpec& s, RandomStream& rng) const override {
    const double x = std::ceil(rng.exponential(1.0 / s.mean));
    return static_cast<int32_t>(std::clamp<double>(x, std::max(1, s.min), s.max));
  }
};
}  // namespace
std::unique_ptr<LengthDistribution> make_exponential_lengths() { return std::make_unique<Exponential>(); }
}  // namespace sextant::infer
