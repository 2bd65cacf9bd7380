// Report of `sextant simulate`: the estimate's charts (a simulate Result carries its tables), the
// simulated step per rank, and the critical path of the step.
//
// Per-rank timeline: when the Result has a table "timeline" (columns unit or rank, category,
// start_s, end_s; one row per activity) it is drawn as a Gantt chart, one lane per rank. Without
// one, each simulated unit's step is drawn as consecutive segments of its compute, exposed
// communication, pipeline waits and optimizer time (table "rank_classes"), ending where it ended.
#include <algorithm>
#include <cmath>
#include <map>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

void gantt(const Result& r, ReportPage& page) {
  const Table* t = r.table("timeline");
  if (!t || t->rows() == 0 || !t->has_column("start_s") || !t->has_column("end_s") || !t->has_column("category")) return;
  const std::string lane_col = t->has_column("rank") ? "rank" : t->has_column("unit") ? "unit" : "";
  if (lane_col.empty()) return;
  const auto lane = numbers(*t, lane_col);
  const auto cat = texts(*t, "category");
  const auto s = numbers(*t, "start_s"), e = numbers(*t, "end_s");
  const auto name = t->has_column("item") ? texts(*t, "item") : cat;
  std::vector<double> lanes(lane);
  std::sort(lanes.begin(), lanes.end());
  lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
  std::map<double, size_t> lane_index;
  for (size_t i = 0; i < lanes.size(); ++i) lane_index[lanes[i]] = i;
  std::vector<std::string> cats;
  std::map<std::string, nlohmann::ordered_json> data;
  std::map<std::string, double> busy;
  const size_t cap = 20000;  // SVG stays responsive
  double end = 0;
  for (size_t i = 0; i < t->rows() && i < cap; ++i) {
    if (!data.count(cat[i])) {
      cats.push_back(cat[i]);
      data[cat[i]] = nlohmann::ordered_json::array();
    }
    data[cat[i]].push_back({{"name", name[i]}, {"value", {static_cast<double>(lane_index[lane[i]]), s[i], e[i]}}});
    busy[cat[i]] += e[i] - s[i];
    end = std::max(end, e[i]);
  }
  std::vector<std::string> lane_names;
  for (double l : lanes) lane_names.push_back(lane_col + " " + fmt_count(l));
  Chart ch;
  ch.id = "timeline";
  ch.kind = "gantt";
  ch.title = "Simulated step per rank (timeline)";
  ch.value_unit = "s";
  ch.height_px = std::max(300, static_cast<int>(lanes.size()) * 26 + 110);
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["xAxis"] = value_axis("time in the step (s)");
  ch.option["xAxis"]["max"] = end;
  ch.option["yAxis"] = category_axis(lane_names);
  ch.option["dataZoom"] = {{{"type", "inside"}, {"xAxisIndex", 0}}, {{"type", "slider"}, {"xAxisIndex", 0}, {"bottom", 8}}};
  ch.option["grid"]["bottom"] = 80;
  auto series = nlohmann::ordered_json::array();
  for (const auto& c : cats)
    series.push_back({{"type", "custom"}, {"name", c}, {"encode", {{"x", {1, 2}}, {"y", 0}}}, {"data", data[c]}});
  ch.option["series"] = series;
  const auto top = std::max_element(busy.begin(), busy.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  ch.takeaway = std::to_string(lanes.size()) + " ranks over " + fmt_seconds(end) + "; " + top->first + " occupies the most rank-time (" +
                fmt_pct(lanes.empty() || end <= 0 ? 0 : top->second / (end * static_cast<double>(lanes.size()))) + ")";
  page.charts.push_back(std::move(ch));
}

void per_rank(const Result& r, ReportPage& page) {
  const Table* t = r.table("rank_classes");
  if (!t || t->rows() == 0) return;
  const auto unit = numbers(*t, "unit");
  const auto rep = t->has_column("representative_rank") ? numbers(*t, "representative_rank") : unit;
  const auto cnt = t->has_column("ranks_count") ? numbers(*t, "ranks_count") : std::vector<double>(unit.size(), 1);
  const auto endv = numbers(*t, "end_s");
  const size_t n = std::min<size_t>(t->rows(), 128);
  std::vector<std::string> lanes;
  for (size_t i = 0; i < n; ++i)
    lanes.push_back("rank " + fmt_count(rep[i]) + (cnt[i] > 1 ? " (x" + fmt_count(cnt[i]) + ")" : ""));
  Chart ch;
  ch.id = "per-rank";
  ch.title = "Simulated step per rank: where each rank's time went";
  ch.value_unit = "s";
  ch.height_px = std::max(300, static_cast<int>(n) * 22 + 110);
  ch.option = base_option();
  ch.option["grid"]["left"] = 140;
  ch.option["xAxis"] = value_axis("time in the step (s)");
  ch.option["yAxis"] = category_axis(lanes);
  auto series = nlohmann::ordered_json::array();
  for (const char* c : {"compute_s", "exposed_comm_s", "pipeline_wait_s", "optimizer_s"}) {
    if (!t->has_column(c)) continue;
    auto v = numbers(*t, c);
    v.resize(n);
    std::string label = c;
    label = label.substr(0, label.size() - 2);
    std::replace(label.begin(), label.end(), '_', ' ');
    series.push_back({{"type", "bar"}, {"stack", "rank"}, {"name", label}, {"data", json_array(v)}});
  }
  series.push_back({{"type", "scatter"}, {"name", "end of step"}, {"symbol", "diamond"}, {"symbolSize", 10}, {"data", [&] {
                      auto a = nlohmann::ordered_json::array();
                      for (size_t i = 0; i < n; ++i) a.push_back({endv[i], static_cast<double>(i)});
                      return a;
                    }()}});
  ch.option["series"] = series;
  const auto mx = std::max_element(endv.begin(), endv.begin() + static_cast<long>(n));
  const auto mn = std::min_element(endv.begin(), endv.begin() + static_cast<long>(n));
  const size_t last = static_cast<size_t>(mx - endv.begin());
  ch.takeaway = lanes[last] + " finishes last at " + fmt_seconds(*mx) +
                (*mn > 0 ? ", " + fmt_pct(*mx / *mn - 1) + " after the earliest (" + fmt_seconds(*mn) + ")" : "");
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void critical_path(const Result& r, ReportPage& page) {
  const Table* t = r.table("critical_path");
  if (!t || t->rows() == 0 || !t->has_column("time_s")) return;
  const size_t n = std::min<size_t>(t->rows(), 20);
  auto cat = texts(*t, "category"), item = texts(*t, "item");
  auto time = numbers(*t, "time_s");
  std::vector<std::string> labels;
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    labels.push_back(cat[i] + ": " + item[i]);
    v.push_back(time[i]);
  }
  std::reverse(labels.begin(), labels.end());
  std::reverse(v.begin(), v.end());
  Chart ch;
  ch.id = "critical-path";
  ch.title = "Critical path of the simulated step, longest items";
  ch.value_unit = "s";
  ch.height_px = std::max(280, static_cast<int>(n) * 24 + 90);
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["grid"]["left"] = 240;
  ch.option["xAxis"] = value_axis("time on the critical path (s)");
  ch.option["yAxis"] = category_axis(labels);
  ch.option["yAxis"]["axisLabel"] = {{"width", 230}, {"overflow", "truncate"}};
  ch.option["series"] = {{{"type", "bar"}, {"name", "time"}, {"data", json_array(v)}}};
  std::map<std::string, double> by_cat;
  double all = 0;
  for (size_t i = 0; i < t->rows(); ++i) {
    by_cat[cat[i]] += time[i];
    all += time[i];
  }
  const auto top = std::max_element(by_cat.begin(), by_cat.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (all > 0) ch.takeaway = top->first + " is " + fmt_pct(top->second / all) + " of the critical path";
  page.charts.push_back(std::move(ch));
}

void render_simulate(const Result& r, ReportPage& page) {
  render_estimate(r, page);
  page.title = "Simulated step";
  gantt(r, page);
  per_rank(r, page);
  critical_path(r, page);
}

}  // namespace

void register_simulate_renderers(RendererRegistry& reg) { reg.add("simulate", render_simulate); }

}  // namespace sextant::report
