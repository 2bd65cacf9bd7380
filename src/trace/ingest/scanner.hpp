#pragma once
// Streaming scanner for Chrome-trace / Kineto JSON. It reads the document in chunks from a
// ByteSource, walks the top-level object, and turns each element of "traceEvents" into one row of
// a RankTrace as soon as the element is complete, so memory is bounded by the chunk size plus the
// columnar events (never the whole text). Top-level metadata (distributedInfo, deviceProperties,
// baseTimeNanoseconds) is parsed on the side. A bare JSON array of events is accepted too.
//
// Contract:
//  - A syntactically broken document (or one that is not JSON) throws Error naming the file and
//    the byte offset (in the uncompressed text) where reading stopped.
//  - Events that are valid JSON but unexpected (no "ph", no "ts", non-object elements, unknown
//    phases, string streams, ...) are counted in RankTrace::diagnostics and never abort.
#include <cstddef>
#include <string>

#include "trace/ingest/byte_source.hpp"
#include "trace/model.hpp"

namespace sextant::trace {

struct ScanOptions {
  size_t chunk_bytes = 8 << 20;  // initial window; grows only for a single value larger than it
  // gzip decompression limit (see byte_source.hpp): default rule, 0 = none, > 0 = bytes.
  int64_t max_inflate_bytes = kDefaultInflateLimit;
  // Threads one file's scan may use. With 2 and more, a text held whole in memory (a mapped plain
  // file or an inflated gzip member) of at most 48 MiB whose traceEvents array has split_min_bytes
  // or more left is read in two halves at once, joined into the same RankTrace as one thread gives.
  int threads = 1;
  size_t split_min_bytes = size_t{2} << 20;
};

// Fills out (file, events, metadata, diagnostics, raw_bytes, json_events).
void scan_trace(ByteSource& src, const std::string& file, RankTrace& out, const ScanOptions& opt = {});

// Convenience for in-memory text (tests).
void scan_trace_text(const std::string& text, const std::string& file, RankTrace& out);

}  // namespace sextant::trace
