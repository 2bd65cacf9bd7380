// Goodput incident CSV (time_h,category[,component][,node_lost]) -> fitted failure processes.
// Seeds: tests/data/fuzz-seeds/incidents*.csv (written by scripts/fuzz.sh).
#include "fuzz/fuzz_common.hpp"
#include "goodput/fit.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  sextant::fuzz::expect_ok_or_error([&] { (void)sextant::goodput::fit_incidents(text, "incidents.csv", 100, 30); });
  return 0;
}
