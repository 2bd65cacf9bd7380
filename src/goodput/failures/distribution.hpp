#pragma once
// Inter-arrival time distributions of failure processes, chosen by name (`distribution:` in a
// failure process). Contract of an implementation:
//  - sample() draws one inter-arrival time in seconds (> 0) using only the given stream, so a
//    replica's events are a pure function of (seed, replica);
//  - mean_s() is the exact mean of sample(); a process's rate is 1 / mean_s();
//  - with_mean() returns the same shape rescaled to another mean (used to scale failure rates);
//  - sample_first() draws the time to the first event of a renewal process already running when
//    the job starts (the forward-recurrence time of the stationary process, density S(x)/mean):
//    the expected count over any window is then window / mean_s(). The default, sample(), is
//    right for the memoryless exponential only.
// One implementation per file (exponential.cpp, weibull.cpp); the registry is built by
// make_distribution_registry() and owned by its user.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "core/yaml_reader.hpp"
#include "core/registry.hpp"

namespace sextant::goodput {

class InterArrival {
 public:
  virtual ~InterArrival() = default;
  virtual std::string name() const = 0;
  virtual double sample(RandomStream& rng) const = 0;
  virtual double sample_first(RandomStream& rng) const { return sample(rng); }
  virtual double mean_s() const = 0;
  virtual std::unique_ptr<InterArrival> with_mean(double mean_s) const = 0;
  // Shape parameters for reports (name, value).
  virtual std::vector<std::pair<std::string, double>> parameters() const = 0;
};

// Builds a distribution of the given mean; `params` is the process's YAML map (the factory reads
// only its own keys, e.g. `shape`), or null for defaults.
// create(name, where, mean_s, params) throws Error at `where` naming the valid choices when the
// name is unknown.
using DistributionRegistry = FactoryRegistry<InterArrival, double, const YamlMap*>;

DistributionRegistry make_distribution_registry();

// Factories of the bundled implementations (one per file).
std::unique_ptr<InterArrival> make_exponential(double mean_s, const YamlMap* params);
std::unique_ptr<InterArrival> make_weibull(double mean_s, const YamlMap* params);
// Weibull with explicit shape; scale chosen so that the mean is mean_s.
std::unique_ptr<InterArrival> make_weibull_shape(double mean_s, double shape);

}  // namespace sextant::goodput
