// Reports of `sextant infer serve|estimate|plan`: latency percentiles of TTFT/TPOT/ITL/E2E against
// the SLO, the TTFT/TPOT distributions over requests (CDF of the per-request table), throughput and
// latency against offered load (the load_sweep table), KV-cache occupancy and queue over time, per-iteration time by component, and the plan's
// candidates (cost against SLO attainment).
#include <algorithm>
#include <cmath>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

// Whether the run had a latency SLO: a bound of 0 s is none (every request meets it). A result
// without either scalar is taken as having one (its attainment column is what it says).
bool has_slo(const Result& r) {
  if (!r.scalar("slo_ttft_s") && !r.scalar("slo_tpot_s")) return true;
  for (const char* k : {"slo_ttft_s", "slo_tpot_s"})
    if (r.scalar(k) && r.number(k) > 0) return true;
  return false;
}

void latency(const Result& r, ReportPage& page) {
  const Table* t = r.table("latency");
  if (!t || t->rows() == 0) return;
  const auto metric = texts(*t, "metric");
  std::vector<std::string> pcols, plabels;
  for (const auto& c : t->columns())
    if (c.name != "metric" && is_numeric(c)) {
      pcols.push_back(c.name);
      std::string l = c.name.substr(0, c.name.size() - 2);  // "p99_s" -> "p99"
      plabels.push_back(l);
    }
  Chart ch;
  ch.id = "latency";
  ch.title = "Latency distribution: percentiles of TTFT, TPOT, ITL and end-to-end";
  ch.value_unit = "ms";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(plabels, "percentile");
  ch.option["yAxis"] = {{"type", "log"}, {"name", "latency (ms, log scale)"}, {"nameLocation", "middle"}, {"nameGap", 52}};
  auto series = nlohmann::ordered_json::array();
  for (size_t i = 0; i < metric.size(); ++i) {
    std::vector<double> v;
    for (const auto& c : pcols) v.push_back(numbers(*t, c)[i] * 1e3);
    nlohmann::ordered_json s = {{"type", "line"}, {"name", metric[i]}, {"data", json_array(v)}};
    const std::string slo = "slo_" + metric[i] + "_s";
    if (finite_scalar(r, slo))
      s["markLine"] = {{"symbol", "none"},
                       {"label", {{"formatter", metric[i] + " SLO"}}},
                       {"lineStyle", {{"type", "dashed"}}},
                       {"data", {{{"yAxis", r.number(slo) * 1e3}}}}};
    series.push_back(s);
  }
  ch.option["series"] = series;
  std::string take;
  for (const char* m : {"ttft", "tpot"}) {
    const std::string p99 = std::string(m) + "_p99_s", slo = std::string("slo_") + m + "_s";
    if (!r.scalar(p99)) continue;
    if (!take.empty()) take += ", ";
    std::string up = m;
    std::transform(up.begin(), up.end(), up.begin(), ::toupper);
    take += "p99 " + up + " " + fmt_seconds(r.number(p99));
    if (r.scalar(slo) && r.number(slo) > 0) take += " (SLO " + fmt_seconds(r.number(slo)) + ")";
  }
  // A run without an SLO (both bounds 0) meets it trivially: not claimed (it had read "SLO 0 s;
  // 100% of requests meet the SLO", 2026-12-04 review).
  if (has_slo(r) && r.scalar("slo_attainment_fraction")) take += "; " + fmt_pct(r.number("slo_attainment_fraction")) + " of requests meet the SLO";
  ch.takeaway = take;
  page.takeaways.push_back(take);
  page.charts.push_back(std::move(ch));
}

// Sorted finite values of a numeric column (NaN: one-token outputs have no TPOT).
std::vector<double> sorted_finite(const Table& t, const std::string& col) {
  std::vector<double> v;
  for (double x : numbers(t, col))
    if (std::isfinite(x)) v.push_back(x);
  std::sort(v.begin(), v.end());
  return v;
}

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return std::nan("");
  const double pos = q * (v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  return i + 1 < v.size() ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v.back();
}

// Empirical CDF of TTFT and TPOT over the per-request table (at most 200 points a series).
void latency_cdf(const Result& r, ReportPage& page) {
  const Table* t = r.table("requests");
  if (!t || t->rows() == 0 || !t->has_column("ttft_s") || !t->has_column("tpot_s")) return;
  Chart ch;
  ch.id = "latency-cdf";
  ch.title = "Distribution of TTFT and TPOT over requests (cumulative share of requests)";
  ch.value_unit = "";
  ch.value_labels = {"latency (ms)", "requests (%)"};
  ch.option = base_option();
  ch.option["xAxis"] = {{"type", "log"}, {"name", "latency (ms, log scale)"}, {"nameLocation", "middle"}, {"nameGap", 28}};
  ch.option["yAxis"] = value_axis("requests at or below (%)");
  ch.option["yAxis"]["max"] = 100;
  // Requests refused at arrival are not in the table (they have no latency) but are requests: the
  // shares are of every request, so the curves stop below 100% by the refused share. Before
  // 2026-12-06 (review) 37 of 200 refused drew curves up to 100% and "62% within its SLO" was of
  // the 163 completed only.
  const double refused = finite_scalar(r, "rejected_count") ? std::max(0.0, r.number("rejected_count")) : 0.0;
  auto series = nlohmann::ordered_json::array();
  std::string take;
  for (const char* m : {"ttft", "tpot"}) {
    const auto v = sorted_finite(*t, std::string(m) + "_s");
    if (v.empty()) continue;
    auto pts = nlohmann::ordered_json::array();
    const size_t n = v.size(), step = std::max<size_t>(1, n / 200);
    const double all = static_cast<double>(n) + refused;
    for (size_t i = 0; i < n; i += step) pts.push_back({std::max(v[i], 1e-6) * 1e3, 100.0 * static_cast<double>(i + 1) / all});
    if ((n - 1) % step != 0) pts.push_back({std::max(v[n - 1], 1e-6) * 1e3, 100.0 * static_cast<double>(n) / all});
    std::string up = m;
    std::transform(up.begin(), up.end(), up.begin(), ::toupper);
    nlohmann::ordered_json s = {{"type", "line"}, {"name", up}, {"step", "end"}, {"showSymbol", false}, {"data", pts}};
    const std::string slo = std::string("slo_") + m + "_s";
    std::string within;
    if (r.scalar(slo) && r.number(slo) > 0) {
      const double bound = r.number(slo);
      s["markLine"] = {{"symbol", "none"},
                       {"label", {{"formatter", up + " SLO"}}},
                       {"lineStyle", {{"type", "dashed"}}},
                       {"data", {{{"xAxis", bound * 1e3}}}}};
      const double share = static_cast<double>(std::upper_bound(v.begin(), v.end(), bound) - v.begin()) / all;
      within = ", " + fmt_pct(share) + " within its SLO";
    }
    series.push_back(s);
    const double p50 = quantile_sorted(v, 0.5), p99 = quantile_sorted(v, 0.99);
    if (!take.empty()) take += "; ";
    take += up + " median " + fmt_seconds(p50) + ", p99 " + fmt_seconds(p99) + " (" + fmt_num(p50 > 0 ? p99 / p50 : 0) +
            "x the median)" + within;
  }
  if (series.empty()) return;
  ch.option["series"] = series;
  if (refused > 0) {
    const std::string n_refused = fmt_count(refused);
    ch.title += " (" + n_refused + " refused at arrival have no latency: the curves stop below 100%)";
    take += "; shares of all requests, " + n_refused + " refused at arrival among them (medians and p99s of those completed)";
  }
  ch.takeaway = take;
  page.takeaways.push_back(take);
  page.charts.push_back(std::move(ch));
}

// Request-rate sweep: achieved throughput and goodput, and latency percentiles, against the
// offered rate.
void load_sweep(const Result& r, ReportPage& page) {
  const Table* t = r.table("load_sweep");
  if (!t || t->rows() == 0) return;
  const auto offered = numbers(*t, "offered_requests_per_s"), thr = numbers(*t, "throughput_requests_per_s");
  const auto good = numbers(*t, "goodput_requests_per_s"), slo = numbers(*t, "slo_attainment_fraction");
  auto pairs = [&](const std::vector<double>& y, double scale) {
    auto a = nlohmann::ordered_json::array();
    for (size_t i = 0; i < offered.size(); ++i) a.push_back({offered[i], y[i] * scale});
    return a;
  };
  Chart ch;
  ch.id = "throughput-vs-load";
  ch.title = "Throughput against offered load (requests/s); SLO attainment on the right";
  // Each series' values with their unit in tooltips ("value 1.68" before; review of 2026-12-06).
  ch.value_labels = {"offered (requests/s)", "achieved (requests/s)"};
  ch.series_value_labels = {{"goodput (meets the SLO)", "goodput (requests/s)"}, {"SLO attainment (%)", "SLO attainment (%)"}};
  ch.option = base_option();
  ch.option["xAxis"] = {{"type", "value"}, {"name", "offered load (requests/s)"}, {"nameLocation", "middle"}, {"nameGap", 28}};
  ch.option["yAxis"] = {value_axis("achieved (requests/s)"), value_axis("SLO attainment (%)")};
  ch.option["yAxis"][1]["max"] = 100;
  const double hi = offered.empty() ? 0 : *std::max_element(offered.begin(), offered.end());
  const bool slo_set = has_slo(r);
  ch.option["series"] = {
      {{"type", "line"}, {"name", "throughput"}, {"data", pairs(thr, 1)}},
      {{"type", "line"}, {"name", "offered = achieved"}, {"showSymbol", false}, {"lineStyle", {{"type", "dotted"}}},
       {"data", {{0, 0}, {hi, hi}}}}};
  if (slo_set) {
    ch.option["series"].push_back({{"type", "line"}, {"name", "goodput (meets the SLO)"}, {"data", pairs(good, 1)}});
    ch.option["series"].push_back({{"type", "line"}, {"name", "SLO attainment (%)"}, {"yAxisIndex", 1}, {"data", pairs(slo, 100)}});
  } else {
    ch.title = "Throughput against offered load (requests/s); no SLO set";
    ch.option["yAxis"] = value_axis("achieved (requests/s)");
  }
  // Takeaway: the highest throughput reached, and the highest offered rate at which the SLO still
  // holds for 90% of requests (the sweep's own points).
  size_t best = 0;
  for (size_t i = 0; i < thr.size(); ++i)
    if (thr[i] > thr[best]) best = i;
  double ok_rate = -1;
  for (size_t i = 0; i < offered.size(); ++i)
    if (slo[i] >= 0.9) ok_rate = std::max(ok_rate, offered[i]);
  // Said of the swept rates: the run's own rate may lie beyond them (a sweep of 0.2 and 0.5 of it
  // had read "throughput peaks at 10.7" beside the run's 16.8 requests/s; review of 2026-12-05).
  ch.takeaway = "among the swept rates, throughput peaks at " + fmt_num(thr[best]) + " requests/s (offered " + fmt_num(offered[best]) + ")";
  if (slo_set)
    ch.takeaway += std::string("; ") + (ok_rate > 0 ? "90% of requests meet the SLO up to " + fmt_num(ok_rate) + " requests/s offered of those swept"
                                                    : "fewer than 90% of requests meet the SLO at every rate swept");
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));

  Chart lc;
  lc.id = "latency-vs-load";
  lc.title = "TTFT and TPOT percentiles against offered load";
  lc.value_unit = "ms";
  lc.value_labels = {"offered (requests/s)", "latency (ms)"};
  lc.option = base_option();
  lc.option["xAxis"] = {{"type", "value"}, {"name", "offered load (requests/s)"}, {"nameLocation", "middle"}, {"nameGap", 28}};
  lc.option["yAxis"] = {{"type", "log"}, {"name", "latency (ms, log scale)"}, {"nameLocation", "middle"}, {"nameGap", 52}};
  auto ls = nlohmann::ordered_json::array();
  for (const char* c : {"ttft_p50_s", "ttft_p99_s", "tpot_p50_s", "tpot_p99_s"}) {
    std::string name = c;
    name = name.substr(0, name.size() - 2);
    std::transform(name.begin(), name.begin() + 4, name.begin(), ::toupper);
    name[4] = ' ';  // "TTFT p50"
    ls.push_back({{"type", "line"}, {"name", name}, {"data", pairs(numbers(*t, c), 1e3)}});
  }
  lc.option["series"] = ls;
  const auto t99 = numbers(*t, "ttft_p99_s"), p99 = numbers(*t, "tpot_p99_s");
  const size_t lo_i = static_cast<size_t>(std::min_element(offered.begin(), offered.end()) - offered.begin());
  const size_t hi_i = static_cast<size_t>(std::max_element(offered.begin(), offered.end()) - offered.begin());
  lc.takeaway = "from " + fmt_num(offered[lo_i]) + " to " + fmt_num(offered[hi_i]) + " requests/s offered, p99 TTFT goes from " +
                fmt_seconds(t99[lo_i]) + " to " + fmt_seconds(t99[hi_i]) + " and p99 TPOT from " + fmt_seconds(p99[lo_i]) + " to " +
                fmt_seconds(p99[hi_i]);
  page.takeaways.push_back(lc.takeaway);
  page.charts.push_back(std::move(lc));
}

void memory_timeline(const Result& r, ReportPage& page) {
  const Table* t = r.table("memory_timeline");
  if (!t || t->rows() == 0) return;
  const auto time = numbers(*t, "time_s");
  const auto frac = numbers(*t, "kv_used_fraction");
  const auto running = numbers(*t, "running_count");
  const auto waiting = numbers(*t, "waiting_count");
  auto kv = nlohmann::ordered_json::array(), run = nlohmann::ordered_json::array(), wait = nlohmann::ordered_json::array();
  double peak = 0, max_wait = 0;
  for (size_t i = 0; i < time.size(); ++i) {
    kv.push_back({time[i], frac[i] * 100});
    run.push_back({time[i], running[i]});
    wait.push_back({time[i], waiting[i]});
    peak = std::max(peak, frac[i]);
    max_wait = std::max(max_wait, waiting[i]);
  }
  Chart ch;
  ch.id = "kv-timeline";
  ch.title = "KV cache occupancy and requests over time";
  ch.value_labels = {"time (s)", "KV cache used (%)"};  // and the requests' counts (review of 2026-12-06)
  ch.series_value_labels = {{"running", "running (requests)"}, {"waiting", "waiting (requests)"}};
  ch.option = base_option();
  // By time: lines drawn without symbols give an item tooltip nothing to hover, and this chart's
  // tooltip never showed (review of 2026-12-06).
  ch.option["tooltip"]["trigger"] = "axis";
  ch.option["xAxis"] = {{"type", "value"}, {"name", "time (s)"}, {"nameLocation", "middle"}, {"nameGap", 28}};
  ch.option["yAxis"] = {value_axis("KV cache used (%)"), value_axis("requests (count)")};
  ch.option["yAxis"][0]["max"] = 100;
  ch.option["series"] = {{{"type", "line"}, {"name", "KV used (%)"}, {"showSymbol", false}, {"areaStyle", nlohmann::ordered_json::object()}, {"data", kv}},
                         {{"type", "line"}, {"name", "running"}, {"yAxisIndex", 1}, {"showSymbol", false}, {"data", run}},
                         {{"type", "line"}, {"name", "waiting"}, {"yAxisIndex", 1}, {"showSymbol", false}, {"data", wait}}};
  // The peak of the busiest pool, the result's kv_peak_fraction as in the Figures table: the timeline
  // sums the pools (a disaggregated deployment's prefill and decode pools), and its peak had been
  // given as "KV cache peaks at 3.1% of capacity" beside a kv_peak_fraction of 0.0492 (review of
  // 2026-12-06). Where the two differ, the drawn total is named as such.
  const bool busiest = finite_scalar(r, "kv_peak_fraction");
  const double pool_peak = busiest ? r.number("kv_peak_fraction") : peak;
  // As printed: two figures that read alike are one (2.404% and 2.366% had been given as "2.4% ...
  // all pools together peak at 2.4%"; review of 2026-12-06).
  const bool pools_differ = fmt_pct(pool_peak) != fmt_pct(peak);
  if (pools_differ) {
    ch.option["yAxis"][0]["name"] = "KV cache used, all pools (%)";
    ch.option["series"][0]["name"] = "KV used, all pools (%)";
    ch.value_labels.back() = "KV cache used, all pools (%)";
  }
  ch.takeaway = "KV cache peaks at " + fmt_pct(pool_peak) + " of capacity" +
                (pools_differ ? " in the busiest pool (kv_peak_fraction); all pools together, as drawn, peak at " + fmt_pct(peak) : std::string()) +
                "; at most " + std::to_string(static_cast<int64_t>(std::llround(max_wait))) + " requests wait";
  page.charts.push_back(std::move(ch));
}

void iterations(const Result& r, ReportPage& page) {
  const Table* t = r.table("iterations");
  if (!t || t->rows() == 0 || !t->has_column("compute_s")) return;
  const auto phase = texts(*t, "phase");
  const auto ctx = numbers(*t, "context_tokens");
  const auto comp = numbers(*t, "compute_s"), mem = numbers(*t, "memory_s");
  // One chart per phase: a prefill of a long prompt takes 100x a decode step (1,585 ms against
  // 17 ms for Llama 2 7B on an M2 Max), and on one linear axis the decode bars, what an on-device
  // user reads first, were under 1% of it and the total line joined the two phases as a trend
  // (review of 2026-12-07). The decode chart keeps the id iteration-time; the prefill's, where the
  // result has both, is prefill-iteration-time.
  std::vector<std::string> phases;
  for (const auto& ph : phase)
    if (std::find(phases.begin(), phases.end(), ph) == phases.end()) phases.push_back(ph);
  std::sort(phases.begin(), phases.end(), [](const std::string& a, const std::string& b) { return (a == "decode") < (b == "decode"); });
  std::string take;
  for (const auto& ph : phases) {
    std::vector<size_t> rows;
    for (size_t i = 0; i < phase.size(); ++i)
      if (phase[i] == ph) rows.push_back(i);
    std::vector<std::string> cats;
    for (size_t i : rows) cats.push_back(phase[i] + " @" + fmt_count(ctx[i]) + " tokens");
    Chart ch;
    ch.id = phases.size() > 1 && ph != "decode" ? ph + "-iteration-time" : "iteration-time";
    ch.title = "Time of one " + ph + " iteration by component (compute and memory overlap; the larger bounds it)";
    ch.value_unit = "ms";
    ch.option = base_option();
    ch.option["xAxis"] = category_axis(cats, ph + " iteration (context length)");
    ch.option["yAxis"] = value_axis("time (ms)");
    auto series = nlohmann::ordered_json::array();
    auto picked_ms = [&](const char* column) {
      const auto all = numbers(*t, column);
      std::vector<double> v;
      for (size_t i : rows) v.push_back(all[i] * 1e3);
      return v;
    };
    for (const char* c : {"compute_s", "memory_s", "comm_s", "overhead_s"}) {
      if (!t->has_column(c)) continue;
      const std::string name = std::string(c).substr(0, std::string(c).size() - 2);
      series.push_back({{"type", "bar"}, {"name", name}, {"data", json_array(picked_ms(c))}});
    }
    series.push_back({{"type", "line"}, {"name", "total"}, {"data", json_array(picked_ms("total_s"))}});
    ch.option["series"] = series;
    const size_t i = rows.front();
    const std::string one = ph + " is " + (comp[i] >= mem[i] ? "compute-bound" : "memory-bound") + " (" + fmt_seconds(comp[i]) +
                            " compute vs " + fmt_seconds(mem[i]) + " memory)";
    ch.takeaway = one;
    if (ph == "prefill" || ph == "decode") take = take.empty() ? one : (ph == "prefill" ? one + "; " + take : take + "; " + one);
    page.charts.push_back(std::move(ch));
  }
  if (!take.empty()) page.takeaways.push_back(take);
}

void candidates(const Result& r, ReportPage& page) {
  const Table* t = r.table("candidates");
  if (!t || t->rows() == 0) return;
  const auto acc = texts(*t, "accelerator"), policy = texts(*t, "policy"), status = texts(*t, "status");
  const auto tp = numbers(*t, "tp"), rep = numbers(*t, "replicas"), batch = numbers(*t, "max_batch_seqs");
  const auto usd = numbers(*t, "usd_per_hour"), slo = numbers(*t, "slo_attainment_fraction");
  auto ok = nlohmann::ordered_json::array(), bad = nlohmann::ordered_json::array();
  for (size_t i = 0; i < acc.size(); ++i) {
    const std::string name = acc[i] + " tp" + fmt_count(tp[i]) + " x" + fmt_count(rep[i]) + " " + policy[i] + " batch " + fmt_count(batch[i]);
    nlohmann::ordered_json p = {{"name", name}, {"value", {usd[i], slo[i] * 100}}};
    (status[i] == "ok" ? ok : bad).push_back(p);
  }
  Chart ch;
  ch.id = "plan-candidates";
  ch.title = "Deployment candidates: cost against SLO attainment";
  ch.value_labels = {"cost (USD/hour)", "SLO attainment (%)"};
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["xAxis"] = value_axis("cost (USD/hour)");
  ch.option["yAxis"] = value_axis("SLO attainment (%)");
  ch.option["yAxis"]["scale"] = true;
  auto series = nlohmann::ordered_json::array();
  series.push_back({{"type", "scatter"}, {"name", "meets the SLO"}, {"data", ok}});
  if (!bad.empty()) series.push_back({{"type", "scatter"}, {"name", "misses or does not fit"}, {"data", bad}});
  if (finite_scalar(r, "required_slo_attainment_fraction"))
    series[0]["markLine"] = {{"symbol", "none"},
                             {"label", {{"formatter", "required"}}},
                             {"lineStyle", {{"type", "dashed"}}},
                             {"data", {{{"yAxis", r.number("required_slo_attainment_fraction") * 100}}}}};
  ch.option["series"] = series;
  if (const Value* f = r.scalar("found"); f && std::get_if<bool>(f) && std::get<bool>(*f) && r.scalar("best_usd_per_hour")) {
    std::string best;
    if (const Value* a = r.scalar("best_accelerator"))
      if (auto s = std::get_if<std::string>(a)) best = *s;
    ch.takeaway = "cheapest deployment meeting the SLO: " + best + " on " + fmt_count(r.number("best_devices_count")) +
                  " devices at " + fmt_num(r.number("best_usd_per_hour")) + " USD/hour (" + std::to_string(ok.size()) + " of " +
                  std::to_string(acc.size()) + " candidates meet the SLO)";
  } else {
    ch.takeaway = "no candidate meets the SLO (" + std::to_string(acc.size()) + " tried)";
    // The closest candidate and what stops it (infer plan's closest_* scalars; review of 2026-12-07).
    auto text = [&](const char* key) {
      const Value* v = r.scalar(key);
      const auto* s = v ? std::get_if<std::string>(v) : nullptr;
      return s ? *s : std::string();
    };
    if (const std::string closest = text("closest_accelerator"); !closest.empty() && r.scalar("closest_devices_count")) {
      ch.takeaway += "; the closest, " + closest + " on " + fmt_count(r.number("closest_devices_count")) + " devices";
      if (finite_scalar(r, "closest_slo_attainment_fraction"))
        ch.takeaway += ", meets it for " + fmt_num(r.number("closest_slo_attainment_fraction") * 100) + "% of the requests";
      const std::string limit = text("closest_limit");
      ch.takeaway += limit == "max_devices" ? ": more devices than plan.max_devices may" : ": more devices cannot help (see the notes)";
    }
  }
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

// Whether scalar k is the boolean false.
bool is_false(const Result& r, const char* k) {
  const Value* v = r.scalar(k);
  return v && std::get_if<bool>(v) && !std::get<bool>(*v);
}

// The fit of an estimate, first in the headline: the memory one device holds (weights, KV cache,
// activation workspace) against the usable memory, and whether the deployment fits. Before
// 2026-12-06 (review) the headline spoke of prefill and decode only, and a deployment of 16 GB of
// weights on a 4.3 GB device read as if it ran (its JSON said fits: false, and a note why).
void fit(const Result& r, ReportPage& page) {
  const char* parts[] = {"weights_bytes_per_device", "kv_bytes_per_device", "activation_workspace_bytes_per_device"};
  std::string line;
  if (finite_scalar(r, "memory_usable_bytes_per_device") &&
      std::all_of(std::begin(parts), std::end(parts), [&](const char* k) { return finite_scalar(r, k); })) {
    double used = 0;
    for (const char* k : parts) used += r.number(k);
    // A draft model's weights, beside the target's (weights_bytes_per_device is the target's alone
    // since 2026-12-07, review): counted and named.
    const bool draft = finite_scalar(r, "draft_weights_bytes_per_device");
    if (draft) used += r.number("draft_weights_bytes_per_device");
    const std::string usable = fmt_bytes(r.number("memory_usable_bytes_per_device"));
    const std::string split = " (weights " + fmt_bytes(r.number(parts[0])) +
                              (draft ? ", draft weights " + fmt_bytes(r.number("draft_weights_bytes_per_device")) : std::string()) +
                              ", KV cache " + fmt_bytes(r.number(parts[1])) + ", activation workspace " + fmt_bytes(r.number(parts[2])) + ")";
    line = is_false(r, "fits_memory") ? "does not fit in memory: needs " + fmt_bytes(used) + " per device, " + usable + " usable" + split
                                      : "memory " + fmt_bytes(used) + " per device of " + usable + " usable" + split;
  } else if (is_false(r, "fits_memory")) {
    line = "does not fit in memory";
  }
  // The window itself (context_window_tokens): max_context_tokens is memory's limit capped by it,
  // and had been printed as the window ("at most 0 tokens" where Llama 3.1 70B's is 131,072 and the
  // memory held none; 2026-12-06 review).
  if (is_false(r, "fits_context")) {
    std::string ctx = "does not fit the model's context window: the prompt + output is beyond ";
    ctx += finite_scalar(r, "context_window_tokens") ? "its " + fmt_count(r.number("context_window_tokens")) + " tokens" : std::string("it");
    line = line.empty() ? ctx : line + "; " + ctx;
  }
  if (!line.empty()) page.takeaways.push_back(line);
}

// Requests refused at arrival (beyond an instance's KV cache, a pass or the model's context window),
// said in the headline: 36 of 200 refused had been in a note only (2026-12-06 review).
void refusals(const Result& r, ReportPage& page) {
  if (!finite_scalar(r, "rejected_count") || !(r.number("rejected_count") > 0)) return;
  std::string line = fmt_count(r.number("rejected_count"));
  if (finite_scalar(r, "requests_count") && r.number("requests_count") > 0)
    line += " of " + fmt_count(r.number("requests_count")) + " requests (" + fmt_pct(r.number("rejected_count") / r.number("requests_count")) + ")";
  else
    line += " requests";
  page.takeaways.push_back(line + " refused at arrival, as an engine refuses a request it cannot hold (the notes say why); they count as "
                                  "SLO misses");
}

std::string scalar_text(const Result& r, const char* k) {
  const Value* v = r.scalar(k);
  if (!v) return {};
  if (auto s = std::get_if<std::string>(v)) return *s;
  return fmt_num(r.number(k));
}

void render_infer(const Result& r, ReportPage& page) {
  page.title = r.command == "infer serve" ? "Serving simulation" : r.command == "infer plan" ? "Inference deployment plan" : "Inference estimate";
  std::string sub;
  for (const char* k : {"model", "accelerator", "engine", "policy"}) {
    const std::string v = scalar_text(r, k);
    if (v.empty()) continue;
    sub += (sub.empty() ? "" : " · ") + v;
  }
  if (sub.empty() && finite_scalar(r, "rate_per_s")) {  // infer plan: the demand and the SLO it was planned for
    sub = fmt_num(r.number("rate_per_s")) + " requests/s";
    // A bound the study does not set is NaN (no SLO): left out, not "n/a" (2026-12-06 review).
    if (finite_scalar(r, "slo_ttft_s")) sub += " · TTFT SLO " + fmt_seconds(r.number("slo_ttft_s"));
    if (finite_scalar(r, "slo_tpot_s")) sub += " · TPOT SLO " + fmt_seconds(r.number("slo_tpot_s"));
    if (r.scalar("required_slo_attainment_fraction")) sub += " · " + fmt_pct(r.number("required_slo_attainment_fraction")) + " attainment";
  }
  page.subtitle = sub;
  // The offered rate only where the result states one: a trace's is its mean arrival rate, null
  // for fewer than two arrivals (before 2026-12-06 (review) a trace read "73.8 output tokens/s at 0
  // requests/s offered", a missing rate taken as 0).
  if (r.scalar("output_tokens_per_s")) {
    std::string line = fmt_num(r.number("output_tokens_per_s")) + " output tokens/s";
    if (finite_scalar(r, "rate_per_s") && r.number("rate_per_s") > 0) {
      line += " at " + fmt_num(r.number("rate_per_s")) + " requests/s offered";
      if (scalar_text(r, "arrival") == "trace") line += " (the trace's mean arrival rate)";
    }
    if (finite_scalar(r, "load_fraction")) line += " (" + fmt_pct(r.number("load_fraction")) + " of capacity)";
    page.takeaways.push_back(line);
  }
  refusals(r, page);
  fit(r, page);
  latency(r, page);
  latency_cdf(r, page);
  load_sweep(r, page);
  memory_timeline(r, page);
  iterations(r, page);
  candidates(r, page);
}

}  // namespace

void register_infer_renderers(RendererRegistry& reg) { reg.add("infer", render_infer); }

}  // namespace sextant::report
