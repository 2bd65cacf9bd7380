// Question (review of 2026-12-06): does CsvTable number each row by its physical line whatever the
// line ending (LF, CRLF, a lone CR), with line breaks inside quoted fields counted as outside them?
// Only LF was counted inside a quoted field: in a CR-only file a row after a three-line field was
// reported two lines early.
#include <gtest/gtest.h>

#include <string>

#include "core/csv.hpp"
#include "core/error.hpp"

using namespace sextant;

namespace {
// Header on line 1; row a on 2; row b's note spans lines 3-5; row c on 6; row d (a bad n) on 7.
std::string table(const std::string& eol) {
  return "id,n,note" + eol + "a,1,x" + eol + "b,2,\"one" + eol + "two" + eol + "three\"" + eol + "c,3,y" + eol + "d,abc,z" + eol;
}
}  // namespace

TEST(CsvLines, LineBreaksInQuotedFieldsCountInEveryLineEnding) {
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    const auto t = CsvTable::parse(table(eol), "t.csv");
    ASSERT_EQ(t.rows(), 4u);
    EXPECT_EQ(t.line_of(0), 2);
    EXPECT_EQ(t.line_of(1), 3);
    EXPECT_EQ(t.line_of(2), 6) << "line ending " << (eol == "\r" ? "CR" : eol == "\n" ? "LF" : "CRLF");
    EXPECT_EQ(t.line_of(3), 7);
    EXPECT_EQ(t.at(1, "note"), "one" + eol + "two" + eol + "three");
    try {
      (void)t.i64(3, "n");
      ADD_FAILURE() << "abc read as an integer";
    } catch (const Error& e) {
      EXPECT_EQ(e.where().line, 7) << e.what();
    }
  }
  // A field's breaks in mixed endings: each CR, LF or CRLF one line.
  const auto m = CsvTable::parse("id,note\na,\"1\r2\n3\r\n4\"\nb,x\n", "m.csv");
  EXPECT_EQ(m.line_of(1), 6);
}
