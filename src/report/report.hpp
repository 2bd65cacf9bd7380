#pragma once
// HTML reports: one self-contained file per Result that opens offline.
//
// A report is built in two steps. A renderer chosen by the Result's command (see registry.hpp)
// turns the Result into a ReportPage: charts as Apache ECharts options holding data only (no code)
// and one-line takeaways computed from the data. render_html() then writes a page that embeds the
// charting library, the page and the whole Result as JSON inside <script type="application/json">
// (with '<', '>', '&', U+2028 and U+2029 escaped), and a small script that builds the DOM with
// textContent only: no string that came from an input is ever parsed as HTML.
#include <string>

#include "core/result.hpp"
#include "report/page.hpp"

namespace sextant::report {

struct ReportOptions {
  // Path of echarts.min.js. Empty: chart_library_path() decides.
  std::string chart_library_path;
};

// Where the charting library is: $SEXTANT_ECHARTS_JS when set, else the path the build configured
// (CMake SEXTANT_NPM_DIR, filled by scripts/install-npm-deps.sh). Throws Error naming both and the
// command that installs it when the file does not exist.
std::string chart_library_path();

// The page the registered renderer (or the generic one) makes for r.
ReportPage build_page(const Result& r);

// The Result a saved document holds, for a report of it (`sextant report`):
// result_from_json's strict reading, and the keys every result has, as --json writes them:
// `command` (text), `scalars` and `tables` (objects; `notes` may be left out). A missing one is an
// Error naming the key, whose file the caller adds.
Result result_of_document(const nlohmann::ordered_json& doc);

// Complete HTML of the report of r. Deterministic: same Result and library, same bytes.
std::string render_html(const Result& r, const ReportOptions& o = {});

// render_html written atomically to path.
void write_report(const Result& r, const std::string& path, const ReportOptions& o = {});

// Escapes text for an HTML text node or a double-quoted attribute value.
std::string escape_html(const std::string& s);

// JSON text that is safe inside a <script> element: '<', '>' and '&' become \u003c, \u003e,
// \u0026 and U+2028/U+2029 become \u2028/\u2029 (all only ever occur inside JSON strings, where
// these escapes mean the same characters). Invalid UTF-8 is replaced by U+FFFD.
std::string json_for_script(const nlohmann::ordered_json& j);

}  // namespace sextant::report
