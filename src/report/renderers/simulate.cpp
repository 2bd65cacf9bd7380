// Report of `sextant simulate`: the estimate's charts (a simulate Result carries its tables), the
// simulated step per rank, and the critical path of the step.
//
// Per-rank timeline: the Result's bounded table "timeline" (sim::TimelineRow: unit, rank, stream,
// name, category, pass, start_s, end_s) drawn as a Gantt chart, one lane per simulated unit with a
// row per stream. Also each unit's step as consecutive segments of its compute, exposed
// communication, pipeline waits and optimizer time (table "rank_classes"), ending where it ended.
#include <algorithm>
#include <cmath>
#include <map>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

void gantt(const Result& r, ReportPage& page) {
  const Table* t = r.table("timeline");
  if (!t || t->rows() == 0) return;
  for (const char* c : {"unit", "rank", "stream", "name", "category", "start_s", "end_s"})
    if (!t->has_column(c)) return;
  const auto unit = numbers(*t, "unit"), rank = numbers(*t, "rank");
  const auto stream = texts(*t, "stream"), name = texts(*t, "name"), cat = texts(*t, "category");
  const auto pass = t->has_column("pass") ? texts(*t, "pass") : std::vector<std::string>(t->rows());
  const auto s = numbers(*t, "start_s"), e = numbers(*t, "end_s");
  const auto busy_col = t->has_column("busy_s") ? numbers(*t, "busy_s") : std::vector<double>();
  // Ranks per unit from rank_classes (a unit may stand for a class of equivalent ranks).
  std::map<double, double> ranks_of_unit;
  if (const Table* rc = r.table("rank_classes"); rc && rc->has_column("unit") && rc->has_column("ranks_count")) {
    const auto u = numbers(*rc, "unit"), c = numbers(*rc, "ranks_count");
    for (size_t i = 0; i < u.size(); ++i) ranks_of_unit[u[i]] = c[i];
  }
  // Lanes: one per unit (at most kLanes); rows inside a lane: one per stream, compute first.
  constexpr size_t kLanes = 64;
  std::vector<double> units(unit);
  std::sort(units.begin(), units.end());
  units.erase(std::unique(units.begin(), units.end()), units.end());
  const size_t lanes_shown = std::min(units.size(), kLanes);
  std::map<double, size_t> lane_of;
  std::map<double, double> rank_of_unit;
  for (size_t i = 0; i < t->rows(); ++i) rank_of_unit.emplace(unit[i], rank[i]);
  std::vector<std::string> lane_names;
  for (size_t i = 0; i < lanes_shown; ++i) {
    lane_of[units[i]] = i;
    const double cnt = ranks_of_unit.count(units[i]) ? ranks_of_unit[units[i]] : 1;
    lane_names.push_back("rank " + fmt_count(rank_of_unit[units[i]]) + (cnt > 1 ? " (x" + fmt_count(cnt) + ")" : ""));
  }
  std::vector<std::string> streams(stream);
  std::sort(streams.begin(), streams.end(), [](const std::string& a, const std::string& b) {
    return (a == "compute") != (b == "compute") ? a == "compute" : a < b;
  });
  streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
  std::map<std::string, size_t> row_of;
  for (size_t i = 0; i < streams.size(); ++i) row_of[streams[i]] = i;
  // One series per kind of activity: compute by pass, everything else by category.
  std::vector<std::string> kinds;
  std::map<std::string, nlohmann::ordered_json> data;
  double end = 0, compute_busy = 0, last_start = 0;
  size_t bars = 0;
  for (size_t i = 0; i < t->rows(); ++i) {
    const auto lane = lane_of.find(unit[i]);
    if (lane == lane_of.end()) continue;
    const std::string kind = cat[i] == "compute" && !pass[i].empty() ? "compute: " + pass[i] : cat[i];
    if (!data.count(kind)) {
      kinds.push_back(kind);
      data[kind] = nlohmann::ordered_json::array();
    }
    data[kind].push_back({{"name", name[i] + " (" + stream[i] + ", " + lane_names[lane->second] + ")"},
                          {"value", {static_cast<double>(lane->second), s[i], e[i], static_cast<double>(row_of[stream[i]]),
                                     static_cast<double>(streams.size())}}});
    if (cat[i] == "compute") compute_busy += busy_col.empty() ? e[i] - s[i] : busy_col[i];  // merged bars: their spans' time
    end = std::max(end, e[i]);
    last_start = std::max(last_start, s[i]);
    ++bars;
  }
  if (bars == 0) return;
  // A table cut at its row limit keeps the first rows by start: it is whole only up to the last
  // start it kept (later spans were dropped), so the takeaway's window and busy share end there
  // (they had run to the latest end and read 58% busy where the whole table gives 64.5%).
  const bool cut = r.scalar("timeline_dropped_count") && r.number("timeline_dropped_count") > 0 && r.scalar("step_time_s");
  if (cut && last_start > 0) {
    compute_busy = 0;
    for (size_t i = 0; i < t->rows(); ++i) {
      if (lane_of.find(unit[i]) == lane_of.end() || cat[i] != "compute" || s[i] >= last_start) continue;
      const double busy = busy_col.empty() ? e[i] - s[i] : busy_col[i];
      compute_busy += e[i] > last_start && e[i] > s[i] ? busy * (last_start - s[i]) / (e[i] - s[i]) : busy;
    }
  }
  const double window = cut && last_start > 0 ? last_start : end;
  Chart ch;
  ch.id = "timeline";
  ch.kind = "gantt";
  ch.title = "Simulated step per rank (Gantt; rows in a rank: " + [&] {
    std::string x;
    for (const auto& st : streams) x += (x.empty() ? "" : ", ") + st;
    return x;
  }() + ")";
  ch.value_unit = "s";
  const int lane_px = std::max(26, 9 * static_cast<int>(streams.size()) + 8);
  ch.height_px = std::max(300, static_cast<int>(lanes_shown) * lane_px + 130);
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.wide = true;
  ch.option["grid"]["left"] = 130;
  ch.option["grid"]["bottom"] = 90;
  ch.option["xAxis"] = value_axis("time in the step (s)");
  ch.option["xAxis"]["nameGap"] = 24;
  ch.option["xAxis"]["axisLabel"].update(nlohmann::ordered_json{{"showMaxLabel", false}});  // the step's end is not a round number
  ch.option["xAxis"]["min"] = 0;
  ch.option["xAxis"]["max"] = end;
  ch.option["yAxis"] = category_axis(lane_names);
  ch.option["yAxis"]["inverse"] = true;  // rank order top to bottom
  ch.option["dataZoom"] = {{{"type", "inside"}, {"xAxisIndex", 0}, {"filterMode", "weakFilter"}},
                           {{"type", "slider"}, {"xAxisIndex", 0}, {"bottom", 8}, {"filterMode", "weakFilter"}}};
  // A colour per kind, compute's passes shades of one hue and each kind of communication a hue
  // of its own: ECharts' nine-colour palette wrapped past nine kinds (compute, tp, cp, pp, dp,
  // edp, ep, optimizer... of an MoE step), two kinds then one colour (review of 2026-12-07).
  std::vector<std::string> families;
  for (const auto& k : kinds) families.push_back(k.rfind("compute: ", 0) == 0 ? "compute" : k);
  const auto colours = family_colours(families);
  auto series = nlohmann::ordered_json::array();
  for (size_t i = 0; i < kinds.size(); ++i)
    series.push_back({{"type", "custom"}, {"name", kinds[i]}, {"itemStyle", {{"color", colours[i]}}},
                      {"encode", {{"x", {1, 2}}, {"y", 0}}}, {"data", data[kinds[i]]}});
  ch.option["series"] = series;
  // Takeaway: how busy the compute stream is over the shown ranks, and what the table left out.
  const double lane_time = window * static_cast<double>(lanes_shown);
  // A table cut at its row limit ends before the step does: "over 4.71 s" had read as the length of
  // an 18.5 s step (2026-12-05 review).
  ch.takeaway = std::to_string(lanes_shown) + (lanes_shown == 1 ? " rank" : " ranks") +
                (cut && window < r.number("step_time_s") * (1 - 1e-9)
                     ? " over the first " + fmt_seconds(window) + " of the " + fmt_seconds(r.number("step_time_s")) + " step"
                     : " over " + fmt_seconds(end)) +
                "; compute streams are busy " + fmt_pct(lane_time > 0 ? compute_busy / lane_time : 0) +
                " of the time, idle (bubbles, waits for communication) the rest";
  if (r.scalar("timeline_merge_gap_s") && r.number("timeline_merge_gap_s") > 0)
    ch.takeaway += "; spans closer than " + fmt_seconds(r.number("timeline_merge_gap_s")) + " drawn as one bar";
  if (r.scalar("timeline_dropped_count") && r.number("timeline_dropped_count") > 0)
    ch.takeaway += "; " + fmt_count(r.number("timeline_dropped_count")) + " spans after the row limit not drawn";
  if (units.size() > lanes_shown) ch.takeaway += "; first " + std::to_string(lanes_shown) + " of " + std::to_string(units.size()) + " ranks";
  page.takeaways.push_back(ch.takeaway);
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
                      for (size_t i = 0; i < n; ++i)
                        a.push_back({{"value", {endv[i], static_cast<double>(i)}}, {"tip", fmt_seconds(endv[i])}});
                      return a;
                    }()}});
  ch.option["series"] = series;
  if (t->rows() > n) ch.title += " (the first " + std::to_string(n) + " of " + std::to_string(t->rows()) + " rank classes)";
  // The latest and earliest over every rank class, drawn or not (the first 128 only, before
  // 2026-12-03: "0% after the earliest" where the classes spread 1.3%).
  const auto mx = std::max_element(endv.begin(), endv.end());
  const auto mn = std::min_element(endv.begin(), endv.end());
  const size_t last = static_cast<size_t>(mx - endv.begin());
  const std::string last_name = "rank " + fmt_count(rep[last]) + (cnt[last] > 1 ? " (x" + fmt_count(cnt[last]) + ")" : "");
  ch.takeaway = last_name + " finishes last at " + fmt_seconds(*mx) +
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
  ch.option["yAxis"]["axisLabel"].update(nlohmann::ordered_json{{"width", 230}, {"overflow", "truncate"}});
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
