#include "catalog/device_name.hpp"

#include <algorithm>
#include <cctype>

#include "catalog/catalog.hpp"

namespace sextant {

std::set<std::string> name_tokens(const std::string& s) {
  std::set<std::string> out;
  std::string cur;
  for (char ch : s + " ") {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!cur.empty()) {
      out.insert(cur);
      cur.clear();
    }
  }
  return out;
}

namespace {
// "80gb", "141gb", "96g": digits then a memory unit. Before 2026-12-06 (review) any token holding
// "gb" was taken for one, and "NVIDIA GB200" had no model token: nothing matched it.
bool is_memory_size(const std::string& t) {
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  const std::string unit = t.substr(i);
  return i > 0 && (unit == "gb" || unit == "g" || unit == "gib");
}
}  // namespace

std::string device_model_token(const std::set<std::string>& dev_tokens) {
  for (const auto& t : dev_tokens)
    if (std::any_of(t.begin(), t.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }) &&
        std::any_of(t.begin(), t.end(), [](unsigned char ch) { return std::isalpha(ch) != 0; }) && t.size() <= 6 &&
        !is_memory_size(t))
      return t;
  return "";
}

namespace {
// A form factor the name does not state is not this part: "NVIDIA H100 80GB HBM3" (what an H100
// SXM reports) tied the PCIe entry, listed first, and the roofline took its 756 TFLOP/s (before
// 2026-12-03); "NVIDIA H100 PCIe" states its own. The count of form factors only one side states,
// the entry's read from its id (h100-pcie-80gb, h100-nvl-94gb): the descriptive name of a part
// that only comes as a card ("NVIDIA L40S (PCIe, 48 GB GDDR6)") had refused the device's own
// "NVIDIA L40S", as it had "NVIDIA H100 NVL" its entry named "(PCIe, ...)" (2026-12-06 review).
int form_factor_mismatches(const std::set<std::string>& entry_id_tokens, const std::set<std::string>& dev_tokens) {
  int n = 0;
  for (const char* form : {"pcie", "nvl"})
    if (entry_id_tokens.count(form) != dev_tokens.count(form)) ++n;
  return n;
}
}  // namespace

bool device_name_fits(const Accelerator& a, const std::string& device_name) {
  const auto dt = name_tokens(device_name);
  const std::string model = device_model_token(dt);
  const auto ct = name_tokens(a.name + " " + a.id);
  return !model.empty() && ct.count(model) && form_factor_mismatches(name_tokens(a.id), dt) == 0;
}

std::string match_device(const Catalog& cat, const std::string& dev, std::string& note) {
  const auto dt = name_tokens(dev);
  const std::string model = device_model_token(dt);
  std::string best;
  int best_score = 0, ties = 0;
  for (const auto& id : cat.accelerator_ids()) {
    const auto& a = cat.accelerator(id);
    const auto ct = name_tokens(a.name + " " + id);
    if (model.empty() || !ct.count(model)) continue;
    int score = 0;
    for (const auto& t : dt) score += ct.count(t) ? 1 : 0;
    score -= 2 * form_factor_mismatches(name_tokens(id), dt);
    if (score > best_score) {
      best_score = score;
      best = id;
      ties = 0;
    } else if (score == best_score) {
      ++ties;
    }
  }
  if (!best.empty() && ties > 0) note = "'" + dev + "' matched " + best + " among " + std::to_string(ties + 1) + " equally good catalog entries";
  return best;
}

}  // namespace sextant
