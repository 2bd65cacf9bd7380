#include "core/error.hpp"

#include <algorithm>
#include <cctype>

namespace sextant {

std::string format_error(const SourceLocation& where, const std::string& message,
                         const std::string& hint) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) {
      out += ":" + std::to_string(where.line);
      if (where.column > 0) out += ":" + std::to_string(where.column);
    }
    out += ": ";
  }
  // The file is the user's own path, shown whole; the key, message and hint may echo a value.
  if (!where.key.empty()) out += "key '" + abbreviate_long_values(where.key) + "': ";
  out += abbreviate_long_values(message);
  if (!hint.empty()) out += " (" + abbreviate_long_values(hint) + ")";
  return printable_message(out);
}

namespace {
// The length of `text` cut to at most `n` bytes without splitting a UTF-8 sequence.
size_t utf8_cut(std::string_view text, size_t n) {
  if (n >= text.size()) return text.size();
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xc0) == 0x80) --n;
  return n;
}
}  // namespace

// An error echoes the value at fault, and a value can be any size: a run of characters without a
// blank (a model name of 5,000,000 'x', 2026-12-06 review: the error was 5 MB) is cut to its start
// and its length, and a text still too long (a long value with blanks in it) is cut at the end.
std::string abbreviate_long_values(std::string_view text) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (blank(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && !blank(text[j])) ++j;
    const std::string_view run = text.substr(i, j - i);
    // A path is shown whole up to PATH_MAX (a deep scratch folder's missing config.json had been cut
    // to its first 80 bytes, hiding the file; review of 2026-12-06); beyond, its head and its tail.
    const bool path = run.find('/') != std::string_view::npos;
    if (run.size() > (path ? kLongPathBytes : kLongRunBytes)) {
      out.append(run.substr(0, utf8_cut(run, kShownRunBytes)));
      out += "... (" + std::to_string(run.size()) + " bytes) ...";
      size_t tail = run.size() - kShownRunBytes;  // the last kShownRunBytes, from a character's start
      while (tail < run.size() && (static_cast<unsigned char>(run[tail]) & 0xc0) == 0x80) ++tail;
      out.append(run.substr(tail));
    } else {
      out.append(run);
    }
    i = j;
  }
  if (out.size() > kMaxMessageBytes) {
    const size_t all = text.size();
    out.resize(utf8_cut(out, kMaxMessageBytes));
    out += "... (" + std::to_string(all) + " bytes in all)";
  }
  return out;
}

// what() is a C string: a NUL from an input (a YAML "\u0000") would cut the message there,
// hiding the valid choices; a byte that is not UTF-8 (a config.json in Latin-1, echoed by the
// JSON parser's "last read") or a control character would reach the terminal raw. Show them
// escaped; valid UTF-8 (a model name in any script), newlines and tabs stay.
std::string printable_message(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [&](unsigned char b) {
    static constexpr char digits[] = "0123456789abcdef";
    out += "\\x";
    out += digits[b >> 4];
    out += digits[b & 15];
  };
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == 0) {
      out += "\\u0000";
      ++i;
    } else if (b < 0x80) {
      if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7f) hex(b);
      else out += static_cast<char>(b);
      ++i;
    } else {
      // The length of a well-formed sequence starting here (RFC 3629: no overlongs, no
      // surrogates, nothing above U+10FFFF); 0 if it is not one.
      size_t n = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
      if (n > 0 && i + n <= text.size()) {
        const auto b1 = static_cast<unsigned char>(text[i + 1]);
        const bool first_ok = (b == 0xe0 ? b1 >= 0xa0 : b == 0xed ? b1 <= 0x9f : b == 0xf0 ? b1 >= 0x90 : b == 0xf4 ? b1 <= 0x8f : true);
        bool ok = first_ok;
        for (size_t k = 1; k < n && ok; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
        if (!ok) n = 0;
      } else {
        n = 0;
      }
      if (n == 0) {
        hex(b);
        ++i;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
    }
  }
  return out;
}

Error::Error(SourceLocation where, std::string message, std::string hint)
    : std::runtime_error(format_error(where, message, hint)),
      where_(std::move(where)),
      message_(abbreviate_long_values(message)),
      hint_(abbreviate_long_values(hint)) {}

// Optimal string alignment distance, case-insensitive: insertions, deletions, substitutions and
// transpositions of two adjacent characters each count one (`modle` is one edit from `model`;
// as two it was not recognised as a typo of a five-letter key).
int edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  auto eq = [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); };
  std::vector<int> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (eq(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1])) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

int edit_distance_capped(const std::string& a, const std::string& b, int cap) {
  const size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (cap < 0 || gap > static_cast<size_t>(cap)) return cap + 1;
  return std::min(edit_distance(a, b), cap + 1);
}

namespace {
bool starts_with_ci(const std::string& s, const std::string& prefix) {
  if (prefix.empty() || prefix.size() > s.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) return false;
  return true;
}
// The candidates that begin with the word (an abbreviated id: "h100" for the H100 entries).
std::vector<std::string> prefix_matches(const std::string& word, const std::vector<std::string>& candidates) {
  std::vector<std::string> out;
  for (const auto& c : candidates)
    if (c.size() > word.size() && starts_with_ci(c, word)) out.push_back(c);
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  return out;
}
// The candidate that is the word in other letter case ("Qwen2" for qwen2); empty when none.
std::string same_ignoring_case(const std::string& word, const std::vector<std::string>& candidates) {
  for (const auto& c : candidates)
    if (c.size() == word.size() && starts_with_ci(c, word)) return c;
  return {};
}
}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  // A word far longer than every candidate is no typo of one: skip the search, whose edit
  // distances are word length x candidate length each (a 5 MB model name took 27 s, review of
  // 2026-12-06).
  size_t longest = 0;
  for (const auto& c : candidates) longest = std::max(longest, c.size());
  if (word.size() > 2 * longest + 8) return {};
  // The word in other letter case is the intent before anything longer it begins: before
  // 2026-12-05 the prefix rule came first, and model_type Qwen2 was pointed at qwen2_moe, Gemma at
  // gemma2 (another model), accelerator H20 at h200-sxm-141gb (review).
  if (auto same = same_ignoring_case(word, candidates); !same.empty()) return same;
  // An id the word begins is the likeliest intent, before any near spelling ("h100" is
  // "h100-sxm-80gb", not "b200").
  if (const auto pre = prefix_matches(word, candidates); !pre.empty()) return pre.front();
  // The same letters and digits with other separators ("llama-3-70b" for "llama3-70b", which one
  // edit also takes to "llama-2-70b", another model) is the intent before any spelling.
  auto bare = [](const std::string& x) {
    std::string out;
    for (const char ch : x)
      if (std::isalnum(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  for (const auto& c : candidates)
    if (bare(c) == bare(word) && !bare(word).empty()) return c;
  // Tokens naming a part or a size ("h200", "mi300x", "70b"): one changed character is another
  // product ("dgx-h200" is not "dgx-b200"), so a candidate without such a token of the word pays
  // for it, and among candidates holding them all the nearest is the intent ("hgx-h200-8gpu").
  std::vector<std::string> marks;
  {
    std::string tok;
    auto flush = [&] {
      bool digit = false, alpha = false;
      for (const char ch : tok) (std::isdigit(static_cast<unsigned char>(ch)) ? digit : alpha) = true;
      if (digit && alpha && tok.size() >= 3) marks.push_back(tok);
      tok.clear();
    };
    for (const char ch : word) {
      if (std::isalnum(static_cast<unsigned char>(ch))) tok += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      else flush();
    }
    flush();
  }
  auto holds_marks = [&](const std::string& c) {
    std::string lc = c;
    for (auto& ch : lc) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const auto& m : marks)
      if (lc.find(m) == std::string::npos) return false;
    return true;
  };
  // Only when some candidate holds the tokens: otherwise the token is itself the typo ("bf61").
  bool any_marked = false;
  for (const auto& c : candidates) any_marked = any_marked || (!marks.empty() && holds_marks(c));
  std::string best, best_marked;
  int best_d = 1 << 30, best_marked_d = 1 << 30;
  // At equal distance the candidate sharing the longer start with the word ("tpp": tp, not pp;
  // a typo keeps the first letters more often than the last).
  auto shared_start = [&](const std::string& c) {
    size_t n = 0;
    while (n < word.size() && n < c.size() && word[n] == c[n]) ++n;
    return n;
  };
  for (const auto& c : candidates) {
    const int raw = edit_distance(word, c);
    const bool marked = any_marked && holds_marks(c);
    const int d = raw + (!any_marked || marked ? 0 : 2);
    if (d < best_d || (d == best_d && shared_start(c) > shared_start(best))) {
      best_d = d;
      best = c;
    }
    if (marked && raw < best_marked_d) {
      best_marked_d = raw;
      best_marked = c;
    }
  }
  // Within two edits (a third of a long word), and fewer than half the characters of the longer
  // of the two: `xy` is two edits from `cp` but shares nothing with it.
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  if (best_d <= limit && 2 * best_d <= static_cast<int>(std::max(word.size(), best.size()))) return best;
  if (!best_marked.empty()) return best_marked;
  // A prefix or substring match is also a plausible intent ("h100" for "h100-sxm-80gb").
  for (const auto& c : candidates)
    if (!word.empty() && c.find(word) != std::string::npos) return c;
  return {};
}

std::string valid_choices_hint(const std::string& word, const std::vector<std::string>& candidates) {
  // An empty catalog folder has no entries to offer: say so rather than print "valid: ".
  if (candidates.empty()) return "none are defined: is the catalog folder empty?";
  std::string out = "valid: ";
  const size_t shown = std::min<size_t>(candidates.size(), 40);
  for (size_t i = 0; i < shown; ++i) {
    if (i) out += ", ";
    out += candidates[i];
  }
  if (shown < candidates.size()) out += ", ... (" + std::to_string(candidates.size()) + " in all)";
  // The word in other letter case is the one intent (system DGX-A100 is dgx-a100, not the
  // dgx-a100-* entries it begins; review of 2026-12-05).
  if (const auto same = same_ignoring_case(word, candidates); !same.empty()) return out + "; did you mean '" + same + "'?";
  if (const auto pre = prefix_matches(word, candidates); pre.size() > 1) {
    out += "; did you mean '" + pre[0] + "'? (also ";
    for (size_t i = 1; i < pre.size() && i < 8; ++i) out += (i > 1 ? ", '" : "'") + pre[i] + "'";
    out += pre.size() > 8 ? ", ...)" : ")";
    return out;
  }
  const auto m = closest_match(word, candidates);
  if (!m.empty()) out += "; did you mean '" + m + "'?";
  return out;
}

}  // namespace sextant
