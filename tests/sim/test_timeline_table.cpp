// Question: is simulate's bounded timeline table (the report's Gantt chart) a faithful, bounded
// view of the recorded spans: every span when they fit, merged closest-first within one stream,
// category and pass when they do not, with nothing lost unaccounted and nothing invented?
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "scenario/scenario.hpp"
#include "sim/simulate.hpp"
#include "test_catalogs.hpp"

using namespace sextant;

namespace {
std::shared_ptr<const Catalog> frozen() { return sextant::test_catalogs::frozen(); }

// 4 pipeline stages of Llama-3-8B, 8 micro-batches: a few thousand spans.
Scenario small() {
  return parse_scenario(
      "model: llama3-8b\nsystem: dgx-h100\nnum_gpus: 16\n"
      "parallel: {tp: 2, pp: 4, dp: 2, zero_stage: 1}\n"
      "training: {global_batch: 16, micro_batch: 1, seq_len: 2048, precision: bf16, recompute: none}\n",
      "small.yaml", *frozen());
}

sim::SimResult run(const Scenario& s, int64_t rows) {
  sim::SimOptions o;
  o.timeline_rows = rows;
  return sim::simulate(s, o);
}
}  // namespace

TEST(TimelineTable, EverySpanIsARowWhenTheyFit) {
  const Scenario s = small();
  const sim::SimResult all = run(s, 1000000);
  ASSERT_GT(all.timeline_spans_count, 1000);
  EXPECT_EQ(static_cast<int64_t>(all.timeline.size()), all.timeline_spans_count);
  EXPECT_TRUE(std::isnan(all.timeline_merge_gap_s));  // none merged (it was -1, a negative time)
  EXPECT_EQ(all.timeline_dropped_count, 0);
  // One row per recorded unit at least, every unit's compute stream ends where the unit ends.
  std::map<int, double> last_end;
  for (const auto& r : all.timeline) {
    EXPECT_GE(r.end_s, r.start_s);
    EXPECT_EQ(r.spans_count, 1);
    EXPECT_DOUBLE_EQ(r.busy_s, r.end_s - r.start_s);
    if (r.stream == "compute") last_end[r.unit] = std::max(last_end[r.unit], r.end_s);
  }
  ASSERT_EQ(last_end.size(), all.units.size());
  for (const auto& u : all.units) EXPECT_LE(last_end[u.unit], u.end_s * (1 + 1e-12));
  // The table does not change the simulation.
  EXPECT_DOUBLE_EQ(all.step.step_time_s, sim::simulate(s).step.step_time_s);
}

TEST(TimelineTable, MergedRowsStayWithinTheLimitAndAccountForEverySpan) {
  const Scenario s = small();
  const sim::SimResult all = run(s, 1000000);
  for (int64_t limit : {50, 400, 2000}) {
    SCOPED_TRACE(limit);
    const sim::SimResult r = run(s, limit);
    EXPECT_LE(static_cast<int64_t>(r.timeline.size()), limit);
    EXPECT_EQ(r.timeline_spans_count, all.timeline_spans_count);
    EXPECT_GE(r.timeline_merge_gap_s, 0);
    int64_t spans = 0;
    double busy = 0;
    for (const auto& x : r.timeline) {
      spans += x.spans_count;
      busy += x.busy_s;
      EXPECT_LE(x.busy_s, (x.end_s - x.start_s) * (1 + 1e-9) + 1e-15);
    }
    EXPECT_EQ(spans + r.timeline_dropped_count, r.timeline_spans_count);
    if (r.timeline_dropped_count == 0) {
      // Merging keeps every span's time: busy time sums to the unmerged table's.
      double all_busy = 0;
      for (const auto& x : all.timeline) all_busy += x.busy_s;
      EXPECT_NEAR(busy, all_busy, 1e-9 * all_busy);
    }
    // Within one unit's stream, rows do not overlap more than spans of that stream did.
    std::map<std::tuple<int, std::string>, double> end_of;
    for (const auto& x : r.timeline) {
      auto key = std::make_tuple(x.unit, x.stream);
      if (x.stream == "compute" && end_of.count(key)) {
        EXPECT_GE(x.start_s, end_of[key] - 1e-12);
      }
      end_of[key] = std::max(end_of[key], x.end_s);
    }
  }
  // The tighter the limit, the wider the merge gap.
  EXPECT_GE(run(s, 50).timeline_merge_gap_s, run(s, 2000).timeline_merge_gap_s);
  // Deterministic.
  const sim::SimResult a = run(s, 400), b = run(s, 400);
  ASSERT_EQ(a.timeline.size(), b.timeline.size());
  for (size_t i = 0; i < a.timeline.size(); ++i) {
    EXPECT_EQ(a.timeline[i].name, b.timeline[i].name);
    EXPECT_EQ(a.timeline[i].start_s, b.timeline[i].start_s);
  }
}

TEST(TimelineTable, ResultCarriesTheTableOnlyWhenAsked) {
  const Scenario s = small();
  EXPECT_EQ(sim::to_result(sim::simulate(s), s).table("timeline"), nullptr);
  const Result r = sim::to_result(run(s, 100), s);
  const Table* t = r.table("timeline");
  ASSERT_NE(t, nullptr);
  EXPECT_LE(t->rows(), 100u);
  EXPECT_EQ(r.number("timeline_rows_limit_count"), 100);
  for (const char* c : {"unit", "rank", "stream", "name", "category", "pass", "microbatch", "start_s", "end_s", "busy_s", "spans_count"})
    EXPECT_TRUE(t->has_column(c)) << c;
  sim::SimOptions bad;
  bad.timeline_rows = -1;
  EXPECT_THROW(sim::simulate(s, bad), Error);
}

// Question (review of 2026-12-07): when pairs of equal gap (back-to-back spans, gap 0) are more
// than the pairs to merge, are they merged by start time, as docs/simulate.md says ("closest
// first, ties by start time"), and not by unit order? They went by position in the (unit, stream,
// start) order: of a pp4 step's 9,068 spans cut to 5,000 rows, units 0-2 merged 1,136 pairs each
// and the last stage 574, its touching pairs left unmerged from t = 0 while unit 0's were merged
// up to 0.68 s, so the report's Gantt drew the last stage finer than the others.
TEST(TimelineTable, EqualGapsMergeByStartTimeAcrossUnits) {
  const Scenario s = small();
  const sim::SimResult all = run(s, 1000000);
  ASSERT_EQ(static_cast<int64_t>(all.timeline.size()), all.timeline_spans_count);
  // Adjacent spans of one unit's compute stream (rows in unit, stream, start order) that may
  // merge and touch: the gap-0 pairs, by the position of their second span.
  auto pair_at = [&](size_t i) {
    const auto &a = all.timeline[i - 1], &b = all.timeline[i];
    return a.unit == b.unit && a.stream == "compute" && b.stream == "compute" && a.category == b.category && a.pass == b.pass &&
           b.start_s - a.end_s <= 0;
  };
  std::vector<size_t> touching;
  for (size_t i = 1; i < all.timeline.size(); ++i)
    if (pair_at(i)) touching.push_back(i);
  ASSERT_GT(touching.size(), 1000u);
  // A limit that merges about half of the compute stream's touching pairs: every merge has gap 0.
  const int64_t limit = all.timeline_spans_count - static_cast<int64_t>(touching.size() / 2);
  const sim::SimResult r = run(s, limit);
  ASSERT_EQ(r.timeline_merge_gap_s, 0.0);
  ASSERT_EQ(r.timeline_dropped_count, 0);
  // The spans starting a row of the merged table (unit, stream, start; compute spans of one unit
  // do not start together).
  std::map<std::tuple<int, std::string, double>, int> row_start;
  for (const auto& x : r.timeline) ++row_start[{x.unit, x.stream, x.start_s}];
  double merged_latest = -1, unmerged_earliest = 1e300;
  std::map<int, int> merged_of_unit, touching_of_unit;
  for (size_t i : touching) {
    const auto &a = all.timeline[i - 1], &b = all.timeline[i];
    const auto it = row_start.find({b.unit, b.stream, b.start_s});
    ASSERT_TRUE(it == row_start.end() || it->second == 1);
    const bool merged = it == row_start.end();
    ++touching_of_unit[a.unit];
    if (merged) {
      ++merged_of_unit[a.unit];
      merged_latest = std::max(merged_latest, a.start_s);
    } else {
      unmerged_earliest = std::min(unmerged_earliest, a.start_s);
    }
  }
  // Every touching pair merged starts no later than every one left unmerged.
  EXPECT_LE(merged_latest, unmerged_earliest);
  // So each unit merges some of its touching pairs (the last stage had about half the others').
  ASSERT_EQ(touching_of_unit.size(), all.units.size());
  for (const auto& [u, n] : touching_of_unit) {
    SCOPED_TRACE(u);
    EXPECT_GT(merged_of_unit[u], n / 4);
    EXPECT_LT(merged_of_unit[u], n);
  }
}
