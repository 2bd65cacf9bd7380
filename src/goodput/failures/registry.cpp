#include "core/error.hpp"
#include "goodput/failures/distribution.hpp"

namespace sextant::goodput {

std::vector<std::string> DistributionRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, f] : factories_) out.push_back(n);
  return out;
}

std::unique_ptr<InterArrival> DistributionRegistry::create(const std::string& name, double mean_s,
                                                           const YamlMap* params, const SourceLocation& where) const {
  auto it = factories_.find(name);
  if (it == factories_.end())
    throw Error(where, "unknown inter-arrival distribution '" + name + "'", valid_choices_hint(name, names()));
  return it->second(mean_s, params);
}

DistributionRegistry make_distribution_registry() {
  DistributionRegistry r;
  r.add("exponential", make_exponential);
  r.add("weibull", make_weibull);
  return r;
}

}  // namespace sextant::goodput
