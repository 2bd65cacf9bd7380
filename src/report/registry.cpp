#include "report/registry.hpp"

namespace sextant::report {

void RendererRegistry::add(const std::string& command, Renderer r) {
  for (auto& [k, v] : entries_)
    if (k == command) {
      v = std::move(r);
      return;
    }
  entries_.emplace_back(command, std::move(r));
}

const Renderer* RendererRegistry::find(const std::string& command) const {
  const Renderer* best = nullptr;
  size_t best_len = 0;
  for (const auto& [k, v] : entries_) {
    if (k == command) return &v;
    if (command.size() > k.size() && command.compare(0, k.size(), k) == 0 && command[k.size()] == ' ' &&
        k.size() > best_len) {
      best = &v;
      best_len = k.size();
    }
  }
  return best;
}

std::vector<std::string> RendererRegistry::commands() const {
  std::vector<std::string> out;
  for (const auto& [k, _] : entries_) out.push_back(k);
  return out;
}

void render_generic(const Result& r, ReportPage& page) {
  for (const auto& t : r.tables) add_generic_table_charts(t, page);
}

RendererRegistry make_renderer_registry() {
  RendererRegistry r;
  register_estimate_renderers(r);
  register_analyze_renderers(r);
  register_goodput_renderers(r);
  register_infer_renderers(r);
  register_plan_renderers(r);
  register_simulate_renderers(r);
  register_history_renderers(r);
  register_validate_renderers(r);
  return r;
}

}  // namespace sextant::report
