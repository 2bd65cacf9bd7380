#pragma once
// Chrome trace-event JSON (opens in Perfetto UI and chrome://tracing) of the recorded units:
// one process per unit (rank or class), one thread per stream (compute, tp, cp, ep, etp, dp,
// edp, pp collectives, pipeline sends), complete events ("X") with FLOPs, bytes, group,
// micro-batch and chunk in args, and flow arrows ("s"/"f") for pipeline transfers between
// recorded units. Timestamps in microseconds. One event per line, deterministic order.
#include <string>
#include <vector>

#include "sim/engine.hpp"

namespace sextant::sim {

std::string timeline_json(const EngineOutput& eo, const std::vector<UnitSpec>& units, size_t stages, const std::string& scenario);

}  // namespace sextant::sim
