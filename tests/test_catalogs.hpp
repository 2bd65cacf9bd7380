#pragma once
// The two catalogs tests read, each loaded once per test program: the frozen test catalog
// (tests/data/catalog-frozen: tests that pin exact figures, untouched by calibration) and the
// bundled one (data/catalog: tests of today's data, e.g. frameworks and validation).
#include <memory>
#include <string>

#include "catalog/catalog.hpp"

namespace sextant::test_catalogs {
inline std::shared_ptr<const Catalog> frozen() {
  static const auto c = Catalog::load(std::string(SEXTANT_SOURCE_DIR) + "/tests/data/catalog-frozen");
  return c;
}
inline std::shared_ptr<const Catalog> bundled() {
  static const auto c = Catalog::load(std::string(SEXTANT_SOURCE_DIR) + "/data/catalog");
  return c;
}
}  // namespace sextant::test_catalogs
