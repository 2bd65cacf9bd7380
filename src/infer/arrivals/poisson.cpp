// Poisson arrivals: exponential inter-arrival gaps of mean 1 / rate (stream 1 of the seed).
#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {
namespace {
class Poisson final : public ArrivalProcess {
 public:
  std::vector<Request> generate(const WorkloadSpec& spec) const override {
    std::vector<Request> r(static_cast<size_t>(spec.requests));
    RandomStream rng(spec.seed, 1);
    double t = 0;
    for (auto& q : r) {
      t += rng.exponential(spec.rate_per_s);
      q.arrival_s = t;
    }
    fill_lengths(spec, r);
    return r;
  }
};
}  // namespace
std::unique_ptr<ArrivalProcess> make_poisson_arrivals() { return std::make_unique<Poisson>(); }
}  // namespace sextant::infer
