// Gamma renewal arrivals: gaps ~ Gamma(shape k = 1/cv^2, scale = cv^2 / rate), mean 1/rate and
// coefficient of variation cv (cv > 1: burstier than Poisson; cv = 1 is Poisson).
#include "core/error.hpp"
#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {
namespace {
class GammaArrivals final : public ArrivalProcess {
 public:
  std::vector<Request> generate(const WorkloadSpec& spec) const override {
    if (!(spec.cv > 0)) throw Error(SourceLocation{"", 0, 0, "workload.cv"}, "gamma arrivals need cv > 0");
    const double shape = 1.0 / (spec.cv * spec.cv), scale = spec.cv * spec.cv / spec.rate_per_s;
    std::vector<Request> r(static_cast<size_t>(spec.requests));
    RandomStream rng(spec.seed, 1);
    double t = 0;
    for (auto& q : r) {
      t += rng.gamma(shape, scale);
      q.arrival_s = t;
    }
    fill_lengths(spec, r);
    return r;
  }
};
}  // namespace
std::unique_ptr<ArrivalProcess> make_gamma_arrivals() { return std::make_unique<GammaArrivals>(); }
}  // namespace sextant::infer
