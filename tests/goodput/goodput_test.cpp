// The whole analysis on the bundled Llama 3 example: outputs present, consistent and sensible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "goodput/goodput.hpp"

using namespace sextant::goodput;

TEST(RunGoodput, Llama3ExampleOutputsAreConsistent) {
  auto c = load_goodput(std::string(SEXTANT_SOURCE_DIR) + "/data/examples/goodput-llama3-405b-16k.yaml");
  c.sim.replicas = 200;
  c.sim.search_replicas = 40;
  const auto r = run_goodput(c);
  const double e = r.number("ettr");
  EXPECT_GT(e, 0.5);
  EXPECT_LT(e, 1.0);
  EXPECT_LT(r.number("ettr_ci_low"), e);
  EXPECT_GT(r.number("ettr_ci_high"), e);
  // 419 + 47 interruptions expected in 54 days (minus a few merged into ongoing recoveries).
  EXPECT_NEAR(r.number("interruptions_mean_count"), 466, 25);
  // Lost time by cause adds up to the wall time not spent productively.
  const auto* t = r.table("lost_time_by_cause");
  ASSERT_NE(t, nullptr);
  double lost = 0;
  for (double v : t->column("mean_s").f64) lost += v;
  EXPECT_NEAR(lost / r.number("duration_s"), 1.0 - e, 1e-9);
  ASSERT_NE(r.table("ettr_vs_interval"), nullptr);
  ASSERT_NE(r.table("knobs"), nullptr);
  ASSERT_NE(r.table("closed_forms"), nullptr);
  EXPECT_GT(r.number("optimal_interval_sim_s"), 0);
  EXPECT_GE(r.number("spares_p99_count"), 1);
}

// Do the closed forms account for an asynchronous persist as the engine does? A checkpoint waits
// for the previous persist (the cycle stretches) and a failure during a persist loses it. With a
// 300 s persist, a 60 s interval ran at ETTR 0.195 while Daly's formula said 0.967 (2026-12-01);
// both must now agree with the simulation, at 60 s and at 300 s.
TEST(RunGoodput, ClosedFormsFollowTheAsynchronousPersist) {
  const std::string path = ::testing::TempDir() + "/goodput-async.yaml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "name: async\n"
        "job: {num_gpus: 8, gpus_per_node: 8, dp: 1, nodes_per_replica: 1, step_time_s: 1, duration_days: 100}\n"
        "failures:\n  processes:\n    - {name: crash, component: software, kind: interrupt, mtbf_hours: 10, node_lost: false}\n"
        "recovery: {detection_s: 0, eviction_s: 0, hot_spare_s: 0, restart_s: 600, rendezvous_base_s: 0, warmup_s: 0}\n"
        "checkpoint: {strategy: async-remote, interval_s: 60, params: 1.0e9, per_gpu_bytes: 1.0e9, d2h_bytes_per_s: 1.0e9, "
        "write_s: 300, read_s: 0}\n"
        "elastic: {enabled: false}\n"
        "simulation: {replicas: 200, seed: 1}\n",
        f);
    std::fclose(f);
  }
  for (double interval : {60.0, 300.0}) {
    auto c = load_goodput(path);
    c.checkpoint.interval_s = interval;
    c.sim.search = false;
    const auto r = run_goodput(c);
    const double sim = r.number("ettr");
    EXPECT_NEAR(r.number("daly_expected_ettr") / sim, 1.0, 0.02) << interval << " s: simulated " << sim;
    EXPECT_NEAR(r.number("meta_expected_ettr") / sim, 1.0, 0.02) << interval << " s: simulated " << sim;
  }
}

TEST(Summary, ConfidenceIntervalOfAKnownSample) {
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) v.push_back(i % 2 ? 1.0 : 0.0);
  const auto s = summarize(v, 0.95);
  EXPECT_DOUBLE_EQ(s.mean, 0.5);
  EXPECT_NEAR(s.ci_high - s.mean, 1.959964 * s.sd / std::sqrt(1000.0), 1e-6);
}
