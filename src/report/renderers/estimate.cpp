// Report of `sextant estimate`: step-time breakdown (stacked), communication total vs exposed,
// memory per GPU (stacked against capacity), roofline of the model's ops (table "ops").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v)
    if (std::isfinite(x)) s += x;
  return s;
}

void step_breakdown(const Result& r, ReportPage& page, double step_s) {
  const Table* b = r.table("breakdown");
  if (!b || b->rows() == 0) return;
  const auto cat = texts(*b, "category");
  const auto item = texts(*b, "item");
  const auto t = numbers(*b, "time_s");
  Chart ch;
  ch.id = "step-breakdown";
  ch.title = "Step time on the critical pipeline rank";
  ch.value_unit = "s";
  ch.height_px = 300;
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["legend"]["type"] = "plain";  // every item visible: the legend is the key to the bar
  ch.option["grid"]["left"] = 60;
  ch.option["grid"]["top"] = 110;
  ch.option["xAxis"] = value_axis("time per step (s)");
  ch.option["yAxis"] = category_axis({"step"});
  auto series = nlohmann::ordered_json::array();
  double compute = 0, exposed = 0, bubble = 0;
  std::vector<std::string> families;  // each series' category
  std::string top_item;
  double top_t = -1;
  for (size_t i = 0; i < b->rows(); ++i) {
    if (!(t[i] > 0)) continue;  // zero-time items would only clutter the legend
    series.push_back({{"type", "bar"}, {"stack", "step"}, {"name", cat[i] + ": " + item[i]}, {"data", {t[i]}}});
    families.push_back(cat[i]);
    if (cat[i] == "compute") compute += t[i];
    if (cat[i] == "exposed_comm") exposed += t[i];
    if (cat[i] == "pipeline_bubble") bubble += t[i];
    if (t[i] > top_t) {
      top_t = t[i];
      top_item = cat[i] + ": " + item[i];
    }
  }
  // A colour per item, shades of one hue per category (compute blues, exposed communication
  // oranges, the bubble grey): with ECharts' nine-colour palette a 13-item step had drawn
  // compute:gemm and exposed_comm:edp in one blue (review of 2026-12-07).
  const auto colours = family_colours(families);
  for (size_t i = 0; i < series.size(); ++i) series[i]["itemStyle"] = {{"color", colours[i]}};
  ch.option["series"] = series;
  if (step_s > 0)
    ch.takeaway = "compute " + fmt_pct(compute / step_s) + ", exposed communication " + fmt_pct(exposed / step_s) +
                  ", pipeline bubble " + fmt_pct(bubble / step_s) + " of the " + fmt_seconds(step_s) +
                  " step; largest item " + top_item + " (" + fmt_seconds(top_t) + ")";
  page.charts.push_back(std::move(ch));
}

void communication(const Result& r, ReportPage& page, double step_s) {
  const Table* c = r.table("communication");
  if (!c || c->rows() == 0) return;
  const auto group = texts(*c, "group");
  const auto total = numbers(*c, "total_s");
  const auto exposed = numbers(*c, "exposed_s");
  std::vector<double> hidden(total.size());
  for (size_t i = 0; i < total.size(); ++i) hidden[i] = std::max(0.0, total[i] - exposed[i]);
  Chart ch;
  ch.id = "communication";
  ch.title = "Communication per parallel group: exposed and hidden by overlap";
  ch.value_unit = "s";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(group, "group");
  ch.option["yAxis"] = value_axis("time per step (s)");
  ch.option["series"] = {{{"type", "bar"}, {"stack", "comm"}, {"name", "exposed"}, {"data", json_array(exposed)}},
                         {{"type", "bar"}, {"stack", "comm"}, {"name", "hidden under compute"}, {"data", json_array(hidden)}}};
  const double tot = sum(total), exp = sum(exposed);
  const size_t worst = static_cast<size_t>(std::max_element(exposed.begin(), exposed.end()) - exposed.begin());
  if (step_s > 0) {
    ch.takeaway = "communication is " + fmt_pct(tot / step_s) + " of the step; " + fmt_pct(exp / step_s) + " is exposed";
    if (exp > 0) ch.takeaway += " (most from " + group[worst] + ": " + fmt_seconds(exposed[worst]) + ")";
  }
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void memory(const Result& r, ReportPage& page) {
  const Table* m = r.table("memory");
  if (!m || m->rows() == 0) return;
  const auto item = texts(*m, "item");
  const auto bytes = numbers(*m, "bytes");
  double total = 0, capacity = 0, top = -1;
  std::string top_item;
  Chart ch;
  ch.id = "memory";
  ch.title = "Memory per GPU (most loaded rank)";
  ch.value_unit = "GiB";
  ch.height_px = 260;
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["legend"]["type"] = "plain";
  ch.option["grid"]["left"] = 60;
  ch.option["grid"]["top"] = 80;
  ch.option["xAxis"] = value_axis("memory per GPU (GiB)");
  ch.option["yAxis"] = category_axis({"GPU"});
  auto series = nlohmann::ordered_json::array();
  for (size_t i = 0; i < m->rows(); ++i) {
    if (item[i] == "total") {
      total = bytes[i];
      continue;
    }
    if (item[i] == "capacity") {
      capacity = bytes[i];
      continue;
    }
    const double gib = bytes[i] / (1024.0 * 1024 * 1024);
    series.push_back({{"type", "bar"}, {"stack", "mem"}, {"name", item[i]}, {"data", {gib}}});
    if (bytes[i] > top) {
      top = bytes[i];
      top_item = item[i];
    }
  }
  if (capacity > 0 && !series.empty()) {
    series.back()["markLine"] = {{"symbol", "none"},
                                 {"label", {{"formatter", "capacity"}}},
                                 {"lineStyle", {{"color", "#b00020"}, {"type", "dashed"}}},
                                 {"data", {{{"xAxis", capacity / (1024.0 * 1024 * 1024)}}}}};
    ch.option["xAxis"]["max"] = std::ceil(std::max(capacity, total) / (1024.0 * 1024 * 1024) * 1.05);
  }
  ch.option["series"] = series;
  ch.takeaway = fmt_bytes(total) + (capacity > 0 ? " of " + fmt_bytes(capacity) + " (" + fmt_pct(total / capacity) + ")" : "") +
                "; largest: " + top_item + " (" + fmt_bytes(top) + ")" +
                (capacity > 0 && total > capacity ? "; does not fit" : "");
  page.charts.push_back(std::move(ch));
}

// Roofline of the model's ops (table "ops": one row per op template of the critical rank, with
// FLOPs, bytes, time and share of the step) under the accelerator's peak FLOP/s and memory
// bandwidth (scalars peak_flops_per_s, peak_memory_bytes_per_s). Ops without FLOPs (elementwise,
// norms, optimizer) and collectives have no place on a roofline: the takeaway still counts their
// share of the step by what bounds them.
void roofline(const Result& r, ReportPage& page) {
  const Table* t = r.table("ops");
  if (!t || t->rows() == 0 || !r.scalar("peak_flops_per_s") || !r.scalar("peak_memory_bytes_per_s")) return;
  for (const char* c : {"op", "flops", "bytes", "time_s", "share_fraction", "bound"})
    if (!t->has_column(c)) return;
  const double peak = r.number("peak_flops_per_s"), bw = r.number("peak_memory_bytes_per_s");
  if (!(peak > 0 && bw > 0)) return;
  const auto op = texts(*t, "op"), bound = texts(*t, "bound");
  const auto block = t->has_column("block") ? texts(*t, "block") : std::vector<std::string>(t->rows());
  const auto pass = t->has_column("pass") ? texts(*t, "pass") : std::vector<std::string>(t->rows());
  const auto shape = t->has_column("shape") ? texts(*t, "shape") : std::vector<std::string>(t->rows());
  const auto flops = numbers(*t, "flops"), bytes = numbers(*t, "bytes"), time = numbers(*t, "time_s"),
             share = numbers(*t, "share_fraction");
  const double ridge = peak / bw;
  std::map<std::string, nlohmann::ordered_json> by_bound;  // one scatter series per bound
  std::map<std::string, double> share_by_bound;
  double min_i = INFINITY, max_i = 0, min_p = INFINITY, placed_share = 0;
  size_t placed = 0, top = SIZE_MAX;
  for (size_t i = 0; i < t->rows(); ++i) {
    if (std::isfinite(share[i])) share_by_bound[bound[i]] += share[i];
    if (!(flops[i] > 0 && bytes[i] > 0 && time[i] > 0)) continue;
    const double ai = flops[i] / bytes[i], tf = flops[i] / time[i] / 1e12;
    min_i = std::min(min_i, ai);
    max_i = std::max(max_i, ai);
    min_p = std::min(min_p, tf);
    ++placed;
    placed_share += share[i];
    if (top == SIZE_MAX || share[i] > share[top]) top = i;
    std::string label = block[i].empty() ? op[i] : block[i] + " " + pass[i] + " " + op[i];
    if (!shape[i].empty()) label += " " + shape[i];
    // Area of the point proportional to the op's share of the step.
    const double size = 6 + 40 * std::sqrt(std::max(0.0, share[i]));
    auto& series = by_bound[bound[i]];
    if (series.is_null()) series = nlohmann::ordered_json::array();
    series.push_back({{"name", label}, {"value", {ai, tf, share[i] * 100}}, {"symbolSize", size}});
  }
  if (placed == 0) return;
  const double lo = std::pow(10, std::floor(std::log10(std::min(min_i, ridge) / 2)));
  const double hi = std::pow(10, std::ceil(std::log10(std::max(max_i, ridge) * 2)));
  Chart ch;
  ch.id = "roofline";
  ch.title = "Roofline: the model's ops on the critical rank against the accelerator's peaks (point area: share of the step)";
  ch.value_unit = "";
  ch.value_labels = {"FLOP/byte", "TFLOP/s", "% of step"};
  ch.height_px = 420;
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["xAxis"] = {{"type", "log"}, {"name", "arithmetic intensity (FLOP/byte)"}, {"nameLocation", "middle"}, {"nameGap", 28},
                        {"min", lo}, {"max", hi}};
  ch.option["yAxis"] = {{"type", "log"}, {"name", "attained (TFLOP/s)"}, {"nameLocation", "middle"}, {"nameGap", 48},
                        {"min", std::pow(10, std::floor(std::log10(std::min(min_p, lo * bw / 1e12))))},
                        {"max", std::pow(10, std::ceil(std::log10(peak / 1e12 * 1.5)))}};
  ch.option["legend"]["type"] = "plain";
  ch.option["grid"]["top"] = 70;
  auto series = nlohmann::ordered_json::array();
  series.push_back({{"type", "line"}, {"name", "memory ceiling (" + fmt_num(bw / 1e9) + " GB/s)"}, {"showSymbol", false},
                    {"data", {{lo, lo * bw / 1e12}, {ridge, peak / 1e12}}}});
  series.push_back({{"type", "line"}, {"name", "compute ceiling (" + fmt_num(peak / 1e12) + " TFLOP/s)"}, {"showSymbol", false},
                    {"data", {{ridge, peak / 1e12}, {hi, peak / 1e12}}}});
  for (auto& [b, data] : by_bound)
    series.push_back({{"type", "scatter"}, {"name", b + "-bound ops"}, {"data", data}});
  ch.option["series"] = series;
  const double top_tf = flops[top] / time[top];
  ch.takeaway = "compute-bound ops take " + fmt_pct(share_by_bound["compute"]) + " of the step, memory-bound " +
                fmt_pct(share_by_bound["memory"]) + ", kernel overhead " + fmt_pct(share_by_bound["overhead"]) +
                " (communication runs " + fmt_pct(share_by_bound["comm"]) + " of it, partly alongside them)" + "; the largest op, " + op[top] +
                (shape[top].empty() ? "" : " " + shape[top]) + " (" + fmt_pct(share[top]) + "), attains " +
                fmt_num(top_tf / 1e12) + " TFLOP/s, " + fmt_pct(top_tf / std::min(peak, flops[top] / bytes[top] * bw)) +
                " of its roof (ridge " + fmt_num(ridge) + " FLOP/byte); " + std::to_string(placed) + " of " +
                std::to_string(t->rows()) + " ops have FLOPs and are placed";
  page.takeaways.push_back("the ops on the roofline are " + fmt_pct(placed_share) + " of the step; " + ch.takeaway.substr(0, ch.takeaway.find(';')));
  page.charts.push_back(std::move(ch));
}

}  // namespace

void render_estimate(const Result& r, ReportPage& page) {
  const double step_s = r.scalar("step_time_s") ? r.number("step_time_s") : 0.0;
  std::string sub;
  for (const char* k : {"scenario", "model", "system", "num_gpus", "plan"})
    if (const Value* v = r.scalar(k)) {
      if (!sub.empty()) sub += " · ";
      if (auto s = std::get_if<std::string>(v)) sub += *s;
      else if (auto n = std::get_if<int64_t>(v)) sub += std::to_string(*n) + " GPUs";
    }
  page.title = "Step estimate";
  page.subtitle = sub;
  if (step_s > 0) {
    std::string line = "step time " + fmt_seconds(step_s);
    if (r.scalar("mfu_fraction")) line += ", MFU " + fmt_pct(r.number("mfu_fraction"));
    if (r.scalar("tokens_per_s_per_gpu")) line += ", " + fmt_num(r.number("tokens_per_s_per_gpu")) + " tokens/s per GPU";
    page.takeaways.push_back(line);
  }
  step_breakdown(r, page, step_s);
  communication(r, page, step_s);
  memory(r, page);
  roofline(r, page);
  if (r.scalar("memory_per_gpu_bytes") && r.scalar("memory_capacity_bytes"))
    page.takeaways.push_back("memory " + fmt_bytes(r.number("memory_per_gpu_bytes")) + " per GPU of " +
                             fmt_bytes(r.number("memory_capacity_bytes")) +
                             (r.number("memory_per_gpu_bytes") > r.number("memory_capacity_bytes") ? ": does not fit" : ""));
}

void register_estimate_renderers(RendererRegistry& reg) { reg.add("estimate", render_estimate); }

}  // namespace sextant::report
