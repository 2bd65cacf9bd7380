#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {

FactoryRegistry<ArrivalProcess> make_arrival_registry() {
  FactoryRegistry<ArrivalProcess> r("arrival process");
  r.add("poisson", make_poisson_arrivals);
  r.add("gamma", make_gamma_arrivals);
  r.add("trace", make_trace_arrivals);
  return r;
}

FactoryRegistry<LengthDistribution> make_length_registry() {
  FactoryRegistry<LengthDistribution> r("length distribution");
  r.add("fixed", make_fixed_lengths);
  r.add("uniform", make_uniform_lengths);
  r.add("exponential", make_exponential_lengths);
  r.add("lognormal", make_lognormal_lengths);
  return r;
}

void fill_lengths(const WorkloadSpec& spec, std::vector<Request>& reqs) {
  const auto lengths = make_length_registry();
  const auto pd = lengths.create(spec.prompt.dist, SourceLocation{"", 0, 0, "prompt.dist"});
  const auto od = lengths.create(spec.output.dist, SourceLocation{"", 0, 0, "output.dist"});
  for (size_t i = 0; i < reqs.size(); ++i) {
    RandomStream rng(spec.seed, 1000 + i);
    auto& r = reqs[i];
    r.prompt_tokens = pd->draw(spec.prompt, rng);
    r.output_tokens = od->draw(spec.output, rng);
    if (spec.prefix_share_fraction > 0 && spec.prefix_tokens > 0 && rng.bernoulli(spec.prefix_share_fraction)) {
      r.prefix_group = static_cast<int32_t>(rng.below(static_cast<uint64_t>(std::max(1, spec.prefix_groups))));
      r.prefix_tokens = spec.prefix_tokens;
      r.prompt_tokens += spec.prefix_tokens;  // the shared prefix precedes the request's own prompt
    }
  }
}

std::vector<Request> generate_requests(const WorkloadSpec& spec) {
  if (spec.arrival != "trace" && !(spec.rate_per_s > 0))
    throw Error(SourceLocation{"", 0, 0, "workload.rate_per_s"}, "arrival rate must be positive");
  if (spec.arrival != "trace" && spec.requests <= 0)
    throw Error(SourceLocation{"", 0, 0, "workload.requests"}, "number of requests must be positive");
  auto reqs = make_arrival_registry().create(spec.arrival, SourceLocation{"", 0, 0, "workload.arrival"})->generate(spec);
  return reqs;
}

}  // namespace sextant::infer
