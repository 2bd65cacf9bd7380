// Fixed lengths: every request has round(mean) tokens.
#include <algorithm>
#include <cmath>

#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {
namespace {
class Fixed final : public LengthDistribution {
 public:
  int32_t draw(const LengthSpec& s, RandomStream&) const override {
    return std::clamp(static_cast<int32_t>(std::lround(s.mean)), std::max(1, s.min), s.max);
  }
};
}  // namespace
std::unique_ptr<LengthDistribution> make_fixed_lengths() { return std::make_unique<Fixed>(); }
}  // namespace sextant::infer
