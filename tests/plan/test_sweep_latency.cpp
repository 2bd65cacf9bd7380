// Question (review of 2026-12-07): does a sweep of the scale-up latency reach in-switch (NVLS)
// all-reduces, and can their own latency be varied alone? `--vary scale_up.latency_s` had written
// the ring step latency only: the search moved to NVLS plans, whose 25 us stayed put, and the step
// time stayed flat however slow NVLink got (gpt3-1.3b on 16 H100: 0.394 s from 1 ms to 1e10 s), and
// the elasticity of scale_up.latency_s read exactly 0.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "plan/plan.hpp"
#include "plan/sweep.hpp"
#include "test_catalogs.hpp"

using namespace sextant;
using namespace sextant::plan;

namespace {
constexpr const char* kInr = "scale_up.in_network_reduction_latency_s";

// A small data-parallel job inside one node. The bundled catalog: its NVLink 4 states NCCL's 25 us
// NVLS latency (the frozen test catalog leaves it unknown, which NVLS takes as two ring steps).
Scenario small(const std::string& system) {
  const std::string y =
      "model: {id: tiny, source: test, layers: 4, hidden: 256, heads: 4, kv_heads: 4, ffn_hidden: 1024, vocab: 1000, mlp: swiglu}\n"
      "system: " + system + "\nnum_gpus: 8\nparallel: {tp: 1, pp: 1, dp: 8}\n"
      "training: {global_batch: 8, seq_len: 64}\n";
  return parse_scenario(y, "small.yaml", *sextant::test_catalogs::bundled());
}

// Every dimension fixed: one plan (tp1 pp1 dp8, ZeRO 0, mb 1), so the step time moves with the
// hardware alone.
SweepOptions held(std::vector<std::string> vary) {
  SweepOptions so;
  for (const char* f : {"tp=1", "pp=1", "mb=1", "zero=0", "recompute=none"}) parse_fix(f, so.search);
  so.search.schedules = {"1f1b"};
  so.search.vary_tp_comm_overlap = false;
  so.search.vary_sequence_parallel = false;
  so.search.threads = 1;
  for (const auto& v : vary) so.vary.push_back(parse_variation(v));
  return so;
}

std::vector<double> steps(const Result& r) {
  const auto& c = r.table("sweep")->column("step_time_s").f64;
  return std::vector<double>(c.begin(), c.end());
}
}  // namespace

TEST(SweepLatency, TheStepLatencyScalesTheInNetworkReductionLatency) {
  const Scenario h = small("dgx-h100");
  ASSERT_TRUE(h.scale_up.in_network_reduction_latency_s.known);
  const double inr0 = h.scale_up.in_network_reduction_latency_s.value, lat0 = h.scale_up.latency_s.value;
  EXPECT_NEAR(get_parameter(h, kInr), inr0, 1e-18);
  Scenario s = h;
  set_parameter(s, "scale_up.latency_s", 2 * lat0);
  EXPECT_NEAR(s.scale_up.in_network_reduction_latency_s.value, 2 * inr0, 1e-15);
  EXPECT_NEAR(get_parameter(s, kInr), 2 * inr0, 1e-15);
  // The new key alone leaves the step latency as it is.
  set_parameter(s, kInr, 7e-5);
  EXPECT_EQ(s.scale_up.latency_s.value, 2 * lat0);
  EXPECT_EQ(get_parameter(s, kInr), 7e-5);
}

TEST(SweepLatency, AHeldNvlsPlanSlowsWithTheScaleUpLatency) {
  const Scenario h = small("dgx-h100");
  const Estimator est;
  // 1000 x the step latency: NVLS's fixed time goes from 25 us to 25 ms with it (before the fix it
  // stayed at 25 us, below the ring's 14 steps, and the step time did not move).
  const Result r = sweep(h, held({"scale_up.latency_s=" + format_double(h.scale_up.latency_s.value) + "," +
                                  format_double(1000 * h.scale_up.latency_s.value)}),
                         est);
  const auto t = steps(r);
  ASSERT_EQ(t.size(), 2u);
  const auto& plan = r.table("sweep")->column("best_plan").str;
  EXPECT_EQ(plan[0], plan[1]) << "the plan is held";
  EXPECT_GT(t[1] - t[0], 0.9 * 999 * h.scale_up.in_network_reduction_latency_s.value) << t[0] << " -> " << t[1];
}

TEST(SweepLatency, TheElasticityOfTheScaleUpLatencyIsNotZeroWithNvls) {
  const Scenario h = small("dgx-h100");
  const Estimator est;
  SweepOptions so = held({});
  so.elasticity = true;
  const Result r = sweep(h, so, est);
  const Table* el = r.table("elasticity");
  ASSERT_NE(el, nullptr);
  bool found = false;
  for (size_t i = 0; i < el->column("parameter").str.size(); ++i)
    if (el->column("parameter").str[i] == "scale_up.latency_s") {
      found = true;
      EXPECT_GT(el->column("elasticity_fixed_plan_ratio").f64[i], 1e-3);
      EXPECT_GT(el->column("elasticity_replanned_ratio").f64[i], 1e-3);
    }
  EXPECT_TRUE(found);
}

TEST(SweepLatency, TheInNetworkReductionLatencyVariesAlone) {
  const Scenario h = small("dgx-h100");
  const Estimator est;
  const double inr0 = h.scale_up.in_network_reduction_latency_s.value;
  const Result r = sweep(h, held({std::string(kInr) + "=" + format_double(inr0) + "," + format_double(2 * inr0)}), est);
  const auto t = steps(r);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_GT(t[1], t[0] * (1 + 1e-6)) << "a slower in-switch all-reduce slows the NVLS plan";
  // With both keys varied, a point has the in-network latency given, in either order of --vary.
  const Result ab = sweep(h, held({"scale_up.latency_s=6e-6", std::string(kInr) + "=1e-4"}), est);
  const Result ba = sweep(h, held({std::string(kInr) + "=1e-4", "scale_up.latency_s=6e-6"}), est);
  const Result inr_only = sweep(h, held({std::string(kInr) + "=1e-4"}), est);
  Scenario direct = h;
  direct.scale_up.latency_s.value = 6e-6;
  direct.scale_up.in_network_reduction_latency_s.value = 1e-4;
  const Result ref = sweep(direct, held({std::string(kInr) + "=1e-4"}), est);
  EXPECT_EQ(steps(ab)[0], steps(ba)[0]);
  EXPECT_EQ(steps(ab)[0], steps(ref)[0]);
  EXPECT_NE(steps(ab)[0], steps(inr_only)[0]) << "the step latency still acts on the ring collectives";
  // NVLS left out of the job's algorithms: the key changes nothing, and a note says so.
  Scenario ring = h;
  ring.plan.collective_algorithms = {"ring"};
  const Result rr = sweep(ring, held({std::string(kInr) + "=1e-5,1e-3"}), est);
  EXPECT_EQ(steps(rr)[0], steps(rr)[1]);
  bool noted = false;
  for (const auto& n : rr.notes) noted = noted || n.find("leaves out nvls") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(SweepLatency, AScaleUpNetworkWithoutInNetworkReductionIsUnaffected) {
  const Scenario a = small("dgx-a100");
  ASSERT_FALSE(a.scale_up.in_network_reduction_fraction.known);
  const Estimator est;
  EXPECT_EQ(get_parameter(a, kInr), 0.0);
  EXPECT_THROW(sweep(a, held({std::string(kInr) + "=1e-4"}), est), Error);
  // The step latency is written as before, and nothing else of the network.
  Scenario s = a;
  set_parameter(s, "scale_up.latency_s", 1e-4);
  EXPECT_EQ(s.scale_up.latency_s.value, 1e-4);
  EXPECT_EQ(s.scale_up.in_network_reduction_latency_s.known, a.scale_up.in_network_reduction_latency_s.known);
  Scenario direct = a;
  direct.scale_up.latency_s.value = 1e-4;
  direct.scale_up.latency_s.known = true;
  const Result r = sweep(a, held({"scale_up.latency_s=1e-4"}), est);
  const Result ref = sweep(direct, held({}), est);
  EXPECT_EQ(steps(r)[0], steps(ref)[0]);
}
