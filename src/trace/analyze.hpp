#pragma once
// `sextant analyze`: load traces (one file, many, or directories of ranks), build each rank's
// analysis frame in parallel, run the selected analyses, and return one Result with the
// diagnostics table and load figures.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "trace/analyses/analysis.hpp"
#include "trace/ingest/load.hpp"

namespace sextant::trace {

struct AnalyzeRequest {
  std::vector<std::string> inputs;
  std::vector<std::string> only;  // analysis names; empty = all (HTA's six with --compat hta)
  AnalyzeOptions options;
  LoadOptions load;
};

// From this much JSON on (all ranks), the sizes where the memory bound of half the JSON size
// applies (50 MB), the analyses run one after the other; below it, concurrently.
inline constexpr uint64_t kConcurrentAnalysesMaxRawBytes = uint64_t{48} << 20;

Result analyze(const AnalyzeRequest& req);
// Runs on traces already loaded.
Result analyze_loaded(const TraceSet& set, const AnalyzeRequest& req);

}  // namespace sextant::trace
