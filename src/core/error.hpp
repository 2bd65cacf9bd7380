#pragma once
// Error policy (see docs/errors.md):
//  - Library code never calls exit() and never prints; it throws sextant::Error.
//  - An Error names where the problem is (file, line, key) and what would be valid.
//  - Recoverable oddities in data (a malformed trace event, an ignored config key) are not
//    errors: they are counted as diagnostics in the command's result.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sextant {

struct SourceLocation {
  std::string file;  // path as given by the user; empty when the input is not a file
  int line = 0;      // 1-based; 0 = unknown
  int column = 0;    // 1-based; 0 = unknown
  std::string key;   // dotted key path (e.g. "parallel.tp"); empty when not applicable
};

// The text with NUL, control characters (but newline and tab) and bytes that are not UTF-8
// escaped (\u0000, \xNN), so an error message echoing an input prints as text.
std::string printable_message(std::string_view text);

// The text with every run of more than kLongRunBytes bytes without a space, tab or newline (an
// echoed value: a 5 MB model name; kLongPathBytes for a run with a '/') cut to its first and last
// kShownRunBytes bytes around "... (N bytes) ...", and
// the whole cut to kMaxMessageBytes: Error applies it to its message and hint (2026-12-06 review: a
// 5,000,000-character value was echoed whole, 5 MB of error).
constexpr size_t kLongRunBytes = 256;
constexpr size_t kShownRunBytes = 80;
constexpr size_t kLongPathBytes = 4096;  // a run with a '/' (a path) is shown whole up to PATH_MAX
constexpr size_t kMaxMessageBytes = 16384;
std::string abbreviate_long_values(std::string_view text);

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message)
      : std::runtime_error(printable_message(abbreviate_long_values(message))), message_(abbreviate_long_values(message)) {}
  Error(SourceLocation where, std::string message, std::string hint = {});

  const SourceLocation& where() const { return where_; }
  const std::string& hint() const { return hint_; }
  // The bare message without location and hint.
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
  std::string hint_;
};

// Formats "file:line:col: key 'k': message (hint)"; the what() string of Error.
std::string format_error(const SourceLocation& where, const std::string& message,
                         const std::string& hint);

// Edit distance between a and b (case-insensitive), for "did you mean" suggestions.
int edit_distance(const std::string& a, const std::string& b);

// edit_distance when it can be at most `cap`, else cap + 1 without computing it: lengths more
// than cap apart are that far at least. Near-miss checks use it so that a column or key of
// megabytes costs nothing (its full distances took seconds; review of 2026-12-06).
int edit_distance_capped(const std::string& a, const std::string& b, int cap);

// The closest candidate to `word` when it is plausibly a typo; empty otherwise. None for a word
// longer than twice the longest candidate and 8 characters (no typo is that long, and the edit
// distances of a 5 MB word took 27 s before 2026-12-06, review).
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// "valid: a, b, c (did you mean 'b'?)"
std::string valid_choices_hint(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace sextant
