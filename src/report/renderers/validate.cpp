// Report of `sextant validate`: the signed error of every row against its published measurement,
// worst first and coloured by size (within 10%, within 35%, beyond; a row whose publisher
// acknowledges an issue in grey), and the median and largest |error| per source. (The generic page
// drew num_gpus and left error_pct out: a `_pct` column had no unit, so every one was a chart of
// its own past the page's four.)
#include <algorithm>
#include <cmath>
#include <numeric>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

void error_per_row(const Result& r, ReportPage& page) {
  const Table* t = r.table("validation_rows");
  if (!t || t->rows() == 0 || !t->has_column("error_pct")) return;
  const auto id = texts(*t, "id");
  const auto err = numbers(*t, "error_pct");
  const auto issue = t->has_column("known_issue") ? texts(*t, "known_issue") : std::vector<std::string>(t->rows());
  const auto metric = t->has_column("metric") ? texts(*t, "metric") : std::vector<std::string>(t->rows());
  std::vector<size_t> idx;
  for (size_t i = 0; i < t->rows(); ++i)
    if (std::isfinite(err[i])) idx.push_back(i);
  if (idx.empty()) return;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return std::fabs(err[a]) > std::fabs(err[b]); });
  const size_t shown = std::min<size_t>(idx.size(), 80);
  std::vector<std::string> cats;
  auto data = nlohmann::ordered_json::array();
  for (size_t k = 0; k < shown; ++k) {
    const size_t i = idx[k];
    cats.push_back(id[i] + (metric[i].empty() ? "" : " " + metric[i]));
    const double a = std::fabs(err[i]);
    const char* colour = !issue[i].empty() ? "#95a5a6" : a <= 10 ? "#27ae60" : a <= 35 ? "#e67e22" : "#c0392b";
    data.push_back({{"value", err[i]}, {"itemStyle", {{"color", colour}}}});
  }
  Chart ch;
  ch.id = "validation-error";
  ch.title = "Error of each row, predicted against published (worst first; green within 10%, orange within 35%, red beyond, "
             "grey: the publisher acknowledges an issue)" +
             (shown < idx.size() ? " - the worst " + std::to_string(shown) + " of " + std::to_string(idx.size()) : std::string());
  ch.value_unit = "%";
  ch.height_px = std::max(360, 18 * static_cast<int>(shown) + 90);
  ch.option = base_option();
  ch.option["grid"]["containLabel"] = true;
  ch.option["grid"]["left"] = 10;
  ch.option["yAxis"] = category_axis(cats);
  ch.option["yAxis"]["inverse"] = true;
  ch.option["xAxis"] = value_axis("error, predicted against published (%)");
  ch.option["series"] = {{{"type", "bar"}, {"name", "error"}, {"data", data}}};
  ch.option["legend"]["show"] = false;
  auto pct = [](double v) { return fmt_num(v) + "%"; };
  std::string take = std::to_string(idx.size()) + " rows: median |error| " + pct(r.number("median_abs_error_pct")) + ", p90 " +
                     pct(r.number("p90_abs_error_pct")) + ", max " + pct(r.number("max_abs_error_pct")) + " (" + cats[0] + ", " +
                     (err[idx[0]] > 0 ? "+" : "") + fmt_num(err[idx[0]]) + "%)";
  if (r.scalar("max_abs_error_excl_known_issue_pct") && r.scalar("known_issue_rows_count") && r.number("known_issue_rows_count") > 0)
    take += "; without the " + fmt_count(r.number("known_issue_rows_count")) + " row(s) of an acknowledged issue, max " +
            pct(r.number("max_abs_error_excl_known_issue_pct"));
  if (r.scalar("lodo_median_abs_error_pct"))
    take += "; refitted without each chip: median " + pct(r.number("lodo_median_abs_error_pct")) + ", max " +
            pct(r.number("lodo_max_abs_error_pct"));
  ch.takeaway = take;
  page.takeaways.push_back(take);
  page.charts.push_back(std::move(ch));
}

void error_per_source(const Result& r, ReportPage& page) {
  const Table* t = r.table("per_source");
  if (!t || t->rows() == 0 || !t->has_column("median_abs_error_pct") || !t->has_column("max_abs_error_pct")) return;
  const auto src = texts(*t, "source");
  const auto med = numbers(*t, "median_abs_error_pct"), mx = numbers(*t, "max_abs_error_pct");
  std::vector<size_t> idx(t->rows());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return mx[a] > mx[b]; });
  std::vector<std::string> cats;
  std::vector<double> m, x;
  for (size_t i : idx) {
    cats.push_back(src[i]);
    m.push_back(med[i]);
    x.push_back(mx[i]);
  }
  Chart ch;
  ch.id = "validation-sources";
  ch.title = "|error| per source: median and largest";
  ch.value_unit = "%";
  ch.height_px = std::max(300, 24 * static_cast<int>(cats.size()) + 90);
  ch.option = base_option();
  ch.option["grid"]["containLabel"] = true;
  ch.option["grid"]["left"] = 10;
  ch.option["yAxis"] = category_axis(cats);
  ch.option["yAxis"]["inverse"] = true;
  ch.option["xAxis"] = value_axis("|error| (%)");
  ch.option["series"] = {{{"type", "bar"}, {"name", "median |error|"}, {"data", json_array(m)}},
                         {{"type", "bar"}, {"name", "max |error|"}, {"data", json_array(x)}}};
  ch.takeaway = "largest |error| from " + cats[0] + " (" + fmt_num(x[0]) + "%, median " + fmt_num(m[0]) + "%) among " +
                std::to_string(cats.size()) + " sources";
  page.charts.push_back(std::move(ch));
}

void render_validate(const Result& r, ReportPage& page) {
  page.title = "Validation against published measurements";
  if (const Value* f = r.scalar("file"); f && std::get_if<std::string>(f)) page.subtitle = std::get<std::string>(*f);
  error_per_row(r, page);
  error_per_source(r, page);
}

}  // namespace

void register_validate_renderers(RendererRegistry& reg) {
  reg.add("validate", render_validate);
  reg.add("infer validate", render_validate);  // the same tables (errors per row and per source)
}

}  // namespace sextant::report
