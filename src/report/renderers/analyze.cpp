// Report of `sextant analyze`: temporal breakdown per rank, idle time by cause, top kernels,
// communication/computation overlap and exposed communication per rank, a collective-skew heatmap
// (which rank arrived last at each collective and by how much), stragglers, and the critical path
// by attribution when the analysis ran.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

std::vector<std::string> rank_labels(const std::vector<double>& ranks) {
  std::vector<std::string> out;
  for (double r : ranks) out.push_back("rank " + std::to_string(static_cast<long long>(r)));
  return out;
}

std::vector<double> scaled(std::vector<double> v, double s) {
  for (double& x : v) x *= s;
  return v;
}

// A thousand ranks are a thousand bars: a zoom window over the first 64, the slider for the rest
// (3,072 bars had shared 520 px, 2026-12-03 review; the idle-cause, overlap and straggler charts
// had none until 2026-12-04).
void zoom_ranks(Chart& ch, size_t ranks) {
  if (ranks > 64)
    ch.option["dataZoom"] = {{{"type", "inside"}, {"xAxisIndex", 0}, {"startValue", 0}, {"endValue", 63}},
                             {{"type", "slider"}, {"xAxisIndex", 0}, {"bottom", 8}, {"startValue", 0}, {"endValue", 63}}};
}

void temporal(const Result& r, ReportPage& page) {
  const Table* t = r.table("temporal_breakdown");
  if (!t || t->rows() == 0) return;
  const auto ranks = numbers(*t, "rank");
  const auto idle = numbers(*t, "idle_time_us"), comp = numbers(*t, "compute_time_us"),
             non = numbers(*t, "non_compute_time_us");
  Chart ch;
  ch.id = "temporal-breakdown";
  ch.title = "GPU time per rank: compute, non-compute, idle";
  ch.value_unit = "ms";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(rank_labels(ranks), "rank");
  ch.option["yAxis"] = value_axis("time over the GPU-active span (ms)");
  zoom_ranks(ch, ranks.size());
  ch.option["series"] = {
      {{"type", "bar"}, {"stack", "t"}, {"name", "compute"}, {"data", json_array(scaled(comp, 1e-3))}},
      {{"type", "bar"}, {"stack", "t"}, {"name", "non-compute (communication, memory)"}, {"data", json_array(scaled(non, 1e-3))}},
      {{"type", "bar"}, {"stack", "t"}, {"name", "idle"}, {"data", json_array(scaled(idle, 1e-3))}}};
  double idle_sum = 0, all_sum = 0, worst = -1;
  size_t wi = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const double all = idle[i] + comp[i] + non[i];
    idle_sum += idle[i];
    all_sum += all;
    const double f = all > 0 ? idle[i] / all : 0;
    if (f > worst) {
      worst = f;
      wi = i;
    }
  }
  // A trace without GPU time (CPU only) has nothing to chart: no chart of zeros and no blank
  // headline bullet (2026-12-04 review).
  if (!(all_sum > 0)) return;
  ch.takeaway = "GPUs are idle " + fmt_pct(idle_sum / all_sum) + " of the time across " + std::to_string(ranks.size()) +
                  " ranks; most idle: rank " + std::to_string(static_cast<long long>(ranks[wi])) + " (" + fmt_pct(worst) + ")";
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void idle_causes(const Result& r, ReportPage& page) {
  const Table* t = r.table("idle_time_breakdown");
  if (!t || t->rows() == 0) return;
  const auto rank = numbers(*t, "rank");
  const auto cat = texts(*t, "idle_category");
  const auto us = numbers(*t, "idle_time_us");
  std::vector<double> ranks;
  std::vector<std::string> cats;
  for (size_t i = 0; i < t->rows(); ++i) {
    if (std::find(ranks.begin(), ranks.end(), rank[i]) == ranks.end()) ranks.push_back(rank[i]);
    if (std::find(cats.begin(), cats.end(), cat[i]) == cats.end()) cats.push_back(cat[i]);
  }
  std::sort(ranks.begin(), ranks.end());
  std::map<std::pair<std::string, double>, double> cell;  // summed over streams
  std::map<std::string, double> by_cat;
  double total = 0;
  for (size_t i = 0; i < t->rows(); ++i) {
    cell[{cat[i], rank[i]}] += us[i];
    by_cat[cat[i]] += us[i];
    total += us[i];
  }
  Chart ch;
  ch.id = "idle-causes";
  ch.title = "Idle time between kernels by cause, per rank (all streams)";
  ch.value_unit = "ms";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(rank_labels(ranks), "rank");
  ch.option["yAxis"] = value_axis("idle time (ms)");
  zoom_ranks(ch, ranks.size());
  auto series = nlohmann::ordered_json::array();
  for (const auto& c : cats) {
    std::vector<double> v;
    for (double rk : ranks) v.push_back(cell[{c, rk}] * 1e-3);
    series.push_back({{"type", "bar"}, {"stack", "idle"}, {"name", c}, {"data", json_array(v)}});
  }
  ch.option["series"] = series;
  const auto top = std::max_element(by_cat.begin(), by_cat.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (!(total > 0)) return;
  ch.takeaway = "largest idle cause: " + top->first + " (" + fmt_pct(top->second / total) + " of " + fmt_seconds(total * 1e-6) +
                  " of idle time, summed over the streams and ranks)";
  page.charts.push_back(std::move(ch));
}

// HTA's per-kernel table (`analyze --compat hta`: gpu_kernel_breakdown_by_kernel, one row per
// kernel and rank): the kernels summed over the ranks, the largest 15, their share of the table's
// kernel time (it had drawn no kernel chart; review of 2026-12-05).
void hta_top_kernels(const Result& r, ReportPage& page) {
  const Table* t = r.table("gpu_kernel_breakdown_by_kernel");
  if (!t || t->rows() == 0 || !t->has_column("name") || !t->has_column("sum (us)")) return;
  const auto names = texts(*t, "name");
  const auto sum = numbers(*t, "sum (us)");
  // HTA folds each kernel type's tail into a row named "others": an aggregate, not a kernel. It
  // counts in the kernel time but is not ranked (it had headed the chart; review of 2026-12-05).
  std::map<std::string, double> by_name;
  double others = 0;
  for (size_t i = 0; i < names.size(); ++i)
    if (std::isfinite(sum[i])) (names[i] == "others" ? others : by_name[names[i]]) += sum[i];
  std::vector<std::pair<double, std::string>> top;
  for (const auto& [n, us] : by_name) top.push_back({us, n});
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (top.size() > 15) top.resize(15);
  if (top.empty() || !(top.front().first > 0)) return;
  // The denominator is the table's own kernel time (its type breakdown counts overlapping kernels
  // once, so shares of it could pass 100%).
  double all = others;
  for (const auto& [n, us] : by_name) all += us;
  std::vector<std::string> cats;
  std::vector<double> ms;
  double shown = 0;
  for (auto it = top.rbegin(); it != top.rend(); ++it) {  // largest at the top of the bars
    cats.push_back(it->second);
    ms.push_back(it->first * 1e-3);
    shown += it->first;
  }
  Chart ch;
  ch.id = "top-kernels";
  ch.title = "Top GPU kernels by total time (all ranks; HTA's per-kernel table)";
  ch.value_unit = "ms";
  ch.height_px = std::max(260, static_cast<int>(cats.size()) * 28 + 80);
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["grid"]["left"] = 260;
  ch.option["xAxis"] = value_axis("total time (ms)");
  ch.option["yAxis"] = category_axis(cats);
  ch.option["yAxis"]["axisLabel"].update(nlohmann::ordered_json{{"width", 240}, {"overflow", "truncate"}});
  ch.option["series"] = {{{"type", "bar"}, {"name", "total time"}, {"data", json_array(ms)}}};
  ch.takeaway = "the top kernel takes " + fmt_pct(top.front().first / all) + " of the kernel time HTA lists; these " +
                std::to_string(top.size()) + " take " + fmt_pct(shown / all);
  page.charts.push_back(std::move(ch));
}

void top_kernels(const Result& r, ReportPage& page) {
  const Table* t = r.table("top_kernels");
  if (!t || t->rows() == 0) return hta_top_kernels(r, page);
  auto names = texts(*t, "name");
  auto total = numbers(*t, "total_us");
  const auto share = numbers(*t, "share_of_gpu_time_fraction");
  // Largest at the top of a horizontal bar chart: ECharts draws the first category at the bottom.
  std::reverse(names.begin(), names.end());
  std::reverse(total.begin(), total.end());
  Chart ch;
  ch.id = "top-kernels";
  ch.title = "Top GPU kernels by total time (all ranks)";
  ch.value_unit = "ms";
  ch.height_px = std::max(260, static_cast<int>(names.size()) * 28 + 80);
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["grid"]["left"] = 260;
  ch.option["xAxis"] = value_axis("total time (ms)");
  ch.option["yAxis"] = category_axis(names);
  ch.option["yAxis"]["axisLabel"].update(nlohmann::ordered_json{{"width", 240}, {"overflow", "truncate"}});
  ch.option["series"] = {{{"type", "bar"}, {"name", "total time"}, {"data", json_array(scaled(total, 1e-3))}}};
  const double top_share = share.empty() ? 0 : share.front();
  const double all_share = std::accumulate(share.begin(), share.end(), 0.0);
  ch.takeaway = "the top kernel takes " + fmt_pct(top_share) + " of GPU time; these " + std::to_string(share.size()) +
                " take " + fmt_pct(all_share);
  page.charts.push_back(std::move(ch));
}

// HTA's overlap table alone (`analyze --compat hta` has no exposed_time): the share of each rank's
// communication time that computation overlaps (review of 2026-12-05: no chart had been drawn).
void hta_overlap(const Result& r, ReportPage& page) {
  const Table* o = r.table("comm_comp_overlap");
  if (!o || o->rows() == 0 || !o->has_column("rank") || !o->has_column("comp_comm_overlap_pctg")) return;
  const auto ranks = numbers(*o, "rank");
  const auto pct = numbers(*o, "comp_comm_overlap_pctg");
  size_t lo = pct.size(), n = 0;
  double sum = 0;
  for (size_t i = 0; i < pct.size(); ++i)
    if (std::isfinite(pct[i])) {
      sum += pct[i];
      ++n;
      if (lo == pct.size() || pct[i] < pct[lo]) lo = i;
    }
  if (n == 0) return;
  Chart ch;
  ch.id = "overlap";
  ch.title = "Communication overlapped with computation per rank (HTA's comm_comp_overlap)";
  ch.value_unit = "%";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(rank_labels(ranks), "rank");
  ch.option["yAxis"] = value_axis("overlap (% of communication time)");
  zoom_ranks(ch, ranks.size());
  ch.option["series"] = {{{"type", "bar"}, {"name", "overlap"}, {"data", json_array(pct)}}};
  ch.takeaway = "computation overlaps " + fmt_num(sum / static_cast<double>(n)) + "% of communication time on average; least: rank " +
                std::to_string(static_cast<long long>(ranks[lo])) + " (" + fmt_num(pct[lo]) + "%)";
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void overlap(const Result& r, ReportPage& page) {
  const Table* o = r.table("comm_comp_overlap");
  const Table* e = r.table("exposed_time");
  if (!e || e->rows() == 0) return hta_overlap(r, page);
  const auto ranks = numbers(*e, "rank");
  const auto comm = numbers(*e, "communication_us"), exp = numbers(*e, "exposed_communication_us");
  std::vector<double> hidden(comm.size());
  for (size_t i = 0; i < comm.size(); ++i) hidden[i] = std::max(0.0, comm[i] - exp[i]) * 1e-3;
  Chart ch;
  ch.id = "overlap";
  ch.title = "Communication per rank: exposed vs overlapped with computation";
  ch.value_unit = "ms";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(rank_labels(ranks), "rank");
  ch.option["yAxis"] = value_axis("communication time (ms)");
  zoom_ranks(ch, ranks.size());
  ch.option["series"] = {{{"type", "bar"}, {"stack", "c"}, {"name", "exposed"}, {"data", json_array(scaled(exp, 1e-3))}},
                         {{"type", "bar"}, {"stack", "c"}, {"name", "overlapped"}, {"data", json_array(hidden)}}};
  double c = 0, x = 0;
  for (size_t i = 0; i < comm.size(); ++i) {
    c += comm[i];
    x += exp[i];
  }
  // No communication recorded (one GPU, or a trace without collectives): no chart of zeros.
  if (!(c > 0)) return;
  ch.takeaway = fmt_pct(x / c) + " of communication time is exposed (not hidden under computation)";
  if (o && o->rows()) {
    const auto pct = numbers(*o, "comp_comm_overlap_percent");
    const auto orank = numbers(*o, "rank");
    // A rank without communication has no overlap percentage (NaN): it is not the least-overlapped one.
    size_t lo = pct.size();
    for (size_t i = 0; i < pct.size(); ++i)
      if (std::isfinite(pct[i]) && (lo == pct.size() || pct[i] < pct[lo])) lo = i;
    if (lo < pct.size())
      ch.takeaway += "; least overlap: rank " + std::to_string(static_cast<long long>(orank[lo])) + " (" + fmt_num(pct[lo]) + "%)";
  }
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

// Heatmap: rows are ranks, columns are collectives in order. With the `collective_arrivals` table a
// cell holds how much later than the earliest rank that rank started the collective; results saved
// without it fall back to the start skew placed in the row of the rank that arrived last.
void skew_heatmap(const Result& r, ReportPage& page) {
  const Table* t = r.table("collectives");
  if (!t || t->rows() == 0) return;
  const auto op = texts(*t, "operation");
  const auto seq = numbers(*t, "sequence");
  const auto pg = texts(*t, "process_group");
  const auto skew = numbers(*t, "start_skew_us");
  const auto last = numbers(*t, "last_rank");
  const Table* arrivals = r.table("collective_arrivals");
  if (arrivals && arrivals->rows() == 0) arrivals = nullptr;
  size_t n = std::min<size_t>(t->rows(), 400);
  if (arrivals) {
    double rows_max = 0;
    for (double c : numbers(*arrivals, "collective_row")) rows_max = std::max(rows_max, c);
    n = std::min<size_t>(n, static_cast<size_t>(rows_max) + 1);
  }
  std::vector<std::string> cols;
  double max_rank = 0, max_skew = 0, sum_skew = 0;
  size_t skew_count = 0;
  std::map<double, double> by_rank;
  auto data = nlohmann::ordered_json::array();
  // The takeaway's statistics are over every collective, the cells over the first n drawn: before
  // 2026-12-06 (review) the mean skew of the first 400 of 600 collectives read as the whole run's.
  for (size_t i = 0; i < t->rows(); ++i) {
    if (!std::isfinite(skew[i])) continue;
    sum_skew += skew[i];
    ++skew_count;
    by_rank[last[i]] += skew[i];
  }
  for (size_t i = 0; i < n; ++i) {
    cols.push_back(pg[i] + " " + op[i] + " #" + std::to_string(static_cast<long long>(seq[i])));
    max_rank = std::max(max_rank, last[i]);
    if (std::isfinite(skew[i])) {
      max_skew = std::max(max_skew, skew[i]);
      if (!arrivals) data.push_back({static_cast<double>(i), last[i], skew[i]});
    }
  }
  // Mean arrival delay per rank over the collectives shown (the rank that is late on average).
  std::map<double, std::pair<double, double>> delay_by_rank;
  if (arrivals) {
    const auto row = numbers(*arrivals, "collective_row"), rank = numbers(*arrivals, "rank");
    const auto delay = numbers(*arrivals, "arrival_delay_us");
    for (size_t i = 0; i < arrivals->rows(); ++i) {
      if (row[i] >= static_cast<double>(n) || !std::isfinite(delay[i])) continue;
      max_rank = std::max(max_rank, rank[i]);
      data.push_back({row[i], rank[i], delay[i]});
      auto& d = delay_by_rank[rank[i]];
      d.first += delay[i];
      d.second += 1;
    }
  }
  const size_t collectives_shown = n;
  if (const Table* s = r.table("temporal_breakdown"))
    for (double rk : numbers(*s, "rank")) max_rank = std::max(max_rank, rk);
  // One row per rank present, in order: ranks 16000-16007 drew 16,008 rows (a 352,296-pixel chart;
  // last_rank 3e9 ran out of memory) when the rows ran from 0 to the largest rank, before 2026-12-03.
  (void)max_rank;
  {
    auto kept = nlohmann::ordered_json::array();
    for (auto& d : data)
      if (std::isfinite(d[1].get<double>())) kept.push_back(std::move(d));
    data = std::move(kept);
  }
  std::set<double> present;
  for (const auto& d : data) present.insert(d[1].get<double>());
  if (const Table* s = r.table("temporal_breakdown"))
    for (double rk : numbers(*s, "rank"))
      if (std::isfinite(rk)) present.insert(rk);
  std::map<double, size_t> row_of;
  std::vector<std::string> rows;
  for (const double rk : present) {
    row_of[rk] = rows.size();
    rows.push_back("rank " + std::to_string(static_cast<long long>(rk)));
  }
  for (auto& d : data) d[1] = static_cast<double>(row_of[d[1].get<double>()]);
  Chart ch;
  ch.id = "collective-skew";
  ch.title = arrivals ? "Collective arrival per rank: how much later than the earliest rank each rank started"
                     : "Collective start skew: which rank arrived last, and how late";
  const size_t collectives_all = t->rows();
  if (collectives_shown < collectives_all)
    ch.title += " (the first " + std::to_string(collectives_shown) + " of " + std::to_string(collectives_all) + " drawn)";
  ch.value_unit = "µs";
  // At most 1,400 px: a row per rank of a 1,024-rank job had made the chart 22,648 px tall with
  // its colour key at the very bottom; beyond 60 rows the axis labels thin themselves out and the
  // colour key sits on the right.
  ch.height_px = std::min(1400, std::max(280, static_cast<int>(rows.size()) * 22 + 120));
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["grid"]["bottom"] = 90;
  if (rows.size() > 60) ch.option["grid"]["right"] = 110;
  ch.option["xAxis"] = category_axis(cols, "collective (process group, operation, sequence)");
  ch.option["xAxis"]["axisLabel"].update(nlohmann::ordered_json{{"show", false}});
  ch.option["xAxis"]["nameGap"] = 12;
  ch.option["yAxis"] = category_axis(rows);
  ch.option["visualMap"] = {{"min", 0},      {"max", max_skew > 0 ? max_skew : 1}, {"calculable", true},
                            {"orient", "horizontal"}, {"left", "center"}, {"bottom", 0},
                            {"text", {"skew (µs)", ""}}};
  if (rows.size() > 60) {
    ch.option["visualMap"]["orient"] = "vertical";
    ch.option["visualMap"].erase("left");
    ch.option["visualMap"].erase("bottom");
    ch.option["visualMap"]["right"] = 0;
    ch.option["visualMap"]["top"] = 40;
  }
  ch.option["series"] = {{{"type", "heatmap"}, {"name", arrivals ? "arrival delay (µs)" : "start skew (µs)"}, {"data", data}}};
  if (!by_rank.empty() && sum_skew > 0) {
    const auto w = std::max_element(by_rank.begin(), by_rank.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    ch.takeaway = "mean start skew " + fmt_num(sum_skew / static_cast<double>(skew_count)) + " µs over " +
                  (skew_count < collectives_all ? std::to_string(skew_count) + " of " : std::string()) +
                  std::to_string(collectives_all) + " collectives; rank " +
                  std::to_string(static_cast<long long>(w->first)) + " arrived last for " +
                  fmt_pct(w->second / sum_skew) + " of the total skew";
    if (!delay_by_rank.empty()) {
      const auto late = std::max_element(delay_by_rank.begin(), delay_by_rank.end(), [](const auto& a, const auto& b) {
        return a.second.first / a.second.second < b.second.first / b.second.second;
      });
      // Arrivals are known for the collectives drawn only (the analysis records them for the first
      // ones): said where they are not all.
      ch.takeaway += "; latest on average" +
                     (collectives_shown < collectives_all ? " over the " + std::to_string(collectives_shown) + " drawn" : std::string()) +
                     ": rank " + std::to_string(static_cast<long long>(late->first)) + " (" +
                     fmt_num(late->second.first / late->second.second) + " µs after the earliest)";
    }
  } else if (skew_count > 0) {
    // Every rank started every collective together: said, not left blank (docs/reports.md: every
    // chart has a takeaway; review of 2026-12-07).
    ch.takeaway = "no start skew across " + (skew_count < collectives_all ? std::to_string(skew_count) + " of " : std::string()) +
                  std::to_string(collectives_all) + (collectives_all == 1 ? " collective" : " collectives") +
                  ": every rank started each at the same time";
  } else {
    ch.takeaway = "start skew unknown for the " + std::to_string(collectives_all) + (collectives_all == 1 ? " collective" : " collectives");
  }
  page.charts.push_back(std::move(ch));
}

void critical_path(const Result& r, ReportPage& page) {
  const Table* t = r.table("critical_path_attribution");
  if (!t || t->rows() == 0) return;
  const auto rank = numbers(*t, "rank"), step = numbers(*t, "step"), us = numbers(*t, "time_us");
  const auto attr = texts(*t, "attribution");
  std::vector<std::string> iters, attrs;
  std::map<std::pair<std::string, std::string>, double> cell;
  std::map<std::string, double> tot;
  double all = 0;
  for (size_t i = 0; i < t->rows(); ++i) {
    const std::string it = "rank " + std::to_string(static_cast<long long>(rank[i])) + " step " +
                           std::to_string(static_cast<long long>(step[i]));
    if (std::find(iters.begin(), iters.end(), it) == iters.end()) iters.push_back(it);
    if (std::find(attrs.begin(), attrs.end(), attr[i]) == attrs.end()) attrs.push_back(attr[i]);
    cell[{attr[i], it}] += us[i];
    tot[attr[i]] += us[i];
    all += us[i];
  }
  const size_t all_iters = iters.size();
  // Rank-iterations, not iterations: 8 ranks of one step had read "over all 8 iterations".
  std::set<double> rank_set(rank.begin(), rank.end()), step_set(step.begin(), step.end());
  const std::string over = std::to_string(all_iters) + " rank-iterations (" + std::to_string(rank_set.size()) +
                           (rank_set.size() == 1 ? " rank" : " ranks") + " x " + std::to_string(step_set.size()) +
                           (step_set.size() == 1 ? " step" : " steps") + ")";
  if (iters.size() > 64) iters.resize(64);
  Chart ch;
  ch.id = "critical-path";
  ch.title = "Critical path of each iteration by attribution" +
             (all_iters > iters.size() ? " (the first " + std::to_string(iters.size()) + " of " + std::to_string(all_iters) + " drawn)"
                                       : std::string());
  ch.value_unit = "ms";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(iters, "iteration");
  ch.option["xAxis"]["axisLabel"].update(nlohmann::ordered_json{{"rotate", iters.size() > 6 ? 30 : 0}});
  ch.option["yAxis"] = value_axis("critical path time (ms)");
  auto series = nlohmann::ordered_json::array();
  for (const auto& a : attrs) {
    std::vector<double> v;
    for (const auto& it : iters) v.push_back(cell[{a, it}] * 1e-3);
    series.push_back({{"type", "bar"}, {"stack", "cp"}, {"name", a}, {"data", json_array(v)}});
  }
  ch.option["series"] = series;
  const auto top = std::max_element(tot.begin(), tot.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (all > 0)
    ch.takeaway = top->first + " is " + fmt_pct(top->second / all) + " of the critical path over all " + over + (all_iters > iters.size() ? " (the first " + std::to_string(iters.size()) + " drawn)" : std::string());
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void stragglers(const Result& r, ReportPage& page) {
  const Table* t = r.table("stragglers");
  // HTA's potential_stragglers lists ranks without a measure to chart: a headline names them.
  if ((!t || t->rows() == 0)) {
    const Table* h = r.table("potential_stragglers");
    if (h && h->has_column("potential_straggler_rank")) {
      const auto ranks = numbers(*h, "potential_straggler_rank");
      std::string list;
      for (double x : ranks)
        if (std::isfinite(x)) list += (list.empty() ? "" : ", ") + std::to_string(static_cast<long long>(x));
      page.takeaways.push_back(list.empty() ? std::string("HTA's straggler rule flags no rank")
                                            : "HTA's straggler rule flags rank" + std::string(ranks.size() > 1 ? "s " : " ") + list +
                                                  " as potential stragglers");
    }
    return;
  }
  const auto rank = numbers(*t, "rank");
  // The ranking measure (docs/trace-analysis.md): the wait a rank caused the typical rank, summed over
  // the matched collectives. held_back_us (the marginal hold beyond the second-latest arrival) reads 0
  // when two ranks are equally late, so it is not what the chart leads with.
  const auto caused = numbers(*t, "caused_wait_us");
  const auto late = numbers(*t, "mean_lateness_vs_median_us");
  std::vector<size_t> idx(rank.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return rank[a] < rank[b]; });
  std::vector<double> rk, c, l;
  for (size_t i : idx) {
    rk.push_back(rank[i]);
    c.push_back(caused[i]);
    l.push_back(late[i]);
  }
  Chart ch;
  ch.id = "stragglers";
  ch.title = "Stragglers: wait each rank caused the others at collectives";
  ch.value_unit = "µs";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(rank_labels(rk), "rank");
  ch.option["yAxis"] = value_axis("time (µs)");
  zoom_ranks(ch, rk.size());
  ch.option["series"] = {{{"type", "bar"}, {"name", "wait caused"}, {"data", json_array(c)}},
                         {{"type", "bar"}, {"name", "mean lateness vs median"}, {"data", json_array(l)}}};
  size_t top = 0;
  for (size_t i = 1; i < caused.size(); ++i)
    if (caused[i] > caused[top]) top = i;
  if (caused[top] > 0)
    ch.takeaway = "rank " + std::to_string(static_cast<long long>(rank[top])) + " caused the others the most waiting at collectives (" +
                  fmt_seconds(caused[top] * 1e-6) + " in total)";
  else
    ch.takeaway = "no rank made the others wait at collectives";
  page.charts.push_back(std::move(ch));
}

void render_analyze(const Result& r, ReportPage& page) {
  page.title = "Trace analysis";
  std::string sub;
  if (r.scalar("ranks_count")) sub = std::to_string(static_cast<long long>(r.number("ranks_count"))) + " ranks";
  if (r.scalar("files_count")) sub += (sub.empty() ? "" : " · ") + std::to_string(static_cast<long long>(r.number("files_count"))) + " files";
  page.subtitle = sub;
  temporal(r, page);
  idle_causes(r, page);
  top_kernels(r, page);
  overlap(r, page);
  skew_heatmap(r, page);
  stragglers(r, page);
  critical_path(r, page);
}

}  // namespace

void register_analyze_renderers(RendererRegistry& reg) { reg.add("analyze", render_analyze); }

}  // namespace sextant::report
