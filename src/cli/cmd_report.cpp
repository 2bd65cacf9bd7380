// sextant report RESULT.json -o FILE.html: the HTML report of a saved result (any command's --json).
// This file also installs the report writer behind every command's --report option.
#include <filesystem>

#include "cli/cli.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/report.hpp"

namespace sextant::cli {

namespace {
struct ReportArgs {
  std::string input, output;
};
}  // namespace

void add_report_command(CLI::App& app) {
  set_report_writer([](const Result& r, const std::string& path) { report::write_report(r, path); },
                    [] { (void)report::chart_library_path(); });
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Write the self-contained HTML report (charts, tables) of a saved --json result");
  cmd->add_option("result", a->input, "Result JSON written by any command's --json")->required();
  cmd->add_option("-o,--out", a->output, "HTML file to write")->required();
  cmd->callback([a] {
    // An empty --out had failed at the rename, blamed on the input file (2026-12-05 review).
    if (a->output.empty()) throw Error(SourceLocation{"", 0, 0, "--out"}, "is empty: give the HTML file's name");
    if (std::filesystem::is_directory(a->input)) throw Error(SourceLocation{a->input, 0, 0, ""}, "is a directory", "give the JSON file a command wrote with --json");
    {
      // The saved result replaced by its own report (`report r.json -o r.json` exited 0 with the
      // JSON gone, 2026-12-04 review).
      std::error_code ec;
      if (std::filesystem::exists(a->output, ec) && std::filesystem::equivalent(a->input, a->output, ec))
        throw Error(SourceLocation{a->output, 0, 0, "--out"}, "is the result file being read: the report would overwrite it",
                    "give the HTML report another name");
      if (!a->output.empty() && (a->output.back() == '/' || std::filesystem::is_directory(a->output, ec)))
        throw Error(SourceLocation{a->output, 0, 0, "--out"}, "is a folder: --out takes the HTML file's name", "give a file name");
    }
    // read_file: a FIFO or device is refused, not waited on (a FIFO without a writer hung the
    // command; 2026-12-05 review).
    const std::string text = read_file(a->input);
    nlohmann::ordered_json j;
    try {
      j = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      // file:line:col and the parser's reason, without the library's prefix.
      int line = 1, col = 1;
      for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          col = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
          ++col;  // columns count characters, not the bytes of UTF-8 text
        }
      }
      std::string why = e.what();
      if (const auto k = why.find(": "); k != std::string::npos && why.find("parse error") != std::string::npos) why = why.substr(k + 2);
      throw Error(SourceLocation{a->input, line, col, ""}, "not JSON: " + why, "give the JSON file a command wrote with --json");
    } catch (const nlohmann::json::exception& e) {
      // Valid JSON the reader cannot hold (1e999: "number overflow") had been an internal error.
      std::string why = e.what();
      if (const auto k = why.find("] "); k != std::string::npos) why = why.substr(k + 2);
      throw Error(SourceLocation{a->input, 0, 0, ""}, "not a result: " + why, "give the JSON file a command wrote with --json");
    }
    Result res;
    try {
      res = report::result_of_document(j);  // strict, and the keys every result has (command, scalars, tables)
    } catch (const Error& e) {
      // Name the file: result_from_json knows the place in the document, not the document.
      throw Error(SourceLocation{a->input, 0, 0, e.where().key}, e.message(), e.hint());
    }
    try {
      report::write_report(res, a->output);
    } catch (const Error& e) {
      // A renderer's complaint about the result (a column missing or of another type) names a
      // key, not the file it came from: name the input (it named neither before 2026-12-03).
      // Errors about another file (the output, the charting library) pass as they are.
      if (!e.where().file.empty()) throw;
      throw Error(SourceLocation{a->input, 0, 0, e.where().key}, e.message(), e.hint());
    }
  });
}

}  // namespace sextant::cli
