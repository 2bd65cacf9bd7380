// Questions (review of 2026-12-07) about simulate's Chrome trace (--timeline) and its rank list:
// does a collective's slice say how much of it was waiting for the other members and how much
// the transfer the tables count; does a pipeline transfer's flow start strictly inside its send
// slice; does a range of --timeline-ranks that reaches outside the job name that range?
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/result.hpp"
#include "scenario/scenario.hpp"
#include "sim/simulate.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {
std::shared_ptr<const Catalog> frozen() { return sextant::test_catalogs::frozen(); }

int64_t ns_of_us(const nlohmann::json& v) { return std::llround(v.get<double>() * 1000); }
}  // namespace

// A collective's slice runs from its member's arrival (as a profiled NCCL kernel, waiting for the
// others included), and its args split it into wait_us and transfer_us; the transfers sum to the
// communication table, which counts from when all members had arrived. With rank 9 30% slower,
// unit 0's dp slices had summed to 0.0555 s against a dp total of 0.0157 s, nothing telling the
// wait apart.
TEST(TimelineTrace, CollectiveSlicesSplitWaitAndTransfer) {
  const Scenario s = parse_scenario(
      "model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 32\n"
      "parallel: {tp: 2, pp: 4, zero_stage: 1, schedule: 1f1b}\n"
      "training: {global_batch: 32, micro_batch: 1, seq_len: 2048, precision: bf16, recompute: none}\n",
      "s.yaml", *frozen());
  sim::SimOptions o;
  o.record_timeline = true;
  o.stragglers = {{9, 1.3}};
  const sim::SimResult r = sim::simulate(s, o);
  const Result res = sim::to_result(r, s);
  const Table* comm = res.table("communication");
  ASSERT_NE(comm, nullptr);
  const auto j = nlohmann::json::parse(r.timeline_json);
  std::map<std::pair<int, std::string>, int64_t> transfer_ns, wait_ns;
  std::map<std::pair<int, std::string>, int> slices;
  int collectives = 0;
  for (const auto& ev : j["traceEvents"]) {
    if (ev["ph"] != "X") continue;
    const auto& a = ev["args"];
    const std::string cat = ev["cat"];
    const bool collective = ev["tid"].get<int>() % 16 >= 1 && ev["tid"].get<int>() % 16 <= 7;
    EXPECT_EQ(a.contains("wait_us"), collective) << ev.dump();
    EXPECT_EQ(a.contains("transfer_us"), collective) << ev.dump();
    if (!collective) continue;
    ++collectives;
    const int64_t w = ns_of_us(a["wait_us"]), t = ns_of_us(a["transfer_us"]);
    EXPECT_GE(w, 0);
    EXPECT_GE(t, 0);
    EXPECT_EQ(w + t, ns_of_us(ev["dur"])) << ev.dump();  // the slice is the wait, then the transfer
    const std::pair<int, std::string> key{ev["pid"].get<int>(), cat};
    transfer_ns[key] += t;
    wait_ns[key] += w;
    ++slices[key];
  }
  ASSERT_GT(collectives, 100);
  // The critical unit's transfers per group are its communication table's totals (each slice
  // rounded to whole nanoseconds).
  int compared = 0;
  for (size_t i = 0; i < comm->rows(); ++i) {
    const std::string& g = comm->column("group").str[i];
    if (g == "pp") continue;  // sends: slices of their own, no rendezvous
    const std::pair<int, std::string> key{r.critical_unit, g};
    SCOPED_TRACE(g);
    ASSERT_GT(slices[key], 0);
    EXPECT_NEAR(static_cast<double>(transfer_ns[key]) * 1e-9, comm->column("total_s").f64[i], slices[key] * 1e-9 + 1e-9);
    ++compared;
  }
  EXPECT_GE(compared, 2);  // tp and dp
  // The straggler's data-parallel peers wait for it (about 9 ms beside 16 ms of transfers for
  // unit 0 here), while the straggler's own class does not.
  int waited = 0, not_waited = 0;
  for (const auto& [key, w] : wait_ns)
    if (key.second == "dp") {
      waited += w > transfer_ns[key] / 4;
      not_waited += w == 0;
    }
  EXPECT_GT(waited, 0);
  EXPECT_GT(not_waited, 0);
}

// Every flow starts, as it ends, strictly inside its slice: its "s" 1 ns into its send. Written
// at the send's start, it coincided with the end of the send before it on the lane whenever
// sends ran back to back (43 of the 112 flows here), and bound by
// the order a viewer reads same-timestamp events.
TEST(TimelineTrace, FlowsStartInsideTheirSend) {
  const Scenario s = parse_scenario(
      "model: gpt3-1.3b\nsystem: {id: slow, name: slow, accelerator: h100-sxm-80gb, gpus_per_node: 1, scale_up: {network: nvlink4, "
      "domain_gpus: 1}, scale_out: {network: ib-ndr, nics_per_node: 1, nic_bandwidth_gbit_per_s: {value: 10, estimated: test}, "
      "topology: fat-tree, oversubscription: 1}}\nnum_gpus: 4\nparallel: {tp: 1, pp: 4, vpp: 2, schedule: interleaved-1f1b}\n"
      "training: {global_batch: 8, micro_batch: 1, seq_len: 2048}\n",
      "s.yaml", *frozen());
  sim::SimOptions o;
  o.record_timeline = true;
  const sim::SimResult r = sim::simulate(s, o);
  const auto j = nlohmann::json::parse(r.timeline_json);
  std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>> slices;  // (pid, tid) -> [start, end) ns
  for (const auto& ev : j["traceEvents"])
    if (ev["ph"] == "X") {
      const int64_t a = ns_of_us(ev["ts"]);
      slices[{ev["pid"].get<int>(), ev["tid"].get<int>()}].emplace_back(a, a + ns_of_us(ev["dur"]));
    }
  int flows = 0, inside = 0, after_a_send = 0;
  for (const auto& ev : j["traceEvents"]) {
    if (ev["ph"] != "s") continue;
    ++flows;
    const int64_t t = ns_of_us(ev["ts"]);
    const auto& track = slices[{ev["pid"].get<int>(), ev["tid"].get<int>()}];
    bool in = false, on_edge = false;
    for (const auto& [a, b] : track) {
      in = in || (a < t && t < b);
      on_edge = on_edge || a == t || b == t;
      // The send this flow belongs to started 1 ns earlier where another send had ended.
      if (b == t - 1)
        for (const auto& [c, d] : track) after_a_send += c == t - 1 && d > c;
    }
    EXPECT_TRUE(in) << ev.dump();
    EXPECT_FALSE(on_edge) << ev.dump();
    inside += in && !on_edge;
  }
  EXPECT_GT(flows, 50);
  EXPECT_EQ(inside, flows);
  EXPECT_GT(after_a_send, 0);  // the case of the review: sends back to back on one lane
}

// A range of --timeline-ranks reaching past the job is named as given with the part outside and
// the valid ranks ("0-40" on 32 ranks had read "rank 32 is outside the job"); a single rank keeps
// its message.
TEST(TimelineRanks, ARangeOutsideTheJobIsNamed) {
  const Scenario s = parse_scenario(
      "model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 32\nparallel: {tp: 2, pp: 4}\n"
      "training: {global_batch: 32, micro_batch: 1, seq_len: 2048}\n",
      "s.yaml", *frozen());
  auto message = [&](std::vector<int64_t> ranks) -> std::string {
    sim::SimOptions o;
    o.timeline_ranks = std::move(ranks);
    try {
      sim::simulate(s, o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return "";
  };
  std::vector<int64_t> range;
  for (int64_t r = 0; r <= 40; ++r) range.push_back(r);
  std::string m = message(range);
  EXPECT_NE(m.find("ranks 0-40 include ranks outside the job: 32-40"), std::string::npos) << m;
  EXPECT_NE(m.find("valid: 0..31"), std::string::npos) << m;
  m = message({3, 31, 32});  // 31, 32 consecutive: a run
  EXPECT_NE(m.find("ranks 31-32 include ranks outside the job: 32"), std::string::npos) << m;
  m = message({3, 40});
  EXPECT_NE(m.find("rank 40 is outside the job"), std::string::npos) << m;
  m = message({-2, -1, 0});
  EXPECT_NE(m.find("ranks -2-0 include ranks outside the job: -2--1"), std::string::npos) << m;
}
