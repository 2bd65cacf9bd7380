#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/result.hpp"
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

ArrivalSpanProblem arrival_span_problem(double rate_per_s, int64_t requests) {
  if (requests <= 0 || !(rate_per_s > 0)) return {};
  const double span_s = static_cast<double>(requests) / rate_per_s;
  if (span_s <= kMaxArrivalSpanS) return {};
  return {"a rate of " + format_double(rate_per_s) + " requests/s spreads " + std::to_string(requests) + " requests over about " +
              format_double(span_s) + " s, beyond the " + format_double(kMaxArrivalSpanS) +
              " s (31.7 years) a run may span: the simulation clock would no longer resolve a pass's microseconds",
          "valid: a rate of at least requests / " + format_double(kMaxArrivalSpanS) + " s = " +
              format_double(static_cast<double>(requests) / kMaxArrivalSpanS) + " requests/s for " + std::to_string(requests) +
              " requests, or fewer requests"};
}

std::vector<Request> generate_requests(const WorkloadSpec& spec) {
  if (spec.arrival != "trace" && !(spec.rate_per_s > 0))
    throw Error(SourceLocation{"", 0, 0, "workload.rate_per_s"}, "arrival rate must be positive");
  if (spec.arrival != "trace" && spec.requests <= 0)
    throw Error(SourceLocation{"", 0, 0, "workload.requests"}, "number of requests must be positive");
  if (spec.arrival != "trace")
    if (const ArrivalSpanProblem p = arrival_span_problem(spec.rate_per_s, spec.requests); !p.empty())
      throw Error(SourceLocation{"", 0, 0, "workload.rate_per_s"}, p.message, p.hint);
  auto reqs = make_arrival_registry().create(spec.arrival, SourceLocation{"", 0, 0, "workload.arrival"})->generate(spec);
  // The serving simulation skips a request whose arrival time is not a number: NaN gaps (gamma
  // arrivals of cv 1e-300) had served nothing and reported success (2026-12-06 review). Any
  // arrival time that is not finite, or before the previous one, is an error, never a request lost.
  for (size_t i = 0; i < reqs.size(); ++i)
    if (!std::isfinite(reqs[i].arrival_s) || reqs[i].arrival_s < 0 || (i > 0 && !(reqs[i].arrival_s >= reqs[i - 1].arrival_s)))
      throw Error(SourceLocation{"", 0, 0, spec.arrival == "trace" ? "workload.trace_file" : "workload.rate_per_s"},
                  "request " + std::to_string(i + 1) + " of the " + spec.arrival + " arrivals arrives at " + format_double(reqs[i].arrival_s) +
                      " s: arrival times must be finite, from 0 and in order",
                  spec.arrival == "trace" ? "check the trace's arrival_s column"
                                          : "the rate " + format_double(spec.rate_per_s) + "/s" +
                                                (spec.arrival == "gamma" ? " and cv " + format_double(spec.cv) : std::string()) +
                                                " give gaps a double cannot hold; use ordinary values");
  if (spec.arrival == "trace" && !reqs.empty() && reqs.back().arrival_s - reqs.front().arrival_s > kMaxArrivalSpanS)
    throw Error(SourceLocation{"", 0, 0, "workload.trace_file"},
                "the trace's arrivals span " + format_double(reqs.back().arrival_s - reqs.front().arrival_s) + " s, beyond the " +
                    format_double(kMaxArrivalSpanS) + " s (31.7 years) a run may span: the simulation clock would no longer resolve a pass's microseconds",
                "check the arrival_s column's unit (seconds), or split the trace");
  return reqs;
}

}  // namespace sextant::infer
