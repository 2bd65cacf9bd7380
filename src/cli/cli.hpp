#pragma once
// Shared pieces of the command-line front end. Each subcommand lives in its own file
// cmd_<name>.cpp and exposes add_<name>_command(); main.cpp lists them.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace sextant::cli {

// Output options every command that produces a Result takes.
struct OutputOptions {
  std::string json;    // file or "-" for stdout
  std::string csv_dir;
  std::string report;  // HTML report file
  bool quiet = false;  // no table on stdout
};

void add_output_options(CLI::App& cmd, OutputOptions& o);

// A CLI11 check for a finite number >= 0 (CLI::NonNegativeNumber lets "nan" through).
inline CLI::Validator finite_non_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && std::isfinite(v) && v >= 0) return {};
        } catch (const std::exception&) {
        }
        return "must be a finite number >= 0, got '" + text + "'";
      },
      "FINITE >= 0");
}

// CLI11 checks for a number >= 0 and > 0 whose message says what was given (CLI::NonNegativeNumber
// answers "abc" with "Value abc not in range 0 to 1.797e308"). An integer option then refuses a
// fraction in CLI11's conversion ("Could not convert").
inline CLI::Validator number_at_least(double lo, bool strict) {
  return CLI::Validator(
      [lo, strict](std::string& text) -> std::string {
        try {
          size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && std::isfinite(v) && (strict ? v > lo : v >= lo)) return {};
        } catch (const std::exception&) {
        }
        char buf[64];
        std::snprintf(buf, sizeof buf, "must be a number %s %g, got '", strict ? ">" : ">=", lo);
        return buf + text + "'";
      },
      strict ? "POSITIVE" : "NONNEGATIVE");
}
inline CLI::Validator non_negative_number() { return number_at_least(0, false); }
inline CLI::Validator positive_number() { return number_at_least(0, true); }

// A CLI11 check for a finite number in [lo, hi].
inline CLI::Validator finite_in_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        try {
          size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && std::isfinite(v) && v >= lo && v <= hi) return {};
        } catch (const std::exception&) {
        }
        char buf[96];
        std::snprintf(buf, sizeof buf, "must be a finite number from %g to %g, got '", lo, hi);
        return buf + text + "'";
      },
      "FINITE");
}

// A CLI11 check for an unsigned 64-bit integer written in decimal digits (no sign, no wrap).
inline CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 20;
        for (const char c : text) digits = digits && c >= '0' && c <= '9';
        if (digits && (text.size() < 20 || text <= "18446744073709551615")) return {};
        return "must be an integer from 0 to 18446744073709551615, got '" + text + "'";
      },
      "UINT64");
}

// Renders r as the user asked: the table on stdout (unless --json - or --quiet), JSON, CSVs,
// report, and the command's extra files (path, content; e.g. simulate's --timeline). Every file
// is staged and all are renamed into place together.
void emit(const Result& r, const OutputOptions& o, const std::vector<std::pair<std::string, std::string>>& extra_files = {});

// Parses repeated --set key=value options into pairs; throws Error on a malformed one.
std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets);

// Report rendering hook: set by the report module's command file when it is linked.
using ReportWriter = std::function<void(const Result&, const std::string& path)>;
void set_report_writer(ReportWriter w);

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
