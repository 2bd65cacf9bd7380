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
  if (v == "unchecked failure") return "#e74c3c";
  if (v == "wrong_results" || v == "exit_status_differs") return "#8e44ad";
  if (v == "improvement") return "#27ae60";
  if (v == "parameters_differ") return "#e67e22";
  if (v == "underpowered") return "#5dade2";
  if (v == "within_run_noise") return "#a9cce3";  // a change within the host's drift between runs
  if (v == "untestable" || v == "at_rss_floor") return "#bdc3c7";
  if (v == "below_resolution") return "#d5dbdb";  // a CPU-time change below the rusage tick (2026-12-06 review)
  return "#7f8c8d";  // unchanged
}

void render_history_compare(const Result& r, ReportPage& page) {
  page.title = "Benchmark comparison";
  const Table* t = r.table("cases");
  if (!t || t->rows() == 0) return;
  const auto suite = texts(*t, "suite"), name = texts(*t, "case"), metric = texts(*t, "metric"), verdict_col = texts(*t, "verdict");
  const auto change = numbers(*t, "change_fraction");
  const auto unchecked_failure = t->has_column("unchecked_failure_flag") ? numbers(*t, "unchecked_failure_flag") : std::vector<double>(t->rows(), 0.0);
  // An unchecked case that is worse by the minimum effect fails the gate like a regression: it is
  // drawn and counted as one (the page said "0 regression(s)" with all bars grey for a run that
  // exits 1, before 2026-12-03).
  std::vector<std::string> verdict = verdict_col;
  for (size_t i = 0; i < verdict.size(); ++i)
    if (unchecked_failure[i] > 0) verdict[i] = "unchecked failure";
  page.subtitle = "run " + std::to_string(static_cast<int64_t>(r.number("run_b"))) + " against run " +
                  std::to_string(static_cast<int64_t>(r.number("run_a")));
  // Worst first: what fails the gate by size, then parameter changes, then the rest by change.
  std::vector<size_t> idx(t->rows());
  std::iota(idx.begin(), idx.end(), size_t{0});
  auto rank = [&](size_t i) {
    const std::string& v = verdict[i];
    return v == "regression" || v == "unchecked failure" ? 0 : v == "wrong_results" || v == "exit_status_differs" ? 1 : v == "parameters_differ" ? 2 : 3;
  };
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    // A change from 0 (no fraction, NaN) ranks as the largest: NaN in the comparison broke the
    // sort's ordering.
    auto size = [&](size_t i) { return std::isfinite(change[i]) ? std::fabs(change[i]) : INFINITY; };
    return size(a) > size(b);
  });
  const size_t shown = std::min<size_t>(idx.size(), 60);
  std::vector<std::string> cats;
  for (size_t k = 0; k < shown; ++k) cats.push_back(suite[idx[k]] + "/" + name[idx[k]] + " " + metric[idx[k]]);
  // One series per verdict present, stacked on the one bar of each case, so that the legend names
  // the colours (one series named "change" had a legend swatch of no bar's colour).
  std::vector<std::string> kinds;
  for (size_t k = 0; k < shown; ++k)
    if (std::find(kinds.begin(), kinds.end(), verdict[idx[k]]) == kinds.end()) kinds.push_back(verdict[idx[k]]);
  auto series = nlohmann::ordered_json::array();
  for (const auto& kind : kinds) {
    auto data = nlohmann::ordered_json::array();
    for (size_t k = 0; k < shown; ++k) {
      const size_t i = idx[k];
      if (verdict[i] != kind) {
        data.push_back(nullptr);
      } else if (std::isfinite(change[i])) {
        data.push_back(change[i] * 100);
      } else {
        // A change from 0 (a time or count that was 0 in A) has no fraction: drawn as long as the
        // longest bar, in its direction, and labelled, not as an empty 0% bar (2026-12-04 review).
        double longest = 100;
        for (size_t j = 0; j < shown; ++j)
          if (std::isfinite(change[idx[j]])) longest = std::max(longest, std::fabs(change[idx[j]]) * 100);
        // The bar is the change of the value, whatever the verdict: from 0 it can only grow (an
        // improvement of a higher-is-better rate had been drawn at -100%, beside the regressions).
        const bool up = !(change[i] < 0);
        data.push_back({{"value", up ? longest : -longest},
                        {"label", {{"show", true}, {"position", "insideRight"}, {"formatter", "from 0"}}}});
      }
    }
    series.push_back({{"type", "bar"}, {"name", kind}, {"stack", "verdict"}, {"itemStyle", {{"color", verdict_colour(kind)}}}, {"data", data}});
  }
  Chart ch;
  ch.id = "history-compare";
  ch.title = "Change of each case's median, B against A (colour: verdict)" +
             (shown < idx.size() ? " - the first " + std::to_string(shown) + " of " + std::to_string(idx.size()) + " cases, worst first" : std::string());
  ch.value_unit = "%";
  ch.height_px = std::max(360, 22 * static_cast<int>(shown) + 80);
  ch.option = base_option();
  ch.option["grid"]["containLabel"] = true;  // case names are long: the axis makes room (they were cut at 90 px)
  ch.option["grid"]["left"] = 10;
  ch.option["yAxis"] = category_axis(cats);
  ch.option["yAxis"]["inverse"] = true;
  ch.option["xAxis"] = value_axis("change of the median (%)");
  ch.option["series"] = series;
  const int64_t reg = static_cast<int64_t>(r.number("regression_count")), imp = static_cast<int64_t>(r.number("improvement_count"));
  const int64_t unchecked = r.scalar("unchecked_count") ? static_cast<int64_t>(r.number("unchecked_count")) : 0;
  const int64_t unchecked_fail = r.scalar("unchecked_failure_count") ? static_cast<int64_t>(r.number("unchecked_failure_count")) : 0;
  const int64_t missing = r.scalar("missing_in_b_count") ? static_cast<int64_t>(r.number("missing_in_b_count")) : 0;
  std::string take;
  if (const Value* g = r.scalar("gate_failed"); g && std::get_if<bool>(g))
    take = std::get<bool>(*g) ? "FAILS the gate (exit status 1): " : "passes the gate: ";
  take += std::to_string(reg) + " regression(s), " + std::to_string(imp) + " improvement(s) among " + std::to_string(t->rows()) + " cases";
  if (unchecked > 0)
    take += "; " + std::to_string(unchecked) + " could not be checked (too few repetitions, wrong results or exit statuses, or memory at the RSS floor), " +
            std::to_string(unchecked_fail) + " of them worse by the minimum effect or wrong";
  if (missing > 0) take += "; " + std::to_string(missing) + " case(s) of A missing from B";
  if (r.scalar("parameters_differ_count") && r.number("parameters_differ_count") > 0)
    take += ", " + fmt_count(r.number("parameters_differ_count")) + " with different parameters";
  for (size_t i : idx)
    if (verdict[i] == "regression" || verdict[i] == "unchecked failure") {
      take += "; worst: " + suite[i] + "/" + name[i] + " " + metric[i] + " " +
              (std::isfinite(change[i]) ? (change[i] > 0 ? "+" : "") + fmt_pct(change[i]) : std::string("up from 0")) +
              (verdict[i] == "regression" ? "" : " (unchecked)");
      break;
    }
  ch.takeaway = take;
  page.takeaways.push_back(take);
  page.charts.push_back(std::move(ch));
}

}  // namespace

void register_history_renderers(RendererRegistry& reg) { reg.add("history compare", render_history_compare); }

}  // namespace sextant::report
