// Questions: does a rank survive the binary form (serialize, deserialize) unchanged, columns,
// strings, side tables and diagnostics; does the second load of an unchanged file come from the
// cache with identical analysis results; is the cache ignored when the trace changes (size or
// mtime) or when the cache file is damaged, and does --cache-dir keep the trace's folder clean?
#include <gtest/gtest.h>

#include "test_temp.hpp"

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/result.hpp"
#include "trace/analyze.hpp"
#include "trace/ingest/cache.hpp"

using namespace sextant;
using namespace sextant::trace;
namespace fs = std::filesystem;

namespace {
const std::string kTrace = std::string(SEXTANT_SOURCE_DIR) + "/tests/data/trace/param/dlrm_8rank/rank-3.json.gz";

void expect_same(const RankTrace& a, const RankTrace& b) {
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.rank_source, b.rank_source);
  EXPECT_EQ(a.world_size, b.world_size);
  EXPECT_EQ(a.device_names, b.device_names);
  EXPECT_EQ(a.base_time_ns, b.base_time_ns);
  EXPECT_EQ(a.raw_bytes, b.raw_bytes);
  EXPECT_EQ(a.json_events, b.json_events);
  EXPECT_EQ(a.ts_ns, b.ts_ns);
  EXPECT_EQ(a.dur_ns, b.dur_ns);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.cat, b.cat);
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.tid, b.tid);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.correlation, b.correlation);
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (uint32_t i = 0; i < a.strings.size(); ++i) EXPECT_EQ(a.strings.str(i), b.strings.str(i));
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (size_t i = 0; i < a.collectives.size(); ++i) {
    EXPECT_EQ(a.collectives[i].event, b.collectives[i].event);
    EXPECT_EQ(a.collectives[i].pg_name, b.collectives[i].pg_name);
    EXPECT_EQ(a.collectives[i].in_msg_nelems, b.collectives[i].in_msg_nelems);
  }
  ASSERT_EQ(a.op_shapes.size(), b.op_shapes.size());
  for (size_t i = 0; i < a.op_shapes.size(); ++i) {
    EXPECT_EQ(a.op_shapes[i].event, b.op_shapes[i].event);
    EXPECT_EQ(a.dims_of(a.op_shapes[i]), b.dims_of(b.op_shapes[i]));
    EXPECT_EQ(a.types_of(a.op_shapes[i]), b.types_of(b.op_shapes[i]));
  }
  ASSERT_EQ(a.tied_external_ids.size(), b.tied_external_ids.size());
  for (size_t i = 0; i < a.tied_external_ids.size(); ++i) {
    EXPECT_EQ(a.tied_external_ids[i].event, b.tied_external_ids[i].event);
    EXPECT_EQ(a.tied_external_ids[i].id, b.tied_external_ids[i].id);
  }
  ASSERT_EQ(a.diagnostics.items().size(), b.diagnostics.items().size());
  for (const auto& [k, d] : a.diagnostics.items()) EXPECT_EQ(b.diagnostics.items().at(k).count, d.count) << k;
}

std::string tables_json(const Result& r) {
  Result c = r;
  c.scalars.clear();  // timings and the cache counter differ
  return to_json(c).dump();
}
}  // namespace

TEST(Cache, RoundTripIsExact) {
  RankTrace t = load_trace_file(kTrace);
  EXPECT_FALSE(t.op_shapes.empty());
  EXPECT_FALSE(t.tied_external_ids.empty());  // operators tied in time (cache format 13)
  RankTrace u = deserialize_rank(serialize_rank(t), "mem");
  expect_same(t, u);
  std::string bytes = serialize_rank(t);
  EXPECT_THROW(deserialize_rank(bytes.substr(0, bytes.size() / 2), "half"), Error);
  EXPECT_THROW(deserialize_rank("not a cache", "junk"), Error);
  // A flipped bit anywhere in the events is caught by the checksum (before 2026-12-03 a flipped
  // timestamp bit was read as data).
  for (size_t at : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 5}) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 1);
    EXPECT_THROW(deserialize_rank(bad, "flipped"), Error) << "byte " << at;
  }
}

TEST(Cache, SecondLoadHitsAndMatches) {
  fs::path dir = std::filesystem::path(sextant::test_temp::path("sextant_test_cache"));
  fs::remove_all(dir);
  fs::create_directories(dir / "traces");
  fs::path trace = dir / "traces" / "rank-3.json.gz";
  fs::copy_file(kTrace, trace);
  AnalyzeRequest req;
  req.inputs = {trace.string()};
  req.load.cache_dir = (dir / "cache").string();
  req.only = {"temporal_breakdown", "kernel_breakdown", "critical_path"};
  TraceSet first = load_traces(req.inputs, req.load);
  EXPECT_EQ(first.cache_hits, 0);
  TraceSet second = load_traces(req.inputs, req.load);
  EXPECT_EQ(second.cache_hits, 1);
  expect_same(first.ranks.at(0), second.ranks.at(0));
  EXPECT_EQ(tables_json(analyze_loaded(first, req)), tables_json(analyze_loaded(second, req)));
  // Only the trace in its folder: the cache went to --cache-dir.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "traces"), fs::directory_iterator{}), 1);
  // A changed trace (new mtime) is parsed again.
  fs::last_write_time(trace, fs::last_write_time(trace) + std::chrono::seconds(5));
  EXPECT_EQ(load_traces(req.inputs, req.load).cache_hits, 0);
  EXPECT_EQ(load_traces(req.inputs, req.load).cache_hits, 1);
  // A damaged cache is ignored (and rewritten), never an error.
  std::string cp = cache_path_for(trace.string(), req.load.cache_dir);
  fs::resize_file(cp, fs::file_size(cp) - 7);
  EXPECT_EQ(load_traces(req.inputs, req.load).cache_hits, 0);
  EXPECT_EQ(load_traces(req.inputs, req.load).cache_hits, 1);
  // Next to the trace without a cache directory.
  LoadOptions beside;
  beside.cache = true;
  EXPECT_EQ(load_traces(req.inputs, beside).cache_hits, 0);
  EXPECT_TRUE(fs::exists(trace.string() + ".sxcache"));
  EXPECT_EQ(load_traces(req.inputs, beside).cache_hits, 1);
  fs::remove_all(dir);
}

// Question (review of 2026-12-04): does a cached rank still pass the decompression limit the run
// asks for? A cache written without a limit had let `--max-inflate-bytes 1000` through a file the
// scan refuses, so the same command's result depended on an earlier run.
TEST(Cache, ACachedRankIsHeldToTheRunsInflateLimit) {
  fs::path dir = std::filesystem::path(sextant::test_temp::path("sextant_test_cache_limit"));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path trace = dir / "rank-3.json.gz";
  fs::copy_file(kTrace, trace);
  LoadOptions opt;
  opt.cache = true;
  EXPECT_EQ(load_traces({trace.string()}, opt).cache_hits, 0);  // writes the cache
  LoadOptions tight = opt;
  tight.scan.max_inflate_bytes = 1000;
  EXPECT_THROW(load_traces({trace.string()}, tight), Error);
  EXPECT_EQ(load_traces({trace.string()}, opt).cache_hits, 1);  // the default limit: the cache serves
  fs::remove_all(dir);
}
