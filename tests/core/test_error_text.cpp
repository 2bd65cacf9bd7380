// Question: does an error message that echoes an input print as text, whatever bytes the input
// held (docs/errors.md)?
#include <gtest/gtest.h>

#include <string>
#include <vector>

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


// Question: is a very long echoed value cut to its start and length, and is the closest-match
// search skipped for a word far longer than every candidate (review of 2026-12-06: a model name of
// 5,000,000 'x' took 27 s and was echoed whole)?
TEST(PrintableMessage, ALongValueIsCutAndNotSearched) {
  const std::string word(2'000'000, 'x');
  const Error e(SourceLocation{"s.yaml", 3, 8, "model"}, "unknown model '" + word + "'", "valid: a, b");
  const std::string what = e.what();
  EXPECT_LT(what.size(), 400u) << what.substr(0, 400);
  EXPECT_NE(what.find("unknown model '" + std::string(79, 'x') + "... (2000002 bytes)"), std::string::npos) << what;
  EXPECT_NE(what.find("(valid: a, b)"), std::string::npos) << what;
  EXPECT_LT(e.message().size(), 400u);
  // A long value with blanks in it is cut at the end.
  std::string spaced;
  for (int i = 0; i < 20000; ++i) spaced += "ab ";
  const std::string cut = abbreviate_long_values(spaced);
  EXPECT_LT(cut.size(), kMaxMessageBytes + 40);
  EXPECT_NE(cut.find("... (60000 bytes in all)"), std::string::npos);
  // Short text is untouched; a cut never splits a UTF-8 sequence.
  EXPECT_EQ(abbreviate_long_values("model 'llama3-70b' (valid: a, b)"), "model 'llama3-70b' (valid: a, b)");
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "\xc3\xa9";
  EXPECT_EQ(printable_message(abbreviate_long_values(accents)).find("\\x"), std::string::npos);

  std::vector<std::string> ids;
  for (int i = 0; i < 300; ++i) ids.push_back("model-" + std::to_string(i) + "-70b");
  // (Its speed is left to the test's own time limit: no timing asserts in unit tests.)
  EXPECT_EQ(closest_match(word, ids), "");
  const std::string hint = valid_choices_hint(word, ids);
  EXPECT_EQ(hint.find("did you mean"), std::string::npos);
  // Just within the bound (twice the longest candidate and 8) a typo is still found.
  EXPECT_EQ(closest_match("modle", {"model"}), "model");
}

// Question: does the capped edit distance agree with the full one within its cap, and answer
// cap + 1 for lengths further apart than the cap without computing (review of 2026-12-06: the
// near-miss checks of config.json keys, arrival-trace and validation columns had computed full
// distances against a header of megabytes)?
TEST(EditDistance, CappedAgreesWithinItsCapAndBoundsTheRest) {
  EXPECT_EQ(edit_distance("head_dim", "head_dmi"), 1);
  EXPECT_EQ(edit_distance_capped("head_dim", "head_dmi", 2), 1);
  EXPECT_EQ(edit_distance_capped("kitten", "sitting", 3), 3);
  EXPECT_EQ(edit_distance_capped("kitten", "sitting", 2), 3);  // true 3, over the cap: cap + 1
  EXPECT_EQ(edit_distance_capped("abc", "abcdef", 2), 3);      // lengths 3 apart
  EXPECT_EQ(edit_distance_capped("ABC", "abc", 0), 0);          // letter case aside
  const std::string huge(3'000'000, 'y');
  EXPECT_EQ(edit_distance_capped(huge, "prompt_tokens", 2), 3);
  EXPECT_EQ(edit_distance_capped("prompt_tokens", huge, 5), 6);
}

}  // namespace
}  // namespace sextant

// Review of 2026-12-06: a path over 256 bytes (a deep scratch folder) was cut to its first 80
// bytes, hiding the file the error is about. Paths are whole up to PATH_MAX; beyond, the cut
// keeps the tail too.
TEST(PrintableMessage, APathIsShownWholeAndAnOverlongRunKeepsItsTail) {
  const std::string path = "/scratch/" + std::string(300, 'd') + "/missing/config.json";
  const std::string shown = sextant::abbreviate_long_values("model file '" + path + "' not found");
  EXPECT_NE(shown.find(path), std::string::npos) << shown;
  const std::string run = std::string(1000, 'x') + "END";
  const std::string cut = sextant::abbreviate_long_values(run);
  EXPECT_NE(cut.find("... (1003 bytes) ..."), std::string::npos) << cut;
  EXPECT_EQ(cut.substr(cut.size() - 3), "END");
  EXPECT_LT(cut.size(), 200u);
}
