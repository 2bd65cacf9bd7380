// Serving-simulator speed: 100,000 requests of Llama-3.1-8B on one H100 (prompts mean 1,024 and
// outputs mean 256 tokens, exponentially distributed; Poisson arrivals at 80% of the saturation
// throughput; continuous batching). Target (issue 7): under 2 s on one core.
#include <benchmark/benchmark.h>

#include <string>

#include "catalog/catalog.hpp"
#include "infer/deployment.hpp"
#include "infer/serving.hpp"

using namespace sextant;
using namespace sextant::infer;

namespace {
struct Setup {
  ServingSpec spec;
  WorkloadSpec work;
  double capacity_rps = 0;
  Setup() {
    const std::string root = SEXTANT_SOURCE_DIR;
    auto cat = Catalog::load(root + "/data/catalog");
    auto data = InferData::load(root + "/data/infer");
    DeploymentSpec d;
    d.model = "llama3.1-8b";
    d.accelerator = "h100-sxm-80gb";
    d.engine = "vllm";
    spec.deployment = make_deployment(*cat, *data, d);
    spec.policy = "continuous";
    spec.slo = {1.0, 0.05};
    work.prompt = {"exponential", 1024, 0.5, 1, 8192};
    work.output = {"exponential", 256, 0.5, 1, 4096};
    capacity_rps = saturation_requests_per_s(spec, work, 3000);
    work.rate_per_s = 0.8 * capacity_rps;
    work.requests = 100000;
  }
};
const Setup& setup() {
  static const Setup s;
  return s;
}
}  // namespace

static void BM_Serve100kLlama8bH100(benchmark::State& state) {
  const Setup& s = setup();
  ServingSummary sum;
  for (auto _ : state) {
    const auto reqs = generate_requests(s.work);
    simulate_serving(s.spec, reqs, &sum);
    benchmark::DoNotOptimize(sum.completed);
  }
  state.counters["requests"] = static_cast<double>(sum.completed);
  state.counters["capacity_rps"] = s.capacity_rps;
  state.counters["iterations"] = static_cast<double>(sum.iterations);
  state.counters["sim_duration_s"] = sum.duration_s;
  state.counters["ttft_p50_s"] = sum.ttft_p50_s;
  state.counters["tpot_p50_s"] = sum.tpot_p50_s;
}
BENCHMARK(BM_Serve100kLlama8bH100)->Unit(benchmark::kMillisecond)->Iterations(3);

static void BM_SaturationProbe(benchmark::State& state) {
  const Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(saturation_requests_per_s(s.spec, s.work, 3000));
}
BENCHMARK(BM_SaturationProbe)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
