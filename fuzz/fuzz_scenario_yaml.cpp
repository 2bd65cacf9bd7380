// Scenario YAML (docs/scenario.md): parse against the bundled catalog, then the plan checks.
// Seeds: data/examples/*.yaml, tests/golden/scenarios/*.yaml.
#include <memory>

#include "catalog/catalog.hpp"
#include "fuzz/fuzz_common.hpp"
#include "scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<const sextant::Catalog> cat = sextant::Catalog::load_default();
  const std::string text(reinterpret_cast<const char*>(data), size);
  sextant::fuzz::expect_ok_or_error([&] {
    auto s = sextant::parse_scenario(text, "fuzz.yaml", *cat);
    sextant::check_plan(s);
    (void)s.stage_layout();
    (void)s.num_microbatches();
  });
  return 0;
}
