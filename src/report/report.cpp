#include "report/report.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/assets.hpp"
#include "report/registry.hpp"

#ifndef SEXTANT_ECHARTS_JS_DEFAULT
#define SEXTANT_ECHARTS_JS_DEFAULT ""
#endif

namespace sextant::report {

std::string escape_html(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string json_for_script(const nlohmann::ordered_json& j) {
  const std::string raw = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size() + raw.size() / 16);
  for (size_t i = 0; i < raw.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(raw[i]);
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == 0xE2 && i + 2 < raw.size() && static_cast<unsigned char>(raw[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(raw[i + 2]) == 0xA8 || static_cast<unsigned char>(raw[i + 2]) == 0xA9)) {
      out += static_cast<unsigned char>(raw[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

bool file_exists(const std::string& p) {
  struct stat st {};
  return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(SourceLocation{path, 0, 0, ""}, "cannot read the charting library");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A script element ends at the first "</script" whatever the JavaScript around it means; "<!--"
// starts an escaped state. Neither may appear raw inside an inline script.
std::string script_safe(std::string js) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"</script", "<\\/script"},
                                 std::pair<std::string, std::string>{"</SCRIPT", "<\\/SCRIPT"},
                                 std::pair<std::string, std::string>{"<!--", "<\\!--"}}) {
    for (size_t pos = 0; (pos = js.find(from, pos)) != std::string::npos; pos += to.size()) js.replace(pos, from.size(), to);
  }
  return js;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Integers whose magnitude is 1e15 or more (beyond the page script's whole-number form, and past
// 2^53 beyond a double's digits) as decimal text: {"scalars": {name: text}, "tables": {table:
// {column: {row: text}}}}, rows below max_rows (those the page embeds).
nlohmann::ordered_json exact_integer_texts(const Result& r, size_t max_rows) {
  constexpr int64_t kFull = 1000000000000000;  // 1e15
  auto big = [](int64_t v) { return v >= kFull || v <= -kFull; };
  nlohmann::ordered_json exact = {{"scalars", nlohmann::ordered_json::object()}, {"tables", nlohmann::ordered_json::object()}};
  for (const auto& [name, v] : r.scalars)
    if (const int64_t* i = std::get_if<int64_t>(&v); i && big(*i)) exact["scalars"][name] = std::to_string(*i);
  for (const Table& t : r.tables)
    for (const Column& c : t.columns()) {
      if (c.type != Column::Type::I64) continue;
      for (size_t row = 0; row < std::min(c.i64.size(), max_rows); ++row)
        if (big(c.i64[row])) exact["tables"][t.name()][c.name][std::to_string(row)] = std::to_string(c.i64[row]);
    }
  return exact;
}

}  // namespace

std::string chart_library_path() {
  const char* env = std::getenv("SEXTANT_ECHARTS_JS");
  const std::string install = "run scripts/install-npm-deps.sh (or scripts/install-deps.sh), or set SEXTANT_ECHARTS_JS to echarts.min.js";
  if (env && *env) {
    if (!file_exists(env))
      throw Error(SourceLocation{env, 0, 0, "SEXTANT_ECHARTS_JS"},
                  "charting library not found (SEXTANT_ECHARTS_JS names echarts.min.js)", install);
    // An empty or foreign file made a page whose every chart said "charting library missing"
    // (review of 2026-12-05): the file must be Apache ECharts (it defines `echarts`).
    const std::string lib = read_all(env);
    if (lib.find("echarts") == std::string::npos)
      throw Error(SourceLocation{env, 0, 0, "SEXTANT_ECHARTS_JS"},
                  lib.empty() ? "the charting library file is empty" : "the charting library file is not Apache ECharts (it never names echarts)",
                  install);
    return env;
  }
  const std::string def = SEXTANT_ECHARTS_JS_DEFAULT;
  if (file_exists(def)) return def;
  throw Error(SourceLocation{def.empty() ? "(not configured)" : def, 0, 0, "SEXTANT_ECHARTS_JS"},
              "--report: the charting library (Apache ECharts, echarts.min.js) is not installed; run "
              "scripts/install-npm-deps.sh (or scripts/install-deps.sh), or set SEXTANT_ECHARTS_JS to the file");
}

ReportPage build_page(const Result& r) {
  ReportPage page;
  page.title = "sextant " + (r.command.empty() ? std::string("result") : r.command);
  const RendererRegistry reg = make_renderer_registry();
  if (const Renderer* fn = reg.find(r.command)) (*fn)(r, page);
  // No renderer, or none of the tables it knows (a sibling command such as "goodput fit", a
  // CPU-only trace): every table is still charted.
  if (page.charts.empty()) render_generic(r, page);
  // A renderer that found nothing to say leaves no blank headline bullet (2026-12-04 review).
  page.takeaways.erase(std::remove_if(page.takeaways.begin(), page.takeaways.end(),
                                      [](const std::string& t) { return t.find_first_not_of(" \t") == std::string::npos; }),
                       page.takeaways.end());
  // Ids must be unique within the page: the browser test and the DOM rely on it.
  for (size_t i = 0; i < page.charts.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (page.charts[i].id == page.charts[j].id) page.charts[i].id += "-" + std::to_string(i);
  return page;
}

static nlohmann::ordered_json page_json(const ReportPage& p) {
  nlohmann::ordered_json j;
  j["title"] = p.title;
  j["subtitle"] = p.subtitle;
  j["takeaways"] = p.takeaways;
  auto charts = nlohmann::ordered_json::array();
  for (const auto& c : p.charts) {
    nlohmann::ordered_json option = c.option;
    drop_unplaceable_on_log_axes(option);
    fit_reference_lines(option);
    charts.push_back({{"id", c.id},
                      {"title", c.title},
                      {"takeaway", c.takeaway},
                      {"kind", c.kind},
                      {"value_unit", c.value_unit},
                      {"height_px", c.height_px},
                      {"option", option}});
    if (!c.value_labels.empty()) charts.back()["value_labels"] = c.value_labels;
    if (!c.series_value_labels.empty()) charts.back()["series_value_labels"] = c.series_value_labels;
    if (c.wide) charts.back()["wide"] = true;
  }
  j["charts"] = charts;
  return j;
}

std::string render_html(const Result& r, const ReportOptions& o) {
  const std::string lib_path = o.chart_library_path.empty() ? chart_library_path() : o.chart_library_path;
  if (!file_exists(lib_path))
    throw Error(SourceLocation{lib_path, 0, 0, ""}, "charting library not found (echarts.min.js)");
  const std::string lib = script_safe(read_all(lib_path));
  const ReportPage page = build_page(r);
  nlohmann::ordered_json doc;
  doc["page"] = page_json(page);
  doc["result"] = to_json(r);
  // A table embeds at most kMaxEmbeddedRows rows (the page shows 500 at a time, filtered and
  // sorted over those embedded): a 204 MB result had made a 552 MB page, beyond the browser's
  // longest string, which opened blank (2026-12-03 review). All rows stay in --json and --csv.
  constexpr size_t kMaxEmbeddedRows = 50000;
  for (auto& [name, t] : doc["result"]["tables"].items()) {
    size_t rows = 0;
    for (auto& [c, values] : t["columns"].items()) rows = std::max(rows, values.size());
    if (rows <= kMaxEmbeddedRows) continue;
    for (auto& [c, values] : t["columns"].items())
      if (values.size() > kMaxEmbeddedRows) values.erase(values.begin() + static_cast<std::ptrdiff_t>(kMaxEmbeddedRows), values.end());
    t["rows_total"] = rows;
    doc["result"]["notes"].push_back("table " + name + ": the first " + std::to_string(kMaxEmbeddedRows) + " of " + std::to_string(rows) +
                                     " rows are in this page; all rows are in the --json and --csv output");
  }
  // The digits of integers the page script cannot show from the parsed numbers: JSON.parse makes a
  // double of 9007199254740993 (9007199254740992) and the script writes 1e15 and beyond in exponent
  // form. Their decimal text, by scalar name and by table, column and row, is shown instead; the
  // embedded result stays the --json document. Before 2026-12-06 (review) a seed of
  // 9007199254740993 read "9.007e+15".
  doc["exact"] = exact_integer_texts(r, kMaxEmbeddedRows);
  const std::string data = json_for_script(doc);
  const std::string script = script_safe(kPageScript);
  char nonce[32];
  std::snprintf(nonce, sizeof nonce, "%016llx", static_cast<unsigned long long>(fnv1a(data) ^ fnv1a(script)));

  std::string h;
  h.reserve(lib.size() + data.size() + 16384);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // No network, no inline event handlers, only the two scripts carrying the nonce may run.
  h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'nonce-";
  h += nonce;
  h += "'; style-src 'unsafe-inline'; img-src data:; font-src data:\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<meta name=\"generator\" content=\"sextant 0.1.0 (report schema " + std::to_string(kSchemaVersion) + ")\">\n";
  h += "<title>" + escape_html(page.title) + "</title>\n<style>" + kPageStyle + "</style>\n";
  h += "<script nonce=\"" + std::string(nonce) + "\">\n" + lib + "\n</script>\n</head>\n<body>\n<main id=\"sextant-root\"></main>\n";
  h += "<noscript><p>This report draws its charts and tables with JavaScript.</p></noscript>\n";
  h += "<script type=\"application/json\" id=\"sextant-data\">" + data + "</script>\n";
  h += "<script nonce=\"" + std::string(nonce) + "\">" + script + "</script>\n";
  h += "<footer><p>Written by sextant 0.1.0; charts drawn by Apache ECharts (Apache-2.0), inlined in this file.</p></footer>\n";
  h += "</body>\n</html>\n";
  return h;
}

Result result_of_document(const nlohmann::ordered_json& doc) {
  Result r = result_from_json(doc);  // the document's shape, schema version and every value's type
  // result_from_json takes a missing key as empty: {"schema_version": 1} and a result without its
  // command had made an empty page, exit 0 (2026-12-06 review).
  for (const char* key : {"command", "scalars", "tables"})
    if (!doc.contains(key))
      throw Error(SourceLocation{"", 0, 0, key},
                  std::string("malformed result JSON: missing: a Sextant result has ") +
                      (std::string(key) == "command" ? "the command that wrote it" : std::string("its ") + key) +
                      " (command, scalars and tables, as --json writes them)",
                  "give the JSON file a command wrote with --json");
  return r;
}

void write_report(const Result& r, const std::string& path, const ReportOptions& o) {
  write_file_atomic(path, render_html(r, o));
}

}  // namespace sextant::report
