#pragma once
// Request streams of the serving simulator, chosen by name: arrival processes (poisson, gamma,
// trace) and length distributions (fixed, uniform, exponential, lognormal). All randomness comes
// from sextant::RandomStream with this project's own distributions, so a workload is a pure
// function of its spec and seed.
//
// Contract of ArrivalProcess::generate(): returns `spec.requests` requests (a trace: its rows, up
// to spec.requests when that is > 0) sorted by arrival time, starting at or after 0, with
// prompt_tokens >= 1 and output_tokens >= 1.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "core/registry.hpp"

namespace sextant::infer {

struct Request {
  double arrival_s = 0;
  int32_t prompt_tokens = 1;
  int32_t output_tokens = 1;
  int32_t prefix_group = -1;   // requests of one group share their first prefix_tokens tokens
  int32_t prefix_tokens = 0;
  // A trace's request: the 1-based line of its row in the trace file (the header is line 1) and
  // the arrival the row states, before the rows were sorted by time and shifted to start at 0;
  // -1 and NaN for generated requests. Serve's requests table shows them (2026-12-07 review: the
  // table had numbered the reordered, shifted requests with nothing to tie them to the file).
  int64_t trace_line = -1;
  double trace_arrival_s = std::numeric_limits<double>::quiet_NaN();
};

// The longest prompt, output or shared prefix a request may state, in tokens: beyond any model's
// context window (10M at most in 2026), and small enough that a request's prompt + output and its
// KV blocks stay within 32-bit counts (2^31 - 1 had wrapped: a 2.1e9-token prompt was served in 55
// simulated years holding no KV cache, 2026-12-04 review).
constexpr int32_t kMaxRequestTokens = 100000000;

struct LengthSpec {
  std::string dist = "fixed";  // fixed | uniform | exponential | lognormal
  double mean = 256;
  double cv = 0.5;             // lognormal: coefficient of variation
  int32_t min = 1, max = 1 << 20;  // clamp (uniform: its range)
};

class LengthDistribution {
 public:
  virtual ~LengthDistribution() = default;
  // One length drawn from the stream, clamped to [spec.min, spec.max].
  virtual int32_t draw(const LengthSpec& spec, RandomStream& rng) const = 0;
};

// Range of the gamma arrivals' coefficient of variation (WorkloadSpec::cv). Marsaglia-Tsang draws a
// gap of shape k = 1/cv^2 as 1/rate * (1 + cv*x + O(cv^2)), x a normal draw (|x| < 8.6 from this
// project's Box-Muller); at cv = 1e-6 its random part is resolved to 1e-10 of itself and the
// acceptance test's cancellation in d*(1 - v + log v) errs by at most 1e-9, so the draw is exact,
// while below it the gaps differ from 1/rate by under 1e-5 of a gap: there the gaps are 1/rate, the
// deterministic limit (cv 0 included). Above cv 100 (shape 1e-4) almost every gap is 0 (a draw is
// Gamma(1 + k) * u^(1/k)) and a run's requests arrive in a few bursts; by cv 3e9 every gap underflows
// to 0, and beyond 1.3e154 shape underflows and the gaps are NaN (2026-12-06 review).
constexpr double kDeterministicArrivalCv = 1e-6;
constexpr double kMaxArrivalCv = 100;

struct WorkloadSpec {
  std::string arrival = "poisson";  // poisson | gamma | trace
  double rate_per_s = 1;            // mean arrival rate
  double cv = 1;                    // gamma: coefficient of variation of inter-arrival gaps, 0 to kMaxArrivalCv
  std::string trace_file;           // trace: CSV with arrival_s (or timestamp_s), prompt_tokens, output_tokens
  int64_t requests = 1000;
  LengthSpec prompt{"fixed", 1024, 0.5, 1, 1 << 20}, output{"fixed", 256, 0.5, 1, 1 << 20};
  // Prefix sharing: this share of requests starts with one of `prefix_groups` common prefixes
  // of prefix_tokens tokens (system prompts, few-shot examples).
  double prefix_share_fraction = 0;
  int32_t prefix_tokens = 0;
  int32_t prefix_groups = 1;
  uint64_t seed = 1;
};

class ArrivalProcess {
 public:
  virtual ~ArrivalProcess() = default;
  virtual std::vector<Request> generate(const WorkloadSpec& spec) const = 0;
};

// Arrival processes and length distributions by name (core/registry.hpp): create(name, where)
// throws Error at `where` naming the valid choices.
FactoryRegistry<ArrivalProcess> make_arrival_registry();
FactoryRegistry<LengthDistribution> make_length_registry();

// The longest span of arrivals a run may cover, in seconds (31.7 years): the simulation clock is a
// double of absolute seconds, whose resolution at 1e9 s is 0.12 us, fine beside a pass of tens of
// microseconds or more. At rate_per_s 1e-300 the times reached 1e300 s and swallowed a 44 ms TTFT
// and every TPOT (0 s; 2026-12-06 review). Generated arrivals span requests / rate_per_s on
// average; a trace spans its first to its last arrival.
constexpr double kMaxArrivalSpanS = 1e9;

// Why `requests` generated arrivals at `rate_per_s` cannot be simulated (their expected span,
// requests / rate_per_s, beyond kMaxArrivalSpanS), with the valid range; both empty when they can.
struct ArrivalSpanProblem {
  std::string message, hint;
  bool empty() const { return message.empty(); }
};
ArrivalSpanProblem arrival_span_problem(double rate_per_s, int64_t requests);

// Generates the requests of a spec (arrival process by name; lengths and prefixes for the
// synthetic processes). Throws Error at workload.rate_per_s for arrivals beyond kMaxArrivalSpanS
// (at workload.trace_file for a trace).
std::vector<Request> generate_requests(const WorkloadSpec& spec);

// Draws prompt/output lengths and prefix groups for n requests (used by the synthetic processes):
// request i uses RandomStream(seed, 1000 + i), so lengths do not depend on the arrival process.
void fill_lengths(const WorkloadSpec& spec, std::vector<Request>& reqs);

std::unique_ptr<ArrivalProcess> make_poisson_arrivals();
std::unique_ptr<ArrivalProcess> make_gamma_arrivals();
std::unique_ptr<ArrivalProcess> make_trace_arrivals();
std::unique_ptr<LengthDistribution> make_fixed_lengths();
std::unique_ptr<LengthDistribution> make_uniform_lengths();
std::unique_ptr<LengthDistribution> make_exponential_lengths();
std::unique_ptr<LengthDistribution> make_lognormal_lengths();

}  // namespace sextant::infer
