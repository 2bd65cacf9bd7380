#pragma once
// `sextant analyze --diff A B`: what changed between two traces (or two directories of ranks):
// GPU kernels and CPU operators added, removed, slower or faster, by total time summed over
// ranks, with the GPU busy time and span of each side.
#include "core/result.hpp"
#include "trace/ingest/load.hpp"

namespace sextant::trace {

struct DiffOptions {
  double same_fraction = 0.02;  // |B/A - 1| below this is "same"
  int top = 50;                 // rows per table, by |delta|
};

Result diff_traces(const TraceSet& a, const TraceSet& b, const DiffOptions& opt = {});

}  // namespace sextant::trace
