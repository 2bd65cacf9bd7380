// Question: does a software stack's capability restriction (catalog frameworks' `capabilities:`)
// keep the search to exactly the plans that stack could run, and nothing else?
#include <gtest/gtest.h>

#include <set>

#include "plan/plan.hpp"
#include "test_catalogs.hpp"

using namespace sextant;
using namespace sextant::plan;

namespace {
std::shared_ptr<const Catalog> frozen() { return sextant::test_catalogs::frozen(); }
std::shared_ptr<const Catalog> bundled() { return sextant::test_catalogs::bundled(); }

// 64 GPUs, 16 layers: room for every dimension (tp, pp with vpp, cp, dp) and every schedule.
Scenario job() {
  const std::string y =
      "model: {id: small, source: test, layers: 16, hidden: 1024, heads: 16, kv_heads: 8, ffn_hidden: 4096, vocab: 32000, mlp: swiglu}\n"
      "system: dgx-h100\nnum_gpus: 64\nparallel: {tp: 8, pp: 4, vpp: 2}\n"
      "training: {global_batch: 64, micro_batch: 1, seq_len: 4096, precision: bf16}\n";
  return parse_scenario(y, "small.yaml", *frozen());
}

SearchOptions wide() {
  SearchOptions o;
  o.max_vpp = 2;
  o.max_micro_batch = 2;
  o.vary_overlap_dp = true;  // so that overlap forced off by a stack is among the unrestricted plans
  return o;
}

std::set<std::string> described(const std::vector<Candidate>& c, const SearchOptions& o, const Scenario& s) {
  std::set<std::string> out;
  for (const auto& x : c) out.insert(describe(x, o, s));
  return out;
}

// A framework entry with capabilities, as the catalog parser would give it.
Framework framework_with(const std::map<std::string, std::string>& flags, const std::vector<std::string>& recompute,
                         const std::vector<std::string>& zero, const std::vector<std::string>& pipeline_zero,
                         const std::vector<std::string>& schedules) {
  Framework f;
  f.id = "test-stack";
  auto& c = f.capabilities;
  c.stated = true;
  for (auto* p : {&c.tensor_parallel, &c.pipeline_parallel, &c.context_parallel, &c.expert_parallel, &c.sequence_parallel,
                  &c.tp_comm_overlap, &c.overlap_grad_reduce, &c.overlap_param_gather, &c.flash_attention, &c.recompute_block})
    p->value = "true";
  const std::map<std::string, FrameworkProperty*> by = {
      {"tensor_parallel", &c.tensor_parallel}, {"pipeline_parallel", &c.pipeline_parallel}, {"context_parallel", &c.context_parallel},
      {"sequence_parallel", &c.sequence_parallel}, {"tp_comm_overlap", &c.tp_comm_overlap},
      {"overlap_grad_reduce", &c.overlap_grad_reduce}, {"overlap_param_gather", &c.overlap_param_gather},
      {"flash_attention", &c.flash_attention}, {"recompute_block", &c.recompute_block}};
  for (const auto& [k, v] : flags) by.at(k)->value = v;
  c.recompute.items = recompute;
  // As the catalog requires: modules listed exactly when selective is offered (the attention core
  // here, as the stacks of 2022-2024).
  if (std::find(recompute.begin(), recompute.end(), "selective") != recompute.end()) c.recompute_modules.items = {"core_attn"};
  c.zero_stages.items = zero;
  c.pipeline_zero_stages.items = pipeline_zero;
  c.schedules.items = schedules;
  return f;
}
}  // namespace

// The restricted enumeration is exactly the unrestricted one less the plans that use a feature
// the stack lacks (stack_violations), for the stacks of the validation set.
TEST(PlanStack, RestrictedEnumerationIsTheUnrestrictedOneLessPlansTheStackCannotRun) {
  const Scenario s = job();
  SearchOptions any = wide();
  const auto all = enumerate_plans(s, any);
  ASSERT_GT(all.size(), 1000u);
  for (const std::string fw : {"megatron-lm-2021", "megatron-lm-2022", "megatron-deepspeed", "deepspeed-zero3-2021", "llm-foundry",
                               "megatron-core", "megatron-bridge-perf", "nemo-2407-launcher"}) {
    SearchOptions o = wide();
    o.stack = stack_features(bundled()->framework(fw));
    ASSERT_TRUE(o.stack.restricted());
    std::set<std::string> expected;
    for (const auto& c : all)
      if (stack_violations(c, s, o).empty()) expected.insert(describe(c, o, s));
    const auto got = enumerate_plans(s, o);
    ASSERT_FALSE(got.empty()) << fw;
    EXPECT_LT(got.size(), all.size()) << fw << " restricts nothing on this job";
    EXPECT_EQ(described(got, o, s), expected) << fw;
    for (const auto& c : got) EXPECT_EQ(stack_violations(c, s, o), "") << fw << ": " << describe(c, o, s);
  }
}

// Feature by feature: a stack without it never yields a plan that uses it.
TEST(PlanStack, AStackWithoutAFeatureNeverYieldsAPlanThatUsesIt) {
  const Scenario s = job();
  const std::vector<std::string> all_rc = {"none", "selective", "full"}, all_z = {"0", "1", "2", "3"},
                                  all_sched = {"1f1b", "interleaved-1f1b", "gpipe", "zb-h1"};
  struct Case {
    const char* what;
    Framework f;
    std::function<bool(const Candidate&, const SearchOptions&)> uses;
  };
  const std::vector<Case> cases = {
      {"sequence parallelism", framework_with({{"sequence_parallel", "false"}, {"tp_comm_overlap", "false"}}, all_rc, all_z, all_z, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.sequence_parallel; }},
      {"TP overlap", framework_with({{"tp_comm_overlap", "false"}}, all_rc, all_z, all_z, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.tp_comm_overlap; }},
      {"tensor parallelism", framework_with({{"tensor_parallel", "false"}, {"sequence_parallel", "false"}, {"tp_comm_overlap", "false"}}, all_rc, all_z, all_z, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.tp > 1; }},
      {"pipeline parallelism", framework_with({{"pipeline_parallel", "false"}}, all_rc, all_z, {}, {}),
       [](const Candidate& c, const SearchOptions&) { return c.pp > 1; }},
      {"context parallelism", framework_with({{"context_parallel", "false"}}, all_rc, all_z, all_z, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.cp > 1; }},
      {"selective recompute", framework_with({}, {"none", "full"}, all_z, all_z, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.recompute == static_cast<uint8_t>(Recompute::Selective); }},
      {"selective recompute of modules other than the attention core", framework_with({}, all_rc, all_z, all_z, all_sched),
       [](const Candidate& c, const SearchOptions&) {
         return c.recompute == static_cast<uint8_t>(Recompute::Selective) && c.recompute_modules != kRecomputeCoreAttn;
       }},
      {"ZeRO 2/3", framework_with({}, all_rc, {"0", "1"}, {"0", "1"}, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.zero_stage >= 2; }},
      {"ZeRO 2/3 with a pipeline", framework_with({}, all_rc, all_z, {"0", "1"}, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.pp > 1 && c.zero_stage >= 2; }},
      {"zero-bubble and interleaved schedules", framework_with({}, all_rc, all_z, all_z, {"1f1b", "gpipe"}),
       [](const Candidate& c, const SearchOptions& o) {
         return c.pp > 1 && (o.schedules[c.schedule] == "zb-h1" || o.schedules[c.schedule] == "interleaved-1f1b" || c.vpp > 1);
       }},
      {"gradient-reduce overlap", framework_with({{"overlap_grad_reduce", "false"}}, all_rc, all_z, all_z, all_sched),
       // (used where there is a data-parallel group to reduce over; without one the switch does nothing)
       [](const Candidate& c, const SearchOptions&) { return c.overlap_grad_reduce && c.dp * c.cp > 1; }},
      {"parameter-gather overlap", framework_with({{"overlap_param_gather", "false"}}, all_rc, all_z, all_z, all_sched),
       [](const Candidate& c, const SearchOptions&) { return c.overlap_param_gather && c.zero_stage >= 1; }},
  };
  for (const bool vary : {false, true}) {
    for (const auto& k : cases) {
      SearchOptions o = wide();
      o.vary_overlap_dp = vary;
      o.stack = stack_features(k.f);
      const auto got = enumerate_plans(s, o);
      ASSERT_FALSE(got.empty()) << k.what;
      size_t used = 0;
      for (const auto& c : got) used += k.uses(c, o);
      EXPECT_EQ(used, 0u) << "a stack without " << k.what << " yielded " << used << " plans using it";
      // And the unrestricted search does use it here (the case is not vacuous).
      SearchOptions u = wide();
      u.vary_overlap_dp = vary;
      size_t used_any = 0;
      for (const auto& c : enumerate_plans(s, u)) used_any += k.uses(c, u);
      EXPECT_GT(used_any, 0u) << k.what;
    }
  }
}

// Without flash attention the stack is searched with the scores materialised: more memory for a
// plan that stores them, and a longer step (non-causal score GEMMs, the scores through HBM).
TEST(PlanStack, NoFlashAttentionCostsMemoryAndTime) {
  Scenario s = job();
  s.train.recompute = Recompute::None;
  StackFeatures st;
  st.framework = "test";
  st.flash_attention = false;
  const Scenario t = stack_scenario(s, st);
  EXPECT_FALSE(t.train.flash_attention);
  EXPECT_TRUE(stack_scenario(s, StackFeatures{}).train.flash_attention);
  const Estimator est;
  const StepEstimate a = est.run(ir::lower(s)), b = est.run(ir::lower(t));
  // Materialised scores: QK^T and PV over every key, the score matrix through HBM.
  EXPECT_GT(b.step_time_s, a.step_time_s);
  EXPECT_GT(b.memory.total_bytes(), a.memory.total_bytes());
}

// `plan` on a scenario whose own plan uses a feature its framework lacks says which one.
TEST(PlanStack, OwnPlanOutsideItsStackNamesTheMissingFeature) {
  const Scenario s = job();  // tp8 with sequence parallelism (the default with tp > 1)
  ASSERT_TRUE(s.plan.sequence_parallel);
  SearchOptions o;
  parse_fix("tp=8", o);
  parse_fix("pp=4", o);
  parse_fix("mb=1", o);
  o.stack = stack_features(bundled()->framework("megatron-lm-2021"));
  const Estimator est;
  const auto out = search(stack_scenario(s, o.stack), o, est);
  ASSERT_FALSE(out.ranking.empty());
  const Result r = plan_result(stack_scenario(s, o.stack), o, est, out, true);
  const std::string status = std::get<std::string>(*r.scalar("own_plan_status"));
  EXPECT_NE(status.find("sequence parallelism"), std::string::npos) << status;
  EXPECT_NE(status.find("megatron-lm-2021"), std::string::npos) << status;
  EXPECT_EQ(std::get<std::string>(*r.scalar("framework_features")), "restricted to megatron-lm-2021's capabilities");
}

// A framework that states no capabilities restricts nothing.
TEST(PlanStack, UnstatedCapabilitiesRestrictNothing) {
  const Scenario s = job();
  Framework f;
  f.id = "unstated";
  SearchOptions o = wide(), u = wide();
  o.stack = stack_features(f);
  EXPECT_EQ(described(enumerate_plans(s, o), o, s), described(enumerate_plans(s, u), u, s));
}

// A stack without the block method never has a plan costed as full recompute of some layers
// (the rungs replace full recompute of every layer in search(), not in the enumeration), and the
// unrestricted search does (the case is not vacuous).
TEST(PlanStack, AStackWithoutTheBlockMethodNeverRecomputesSomeLayers) {
  const Scenario s = job();
  const std::vector<std::string> all_rc = {"none", "selective", "full"}, all_z = {"0", "1", "2", "3"},
                                  all_sched = {"1f1b", "interleaved-1f1b", "gpipe", "zb-h1"};
  const Estimator est;
  auto partial = [&](const SearchOptions& o) {
    SearchOptions x = o;
    x.min_headroom_bytes = s.accelerator.memory_bytes.value * 0.96;  // little memory: recompute pays (0.97: none fits)
    x.recompute = {Recompute::Full};
    const SearchOutcome out = search(s, x, est);
    size_t n = 0;
    for (uint32_t i : out.ranking) n += out.candidates[i].recompute_layers > 0;
    return n;
  };
  SearchOptions without = wide();
  without.stack = stack_features(framework_with({{"recompute_block", "false"}}, all_rc, all_z, all_z, all_sched));
  EXPECT_EQ(partial(without), 0u);
  EXPECT_GT(partial(wide()), 0u);
}
