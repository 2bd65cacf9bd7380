#pragma once
// A compact binary form of one rank's loaded trace (columns, strings, side tables, metadata,
// diagnostics), used for
//  - the per-rank cache: a second analysis of an unchanged file reads the cache instead of
//    re-parsing the JSON. The cache lives next to the trace (<file>.sxcache) or in a cache
//    directory (name derived from the trace's absolute path) and is keyed by the trace's size,
//    modification time and the format version; it is written atomically (temporary + rename);
//  - gathering ranks parsed by other processes under mpirun.
// A stale, foreign or damaged cache is never an error: it is ignored (and rewritten).
#include <optional>
#include <string>

#include "trace/model.hpp"

namespace sextant::trace {

inline constexpr uint32_t kCacheFormatVersion = 15;  // 2: memcpy/memset byte counts (transfers); 3: nccl:* shapes; 4: stream waits; 5: CRC-32 trailer; 6: event syncs among the waits; 7: string escapes that are not JSON kept as written and counted; 8: numbers with an exponent read exactly; 9: pid/tid texts and wide integers coded (id_labels); 10: [memory] samples with a negative ts dropped, a repeated traceEvents key counted; 11: otherData.generator kept; 12: pid/tid numbers that are not int64 integers (7.5, 1e20, 2^64) coded by their text (2026-12-06 review); 13: External ids of operators tied in time (tied_external_ids, 2026-12-06 review); 14: also those tied with an operator without an id (2026-12-06 review); 15: GPU events without timestamps (ts 0, dur 0) dropped (2026-12-07 review)

std::string serialize_rank(const RankTrace& t);
// Throws Error naming `what` when the bytes are not a serialized rank of this version.
RankTrace deserialize_rank(const std::string& bytes, const std::string& what);

// The cache file of a trace: next to it when cache_dir is empty, else inside cache_dir.
std::string cache_path_for(const std::string& trace_path, const std::string& cache_dir);
// The cached rank when the cache exists and matches the trace's size and mtime; nullopt otherwise.
std::optional<RankTrace> read_rank_cache(const std::string& trace_path, const std::string& cache_dir);
// Writes the cache atomically. Returns false (never throws) when it cannot be written.
bool write_rank_cache(const std::string& trace_path, const std::string& cache_dir, const RankTrace& t);

}  // namespace sextant::trace
