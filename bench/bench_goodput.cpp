// Goodput simulation speed: 10,000 replicas of the 54-day, 16,384-GPU Llama 3 job with its failure
// mix (target: under 2 s on 2 cores for the whole `sextant goodput ... --replicas 10000`).
#include <benchmark/benchmark.h>

#include <string>

#include "goodput/config.hpp"
#include "goodput/engine.hpp"
#include "goodput/goodput.hpp"

using namespace sextant::goodput;

namespace {
GoodputConfig example() {
  return load_goodput(std::string(SEXTANT_SOURCE_DIR) + "/data/examples/goodput-llama3-405b-16k.yaml");
}
}  // namespace

// The Monte Carlo simulation alone: replicas per second and events per second.
static void BM_GoodputSimulation(benchmark::State& state) {
  const auto c = example();
  const SimModel m = build_model(c);
  const int64_t n = state.range(0);
  const int threads = int(state.range(1));
  int64_t events = 0;
  for (auto _ : state) {
    const Batch b = simulate_batch(m, n, 1, threads);
    for (int64_t x : b.counts) events += x;
    benchmark::DoNotOptimize(b.replicas.data());
  }
  state.counters["replicas_per_s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GoodputSimulation)->Args({10000, 1})->Args({10000, 2})->Unit(benchmark::kMillisecond)->UseRealTime();

// The whole command's analysis (simulation, closed forms, interval search, strategies, knobs).
static void BM_GoodputCommand(benchmark::State& state) {
  auto c = example();
  c.sim.replicas = state.range(0);
  c.sim.threads = 2;
  for (auto _ : state) {
    auto r = run_goodput(c);
    benchmark::DoNotOptimize(r.scalars.data());
  }
}
BENCHMARK(BM_GoodputCommand)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

BENCHMARK_MAIN();
