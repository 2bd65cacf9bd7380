#pragma once
// Renderers by command. Each command kind has one small file under renderers/ that registers its
// renderer(s) in make_renderer_registry(); a Result whose command has no renderer gets the generic
// one (every table charted by add_generic_table_charts, every table as a sortable HTML table).
#include <string>
#include <vector>

#include "report/page.hpp"

namespace sextant::report {

class RendererRegistry {
 public:
  void add(const std::string& command, Renderer r);
  // Renderer of command: exact match, else the longest registered prefix followed by a space
  // ("infer" serves "infer foo"), else nullptr.
  const Renderer* find(const std::string& command) const;
  std::vector<std::string> commands() const;

 private:
  std::vector<std::pair<std::string, Renderer>> entries_;
};

RendererRegistry make_renderer_registry();

// One registration function per renderer file.
void register_estimate_renderers(RendererRegistry& r);
void register_analyze_renderers(RendererRegistry& r);
void register_goodput_renderers(RendererRegistry& r);
void register_infer_renderers(RendererRegistry& r);
void register_plan_renderers(RendererRegistry& r);      // plan and sweep
void register_simulate_renderers(RendererRegistry& r);
void register_history_renderers(RendererRegistry& r);   // history compare
void register_validate_renderers(RendererRegistry& r);  // validate (training and inference CSVs)

// The estimate page (headline, step breakdown, communication, memory, roofline); the simulate
// page starts from it, since a simulate Result carries the estimate's tables.
void render_estimate(const Result& r, ReportPage& page);

// The generic renderer (used for commands without a specific one).
void render_generic(const Result& r, ReportPage& page);

}  // namespace sextant::report
