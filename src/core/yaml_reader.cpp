#include "core/yaml_reader.hpp"

#include <unordered_set>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <vector>

#include <yaml-cpp/depthguard.h>

#include "core/atomic_file.hpp"

namespace sextant {

YamlMap::YamlMap(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)),
      used_(std::make_shared<std::set<std::string>>()), asked_(std::make_shared<std::set<std::string>>()) {
  if (!node_.IsMap())
    throw Error(SourceLocation{file_, node_.Mark().line + 1, node_.Mark().column + 1, path_},
                "expected a mapping of keys to values");
  // YAML forbids a key twice in one mapping; yaml-cpp keeps both and every lookup finds the first,
  // so `tp: 8` then `tp: 4` would silently run tp 8.
  std::map<std::string, int> seen;  // key -> line of its first occurrence
  for (const auto& kv : node_) {
    // A key is a plain string: `? [1]: 2` or an empty `? :` reached the library's conversion as
    // an "internal error" without the file (before 2026-12-03).
    if (!kv.first.IsScalar())
      throw Error(SourceLocation{file_, kv.first.Mark().line + 1, kv.first.Mark().column + 1, path_},
                  std::string("keys must be plain strings, not ") + (kv.first.IsNull() ? "empty" : kv.first.IsSequence() ? "a list" : "a mapping"),
                  "write key: value with a plain word as the key");
    const std::string k = kv.first.Scalar();
    const int line = kv.first.Mark().line + 1;
    auto [it, fresh] = seen.emplace(k, line);
    if (!fresh)
      throw Error(SourceLocation{file_, line, kv.first.Mark().column + 1, path_.empty() ? k : path_ + "." + k},
                  "duplicate key '" + k + "'" + (it->second > 0 ? " (first given at line " + std::to_string(it->second) + ")" : ""),
                  "a key may appear once in a mapping; remove one");
  }
}

namespace {
// A control character (other than tab, newline, carriage return) or a byte sequence that is not
// UTF-8 is an error at its line and column: yaml-cpp read a NUL as an escape ("unknown escape
// character: y"), kept \x01 inside a scalar where it made an id unknown and invisible, and echoed
// invalid bytes into the output.
void reject_bad_bytes(const std::string& text, const std::string& name) {
  int line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = 1;
    bool ok = true;
    if (c < 0x80) {
      ok = c >= 0x20 || c == '\t' || c == '\n' || c == '\r';
      ok = ok && c != 0x7f;
      if (!ok) {
        char code[8];
        std::snprintf(code, sizeof code, "%02X", static_cast<unsigned>(c));
        throw Error(SourceLocation{name, line, column}, std::string("control character U+00") + code + " in the text",
                    "remove it (a YAML file holds printable text)");
      }
    } else {
      len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
      ok = len > 0 && i + len <= text.size();
      for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      if (!ok) throw Error(SourceLocation{name, line, column}, "bytes that are not UTF-8", "save the file as UTF-8");
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
}
}  // namespace

namespace {
// yaml-cpp accepts a quoted scalar that the file never closes: it runs to the end of the text (a
// last line `name: "oops` read as the name "oops ", a first one swallowed the rest of the file and
// blamed a missing key; review of 2026-12-05). Each quoted scalar's opening quote, where the parser
// says the scalar starts, must have its closing one.
// `offset`: bytes before the parser's positions (a UTF-8 byte-order mark, which its marks do not
// count). Containers reached again through an alias are walked once (an 888-byte file of nested
// aliases had taken 36 s).
void check_quotes_closed(const YAML::Node& n, const std::string& text, const std::string& name, size_t offset,
                         std::unordered_set<int>& walked, int depth = 0) {
  if (depth > 200 || !n.IsDefined()) return;
  const YAML::Mark m = n.Mark();
  if (n.IsScalar()) {
    if (m.pos < 0) return;
    size_t i = static_cast<size_t>(m.pos) + offset;
    // A tag or an anchor before the scalar (`&a "x`, `!!str "x`): the mark is on it.
    while (i < text.size() && (text[i] == '&' || text[i] == '!')) {
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r') ++i;
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    }
    if (i >= text.size()) return;
    const char q = text[i];
    if (q != '"' && q != '\'') return;
    for (++i; i < text.size(); ++i) {
      if (q == '"' && text[i] == '\\') {
        ++i;
        continue;
      }
      if (text[i] != q) continue;
      if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted scalar
        continue;
      }
      return;
    }
    throw Error(SourceLocation{name, m.line + 1, m.column + 1}, std::string("YAML syntax error: a ") + (q == '"' ? "double" : "single") +
                                                              "-quoted string that is never closed",
                std::string("close it with ") + q);
  }
  if (!walked.insert(m.pos).second) return;
  if (n.IsSequence())
    for (const auto& x : n) check_quotes_closed(x, text, name, offset, walked, depth + 1);
  if (n.IsMap())
    for (const auto& kv : n) {
      check_quotes_closed(kv.first, text, name, offset, walked, depth + 1);
      check_quotes_closed(kv.second, text, name, offset, walked, depth + 1);
    }
}
}  // namespace

YAML::Node parse_yaml_document(const std::string& text, const std::string& name) {
  reject_bad_bytes(text, name);
  try {
    // One document per file: a second one (after `---`) would be ignored silently.
    std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() > 1)
      throw Error(SourceLocation{name, docs[1].Mark().line + 1, 0},
                  "the file holds " + std::to_string(docs.size()) + " YAML documents; Sextant reads one",
                  "remove the documents after the first '---', or split them into files");
    if (!docs.empty()) {
      std::unordered_set<int> walked;
      check_quotes_closed(docs.front(), text, name, text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0, walked);
    }
    return docs.empty() ? YAML::Node() : docs.front();
  } catch (const YAML::DeepRecursion& e) {
    throw Error(SourceLocation{name, e.mark.line + 1, e.mark.column + 1}, "the YAML nests too deeply for its parser",
                "a scenario nests a few levels; look for an unclosed '[' or '{'");
  } catch (const YAML::Exception& e) {
    // A tab in a line's indentation is the usual cause, and the parser's message does not say so:
    // the last such line at or before the error's.
    int tab_line = 0, line = 1;
    bool at_indent = true;
    const int error_line = e.mark.line + 1;
    for (const char ch : text) {
      if (line > error_line && error_line > 0) break;
      if (ch == '\n') {
        ++line;
        at_indent = true;
        continue;
      }
      if (at_indent && ch == '\t') {
        tab_line = line;
        at_indent = false;
        continue;
      }
      if (ch != ' ') at_indent = false;
    }
    // Lines that end in a carriage return alone (classic Mac OS) read as one line (review of 2026-12-05).
    const bool cr_only = text.find('\r') != std::string::npos && text.find('\n') == std::string::npos;
    throw Error(SourceLocation{name, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg,
                cr_only ? "the file's lines end in a carriage return alone (CR), which YAML does not read as a line break: convert them to LF or CRLF"
                : tab_line > 0 ? "line " + std::to_string(tab_line) + " is indented with a tab; YAML indents with spaces only" : std::string());
  }
}

YamlMap YamlMap::load_file(const std::string& file) {
  // read_file names the file on every failure (missing, a directory, a read error), which
  // YAML::LoadFile does not tell apart from an empty document.
  YAML::Node n = parse_yaml_document(read_file(file), file);
  if (!n || n.IsNull()) throw Error(SourceLocation{file}, "file is empty");
  return YamlMap(n, file);
}

YamlMap YamlMap::load_string(const std::string& text, const std::string& name) {
  auto n = parse_yaml_document(text, name);
  if (!n || n.IsNull()) throw Error(SourceLocation{name}, "document is empty");
  return YamlMap(n, name);
}

bool YamlMap::has(const std::string& key) const {
  asked_->insert(key);
  return node_[key].IsDefined() && !node_[key].IsNull();
}

SourceLocation YamlMap::loc(const std::string& key) const {
  YAML::Mark m = node_.Mark();
  if (!key.empty() && node_[key].IsDefined()) {
    // The mark of the value; for a missing key, the map's own mark. A key without a value (`tp:`)
    // has a null value whose mark is the next token's (the line below): the key's own mark.
    m = node_[key].Mark();
    if (node_[key].IsNull())
      for (const auto& kv : node_)
        if (kv.first.IsScalar() && kv.first.Scalar() == key) m = kv.first.Mark();
    // A sourced value ({value: X, source: ...}) is judged by its number: where an override wrote
    // it, the error is the override's (it had named the file's line of the mapping, which held a
    // valid value; review of 2026-12-05).
    if (node_[key].IsMap() && node_[key]["value"].IsDefined() && node_[key]["value"].Mark().line < 0) m = node_[key]["value"].Mark();
  }
  // Nodes created by --set overrides have no position in the file.
  if (m.line < 0) return SourceLocation{file_ + " (--set)", 0, 0, key.empty() ? path_ : key_path(key)};
  return SourceLocation{file_, m.line + 1, m.column + 1, key.empty() ? path_ : key_path(key)};
}

SourceLocation YamlMap::locate(const std::string& dotted) const {
  const auto dot = dotted.find('.');
  const std::string head = dotted.substr(0, dot);
  const YAML::Node n = node_[head];
  if (!n.IsDefined()) {
    SourceLocation w = loc();
    w.key = key_path(dotted);
    return w;
  }
  if (dot == std::string::npos || !n.IsMap()) {
    SourceLocation w = loc(head);
    w.key = key_path(dotted);
    return w;
  }
  return YamlMap(n, file_, key_path(head)).locate(dotted.substr(dot + 1));
}

void YamlMap::fail(const std::string& key, const std::string& message, const std::string& hint) const {
  throw_if_typo();
  throw Error(loc(key), message, hint);
}

std::vector<std::string> YamlMap::known_keys() const {
  std::set<std::string> all(used_->begin(), used_->end());
  all.insert(asked_->begin(), asked_->end());
  return {all.begin(), all.end()};
}

void YamlMap::unknown_key(const YAML::Node& key_node, const std::string& meant) const {
  const std::string k = key_node.as<std::string>();
  const auto m = key_node.Mark();
  SourceLocation where = m.line < 0 ? SourceLocation{file_ + " (--set)", 0, 0, key_path(k)}
                                    : SourceLocation{file_, m.line + 1, m.column + 1, key_path(k)};
  if (k == "<<")
    throw Error(where, "YAML merge keys ('<<') are not supported", "write the keys out in this mapping (anchors and aliases of whole values work)");
  // Found before every key of the map was read, the list of valid keys would be partial: name the
  // key it resembles instead.
  if (!meant.empty()) throw Error(where, "unknown key", "did you mean '" + meant + "'?");
  throw Error(where, "unknown key", valid_choices_hint(k, known_keys()));
}

void YamlMap::throw_if_typo() const {
  // A merge key is named before any other complaint about its mapping: the keys it would have
  // merged in had read as "required key is missing" (review of 2026-12-06).
  for (const auto& kv : node_)
    if (kv.first.IsScalar() && kv.first.Scalar() == "<<") unknown_key(kv.first, "");
  std::vector<std::string> absent;  // asked about, not in the map
  for (const auto& k : known_keys())
    if (!node_[k].IsDefined()) absent.push_back(k);
  if (absent.empty()) return;
  // Only a near miss counts (at most two edits, and fewer than a third of the key): a key not
  // read yet may be a valid key read later (`tokens` beside an absent `tokens_per_step`).
  for (const auto& kv : node_) {
    const std::string k = kv.first.as<std::string>();
    if (used_->count(k) || asked_->count(k)) continue;
    for (const auto& a : absent) {
      // At least the difference of the lengths apart: a key of megabytes is no near miss, and its
      // edit distances took seconds (review of 2026-12-06).
      const int d = edit_distance_capped(k, a, 2);
      if (d <= 2 && 3 * d < static_cast<int>(std::max(k.size(), a.size()))) unknown_key(kv.first, a);
    }
  }
}

void YamlMap::check_typos(const std::vector<std::string>& expected) const {
  for (const auto& k : expected) asked_->insert(k);
  throw_if_typo();
}

YAML::Node YamlMap::node_for(const std::string& key) const {
  used_->insert(key);
  YAML::Node n = node_[key];
  if (n.IsDefined() && n.IsNull()) fail(key, "no value given", "write a value");
  if (!n.IsDefined()) {
    // A key of the mapping that no one reads and that shares most of its start with the missing
    // one (Megatron's seq_length, global_batch_size for seq_len, global_batch) is named: the near-
    // miss rule (two edits) does not reach them (2026-12-04 review).
    for (const auto& kv : node_) {
      if (!kv.first.IsScalar()) continue;
      const std::string k = kv.first.Scalar();
      if (used_->count(k) || asked_->count(k)) continue;
      size_t common = 0;
      while (common < k.size() && common < key.size() && k[common] == key[common]) ++common;
      const size_t shorter = std::min(k.size(), key.size());
      if (common >= 4 && 5 * common >= 3 * shorter) {
        // At the key the mapping has (the mapping's first line had been named, which held another
        // key; review of 2026-12-05).
        throw_if_typo();
        const YAML::Mark m = kv.first.Mark();
        SourceLocation at = m.line < 0 ? SourceLocation{file_ + " (--set)", 0, 0, key_path(key)}
                                       : SourceLocation{file_, m.line + 1, m.column + 1, key_path(key)};
        throw Error(at, "required key is missing", "the mapping has '" + k + "': did you mean '" + key + "'?");
      }
    }
    fail(key, "required key is missing");
  }
  return n;
}

YAML::Node YamlMap::raw(const std::string& key) const {
  used_->insert(key);
  // A missing key: an undefined node (IsMap(), IsScalar() false), not yaml-cpp's invalid node,
  // whose type queries throw "invalid node" (a goodput process without duration_s, a catalog
  // framework property without value, had ended as internal errors before 2026-12-04).
  YAML::Node n = node_[key];
  if (!n.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
  return n;
}

// A quoted scalar is a string in YAML ("8192" is not 8192): a number or a boolean written in
// quotes is an error, not converted.
// An explicit string tag (`!!str 8`) is a string too (it had been read as the integer 8).
static bool quoted(const YAML::Node& n) { return n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str"; }

// A scalar's explicit tag other than the plain ("?"), quoted ("!") and string ones: YAML's core
// !!int, !!float, !!bool are what they say (`tp: !!float 8` is the float 8.0, which an integer key
// refuses as it refuses `8.0`), and a tag of no schema (`!foo 8`) is refused (both had been read as
// the integer 8; review of 2026-12-05).
static void check_tag(const YamlMap& m, const std::string& key, const YAML::Node& n, const char* want) {
  const std::string& t = n.Tag();
  if (t.empty() || t == "?" || t == "!" || t == "tag:yaml.org,2002:str") return;
  static const std::string core = "tag:yaml.org,2002:";
  if (t.compare(0, core.size(), core) != 0)
    m.fail(key, "the tag '" + t + "' is not one Sextant reads", "write the value without a tag");
  const std::string kind = t.substr(core.size());
  const std::string w = want;
  if (kind != w && !(w == "float" && kind == "int"))
    m.fail(key, "is tagged !!" + kind + " where " + (w == "int" ? "an integer" : w == "float" ? "a number" : w == "str" ? "a string" : "true or false") +
                    " is expected",
           "write the value without a tag");
}

static double to_f64(const YamlMap& m, const std::string& key, const YAML::Node& n) {
  if (!n.IsScalar()) m.fail(key, "expected a number");
  const std::string s = n.Scalar();
  if (quoted(n)) m.fail(key, "expected a number, got the quoted string \"" + s + "\"", "write it without quotes");
  check_tag(m, key, n, "float");
  // A decimal number as YAML writes one: strtod also reads hexadecimal ("0x10" was 16 where an
  // integer key refuses 0x8; 2026-12-05 review).
  if (s.find_first_of("xXpP") != std::string::npos) m.fail(key, "expected a decimal number, got '" + s + "'");
  // YAML's own spellings of infinity and NaN (.inf, -.Inf, .NaN) are numbers, as `nan` and `inf`
  // are to strtod: not finite, said alike (`.nan` had read "expected a number"; 2026-12-06 review).
  {
    std::string word = s;
    if (!word.empty() && (word[0] == '+' || word[0] == '-')) word.erase(0, 1);
    for (const char* w : {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"})
      if (word == w) m.fail(key, "expected a finite number, got '" + s + "'");
  }
  try {
    size_t pos = 0;
    double v = std::stod(s, &pos);
    if (pos != s.size()) throw std::invalid_argument(s);
    if (!std::isfinite(v)) m.fail(key, "expected a finite number, got '" + s + "'");
    return v;
  } catch (const std::out_of_range&) {
    // A number beyond a double's range, either way: 1e400 or 1e-400 (the latter is a valid YAML
    // float that underflows; both had read "expected a number"; 2026-12-06 review).
    const double v = std::strtod(s.c_str(), nullptr);
    if (std::isinf(v))
      m.fail(key, "the number " + s + " is beyond a double's range (magnitudes up to about 1.8e308)", "give a value in the range of real inputs");
    m.fail(key, "the number " + s + " is too close to zero for a double (nonzero magnitudes from about 2.2e-308)",
           "write 0, or a value in the range of real inputs");
  } catch (const std::logic_error&) {
    m.fail(key, "expected a number, got '" + s + "'");
  }
}

// lo, hi: the field's range, named where the text is beyond 64 bits (a 32-bit field had said "at
// most 9223372036854775807" for 1e20 where its limit is 2147483647; review of 2026-12-07).
static int64_t to_i64(const YamlMap& m, const std::string& key, const YAML::Node& n, int64_t lo = std::numeric_limits<int64_t>::min(),
                      int64_t hi = std::numeric_limits<int64_t>::max()) {
  if (!n.IsScalar()) m.fail(key, "expected an integer");
  const std::string s = n.Scalar();
  if (quoted(n)) m.fail(key, "expected an integer, got the quoted string \"" + s + "\"", "write it without quotes");
  check_tag(m, key, n, "int");
  try {
    size_t pos = 0;
    long long v = std::stoll(s, &pos);
    if (pos != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::out_of_range&) {
    // An integer beyond 64 bits had been told it is not an integer (2026-12-05 review); stoll
    // throws this before the trailing text is seen, so the text is checked to be all digits.
    const size_t digits = s.find_first_not_of(" \t+-");
    const bool integer = digits != std::string::npos && s.find_first_not_of("0123456789", digits) == std::string::npos;
    if (!integer) m.fail(key, "expected an integer, got '" + s + "'");
    const bool negative = s.find('-') != std::string::npos && s.find('-') < digits;
    m.fail(key, "integer " + s + " is out of range (" + (negative ? "at least " + std::to_string(lo) : "at most " + std::to_string(hi)) + ")");
  } catch (const std::logic_error&) {
    m.fail(key, "expected an integer, got '" + s + "'");
  }
}

// YAML 1.2's core schema: true/True/TRUE, false/False/FALSE. YAML 1.1's yes/no/on/off/y/n were
// accepted in part (yes and on, not y), which no message could say.
static bool to_bool(const YamlMap& m, const std::string& key, const YAML::Node& n) {
  if (n.IsScalar() && !quoted(n)) {
    check_tag(m, key, n, "bool");
    const std::string s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  m.fail(key, n.IsScalar() ? "expected true or false, got " + std::string(quoted(n) ? "the quoted string \"" + n.Scalar() + "\"" : "'" + n.Scalar() + "'")
                           : std::string("expected true or false"));
}

double YamlMap::f64(const std::string& key) const { return to_f64(*this, key, node_for(key)); }
// A key written without a value (`tp:`) is not the key left out: it took the default silently,
// where `--set parallel.tp=~` is an error. A required key without a value is "missing" (node_for).
void YamlMap::reject_blank(const std::string& key) const {
  const YAML::Node n = node_[key];
  if (n.IsDefined() && n.IsNull())
    fail(key, "no value given", "write a value, or leave the key out for its default");
}

double YamlMap::f64(const std::string& key, double dflt) const {
  used_->insert(key);
  reject_blank(key);
  return has(key) ? to_f64(*this, key, node_[key]) : dflt;
}
int64_t YamlMap::i64(const std::string& key) const { return to_i64(*this, key, node_for(key)); }
static int narrow_int(const YamlMap& m, const std::string& key, int64_t v) {
  if (v < std::numeric_limits<int>::min())
    m.fail(key, "integer " + std::to_string(v) + " is out of range (at least " + std::to_string(std::numeric_limits<int>::min()) + ")");
  if (v > std::numeric_limits<int>::max())
    m.fail(key, "integer " + std::to_string(v) + " is out of range (at most " + std::to_string(std::numeric_limits<int>::max()) + ")");
  return static_cast<int>(v);
}
static int64_t to_i32(const YamlMap& m, const std::string& key, const YAML::Node& n) {
  return narrow_int(m, key, to_i64(m, key, n, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}
int YamlMap::i32(const std::string& key) const { return static_cast<int>(to_i32(*this, key, node_for(key))); }
int YamlMap::i32(const std::string& key, int dflt) const {
  used_->insert(key);
  reject_blank(key);
  return has(key) ? static_cast<int>(to_i32(*this, key, node_[key])) : dflt;
}
int64_t YamlMap::i64(const std::string& key, int64_t dflt) const {
  used_->insert(key);
  reject_blank(key);
  return has(key) ? to_i64(*this, key, node_[key]) : dflt;
}
bool YamlMap::boolean(const std::string& key) const { return to_bool(*this, key, node_for(key)); }
bool YamlMap::boolean(const std::string& key, bool dflt) const {
  used_->insert(key);
  reject_blank(key);
  return has(key) ? to_bool(*this, key, node_[key]) : dflt;
}
// A string key's tag is checked as a number's is: `model: !!int llama3-70b` and `precision:
// !!float bf16` were read as the strings (review of 2026-12-06).
std::string YamlMap::str(const std::string& key) const {
  auto n = node_for(key);
  if (!n.IsScalar()) fail(key, "expected a string");
  check_tag(*this, key, n, "str");
  return n.Scalar();
}
std::string YamlMap::str(const std::string& key, const std::string& dflt) const {
  used_->insert(key);
  reject_blank(key);
  if (!has(key)) return dflt;
  if (!node_[key].IsScalar()) fail(key, "expected a string");
  check_tag(*this, key, node_[key], "str");
  return node_[key].Scalar();
}
std::string YamlMap::choice(const std::string& key, const std::vector<std::string>& valid) const {
  auto s = str(key);
  for (const auto& v : valid)
    if (v == s) return s;
  fail(key, "'" + s + "' is not a valid choice", valid_choices_hint(s, valid));
}
std::string YamlMap::choice(const std::string& key, const std::vector<std::string>& valid,
                            const std::string& dflt) const {
  used_->insert(key);
  reject_blank(key);
  if (!has(key)) return dflt;
  return choice(key, valid);
}
std::vector<std::string> YamlMap::str_list(const std::string& key) const {
  used_->insert(key);
  reject_blank(key);
  std::vector<std::string> out;
  if (!has(key)) return out;
  auto n = node_[key];
  if (n.IsScalar()) {
    check_tag(*this, key, n, "str");
    return {n.Scalar()};
  }
  if (!n.IsSequence()) fail(key, "expected a list of strings");
  for (const auto& e : n) {
    if (!e.IsScalar()) fail(key, "expected a list of strings");
    check_tag(*this, key, e, "str");
    out.push_back(e.Scalar());
  }
  return out;
}
std::vector<int64_t> YamlMap::i64_list(const std::string& key) const {
  used_->insert(key);
  reject_blank(key);
  std::vector<int64_t> out;
  if (!has(key)) return out;
  auto n = node_[key];
  if (!n.IsSequence()) fail(key, "expected a list of integers");
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    try {
      out.push_back(to_i64(*this, key, e));
    } catch (const Error& err) {
      // At the entry itself: its own line, or "(--set)" for an entry an override wrote (it had
      // named the list's line in the file, 2026-12-03 review).
      const YAML::Mark m = e.Mark();
      const std::string k = key_path(key) + "." + std::to_string(i);
      throw Error(m.line < 0 ? SourceLocation{file_ + " (--set)", 0, 0, k} : SourceLocation{file_, m.line + 1, m.column + 1, k},
                  err.message(), err.hint());
    }
  }
  return out;
}

Sourced YamlMap::sourced(const std::string& key) const {
  used_->insert(key);
  if (node_[key].IsDefined() && node_[key].IsNull())
    fail(key, "no value given", "write {value: X, source: ID}, {value: X, estimated: \"basis\"} or unknown");
  Sourced s;
  if (!has(key)) return s;
  auto n = node_[key];
  if (n.IsScalar()) {
    if (n.Scalar() == "unknown") return s;
    fail(key, "a catalog number needs its provenance",
         "write {value: X, source: ID} or {value: X, estimated: \"basis\"}, or 'unknown'");
  }
  YamlMap m(n, file_, key_path(key));
  s.value = m.f64("value");
  s.source = m.str("source", "");
  s.estimated = m.str("estimated", "");
  // A source or basis of nothing but blanks is none (docs/errors.md): `source: "  "` had loaded as
  // a provenance where a model's `source: "  "` was refused (review, 2026-12-07).
  if (m.has("source") && is_blank(s.source))
    m.fail("source", "is empty: a catalog number needs its provenance",
           "name the citation (an id of the file's sources: or the citation itself), or write estimated: \"basis\"");
  if (m.has("estimated") && is_blank(s.estimated))
    m.fail("estimated", "is empty: an estimate needs its basis", "say how the value was obtained, or give source: ID for a published one");
  if (s.source.empty() && s.estimated.empty())
    fail(key, "a catalog number needs its provenance", "add source: ID or estimated: \"basis\"");
  // (both were accepted, and the source dropped)
  if (!s.source.empty() && !s.estimated.empty())
    m.fail("estimated", "a number is either sourced or estimated, not both", "keep source: for a published value, estimated: for a derived one");
  m.finish();
  s.known = true;
  return s;
}

YamlMap YamlMap::map(const std::string& key) const {
  auto n = node_for(key);
  if (!n.IsMap()) fail(key, "expected a mapping");
  return YamlMap(n, file_, key_path(key));
}

std::optional<YamlMap> YamlMap::opt_map(const std::string& key) const {
  used_->insert(key);
  reject_blank(key);
  if (!has(key)) return std::nullopt;
  if (!node_[key].IsMap()) fail(key, "expected a mapping");
  return YamlMap(node_[key], file_, key_path(key));
}

std::vector<YamlMap> YamlMap::map_list(const std::string& key) const {
  used_->insert(key);
  reject_blank(key);
  std::vector<YamlMap> out;
  if (!has(key)) return out;
  auto n = node_[key];
  if (!n.IsSequence()) fail(key, "expected a list");
  int i = 0;
  for (const auto& e : n) {
    if (!e.IsMap()) fail(key, "expected a list of mappings");
    out.emplace_back(e, file_, key_path(key) + "[" + std::to_string(i++) + "]");
  }
  return out;
}

std::vector<std::string> YamlMap::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : node_) out.push_back(kv.first.as<std::string>());
  return out;
}

void YamlMap::finish() const {
  for (const auto& kv : node_) {
    const std::string k = kv.first.Scalar();
    if (used_->count(k)) continue;
    // A known key written without a value (`framework:`): the reader asked has() and took it as
    // absent. It had been reported as unknown, suggesting itself (before 2026-12-03).
    if (asked_->count(k) && kv.second.IsNull()) reject_blank(k);
    unknown_key(kv.first);
  }
}

namespace {
// A copy of a parsed --set value without source marks: errors about it then say "(--set)", not
// the position of the value's text inside its own one-line document (which reads as FILE:1:1).
// Aliases are copied out, so a short value can expand without bound (`[&a [1,1,...], &b [*a,*a,...],
// ...]`, 404 bytes, had run past 2.7 GB): the copy is capped at kMaxOverrideNodes nodes.
constexpr size_t kMaxOverrideNodes = 100000;
YAML::Node without_marks(const YAML::Node& n, const std::string& key, size_t& budget) {
  if (budget == 0)
    throw Error(SourceLocation{"--set", 0, 0, key}, "the value expands to more than " + std::to_string(kMaxOverrideNodes) + " YAML nodes",
                "a scenario value is small; look for aliases (*name) that repeat large parts");
  --budget;
  switch (n.Type()) {
    case YAML::NodeType::Scalar: {
      YAML::Node out(n.Scalar());
      out.SetTag(n.Tag());  // a quoted value stays a string
      return out;
    }
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& x : n) out.push_back(without_marks(x, key, budget));
      return out;
    }
    case YAML::NodeType::Map: {
      // A key twice (`--set 'parallel={tp: 2, tp: 8}'`) is refused as in a file; it had kept the
      // last silently (2026-12-03 review).
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& kv : n) {
        if (!kv.first.IsScalar())
          throw Error(SourceLocation{"--set", 0, 0, key}, "keys must be plain strings", "write {key: value, ...} with plain words as keys");
        const std::string k = kv.first.Scalar();
        if (out[k].IsDefined())
          throw Error(SourceLocation{"--set", 0, 0, key.empty() ? k : key + "." + k}, "duplicate key '" + k + "' in the value",
                      "a key may appear once in a mapping; remove one");
        out[k] = without_marks(kv.second, key.empty() ? k : key + "." + k, budget);
      }
      return out;
    }
    default:
      return YAML::Node();
  }
}
}  // namespace

namespace {
// The first place in `root` other than `own` where `target` (a mapping or list) is reached: the
// file gives it once and uses it again through an alias (`prompt: &d {...}` ... `output: *d`).
// Empty where it is reached only at `own`, or when the walk passes `budget` nodes (an alias bomb is
// refused by the readers; this check does not wait on it).
std::string shared_elsewhere(const YAML::Node& node, const YAML::Node& target, const std::string& path, const std::string& own,
                             size_t& budget) {
  if (budget == 0) return {};
  --budget;
  if (node.is(target) && path != own) return path;
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
      const std::string found = shared_elsewhere(kv.second, target, path.empty() ? k : path + "." + k, own, budget);
      if (!found.empty()) return found;
    }
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string found = shared_elsewhere(node[i], target, path + "[" + std::to_string(i) + "]", own, budget);
      if (!found.empty()) return found;
    }
  }
  return {};
}
}  // namespace

void apply_yaml_override(YAML::Node root, const std::string& key, const std::string& value) {
  apply_yaml_override(root, key, value, std::string());
}

// `file` ("" when unknown) names where the errors that depend on the document's content are: a
// malformed override itself (an empty key component, a value that is not YAML) stays "--set".
void apply_yaml_override(YAML::Node root, const std::string& key, const std::string& value, const std::string& file) {
  const std::string in_file = file.empty() ? std::string("--set") : file + " (--set)";
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= key.size(); ++i)
    if (i == key.size() || key[i] == '.') {
      parts.push_back(key.substr(start, i - start));
      start = i + 1;
    }
  // An index may also be written as the error messages name list entries: processes[0] is
  // processes.0 (the form the messages use had been refused as an unknown key, 2026-12-04 review).
  {
    std::vector<std::string> split;
    for (const auto& p : parts) {
      std::string rest = p;
      std::vector<std::string> indices;
      while (!rest.empty() && rest.back() == ']') {
        const size_t open = rest.rfind('[');
        if (open == std::string::npos) break;
        indices.insert(indices.begin(), rest.substr(open + 1, rest.size() - open - 2));
        rest.resize(open);
      }
      if (rest.find_first_of("[]") != std::string::npos || (!indices.empty() && rest.empty()))
        throw Error(SourceLocation{"--set", 0, 0, key}, "'" + p + "' is not a key or a key with list indices",
                    "name a list entry as key[N] or key.N, e.g. failures.processes[0].shape=3");
      split.push_back(rest);
      split.insert(split.end(), indices.begin(), indices.end());
    }
    parts = std::move(split);
  }
  for (const auto& p : parts)
    if (p.empty()) throw Error(SourceLocation{"--set", 0, 0, key}, "empty key component", "write KEY=VALUE with a dotted path, e.g. parallel.tp=4");
  // An entry of a list is named by its index (failures.processes.0.shape=3; it was "'processes'
  // is not a mapping" before 2026-12-03).
  auto index_in = [&](const YAML::Node& seq, const std::string& part) {
    size_t idx = 0;
    const auto r = std::from_chars(part.data(), part.data() + part.size(), idx);
    if (r.ec != std::errc() || r.ptr != part.data() + part.size())
      throw Error(SourceLocation{in_file, 0, 0, key}, "'" + part + "' is not an index: the key before it is a list",
                  "name a list entry by its index, 0 to " + std::to_string(seq.size()) + " - 1 (e.g. failures.processes.0.shape=3)");
    if (idx >= seq.size())
      throw Error(SourceLocation{in_file, 0, 0, key}, "index " + part + " is beyond the list's " + std::to_string(seq.size()) + " entries",
                  "indices run from 0");
    return idx;
  };
  // `KEY=null` (or ~, Null, NULL) removes the key, as if the file had not written it: the reader
  // takes its default. An empty value stays an error (an unset shell variable, `--set
  // parallel.tp=$TP`). Before 2026-12-06 null was refused as "no value given" too, with the hint
  // to leave the --set out, which cannot remove a key the file writes (`--set
  // serving.disaggregation=null` on the disaggregated example; review).
  const auto first = value.find_first_not_of(" \t");
  const std::string trimmed = first == std::string::npos ? std::string() : value.substr(first, value.find_last_not_of(" \t") - first + 1);
  const bool remove = trimmed == "~" || trimmed == "null" || trimmed == "Null" || trimmed == "NULL";
  // A null for a key the file does not write is refused, as a misspelt key is: it had been a
  // silent no-op (`--set serving.disagregation=null` served the disaggregated study as written;
  // review of 2026-12-06). The hint names the keys written there, the nearest first.
  auto not_written = [&](const YAML::Node& map, size_t depth) {
    std::vector<std::string> written;
    if (map.IsMap())
      for (const auto& kv : map) written.push_back(kv.first.as<std::string>());
    std::string at;
    for (size_t j = 0; j < depth; ++j) at += (j ? "." : "") + parts[j];
    throw Error(SourceLocation{in_file, 0, 0, key},
                "KEY=null removes a key the file writes, and it writes no '" + parts[depth] + "'" + (at.empty() ? "" : " under '" + at + "'"),
                written.empty() ? std::string("nothing is written there") : valid_choices_hint(parts[depth], written));
  };
  YAML::Node cur = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const bool in_list = cur.IsSequence();
    const size_t idx = in_list ? index_in(cur, parts[i]) : 0;
    YAML::Node next = in_list ? cur[idx] : cur[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      if (remove) {
        if (next.IsNull() && next.IsDefined()) return;  // `prefix:` written empty: nothing under it to remove
        not_written(cur, i);
      }
      if (in_list) cur[idx] = YAML::Node(YAML::NodeType::Map);
      else cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = in_list ? cur[idx] : cur[parts[i]];
    } else if (!next.IsMap() && !next.IsSequence()) {
      throw Error(SourceLocation{in_file, 0, 0, key}, "'" + parts[i] + "' is not a mapping, cannot set a key inside it",
                  i == 0 && (parts[0] == "model" || parts[0] == "system")
                      ? "'" + parts[0] + "' names a catalog entry here; to change its fields, write the entry inline in the scenario "
                        "(`sextant catalog show NAME` prints them) or give a file of your own"
                  : next.IsScalar() && [&] {
                      // A file name (goodput's training: scenario.yaml), not a number or a choice.
                      const std::string v = next.Scalar();
                      auto ends = [&](const char* x) {
                        const std::string e(x);
                        return v.size() > e.size() && v.compare(v.size() - e.size(), e.size(), e) == 0;
                      };
                      return v.find('/') != std::string::npos || ends(".yaml") || ends(".yml") || ends(".json");
                    }()
                      // A key that names a file (goodput's training: scenario.yaml): its keys are
                      // that file's (the message had said only "not a mapping"; review of 2026-12-05).
                      ? "'" + parts[i] + "' is '" + next.Scalar() + "' here (a name or a file, not a mapping): write its content inline " +
                            "under '" + parts[i] + ":' to set keys inside it, or edit that file"
                      : std::string());
    }
    // A mapping or list the file shares through an alias: a key set or removed inside it would
    // change every place that uses it (`--set workload.output.max=null` with `output: *d` had
    // removed the prompt's max too; review of 2026-12-06). Refused, naming the other place.
    // (A list that holds the key is rebuilt in its parent, below, not written into: its own place only.)
    if (!(next.IsSequence() && i + 2 == parts.size() && !remove)) {
      std::string own;
      YAML::Node walk = root;
      for (size_t j = 0; j <= i; ++j) {
        if (walk.IsSequence()) {
          own += "[" + parts[j] + "]";
          walk.reset(walk[index_in(walk, parts[j])]);
        } else {
          own += (own.empty() ? "" : ".") + parts[j];
          walk.reset(walk[parts[j]]);
        }
      }
      size_t budget = 1'000'000;
      const std::string other = shared_elsewhere(root, next, "", own, budget);
      if (!other.empty())
        throw Error(SourceLocation{in_file, 0, 0, key},
                    "'" + own + "' is the same node as '" + other + "' (an alias, *NAME, of one anchored value): setting or removing a key inside it would change both",
                    "write '" + own + "' out in full in the file, or set the whole value (--set " + own + (next.IsSequence() ? "=[...])" : "={...})"));
    }
    cur.reset(next);
  }
  if (remove) {
    // A list entry is not removed: the entries after it would move to other indices.
    if (cur.IsSequence())
      throw Error(SourceLocation{in_file, 0, 0, key}, "a list entry cannot be removed with null: the entries after it would change their indices",
                  "set the whole list without it (--set " + key.substr(0, key.back() == ']' ? key.rfind('[') : key.rfind('.')) + "=[...])");
    if (cur.IsMap()) {
      if (!cur[parts.back()].IsDefined()) not_written(cur, parts.size() - 1);
      cur.remove(parts.back());
    }
    return;
  }
  YAML::Node v;
  // The checks a file's text gets: no control characters or invalid UTF-8, one document (a
  // '---' in a value had dropped what followed it; 2026-12-04 review).
  // Located as the other errors of a malformed override are, `--set: key 'K'`, with the place in
  // the value (it read "--set K:1:3:", a file and line that do not exist; 2026-12-06 review).
  try {
    reject_bad_bytes(value, "--set");
  } catch (const Error& e) {
    const SourceLocation& at = e.where();
    throw Error(SourceLocation{"--set", 0, 0, key},
                e.message() + " at line " + std::to_string(at.line) + ", column " + std::to_string(at.column) + " of the value", e.hint());
  }
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(value);
    if (docs.size() > 1)
      throw Error(SourceLocation{"--set", 0, 0, key}, "the value holds " + std::to_string(docs.size()) + " YAML documents",
                  "give one value; quote it if '---' is part of a string");
    v = docs.empty() ? YAML::Node() : docs.front();
  } catch (const YAML::Exception& e) {
    // A flow mapping or list that does not parse is a mistake, not a string ('{a: 1' had become
    // the text "{a: 1"); other text that is not YAML is taken as written.
    if (!trimmed.empty() && (trimmed[0] == '{' || trimmed[0] == '['))
      throw Error(SourceLocation{"--set", 0, 0, key}, "the value '" + value + "' is not valid YAML: " + e.msg,
                  "close the mapping or list, or quote the whole value for a string");
    v = YAML::Node(value);
  }
  // Text that YAML reads as nothing but is not a null (a directive '%x', a lone tag '!x' or
  // anchor '&x') is the text itself: it had been refused as "no value given".
  if ((!v.IsDefined() || v.IsNull()) && !trimmed.empty() && trimmed != "~" && trimmed != "null" && trimmed != "Null" && trimmed != "NULL")
    v = YAML::Node(value);
  // An empty value would silently put the key back to its default (a shell variable that was never
  // set, `--set parallel.tp=$TP`): say so instead. (null removes the key: above.)
  if (!v.IsDefined() || v.IsNull())
    throw Error(SourceLocation{"--set", 0, 0, key}, "no value given for '" + key + "'",
                "write KEY=VALUE; for the default, leave the --set out, or write KEY=null to remove a key the file writes");
  // The new value replaces the key's node, never writes into it: a value given once and used
  // again through an alias (`tp: &t 2` ... `pp: *t`) shares its node, and assigning into it had
  // changed every alias (`--set parallel.tp=4` gave tp4 pp4; 2026-12-03 review).
  size_t budget = kMaxOverrideNodes;
  const YAML::Node fresh = without_marks(v, key, budget);
  if (cur.IsSequence()) {
    const size_t idx = index_in(cur, parts.back());
    YAML::Node rebuilt(YAML::NodeType::Sequence);
    for (size_t i = 0; i < cur.size(); ++i) rebuilt.push_back(i == idx ? fresh : cur[i]);
    // The list itself is replaced in its parent (a sequence has no remove by index).
    YAML::Node parent = root;
    for (size_t i = 0; i + 2 < parts.size(); ++i) {
      YAML::Node next = parent.IsSequence() ? parent[index_in(parent, parts[i])] : parent[parts[i]];
      parent.reset(next);
    }
    const std::string& list_key = parts[parts.size() - 2];
    if (parent.IsSequence()) {
      parent[index_in(parent, list_key)] = rebuilt;
    } else {
      parent.remove(list_key);
      parent[list_key] = rebuilt;
    }
  } else {
    cur.remove(parts.back());
    cur[parts.back()] = fresh;
  }
}

bool is_blank(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

void check_citation_word(const YamlMap& m, const std::string& key, const std::string& source,
                         const std::map<std::string, std::string>& sources) {
  if (sources.empty() || source.empty()) return;
  // A citation id whose text under sources: is blank cites nothing (`me: ""` had loaded, resolved
  // to the provenance "me: "; review, 2026-12-07). Every reader of a file with citations comes
  // here, whether or not it checked its sources: block itself.
  auto blank_citation = [&](const std::string& id) {
    const auto it = sources.find(id);
    if (it == sources.end() || !is_blank(it->second)) return;
    m.fail(key, "source '" + source + "' names the citation '" + id + "', whose text under sources: is empty",
           "write the citation under sources: (document, edition or year, table or section)");
  };
  blank_citation(source);
  if (sources.count(source)) return;
  auto one_word = [](const std::string& w) {
    return !w.empty() && std::none_of(w.begin(), w.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  };
  // "ID: arithmetic" has a space after its colon; "arXiv:2407.21783" or "doi:10.1145/..." is a
  // reference written as free text (it had been refused as a misspelt id; 2026-12-06 review).
  const size_t colon = source.find(':');
  const bool url = source.find("://") != std::string::npos;
  const bool id_colon = colon != std::string::npos && (colon + 1 == source.size() || source[colon + 1] == ' ');
  std::string word;
  if (colon == std::string::npos && one_word(source)) word = source;
  else if (id_colon && !url && one_word(source.substr(0, colon))) word = source.substr(0, colon);
  if (url || word.empty()) return;
  blank_citation(word);
  if (sources.count(word)) return;
  std::vector<std::string> ids;
  for (const auto& [k, _] : sources) ids.push_back(k);
  m.fail(key, "source '" + source + "' names '" + word + "', which is not one of this file's citations", valid_choices_hint(word, ids));
}

void reject_null_values(const YAML::Node& root, const std::string& file, const std::string& path) {
  // An explicit stack: a deeply nested document must not recurse the C stack.
  std::vector<std::pair<YAML::Node, std::string>> todo = {{root, path}};
  while (!todo.empty()) {
    auto [n, at] = todo.back();
    todo.pop_back();
    if (n.IsMap()) {
      for (const auto& kv : n) {
        const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
        const std::string full = at.empty() ? k : at + "." + k;
        if (kv.second.IsNull()) {
          const YAML::Mark m = kv.first.Mark();
          throw Error(m.line < 0 ? SourceLocation{file + " (--set)", 0, 0, full} : SourceLocation{file, m.line + 1, m.column + 1, full},
                      "no value given", "write a value, or leave the key out for its default");
        }
        todo.emplace_back(kv.second, full);
      }
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) todo.emplace_back(n[i], at + "[" + std::to_string(i) + "]");
    }
  }
}

}  // namespace sextant
