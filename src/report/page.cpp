#include "report/page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "core/error.hpp"

namespace sextant::report {

namespace {
bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}
}  // namespace

Unit unit_of(const std::string& name) {
  // Longest suffixes first: "_bytes_per_s" before "_per_s" before "_s".
  static const struct {
    const char* suffix;
    const char* label;
    double scale;
  } kUnits[] = {
      {"_bytes_per_s", "GB/s", 1e-9},
      // Rates already in GB/s or Gbit/s (the catalog's memory and link bandwidths): before
      // 2026-12-03 they fell to "_per_s" and were labelled 1/s.
      {"_gb_per_s", "GB/s", 1.0},
      {"_gbit_per_s", "Gbit/s", 1.0},
      {"_gbps", "Gbit/s", 1.0},
      {"_flops_per_s", "FLOP/s", 1.0},
      {"_flops_per_byte", "FLOP/byte", 1.0},
      {"peak_flops", "FLOP/s", 1.0},  // sweep's accelerator.peak_flops: a rate
      {"_usd_per_hour", "USD/h", 1.0},
      {"tokens_per_s_per_capex_usd", "tokens/s per USD", 1.0},
      {"tokens_per_usd", "tokens/USD", 1.0},
      {"tokens_per_joule", "tokens/J", 1.0},
      {"_tokens_per_s", "tokens/s", 1.0},
      {"_requests_per_s", "requests/s", 1.0},
      {"tokens_per_s_per_gpu", "tokens/s/GPU", 1.0},
      {"tokens_per_s", "tokens/s", 1.0},
      {"_per_s", "1/s", 1.0},
      {"_per_day", "1/day", 1.0},
      {"_per_hour", "1/h", 1.0},
      {"_per_million_output_tokens", "USD/M tokens", 1.0},
      {"_per_million_total_tokens", "USD/M tokens", 1.0},
      {"_usd", "USD", 1.0},
      {"_bytes", "GiB", 1.0 / (1024.0 * 1024 * 1024)},
      {"_gib", "GiB", 1.0},
      {"_flops", "FLOP", 1.0},
      {"_tflops", "TFLOP/s", 1.0},
      {"_fraction", "%", 100.0},
      {"_percent", "%", 1.0},
      {"_pct", "%", 1.0},  // validate's error_pct (the column name): no unit before 2026-12-03
      {"_ratio", "ratio", 1.0},
      {"_count", "count", 1.0},
      {"_us", "µs", 1.0},
      {"_ms", "ms", 1.0},
      {"_ns", "ns", 1.0},
      {"_s", "s", 1.0},
      {"_j", "J", 1.0},
      {"_w", "W", 1.0},
  };
  if (name.rfind("accelerator.peak_flops.", 0) == 0) return {"FLOP/s", 1.0};  // a dtype's peak (accelerator.peak_flops.bf16)
  // A name that is its unit alone (analyze's `fraction` and `percent`, the op table's
  // `flops_per_s`) reads as "_" + name: a bare `fraction` was drawn unscaled with no unit and
  // `flops_per_s` labelled 1/s before 2026-12-04.
  const std::string joined = "_" + name;
  for (const auto& u : kUnits)
    if (ends_with(joined, u.suffix)) return {u.label, u.scale};
  return {};
}

bool finite_scalar(const Result& r, const std::string& name) {
  const Value* v = r.scalar(name);
  if (!v) return false;
  if (const double* d = std::get_if<double>(v)) return std::isfinite(*d);
  return std::get_if<int64_t>(v) != nullptr;
}

std::string fmt_num(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e7 || a < 1e-3))
    std::snprintf(buf, sizeof buf, "%.2e", v);
  else if (a >= 100)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 10)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (a >= 1)
    std::snprintf(buf, sizeof buf, "%.2f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string fmt_pct(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  char buf[64];
  const double p = fraction * 100;
  // A share below 100% never reads 100%, one above 0 never 0% (and a negative one never 0%):
  // digits are added, up to three decimals, until the text is on the value's side of the bound.
  // Before 2026-12-06 (review) 99.98% read "100.0%", a run with one request of 5,000 missing its
  // SLO headlined as all meeting it, and 0.004% read "0.0%".
  auto misleads = [&](int decimals) {
    std::snprintf(buf, sizeof buf, "%.*f", decimals, p);
    const double shown = std::strtod(buf, nullptr);
    return (p < 100 && shown >= 100) || (p > 0 && shown <= 0) || (p < 0 && shown >= 0);
  };
  int decimals = (std::fabs(p) < 10 && p != 0) || (p > 99 && p < 100) ? 1 : 0;  // "99.7%", "4.5%"
  while (misleads(decimals) && decimals < 3) ++decimals;
  if (misleads(decimals)) {
    // Closer to the bound than three decimals: below it, rounded towards the value's side.
    if (p > 99) return "99.999%";
    return p > 0 ? "<0.001%" : ">-0.001%";
  }
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, p);
  return buf;
}

std::string fmt_count(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  return fmt_num(v);
}

std::string fmt_seconds(double s) {
  if (!std::isfinite(s)) return "n/a";
  const double a = std::fabs(s);
  if (a >= 2 * 86400) return fmt_num(s / 86400) + " d";
  if (a >= 2 * 3600) return fmt_num(s / 3600) + " h";
  if (a >= 120) return fmt_num(s / 60) + " min";
  if (a >= 1 || a == 0) return fmt_num(s) + " s";
  if (a >= 1e-3) return fmt_num(s * 1e3) + " ms";
  if (a >= 1e-6) return fmt_num(s * 1e6) + " µs";
  return fmt_num(s * 1e9) + " ns";
}

std::string fmt_bytes(double b) {
  if (!std::isfinite(b)) return "n/a";
  const double a = std::fabs(b);
  if (a >= 1024.0 * 1024 * 1024 * 1024) return fmt_num(b / (1024.0 * 1024 * 1024 * 1024)) + " TiB";
  if (a >= 1024.0 * 1024 * 1024) return fmt_num(b / (1024.0 * 1024 * 1024)) + " GiB";
  if (a >= 1024.0 * 1024) return fmt_num(b / (1024.0 * 1024)) + " MiB";
  if (a >= 1024.0) return fmt_num(b / 1024.0) + " KiB";
  return fmt_num(b) + " B";
}

bool is_numeric(const Column& c) { return c.type != Column::Type::Str; }

namespace {
// A column by its Sextant name, or by the name HTA gives it where the result was made with
// `analyze --compat hta` ("idle_time_us" is HTA's "idle_time(us)", or "idle_time" in its idle
// breakdown, in µs there too); else Table::column's error.
const Column& column_or_hta_alias(const Table& t, const std::string& name) {
  if (!t.has_column(name) && name.size() > 3 && name.compare(name.size() - 3, 3, "_us") == 0) {
    const std::string stem = name.substr(0, name.size() - 3);
    if (t.has_column(stem + "(us)")) return t.column(stem + "(us)");
    if (t.has_column(stem)) return t.column(stem);  // HTA's idle_time_breakdown: "idle_time" (µs)
  }
  return t.column(name);
}
}  // namespace

std::vector<double> numbers(const Table& t, const std::string& column) {
  const Column& c = column_or_hta_alias(t, column);
  switch (c.type) {
    case Column::Type::F64: return c.f64.to_vector();
    case Column::Type::I64: return std::vector<double>(c.i64.begin(), c.i64.end());
    case Column::Type::Str: break;
  }
  // Named at its place in the saved result, as docs/reports.md says (2026-12-04 review).
  throw Error(SourceLocation{"", 0, 0, "tables." + t.name() + ".columns." + column}, "column is text, a number was expected");
}

std::vector<std::string> texts(const Table& t, const std::string& column) {
  const Column& c = column_or_hta_alias(t, column);
  std::vector<std::string> out;
  out.reserve(c.size());
  for (size_t i = 0; i < c.size(); ++i) out.push_back(c.cell_text(i));
  return out;
}

nlohmann::ordered_json json_array(const std::vector<double>& v) {
  auto a = nlohmann::ordered_json::array();
  for (double x : v) {
    if (std::isfinite(x))
      a.push_back(x);
    else
      a.push_back(nullptr);  // ECharts skips null points
  }
  return a;
}

namespace {
bool is_log_axis(const nlohmann::ordered_json& option, const char* axis) {
  if (!option.contains(axis)) return false;
  const auto& a = option[axis];
  return a.is_object() && a.contains("type") && a["type"] == "log";
}
// A coordinate a log axis can place: a positive number below the largest finite double's
// neighbourhood (1e300 and beyond overflow ECharts' tick arithmetic).
bool placeable(const nlohmann::ordered_json& v) { return v.is_number() && v.get<double>() > 0 && v.get<double>() < 1e300; }
}  // namespace

void drop_unplaceable_on_log_axes(nlohmann::ordered_json& option) {
  const bool x_log = is_log_axis(option, "xAxis"), y_log = is_log_axis(option, "yAxis");
  if (!x_log && !y_log) return;
  for (const char* axis : {"xAxis", "yAxis"})
    if (is_log_axis(option, axis))
      for (const char* bound : {"min", "max"})
        if (option[axis].contains(bound) && !placeable(option[axis][bound])) option[axis].erase(bound);
  if (!option.contains("series") || !option["series"].is_array()) return;
  // A value on its own is on the value axis: y, unless the x axis is the value axis (horizontal bars).
  const bool x_is_category = option.contains("xAxis") && option["xAxis"].is_object() && option["xAxis"].contains("type") &&
                             option["xAxis"]["type"] == "category";
  const bool lone_on_log = x_is_category ? y_log : x_log;
  auto bad_point = [&](const nlohmann::ordered_json& p) {
    const nlohmann::ordered_json& v = p.is_object() && p.contains("value") ? p["value"] : p;
    if (v.is_number()) return lone_on_log && !placeable(v);
    if (v.is_array() && v.size() >= 2) return (x_log && v[0].is_number() && !placeable(v[0])) || (y_log && v[1].is_number() && !placeable(v[1]));
    return false;
  };
  for (auto& s : option["series"]) {
    if (!s.is_object()) continue;
    if (s.contains("data") && s["data"].is_array())
      for (auto& p : s["data"])
        if (bad_point(p)) p = nullptr;
    if (s.contains("markLine") && s["markLine"].is_object() && s["markLine"].contains("data") && s["markLine"]["data"].is_array()) {
      auto kept = nlohmann::ordered_json::array();
      for (const auto& m : s["markLine"]["data"]) {
        const bool bad = (x_log && m.is_object() && m.contains("xAxis") && !placeable(m["xAxis"])) ||
                         (y_log && m.is_object() && m.contains("yAxis") && !placeable(m["yAxis"]));
        if (!bad) kept.push_back(m);
      }
      s["markLine"]["data"] = kept;
    }
  }
}

namespace {
// ECharts' tick step for a span cut in about five: 1, 2, 3, 5 or 10 times a power of ten.
double nice_step(double span) {
  const double e = std::pow(10.0, std::floor(std::log10(span / 5)));
  const double f = span / 5 / e;
  return (f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10) * e;
}
bool is_axis_type(const nlohmann::ordered_json& option, const char* axis, const char* type) {
  return option.contains(axis) && option[axis].is_object() && option[axis].contains("type") && option[axis]["type"] == type;
}
}  // namespace

void fit_reference_lines(nlohmann::ordered_json& option) {
  if (!option.contains("series") || !option["series"].is_array()) return;
  for (auto& s : option["series"]) {
    if (!s.is_object() || !s.contains("markLine") || !s["markLine"].is_object() || !s["markLine"].contains("data") ||
        !s["markLine"]["data"].is_array() || s["markLine"]["data"].empty())
      continue;
    auto& ml = s["markLine"];
    const bool horizontal =
        std::all_of(ml["data"].begin(), ml["data"].end(), [](const auto& m) { return m.is_object() && m.contains("yAxis"); });
    if (!horizontal || (ml.contains("label") && (!ml["label"].is_object() || ml["label"].contains("position")))) continue;
    ml["label"]["position"] = "insideEndTop";
  }
  const bool x_is_category = is_axis_type(option, "xAxis", "category"), y_is_category = is_axis_type(option, "yAxis", "category");
  for (const char* axis : {"xAxis", "yAxis"}) {
    // Axes given as a list (several y axes) place markers by index: not handled, none has a marker.
    const bool log = is_axis_type(option, axis, "log");
    if (!log && !is_axis_type(option, axis, "value")) continue;
    const bool is_x = axis[0] == 'x';
    std::vector<double> marks;
    for (const auto& s : option["series"])
      if (s.is_object() && s.contains("markLine") && s["markLine"].is_object() && s["markLine"].contains("data") &&
          s["markLine"]["data"].is_array())
        for (const auto& m : s["markLine"]["data"])
          if (m.is_object() && m.contains(axis) && m[axis].is_number() && std::isfinite(m[axis].get<double>()) &&
              (!log || m[axis].get<double>() > 0))
            marks.push_back(m[axis].get<double>());
    if (marks.empty()) continue;
    // The data's extent on this axis: element `dim` of a pair ([x, y] or {value: [x, y]}), a lone
    // value where the other axis is the category axis, stacked lone values summed per stack.
    const size_t dim = is_x ? 0 : 1;
    const bool lone_here = is_x ? y_is_category : x_is_category;
    double lo = INFINITY, hi = -INFINITY;
    auto take = [&](double v) {
      if (!std::isfinite(v) || (log && v <= 0)) return;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    };
    std::map<std::string, std::vector<std::pair<double, double>>> stacks;  // stack -> per index (negative, positive) sums
    for (const auto& s : option["series"]) {
      if (!s.is_object() || !s.contains("data") || !s["data"].is_array()) continue;
      const std::string stack = s.contains("stack") && s["stack"].is_string() ? s["stack"].get<std::string>() : "";
      for (size_t i = 0; i < s["data"].size(); ++i) {
        const auto& p = s["data"][i];
        const auto& v = p.is_object() && p.contains("value") ? p["value"] : p;
        if (v.is_array() && v.size() > dim && v[dim].is_number()) {
          take(v[dim].get<double>());
        } else if (v.is_number() && lone_here) {
          const double x = v.get<double>();
          if (stack.empty()) {
            take(x);
            continue;
          }
          auto& sums = stacks[stack];
          if (sums.size() <= i) sums.resize(i + 1, {0.0, 0.0});
          (x < 0 ? sums[i].first : sums[i].second) += x;
          take(x < 0 ? sums[i].first : sums[i].second);
        }
      }
    }
    if (!(lo <= hi)) continue;  // nothing drawn on the axis
    auto& ax = option[axis];
    // ECharts starts a value axis at zero unless it scales to the data.
    const bool from_zero = !log && !(ax.contains("scale") && ax["scale"] == true);
    if (from_zero) {
      lo = std::min(lo, 0.0);
      hi = std::max(hi, 0.0);
    }
    if (ax.contains("min") && ax["min"].is_number()) lo = ax["min"].get<double>();
    if (ax.contains("max") && ax["max"].is_number()) hi = ax["max"].get<double>();
    const bool fixed_min = ax.contains("min") && !ax["min"].is_number(), fixed_max = ax.contains("max") && !ax["max"].is_number();
    const double m_lo = *std::min_element(marks.begin(), marks.end()), m_hi = *std::max_element(marks.begin(), marks.end());
    // Bounds a little beyond the marker, on a tick: a line on the chart's edge is hidden by the axis.
    if (log) {
      if (m_hi > hi && !fixed_max) ax["max"] = std::pow(10.0, std::ceil(std::log10(m_hi * 1.05)));
      if (m_lo < lo && !fixed_min) ax["min"] = std::pow(10.0, std::floor(std::log10(m_lo / 1.05)));
      continue;
    }
    const double span = std::max(hi, m_hi) - std::min(lo, m_lo);
    if (!(span > 0)) continue;
    const double step = nice_step(span), pad = 0.03 * span;
    if (m_hi > hi && !fixed_max) ax["max"] = std::ceil((m_hi + pad) / step) * step;
    if (m_lo < lo && !fixed_min) ax["min"] = std::floor((m_lo - pad) / step) * step;
  }
}

nlohmann::ordered_json json_array(const std::vector<std::string>& v) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

nlohmann::ordered_json value_axis(const std::string& name_with_unit) {
  return {{"type", "value"}, {"name", name_with_unit}, {"nameLocation", "middle"}, {"nameGap", 48}};
}

nlohmann::ordered_json category_axis(const std::vector<std::string>& cats, const std::string& name) {
  nlohmann::ordered_json a = {{"type", "category"}, {"data", json_array(cats)}};
  // Every category labelled where they can be read: ECharts otherwise hides labels it expects to
  // overlap (two of five checkpoint strategies had no name, 2026-12-05 review).
  if (cats.size() <= 40) a["axisLabel"] = {{"interval", 0}};
  if (!name.empty()) {
    a["name"] = name;
    a["nameLocation"] = "middle";
    a["nameGap"] = 28;
  }
  return a;
}

nlohmann::ordered_json base_option() {
  return {{"animation", false},
          {"tooltip", {{"trigger", "axis"}, {"confine", true}}},
          {"legend", {{"type", "scroll"}, {"top", 0}}},
          {"grid", {{"left", 90}, {"right", 40}, {"top", 40}, {"bottom", 70}, {"containLabel", false}}}};
}

std::vector<std::string> family_colours(const std::vector<std::string>& family_of_series) {
  // Well-separated hues (degrees) in the order families first appear: blue, orange, green,
  // purple, red, teal, gold, magenta; past them the hues in between.
  static const double kHues[] = {212, 28, 140, 275, 352, 180, 48, 312};
  std::vector<std::string> families;  // in order of first appearance
  std::map<std::string, size_t> members, seen;
  for (const auto& f : family_of_series)
    if (members[f]++ == 0) families.push_back(f);
  std::map<std::string, double> hue;
  std::map<std::string, bool> grey;
  size_t coloured = 0;
  for (const auto& f : families) {
    grey[f] = f.find("bubble") != std::string::npos || f.find("wait") != std::string::npos || f.find("idle") != std::string::npos;
    if (grey[f]) continue;
    const size_t k = coloured++;
    hue[f] = k < 8 ? kHues[k] : std::fmod(kHues[k % 8] + 22.5 * static_cast<double>(k / 8), 360.0);
  }
  auto hex = [](double h, double s, double l) {  // HSL (degrees, 0-1, 0-1) to #rrggbb
    const double c = (1 - std::fabs(2 * l - 1)) * s, hp = std::fmod(h, 360.0) / 60.0;
    const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    if (hp < 1) r = c, g = x;
    else if (hp < 2) r = x, g = c;
    else if (hp < 3) g = c, b = x;
    else if (hp < 4) g = x, b = c;
    else if (hp < 5) r = x, b = c;
    else r = c, b = x;
    char buf[8];
    auto byte = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(r + m), byte(g + m), byte(b + m));
    return std::string(buf);
  };
  std::vector<std::string> out;
  std::set<std::string> used;
  for (const auto& f : family_of_series) {
    const size_t i = seen[f]++, n = members[f];
    // Dark to light within the family, the hue turning a little along (shades 28% to 74% light),
    // taken alternately from the darker and the lighter half so that neighbours in a stack differ
    // by about half the range.
    const size_t pos = i % 2 == 0 ? i / 2 : (n + 1) / 2 + i / 2;
    const double t = n > 1 ? static_cast<double>(pos) / static_cast<double>(n - 1) : 0.5;
    auto shade = [&](double nudge) {
      return grey[f] ? hex(0, 0, std::fmod(0.42 + 0.36 * t + nudge, 0.92))
                     : hex(hue[f] - 20 + 40 * t + 360, 0.62, std::fmod(0.28 + 0.46 * t + nudge, 0.92));
    };
    std::string c = shade(0);
    // Two shades that round to one colour (dozens in a family) are told apart by a step in lightness.
    for (double nudge = 0.01; used.count(c) && nudge < 0.5; nudge += 0.01) c = shade(nudge);
    used.insert(c);
    out.push_back(c);
  }
  return out;
}

namespace {
bool is_label_separator(char c) { return c == ' ' || c == '=' || c == '/' || c == ':' || c == ','; }
}  // namespace

std::vector<std::string> without_shared_words(const std::vector<std::string>& labels, std::string& shared) {
  shared.clear();
  if (labels.size() < 2) return labels;
  // The characters every label starts with, cut back to just after a separator.
  size_t pre = labels[0].size();
  for (const auto& l : labels) {
    size_t k = 0;
    while (k < pre && k < l.size() && l[k] == labels[0][k]) ++k;
    pre = k;
  }
  while (pre > 0 && !is_label_separator(labels[0][pre - 1])) --pre;
  // The characters every label ends with (past the prefix), cut forward to a separator.
  size_t suf = labels[0].size() - pre;
  for (const auto& l : labels) {
    const size_t room = l.size() - pre;
    size_t k = 0;
    while (k < suf && k < room && l[l.size() - 1 - k] == labels[0][labels[0].size() - 1 - k]) ++k;
    suf = k;
  }
  while (suf > 0 && !is_label_separator(labels[0][labels[0].size() - suf])) --suf;
  if (pre == 0 && suf == 0) return labels;
  std::vector<std::string> out;
  for (const auto& l : labels) {
    std::string mid = l.substr(pre, l.size() - pre - suf);
    const size_t a = mid.find_first_not_of(' '), b = mid.find_last_not_of(' ');
    if (a == std::string::npos) return labels;  // a label that is all shared words: kept whole
    out.push_back(mid.substr(a, b - a + 1));
  }
  shared = labels[0].substr(0, pre) + "…" + labels[0].substr(labels[0].size() - suf);
  return out;
}

namespace {
// The text the page script's tick() writes for a value-axis tick (assets.cpp): fmt() below 10,000
// (whole numbers in full, exponent form below 0.001, else 6 significant digits), else SI form
// with 4 significant digits.
std::string js_tick_text(double v) {
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 1e4) {
    static const std::pair<double, const char*> pre[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (const auto& [p, name] : pre)
      if (a >= p) {
        std::snprintf(buf, sizeof buf, "%.4g%s", v / p, name);
        return buf;
      }
  }
  if (v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (a != 0 && a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3e", v);  // "1.500e-07": JavaScript writes "1.500e-7"
    std::string s = buf;
    const size_t e = s.find('e');
    size_t d = e + 2;
    while (d + 1 < s.size() && s[d] == '0') s.erase(d, 1);
    return s;
  }
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

size_t value_tick_label_chars(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (!std::isfinite(lo) || !std::isfinite(hi)) return 8;
  if (!(hi > lo)) return js_tick_text(hi).size();
  const double step = nice_step(hi - lo);
  size_t chars = 1;
  for (double k = std::floor(lo / step); k <= std::ceil(hi / step) && k - std::floor(lo / step) < 40; k += 1)
    chars = std::max(chars, js_tick_text(k * step).size());
  return chars;
}

void add_generic_table_charts(const Table& t, ReportPage& page, size_t max_charts) {
  if (t.rows() == 0) return;
  // Category axis: the text columns that tell the rows apart (rank + stream + category, joined),
  // else the integer columns that do (a GEMM's m, n, k; rank, step), else the row number. A column
  // with one value on every row names no bar: calibrate's 34 GEMM rows all read "bf16" before
  // 2026-12-04. A single row takes the first text (else integer) column.
  const size_t n = std::min<size_t>(t.rows(), 60);
  auto varies = [&](const Column& c) {
    for (size_t i = 1; i < n; ++i)
      if (c.cell_text(i) != c.cell_text(0)) return true;
    return false;
  };
  // Text columns that do not tell the rows apart on their own are followed by integer columns
  // until they do (calibrate's GEMM rows read "fp32 / fitted", 17 alike, before 2026-12-04: the
  // shape m / n / k now follows).
  std::vector<std::string> key_cols;
  auto distinct = [&] {
    std::set<std::string> seen;
    for (size_t i = 0; i < n; ++i) {
      std::string c;
      for (const auto& k : key_cols) c += t.column(k).cell_text(i) + '\x1f';
      if (!seen.insert(c).second) return false;
    }
    return true;
  };
  for (const auto type : {Column::Type::Str, Column::Type::I64}) {
    size_t added = 0;
    for (const auto& c : t.columns())
      if (c.type == type && (n <= 1 || varies(c))) {
        key_cols.push_back(c.name);
        ++added;
        if (n <= 1 || (type == Column::Type::I64 && added == 3)) break;
      }
    if (!key_cols.empty() && (n <= 1 || distinct())) break;
  }
  std::vector<std::string> cats;
  for (size_t i = 0; i < n; ++i) {
    std::string c;
    for (const auto& k : key_cols)
      if (const std::string x = t.column(k).cell_text(i); !x.empty()) c += (c.empty() ? "" : " / ") + x;  // no " / " for an empty cell
    cats.push_back(key_cols.empty() ? std::to_string(i) : c);
  }
  // Group numeric columns by unit so that one chart never mixes units on an axis.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // unit label -> columns
  // A column whose name carries no unit is a quantity of its own (layers beside a hidden size
  // beside billions of parameters): a chart each, never one axis for all of them.
  for (const auto& c : t.columns()) {
    if (!is_numeric(c) || std::find(key_cols.begin(), key_cols.end(), c.name) != key_cols.end()) continue;
    // Identifiers (docs/architecture.md's unitless exceptions: rank, run_id, seed, ...) are not
    // quantities: "largest run_id" and a chart of "files (rank)" had been drawn (review of 2026-12-05).
    {
      static const std::set<std::string> ids = {"rank", "step", "seed", "run_id", "pid", "tid", "device", "stream", "id"};
      const std::string& nm = c.name;
      if (ids.count(nm) || (nm.size() > 3 && nm.compare(nm.size() - 3, 3, "_id") == 0)) continue;
    }
    // A column with no number on any row (goodput --fit's Weibull shape of exponential processes)
    // has nothing to draw: an empty chart before 2026-12-04.
    const auto v = numbers(t, c.name);
    if (std::none_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); })) continue;
    const std::string label = unit_of(c.name).label;
    auto it = label.empty() ? groups.end()
                            : std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == label; });
    if (it == groups.end())
      groups.push_back({label, {c.name}});
    else
      it->second.push_back(c.name);
  }
  // Units first (they are what the table is about), then the unitless columns; past max_charts
  // the rest is named in the last chart's takeaway, not dropped silently.
  std::stable_partition(groups.begin(), groups.end(), [](const auto& g) { return !g.first.empty(); });
  size_t made = 0;
  for (const auto& [label, cols] : groups) {
    if (made == max_charts) {
      std::string rest;
      for (size_t g = made; g < groups.size(); ++g)
        for (const auto& c : groups[g].second) rest += (rest.empty() ? "" : ", ") + c;
      if (!page.charts.empty() && !rest.empty()) {
        std::string& takeaway = page.charts.back().takeaway;
        takeaway += (takeaway.empty() ? "not drawn (see the table): " : "; not drawn (see the table): ") + rest;
      }
      break;
    }
    const std::string unit = label.empty() ? cols.front() : label;
    Chart ch;
    ch.id = "table-" + t.name() + "-" + std::to_string(made);
    ch.title = t.name() + (groups.size() > 1 ? " (" + unit + ")" : "");
    ch.value_unit = label;
    ch.option = base_option();
    std::string cat_name;  // the columns the labels join (dtype / m / n / k)
    for (const auto& k : key_cols) cat_name += (cat_name.empty() ? "" : " / ") + k;
    if (cat_name.empty()) cat_name = "row";
    // The words every label shares are said once, in the axis name, and the bars show what tells
    // them apart: cut to 140 px, "read working_set=32KiB threads=1" had read "read working_set=1…"
    // on every bar (review of 2026-12-07).
    std::string shared;
    const std::vector<std::string> shown = without_shared_words(cats, shared);
    ch.option["xAxis"] = category_axis(shown, shared.empty() ? cat_name : cat_name + " (" + shared + ")");
    // Labels stand at an angle where they would not fit side by side (an estimate: 7 px a
    // character at 12 px, a plot about 360 px wide, 320 beside the room rotated labels take), at
    // 30 degrees while neighbours stay apart (32 px a bar), 45 to 23 px, else upright; the chart
    // makes room for them below the axis. Before 2026-12-07 (review) up to 8 bars stood level
    // whatever their length (five labels "working_set=128KiB" ran into one another), 13 stood at 30
    // degrees overlapping, and the axis name at the axis's end was cut by the chart's edge
    // ("case (read workin"): it is now under the labels, as far below the axis as they reach
    // (34 GEMM shapes' labels had run into a name at a fixed gap, 2026-12-04 review).
    size_t label_chars = 0;
    for (const auto& c : shown) label_chars = std::max(label_chars, c.size());
    const double bars = static_cast<double>(std::max<size_t>(shown.size(), 1));
    const bool fits_level = 7.0 * static_cast<double>(label_chars) + 8 <= 360.0 / bars;
    const int rotate = fits_level ? 0 : 320.0 / bars >= 32 ? 30 : 320.0 / bars >= 23 ? 45 : 90;
    ch.option["xAxis"]["axisLabel"].update(nlohmann::ordered_json{{"rotate", rotate}, {"width", 140}, {"overflow", "truncate"}});
    ch.option["yAxis"] = value_axis(unit);
    if (rotate > 0) {
      const double pi = std::acos(-1.0), rad = rotate * pi / 180;
      const double label_px = std::min(140.0, 7.5 * static_cast<double>(label_chars));
      const int reach_px = static_cast<int>(std::ceil(label_px * std::sin(rad) + 12 * std::cos(rad)));  // below the axis
      ch.option["grid"]["containLabel"] = true;
      ch.option["grid"]["left"] = 40;
      ch.option["grid"]["bottom"] = 34;  // the axis name, below the labels the grid contains
      ch.option["xAxis"]["nameGap"] = reach_px + 16;
      ch.height_px = 340 + reach_px;
    }
    auto series = nlohmann::ordered_json::array();
    // The takeaway is about what was measured: where the table gives a distribution's summary
    // (median beside min, max, IQR, spread, a theoretical peak), the others. Before 2026-12-07
    // (review) a bench chart read "largest peak_flops_per_s" (the peak, alike for every case) or
    // "largest max_latency_s" (an outlier).
    auto is_summary_statistic = [](const std::string& c) {
      for (const char* p : {"min_", "max_", "peak_", "iqr_", "spread", "stddev_", "sd_"})
        if (c.rfind(p, 0) == 0) return true;
      return false;
    };
    std::vector<std::string> told;
    for (const auto& col : cols)
      if (!is_summary_statistic(col)) told.push_back(col);
    const bool summarised = !told.empty() && told.size() < cols.size();
    if (told.empty()) told = cols;
    // Rows all alike have no largest: the first row's label had been named ("largest
    // repetition_count: read working_set=32KiB threads=1 (2)" with all 13 rows 2 beside
    // warmup_count's 1s, calibrate's "largest shapes_count: fp32 / fitted (18)" with every row 18;
    // review of 2026-12-07). The largest and smallest are of the told columns that vary; where
    // none does, the takeaway says every row is equal and gives each column's value.
    double lo = 0, hi = 0;
    std::vector<std::pair<std::string, std::vector<double>>> told_values;  // scaled, first n rows
    std::vector<bool> told_row(n, false);                                  // rows with a told value
    for (const auto& col : cols) {
      auto v = numbers(t, col);
      v.resize(n);
      const double s = unit_of(col).scale;
      const bool tells = std::find(told.begin(), told.end(), col) != told.end();
      for (size_t i = 0; i < n; ++i) {
        v[i] *= s;
        if (!std::isfinite(v[i])) continue;
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
        if (tells) told_row[i] = true;
      }
      if (tells) told_values.push_back({col, v});
      series.push_back({{"type", "bar"}, {"name", col}, {"data", json_array(v)}});
    }
    // The value axis's name clears its tick labels: at a fixed 48 px, "s" was drawn over
    // "1.500e-7" (review of 2026-12-07). About 8 px a character, and the grid's left margin holds
    // the name where the grid does not size itself to its labels.
    const int name_gap = std::max(48, 8 * static_cast<int>(value_tick_label_chars(lo, hi)) + 14);
    ch.option["yAxis"]["nameGap"] = name_gap;
    if (rotate == 0) ch.option["grid"]["left"] = std::max(90, name_gap + 20);
    ch.option["series"] = series;
    auto with_unit = [&](double v) {
      return (label == "count" ? fmt_count(v) : fmt_num(v)) + (label.empty() || label == "count" ? "" : " " + label);
    };
    const size_t valued_rows = static_cast<size_t>(std::count(told_row.begin(), told_row.end(), true));
    std::string alike;  // "repetition_count = 2, warmup_count = 1": the told columns of one value
    size_t varying = 0;
    double best = -INFINITY, least = INFINITY;
    std::string best_cat, best_col, least_cat;
    for (const auto& [col, v] : told_values) {
      double col_lo = INFINITY, col_hi = -INFINITY;
      for (const double x : v)
        if (std::isfinite(x)) col_lo = std::min(col_lo, x), col_hi = std::max(col_hi, x);
      if (!std::isfinite(col_lo)) continue;
      if (col_lo == col_hi && valued_rows > 1) {
        alike += (alike.empty() ? "" : ", ") + col + " = " + with_unit(col_lo);
        continue;
      }
      ++varying;
      for (size_t i = 0; i < n; ++i) {  // ties go to the first row
        if (!std::isfinite(v[i])) continue;
        if (v[i] > best) best = v[i], best_cat = cats[i], best_col = col;
        if (v[i] < least) least = v[i], least_cat = cats[i];
      }
    }
    const std::string shown_rows = t.rows() > n ? "; first " + std::to_string(n) + " of " + std::to_string(t.rows()) + " rows shown" : "";
    if (std::isfinite(best))
      ch.takeaway = "largest " + best_col + ": " + best_cat + " (" + with_unit(best) + ")" +
                    (summarised && varying == 1 && least_cat != best_cat ? "; smallest: " + least_cat + " (" + with_unit(least) + ")" : "") +
                    shown_rows;
    else if (!alike.empty())
      ch.takeaway = "all " + std::to_string(valued_rows) + " rows equal: " + alike + shown_rows;
    page.charts.push_back(std::move(ch));
    ++made;
  }
}

}  // namespace sextant::report
