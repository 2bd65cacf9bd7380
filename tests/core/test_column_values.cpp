// Packed integer and dictionary-encoded string columns (core/column_values.hpp): every value
// reads back exactly as stored, at every width and across widenings; strings are stored once
// each; a Table using them renders the same text as the values imply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/column_values.hpp"
#include "core/result.hpp"

namespace sextant {
namespace {

TEST(IntVector, WidthFollowsTheWidestValue) {
  IntVector v;
  EXPECT_EQ(v.width_bytes(), 1u);
  for (int64_t x : {0, 1, -1, 127, -128}) v.push_back(x);
  EXPECT_EQ(v.width_bytes(), 1u);
  v.push_back(128);
  EXPECT_EQ(v.width_bytes(), 2u);
  v.push_back(-32768);
  EXPECT_EQ(v.width_bytes(), 2u);
  v.push_back(32768);
  EXPECT_EQ(v.width_bytes(), 4u);
  v.push_back(std::numeric_limits<int32_t>::min());
  EXPECT_EQ(v.width_bytes(), 4u);
  v.push_back(int64_t{1} << 31);
  EXPECT_EQ(v.width_bytes(), 8u);
  const std::vector<int64_t> want{0, 1, -1, 127, -128, 128, -32768, 32768, std::numeric_limits<int32_t>::min(),
                                  int64_t{1} << 31};
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(v[i], want[i]) << i;
  EXPECT_EQ(v.front(), 0);
  EXPECT_EQ(v.back(), int64_t{1} << 31);
  EXPECT_THROW(v.at(want.size()), std::out_of_range);
}

TEST(IntVector, ExtremesRoundTrip) {
  const std::vector<int64_t> want{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), -1, 0,
                                  std::numeric_limits<int16_t>::max(), std::numeric_limits<int8_t>::min()};
  IntVector v;
  for (int64_t x : want) v.push_back(x);
  EXPECT_EQ(std::vector<int64_t>(v.begin(), v.end()), want);
}

TEST(IntVector, RandomValuesMatchAStdVector) {
  std::mt19937_64 rng(7);
  std::vector<int64_t> ref;
  IntVector v;
  for (int i = 0; i < 20000; ++i) {
    // Mostly small values, with rarer wide ones so that every widening happens mid-column.
    const int bits = i < 5000 ? 6 : i < 10000 ? 14 : i < 15000 ? 30 : 62;
    const int64_t x = static_cast<int64_t>(rng() >> (64 - bits)) * ((rng() & 1) ? 1 : -1);
    ref.push_back(x);
    v.emplace_back(x);
  }
  ASSERT_EQ(v.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(v[i], ref[i]) << i;
  size_t i = 0;
  for (int64_t x : v) ASSERT_EQ(x, ref[i++]);
  EXPECT_EQ(v.width_bytes(), 8u);
}

TEST(IntVector, ReserveKeepsItsRowsAcrossAWidening) {
  IntVector v;
  v.reserve(1000);
  EXPECT_GE(v.capacity(), 1000u);
  for (int64_t x = 0; x < 300; ++x) v.push_back(x);  // 1 -> 2 bytes at 128
  EXPECT_EQ(v.width_bytes(), 2u);
  EXPECT_GE(v.capacity(), 1000u);
  for (int64_t x = 0; x < 300; ++x) EXPECT_EQ(v[static_cast<size_t>(x)], x);
}

TEST(IntVector, EqualityAndIteratorArithmetic) {
  IntVector a{1, 2, 300}, b;
  for (int64_t x : {1, 2}) b.push_back(x);
  EXPECT_FALSE(a == b);
  b.push_back(300);
  EXPECT_TRUE(a == b);  // different widening histories, same values
  EXPECT_EQ(a.end() - a.begin(), 3);
  EXPECT_EQ(*(a.begin() + 2), 300);
  EXPECT_EQ(std::count(a.begin(), a.end(), 2), 1);
  a.clear();
  EXPECT_TRUE(a.empty());
}

TEST(DoubleVector, IntegersPackedUntilTheFirstOtherValue) {
  DoubleVector v;
  v.reserve(100);
  for (double x : {0.0, 3.0, -250.0, 4.5e6}) v.push_back(x);
  EXPECT_FALSE(v.stores_doubles());
  EXPECT_EQ(v.width_bytes(), 4u);
  EXPECT_GE(v.capacity(), 100u);
  v.push_back(0.25);
  EXPECT_TRUE(v.stores_doubles());
  EXPECT_GE(v.capacity(), 100u);
  v.push_back(7.0);
  EXPECT_EQ(v.to_vector(), (std::vector<double>{0.0, 3.0, -250.0, 4.5e6, 0.25, 7.0}));
}

TEST(DoubleVector, EveryValueReadsBackBitForBit) {
  const double inf = std::numeric_limits<double>::infinity();
  // Each case alone: the value that is not an exact small integer switches the column to doubles.
  for (double odd : {-0.0, std::nan(""), inf, -inf, 9007199254740994.0, -9007199254740994.0, 1e300, 5e-324}) {
    DoubleVector v{1.0, 2.0};
    v.push_back(odd);
    v.push_back(3.0);
    ASSERT_EQ(v.size(), 4u);
    EXPECT_TRUE(v.stores_doubles());
    const double got = v[2];
    EXPECT_EQ(std::memcmp(&got, &odd, sizeof got), 0) << odd;
    EXPECT_EQ(v[0], 1.0);
    EXPECT_EQ(v[3], 3.0);
  }
  // +-2^53 and 0 are exact integers: kept packed.
  DoubleVector w{9007199254740992.0, -9007199254740992.0, 0.0};
  EXPECT_FALSE(w.stores_doubles());
  EXPECT_EQ(w[0], 9007199254740992.0);
  EXPECT_EQ(w[1], -9007199254740992.0);
  EXPECT_FALSE(std::signbit(w[2]));
}

TEST(DoubleVector, RendersAsThePlainDoublesDid) {
  Table t("x");
  t.add_f64("v");
  for (double x : {1.0, -0.0, 2.5, 1e21}) t.add_row({x});
  Result r;
  r.command = "test";
  r.tables.push_back(t);
  EXPECT_EQ(to_json(r)["tables"]["x"]["columns"]["v"].dump(), "[1.0,-0.0,2.5,1e+21]");
  EXPECT_EQ(render_csv(t), "v\n1\n0\n2.5\n1e+21\n");
}

TEST(StringVector, StoresEachDistinctStringOnce) {
  StringVector v;
  const std::vector<std::string> rows{"compute", "stream 7", "compute", "", "stream 7", "compute", std::string("a\0b", 3)};
  for (const auto& s : rows) v.push_back(s);
  ASSERT_EQ(v.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(v[i], rows[i]) << i;
  EXPECT_EQ(v.dictionary(), (std::vector<std::string>{"compute", "stream 7", "", std::string("a\0b", 3)}));
  EXPECT_EQ(v.id(0), v.id(2));
  EXPECT_NE(v.id(0), v.id(1));
  EXPECT_EQ(v.front(), "compute");
  EXPECT_EQ(v.back(), std::string("a\0b", 3));
  EXPECT_TRUE(v == rows);
  EXPECT_EQ(std::vector<std::string>(v.begin(), v.end()), rows);
  EXPECT_THROW(v.at(rows.size()), std::out_of_range);
}

TEST(StringVector, ManyDistinctStringsSurviveRehashing) {
  StringVector v;
  std::vector<std::string> ref;
  for (int i = 0; i < 5000; ++i) {
    // Every value twice, the second time after many others: the index must still find it.
    const int k = i % 2500;
    ref.push_back("kernel_" + std::to_string(k) + std::string(static_cast<size_t>(k % 40), 'x'));
    v.emplace_back(ref.back());
  }
  ASSERT_EQ(v.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(v[i], ref[i]) << i;
  std::vector<std::string> distinct = ref;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(distinct.size(), 2500u);
  EXPECT_EQ(v.dictionary().size(), distinct.size());
  for (size_t i = 0; i < 2500; ++i) ASSERT_EQ(v.id(i), v.id(i + 2500)) << i;
  EXPECT_EQ(v.id(2499), 2499u);
}

TEST(StringVector, CopiesAndClearsIndependently) {
  StringVector a{"x", "y", "x"};
  StringVector b = a;
  b.push_back("z");
  b.push_back("x");
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(b.size(), 5u);
  EXPECT_EQ(b[4], "x");
  EXPECT_EQ(b.dictionary().size(), 3u);
  a.clear();
  EXPECT_TRUE(a.empty());
  a.push_back("y");
  EXPECT_EQ(a[0], "y");
  EXPECT_EQ(a.dictionary().size(), 1u);
}

TEST(ColumnValues, TableRendersTheStoredValues) {
  Table t("segments");
  t.add_i64("step");
  t.add_str("attribution");
  t.add_f64("duration_us");
  t.add_row({int64_t{-200}, std::string("compute"), 1.5});
  t.add_row({int64_t{5}, std::string("launch, \"overhead\""), 2.0});
  t.add_row({int64_t{1} << 40, std::string("compute"), 0.25});
  t.add_row({true, std::string(""), 3.0});
  EXPECT_EQ(render_csv(t),
            "step,attribution,duration_us\n"
            "-200,compute,1.5\n"
            "5,\"launch, \"\"overhead\"\"\",2\n"
            "1099511627776,compute,0.25\n"
            "1,,3\n");
  Result r;
  r.command = "test";
  r.tables.push_back(t);
  const auto j = to_json(r);
  EXPECT_EQ(j["tables"]["segments"]["columns"]["step"].dump(), "[-200,5,1099511627776,1]");
  EXPECT_EQ(j["tables"]["segments"]["columns"]["attribution"].dump(),
            "[\"compute\",\"launch, \\\"overhead\\\"\",\"compute\",\"\"]");
  const Result back = result_from_json(j);
  EXPECT_EQ(render_csv(back.tables.front()), render_csv(t));
}

// Question (review of 2026-12-06): does --csv write a control character in a text cell (a NUL
// byte in a kernel name, an ESC sequence, a C1 control) as the readable table's escape rather than
// the raw byte, keeping tab and line breaks (quoted) and the text around it?
TEST(ColumnValues, CsvWritesControlCharactersAsEscapes) {
  Table t("top_kernels");
  t.add_str("name");
  t.add_row({std::string("gemm\0bf16", 9)});
  t.add_row({std::string("\x1b[2Jclear,\x7f")});
  t.add_row({std::string("next\xc2\x85line \xc3\xa9")});  // U+0085 (C1), then an accented letter kept
  t.add_row({std::string("tab\tand\nbreak")});
  EXPECT_EQ(render_csv(t),
            "name\n"
            "gemm\\x00bf16\n"
            "\"\\x1b[2Jclear,\\x7f\"\n"
            "next\\u0085line \xc3\xa9\n"
            "\"tab\tand\nbreak\"\n");
}

}  // namespace
}  // namespace sextant

// Question: does the readable table keep its columns aligned with non-ASCII text and one line per
// row with control characters? Widths are counted in UTF-8 code points and a newline or tab in a
// cell is written as an escape (before 2026-12-03 a name with arrows shifted its row's numbers
// and a name with a newline split its row); JSON and CSV keep the text as it is.
TEST(RenderText, AlignsUtf8AndEscapesControlCharacters) {
  sextant::Result r;
  r.command = "test";
  auto& t = r.add_table("kernels", "test");
  t.add_str("name");
  t.add_f64("time_us");
  t.add_row({std::string("gemm_\u2192\u2192\u2192"), 1.5});
  t.add_row({std::string("ab\ncd\te"), 22.25});
  t.add_row({std::string("plain"), 333.0});
  const std::string text = sextant::render_text(r);
  std::vector<std::string> lines;
  for (size_t a = text.find("== kernels"), b; a != std::string::npos && (b = text.find('\n', a)) != std::string::npos; a = b + 1)
    lines.push_back(text.substr(a, b - a));
  ASSERT_EQ(lines.size(), 5u) << text;  // title, header, three rows
  auto width = [](const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  for (size_t i = 2; i < lines.size(); ++i) EXPECT_EQ(width(lines[i]), width(lines[1])) << lines[i];
  EXPECT_NE(text.find("ab\\ncd\\te"), std::string::npos) << text;
}
