// Exponential inter-arrivals (a Poisson process): memoryless, the superposition limit of many
// independent per-node renewal processes (Palm-Khintchine).
#include <cmath>

#include "core/error.hpp"
#include "core/result.hpp"
#include "goodput/failures/distribution.hpp"

namespace sextant::goodput {

namespace {
class Exponential final : public InterArrival {
 public:
  explicit Exponential(double mean_s) : mean_s_(mean_s) {}
  std::string name() const override { return "exponential"; }
  double sample(RandomStream& rng) const override { return -std::log(rng.uniform_open()) * mean_s_; }
  double mean_s() const override { return mean_s_; }
  std::unique_ptr<InterArrival> with_mean(double m) const override { return std::make_unique<Exponential>(m); }
  std::vector<std::pair<std::string, double>> parameters() const override { return {{"mean_s", mean_s_}}; }

 private:
  double mean_s_;
};
}  // namespace

std::unique_ptr<InterArrival> make_exponential(double mean_s, const YamlMap*) {
  if (!(mean_s > 0)) throw Error("exponential distribution: mean must be positive, got " + format_double(mean_s));
  return std::make_unique<Exponential>(mean_s);
}

}  // namespace sextant::goodput
