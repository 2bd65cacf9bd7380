#include "core/error.hpp"
#include "goodput/failures/distribution.hpp"

namespace sextant::goodput {

DistributionRegistry make_distribution_registry() {
  DistributionRegistry r("inter-arrival distribution");
  r.add("exponential", make_exponential);
  r.add("weibull", make_weibull);
  return r;
}

}  // namespace sextant::goodput
