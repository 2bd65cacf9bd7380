// Question: is an entry given twice in a list of runs of a study (plan.tp, plan.accelerators,
// plan.max_batch_seqs, plan.policies, sweep.load_fractions, sweep.rates_per_s) refused, naming the
// file, line, key, value and both positions, rather than run and listed twice (review of 2026-12-06)?
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "core/error.hpp"
#include "infer/config.hpp"

using namespace sextant;
using namespace sextant::infer;
using namespace sextant::infer::fixtures;

namespace {
const std::string kHead =
    "deployment: {model: llama3.1-8b, accelerator: h100-sxm-80gb, engine: vllm}\n"
    "workload: {arrival: poisson, rate_per_s: 2, requests: 50}\n"
    "slo: {ttft_s: 2.0, tpot_s: 0.08}\n";

std::string error_of(const std::string& text, const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  try {
    (void)parse_study(text, "s.yaml", catalog(), infer_data(), sets);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(StudyLists, AnEntryGivenTwiceIsRefusedAtItsLine) {
  // In the file: the second entry's line and column, the value, and both positions.
  const std::string tp = error_of(kHead + "plan:\n  tp: [2, 4, 2]\n");
  EXPECT_NE(tp.find("s.yaml:5:14: key 'plan.tp': duplicate entry 2: entries 1 and 3 of the list are the same (at line 5, column 8 and line 5, column 14)"),
            std::string::npos) << tp;
  const std::string acc = error_of(kHead + "plan:\n  accelerators:\n    - h100-sxm-80gb\n    - h100-sxm-80gb\n");
  EXPECT_NE(acc.find("s.yaml:7:7: key 'plan.accelerators': duplicate entry 'h100-sxm-80gb': entries 1 and 2"), std::string::npos) << acc;
  EXPECT_NE(acc.find("(at line 6, column 7 and line 7, column 7)"), std::string::npos) << acc;
  const std::string mbs = error_of(kHead + "plan: {max_batch_seqs: [128, 128]}\n");
  EXPECT_NE(mbs.find("key 'plan.max_batch_seqs': duplicate entry 128: entries 1 and 2"), std::string::npos) << mbs;
  const std::string pol = error_of(kHead + "plan: {policies: [continuous, static, continuous]}\n");
  EXPECT_NE(pol.find("key 'plan.policies': duplicate entry 'continuous': entries 1 and 3"), std::string::npos) << pol;
  // A number written two ways is one value.
  const std::string lf = error_of(kHead + "sweep: {load_fractions: [0.5, 0.50]}\n");
  EXPECT_NE(lf.find("key 'sweep.load_fractions': duplicate entry 0.5: entries 1 and 2"), std::string::npos) << lf;
  const std::string rates = error_of(kHead + "sweep: {rates_per_s: [1, 3, 1e0]}\n");
  EXPECT_NE(rates.find("key 'sweep.rates_per_s': duplicate entry 1: entries 1 and 3"), std::string::npos) << rates;
  // By --set: the file (--set), without lines.
  const std::string set = error_of(kHead + "plan: {tp: [1]}\n", {{"plan.tp", "[2,2]"}});
  EXPECT_NE(set.find("s.yaml (--set): key 'plan.tp': duplicate entry 2: entries 1 and 2 of the list are the same (each entry"),
            std::string::npos) << set;
  // An invalid entry is named before its duplicate.
  EXPECT_NE(error_of(kHead + "plan: {tp: [0, 0]}\n").find("entries must be >= 1"), std::string::npos);
  // Distinct entries are read as given.
  EXPECT_EQ(error_of(kHead + "plan: {tp: [1, 2], accelerators: [h100-sxm-80gb, h200-sxm-141gb]}\n"), "");
  EXPECT_EQ(error_of(kHead + "sweep: {load_fractions: [0.5, 0.8]}\n"), "");
}
