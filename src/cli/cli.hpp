#pragma once
// Shared pieces of the command-line front end. Each subcommand lives in its own file
// cmd_<name>.cpp and exposes add_<name>_command(); main.cpp lists them.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace sextant::cli {

// Output options every command that produces a Result takes.
struct OutputOptions {
  std::string json;    // file or "-" for stdout
  std::string csv_dir;
  std::string report;  // HTML report file
  bool quiet = false;  // no table on stdout
  // The command's own output files (simulate's --timeline): option name and the path it holds,
  // checked with --json before the command runs (add_output_file_option).
  std::vector<std::pair<std::string, const std::string*>> extra_files;
  // The JSON goes to standard output ('-', or /dev/stdout as the file writer takes it).
  bool json_to_stdout() const { return json == "-" || json == "/dev/stdout"; }
};

void add_output_options(CLI::App& cmd, OutputOptions& o);
// Throws Error (key `option`) when an output at `path` could not be written: a file output that
// names a folder or ends in '/', a parent that is a file, a folder where no file can be made. Run
// before the work, as add_output_options does for --json, --csv and --report; the Python module
// calls it with its argument's name ("timeline", "write_scenario", "path").
void check_output_path(const std::string& option, const std::string& path, bool is_folder);
// Throws Error (key `option`) when the output path names the existing file `input` the command
// reads (the CLI checks every input option itself; the Python module passes its scenario path).
void check_not_input(const std::string& option, const std::string& output, const std::string& input);
// A command's own output file option (e.g. "--timeline"), written by emit() as one of its
// extra_files: an empty path is refused, and the path is checked as --json's is, before the
// command runs. `path` must outlive the parse (a member of the command's argument struct).
CLI::Option* add_output_file_option(CLI::App& cmd, OutputOptions& o, const std::string& name, std::string& path,
                                    const std::string& description);

// The whole of text as a finite number, or false ("1.3x", "nan", "1e999" are not).
inline bool parse_finite(const std::string& text, double* v) {
  try {
    size_t used = 0;
    *v = std::stod(text, &used);
    return used == text.size() && std::isfinite(*v);
  } catch (const std::exception&) {
    return false;
  }
}

// The labels --help shows after the type (INT:POSITIVE) come from one vocabulary: POSITIVE (> 0),
// NONNEGATIVE (>= 0), an interval ([0, 1), (0, 1], [lo, hi]), a bound (>= 2), SEED, COUNT, or the
// choices ({a,b}). A default is written in the description as "(default X)".
// CLI11 checks whose message says what was given (CLI::NonNegativeNumber answers "abc" with
// "Value abc not in range 0 to 1.797e308", and lets "nan" through). An integer option then
// refuses a fraction in CLI11's conversion ("Could not convert").
inline CLI::Validator number_check(double lo, bool lo_strict, double hi, const std::string& rule, const std::string& name) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        if (parse_finite(text, &v) && (lo_strict ? v > lo : v >= lo) && v <= hi) return {};
        return "must be " + rule + ", got '" + text + "'";
      },
      name);
}
// A path that must name something: an empty one (`--db "$DB"` with DB unset) had silently taken
// the default database, the user's own (2026-12-06 review).
inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!text.empty()) return {};
        return "is empty: give a path (leave the option out for the default)";
      },
      "");
}
// A repeatable option of one value per use (--set a=1 --set b=2). A vector option otherwise takes
// every argument up to the next option, so before 2026-12-06 `simulate --straggler 3=1.2 s.yaml`
// read the scenario as a second straggler and failed "scenario is required" (review); no doc or
// test gave several values after one flag.
inline CLI::Option* one_value_per_use(CLI::Option* o) {
  return o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}
// A count option: an integer in [lo, hi] written in decimal digits (hi: the most the option's type
// holds, or its own limit). The number checks took 1e3 or 2.5 as numbers in range and left CLI11's
// conversion to refuse them with neither range nor rule ("Could not convert: --top = 2.5"), and a
// count beyond int64 was clamped to 9223372036854775807 and echoed so (2026-12-06 review).
inline CLI::Validator count_check(int64_t lo, int64_t hi, const std::string& rule, const std::string& label) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 19;
        for (const char ch : text) digits = digits && ch >= '0' && ch <= '9';
        if (digits && (text.size() < 19 || text <= "9223372036854775807")) {
          const int64_t v = std::stoll(text);
          if (v >= lo && v <= hi) return {};
        }
        return "must be " + rule + ", got '" + text + "'";
      },
      label);
}
inline CLI::Validator count_check(int64_t lo, int64_t hi, const std::string& label) {
  return count_check(lo, hi, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi), label);
}
inline CLI::Validator finite_non_negative() { return number_check(0, false, HUGE_VAL, "a finite number >= 0", "NONNEGATIVE"); }
inline CLI::Validator non_negative_number() { return number_check(0, false, HUGE_VAL, "a number >= 0", "NONNEGATIVE"); }
inline CLI::Validator positive_number() { return number_check(0, true, HUGE_VAL, "a number > 0", "POSITIVE"); }
inline CLI::Validator finite_in_range(double lo, double hi) {
  char buf[96];
  char label[64];
  std::snprintf(buf, sizeof buf, "a finite number from %g to %g", lo, hi);
  std::snprintf(label, sizeof label, "[%g, %g]", lo, hi);
  return number_check(lo, false, hi, buf, label);
}

// A CLI11 check for a seed: an integer from 0 to 2^63-1 written in decimal digits (no sign, no
// wrap). Seeds are reported in results as 64-bit signed integers, and scenario files take the same
// range, so every seed a result shows can be given back.
// label: the type shown in --help ("SEED" for seeds, "COUNT" for --top; "UINT:SEED" on a count
// read oddly).
inline CLI::Validator unsigned_64(const char* label = "SEED") {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 19;
        for (const char c : text) digits = digits && c >= '0' && c <= '9';
        if (digits && (text.size() < 19 || text <= "9223372036854775807")) return {};
        return "must be an integer from 0 to 9223372036854775807 (2^63-1), got '" + text + "'";
      },
      label);
}

// A count from 1 (a rank of a table): CLI::PositiveNumber answered 0 with "not in range 0.000000
// to" DBL_MAX written out in 300 digits (2026-12-05 fuzz review).
inline CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 19;
        for (const char c : text) digits = digits && c >= '0' && c <= '9';
        if (digits && (text.size() < 19 || text <= "9223372036854775807") && text.find_first_not_of('0') != std::string::npos) return {};
        return "must be an integer from 1 to 9223372036854775807 (2^63-1), got '" + text + "'";
      },
      "POSITIVE");
}

// Renders r as the user asked: the table on stdout (unless --json - or --quiet), JSON, CSVs,
// report, and the command's extra files (path, content; e.g. simulate's --timeline). Every file
// is staged and all are renamed into place together.
void emit(const Result& r, const OutputOptions& o, const std::vector<std::pair<std::string, std::string>>& extra_files = {});

// Whether an output path names a gzip file (ends in .gz, any case), and the bytes of a one-member
// gzip file holding `text` (zlib level 6); an error names `path` and `option`. Used for
// `simulate --timeline FILE.json.gz` and Python's simulate(timeline=).
bool names_gzip(const std::string& path);
std::string gzip_text(std::string_view text, const std::string& path, const std::string& option);

// Parses repeated --set key=value options into pairs; throws Error on a malformed one.
// --set KEY=VALUE pairs; `example` is the command's own key shown when one lacks its '='.
std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets, const std::string& example = "parallel.tp=4");

// Report rendering hook: set by the report module's command file when it is linked.
using ReportWriter = std::function<void(const Result&, const std::string& path)>;
// preflight: run before a command with --report starts (throws when no report could be written).
void set_report_writer(ReportWriter w, std::function<void()> preflight = {});

// Subcommands.
void add_catalog_command(CLI::App& app);
void add_estimate_command(CLI::App& app);
void add_simulate_command(CLI::App& app);  // cmd_simulate.cpp

void add_validate_command(CLI::App& app);
void add_plan_command(CLI::App& app);   // cmd_plan.cpp
void add_sweep_command(CLI::App& app);  // cmd_sweep.cpp
void add_goodput_command(CLI::App& app);
void add_bench_command(CLI::App& app);      // cmd_bench.cpp: bench, bench run, bench import-nccl
void add_history_command(CLI::App& app);    // cmd_history.cpp
void add_calibrate_command(CLI::App& app);  // cmd_calibrate.cpp
void add_analyze_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_infer_command(CLI::App& app);
void add_report_command(CLI::App& app);  // cmd_report.cpp: `report`, and the writer behind --report

}  // namespace sextant::cli
