// Weibull inter-arrivals with shape k (k < 1: decreasing hazard, the shape fitted to failure logs
// of large systems, e.g. Schroeder & Gibson DSN 2006 report k of 0.7-0.8). The scale is set from
// the process's rate so that the mean inter-arrival is 1/rate: scale = mean / Gamma(1 + 1/k).
// Sampling by inversion: scale * (-ln U)^(1/k). The first event of a process running before the
// job (sample_first) comes after the stationary forward-recurrence time, whose CDF is the
// regularised incomplete gamma P(1/k, (x/scale)^k): scale * G^(1/k) with G ~ Gamma(1/k, 1)
// (Marsaglia-Tsang, own implementation: the standard library's distributions are
// implementation-defined). Before 2026-12-02 the job started on a fresh renewal: with k = 0.5
// a 5-day job at one event a day saw 6.5 events on average instead of 5.
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
  double sample_first(RandomStream& rng) const override { return scale_s_ * std::pow(gamma(rng, inv_shape_), inv_shape_); }
  double mean_s() const override { return mean_s_; }
  std::unique_ptr<InterArrival> with_mean(double m) const override { return std::make_unique<Weibull>(m, shape_); }
  std::vector<std::pair<std::string, double>> parameters() const override {
    return {{"mean_s", mean_s_}, {"shape", shape_}, {"scale_s", scale_s_}};
  }

 private:
  // Gamma(a, 1) by Marsaglia and Tsang (ACM TOMS 2000); a < 1 through Gamma(a + 1) U^(1/a).
  static double gamma(RandomStream& rng, double a) {
    if (a < 1.0) {
      const double u = rng.uniform_open();
      return gamma(rng, a + 1.0) * std::pow(u, 1.0 / a);
    }
    const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      const double x = rng.normal();
      double v = 1.0 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      const double u = rng.uniform_open();
      if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
      if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }
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
