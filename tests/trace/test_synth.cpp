// Questions: is `trace synth` deterministic (same seed, same bytes, whatever the threads), near
// the requested size, and does it inject stragglers where asked?
#include <gtest/gtest.h>

#include "test_temp.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "trace/synth.hpp"

using namespace sextant::trace;

TEST(Synth, DeterministicAndIndependentOfThreads) {
  SynthOptions o;
  o.ranks = 3;
  o.steps = 2;
  auto dir = std::filesystem::path(sextant::test_temp::path("sextant_synth_det"));
  std::filesystem::remove_all(dir);
  write_synthetic_traces((dir / "a").string(), o, 1);
  write_synthetic_traces((dir / "b").string(), o, 3);
  for (int r = 0; r < 3; ++r) {
    auto slurp = [](const std::filesystem::path& p) {
      std::ifstream f(p);
      std::stringstream ss;
      ss << f.rdbuf();
      return ss.str();
    };
    std::string name = "rank-" + std::to_string(r) + ".json";
    EXPECT_EQ(slurp(dir / "a" / name), slurp(dir / "b" / name));
    EXPECT_EQ(slurp(dir / "a" / name), synth_rank_json(o, r));
  }
  std::filesystem::remove_all(dir);
}

TEST(Synth, SizeTargetWithinTenPercent) {
  SynthOptions o;
  o.ranks = 1;
  o.target_bytes_per_rank = 3e6;
  std::string s = synth_rank_json(o, 0);
  EXPECT_NEAR(static_cast<double>(s.size()), 3e6, 0.1 * 3e6);
}
