#pragma once
// Loading a job's traces: one file, many files, or directories of per-rank files. Files are read
// in parallel threads (one rank per task); each rank's events stay in their own columnar store.
#include <string>
#include <vector>

#include "trace/ingest/scanner.hpp"
#include "trace/model.hpp"

namespace sextant::trace {

struct LoadOptions {
  int threads = 0;  // 0: hardware concurrency; one file per thread, threads left over go to a file's scan
  ScanOptions scan;
  // Per-rank cache (ingest/cache.hpp): read a valid cache instead of parsing, write one after.
  bool cache = false;      // cache files next to the traces (<file>.sxcache)
  std::string cache_dir;   // or in this directory (implies cache)
};

struct TraceSet {
  std::vector<RankTrace> ranks;  // sorted by rank, then file name
  Diagnostics diagnostics;       // job-level (files that are not traces, duplicate ranks, ...)
  std::vector<std::string> skipped_files;
  uint64_t raw_bytes = 0;
  uint64_t file_bytes = 0;
  double load_wall_s = 0;
  int64_t cache_hits = 0;        // ranks read from the cache instead of parsed
  // Why the ranks read are not one job, as assemble_trace_set decides it from the decisive signals
  // (traces more than an hour apart in time, distributedInfo world sizes that disagree); empty when
  // they are taken for one job. Where set, the cross-rank analyses (clock_skew, collectives and
  // stragglers, the findings, critical-path and what-if parts built on matched collectives) are
  // skipped and the per-rank ones run (review of 2026-12-07: two jobs' ranks had been given a
  // 372-day clock offset, paired collectives and a straggler).
  std::string not_one_job;
};

// Directories are expanded to their *.json, *.json.gz and *.pt.trace.json(.gz) files (sorted,
// not recursive); files are kept as given. Throws Error for a path that does not exist.
std::vector<std::string> expand_trace_paths(const std::vector<std::string>& inputs);

// The rank written in a file name ("rank-3", "rank_3", "rank3", "worker3"); -1 if none.
int64_t rank_from_file_name(const std::string& path);

// Reads one file (plain or gzip). Throws Error for an unreadable file.
RankTrace load_trace_file(const std::string& path, const ScanOptions& opt = {});

// Reads the given files in parallel threads (through the cache when enabled), in file order.
// A file that cannot be read is returned with its error in load_error (assemble_trace_set decides);
// *cache_hits counts ranks read from the cache.
std::vector<RankTrace> load_rank_files(const std::vector<std::string>& files, const LoadOptions& opt,
                                       int64_t* cache_hits = nullptr);

// The job from its files and their loaded ranks (same order): files that could not be read
// (load_error) are skipped with a warning while another file is readable, else the first one's
// error is thrown (events with corrupt values were dropped and counted by the scanner, severity
// "error"; their file is kept); files that are not traces
// skipped with a diagnostic, ranks sorted, duplicate ranks checked.
TraceSet assemble_trace_set(const std::vector<std::string>& files, std::vector<RankTrace> loaded);

// Reads every file in parallel. A file without "traceEvents" (e.g. a PyTorch execution trace)
// is skipped with a diagnostic; an unreadable or corrupt one too when another file is readable,
// else it throws.
TraceSet load_traces(const std::vector<std::string>& inputs, const LoadOptions& opt = {});

}  // namespace sextant::trace
