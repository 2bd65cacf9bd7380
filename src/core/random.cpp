#include "core/random.hpp"

#include <cmath>

namespace sextant {

double RandomStream::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double RandomStream::uniform_open() {
  double u;
  do u = uniform();
  while (u == 0.0);
  return u;
}

uint64_t RandomStream::below(uint64_t n) {
  if (n == 0) return 0;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = next_u64();
  while (x >= limit);
  return x % n;
}

double RandomStream::exponential(double rate) { return -std::log(uniform_open()) / rate; }

double RandomStream::normal(double mean, double stddev) {
  // Box-Muller, one value per two uniforms (no cached state: keeps the stream counter-pure).
  const double u1 = uniform_open(), u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double RandomStream::lognormal(double mu, double sigma) { return std::exp(normal(mu, sigma)); }

double RandomStream::weibull(double shape, double scale) {
  return scale * std::pow(-std::log(uniform_open()), 1.0 / shape);
}

double RandomStream::gamma(double shape, double scale) {
  if (shape < 1.0) {
    const double u = uniform_open();
    return gamma(shape + 1.0, scale) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform_open();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v * scale;
  }
}

}  // namespace sextant
