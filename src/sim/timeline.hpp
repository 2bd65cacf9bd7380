#pragma once
// Chrome trace-event JSON (opens in Perfetto UI and chrome://tracing) of the recorded units:
// one process per unit (rank or class), one thread per stream (compute, tp, cp, ep, etp, dp,
// edp, pp collectives, pipeline sends), complete events ("X") with FLOPs, bytes, group,
// micro-batch and chunk in args (a collective's also its wait for the other members, wait_us, and
// its transfer, transfer_us), and flow arrows ("s"/"f", each 1 ns inside its slice) for pipeline
// transfers between recorded units. Timestamps in microseconds. One event per line, deterministic order.
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/simulate.hpp"

namespace sextant::sim {

std::string timeline_json(const EngineOutput& eo, const std::vector<UnitSpec>& units, size_t stages, const std::string& scenario);

// The bounded timeline table of SimResult (limit > 0 rows): every span as a row when they fit;
// otherwise adjacent spans of one unit's stream with the same category and pass are merged,
// closest first, ties by start time (just the pairs that bring the rows within the limit); when even
// merging every such pair leaves too many rows, the rows starting last are dropped. Fills
// r.timeline, timeline_spans_count, timeline_rows_limit, timeline_merge_gap_s and
// timeline_dropped_count. Deterministic.
void timeline_table(const EngineOutput& eo, const std::vector<UnitSpec>& units, int64_t limit, SimResult& r);

}  // namespace sextant::sim
