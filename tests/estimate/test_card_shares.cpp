// Question (review of 2026-12-07): a collective that leaves the scale-up domain takes the network
// card only for its share of it: a ring with eight members a node on H800 (NVLink 160 GB/s against
// eight cards of about 47 GB/s) is bound by NVLink and draws about 0.43 of the card over its
// bandwidth part, as simulate's links (sim::describe_collective) draw on it. Does estimate price
// the card's sharing by those shares (link_shares, card_sharing), and does it reach the step time?
// Before, every collective across nodes was taken as bound by the card: MoE ZeRO-3 plans on H800
// read 5-8% above simulate (Qwen3-30B-A3B at ep 8 on 32 H800, 1024 tokens: 1.080 s against
// 1.019 s; ep 16: 0.626 s against 0.578 s), 13-24% with slower scale-up links.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "estimate/collective.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"
#include "scenario/scenario.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {
std::shared_ptr<const Catalog> frozen() { return sextant::test_catalogs::frozen(); }

Scenario moe_zero3(const std::string& system, int ep) {
  return parse_scenario("model: qwen3-30b-a3b\nsystem: " + system +
                            "\nnum_gpus: 32\n"
                            "parallel: {tp: 1, pp: 1, ep: " +
                            std::to_string(ep) +
                            ", zero_stage: 3, overlap: {grad_reduce: true, param_gather: true}}\n"
                            "training: {global_batch: 64, micro_batch: 1, seq_len: 1024, precision: bf16, recompute: selective}\n",
                        "t.yaml", *frozen());
}

// The first collective of `group` in the stage's blocks (forward, then backward passes).
const ir::Collective* first_of(const ir::Workload& w, ir::GroupKind group) {
  for (const auto& b : w.stages[0].chunks[0].blocks)
    for (const auto* pass : {&b.forward.get(), &b.backward_input.get(), &b.backward_weight.get()})
      for (const auto& st : *pass)
        if (const auto* c = std::get_if<ir::Collective>(&st); c && c->group == group && c->bytes > 0) return c;
  return nullptr;
}
}  // namespace

// The shares in closed form from the fabric: a ring's bandwidth part takes bytes x bus factor over
// NVLink's bus bandwidth (up_busbw of its 8 members a node) or over the node's cards (8 x a card's),
// the slower of the two bounding it; its card share is the card's time over the slower's.
TEST(CardShares, RingWithEightMembersANodeOnH800IsBoundByNvlink) {
  const Scenario s = moe_zero3("h800-ib-400g", 8);
  const ir::Workload w = ir::lower(s);
  const Fabric f = make_fabric(s);
  const ir::Collective* dp = first_of(w, ir::GroupKind::DP);
  const ir::Collective* edp = first_of(w, ir::GroupKind::EDP);
  ASSERT_NE(dp, nullptr);
  ASSERT_NE(edp, nullptr);
  const ir::Group& gd = w.group_of(*dp);
  ASSERT_EQ(gd.per_domain, 8);
  ASSERT_EQ(gd.domains, 4);
  const double nvlink = 1.0 / f.up_busbw(8), card = 1.0 / f.domain_out_busbw(8);  // time per bus byte
  ASSERT_GT(nvlink, card) << "H800's NVLink is the slower link of an 8-a-node ring";
  const LinkShares d = link_shares(*dp, w, f);
  EXPECT_NEAR(d.card, card / nvlink, 1e-12);
  EXPECT_NEAR(d.scale_up, f.up_share(8), 1e-12);
  EXPECT_GT(d.card, 0.3);
  EXPECT_LT(d.card, 0.6);
  // The expert-data-parallel ring has one member a node: bound by the card, no NVLink hop.
  const ir::Group& ge = w.group_of(*edp);
  ASSERT_EQ(ge.per_domain, 1);
  const LinkShares e = link_shares(*edp, w, f);
  EXPECT_DOUBLE_EQ(e.card, 1.0);
  EXPECT_DOUBLE_EQ(e.scale_up, 0.0);
  // On DGX H100 the same ring is (about) bound by the card.
  const Scenario h = moe_zero3("dgx-h100", 8);
  const ir::Workload wh = ir::lower(h);
  const ir::Collective* dph = first_of(wh, ir::GroupKind::DP);
  ASSERT_NE(dph, nullptr);
  EXPECT_GT(link_shares(*dph, wh, make_fabric(h)).card, 0.95);
}

// card_sharing in closed form. All bound by the card: nic_sharing_stretch_s and min(c, max_g b_g),
// the model before the review. A stream bound by NVLink with card share d beside a collective bound
// by the card: both run at 1 / (1 + d) while together, so the collective is d min(b, c) late and
// the stream as much. A collective bound by NVLink (card share a) beside a card-bound stream: a
// min(b, c). Two flows bound by NVLink share it: min(b, c). Flows on different links: nothing.
TEST(CardShares, SharingTheCardByShareClosedForms) {
  const LinkShares card{1.0, 0.0}, nvlink_bound{0.43, 1.0}, port_only{0.0, 1.0};
  for (const double c : {0.5, 1.0, 2.0, 5.0})
    for (const double b0 : {0.0, 0.3, 1.0, 4.0})
      for (const double b1 : {0.0, 0.7, 1.5, 6.0}) {
        const double b[2] = {b0, b1};
        const LinkShares both[2] = {card, card};
        const CardSharing x = card_sharing(c, card, b, both);
        const double backlogs[2] = {b0, b1};
        EXPECT_NEAR(x.stretch_s, nic_sharing_stretch_s(c, backlogs), 1e-9) << c << " " << b0 << " " << b1;
        EXPECT_NEAR(x.streams_delay_s, std::min(c, std::max(b0, b1)), 1e-9) << c << " " << b0 << " " << b1;
      }
  for (const double c : {0.5, 2.0})
    for (const double b : {0.2, 1.0, 3.0}) {
      const double one[2] = {b, 0.0};
      const double m = std::min(b, c);
      {
        const LinkShares s[2] = {nvlink_bound, card};
        const CardSharing x = card_sharing(c, card, one, s);
        EXPECT_NEAR(x.stretch_s, 0.43 * m, 1e-9) << c << " " << b;
        EXPECT_NEAR(x.streams_delay_s, 0.43 * m, 1e-9) << c << " " << b;
      }
      {
        const LinkShares s[2] = {card, card};
        EXPECT_NEAR(card_sharing(c, nvlink_bound, one, s).stretch_s, 0.43 * m, 1e-9) << c << " " << b;
      }
      {
        const LinkShares s[2] = {nvlink_bound, card};
        EXPECT_NEAR(card_sharing(c, nvlink_bound, one, s).stretch_s, m, 1e-9) << c << " " << b;
      }
      {
        const LinkShares s[2] = {port_only, card};
        const CardSharing x = card_sharing(c, card, one, s);
        EXPECT_NEAR(x.stretch_s, 0.0, 1e-12) << c << " " << b;
        EXPECT_NEAR(x.streams_delay_s, 0.0, 1e-12) << c << " " << b;
      }
    }
  // The two streams side by side: an NVLink-bound DP stream (0.43 of the card) and a card-bound
  // EDP stream oversubscribe the card by 1.43 while both run; a card-bound collective beside both
  // runs at 1 / 2.43 until the smaller stream is done, then at 1 / (1 + the other's share).
  {
    const double b[2] = {1.0, 3.0}, c = 2.0;
    const LinkShares s[2] = {nvlink_bound, card};
    // 1.0 of each at 1/2.43, then the collective's remaining 1.0 beside the EDP stream at 1/2.
    EXPECT_NEAR(card_sharing(c, card, b, s).stretch_s, 1.0 * 1.43 + 1.0 * 1.0, 1e-9);
  }
}
