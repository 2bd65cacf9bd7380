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
#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"
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

// The text is not JSON (or not a trace's top level). byte_offset is where in the (inflated) text
// the scan stopped; the message names it. The scanner reads a stream and does not count lines:
// load_trace_file, which can read the file again, rethrows it with the line and column.
class JsonSyntaxError : public Error {
 public:
  JsonSyntaxError(SourceLocation where, std::string message, std::string hint, uint64_t byte_offset)
      : Error(std::move(where), std::move(message), std::move(hint)), byte_offset_(byte_offset) {}
  uint64_t byte_offset() const { return byte_offset_; }

 private:
  uint64_t byte_offset_;
};

// Fills out (file, events, metadata, diagnostics, raw_bytes, json_events). Throws JsonSyntaxError
// for text that is not JSON, Error for a file that cannot be read.
void scan_trace(ByteSource& src, const std::string& file, RankTrace& out, const ScanOptions& opt = {});

// Convenience for in-memory text (tests).
void scan_trace_text(const std::string& text, const std::string& file, RankTrace& out);

}  // namespace sextant::trace
