// The whole analysis on the bundled Llama 3 example: outputs present, consistent and sensible.
#include <gtest/gtest.h>

#include <cmath>

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

TEST(Summary, ConfidenceIntervalOfAKnownSample) {
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) v.push_back(i % 2 ? 1.0 : 0.0);
  const auto s = summarize(v, 0.95);
  EXPECT_DOUBLE_EQ(s.mean, 0.5);
  EXPECT_NEAR(s.ci_high - s.mean, 1.959964 * s.sd / std::sqrt(1000.0), 1e-6);
}
