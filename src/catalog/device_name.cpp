#include "catalog/device_name.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

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
// The memory sizes (GB as the name states them) among a name's tokens.
std::vector<double> memory_sizes(const std::set<std::string>& tokens) {
  std::vector<double> out;
  for (const auto& t : tokens)
    if (is_memory_size(t)) out.push_back(std::stod(t));
  return out;
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
// A memory size the name states that the entry does not have is another part too, counted the
// same way: the entry's sizes are those its id and name state and its memory_gib, equal within
// 5% (80GB against 79.2 GiB). Before 2026-12-07 (review) an "NVIDIA A100-SXM4-80GB" trace was
// calibrated as a100-sxm-40gb (its 40 GiB and 1555 GB/s written) where --device a100-pcie-80gb
// was refused for its form factor.
int part_mismatches(const Accelerator& a, const std::set<std::string>& dev_tokens) {
  int n = 0;
  const auto id_tokens = name_tokens(a.id);
  for (const char* form : {"pcie", "nvl"})
    if (id_tokens.count(form) != dev_tokens.count(form)) ++n;
  const auto dev_sizes = memory_sizes(dev_tokens);
  if (!dev_sizes.empty()) {
    std::vector<double> entry_sizes = memory_sizes(name_tokens(a.name + " " + a.id));
    if (a.memory_bytes.known) entry_sizes.push_back(a.memory_bytes.value / (1024.0 * 1024 * 1024));
    auto same = [](double x, double y) { return std::abs(x - y) <= 0.05 * std::max(x, y); };
    const bool any_equal = std::any_of(dev_sizes.begin(), dev_sizes.end(), [&](double d) {
      return std::any_of(entry_sizes.begin(), entry_sizes.end(), [&](double e) { return same(d, e); });
    });
    if (!entry_sizes.empty() && !any_equal) ++n;
  }
  return n;
}
}  // namespace

bool device_name_fits(const Accelerator& a, const std::string& device_name) {
  const auto dt = name_tokens(device_name);
  const std::string model = device_model_token(dt);
  const auto ct = name_tokens(a.name + " " + a.id);
  return !model.empty() && ct.count(model) && part_mismatches(a, dt) == 0;
}

std::string match_device(const Catalog& cat, const std::string& dev, std::string& note) {
  const auto dt = name_tokens(dev);
  const std::string model = device_model_token(dt);
  std::string best;
  int best_score = 0, ties = 0;
  for (const auto& id : cat.accelerator_ids()) {
    const auto& a = cat.accelerator(id);
    const auto ct = name_tokens(a.name + " " + id);
    // Only an entry that can be this GPU (device_name_fits). A form factor or memory size the
    // name states that the entry does not have had cost 2 of the score and no more, so "NVIDIA
    // A100-SXM-64GB" tied a100-sxm-40gb with -80gb and took the first, 40 GiB and 1555 GB/s
    // written with no word (2026-12-07 review): a part the catalog lacks now matches nothing.
    if (model.empty() || !ct.count(model) || part_mismatches(a, dt) != 0) continue;
    int score = 0;
    for (const auto& t : dt) score += ct.count(t) ? 1 : 0;
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

std::vector<std::string> entries_of_model(const Catalog& cat, const std::string& device_name) {
  const std::string model = device_model_token(name_tokens(device_name));
  std::vector<std::string> out;
  if (model.empty()) return out;
  for (const auto& id : cat.accelerator_ids())
    if (name_tokens(cat.accelerator(id).name + " " + id).count(model)) out.push_back(id);
  return out;
}

std::vector<std::string> accelerator_ids_like(const Catalog& cat, const std::string& device_name) {
  const auto dt = name_tokens(device_name);
  auto share = [](const std::string& d, const std::string& e) {
    if (d == e) return 2;
    // A word typed short of an id's ("mi300" of "mi300x"), not an entry's token short of the
    // device's ("h20" of "h200": another GPU).
    return d.size() >= 3 && d.size() < e.size() && e.compare(0, d.size(), d) == 0 ? 1 : 0;
  };
  std::vector<std::pair<int, std::string>> scored;
  for (const auto& id : cat.accelerator_ids()) {
    const auto& a = cat.accelerator(id);
    const auto ct = name_tokens(a.name + " " + id + " " + a.vendor);
    int score = 0;
    for (const auto& d : dt) {
      int best = 0;
      for (const auto& e : ct) best = std::max(best, share(d, e));
      score += best;
    }
    scored.push_back({score, id});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<std::string> out;
  for (auto& [score, id] : scored) out.push_back(std::move(id));
  return out;
}

}  // namespace sextant
