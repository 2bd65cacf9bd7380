// Report of `sextant history compare`: the change of every case's median, B against A, as bars
// coloured by the verdict (regression, improvement, unchanged, parameters differ, untestable),
// worst first, with the regressions named in the takeaway. (The generic renderer put medians of
// FLOP/s, bytes and seconds, p-values and counts on one axis.)
#include <algorithm>
#include <cmath>
#include <numeric>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

const char* verdict_colour(const std::string& v) {
  if (v == "regression") return "#c0392b";
  if (v == "improvement") return "#27ae60";
  if (v == "parameters_differ") return "#e67e22";
  if (v == "untestable") return "#bdc3c7";
  return "#7f8c8d";
}

void render_history_compare(const Result& r, ReportPage& page) {
  page.title = "Benchmark comparison";
  const Table* t = r.table("cases");
  if (!t || t->rows() == 0) return;
  const auto suite = texts(*t, "suite"), name = texts(*t, "case"), metric = texts(*t, "metric"), verdict = texts(*t, "verdict");
  const auto change = numbers(*t, "change_fraction");
  page.subtitle = "run " + std::to_string(static_cast<int64_t>(r.number("run_b"))) + " against run " +
                  std::to_string(static_cast<int64_t>(r.number("run_a")));
  // Worst first: regressions by size, then the rest by change.
  std::vector<size_t> idx(t->rows());
  std::iota(idx.begin(), idx.end(), size_t{0});
  auto rank = [&](size_t i) { return verdict[i] == "regression" ? 0 : verdict[i] == "parameters_differ" ? 1 : 2; };
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return std::fabs(change[a]) > std::fabs(change[b]);
  });
  if (idx.size() > 60) idx.resize(60);
  std::vector<std::string> cats;
  auto data = nlohmann::ordered_json::array();
  for (size_t i : idx) {
    cats.push_back(suite[i] + "/" + name[i] + " " + metric[i]);
    data.push_back({{"value", std::isfinite(change[i]) ? change[i] * 100 : 0.0},
                    {"itemStyle", {{"color", verdict_colour(verdict[i])}}},
                    {"name", verdict[i]}});
  }
  Chart ch;
  ch.id = "history-compare";
  ch.title = "Change of each case's median, B against A (colour: verdict)";
  ch.value_unit = "%";
  ch.height_px = std::max(360, 22 * static_cast<int>(idx.size()) + 80);
  ch.option = base_option();
  ch.option["yAxis"] = category_axis(cats);
  ch.option["yAxis"]["inverse"] = true;
  ch.option["xAxis"] = value_axis("change of the median (%)");
  ch.option["series"] = {{{"type", "bar"}, {"name", "change"}, {"data", data}}};
  const int64_t reg = static_cast<int64_t>(r.number("regression_count")), imp = static_cast<int64_t>(r.number("improvement_count"));
  std::string take = std::to_string(reg) + " regression(s), " + std::to_string(imp) + " improvement(s) among " +
                     std::to_string(t->rows()) + " cases";
  if (r.scalar("parameters_differ_count") && r.number("parameters_differ_count") > 0)
    take += ", " + fmt_count(r.number("parameters_differ_count")) + " with different parameters";
  for (size_t i : idx)
    if (verdict[i] == "regression") {
      take += "; worst: " + suite[i] + "/" + name[i] + " " + metric[i] + " " + (change[i] > 0 ? "+" : "") + fmt_pct(change[i]);
      break;
    }
  ch.takeaway = take;
  page.takeaways.push_back(take);
  page.charts.push_back(std::move(ch));
}

}  // namespace

void register_history_renderers(RendererRegistry& reg) { reg.add("history compare", render_history_compare); }

}  // namespace sextant::report
