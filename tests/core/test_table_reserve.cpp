// Table::reserve is a capacity hint: it changes no rows and no rendering, and every declared
// column gets the capacity (so a table of many rows grows without copying at each doubling).
#include <gtest/gtest.h>

#include <string>

#include "core/result.hpp"

namespace sextant {
namespace {

Table filled(bool reserve_first) {
  Table t("segments");
  t.add_i64("step");
  t.add_f64("duration_us");
  t.add_str("longest_event");
  if (reserve_first) t.reserve(1000);
  for (int64_t i = 0; i < 300; ++i) t.add_row({i, static_cast<double>(i) / 3.0, "kernel_with_a_long_name_" + std::to_string(i)});
  return t;
}

TEST(TableReserve, GivesCapacityAndChangesNothing) {
  const Table a = filled(true), b = filled(false);
  EXPECT_EQ(a.rows(), 300u);
  EXPECT_GE(a.column("step").i64.capacity(), 1000u);
  EXPECT_GE(a.column("duration_us").f64.capacity(), 1000u);
  EXPECT_GE(a.column("longest_event").str.capacity(), 1000u);
  EXPECT_EQ(render_csv(a), render_csv(b));
}

TEST(TableReserve, EmptyTableStaysEmpty) {
  Table t("none");
  t.reserve(50);  // no columns yet: nothing to reserve
  EXPECT_EQ(t.rows(), 0u);
  t.add_i64("x");
  t.reserve(10);
  EXPECT_EQ(t.rows(), 0u);
  t.add_row({int64_t{7}});
  EXPECT_EQ(t.rows(), 1u);
}

}  // namespace
}  // namespace sextant
