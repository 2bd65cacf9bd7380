// Question: does the MPI suite, launched through mpirun with 2 ranks, give validated collectives
// with the nccl-tests bus factors? Slow tier: mpirun start-up takes seconds on a busy machine.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/suite.hpp"

using namespace sextant::bench;
namespace fs = std::filesystem;

TEST(MpiSuite, TwoRanksGiveCorrectCollectivesInNcclLayout) {
  SuiteConfig c;
  c.quick = true;
  c.repetition_count = 3;
  c.warmup_count = 1;
  c.host = detect_host();
  c.mpi_helper = std::string(SEXTANT_BINARY_DIR) + "/sextant-mpi-bench";
  if (!fs::exists(c.mpi_helper)) GTEST_SKIP() << "sextant-mpi-bench not built (no MPI at configure time)";
  const SuiteOutput out = make_mpi_suite()->run(c);
  if (out.measurements.empty()) GTEST_SKIP() << out.notes.front();
  int pingpong = 0, collectives = 0;
  for (const auto& m : out.measurements) {
    EXPECT_EQ(m.param("ranks"), "2");
    EXPECT_EQ(m.samples.size(), 3u);
    if (m.param("collective") == "pingpong") {
      ++pingpong;
      EXPECT_GT(m.summary().median, 1e-8);
    } else {
      ++collectives;
      EXPECT_EQ(m.param("wrong"), "0") << m.name << ": validation failed";
      // 2 ranks: all_reduce factor 2(n-1)/n = 1, the others (n-1)/n = 1/2.
      EXPECT_EQ(m.param("bus_factor"), m.param("collective") == "all_reduce" ? "1" : "0.5");
    }
  }
  EXPECT_GE(pingpong, 3);
  EXPECT_EQ(collectives, 4 * 3);  // 4 collectives x quick sizes 1 KiB, 32 KiB, 1 MiB
  ASSERT_EQ(out.text_blocks.size(), 1u);
  EXPECT_NE(out.text_blocks[0].second.find("out-of-place"), std::string::npos);
}
