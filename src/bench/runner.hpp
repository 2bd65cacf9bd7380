#pragma once
// Running suites into a RunRecord, and the Result tables of a run (shared by `sextant bench`
// and `sextant history show`).
#include <string>
#include <vector>

#include "bench/db/results_db.hpp"
#include "bench/suite.hpp"
#include "core/result.hpp"

namespace sextant::bench {

// The suites to run: `names` (empty: all of the registry) in registry order.
std::vector<const Suite*> select_suites(const SuiteRegistry& reg, const std::vector<std::string>& names);
double expected_duration_s(const std::vector<const Suite*>& suites, const SuiteConfig& config);

// Runs the suites one after the other; the record holds the host, the configuration, all
// measurements and the suites' notes (text blocks, such as the nccl-tests layout, become notes).
RunRecord run_suites(const std::vector<const Suite*>& suites, const SuiteConfig& config);
// Text with every byte outside a well-formed UTF-8 sequence replaced by '?' (for JSON).
std::string valid_utf8(const std::string& in);

// Tables: one per (suite, metric) named <suite>_<metric> with median, min, max, IQR, spread and
// counts (GEMM tables add peak and efficiency); "counters" when any measurement has them;
// "parameters" (suite, case, key, value) when with_params.
Result run_result(const RunRecord& run, const std::string& command, bool with_params);

}  // namespace sextant::bench
