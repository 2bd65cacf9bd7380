// sextant report RESULT.json -o FILE.html: the HTML report of a saved result (any command's --json).
// This file also installs the report writer behind every command's --report option.
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "core/error.hpp"
#include "report/report.hpp"

namespace sextant::cli {

namespace {
struct ReportArgs {
  std::string input, output;
};
}  // namespace

void add_report_command(CLI::App& app) {
  set_report_writer([](const Result& r, const std::string& path) { report::write_report(r, path); });
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Write the self-contained HTML report (charts, tables) of a saved --json result");
  cmd->add_option("result", a->input, "Result JSON written by any command's --json")->required();
  cmd->add_option("-o,--out", a->output, "HTML file to write")->required();
  cmd->callback([a] {
    std::ifstream in(a->input);
    if (!in) throw Error(SourceLocation{a->input, 0, 0, ""}, "cannot read the result file");
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::ordered_json j;
    try {
      j = nlohmann::ordered_json::parse(ss.str());
    } catch (const nlohmann::json::parse_error& e) {
      throw Error(SourceLocation{a->input, 0, 0, ""}, std::string("not JSON: ") + e.what());
    }
    Result res;
    try {
      res = result_from_json(j);
    } catch (const Error& e) {
      // Name the file: result_from_json knows the place in the document, not the document.
      throw Error(SourceLocation{a->input, 0, 0, e.where().key}, e.message(), e.hint());
    }
    report::write_report(res, a->output);
  });
}

}  // namespace sextant::cli
