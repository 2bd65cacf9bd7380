#include "trace/ingest/load.hpp"

#include <algorithm>
#include <set>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <map>
#include <regex>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <zlib.h>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "trace/ingest/byte_source.hpp"
#include "trace/ingest/cache.hpp"

namespace sextant::trace {

namespace {
const std::string kRankZeroAssumed = "rank not found (no usable distributedInfo.rank, no rank in the file name): rank 0 assumed";
}  // namespace

namespace fs = std::filesystem;

namespace {
// Whether a cached rank's inflated size is within the decompression limit the scan would apply to
// its file now (open_byte_source's rule: gzip files only; kDefaultInflateLimit, 0 or a byte
// count). A cache written without a limit had let `--max-inflate-bytes` pass a file it refuses
// (2026-12-04 review): the same command's result depended on an earlier run.
bool within_inflate_limit(const std::string& path, uint64_t raw_bytes, int64_t max_inflate_bytes) {
  if (max_inflate_bytes == 0) return true;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;  // unreadable now: the scan says why
  unsigned char head[2] = {0, 0};
  const size_t got = std::fread(head, 1, 2, f);
  std::fclose(f);
  if (got != 2 || head[0] != 0x1f || head[1] != 0x8b) return true;  // not gzip: no limit applies
  uint64_t limit = 0;
  if (max_inflate_bytes > 0) {
    limit = static_cast<uint64_t>(max_inflate_bytes);
  } else {
    std::error_code ec;
    const uint64_t compressed = fs::file_size(path, ec);
    limit = std::max(kInflateFloorBytes, ec ? 0 : compressed * kInflateRatio);
  }
  return raw_bytes <= limit;
}

// A cheap identity of a file's content: the CRC-32 of its first and of its last 64 KiB (the last
// ones that the first do not hold), as the mpirun input check compares files without reading a
// trace of gigabytes whole. false when the file cannot be read.
constexpr uint64_t kEndBytes = 64 * 1024;
bool file_ends_crc(const std::string& path, uint64_t size, uint64_t& crc) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::vector<unsigned char> buf(static_cast<size_t>(std::min(size, kEndBytes)));
  auto span_crc = [&](uint64_t at, size_t n, uLong& c) {
    c = crc32(0L, Z_NULL, 0);
    if (n == 0) return true;
    if (std::fseek(f, static_cast<long>(at), SEEK_SET) != 0 || std::fread(buf.data(), 1, n, f) != n) return false;
    c = crc32(c, buf.data(), static_cast<uInt>(n));
    return true;
  };
  uLong head = 0, tail = 0;
  const uint64_t tail_at = std::max(kEndBytes, size > kEndBytes ? size - kEndBytes : 0);
  const bool ok = span_crc(0, buf.size(), head) && span_crc(tail_at, static_cast<size_t>(size > tail_at ? size - tail_at : 0), tail);
  std::fclose(f);
  crc = (static_cast<uint64_t>(head) << 32) | static_cast<uint64_t>(tail);
  return ok;
}
}  // namespace

static bool looks_like_trace(const std::string& name) {
  auto ends = [&](const char* suf) {
    std::string s(suf);
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".json") || ends(".json.gz");
}

std::vector<std::string> expand_trace_paths(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  // A file named twice (a path and its folder, the same path twice) is one rank: it had become two
  // ranks of unstated rank, doubling the cross-rank totals, before 2026-12-02.
  std::set<std::string> seen;
  auto add = [&](const std::string& p) {
    std::error_code ec;
    // The path itself, made absolute and normal (symbolic links are not followed: links to one
    // file are a user's way to build a job of copies).
    std::string key = fs::absolute(p, ec).lexically_normal().string();
    if (ec) key = p;
    if (!seen.insert(key).second) return;
    out.push_back(p);
  };
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> files, subdirs;
      for (const auto& de : fs::directory_iterator(in)) {
        std::error_code dec;
        if (de.is_directory(dec)) {
          subdirs.push_back(de.path().filename().string());
          continue;
        }
        if (!de.is_regular_file()) continue;
        std::string n = de.path().filename().string();
        if (looks_like_trace(n)) files.push_back(de.path().string());
      }
      std::sort(files.begin(), files.end());
      if (files.empty()) {
        // The folder is not searched recursively; a job folder with one subfolder per node had
        // been refused without saying why its traces were not found: the subfolders are named
        // (review of 2026-12-06).
        std::string hint = "expected *.json or *.json.gz files (one per rank)";
        if (!subdirs.empty()) {
          std::sort(subdirs.begin(), subdirs.end());
          constexpr size_t kNamed = 8;
          std::string names;
          for (size_t i = 0; i < subdirs.size() && i < kNamed; ++i) names += (i ? ", " : "") + subdirs[i];
          if (subdirs.size() > kNamed) names += ", and " + std::to_string(subdirs.size() - kNamed) + " more";
          hint += "; " + std::to_string(subdirs.size()) + (subdirs.size() == 1 ? " subdirectory" : " subdirectories") +
                  " not searched (directories are not read recursively): " + names + "; pass them as arguments";
        }
        throw Error(SourceLocation{in, 0, 0, ""}, "directory holds no trace files", hint);
      }
      for (const auto& f : files) add(f);
    } else if (fs::exists(in, ec)) {
      add(in);
    } else {
      throw Error(SourceLocation{in, 0, 0, ""}, "no such trace file or directory");
    }
  }
  return out;
}

int64_t rank_from_file_name(const std::string& path) {
  static const std::regex re(R"((?:rank|worker)[-_]?(\d+))", std::regex::icase);
  std::string base = fs::path(path).filename().string();
  std::smatch m;
  // A number too long for a rank (rank99999999999999999999) is no rank: -1, "rank not found".
  if (std::regex_search(base, m, re) && m[1].length() <= 9) return std::stoll(m[1].str());
  return -1;
}

namespace {

// The 1-based line and column of byte `offset` of path's (inflated) text, read again from the
// start: an error path only, so the scan itself never counts lines. {0, 0} when the file cannot
// be read again.
std::pair<int, int> line_and_column(const std::string& path, uint64_t offset, int64_t max_inflate_bytes) {
  try {
    auto src = open_byte_source(path, max_inflate_bytes, false);
    std::vector<char> buf(size_t{1} << 20);
    uint64_t pos = 0, line = 1, line_start = 0;
    while (pos < offset) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), offset - pos));
      size_t got = src->read(buf.data(), want);
      if (got == 0) break;
      for (size_t i = 0; i < got; ++i)
        if (buf[i] == '\n') {
          ++line;
          line_start = pos + i + 1;
        }
      pos += got;
    }
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int>::max());
    return {static_cast<int>(std::min(line, kMax)), static_cast<int>(std::min(offset - line_start + 1, kMax))};
  } catch (const Error&) {
    return {0, 0};
  }
}

RankTrace load_trace_file_unlocated(const std::string& path, const ScanOptions& opt);

}  // namespace

RankTrace load_trace_file(const std::string& path, const ScanOptions& opt) {
  try {
    return load_trace_file_unlocated(path, opt);
  } catch (const JsonSyntaxError& e) {
    auto [line, column] = line_and_column(path, e.byte_offset(), opt.max_inflate_bytes);
    if (line == 0) throw;
    throw Error(SourceLocation{path, line, column, ""}, e.message(), e.hint());
  }
}

namespace {

RankTrace load_trace_file_unlocated(const std::string& path, const ScanOptions& opt) {
  RankTrace t;
  std::error_code ec0;
  uint64_t fsize = fs::file_size(path, ec0);
  // With a second core, a gzip file is inflated progressively and scanned behind the inflater
  // (byte_source.hpp); should that fail (a corrupt or multi-member file), the file is read again
  // the serial way, whose errors name the byte offset.
  auto src = open_byte_source(path, opt.max_inflate_bytes, opt.threads >= 2);
  // Room for the events up front, so that the columns never reallocate (a reallocation holds old
  // and new arrays at once): Kineto events are rarely under 120 bytes of JSON, gzip ~15x.
  t.reserve(static_cast<size_t>((src->compressed() ? fsize * 20 : fsize) / 120 + 1024));
  bool retry = false;
  try {
    scan_trace(*src, path, t, opt);
  } catch (const InflateRetry&) {
    retry = true;
  } catch (const Error&) {
    // Corrupt gzip data can inflate to text that the scan rejects before the inflater finds the
    // damage (the CRC is checked at the end): the gzip error, not the JSON one, is the file's.
    if (!src->progressive_data()) throw;
    try {
      for (size_t r = 0; r < src->progressive_size();) r = src->wait_ready(r);
    } catch (const InflateRetry&) {
      retry = true;
    }
    if (!retry) throw;
  }
  if (retry) {
    src.reset();
    t = RankTrace{};
    t.reserve(static_cast<size_t>(fsize * 20 / 120 + 1024));
    src = open_byte_source(path, opt.max_inflate_bytes, false);
    scan_trace(*src, path, t, opt);
  }
  std::error_code ec;
  t.file_bytes = fs::file_size(path, ec);
  if (t.rank_source.empty()) {
    int64_t r = rank_from_file_name(path);
    if (r >= 0) {
      t.rank = r;
      t.rank_source = "file name";
    } else {
      t.rank = 0;
      t.rank_source = "default";
      t.diagnostics.add(kRankZeroAssumed, "info", path);
    }
  }
  return t;
}

}  // namespace

std::vector<RankTrace> load_rank_files(const std::vector<std::string>& files, const LoadOptions& opt,
                                       int64_t* cache_hits) {
  std::vector<RankTrace> loaded(files.size());
  const bool use_cache = opt.cache || !opt.cache_dir.empty();
  std::atomic<int64_t> hits{0};
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> internal(files.size());
  int threads = opt.threads > 0 ? opt.threads : usable_cpus();
  // Threads left over when there are fewer files than threads go to each file's scan.
  ScanOptions scan = opt.scan;
  scan.threads = std::max(1, threads / static_cast<int>(std::max<size_t>(1, files.size())));
  threads = std::min<int>(threads, static_cast<int>(files.size()));
  auto work = [&] {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= files.size()) return;
      try {
        if (use_cache) {
          if (auto c = read_rank_cache(files[i], opt.cache_dir); c && within_inflate_limit(files[i], c->raw_bytes, scan.max_inflate_bytes)) {
            loaded[i] = std::move(*c);
            hits.fetch_add(1);
            continue;
          }
        }
        loaded[i] = load_trace_file(files[i], scan);
        if (use_cache && !write_rank_cache(files[i], opt.cache_dir, loaded[i]))
          loaded[i].diagnostics.add("trace cache not writable (analysis unaffected)", "info",
                                    cache_path_for(files[i], opt.cache_dir));
      } catch (const Error&) {
        // An input error of this file (unreadable, truncated, corrupt): assemble_trace_set decides.
        loaded[i] = RankTrace{};
        loaded[i].file = files[i];
        loaded[i].load_error = std::current_exception();
      } catch (...) {
        internal[i] = std::current_exception();  // out of memory, a bug: never a skipped file
      }
    }
  };
  run_workers(threads, [&](int) { work(); });
  for (const auto& e : internal)
    if (e) std::rethrow_exception(e);
  if (cache_hits) *cache_hits = hits.load();
  return loaded;
}

TraceSet load_traces(const std::vector<std::string>& inputs, const LoadOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  if (inputs.empty()) throw Error(SourceLocation{"", 0, 0, "traces"}, "no trace given", "give a trace file or a folder of per-rank files");
  std::vector<std::string> files = expand_trace_paths(inputs);
  int64_t hits = 0;
  auto loaded = load_rank_files(files, opt, &hits);
  TraceSet set = assemble_trace_set(files, std::move(loaded));
  set.cache_hits = hits;
  set.load_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return set;
}

TraceSet assemble_trace_set(const std::vector<std::string>& files, std::vector<RankTrace> loaded) {
  // A file that cannot be read faithfully (unreadable, truncated, corrupt values below) is left out
  // of a job of several files with a warning, so that one damaged rank file (a job killed while
  // writing it) does not cost the others; alone, or when no file is readable, it is the error.
  auto message_of = [](const std::exception_ptr& e) -> std::string {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      return x.what();
    } catch (...) {
      return "unknown error";
    }
  };
  std::vector<std::exception_ptr> rejected(loaded.size());
  size_t readable = 0;

  // A file that cannot be read (its load_error) is rejected. Events with corrupt values (severity
  // "error": a negative ts, a time beyond 64-bit nanoseconds) were dropped and counted by the
  // scanner, and the rest of the file is analysed: one such event had rejected the whole file
  // before 2026-12-04 (the brief: bad events are counted diagnostics). analyze notes them.
  for (size_t i = 0; i < loaded.size(); ++i) {
    const RankTrace& t = loaded[i];
    if (t.load_error) {
      rejected[i] = t.load_error;
      continue;
    }
    // Readable: a Kineto trace (a file without traceEvents, such as an execution trace beside the
    // ranks, is skipped anyway and leaves a damaged rank's own error the one to report).
    if (!rejected[i] && t.has_trace_events) ++readable;
  }
  if (readable == 0) {
    // The first file's error, naming the others that failed too (only the first was named, so a
    // job of damaged files was mended one file per run; 2026-12-04 review).
    std::string others;
    size_t n_others = 0, first = rejected.size();
    for (size_t i = 0; i < rejected.size(); ++i) {
      if (!rejected[i]) continue;
      if (first == rejected.size()) {
        first = i;
      } else if (++n_others <= 5) {
        others += (others.empty() ? "" : ", ") + files[i];
      }
    }
    if (first < rejected.size()) {
      if (n_others == 0) std::rethrow_exception(rejected[first]);
      try {
        std::rethrow_exception(rejected[first]);
      } catch (const Error& e) {
        throw Error(e.where(), e.message() + " (and " + std::to_string(n_others) + " other file" + (n_others > 1 ? "s" : "") +
                                   " could not be read: " + others + (n_others > 5 ? ", ..." : "") + ")",
                    e.hint());
      }
    }
  }

  TraceSet set;
  // A rank file without one usable event is left out of a job of several files, as a corrupt one
  // is (it stopped the whole job before 2026-12-02); alone, or when no file has events, it is
  // the error.
  std::exception_ptr first_empty;
  for (size_t i = 0; i < files.size(); ++i) {
    if (rejected[i]) {
      set.diagnostics.add("file unreadable or corrupt: skipped, the other files analysed", "warning", message_of(rejected[i]));
      set.skipped_files.push_back(files[i]);
      continue;
    }
    set.raw_bytes += loaded[i].raw_bytes;
    set.file_bytes += loaded[i].file_bytes;
    // Usable: the rows the analyses keep (build_frame's rule: a category, and not the profiler's
    // own "Trace" span). Events without `cat` are stored but never analysed, so a trace-viewer
    // export of JAX or TensorFlow (ph X, numeric ts and dur, no cat) had given every table zero
    // and exit 0, with only an info diagnostic (review of 2026-12-06).
    size_t usable_rows = 0, rows_without_cat = 0, trace_span_rows = 0;
    for (const Category c : loaded[i].cat) {
      if (c == Category::None) ++rows_without_cat;
      else if (c == Category::Trace) ++trace_span_rows;
      else ++usable_rows;
    }
    if (loaded[i].has_trace_events && usable_rows == 0) {
      // A traceEvents array without one usable complete event: nothing to analyse. Say why.
      std::string why;
      for (const auto& [kind, d] : loaded[i].diagnostics.items()) {
        if (d.severity == "info") continue;
        why += (why.empty() ? "" : "; ") + kind + " (" + std::to_string(d.count) + ")";
      }
      const auto n_rows = static_cast<int64_t>(loaded[i].size());
      const std::string no_cat = " without `cat` (not a PyTorch/Kineto trace: a JAX or TensorFlow trace-viewer export, or "
                                 "another Chrome-trace writer?)";
      std::string what = std::to_string(loaded[i].json_events) + " elements in traceEvents, none a complete event (ph X) "
                         "with numeric ts and dur";
      if (n_rows > 0 && trace_span_rows == 0) {
        what = std::to_string(n_rows) + " of the " + std::to_string(loaded[i].json_events) + " elements in traceEvents " +
               (n_rows > 1 ? "are complete events, all" : "is a complete event,") + no_cat;
      } else if (n_rows > 0) {
        what = std::to_string(n_rows) + " complete event" + (n_rows > 1 ? "s" : "") + " of " +
               std::to_string(loaded[i].json_events) + " elements in traceEvents, none with a PyTorch profiler category: " +
               (rows_without_cat > 0 ? std::to_string(rows_without_cat) + no_cat + "; " : std::string()) +
               std::to_string(trace_span_rows) + " of cat Trace (the profiler's own span)";
      }
      what += why.empty() ? "" : ": " + why;
      const Error empty(SourceLocation{files[i], 0, 0, "traceEvents"}, "no usable events: " + what,
                        rows_without_cat > 0 ? "analyze reads PyTorch profiler (Kineto) traces, whose events carry `cat` "
                                               "(kernel, cuda_runtime, cpu_op, ...)"
                                             : "");
      if (files.size() == 1) throw empty;
      if (!first_empty) first_empty = std::make_exception_ptr(empty);
      // The example: the file and the reason first (a long path must not push the reason past the cut).
      set.diagnostics.add("file without usable events: skipped, the other files analysed", "warning",
                          files[i] + ": " +
                              (n_rows > 0 && rows_without_cat == static_cast<size_t>(n_rows)
                                   ? std::to_string(n_rows) + " complete events, all without `cat`: not a PyTorch/Kineto trace"
                                   : what));
      set.skipped_files.push_back(files[i]);
      continue;
    }
    if (!loaded[i].has_trace_events) {
      set.diagnostics.add("not a Kineto trace (no traceEvents): file skipped", "warning", files[i]);
      set.skipped_files.push_back(files[i]);
      continue;
    }
    set.ranks.push_back(std::move(loaded[i]));
  }
  // One trace in two encodings (rank-0.json beside the rank-0.json.gz it was inflated from by
  // `gunzip -k`, or compressed at two levels): the same events, so one rank, not two. The first by
  // file name is kept, the other left out with a warning naming both (review of 2026-12-07: both
  // had been read as ranks, and their two file-name ranks 0 clashed, so every file-name rank was
  // dropped and the job renumbered, rank 7 reading as rank 8; the byte check below compares the
  // files, not what they hold). Files of the same bytes are the copies below, kept as before.
  // The events are compared only where the inflated sizes, the element and row counts agree.
  {
    auto same_events = [](const RankTrace& a, const RankTrace& b) {
      if (a.ts_ns != b.ts_ns || a.dur_ns != b.dur_ns || a.cat != b.cat || a.pid != b.pid || a.tid != b.tid ||
          a.stream != b.stream || a.correlation != b.correlation)
        return false;
      // The rank the file states is part of its content (one read from the name is not).
      const bool stated_a = a.rank_source == "distributedInfo", stated_b = b.rank_source == "distributedInfo";
      if (stated_a != stated_b || (stated_a && a.rank != b.rank) || a.world_size != b.world_size ||
          a.base_time_ns != b.base_time_ns || a.memory.size() != b.memory.size() || a.collectives.size() != b.collectives.size())
        return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (a.name_of(i) != b.name_of(i)) return false;
      return true;
    };
    std::map<std::tuple<uint64_t, uint64_t, size_t>, std::vector<size_t>> kept_by_size;
    std::vector<char> repeat(set.ranks.size(), 0);
    for (size_t i = 0; i < set.ranks.size(); ++i) {
      const RankTrace& b = set.ranks[i];
      auto& same_size = kept_by_size[{b.raw_bytes, b.json_events, b.size()}];
      for (size_t j : same_size) {
        const RankTrace& a = set.ranks[j];
        if (a.file_bytes == b.file_bytes || !same_events(a, b)) continue;
        repeat[i] = 1;
        // Both named, the second by its file name where it sits beside the first (the example is cut
        // in the middle beyond its length).
        const fs::path pa(a.file), pb(b.file);
        set.diagnostics.add("one trace in two files of different encodings (a .json beside its .json.gz?): the second left out",
                            "warning", a.file + " read, " + (pa.parent_path() == pb.parent_path() ? pb.filename().string() : b.file) +
                                           " left out (the same events)");
        break;
      }
      if (!repeat[i]) same_size.push_back(i);
    }
    size_t k = 0;
    for (size_t i = 0; i < set.ranks.size(); ++i) {
      if (repeat[i]) {
        set.skipped_files.push_back(set.ranks[i].file);
        continue;
      }
      if (k != i) set.ranks[k] = std::move(set.ranks[i]);
      ++k;
    }
    set.ranks.erase(set.ranks.begin() + static_cast<std::ptrdiff_t>(k), set.ranks.end());
  }
  // A rank read from a file name is a guess: PyTorch's default name <host>_<pid>.pt.trace.json
  // holds the host's name, and a pod named trainer-worker-0 reads as worker 0. When a file-name
  // rank is also another file's (by its name or its distributedInfo), the names do not number
  // the ranks: every file-name rank is dropped, with a warning, and those files are numbered
  // with the unstated ones below (two such files had been refused as "the same rank 0").
  {
    std::map<int64_t, int> by_name, stated;
    for (const auto& t : set.ranks)
      if (t.rank_source != "default") (t.rank_source == "file name" ? by_name : stated)[t.rank]++;
    bool clash = false;
    for (const auto& [r, n] : by_name) clash = clash || n > 1 || stated.count(r) > 0;
    if (clash)
      for (auto& t : set.ranks)
        if (t.rank_source == "file name") {
          set.diagnostics.add("rank numbers in the file names repeat (a host name such as worker-0?): ranks read from file names dropped",
                              "warning", "rank " + std::to_string(t.rank) + ": " + t.file);
          t.rank = 0;
          t.rank_source = "default";
        }
  }
  // Files that state no rank (no distributedInfo, no rank in the name: PyTorch's default
  // <host>_<pid>.pt.trace.json) are distinct processes: numbered after the highest stated rank in
  // file-name order, with a warning, rather than all taken as rank 0 (which merged them into one
  // rank of the cross-rank tables before 2026-12-02). A single such file stays rank 0.
  {
    std::vector<RankTrace*> unstated;
    int64_t next = 0;
    for (auto& t : set.ranks) {
      if (t.rank_source == "default") unstated.push_back(&t);
      else next = std::max(next, t.rank + 1);
    }
    if (unstated.size() > 1 || (unstated.size() == 1 && next > 0)) {
      std::stable_sort(unstated.begin(), unstated.end(), [](const RankTrace* a, const RankTrace* b) { return a->file < b->file; });
      for (RankTrace* t : unstated) {
        t->rank = next++;
        t->rank_source = "file order";
        // The file's provisional "rank 0 assumed" no longer holds (both had been reported).
        t->diagnostics.withdraw(kRankZeroAssumed);
        set.diagnostics.add("rank not stated: numbered in file-name order after the stated ranks", "warning",
                            "rank " + std::to_string(t->rank) + ": " + t->file);
      }
    }
  }
  std::stable_sort(set.ranks.begin(), set.ranks.end(), [](const RankTrace& a, const RankTrace& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.file < b.file;
  });
  if (set.ranks.empty() && first_empty) std::rethrow_exception(first_empty);
  // A timeline `sextant simulate --timeline` wrote: its spans are modelled work by category
  // (compute, tp, dp, pp), not profiled kernels; read as a trace it gave one rank, no GPU rows and
  // every table zero with exit 0 (review of 2026-12-05).
  for (const auto& t : set.ranks)
    if (t.generator == "sextant simulate")
      throw Error(SourceLocation{t.file, 0, 0, "otherData.generator"},
                  "is a timeline that `sextant simulate --timeline` wrote: its spans are the simulation's modelled work, not profiled "
                  "kernels, and analyze reads PyTorch profiler (Kineto) traces",
                  "the simulation's figures are in its own result (--json, --csv); open the timeline in Perfetto (ui.perfetto.dev) to view it");
  if (set.ranks.empty()) {
    std::string why;
    for (const auto& [kind, d] : set.diagnostics.items()) why += (why.empty() ? "" : "; ") + kind;
    for (const auto& t : loaded)
      for (const auto& [kind, d] : t.diagnostics.items())
        if (d.severity != "info") why += (why.empty() ? "" : "; ") + kind;
    throw Error(SourceLocation{files.front(), 0, 0, ""},
                "no usable events: no input is a Kineto trace (a JSON object with a traceEvents array)" +
                    (why.empty() ? std::string() : " (" + why + ")"),
                files.size() > 1 ? std::to_string(files.size()) + " files read" : std::string());
  }
  for (size_t i = 1; i < set.ranks.size(); ++i) {
    const RankTrace& a = set.ranks[i - 1];
    const RankTrace& b = set.ranks[i];
    if (a.rank != b.rank) continue;
    // Two files that each state the same rank are two profiles of one process (another step, or
    // another job): merging them would double every number. (Files without a stated rank were
    // numbered apart above.)
    if (a.rank_source != "default" && b.rank_source != "default")
      throw Error(SourceLocation{b.file, 0, 0, ""},
                  "two files claim the same rank " + std::to_string(b.rank) + ": " + a.file + " (" + a.rank_source +
                      ") and " + b.file + " (" + b.rank_source + ")",
                  "analyze one of them, or put each job's traces in its own directory");
    set.diagnostics.add("two files claim the same rank", "warning", "rank " + std::to_string(b.rank) + ": " + b.file);
  }
  // Ranks whose files hold the same bytes: two ranks of a job never write the same trace, so these
  // are copies of one (a copy without distributedInfo gets a rank of its own from its name or
  // order). A job of copies stays allowed (links to one file are a way to build a test job), but
  // it had been analysed as a perfectly synchronised job without a word (every skew 0; 2026-12-06
  // review). Same size and same first and last 64 KiB, read only for files whose size another
  // file shares; one count per copy, the example naming it and the rank's file it repeats.
  if (set.ranks.size() > 1) {
    std::vector<uint64_t> sizes(set.ranks.size(), UINT64_MAX);
    std::map<uint64_t, int> files_of_size;
    for (size_t i = 0; i < set.ranks.size(); ++i) {
      std::error_code ec;
      const uint64_t n = fs::file_size(set.ranks[i].file, ec);
      if (ec) continue;
      sizes[i] = n;
      ++files_of_size[n];
    }
    std::map<std::pair<uint64_t, uint64_t>, size_t> first_with;  // (size, CRCs of the ends) -> rank index
    for (size_t i = 0; i < set.ranks.size(); ++i) {
      uint64_t crc = 0;
      if (sizes[i] == UINT64_MAX || files_of_size[sizes[i]] < 2 || !file_ends_crc(set.ranks[i].file, sizes[i], crc)) continue;
      auto [it, fresh] = first_with.emplace(std::make_pair(sizes[i], crc), i);
      if (fresh) continue;
      const RankTrace& a = set.ranks[it->second];
      const RankTrace& b = set.ranks[i];
      set.diagnostics.add("rank files with identical content (copies of one trace?): cross-rank analyses compare a trace with itself",
                          "warning", a.file + " and " + b.file + " (ranks " + std::to_string(a.rank) + " and " +
                                         std::to_string(b.rank) + ": same size and first and last 64 KiB)");
    }
  }
  // Ranks that look like different jobs: traces of one job overlap in time (the ranks profile the
  // same steps), so a rank whose events lie more than an hour from every other rank's, a world
  // size that differs, or another GPU model is a warning: the cross-rank analyses (clock skew,
  // collectives, stragglers) would match unrelated events (a rank 381 days away was "corrected"
  // by its clock offset and named the worst straggler).
  // Decisive (review of 2026-12-07; the warnings alone had left a 372-day clock offset, paired
  // collectives, a straggler and collective-wait findings standing): traces more than an hour
  // apart (a job's ranks run its collectives together, and hosts of one cluster keep their clocks
  // within seconds), and world sizes that disagree (every rank of a job states its default group's
  // size). These set TraceSet::not_one_job and the cross-rank analyses are skipped. Different GPU
  // models alone are not decisive (a job may mix memory sizes or generations), nor is a rank
  // beyond the world size (a renamed file): they stay warnings and the analyses run.
  if (set.ranks.size() > 1) {
    std::vector<std::string> not_one_job;  // the decisive signals found
    constexpr int64_t kHour = 3600LL * 1000000000LL;
    std::vector<std::pair<int64_t, int64_t>> win;
    for (const auto& t : set.ranks) {
      if (t.ts_ns.empty()) {
        win.emplace_back(0, -1);
        continue;
      }
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (size_t i = 0; i < t.ts_ns.size(); ++i) {
        lo = std::min(lo, t.ts_ns[i]);
        hi = std::max(hi, t.ts_ns[i] + std::max<int64_t>(0, t.dur_ns[i]));
      }
      // On the job's clock, as the collectives analysis aligns ranks: each rank's
      // baseTimeNanoseconds added (it was left out here before 2026-12-02, so a rank 30 days off
      // by its base passed and ranks whose bases cancel their offsets were flagged).
      const int64_t base = t.base_time_ns >= 0 ? t.base_time_ns : 0;
      win.emplace_back(lo + base, hi + base);
    }
    std::string far;
    for (size_t i = 0; i < win.size(); ++i) {
      if (win[i].second < win[i].first) continue;
      int64_t nearest = INT64_MAX;
      for (size_t j = 0; j < win.size(); ++j) {
        if (j == i || win[j].second < win[j].first) continue;
        const int64_t gap = std::max<int64_t>({0, win[j].first - win[i].second, win[i].first - win[j].second});
        nearest = std::min(nearest, gap);
      }
      if (nearest != INT64_MAX && nearest > kHour) {
        // With one decimal: the integer division had said "1 h" for 2 h less 50 ms (review of 2026-12-06).
        char hours[32];
        std::snprintf(hours, sizeof hours, "%.1f", static_cast<double>(nearest) / static_cast<double>(kHour));
        far += (far.empty() ? "" : "; ") + std::string("rank ") + std::to_string(set.ranks[i].rank) + " is " + hours +
               " h from the nearest other rank";
      }
    }
    if (!far.empty()) {
      set.diagnostics.add("ranks from different jobs: their traces do not overlap in time (more than an hour apart); cross-rank "
                          "analyses skipped",
                          "warning", far);
      not_one_job.emplace_back("their traces are more than an hour apart in time");
    }
    std::string models;
    for (const auto& t : set.ranks)
      for (const auto& d : t.device_names)
        if (!d.empty() && models.find(d) == std::string::npos) models += (models.empty() ? "" : ", ") + d;
    bool mixed = false;
    for (const auto& t : set.ranks)
      for (const auto& u : set.ranks)
        if (!t.device_names.empty() && !u.device_names.empty() && t.device_names.front() != u.device_names.front()) mixed = true;
    if (mixed)
      set.diagnostics.add("ranks from different jobs? the traces name different GPU models (not decisive alone: cross-rank "
                          "analyses still run)",
                          "warning", models);
    // Each world size stated, with the first file stating it (the example had been empty; review
    // of 2026-12-05).
    std::map<int64_t, std::pair<std::string, int64_t>> worlds;  // world size -> first file, files
    for (const auto& t : set.ranks)
      if (t.world_size > 0) {
        ++worlds.try_emplace(t.world_size, t.file, 0).first->second.second;
      }
    if (worlds.size() > 1) {
      std::string example;
      for (const auto& [w, first] : worlds)
        example += (example.empty() ? "" : "; ") + std::string("world_size ") + std::to_string(w) + " in " + first.first +
                   (first.second > 1 ? " and " + std::to_string(first.second - 1) + " other file" + (first.second > 2 ? "s" : "") : "");
      set.diagnostics.add("ranks from different jobs: the traces state different world sizes; cross-rank analyses skipped",
                          "warning", example);
      not_one_job.emplace_back("they state different world sizes");
    }
    if (!not_one_job.empty()) {
      for (const auto& why : not_one_job) set.not_one_job += (set.not_one_job.empty() ? "" : " and ") + why;
      // One row for what is skipped and how to read the jobs apart; the signals' rows name the
      // ranks and files.
      set.diagnostics.add("cross-rank analyses skipped, the ranks are not one job: clock_skew, collectives and stragglers; "
                          "findings without straggler and collective-wait parts; critical_path and whatif without notes on "
                          "waits for other ranks (the per-rank analyses ran)",
                          "warning",
                          set.not_one_job + ": analyse each job on its own (its rank files in a directory of their own, "
                                            "or named as the inputs)");
    }
  }
  // Ranks the traces' distributedInfo.world_size names but no file holds: the cross-rank analyses
  // (collectives, stragglers) then compare only the ranks read. A warning when several ranks were
  // read (a rank file probably missing); a note when one was (a single rank analysed on its own).
  int64_t world = 0;
  for (const auto& t : set.ranks) world = std::max(world, t.world_size);
  if (world > 0 && world <= 1000000) {
    std::vector<char> seen(static_cast<size_t>(world), 0);
    for (const auto& t : set.ranks)
      if (t.rank >= 0 && t.rank < world) seen[static_cast<size_t>(t.rank)] = 1;
    std::string missing;
    int64_t n_missing = 0;
    for (int64_t r = 0; r < world; ++r)
      if (!seen[static_cast<size_t>(r)] && ++n_missing <= 10) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    // A rank at or beyond the world size its own file states is a renamed or mixed-up file (it
    // was passed over in silence; found in the 2026-12-04 review).
    std::string outside;
    for (const auto& t : set.ranks)
      if (t.rank >= world && t.world_size > 0) outside += (outside.empty() ? "" : ", ") + std::to_string(t.rank) + " (" + t.file + ")";
    if (!outside.empty())
      set.diagnostics.add("ranks beyond distributedInfo.world_size (a file from another job, or a rank renumbered?)", "warning",
                          "world_size " + std::to_string(world) + ": rank " + outside);
    if (n_missing > 0)
      // Where the ranks are not one job no cross-rank analysis runs, and the name says so (second
      // review of 2026-12-07: it had said they cover the ranks read beside "cross-rank analyses skipped").
      set.diagnostics.add(set.not_one_job.empty() ? "ranks of distributedInfo.world_size without a trace (cross-rank analyses cover the ranks read)"
                                                  : "ranks of distributedInfo.world_size without a trace",
                          set.ranks.size() > 1 ? "warning" : "info",
                          "world_size " + std::to_string(world) + ", " + std::to_string(n_missing) + " missing: " + missing +
                              (n_missing > 10 ? ", ..." : ""));
  }
  return set;
}

}  // namespace sextant::trace
