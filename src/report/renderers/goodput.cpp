// Report of `sextant goodput`: lost time by cause (with confidence intervals), ETTR against the
// checkpoint interval (simulated and Daly's model, the configured and the optimal interval marked),
// ETTR per checkpoint strategy, and lost time per failure process.
#include <cstdio>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

void lost_time(const Result& r, ReportPage& page) {
  const Table* t = r.table("lost_time_by_cause");
  if (!t || t->rows() == 0) return;
  const auto cause = texts(*t, "cause");
  const auto mean = numbers(*t, "mean_s");
  const auto frac = numbers(*t, "wall_fraction");
  std::vector<size_t> idx(cause.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return mean[a] < mean[b]; });  // largest on top
  std::vector<std::string> c;
  auto data = nlohmann::ordered_json::array();
  for (size_t i : idx) {
    c.push_back(cause[i]);
    data.push_back(mean[i] / 3600.0);
  }
  Chart ch;
  ch.id = "lost-time";
  ch.title = "Lost time by cause over the job (mean of the Monte Carlo runs)";
  ch.value_unit = "h";
  ch.height_px = std::max(280, static_cast<int>(c.size()) * 26 + 90);
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["grid"]["left"] = 120;
  ch.option["xAxis"] = value_axis("lost time (hours)");
  ch.option["yAxis"] = category_axis(c);
  ch.option["series"] = {{{"type", "bar"}, {"name", "mean lost time"}, {"data", data}}};
  const size_t top = idx.back();
  const double lost = std::accumulate(frac.begin(), frac.end(), 0.0);
  ch.takeaway = "jobs lose " + fmt_pct(lost) + " of wall time; the largest cause is " + cause[top] + " (" + fmt_pct(frac[top]) +
                " of wall, " + fmt_seconds(mean[top]) + ")";
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void ettr_vs_interval(const Result& r, ReportPage& page) {
  const Table* t = r.table("ettr_vs_interval");
  if (!t || t->rows() == 0) return;
  const auto iv = numbers(*t, "interval_s");
  const auto ettr = numbers(*t, "ettr_fraction");
  auto sim = nlohmann::ordered_json::array(), model = nlohmann::ordered_json::array();
  const bool has_model = t->has_column("daly_model_ettr_fraction");
  const auto daly = has_model ? numbers(*t, "daly_model_ettr_fraction") : std::vector<double>{};
  for (size_t i = 0; i < iv.size(); ++i) {
    sim.push_back({iv[i], ettr[i] * 100});
    if (has_model) model.push_back({iv[i], daly[i] * 100});
  }
  Chart ch;
  ch.id = "ettr-vs-interval";
  ch.title = "ETTR against checkpoint interval";
  ch.value_unit = "";
  ch.value_labels = {"interval (s)", "ETTR (%)"};
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["xAxis"] = {{"type", "log"}, {"name", "checkpoint interval (s)"}, {"nameLocation", "middle"}, {"nameGap", 28}};
  ch.option["yAxis"] = value_axis("ETTR (%)");
  ch.option["yAxis"]["scale"] = true;
  auto series = nlohmann::ordered_json::array();
  nlohmann::ordered_json s1 = {{"type", "line"}, {"name", "simulated ETTR"}, {"data", sim}};
  auto marks = nlohmann::ordered_json::array();
  if (finite_scalar(r, "checkpoint_interval_s"))
    marks.push_back({{"name", "configured"}, {"xAxis", r.number("checkpoint_interval_s")}});
  if (finite_scalar(r, "optimal_interval_sim_s"))
    marks.push_back({{"name", "optimal (simulated)"}, {"xAxis", r.number("optimal_interval_sim_s")}});
  if (!marks.empty())
    s1["markLine"] = {{"symbol", "none"}, {"label", {{"formatter", "{b}"}}}, {"lineStyle", {{"type", "dashed"}}}, {"data", marks}};
  series.push_back(s1);
  if (has_model) series.push_back({{"type", "line"}, {"name", "Daly model"}, {"lineStyle", {{"type", "dotted"}}}, {"data", model}});
  ch.option["series"] = series;
  // The best among the finite points (a leading NaN had been "best ETTR n/a", 2026-12-05 review).
  size_t best = ettr.size();
  for (size_t i = 0; i < ettr.size(); ++i)
    if (std::isfinite(ettr[i]) && (best == ettr.size() || ettr[i] > ettr[best])) best = i;
  ch.takeaway = best < ettr.size() ? "best ETTR " + fmt_pct(ettr[best]) + " at a " + fmt_seconds(iv[best]) + " interval" : "no interval evaluated";
  if (finite_scalar(r, "checkpoint_interval_s") && finite_scalar(r, "ettr_fraction"))
    ch.takeaway += "; the configured " + fmt_seconds(r.number("checkpoint_interval_s")) + " gives " + fmt_pct(r.number("ettr_fraction"));
  page.charts.push_back(std::move(ch));
}

void strategies(const Result& r, ReportPage& page) {
  const Table* t = r.table("strategies");
  if (!t || t->rows() == 0) return;
  const auto name = texts(*t, "strategy");
  auto ettr = numbers(*t, "ettr_fraction");
  for (double& x : ettr) x *= 100;
  Chart ch;
  ch.id = "strategies";
  ch.title = "ETTR per checkpoint strategy (each at its own Daly interval)";
  ch.value_unit = "%";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(name, "checkpoint strategy");
  ch.option["yAxis"] = value_axis("ETTR (%)");
  // Bars from zero, within 0-100%: `scale` on one finite bar had drawn an axis from 40 to 140%
  // (2026-12-05 review).
  ch.option["yAxis"]["min"] = 0;
  ch.option["yAxis"]["max"] = 100;
  ch.option["series"] = {{{"type", "bar"}, {"name", "ETTR"}, {"data", json_array(ettr)}}};
  // Best and worst among the strategies evaluated: one the input cannot run (a strategy without
  // its bandwidths) is NaN, and max_element kept a leading NaN ("async-remote is best (n/a%)",
  // 2026-12-04 review).
  std::vector<size_t> ok;
  for (size_t i = 0; i < ettr.size(); ++i)
    if (std::isfinite(ettr[i])) ok.push_back(i);
  if (ok.empty()) {
    ch.takeaway = "no strategy could be evaluated with this input's bandwidths";
  } else {
    size_t b = ok.front(), w = ok.front();
    for (size_t i : ok) {
      if (ettr[i] > ettr[b]) b = i;
      if (ettr[i] < ettr[w]) w = i;
    }
    ch.takeaway = ok.size() == 1 ? name[b] + " is the only strategy this input can run (" + fmt_num(ettr[b]) + "%)"
                                 : name[b] + " is best (" + fmt_num(ettr[b]) + "%), " + name[w] + " worst (" + fmt_num(ettr[w]) + "%)";
    if (ok.size() < ettr.size()) ch.takeaway += "; the others need bandwidths this input does not give";
  }
  page.charts.push_back(std::move(ch));
}

void processes(const Result& r, ReportPage& page) {
  const Table* t = r.table("failures_by_process");
  if (!t || t->rows() == 0 || !t->has_column("lost_mean_s")) return;
  const auto proc = texts(*t, "process");
  const auto lost = numbers(*t, "lost_mean_s");
  const auto count = numbers(*t, "mean_count");
  std::vector<size_t> idx(proc.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return lost[a] < lost[b]; });
  std::vector<std::string> names;
  std::vector<double> h;
  for (size_t i : idx) {
    names.push_back(proc[i]);
    h.push_back(lost[i] / 3600.0);
  }
  Chart ch;
  ch.id = "failure-processes";
  ch.title = "Lost time per failure process";
  ch.value_unit = "h";
  ch.height_px = std::max(280, static_cast<int>(names.size()) * 22 + 90);
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["grid"]["left"] = 180;
  ch.option["xAxis"] = value_axis("lost time (hours)");
  ch.option["yAxis"] = category_axis(names);
  ch.option["yAxis"]["axisLabel"].update(nlohmann::ordered_json{{"width", 170}, {"overflow", "truncate"}});
  ch.option["series"] = {{{"type", "bar"}, {"name", "lost time"}, {"data", json_array(h)}}};
  const size_t top = idx.back();
  // Nothing to single out when no process costs anything ("nccl costs the most: 0 s over 0
  // events", 2026-12-05 review).
  ch.takeaway = std::isfinite(lost[top]) && lost[top] > 0
                    ? proc[top] + " costs the most: " + fmt_seconds(lost[top]) + " over " + fmt_num(count[top]) + " events on average"
                    : "no failure process costs any time on average";
  page.charts.push_back(std::move(ch));
}

void render_goodput(const Result& r, ReportPage& page) {
  page.title = "Goodput";
  if (const Value* n = r.scalar("name"))
    if (auto s = std::get_if<std::string>(n)) page.subtitle = *s;
  if (r.scalar("num_gpus")) page.subtitle += (page.subtitle.empty() ? "" : " · ") + fmt_count(r.number("num_gpus")) + " GPUs";
  if (finite_scalar(r, "ettr_fraction")) {
    // One decimal: a confidence interval narrower than a percent point must not read "90% to 90%".
    auto pct1 = [](double f) {
      char b[32];
      std::snprintf(b, sizeof b, "%.1f%%", f * 100);
      return std::string(b);
    };
    std::string line = "ETTR " + pct1(r.number("ettr_fraction"));
    if (finite_scalar(r, "ettr_ci_low_fraction") && finite_scalar(r, "ettr_ci_high_fraction"))
      line += " (95% CI " + pct1(r.number("ettr_ci_low_fraction")) + " to " + pct1(r.number("ettr_ci_high_fraction")) + ")";
    if (r.scalar("job_mttf_s") && std::isfinite(r.number("job_mttf_s"))) line += "; the job fails every " + fmt_seconds(r.number("job_mttf_s")) + " on average";
    page.takeaways.push_back(line);
  }
  lost_time(r, page);
  ettr_vs_interval(r, page);
  strategies(r, page);
  processes(r, page);
}

}  // namespace

void register_goodput_renderers(RendererRegistry& reg) { reg.add("goodput", render_goodput); }

}  // namespace sextant::report
