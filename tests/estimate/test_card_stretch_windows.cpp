// Question (review of 2026-12-06): the once-per-step DP traffic on the network card (gradient
// buckets over the last backward, parameter gathers beside the first forward) stretches the
// all-to-alls of those passes only. Does the per-op table put that stretch on the rows of the pass
// where it happens, and does a dense-only pipeline stage show no expert all-to-all time?
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "estimate/collective.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"
#include "scenario/scenario.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {
std::shared_ptr<const Catalog> frozen() { return sextant::test_catalogs::frozen(); }
}  // namespace

// ZeRO-1 with the gradient buckets overlapped and the parameter gathers not: the forward's
// all-to-alls meet no once-per-step traffic and keep their idle-network time; the backward's carry
// the buckets' stretch. Before, it was spread over every all-to-all row, forward ones included.
TEST(OpTable, OncePerStepStretchStaysOnThePassItSlows) {
  const Scenario s = parse_scenario("model: qwen3-30b-a3b\nsystem: dgx-h100\nnum_gpus: 32\n"
                                    "parallel: {tp: 1, pp: 1, ep: 16, zero_stage: 1, overlap: {grad_reduce: true, param_gather: false}}\n"
                                    "training: {global_batch: 128, micro_batch: 1, seq_len: 1024, precision: bf16, recompute: none}\n",
                                    "t.yaml", *frozen());
  const ir::Workload w = ir::lower(s);
  const Estimator est;
  const StepEstimate e = est.run(w);
  const auto ops = op_table(w, e.critical_stage, est);
  const Fabric f = make_fabric(s);
  // Each EP collective's idle time per call, by (block, pass, name).
  std::map<std::tuple<std::string, std::string, std::string>, double> idle;
  static const char* const kPass[] = {"forward", "recompute", "backward_input", "backward_weight"};
  for (const auto& b : w.stages[0].chunks[0].blocks) {
    const std::vector<ir::Step>* passes[] = {&b.forward.get(), &b.recompute.get(), &b.backward_input.get(), &b.backward_weight.get()};
    for (int pi = 0; pi < 4; ++pi)
      for (const auto& st : *passes[pi])
        if (const auto* c = std::get_if<ir::Collective>(&st); c && c->group == ir::GroupKind::EP)
          idle[{b.name, kPass[pi], c->name}] = est.collective_time_s(*c, w, f) / std::max(1, c->calls);
  }
  int forward_rows = 0, stretched_backward_rows = 0;
  double ep_rows = 0;
  for (const auto& o : ops) {
    if (o.group != "ep") continue;
    ep_rows += o.time_s * static_cast<double>(o.count);
    const auto it = idle.find({o.block, o.pass, o.name});
    ASSERT_NE(it, idle.end()) << o.block << " " << o.pass << " " << o.name;
    if (o.pass == "forward") {
      ++forward_rows;
      EXPECT_NEAR(o.time_s, it->second, 1e-9 * it->second) << o.name << ": forward row " << o.time_s << " s, idle " << it->second << " s";
    } else if (o.time_s > it->second * (1 + 1e-6)) {
      ++stretched_backward_rows;
    }
  }
  EXPECT_GT(forward_rows, 0);
  EXPECT_GT(stretched_backward_rows, 0);
  // The rows still sum to the breakdown's ep time.
  double ep = 0;
  for (const auto& [g, t] : e.comm_by_group_s)
    if (g == "ep") ep = t;
  EXPECT_NEAR(ep_rows, ep, 1e-9 * ep);
}

// DeepSeek-V3 at pp 16 with stage 0 holding its three dense layers alone (and the embedding): no
// all-to-all runs there, and stage 0 (which ends the step) shows none, where every other stage's
// stretch had been charged to it as 0.219 s of exposed ep.
TEST(CardStretch, ADenseOnlyStageShowsNoExpertAllToAll) {
  const Scenario s = parse_scenario(
      "model: deepseek-v3\nsystem: h800-ib-400g\nnum_gpus: 2048\n"
      "parallel: {tp: 1, pp: 16, ep: 64, zero_stage: 1, schedule: 1f1b, moe_dispatcher: deepep, "
      "stage_layers: [3, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1], overlap: {grad_reduce: true, param_gather: true}}\n"
      "training: {global_batch: 2048, micro_batch: 1, seq_len: 4096, precision: fp8, fp8_recipe: blockwise, recompute: selective, "
      "recompute_modules: [layernorm, moe_act, mla_up_proj], moe_fp8_dispatch: true, optimizer_moments: bf16}\n",
      "t.yaml", *frozen());
  const ir::Workload w = ir::lower(s);
  const StepEstimate e = estimate_step(w);
  ASSERT_EQ(e.critical_stage, 0);
  for (const auto* list : {&e.exposed_by_group_s, &e.comm_by_group_s})
    for (const auto& [g, t] : *list) EXPECT_FALSE(g == "ep" && t > 0) << g << " " << t;
}
