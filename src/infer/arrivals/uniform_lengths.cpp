// Uniform lengths: integers uniform in [min, max].
#include <algorithm>

#include "core/error.hpp"
#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {
namespace {
class Uniform final : public LengthDistribution {
 public:
  int32_t draw(const LengthSpec& s, RandomStream& rng) const override {
    const int32_t lo = std::max(1, s.min);
    if (s.max < lo) throw Error(SourceLocation{"", 0, 0, "max"}, "uniform lengths need max >= min >= 1");
    return lo + static_cast<int32_t>(rng.below(static_cast<uint64_t>(s.max - lo) + 1));
  }
};
}  // namespace
std::unique_ptr<LengthDistribution> make_uniform_lengths() { return std::make_unique<Uniform>(); }
}  // namespace sextant::infer
