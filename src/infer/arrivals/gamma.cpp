// Gamma renewal arrivals: gaps ~ Gamma(shape k = 1/cv^2, scale = cv^2 / rate), mean 1/rate and
// coefficient of variation cv (cv > 1: burstier than Poisson; cv = 1 is Poisson; cv -> 0 evenly
// spaced arrivals).
#include <cmath>

#include "core/error.hpp"
#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {
namespace {
class GammaArrivals final : public ArrivalProcess {
 public:
  std::vector<Request> generate(const WorkloadSpec& spec) const override {
    if (!(spec.cv >= 0 && spec.cv <= kMaxArrivalCv))
      throw Error(SourceLocation{"", 0, 0, "workload.cv"}, "gamma arrivals need a cv from 0 to " + std::to_string(static_cast<int>(kMaxArrivalCv)));
    std::vector<Request> r(static_cast<size_t>(spec.requests));
    // Below kDeterministicArrivalCv every gap is 1/rate: the deterministic limit of the gamma
    // process. Before 2026-12-06 (review) a cv under 1.5e-154 overflowed shape = 1/cv^2 to inf,
    // every gap was NaN and the run served nothing, silently.
    const bool fixed = spec.cv < kDeterministicArrivalCv;
    const double shape = fixed ? 0 : 1.0 / (spec.cv * spec.cv), scale = fixed ? 0 : spec.cv * spec.cv / spec.rate_per_s;
    RandomStream rng(spec.seed, 1);
    double t = 0;
    for (auto& q : r) {
      t += fixed ? 1.0 / spec.rate_per_s : rng.gamma(shape, scale);
      q.arrival_s = t;
    }
    fill_lengths(spec, r);
    return r;
  }
};
}  // namespace
std::unique_ptr<ArrivalProcess> make_gamma_arrivals() { return std::make_unique<GammaArrivals>(); }
}  // namespace sextant::infer
