#pragma once
// The data model of a report page and the helpers renderers share (units, number formatting,
// table access). A renderer builds charts as ECharts options that hold data only; the page
// script adds the parts that must be code (tooltip formatters that build DOM text nodes, the
// render function of Gantt bars).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace sextant::report {

struct Chart {
  std::string id;        // stable, unique within a page (e.g. "step-breakdown")
  std::string title;     // what the chart answers
  std::string takeaway;  // one line computed from the data
  // "echarts": option used as is; "gantt": option whose custom series get the page's bar renderer.
  std::string kind = "echarts";
  std::string value_unit;  // unit appended to values in tooltips ("s", "GiB", "%")
  // Names of the entries of an array value, shown in tooltips as "name value, ..." (e.g. a scatter
  // point [x, y, size]); empty: values joined with value_unit.
  std::vector<std::string> value_labels;
  // The label, with its unit, of the last entry of value_labels for the points of one series, by
  // series name (a chart whose series lie on two axes: "achieved (requests/s)", "SLO attainment
  // (%)"); a series not named keeps value_labels' own. Tooltips had read "value 1.68" with no unit
  // (review of 2026-12-06).
  std::map<std::string, std::string> series_value_labels;
  int height_px = 360;
  bool wide = false;  // takes the whole width of the page (timelines)
  nlohmann::ordered_json option;  // ECharts option: data, axes (with units in their names), series
};

struct ReportPage {
  std::string title;
  std::string subtitle;
  std::vector<std::string> takeaways;  // headline lines, shown first
  std::vector<Chart> charts;
};

// ---- helpers for renderers ----

// Unit of a column or scalar from its name suffix: label shown on an axis and the factor that
// converts stored values into it ("_us" -> "µs" x1, "_fraction" -> "%" x100, "_bytes" -> "GiB"
// x2^-30 when large values are expected). label is empty when the name carries no unit.
struct Unit {
  std::string label;
  double scale = 1.0;
};
Unit unit_of(const std::string& name);

// Numbers for takeaways: 3 significant digits, thousands not grouped ("31.2", "0.0045", "1.2e+09").
std::string fmt_num(double v);
// Whether the result has scalar `name` with a finite numeric value (a reference line at a null,
// i.e. NaN, value broke the page's charts).
bool finite_scalar(const Result& r, const std::string& name);
std::string fmt_count(double v);      // whole numbers without decimals ("4", "148"), else fmt_num
std::string fmt_pct(double fraction);  // "31%" (one decimal below 10%); below 100% never "100%", above 0 never "0%"
std::string fmt_seconds(double s);     // "9.39 s", "12.1 ms", "850 µs", "3.1 h", "2.4 d"
std::string fmt_bytes(double b);       // "39.7 GiB", "512 MiB"

// Numeric column as doubles (I64 converted); throws Error when the column is a string column.
std::vector<double> numbers(const Table& t, const std::string& column);
// Column as text (numbers formatted), for categories.
std::vector<std::string> texts(const Table& t, const std::string& column);
bool is_numeric(const Column& c);

// Common option pieces.
nlohmann::ordered_json value_axis(const std::string& name_with_unit);
nlohmann::ordered_json category_axis(const std::vector<std::string>& cats, const std::string& name = {});
nlohmann::ordered_json base_option();  // tooltip, legend, grid, toolbox defaults
nlohmann::ordered_json json_array(const std::vector<double>& v);
nlohmann::ordered_json json_array(const std::vector<std::string>& v);
// Removes from a chart option what a logarithmic axis cannot place: points whose coordinate on a
// log axis is not a positive finite number become null (ECharts skips them; a zero TPOT of
// one-token outputs had been drawn at log(0) with console errors), and reference lines and axis
// bounds at such values are dropped. Charts without a log axis are returned unchanged.
void drop_unplaceable_on_log_axes(nlohmann::ordered_json& option);
// Widens a value or log axis so that its reference lines (markLine data {xAxis: v} / {yAxis: v})
// lie inside it: ECharts sizes an axis to the series' data only, and a line beyond it is not drawn
// (before 2026-12-06 (review) a configured checkpoint interval of 3 h, a required SLO attainment of
// 90% under candidates at 93-100% and a memory capacity of 80 GiB beyond plans of 60 GiB were
// missing from their charts). A bound is set only where a marker lies beyond the data and the
// axis's own bounds, on a round value a little past it. The label of a horizontal line goes inside
// the grid, above the line's end: past the end it was cut by the chart's right margin ("ttft SL").
// Run after drop_unplaceable_on_log_axes.
void fit_reference_lines(nlohmann::ordered_json& option);

// A renderer fills a page from a Result of its command. It may assume the tables its command
// always writes; an absent table is skipped rather than an error (older results, filtered output).
using Renderer = std::function<void(const Result&, ReportPage&)>;

// Colours for the series of a stacked breakdown, one per series, grouped by family (the
// category each item belongs to, e.g. compute, exposed_comm, pipeline_bubble, optimizer): a hue
// per family (grey for waiting: a family named *bubble*, *wait* or *idle*), and within a family
// shades from dark to light, so every series has its own colour however many there are. ECharts'
// default palette has nine colours and wrapped: compute:gemm and exposed_comm:edp were one blue on
// a 13-item step (review of 2026-12-07). Colours are "#rrggbb".
std::vector<std::string> family_colours(const std::vector<std::string>& family_of_series);

// Category labels with the words every label shares at its start and at its end left out
// (cut at a separator: space, '=', '/', ':', ','), so that the part that tells the bars apart is
// what the axis shows; `shared` gets what was left out, as "prefix…suffix" (empty when nothing
// was). Labels are kept whole where fewer than two, or where one would be left empty. A bench
// axis had read "read working_set=1…" on every bar, cut to its width (review of 2026-12-07).
std::vector<std::string> without_shared_words(const std::vector<std::string>& labels, std::string& shared);

// Characters of the longest tick label the page script writes (SI form from 10,000, exponent
// form below 0.001) on a value axis spanning the data [lo, hi] (from zero), with ECharts' tick
// step: an axis name placed closer than this ran over the ticks ("s" over "1.500e-7").
size_t value_tick_label_chars(double lo, double hi);

// Charts the generic renderer makes for one table: a bar chart of its numeric columns (grouped by
// unit, one chart per unit, at most max_charts), categories from its first string column.
void add_generic_table_charts(const Table& t, ReportPage& page, size_t max_charts = 4);

}  // namespace sextant::report
