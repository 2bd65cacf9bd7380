// Questions: on small hand-built traces whose answers follow by hand, do the memcpy/memset
// bandwidth, kernel-sequence and user-annotation analyses give exactly those answers (per-call
// GB/s quantiles, bytes-weighted and aggregate bandwidth, GPU-span share; sequences grouped by
// operator and kernel names at depth 0 and 1; GPU time to the innermost and to every enclosing
// annotation, a name nested in itself counted once); are missing bytes counted as diagnostics;
// and do the memcpy byte counts survive the per-rank cache?
#include <gtest/gtest.h>

#include <cmath>

#include <map>

#include "trace/analyze.hpp"
#include "trace/ingest/cache.hpp"
#include "trace/ingest/scanner.hpp"

using namespace sextant;
using namespace sextant::trace;

namespace {

// One complete event; CPU events on pid 1 tid 1, GPU events on tid = stream. extra: more args.
std::string ev(const char* cat, const std::string& name, double ts, double dur, int64_t stream, int64_t corr,
               const std::string& extra = "") {
  std::string args;
  auto add = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
  if (corr >= 0) add("\"correlation\": " + std::to_string(corr));
  if (stream >= 0) add("\"stream\": " + std::to_string(stream));
  if (!extra.empty()) add(extra);
  char t[64];
  std::snprintf(t, sizeof t, "\"ts\":%.3f,\"dur\":%.3f", ts, dur);
  return std::string("{\"ph\":\"X\",\"cat\":\"") + cat + "\",\"name\":\"" + name + "\",\"pid\":1,\"tid\":" +
         (stream >= 0 ? std::to_string(stream) : "1") + "," + t + ",\"args\":{" + args + "}}";
}

std::string doc(const std::vector<std::string>& events, int rank = 0) {
  std::string s = "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) + ", \"world_size\": 2}, \"traceEvents\": [";
  for (size_t i = 0; i < events.size(); ++i) s += (i ? "," : "") + events[i];
  return s + "]}";
}

Result run(const std::vector<std::string>& docs, const std::string& only, int64_t depth = 0) {
  TraceSet set;
  for (size_t i = 0; i < docs.size(); ++i) {
    set.ranks.emplace_back();
    scan_trace_text(docs[i], "hand" + std::to_string(i) + ".json", set.ranks.back());
  }
  AnalyzeRequest req;
  for (size_t a = 0, b; a <= only.size(); a = b + 1) {  // one analysis or a comma-separated list
    b = only.find(',', a);
    if (b == std::string::npos) b = only.size();
    req.only.push_back(only.substr(a, b - a));
  }
  req.options.sequence_depth = depth;
  return analyze_loaded(set, req);
}

// Rows of a table keyed by the text of some columns.
std::map<std::string, size_t> rows_by(const Table& t, const std::vector<std::string>& cols) {
  std::map<std::string, size_t> m;
  for (size_t i = 0; i < t.rows(); ++i) {
    std::string k;
    for (const auto& c : cols) k += t.column(c).cell_text(i) + "|";
    m[k] = i;
  }
  return m;
}

double num(const Table& t, const std::string& col, size_t row) {
  const Column& c = t.column(col);
  return c.type == Column::Type::F64 ? c.f64.at(row) : static_cast<double>(c.i64.at(row));
}

bool has_diagnostic(const Result& r, const std::string& needle) {
  const Table* d = r.table("diagnostics");
  if (!d) return false;
  for (size_t i = 0; i < d->rows(); ++i)
    for (const auto& c : d->columns())
      if (c.type == Column::Type::Str && c.str[i].find(needle) != std::string::npos) return true;
  return false;
}

// GPU span [0, 400) us. HtoD pageable: 10000 B in 10 us (1 GB/s), 80000 B in 20 us (4 GB/s),
// 20000 B in 10 us (2 GB/s); HtoD pinned 100000 B in 5 us (20 GB/s); DtoH pageable without
// bytes (10 us); memset 50000 B in 10 us (5 GB/s). The pinned copy carries Kineto's bandwidth
// arg (25 GB/s: its exact duration was 4 us), which wins over bytes / written duration.
std::vector<std::string> memcpy_events() {
  return {
      ev("kernel", "k", 0, 100, 7, 1),
      ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 100, 10, 7, 2, "\"bytes\": 10000"),
      ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 120, 20, 7, 3, "\"bytes\": 80000"),
      ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 150, 10, 7, 4, "\"bytes\": 20000"),
      ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 200, 5, 7, 5,
         "\"bytes\": 100000, \"memory bandwidth (GB/s)\": 25.0"),
      ev("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 300, 10, 7, 6),
      ev("gpu_memset", "Memset (Device)", 390, 10, 7, 7, "\"bytes\": 50000"),
  };
}

}  // namespace

TEST(MemcpyBandwidth, ByHand) {
  Result r = run({doc(memcpy_events())}, "memcpy_bandwidth");
  const Table* t = r.table("memcpy_bandwidth");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows(), 4u);
  auto m = rows_by(*t, {"rank", "kind", "host_memory"});
  ASSERT_TRUE(m.count("0|HtoD|pageable|"));
  size_t p = m["0|HtoD|pageable|"];
  EXPECT_EQ(num(*t, "calls_count", p), 3);
  EXPECT_EQ(num(*t, "bytes", p), 110000);
  EXPECT_DOUBLE_EQ(num(*t, "total_time_us", p), 40.0);
  EXPECT_NEAR(num(*t, "median_bandwidth_gb_per_s", p), 2.0, 1e-12);
  EXPECT_NEAR(num(*t, "p10_bandwidth_gb_per_s", p), 1.2, 1e-12);   // 1 + 0.2 * (2 - 1)
  EXPECT_NEAR(num(*t, "p90_bandwidth_gb_per_s", p), 3.6, 1e-12);   // 2 + 0.8 * (4 - 2)
  EXPECT_NEAR(num(*t, "bytes_weighted_bandwidth_gb_per_s", p), 370000.0 / 110000.0, 1e-12);
  EXPECT_NEAR(num(*t, "aggregate_bandwidth_gb_per_s", p), 2.75, 1e-12);  // 110000 B / 40000 ns
  EXPECT_NEAR(num(*t, "gpu_span_share_fraction", p), 0.1, 1e-12);             // 40 of 400 us
  ASSERT_TRUE(m.count("0|HtoD|pinned|"));
  EXPECT_NEAR(num(*t, "median_bandwidth_gb_per_s", m["0|HtoD|pinned|"]), 25.0, 1e-12);
  EXPECT_NEAR(num(*t, "aggregate_bandwidth_gb_per_s", m["0|HtoD|pinned|"]), 25.0, 1e-12);  // 100000 B / 4000 ns
  EXPECT_EQ(num(*t, "calls_with_bandwidth_arg_count", m["0|HtoD|pinned|"]), 1);
  EXPECT_EQ(num(*t, "calls_with_bandwidth_arg_count", p), 0);
  EXPECT_NEAR(num(*t, "gpu_span_share_fraction", m["0|HtoD|pinned|"]), 0.0125, 1e-12);
  ASSERT_TRUE(m.count("0|DtoH|pageable|"));
  size_t d = m["0|DtoH|pageable|"];
  EXPECT_EQ(num(*t, "calls_count", d), 1);
  EXPECT_EQ(num(*t, "calls_without_bytes_count", d), 1);
  EXPECT_TRUE(std::isnan(num(*t, "median_bandwidth_gb_per_s", d)));  // no bytes: unknown, not 0 GB/s
  EXPECT_DOUBLE_EQ(num(*t, "total_time_us", d), 10.0);
  ASSERT_TRUE(m.count("0|memset|none|"));
  EXPECT_NEAR(num(*t, "aggregate_bandwidth_gb_per_s", m["0|memset|none|"]), 5.0, 1e-12);
  EXPECT_TRUE(has_diagnostic(r, "without an integer bytes arg"));
}

// Question (review of 2026-12-03): do copies running at once on two streams count their wall
// time once in the span share? Two 100 us copies side by side had given a share of 2.
TEST(MemcpyBandwidth, ConcurrentCopiesShareTheSpanOnce) {
  Result r = run({doc({ev("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 1000, 100, 7, 1, "\"bytes\": 1000000"),
                       ev("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 1000, 100, 8, 2, "\"bytes\": 1000000"),
                       ev("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 1150, 50, 8, 3, "\"bytes\": 500000")})},
                 "memcpy_bandwidth");
  const Table* t = r.table("memcpy_bandwidth");
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ(num(*t, "total_time_us", 0), 250.0);                // durations, as written
  EXPECT_NEAR(num(*t, "gpu_span_share_fraction", 0), 150.0 / 200.0, 1e-12);  // [1000,1100) and [1150,1200) of [1000,1200)
}

TEST(MemcpyBandwidth, AcrossRanksAndCache) {
  // Rank 1 is a copy of rank 0: the all-ranks row (-1) doubles calls, bytes and time, and keeps
  // the quantiles of the pooled calls ([1,1,2,2,4,4]: median 2) and the span share (80 of 800).
  Result r = run({doc(memcpy_events(), 0), doc(memcpy_events(), 1)}, "memcpy_bandwidth");
  const Table* t = r.table("memcpy_bandwidth");
  ASSERT_NE(t, nullptr);
  auto m = rows_by(*t, {"rank", "kind", "host_memory"});
  ASSERT_TRUE(m.count("-1|HtoD|pageable|"));
  size_t a = m["-1|HtoD|pageable|"];
  EXPECT_EQ(num(*t, "calls_count", a), 6);
  EXPECT_EQ(num(*t, "bytes", a), 220000);
  EXPECT_NEAR(num(*t, "median_bandwidth_gb_per_s", a), 2.0, 1e-12);
  EXPECT_NEAR(num(*t, "p10_bandwidth_gb_per_s", a), 1.0, 1e-12);  // position 0.5 between 1 and 1
  EXPECT_NEAR(num(*t, "gpu_span_share_fraction", a), 0.1, 1e-12);

  RankTrace tr;
  scan_trace_text(doc(memcpy_events()), "hand.json", tr);
  ASSERT_EQ(tr.transfers.size(), 6u);
  RankTrace back = deserialize_rank(serialize_rank(tr), "hand.json cache");
  ASSERT_EQ(back.transfers.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(back.transfers[i].event, tr.transfers[i].event);
    EXPECT_EQ(back.transfers[i].bytes, tr.transfers[i].bytes);
  }
  EXPECT_EQ(back.transfers[4].bytes, -1);  // the DtoH copy without bytes
  EXPECT_EQ(back.transfers[3].bandwidth_gbps, 25.0);
  EXPECT_EQ(back.transfers[0].bandwidth_gbps, -1.0);
}

namespace {
// Thread 1: fwd [0,50) { linear [1,20) {launch 2, launch 5}, relu [21,30) {launch 22} };
// fwd [60,110) { linear [61,80) {62, 65}, relu [81,90) {82} }; bwd [120,150) {launch 125};
// a launch at 200 outside any operator.
std::vector<std::string> sequence_events() {
  return {
      ev("cpu_op", "fwd", 0, 50, -1, -1),           ev("cpu_op", "aten::linear", 1, 19, -1, -1),
      ev("cuda_runtime", "cudaLaunchKernel", 2, 1, -1, 11), ev("cuda_runtime", "cudaLaunchKernel", 5, 1, -1, 12),
      ev("cpu_op", "aten::relu", 21, 9, -1, -1),    ev("cuda_runtime", "cudaLaunchKernel", 22, 1, -1, 13),
      ev("cpu_op", "fwd", 60, 50, -1, -1),          ev("cpu_op", "aten::linear", 61, 19, -1, -1),
      ev("cuda_runtime", "cudaLaunchKernel", 62, 1, -1, 21), ev("cuda_runtime", "cudaLaunchKernel", 65, 1, -1, 22),
      ev("cpu_op", "aten::relu", 81, 9, -1, -1),    ev("cuda_runtime", "cudaLaunchKernel", 82, 1, -1, 23),
      ev("cpu_op", "bwd", 120, 30, -1, -1),         ev("cuda_runtime", "cudaLaunchKernel", 125, 1, -1, 31),
      ev("cuda_runtime", "cudaLaunchKernel", 200, 1, -1, 41),
      ev("kernel", "gemm", 100, 10, 7, 11),         ev("kernel", "bias", 110, 3, 7, 12),
      ev("kernel", "relu", 113, 2, 7, 13),          ev("kernel", "gemm", 200, 12, 7, 21),
      ev("kernel", "bias", 212, 3, 7, 22),          ev("kernel", "relu", 215, 2, 7, 23),
      ev("kernel", "gemm_bwd", 300, 20, 7, 31),     ev("kernel", "lone", 400, 1, 7, 41),
  };
}
}  // namespace

TEST(KernelSequences, TopLevelOperators) {
  Result r = run({doc(sequence_events())}, "kernel_sequences", 0);
  const Table* t = r.table("kernel_sequences");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows(), 2u);
  // Most frequent first: fwd (2 of 2 instances) then bwd.
  EXPECT_EQ(t->column("operator").str[0], "fwd");
  EXPECT_EQ(t->column("sequence").str[0], "gemm | bias | relu");
  EXPECT_EQ(num(*t, "occurrences_count", 0), 2);
  EXPECT_EQ(num(*t, "operator_instances_count", 0), 2);
  EXPECT_EQ(num(*t, "kernels_per_sequence", 0), 3);
  EXPECT_DOUBLE_EQ(num(*t, "total_gpu_time_us", 0), 32.0);  // 15 + 17
  EXPECT_DOUBLE_EQ(num(*t, "mean_gpu_time_us", 0), 16.0);
  EXPECT_EQ(t->column("operator").str[1], "bwd");
  EXPECT_EQ(t->column("sequence").str[1], "gemm_bwd");
  EXPECT_DOUBLE_EQ(num(*t, "total_gpu_time_us", 1), 20.0);
  const Table* s = r.table("kernel_sequences_summary");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(num(*s, "operator_instances_count", 0), 3);
  EXPECT_EQ(num(*s, "distinct_sequences_count", 0), 2);
  EXPECT_EQ(num(*s, "gpu_events_attributed_count", 0), 7);
  EXPECT_EQ(num(*s, "gpu_events_outside_operators_count", 0), 1);
}

TEST(KernelSequences, ChildOperators) {
  Result r = run({doc(sequence_events())}, "kernel_sequences", 1);
  const Table* t = r.table("kernel_sequences");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows(), 2u);
  // Both occur twice; linear has more GPU time (13 + 15) than relu (2 + 2).
  EXPECT_EQ(t->column("operator").str[0], "aten::linear");
  EXPECT_EQ(t->column("sequence").str[0], "gemm | bias");
  EXPECT_DOUBLE_EQ(num(*t, "total_gpu_time_us", 0), 28.0);
  EXPECT_DOUBLE_EQ(num(*t, "mean_gpu_time_us", 0), 14.0);
  EXPECT_EQ(t->column("operator").str[1], "aten::relu");
  EXPECT_DOUBLE_EQ(num(*t, "total_gpu_time_us", 1), 4.0);
  EXPECT_EQ(num(*t, "operator_depth", 1), 1);
  const Table* s = r.table("kernel_sequences_summary");
  EXPECT_EQ(num(*s, "gpu_events_outside_operators_count", 0), 2);  // under bwd (depth 0) and the lone one
}

// Question (review of 2026-12-03): is a GPU event whose correlation id matches no launching call
// named as such (not "launched outside any cpu_op"), and counted where iterations leaves it out?
TEST(KernelSequences, EventsWithoutALaunchAreNamedAsSuch) {
  auto e = sequence_events();
  e.push_back(ev("user_annotation", "ProfilerStep#1", 0, 200, -1, -1));
  e.push_back(ev("kernel", "orphan", 150, 5, 7, 999));  // correlation 999: no call
  Result r = run({doc(e)}, "kernel_sequences,iterations", 0);
  EXPECT_TRUE(has_diagnostic(r, "GPU events without a launching call in the trace (not attributed to an operator)"));
  EXPECT_TRUE(has_diagnostic(r, "iterations: GPU events without a launching call in the trace (not placed in a step)"));
  const Table* d = r.table("diagnostics");
  ASSERT_NE(d, nullptr);
  for (size_t i = 0; i < d->rows(); ++i)
    if (d->column("name").str[i].find("without a launching call") != std::string::npos) {
      EXPECT_EQ(d->column("count").i64[i], 1);
    }
}

TEST(KernelSequences, DifferentOrderIsADifferentSequence) {
  auto e = sequence_events();
  // Second fwd: its bias kernel launched before gemm (swap the launch times 62 and 65).
  for (auto& s : e) {
    if (s.find("\"correlation\": 21") != std::string::npos && s.find("cuda_runtime") != std::string::npos)
      s = ev("cuda_runtime", "cudaLaunchKernel", 66, 1, -1, 21);
  }
  Result r = run({doc(e)}, "kernel_sequences", 0);
  const Table* t = r.table("kernel_sequences");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(num(*t, "occurrences_count", i), 1);
  const Table* s = r.table("kernel_sequences_summary");
  EXPECT_EQ(num(*s, "distinct_sequences_count", 0), 3);
}

TEST(UserAnnotations, InnermostAndInclusive) {
  // outer [0,100) { launch 5 (4 us); inner [10,30) { launch 10 (6 us) }; inner [40,50) { launch 45
  // (8 us) }; outer [60,70) { launch 65 (10 us) } }; launch 150 (1 us) outside.
  std::vector<std::string> e = {
      ev("user_annotation", "outer", 0, 100, -1, -1),
      ev("cuda_runtime", "cudaLaunchKernel", 5, 1, -1, 1),
      ev("user_annotation", "inner", 10, 20, -1, -1),
      ev("cuda_runtime", "cudaLaunchKernel", 10, 1, -1, 2),
      ev("user_annotation", "inner", 40, 10, -1, -1),
      ev("cuda_runtime", "cudaLaunchKernel", 45, 1, -1, 3),
      ev("user_annotation", "outer", 60, 10, -1, -1),
      ev("cuda_runtime", "cudaLaunchKernel", 65, 1, -1, 4),
      ev("cuda_runtime", "cudaLaunchKernel", 150, 1, -1, 5),
      ev("kernel", "a", 200, 4, 7, 1),
      ev("kernel", "b", 210, 6, 7, 2),
      ev("kernel", "c", 220, 8, 7, 3),
      ev("kernel", "d", 230, 10, 7, 4),
      ev("kernel", "e", 250, 1, 7, 5),
      ev("gpu_user_annotation", "inner", 210, 9, 7, -1),
      ev("gpu_user_annotation", "inner", 220, 5, 7, -1),
  };
  Result r = run({doc(e)}, "user_annotations");
  const Table* t = r.table("user_annotations");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows(), 2u);
  EXPECT_EQ(t->column("annotation").str[0], "outer");  // most inclusive GPU time first
  EXPECT_EQ(num(*t, "count", 0), 2);
  EXPECT_DOUBLE_EQ(num(*t, "cpu_time_us", 0), 100.0);  // the nested outer [60,70) inside [0,100) counted once (110 before)
  EXPECT_EQ(num(*t, "gpu_events_inclusive_count", 0), 4);  // nested outer counted once
  EXPECT_DOUBLE_EQ(num(*t, "gpu_time_inclusive_us", 0), 28.0);
  EXPECT_EQ(num(*t, "gpu_events_exclusive_count", 0), 2);  // launches at 5 and 65
  EXPECT_DOUBLE_EQ(num(*t, "gpu_time_exclusive_us", 0), 14.0);
  EXPECT_EQ(num(*t, "gpu_annotation_count", 0), 0);
  EXPECT_EQ(t->column("annotation").str[1], "inner");
  EXPECT_EQ(num(*t, "count", 1), 2);
  EXPECT_DOUBLE_EQ(num(*t, "cpu_time_us", 1), 30.0);
  EXPECT_DOUBLE_EQ(num(*t, "gpu_time_inclusive_us", 1), 14.0);  // launch at its start counts
  EXPECT_DOUBLE_EQ(num(*t, "gpu_time_exclusive_us", 1), 14.0);
  EXPECT_EQ(num(*t, "gpu_annotation_count", 1), 2);
  EXPECT_DOUBLE_EQ(num(*t, "gpu_annotation_time_us", 1), 14.0);
}

TEST(UserAnnotations, NoAnnotationsIsADiagnosticNotAnError) {
  Result r = run({doc(memcpy_events())}, "user_annotations");
  const Table* t = r.table("user_annotations");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rows(), 0u);
  EXPECT_TRUE(has_diagnostic(r, "no user_annotation"));
}
