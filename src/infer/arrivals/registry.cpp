#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "infer/arrivals/arrival.hpp"

namespace sextant::infer {

template <class T>
std::unique_ptr<T> NamedRegistry<T>::make(const std::string& name, const std::string& what) const {
  auto it = f_.find(name);
  if (it == f_.end()) throw Error(SourceLocation{"", 0, 0, what}, "unknown " + what + " '" + name + "'", valid_choices_hint(name, names()));
  return it->second();
}
template class NamedRegistry<ArrivalProcess>;
template class NamedRegistry<LengthDistribution>;

NamedRegistry<ArrivalProcess> make_arrival_registry() {
  NamedRegistry<ArrivalProcess> r;
  r.add("poisson", make_poisson_arrivals);
  r.add("gamma", make_gamma_arrivals);
  r.add("trace", make_trace_arrivals);
  return r;
}

NamedRegistry<LengthDistribution> make_length_registry() {
  NamedRegistry<LengthDistribution> r;
  r.add("fixed", make_fixed_lengths);
  r.add("uniform", make_uniform_lengths);
  r.add("exponential", make_exponential_lengths);
  r.add("lognormal", make_lognormal_lengths);
  return r;
}

void fill_lengths(const WorkloadSpec& spec, std::vector<Request>& reqs) {
  const auto lengths = make_length_registry();
  const auto pd = lengths.make(spec.prompt.dist, "prompt.dist"), od = lengths.make(spec.output.dist, "output.dist");
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
  auto reqs = make_arrival_registry().make(spec.arrival, "workload.arrival")->generate(spec);
  return reqs;
}

}  // namespace sextant::infer
