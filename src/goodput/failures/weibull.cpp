// Weibull inter-arrivals with shape k (k < 1: decreasing hazard, the shape fitted to failure logs
// of large systems, e.g. Schroeder & Gibson DSN 2006 report k of 0.7-0.8). The scale is set from
// the process's rate so that the mean inter-arrival is 1/rate: scale = mean / Gamma(1 + 1/k).
// Sampling by inversion: scale * (-ln U)^(1/k).
#include <cmath>

#include "core/error.hpp"
#include "core/result.hpp"
#include "goodput/failures/distribution.hpp"

namespace sextant::goodput {

namespace {
class Weibull final : public InterArrival {
 public:
  Weibull(double mean_s, double shape) : mean_s_(mean_s), shape_(shape), inv_shape_(1.0 / shape) {
    scale_s_ = mean_s / std::tgamma(1.0 + inv_shape_);
  }
  std::string name() const override { return "weibull"; }
  double sample(RandomStream& rng) const override {
    return scale_s_ * std::pow(-std::log(rng.uniform_open()), inv_shape_);
  }
  double mean_s() const override { return mean_s_; }
  std::unique_ptr<InterArrival> with_mean(double m) const override { return std::make_unique<Weibull>(m, shape_); }
  std::vector<std::pair<std::string, double>> parameters() const override {
    return {{"mean_s", mean_s_}, {"shape", shape_}, {"scale_s", scale_s_}};
  }

 private:
  double mean_s_, shape_, inv_shape_, scale_s_ = 0;
};
}  // namespace

std::unique_ptr<InterArrival> make_weibull_shape(double mean_s, double shape) {
  if (!(mean_s > 0)) throw Error("weibull distribution: mean must be positive, got " + format_double(mean_s));
  if (!(shape > 0.05 && shape < 50)) throw Error("weibull distribution: shape must be in (0.05, 50), got " + format_double(shape));
  return std::make_unique<Weibull>(mean_s, shape);
}

std::unique_ptr<InterArrival> make_weibull(double mean_s, const YamlMap* params) {
  double shape = 0.75;
  if (params) {
    shape = params->f64("shape", 0.75);
    if (!(shape > 0.05 && shape < 50)) params->fail("shape", "Weibull shape must be in (0.05, 50)", "e.g. shape: 0.75");
  }
  return make_weibull_shape(mean_s, shape);
}

}  // namespace sextant::goodput
