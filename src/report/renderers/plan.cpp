// Reports of `sextant plan` and `sextant sweep`.
// plan: step time of the ranked plans (ties marked), memory against step time of every fitting
// plan, the winner's breakdown against the runner-up's.
// sweep: every grid point in the two Pareto objectives with the Pareto front drawn through the
// non-dominated points, the sensitivity tornado (elasticity of step time per parameter, with the
// plan held and re-planned), and the best step time along the first varied parameter.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "report/registry.hpp"

namespace sextant::report {

namespace {

// A value of a varied key: a whole number (a GPU count, a domain size) in full, 64 not 64.0.
std::string fmt_key_value(double v) {
  if (std::isfinite(v) && v == std::round(v) && std::fabs(v) < 1e7) return fmt_count(v);
  return fmt_num(v);
}

std::string text_scalar(const Result& r, const char* k) {
  const Value* v = r.scalar(k);
  if (!v) return {};
  if (auto s = std::get_if<std::string>(v)) return *s;
  return fmt_count(r.number(k));
}

void ranking(const Result& r, ReportPage& page) {
  const Table* t = r.table("ranking");
  if (!t || t->rows() == 0 || !t->has_column("step_time_s")) return;
  const size_t n = std::min<size_t>(t->rows(), 25);
  const auto rank = numbers(*t, "rank");
  const auto step = numbers(*t, "step_time_s");
  const auto tie = t->has_column("tie") ? texts(*t, "tie") : std::vector<std::string>(t->rows());
  // A plan label from the plan columns between "tie" and "step_time_s".
  std::vector<std::string> plan_cols;
  bool in = false;
  for (const auto& c : t->columns()) {
    if (c.name == "step_time_s") break;
    if (in) plan_cols.push_back(c.name);
    if (c.name == "tie" || c.name == "rank") in = true;
  }
  std::vector<std::string> labels;
  auto tied = nlohmann::ordered_json::array(), other = nlohmann::ordered_json::array();
  for (size_t i = 0; i < n; ++i) {
    std::string l = "#" + fmt_count(rank[i]);
    for (const auto& c : plan_cols)
      if (c != "tie") l += " " + c + "=" + t->column(c).cell_text(i);
    labels.push_back(l);
    const bool is_tie = !tie[i].empty() && tie[i] != "-" && tie[i] != "no";
    tied.push_back(is_tie ? nlohmann::ordered_json(step[i]) : nlohmann::ordered_json(nullptr));
    other.push_back(is_tie ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(step[i]));
  }
  std::reverse(labels.begin(), labels.end());
  std::reverse(tied.begin(), tied.end());
  std::reverse(other.begin(), other.end());
  Chart ch;
  ch.id = "plan-ranking";
  // Counts of the whole search (the ranked table may be cut to --top rows).
  size_t ties = 0;
  for (size_t i = 0; i < t->rows(); ++i) ties += (!tie[i].empty() && tie[i] != "-" && tie[i] != "no") ? 1 : 0;
  auto count = [&](const char* name, size_t fallback) {
    const Value* v = r.scalar(name);
    return v && std::holds_alternative<int64_t>(*v) ? static_cast<size_t>(std::get<int64_t>(*v)) : fallback;
  };
  const size_t fit = count("plans_fit_count", t->rows());
  ties = count("plans_tied_with_best_count", ties);
  // The title and takeaway count the bars drawn (at most 25), not the rows of the ranked table:
  // before 2026-12-06 (review) `--top 40` read "the 40 fastest are drawn" over 25 bars, and
  // `--top 0` (every fitting plan ranked) did not say that only 25 were drawn.
  ch.title = fit > n ? "The " + std::to_string(n) + " fastest plans (step time)" : "Fastest plans (step time)";
  ch.value_unit = "s";
  ch.height_px = std::max(300, static_cast<int>(n) * 22 + 90);
  ch.option = base_option();
  ch.option["grid"]["left"] = 330;
  // Bars from zero: an axis starting at the best plan (scale: true) made its bar a sliver and a 1%
  // gap look ten times larger (2026-12-03 review).
  ch.option["xAxis"] = value_axis("step time (s)");
  ch.option["yAxis"] = category_axis(labels);
  ch.option["yAxis"]["axisLabel"].update(nlohmann::ordered_json{{"width", 320}, {"overflow", "truncate"}});
  ch.option["series"] = {{{"type", "bar"}, {"stack", "p"}, {"name", "tied with the best (within the model's error)"}, {"data", tied}},
                         {{"type", "bar"}, {"stack", "p"}, {"name", "slower"}, {"data", other}}};
  ch.takeaway = "best plan " + fmt_seconds(step[0]) + " per step" +
                (fit > 1 ? "; " + std::to_string(ties) + " of " + std::to_string(fit) + " fitting plans are within the model's error of it" +
                               (fit > n ? " (the " + std::to_string(n) + " fastest are drawn)" : "")
                         : "");
  // The scenario's own plan and the realism of the best MFU belong in the headline, not only in
  // the notes (the plan report had shown neither).
  if (r.scalar("own_plan_rank") && r.scalar("own_plan_step_time_s") && r.scalar("own_plan_slower_than_best_fraction"))
    ch.takeaway += "; the scenario's own plan (" + text_scalar(r, "own_plan") + ") ranks " + fmt_count(r.number("own_plan_rank")) + ", " +
                   fmt_seconds(r.number("own_plan_step_time_s")) + ", " + fmt_pct(r.number("own_plan_slower_than_best_fraction")) +
                   " slower than the best";
  else if (const Value* st = r.scalar("own_plan_status"); st && std::get_if<std::string>(st) && std::get<std::string>(*st) != "ranked")
    ch.takeaway += "; the scenario's own plan: " + std::get<std::string>(*st);
  if (r.scalar("best_mfu_fraction") && r.scalar("validated_mfu_max_fraction") &&
      r.number("best_mfu_fraction") > r.number("validated_mfu_max_fraction"))
    ch.takeaway += "; the best plan's MFU of " + fmt_pct(r.number("best_mfu_fraction")) + " is above the highest validated (" +
                   fmt_pct(r.number("validated_mfu_max_fraction")) + "): read its speed as an upper bound";
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));

  if (!t->has_column("memory_per_gpu_bytes")) return;
  const auto mem = numbers(*t, "memory_per_gpu_bytes");
  auto pts = nlohmann::ordered_json::array();
  for (size_t i = 0; i < t->rows(); ++i)
    pts.push_back({{"name", "#" + fmt_count(rank[i])}, {"value", {mem[i] / (1024.0 * 1024 * 1024), step[i]}}});
  Chart sc;
  sc.id = "plan-memory-vs-time";
  sc.title = fit > t->rows() ? "The " + std::to_string(t->rows()) + " fastest fitting plans: memory per GPU against step time"
                             : "Every fitting plan: memory per GPU against step time";
  sc.value_labels = {"memory per GPU (GiB)", "step time (s)"};
  sc.option = base_option();
  sc.option["tooltip"]["trigger"] = "item";
  sc.option["xAxis"] = value_axis("memory per GPU (GiB)");
  sc.option["yAxis"] = value_axis("step time (s)");
  sc.option["yAxis"]["scale"] = true;
  nlohmann::ordered_json s = {{"type", "scatter"}, {"name", "plans"}, {"symbolSize", 6}, {"data", pts}};
  if (finite_scalar(r, "memory_capacity_bytes"))
    s["markLine"] = {{"symbol", "none"},
                     {"label", {{"formatter", "capacity"}}},
                     {"lineStyle", {{"type", "dashed"}, {"color", "#b00020"}}},
                     {"data", {{{"xAxis", r.number("memory_capacity_bytes") / (1024.0 * 1024 * 1024)}}}}};
  sc.option["series"] = {s};
  const size_t fastest = static_cast<size_t>(std::min_element(step.begin(), step.end()) - step.begin());
  sc.takeaway = "the fastest plan uses " + fmt_bytes(mem[fastest]) + " per GPU; " + std::to_string(fit) + " plans fit" +
                (fit > t->rows() ? " (" + std::to_string(t->rows()) + " drawn)" : "");
  page.charts.push_back(std::move(sc));
}

void winner_vs_runner_up(const Result& r, ReportPage& page) {
  const Table* t = r.table("winner_vs_runner_up");
  if (!t || t->rows() == 0) return;
  const auto cat_all = texts(*t, "category"), item_all = texts(*t, "item");
  const auto a_all = numbers(*t, "winner_s"), b_all = numbers(*t, "runner_up_s");
  // The items without the total row: the total (a step of seconds) beside differences of tenths
  // hides them, and is always the largest difference; the takeaway names the driver.
  std::vector<std::string> labels;
  std::vector<double> a, b;
  for (size_t i = 0; i < cat_all.size(); ++i) {
    if (cat_all[i] == "total") continue;
    labels.push_back(cat_all[i] + ": " + item_all[i]);
    a.push_back(a_all[i]);
    b.push_back(b_all[i]);
  }
  if (labels.empty()) return;
  Chart ch;
  ch.id = "winner-vs-runner-up";
  ch.title = "Best plan against the runner-up, by step-time item";
  ch.value_unit = "s";
  ch.option = base_option();
  ch.option["xAxis"] = category_axis(labels, "item");
  ch.option["xAxis"]["axisLabel"].update(nlohmann::ordered_json{{"rotate", labels.size() > 5 ? 30 : 0}, {"width", 120}, {"overflow", "truncate"}});
  ch.option["yAxis"] = value_axis("time per step (s)");
  ch.option["series"] = {{{"type", "bar"}, {"name", "best"}, {"data", json_array(a)}},
                         {{"type", "bar"}, {"name", "runner-up"}, {"data", json_array(b)}}};
  size_t big = 0;
  double total = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    total += std::fabs(a[i]) + std::fabs(b[i]);
    if (std::fabs(b[i] - a[i]) > std::fabs(b[big] - a[big])) big = i;
  }
  // Items below a millionth of the step are rounding residue of a difference, shown as 0.
  auto shown = [&](double x) { return fmt_seconds(std::fabs(x) < 1e-6 * total ? 0.0 : x); };
  ch.takeaway = "the largest difference is " + labels[big] + ": " + shown(a[big]) + " against " + shown(b[big]);
  page.charts.push_back(std::move(ch));
}

void render_plan(const Result& r, ReportPage& page) {
  page.title = "Parallel plan search";
  page.subtitle = text_scalar(r, "model") + " · " + text_scalar(r, "system") + " · " + text_scalar(r, "num_gpus") + " GPUs";
  if (r.scalar("best_plan")) page.takeaways.push_back("best: " + text_scalar(r, "best_plan"));
  if (r.scalar("plans_enumerated_count"))
    // plans_fit_count counts the ranked plans; those dominated by a smaller recompute set fit too
    // (the headline had called the ranked ones all that fit; review of 2026-12-05).
    page.takeaways.push_back(text_scalar(r, "plans_enumerated_count") + " plans enumerated, " + text_scalar(r, "plans_valid_count") +
                             " valid, " + text_scalar(r, "plans_fit_count") + " ranked (fit in memory" +
                             (r.scalar("plans_dominated_recompute_count") && r.number("plans_dominated_recompute_count") > 0
                                  ? "; " + text_scalar(r, "plans_dominated_recompute_count") +
                                        " more fit but recompute more than needed, not ranked"
                                  : std::string()) +
                             ")");
  ranking(r, page);
  winner_vs_runner_up(r, page);
}

// ---- sweep ----

// Varied keys are the leading numeric columns before "best_plan".
std::vector<std::string> varied(const Table& t) {
  std::vector<std::string> out;
  for (const auto& c : t.columns()) {
    if (c.name == "best_plan") break;
    out.push_back(c.name);
  }
  return out;
}

std::string axis_name(const std::string& col) {
  const Unit u = unit_of(col);
  return col + (u.label.empty() ? "" : " (" + u.label + ")");
}

void pareto(const Result& r, ReportPage& page) {
  const Table* pf = r.table("pareto");
  const Table* sw = r.table("sweep");
  if (!pf || !sw || pf->rows() == 0) return;
  const auto keys = varied(*pf);
  // The objectives, as the sweep names them (an objective that is a varied key is not repeated
  // after best_plan: the chart had plotted the other objective against itself).
  std::string cx = text_scalar(r, "pareto_x"), cy = text_scalar(r, "pareto_y");
  if (cx.empty() || cy.empty()) {
    // A result written before 2026-12-02 (no pareto_x/pareto_y scalars): the columns after
    // best_plan, which are both objectives when neither is a varied key.
    std::vector<std::string> obj;
    bool after = false;
    for (const auto& c : pf->columns()) {
      if (after) obj.push_back(c.name);
      if (c.name == "best_plan") after = true;
    }
    if (obj.size() != 2) return;
    cx = obj[0];
    cy = obj[1];
  }
  if (cx.empty() || cy.empty() || !sw->has_column(cx) || !sw->has_column(cy) || !pf->has_column(cx) || !pf->has_column(cy)) return;
  const Unit ux = unit_of(cx), uy = unit_of(cy);
  auto label = [&](const Table& t, size_t i) {
    std::string l;
    for (const auto& k : keys)
      if (t.has_column(k)) {
        const Unit u = unit_of(k);
        l += (l.empty() ? "" : ", ") + k + "=" + fmt_key_value(numbers(t, k)[i] * u.scale) + (u.label.empty() ? "" : " " + u.label);
      }
    return l;
  };
  auto all = nlohmann::ordered_json::array(), front = nlohmann::ordered_json::array();
  const auto sx = numbers(*sw, cx), sy = numbers(*sw, cy);
  for (size_t i = 0; i < sw->rows(); ++i)
    if (std::isfinite(sx[i]) && std::isfinite(sy[i])) all.push_back({{"name", label(*sw, i)}, {"value", {sx[i] * ux.scale, sy[i] * uy.scale}}});
  const auto px = numbers(*pf, cx), py = numbers(*pf, cy);
  std::vector<size_t> idx(px.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return px[a] < px[b]; });
  for (size_t i : idx) front.push_back({{"name", label(*pf, i)}, {"value", {px[i] * ux.scale, py[i] * uy.scale}}});
  Chart ch;
  ch.id = "pareto";
  ch.title = "Sweep: " + cx + " against " + cy + ", Pareto front";
  ch.value_labels = {axis_name(cx), axis_name(cy)};
  ch.option = base_option();
  ch.option["tooltip"]["trigger"] = "item";
  ch.option["xAxis"] = value_axis(axis_name(cx));
  ch.option["xAxis"]["scale"] = true;
  ch.option["yAxis"] = value_axis(axis_name(cy));
  ch.option["yAxis"]["scale"] = true;
  ch.option["series"] = {{{"type", "scatter"}, {"name", "grid points"}, {"symbolSize", 7}, {"data", all}},
                         {{"type", "line"}, {"name", "Pareto front"}, {"symbolSize", 9}, {"data", front}}};
  // Each objective with its sense (the sweep's pareto_x_direction / pareto_y_direction): a front
  // of min:tokens_per_s and max:step_time_s had read as one of "tokens_per_s and step_time_s",
  // dominated-looking (review of 2026-12-06). A result written before has no sense to say.
  auto sensed = [&](const std::string& c, const char* key) {
    const std::string dir = text_scalar(r, key);
    return dir == "min" ? c + " (minimised)" : dir == "max" ? c + " (maximised)" : c;
  };
  ch.takeaway = std::to_string(pf->rows()) + " of " + std::to_string(sw->rows()) + " grid points are on the Pareto front of " +
                sensed(cx, "pareto_x_direction") + " and " + sensed(cy, "pareto_y_direction");
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void tornado(const Result& r, ReportPage& page) {
  const Table* t = r.table("elasticity");
  if (!t || t->rows() == 0) return;
  const auto p = texts(*t, "parameter");
  const auto fixed = numbers(*t, "elasticity_fixed_plan_ratio");
  const auto re = t->has_column("elasticity_replanned_ratio") ? numbers(*t, "elasticity_replanned_ratio") : fixed;
  std::vector<size_t> idx(p.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  // The larger of the held and the re-planned magnitude: a parameter whose held-plan elasticity is
  // undefined (the plan held does not fit at a neighbour) but whose re-planned one is large had
  // been ranked last (review of 2026-12-06).
  auto abs_or_0 = [](double v) { return std::isfinite(v) ? std::fabs(v) : 0.0; };
  auto mag = [&](size_t i) { return std::max(abs_or_0(fixed[i]), abs_or_0(re[i])); };
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return mag(a) < mag(b); });  // largest on top
  std::vector<std::string> names;
  std::vector<double> f, g;
  for (size_t i : idx) {
    names.push_back(p[i]);
    f.push_back(fixed[i]);
    g.push_back(re[i]);
  }
  Chart ch;
  ch.id = "tornado";
  ch.title = "Sensitivity of step time: elasticity d ln T / d ln p at the design point";
  ch.value_unit = "";
  ch.height_px = std::max(280, static_cast<int>(names.size()) * 30 + 90);
  ch.option = base_option();
  ch.option["grid"]["left"] = 260;
  ch.option["xAxis"] = value_axis("elasticity of step time (ratio; negative: more is faster)");
  ch.option["yAxis"] = category_axis(names);
  ch.option["yAxis"]["axisLabel"].update(nlohmann::ordered_json{{"width", 250}, {"overflow", "truncate"}});
  ch.option["series"] = {{{"type", "bar"}, {"name", "plan held"}, {"data", json_array(f)}},
                         {{"type", "bar"}, {"name", "re-planned"}, {"data", json_array(g)}}};
  // What +10% does is the one-sided (up) elasticity where the table has it: the central one
  // averages both sides, and across a kink at the design point it had read as a change where +10%
  // changes nothing (2026-12-07 review; NIC bandwidth of Llama 3 8B on 16 H100: -0.04% against 0).
  const auto fixed_up = t->has_column("elasticity_fixed_plan_up_ratio") ? numbers(*t, "elasticity_fixed_plan_up_ratio") : fixed;
  const auto re_up = t->has_column("elasticity_replanned_up_ratio") ? numbers(*t, "elasticity_replanned_up_ratio")
                     : t->has_column("elasticity_replanned_ratio")   ? re
                                                                       : fixed_up;
  const size_t top = idx.back();
  // Elasticities all undefined (no finite neighbour to difference against): nothing to rank, no
  // chart of empty bars and no blank headline bullet (2026-12-04 review).
  if (!std::isfinite(fixed[top]) && !std::isfinite(re[top])) return;
  // Both figures where both are defined and differ; the one defined otherwise, said which.
  auto change = [](double e) { return fmt_pct(std::pow(1.1, e) - 1); };
  const double fu = fixed_up[top], ru = re_up[top];
  ch.takeaway = "step time is most sensitive to " + p[top] + ": +10% changes it by ";
  if (std::isfinite(fu) && std::isfinite(ru) && fu != ru)
    ch.takeaway += change(fu) + " with the plan held, " + change(ru) + " re-planned";
  else if (std::isfinite(fu))
    ch.takeaway += change(fu) + " with the plan held";
  else if (std::isfinite(ru))
    ch.takeaway += change(ru) + " re-planned (with the plan held it is undefined)";
  else
    ch.takeaway += "an undefined amount (no plan fits at +10%; the bars are the central differences)";
  page.takeaways.push_back(ch.takeaway);
  page.charts.push_back(std::move(ch));
}

void sweep_line(const Result& r, ReportPage& page) {
  const Table* t = r.table("sweep");
  if (!t || t->rows() == 0) return;
  const auto keys = varied(*t);
  if (keys.empty() || !t->has_column("step_time_s")) return;
  // Best step time along the first varied key (minimum over the other keys).
  const auto x = numbers(*t, keys[0]);
  const auto y = numbers(*t, "step_time_s");
  // A value where no plan fits (no step time) is a point of the sweep too: the chart keeps the
  // values that have one and the takeaway names the others (a sweep with fewer than two fitting
  // values had fallen back to the generic page, which hid the varied key; review of 2026-12-05).
  std::vector<std::pair<double, double>> best;
  std::vector<double> values, none_fits;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) continue;
    if (std::find(values.begin(), values.end(), x[i]) == values.end()) values.push_back(x[i]);
    if (!std::isfinite(y[i])) continue;
    auto it = std::find_if(best.begin(), best.end(), [&](const auto& b) { return b.first == x[i]; });
    if (it == best.end())
      best.push_back({x[i], y[i]});
    else
      it->second = std::min(it->second, y[i]);
  }
  for (double v : values)
    if (std::find_if(best.begin(), best.end(), [&](const auto& b) { return b.first == v; }) == best.end()) none_fits.push_back(v);
  const Unit ux = unit_of(keys[0]);
  const std::string unit = ux.label.empty() ? "" : " " + ux.label;
  if (best.empty() && !values.empty() && t->has_column("plans_valid_count")) {
    // No value has a plan that fits: the plans searched at each value (most over the other
    // keys), none fitting. The page had fallen back to the generic charts, which label bars by
    // an integer column: "largest num_gpus: 1100" where 1100 was plans_valid_count (2026-12-05
    // review).
    std::sort(values.begin(), values.end());
    const auto valid = numbers(*t, "plans_valid_count");
    std::vector<std::string> cats;
    std::vector<double> most(values.size(), 0.0);
    for (size_t k = 0; k < values.size(); ++k) {
      cats.push_back(fmt_key_value(values[k] * ux.scale) + unit);
      for (size_t i = 0; i < x.size(); ++i)
        if (x[i] == values[k] && std::isfinite(valid[i])) most[k] = std::max(most[k], valid[i]);
    }
    Chart ch;
    ch.id = "sweep-no-fit";
    ch.title = "Plans searched along " + keys[0] + ": none fits";
    ch.value_unit = "";
    ch.option = base_option();
    ch.option["xAxis"] = category_axis(cats, axis_name(keys[0]));
    ch.option["yAxis"] = value_axis("valid plans (count)");
    ch.option["series"] = {{{"type", "bar"}, {"name", "valid plans, none fitting"}, {"data", json_array(most)}}};
    std::string list;
    for (size_t i = 0; i < values.size() && i < 8; ++i) list += (i ? ", " : "") + fmt_key_value(values[i] * ux.scale);
    if (values.size() > 8) list += ", ...";
    ch.takeaway = "no plan fits at any value of " + keys[0] + " (" + list + unit + "): every valid plan is beyond the memory";
    page.takeaways.push_back(ch.takeaway);
    page.charts.push_back(std::move(ch));
    return;
  }
  if (best.empty() || values.size() < 2) return;
  std::sort(best.begin(), best.end());
  std::sort(none_fits.begin(), none_fits.end());
  // The axis is in the key's display unit (GiB, GB/s): the values are scaled to it.
  auto data = nlohmann::ordered_json::array();
  for (const auto& [a, b] : best) data.push_back({a * ux.scale, b});
  Chart ch;
  ch.id = "sweep-step-time";
  ch.title = "Best step time along " + keys[0];
  // Each point is [x, step time]: labelled per value (the tooltip had put "s" after the x value
  // too: "best step time 2000, 0.397914 s" with 2000 in GB/s, 2026-12-04 review).
  ch.value_labels = {axis_name(keys[0]), "best step time (s)"};
  ch.option = base_option();
  ch.option["xAxis"] = value_axis(axis_name(keys[0]));
  ch.option["xAxis"]["scale"] = true;
  ch.option["yAxis"] = value_axis("step time (s)");
  ch.option["series"] = {{{"type", "line"}, {"name", "best step time"}, {"data", data}}};
  ch.takeaway = best.size() > 1 ? "from " + fmt_key_value(best.front().first * ux.scale) + " to " + fmt_key_value(best.back().first * ux.scale) +
                                      unit + " of " + keys[0] + ", the best step time goes from " + fmt_seconds(best.front().second) + " to " +
                                      fmt_seconds(best.back().second) +
                                      (keys.size() > 1 ? " (the best over the other varied keys at each value)" : "")
                                : "only at " + fmt_key_value(best.front().first * ux.scale) + unit + " of " + keys[0] +
                                      " does a plan fit: best step time " + fmt_seconds(best.front().second);
  if (!none_fits.empty()) {
    std::string list;
    for (size_t i = 0; i < none_fits.size() && i < 8; ++i) list += (i ? ", " : "") + fmt_key_value(none_fits[i] * ux.scale);
    if (none_fits.size() > 8) list += ", ...";
    ch.takeaway += "; no plan fits at " + list + unit + " of " + keys[0] + " (not drawn)";
  }
  page.charts.push_back(std::move(ch));
}

void render_sweep(const Result& r, ReportPage& page) {
  page.title = "Hardware and plan sweep";
  // A sweep of the GPU count has no one count: the subtitle says it is varied.
  const Table* sw = r.table("sweep");
  page.subtitle = text_scalar(r, "model") + " · " + text_scalar(r, "system") + " · " +
                  (sw && sw->has_column("num_gpus") ? std::string("GPU count varied") : text_scalar(r, "num_gpus") + " GPUs");
  pareto(r, page);
  tornado(r, page);
  sweep_line(r, page);
}

}  // namespace

void register_plan_renderers(RendererRegistry& reg) {
  reg.add("plan", render_plan);
  reg.add("sweep", render_sweep);
}

}  // namespace sextant::report
