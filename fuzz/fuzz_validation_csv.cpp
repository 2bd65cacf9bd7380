// Validation CSVs: the RFC-4180 reader, typed cells, and every row of a training-schema CSV
// turned into a scenario and checked (what `sextant validate` does before estimating).
// Seeds: data/validation/*.csv.
#include <memory>

#include "catalog/catalog.hpp"
#include "core/csv.hpp"
#include "fuzz/fuzz_common.hpp"
#include "scenario/scenario.hpp"
#include "validate/training_validation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<const sextant::Catalog> cat = sextant::Catalog::load_default();
  const std::string text(reinterpret_cast<const char*>(data), size);
  sextant::fuzz::expect_ok_or_error([&] {
    auto t = sextant::CsvTable::parse(text, "fuzz.csv");
    for (size_t r = 0; r < t.rows() && r < 16; ++r)
      for (const auto& h : t.header()) {
        sextant::fuzz::expect_ok_or_error([&] { (void)t.f64(r, h, 0.0); });
        sextant::fuzz::expect_ok_or_error([&] { (void)t.i64(r, h, 0); });
      }
    if (!sextant::looks_like_training_csv(t.header())) return;
    for (size_t r = 0; r < t.rows() && r < 16; ++r) {
      sextant::fuzz::expect_ok_or_error([&] {
        auto s = sextant::scenario_from_training_row(t, r, *cat);
        sextant::check_plan(s);
      });
    }
  });
  return 0;
}
