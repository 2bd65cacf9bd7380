// Questions: is the GEMM operand-traffic term (gemm_operand_traffic_s) the closed form the catalog
// documents (no traffic while the footprint is within the fitted one or in the same memory level,
// F x (1/bw(F) - 1/bw(F_fit)) beyond), and does the loader read bandwidth_by_working_set and
// efficiency.gemm_fitted_footprint_mib strictly (errors naming file, line and key)?
#include <gtest/gtest.h>

#include "catalog/catalog.hpp"
#include "catalog_test_util.hpp"

using namespace sextant;
using namespace catalog_test;

namespace {
constexpr double KiB = 1024, MiB = 1024 * 1024;

// A sweep shaped like a CPU's: L1/L2 fast, a last-level plateau, DRAM beyond 16 MiB.
std::vector<WorkingSetBandwidth> table() {
  return {{32 * KiB, 95e9}, {512 * KiB, 75e9}, {4 * MiB, 65e9}, {8 * MiB, 58e9}, {16 * MiB, 27e9}, {32 * MiB, 13e9}, {128 * MiB, 12.5e9}};
}

std::string entry_yaml(const std::string& top, const std::string& efficiency) {
  return "sources:\n  ds: \"a datasheet\"\n  run: \"a bench run\"\nentries:\n  - id: host\n    name: Host\n    vendor: test\n"
         "    kind: cpu\n    peak_tflops:\n      fp64: {value: 0.04, source: ds}\n" +
         top + "    efficiency:\n      gemm_peak_fraction:\n        fp64: {value: 0.9, source: run}\n" + efficiency;
}
const std::string kTable =
    "    bandwidth_by_working_set:\n      source: run\n      points:\n"
    "        - {working_set_kib: 32, gb_per_s: 95}\n        - {working_set_kib: 8192, gb_per_s: 58}\n"
    "        - {working_set_kib: 131072, gb_per_s: 12.5}\n";
const std::string kFootprint = "      gemm_fitted_footprint_mib: {value: 6, source: run}\n";

std::string load_error(const std::string& text) {
  TempDir d("operand-traffic");
  d.write("accelerators/a.yaml", text);
  try {
    Catalog::load(d.path.string());
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}
}  // namespace

TEST(OperandTraffic, BandwidthIsTheSmallestTabulatedWorkingSetHoldingTheFootprint) {
  const auto t = table();
  EXPECT_EQ(bandwidth_at_working_set(t, 1), 95e9);             // below the table: its first level
  EXPECT_EQ(bandwidth_at_working_set(t, 32 * KiB), 95e9);      // exactly a row: that row
  EXPECT_EQ(bandwidth_at_working_set(t, 32 * KiB + 1), 75e9);  // just above: the next level
  EXPECT_EQ(bandwidth_at_working_set(t, 20 * MiB), 13e9);
  EXPECT_EQ(bandwidth_at_working_set(t, 1e12), 12.5e9);        // beyond the table: its last row
}

// Question (review of 2026-12-07): does a table that rises with the noise of its repetitions (a
// hand-written one, or one calibrated before calibrate wrote the envelope) read as its
// non-increasing envelope, so that a GEMM twice as large never gets less traffic time?
TEST(OperandTraffic, ARisingTableReadsAsItsRunningMinimum) {
  const std::vector<WorkingSetBandwidth> t = {{512 * KiB, 150e9}, {1 * MiB, 45e9}, {2 * MiB, 78e9}, {64 * MiB, 23.6e9}, {128 * MiB, 27.1e9}};
  EXPECT_EQ(bandwidth_at_working_set(t, 2 * MiB), 45e9);     // not the 78 measured
  EXPECT_EQ(bandwidth_at_working_set(t, 100 * MiB), 23.6e9);  // not the 27.1 measured at 128 MiB
  EXPECT_EQ(bandwidth_at_working_set(t, 1e12), 23.6e9);
  EXPECT_EQ(bandwidth_at_working_set(t, 512 * KiB), 150e9);
  double last = 0;
  for (double n = 256; n <= 32768; n *= 1.25) {
    const double s = gemm_operand_traffic_s(1024, n, 1024, 4, t, 512 * KiB);
    EXPECT_GE(s, last) << n;
    last = s;
  }
}

TEST(OperandTraffic, NoPenaltyForAFootprintInTheFittedLevel) {
  const auto t = table();
  const double fit = 6.3 * MiB;  // e.g. 512^3 fp64
  // Within the fitted footprint: 0 (512x32x512 fp64 is 2.4 MiB).
  EXPECT_EQ(gemm_operand_traffic_s(512, 32, 512, 8, t, fit), 0.0);
  EXPECT_EQ(gemm_operand_traffic_s(512, 512, 512, 8, t, gemm_footprint_bytes(512, 512, 512, 8)), 0.0);
  // Larger than the fitted footprint but in the same level (<= 8 MiB, like the fitted one): 0.
  const double same_level = gemm_footprint_bytes(600, 64, 1000, 8);  // 5.4 MiB
  ASSERT_GT(same_level, 5 * MiB);
  ASSERT_LE(same_level, 8 * MiB);
  EXPECT_EQ(gemm_operand_traffic_s(600, 64, 1000, 8, t, 5 * MiB), 0.0);
}

TEST(OperandTraffic, ADramResidentOperandIsReStreamedAtDramBandwidth) {
  const auto t = table();
  const double fit = 6.3 * MiB;  // level: 8 MiB row, 58 GB/s
  // 3072x48x3072 fp64: F = (3072*3072 + 3072*48 + 3072*48) x 8 bytes = 76.7 MB, in the 128 MiB
  // (DRAM) row: F / 12.5 GB/s - F / 58 GB/s.
  const double f = (3072.0 * 3072 + 3072.0 * 48 * 2) * 8;
  EXPECT_DOUBLE_EQ(gemm_footprint_bytes(3072, 48, 3072, 8), f);
  EXPECT_NEAR(gemm_operand_traffic_s(3072, 48, 3072, 8, t, fit), f / 12.5e9 - f / 58e9, 1e-15);
  // 1536x48x1536 fp64 (20.1 MB): the 32 MiB row (13 GB/s).
  const double g = (1536.0 * 1536 + 1536.0 * 48 * 2) * 8;
  EXPECT_NEAR(gemm_operand_traffic_s(1536, 48, 1536, 8, t, fit), g / 13e9 - g / 58e9, 1e-15);
  // The roles do not matter (each operand streamed once): m and n swapped, same traffic.
  EXPECT_EQ(gemm_operand_traffic_s(48, 1536, 1536, 8, t, fit), gemm_operand_traffic_s(1536, 48, 1536, 8, t, fit));
  // The element size scales the footprint: fp32 halves it (10 MB: the 16 MiB row, 27 GB/s).
  const double h = g / 2;
  EXPECT_NEAR(gemm_operand_traffic_s(1536, 48, 1536, 4, t, fit), h / 27e9 - h / 58e9, 1e-15);
  // A reference already in DRAM (a fit over DRAM-sized shapes): nothing beyond it.
  EXPECT_EQ(gemm_operand_traffic_s(3072, 48, 3072, 8, t, 100 * MiB), 0.0);
}

TEST(OperandTraffic, LoaderReadsTheTableAndTheFittedFootprint) {
  TempDir d("operand-traffic-ok");
  d.write("accelerators/a.yaml", entry_yaml(kTable, kFootprint));
  const auto c = Catalog::load(d.path.string());
  const Accelerator& a = c->accelerator("host");
  ASSERT_TRUE(a.bandwidth_by_working_set.known());
  ASSERT_EQ(a.bandwidth_by_working_set.points.size(), 3u);
  EXPECT_EQ(a.bandwidth_by_working_set.points[0].working_set_bytes, 32 * KiB);
  EXPECT_EQ(a.bandwidth_by_working_set.points[0].bytes_per_s, 95e9);
  EXPECT_EQ(a.bandwidth_by_working_set.points[2].working_set_bytes, 128 * MiB);
  EXPECT_EQ(a.bandwidth_by_working_set.points[2].bytes_per_s, 12.5e9);
  EXPECT_EQ(a.bandwidth_by_working_set.source, "run: a bench run");  // citation resolved as for every number
  EXPECT_TRUE(a.gemm_fitted_footprint_bytes.known);
  EXPECT_EQ(a.gemm_fitted_footprint_bytes.value, 6 * MiB);
  EXPECT_EQ(a.gemm_fitted_footprint_bytes.source, "run: a bench run");
  // Entries without the keys: no table, no footprint (and no traffic term in estimate).
  TempDir e("operand-traffic-none");
  e.write("accelerators/a.yaml", entry_yaml("", ""));
  const auto cat_none = Catalog::load(e.path.string());  // keep the catalog alive while `b` is read
  const Accelerator& b = cat_none->accelerator("host");
  EXPECT_FALSE(b.bandwidth_by_working_set.known());
  EXPECT_FALSE(b.gemm_fitted_footprint_bytes.known);
}

TEST(OperandTraffic, LoaderRejectsInvalidKeysNamingFileLineAndKey) {
  struct Case {
    std::string top, efficiency, key, message;
  };
  const std::string head = "    bandwidth_by_working_set:\n      source: run\n      points:\n";
  const std::vector<Case> cases = {
      // unknown key in a point, in the table, and a misspelt footprint key
      {head + "        - {working_set_kib: 32, gbps: 95}\n        - {working_set_kib: 64, gb_per_s: 90}\n", kFootprint, "gbps", ""},
      {head + "        - {working_set_kib: 32, gb_per_s: 95}\n        - {working_set_kib: 64, gb_per_s: 90}\n      level: L1\n",
       kFootprint, "level", ""},
      {kTable, "      gemm_fitted_footprint_kib: {value: 6, source: run}\n", "gemm_fitted_footprint_kib", ""},
      // invalid values
      {head + "        - {working_set_kib: 64, gb_per_s: 95}\n        - {working_set_kib: 64, gb_per_s: 90}\n", kFootprint,
       "working_set_kib", "strictly increasing"},
      {head + "        - {working_set_kib: 0, gb_per_s: 95}\n        - {working_set_kib: 64, gb_per_s: 90}\n", kFootprint,
       "working_set_kib", "> 0"},
      {head + "        - {working_set_kib: 32, gb_per_s: 95}\n        - {working_set_kib: 64, gb_per_s: -1}\n", kFootprint, "gb_per_s",
       "> 0"},
      {head + "        - {working_set_kib: 32, gb_per_s: 95}\n", kFootprint, "points", "at least two"},
      {"    bandwidth_by_working_set:\n      points:\n        - {working_set_kib: 32, gb_per_s: 95}\n"
       "        - {working_set_kib: 64, gb_per_s: 90}\n",
       kFootprint, "source", "provenance"},
      {kTable, "      gemm_fitted_footprint_mib: {value: 0, source: run}\n", "gemm_fitted_footprint_mib", "> 0"},
      {kTable, "      gemm_fitted_footprint_mib: 6\n", "gemm_fitted_footprint_mib", "provenance"},
      // one without the other
      {kTable, "", "gemm_fitted_footprint_mib", "give both or neither"},
      {"", kFootprint, "gemm_fitted_footprint_mib", "give both or neither"},
  };
  for (const auto& c : cases) {
    const std::string what = load_error(entry_yaml(c.top, c.efficiency));
    ASSERT_FALSE(what.empty()) << c.key << " was accepted";
    EXPECT_NE(what.find("a.yaml:"), std::string::npos) << what;  // file and line
    EXPECT_NE(what.find(c.key), std::string::npos) << what;
    if (!c.message.empty()) {
      EXPECT_NE(what.find(c.message), std::string::npos) << what;
    }
  }
  // The table without an efficiency block at all.
  const std::string what = load_error(
      "sources: {}\nentries:\n  - id: host\n    name: Host\n    vendor: test\n    kind: cpu\n" + kTable);
  EXPECT_NE(what.find("bandwidth_by_working_set"), std::string::npos) << what;
  EXPECT_NE(what.find("give both or neither"), std::string::npos) << what;
}
