// Question: does an error message that echoes an input print as text, whatever bytes the input
// held (docs/errors.md)?
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace sextant {
namespace {

TEST(PrintableMessage, KeepsValidUtf8NewlinesAndTabs) {
  const std::string text = "model 'Qwen\xe2\x80\x94\xe9\x80\x9a\xe4\xb9\x89' \xf0\x9f\x98\x80\n\tnext";
  EXPECT_EQ(printable_message(text), text);
}

TEST(PrintableMessage, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(printable_message("llama\xff"), "llama\\xff");
  // A Latin-1 e-acute followed by ASCII: a lead byte without its continuation.
  EXPECT_EQ(printable_message("caf\xe9!"), "caf\\xe9!");
  // A truncated sequence at the end, an overlong encoding of '/', a UTF-16 surrogate, and a
  // code point above U+10FFFF are each not UTF-8 (RFC 3629).
  EXPECT_EQ(printable_message("x\xe2\x80"), "x\\xe2\\x80");
  EXPECT_EQ(printable_message("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(printable_message("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(printable_message("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
}

TEST(PrintableMessage, EscapesControlCharactersAndNul) {
  EXPECT_EQ(printable_message(std::string("a\0b", 3)), "a\\u0000b");
  EXPECT_EQ(printable_message("bell\x07 esc\x1b[31m del\x7f"), "bell\\x07 esc\\x1b[31m del\\x7f");
}

TEST(PrintableMessage, AppliesToEveryError) {
  const Error located(SourceLocation{"f.json", 1, 2, "k"}, "bad 'x\xff'", "valid: a");
  EXPECT_STREQ(located.what(), "f.json:1:2: key 'k': bad 'x\\xff' (valid: a)");
  const Error bare(std::string("bare \x1b"));
  EXPECT_STREQ(bare.what(), "bare \\x1b");
}

}  // namespace
}  // namespace sextant
