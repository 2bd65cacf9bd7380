#pragma once
// Deterministic random numbers. A RandomStream is counter-based: value i of stream s under seed
// k is a pure function hash(k, s, i), so results do not depend on thread scheduling or on the
// order in which streams are consumed. Distributions are implemented here (the standard
// library's are implementation-defined and would change results across compilers).
#include <cstdint>

namespace sextant {

// SplitMix64 finaliser; a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class RandomStream {
 public:
  RandomStream(uint64_t seed, uint64_t stream) : key_(mix64(seed ^ mix64(stream + 0x632be59bd9b4e019ULL))) {}

  uint64_t next_u64() { return mix64(key_ ^ mix64(counter_++)); }
  uint64_t counter() const { return counter_; }
  void seek(uint64_t counter) { counter_ = counter; }

  double uniform();                 // in [0, 1), 53 bits
  double uniform_open();            // in (0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  uint64_t below(uint64_t n);       // uniform integer in [0, n), unbiased
  double exponential(double rate);  // mean 1/rate
  double normal(double mean = 0, double stddev = 1);
  double lognormal(double mu, double sigma);
  double weibull(double shape, double scale);
  double gamma(double shape, double scale);  // Marsaglia-Tsang
  bool bernoulli(double p) { return uniform() < p; }

 private:
  uint64_t key_;
  uint64_t counter_ = 0;
};

}  // namespace sextant
