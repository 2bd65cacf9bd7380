// render_json (the `--json` text, built one column at a time) against the JSON tree's own dump:
// the two must give the same bytes for every shape of Result, so that switching the CLI to the
// streaming form changed no output.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/result.hpp"
#include "core/result_json.hpp"

namespace sextant {
namespace {

std::string tree_dump(const Result& r) {
  return to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

TEST(RenderJson, EmptyResult) {
  Result r;
  EXPECT_EQ(render_json(r), tree_dump(r));
  r.command = "estimate";
  EXPECT_EQ(render_json(r), tree_dump(r));
}

TEST(RenderJson, ScalarsTablesNotes) {
  Result r;
  r.command = "analyze \"quoted\"\n";
  r.set("time_s", 1.5);
  r.set("nan_s", std::nan(""));
  r.set("inf_s", std::numeric_limits<double>::infinity());
  r.set("tiny", 5e-324);
  r.set("huge", 1.7976931348623157e308);
  r.set("negative_zero", -0.0);
  r.set("count", int64_t{-9223372036854775807 - 1});
  r.set("flag", true);
  r.set("name", std::string("caf\xc3\xa9 \x01 tab\t back\\slash"));
  r.set("bad_utf8", std::string("gpu\xff\xfe name"));

  Table& t = r.add_table("kernels", "per kernel: \"time\" and name");
  t.add_str("name");
  t.add_f64("time_us");
  t.add_i64("calls_count");
  t.add_row({std::string("sm90_gemm"), 12.25, int64_t{3}});
  t.add_row({std::string("bad \xc3\x28 utf8"), std::nan(""), int64_t{9223372036854775807}});
  t.add_row({std::string(""), -std::numeric_limits<double>::infinity(), int64_t{0}});
  t.add_row({std::string(300, 'x'), 1e21, int64_t{-1}});

  Table& empty_rows = r.add_table("empty_rows");
  empty_rows.add_f64("a_s");
  empty_rows.add_str("b");
  r.add_table("no_columns", "");
  Table& one = r.add_table("one_row");
  one.add_i64("n");
  one.add_row({int64_t{42}});

  r.notes.push_back("a note");
  r.notes.push_back("line one\nline two \xe2\x82");
  EXPECT_EQ(render_json(r), tree_dump(r));
}

TEST(RenderJson, ManyRows) {
  Result r;
  r.command = "analyze";
  Table& t = r.add_table("critical_path");
  t.add_i64("step");
  t.add_f64("duration_us");
  t.add_str("longest_event");
  for (int64_t i = 0; i < 5000; ++i)
    t.add_row({i, static_cast<double>(i) / 7.0, std::string(i % 3 ? "kernel_" : "(gap)") + std::to_string(i)});
  EXPECT_EQ(render_json(r), tree_dump(r));
}

// The text table is for reading: whole numbers below 1e9 in full, long text cut in the middle
// (head and tail kept, so two long kernel names that differ at the end stay apart); JSON keeps all.
TEST(RenderText, WholeNumbersInFullAndLongTextCutInTheMiddle) {
  Result r;
  Table& t = r.add_table("t");
  t.add_str("name");
  t.add_f64("time_us");
  const std::string a = "void cutlass::Kernel<" + std::string(300, 'x') + ">::run<A>";
  const std::string b = "void cutlass::Kernel<" + std::string(300, 'x') + ">::run<B>";
  t.add_row({a, 14522911.0});
  t.add_row({b, 0.5});
  const std::string text = render_text(r);
  EXPECT_NE(text.find("14522911"), std::string::npos) << text;
  EXPECT_EQ(text.find("1.452e+07"), std::string::npos) << text;
  EXPECT_NE(text.find("::run<A>"), std::string::npos) << text;
  EXPECT_NE(text.find("::run<B>"), std::string::npos) << text;
  EXPECT_NE(text.find("void cutlass::Kernel<"), std::string::npos) << text;
  EXPECT_EQ(text.find(std::string(250, 'x')), std::string::npos) << "cut to 200 characters";
  EXPECT_NE(text.find("2 text cell(s) longer than 200 characters are shortened"), std::string::npos) << text;
  EXPECT_NE(to_json(r).dump().find(a), std::string::npos) << "JSON keeps the whole text";
}

// Does a missing number (NaN: unknown or not applicable) read "-" in the text table, while CSV
// keeps "nan" and JSON null? (catalog list printed "nan" for A100's fp8 before 2026-12-03.)
TEST(RenderText, MissingNumbersReadAsDash) {
  Result r;
  r.set("gap_s", std::nan(""));
  Table& t = r.add_table("t");
  t.add_str("id");
  t.add_f64("fp8_tflops");
  t.add_row({std::string("a100"), std::nan("")});
  const std::string text = render_text(r);
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_NE(text.find("a100  "), std::string::npos) << text;
  EXPECT_NE(text.find("-\n"), std::string::npos) << text;
  EXPECT_EQ(t.column("fp8_tflops").cell_text(0), "nan");
  EXPECT_TRUE(to_json(r)["tables"]["t"]["columns"]["fp8_tflops"][0].is_null());
}

// Does a wide (CJK) cell keep its row lined up, counting two terminal columns a character? And
// are escapes, C1 controls and bidirectional overrides written as escapes in cells and notes,
// a note keeping its line breaks? (2026-12-04 review: a CJK source name sat 6 columns right of its
// header; an ESC sequence in a process name cleared the terminal from a note; U+202E reversed a
// kernel's name.)
TEST(RenderText, WideTextLinesUpAndControlsAreEscaped) {
  Result r;
  Table& t = r.add_table("t");
  t.add_str("source");
  t.add_f64("error_pct");
  t.add_row({std::string("\xe5\x85\xa8\xe8\xa7\x92"), 1.5});  // 全角: 2 characters, 4 columns
  t.add_row({std::string("abcd"), 2.5});
  t.add_row({std::string("rev\xe2\x80\xaeit\xc2\x9b"), 3.5});  // U+202E, U+009B
  r.notes.push_back("rack\x1b[2J red\nsecond line");
  const std::string text = render_text(r);
  // The column is as wide as "rev\u202eit\u009b" (17): 4 columns of CJK, 13 of padding; then
  // two spaces and "1.5" right-aligned under "error_pct" (9).
  EXPECT_NE(text.find("\n\xe5\x85\xa8\xe8\xa7\x92" + std::string(13 + 2 + 6, ' ') + "1.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nabcd" + std::string(13 + 2 + 6, ' ') + "2.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("abcd"), std::string::npos) << text;
  EXPECT_NE(text.find("rev\\u202eit\\u009b"), std::string::npos) << text;
  EXPECT_EQ(text.find("\x1b"), std::string::npos) << text;
  EXPECT_NE(text.find("note: rack\\x1b[2J red\nsecond line"), std::string::npos) << text;
  EXPECT_NE(to_json(r).dump().find("rev\xe2\x80\xaeit"), std::string::npos) << "JSON keeps the text";
}

// Does reading a saved result back require the type of every column, naming the table and the
// column and the valid types? (2026-12-05 review: a table without "types" was read as all f64 and
// refused at its first text cell, "an f64 column holds \"compute\"", and a column missing from
// "types" was taken as f64 without a word.)
TEST(ResultFromJson, EveryColumnNeedsItsType) {
  Result r;
  r.command = "estimate";
  Table& t = r.add_table("breakdown");
  t.add_str("category");
  t.add_f64("time_s");
  t.add_row({std::string("compute"), 1.5});
  const nlohmann::ordered_json good = to_json(r);
  EXPECT_EQ(render_json(result_from_json(good)), render_json(r));  // round trip
  auto refusal = [](const nlohmann::ordered_json& j) -> std::string {
    try {
      (void)result_from_json(j);
    } catch (const Error& e) {
      return e.where().key + ": " + e.message();
    }
    return "(read without an error)";
  };
  nlohmann::ordered_json no_types = good;
  no_types["tables"]["breakdown"].erase("types");
  const std::string a = refusal(no_types);
  EXPECT_NE(a.find("tables.breakdown.types: "), std::string::npos) << a;
  EXPECT_NE(a.find("f64, i64 or str"), std::string::npos) << a;
  EXPECT_EQ(a.find("holds"), std::string::npos) << a;
  // A numeric column without its type: taken as f64 before, now named.
  nlohmann::ordered_json one_missing = good;
  one_missing["tables"]["breakdown"]["types"].erase("time_s");
  const std::string b = refusal(one_missing);
  EXPECT_NE(b.find("tables.breakdown.types.time_s: "), std::string::npos) << b;
  EXPECT_NE(b.find("column 'time_s' of table 'breakdown' has no type (valid: f64, i64, str)"), std::string::npos) << b;
  // A type for a column the table does not hold (the column deleted, its type left).
  nlohmann::ordered_json no_column = good;
  no_column["tables"]["breakdown"]["columns"].erase("time_s");
  const std::string c = refusal(no_column);
  EXPECT_NE(c.find("tables.breakdown.types.time_s: "), std::string::npos) << c;
  EXPECT_NE(c.find("no such column"), std::string::npos) << c;
}

}  // namespace
}  // namespace sextant
