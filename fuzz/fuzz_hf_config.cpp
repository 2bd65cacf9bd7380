// Hugging Face config.json -> ModelConfig (then the derived counts the estimators use).
// Seeds: the config.json files under tests/data/catalog.
#include "catalog/catalog.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  sextant::fuzz::expect_ok_or_error([&] {
    auto m = sextant::parse_hf_config(text, "config.json");
    (void)m.params_total();
    (void)m.params_active();
  });
  return 0;
}
