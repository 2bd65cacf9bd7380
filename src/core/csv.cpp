#include "core/csv.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sextant {

CsvTable CsvTable::read_file(const std::string& path) { return parse(read_file_text(path), path); }

CsvTable CsvTable::parse(const std::string& text, const std::string& name) {
  CsvTable t;
  t.file_ = name;
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, field_started = false, had_quote = false;
  int line = 1, record_line = 1;
  auto end_record = [&] {
    fields.push_back(cur);
    cur.clear();
    // A blank line, or a row of empty fields only (",,,,": what spreadsheets export below the data),
    // whitespace included (a last line of two spaces had stopped the run as "1 fields").
    bool blank = true;
    for (const auto& f : fields) blank = blank && f.find_first_not_of(" \t") == std::string::npos;
    if (!blank) {
      if (t.header_.empty()) {
        // Column names without the spaces around them ("id, source, model" is a common export):
        // with them, no column matched and the file "matched no known schema".
        for (auto& f : fields) {
          const size_t b = f.find_first_not_of(" \t"), e = f.find_last_not_of(" \t");
          f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
        }
        t.header_ = fields;
        t.header_line_ = record_line;
        // A column named twice: which one a reader takes is arbitrary (the first was, silently).
        for (size_t a = 0; a < fields.size(); ++a)
          for (size_t b = a + 1; b < fields.size(); ++b)
            if (!fields[a].empty() && fields[a] == fields[b])
              throw Error(SourceLocation{name, record_line, static_cast<int>(b + 1), fields[b]},
                          "column '" + fields[b] + "' is named twice in the header (columns " + std::to_string(a + 1) + " and " +
                              std::to_string(b + 1) + ")",
                          "remove or rename one");
      } else {
        if (fields.size() != t.header_.size())
          throw Error(SourceLocation{name, record_line}, "row has " + std::to_string(fields.size()) + " fields, the header has " +
                                                            std::to_string(t.header_.size()));
        t.rows_.push_back(fields);
        t.lines_.push_back(record_line);
      }
    }
    fields.clear();
    field_started = false;
    had_quote = false;
    record_line = line;
  };
  // A UTF-8 byte-order mark (spreadsheets on Windows write one) is not part of the first column's
  // name: it made the `id` column unknown and the file "match no known schema".
  const size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  for (size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        // A line break inside a quoted field counts as outside one: LF, CRLF and a lone CR each
        // one line (review of 2026-12-06: only LF was counted, and in a CR-only file every line
        // after a multi-line field was misreported).
        if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) ++line;
        cur += c;
      }
      continue;
    }
    // A quote opens a field after blanks too (`1.5, "xid79"`: hand-written CSVs put a space after
    // the comma, and the cell had kept its quotes, splitting one category in two; review of
    // 2026-12-06): the blanks before it are dropped, as blanks around a cell are.
    if (c == '"' && (!field_started || (!had_quote && cur.find_first_not_of(" \t") == std::string::npos))) {
      quoted = true;
      field_started = true;
      had_quote = true;
      cur.clear();
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
      field_started = false;
      had_quote = false;
    } else if (c == '\r') {
      // CRLF: the \n ends the record; a lone CR (classic Mac line endings) ends it itself.
      if (i + 1 >= text.size() || text[i + 1] != '\n') {
        ++line;
        end_record();
      }
    } else if (c == '\n') {
      ++line;
      end_record();
    } else {
      cur += c;
      field_started = true;
    }
  }
  if (quoted) throw Error(SourceLocation{name, record_line}, "unterminated quoted field");
  if (!cur.empty() || !fields.empty()) end_record();
  if (t.header_.empty()) throw Error(SourceLocation{name}, "file is empty (no header row)");
  return t;
}

bool CsvTable::has(const std::string& c) const {
  for (const auto& h : header_)
    if (h == c) return true;
  return false;
}

size_t CsvTable::col(const std::string& name) const {
  for (size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return i;
  throw Error(SourceLocation{file_, 1, 0, name}, "missing column", valid_choices_hint(name, header_));
}

std::string csv_trimmed(const std::string& text) {
  const size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
}

double csv_decimal(const std::string& text, const SourceLocation& where) {
  // std::stod alone also reads hexadecimal ("0x20" as 32, "0x1p+2" as 4) and "inf"/"nan" words.
  const std::string v_text = csv_trimmed(text);
  if (!v_text.empty() && v_text.find_first_not_of("0123456789+-.eE") == std::string::npos) try {
      size_t pos = 0;
      const double v = std::stod(v_text, &pos);
      if (pos == v_text.size() && std::isfinite(v)) return v;
    } catch (const std::logic_error&) {
    }
  throw Error(where, "expected a finite decimal number, got '" + text + "'");
}

int64_t csv_integer(const std::string& text, const SourceLocation& where) {
  // Integer text only (review of 2026-12-06): the training CSV had read integers through the
  // number rule, so 24.0 and 2.4e1 were 24 layers where every other reader refused them.
  const std::string v_text = csv_trimmed(text);
  const size_t digits = v_text.empty() || (v_text[0] != '+' && v_text[0] != '-') ? 0 : 1;
  if (v_text.size() <= digits || v_text.find_first_not_of("0123456789", digits) != std::string::npos)
    throw Error(where, "expected an integer in decimal digits, got '" + text + "'");
  errno = 0;
  const long long v = std::strtoll(v_text.c_str(), nullptr, 10);
  if (errno == ERANGE) throw Error(where, "integer out of range: '" + text + "'");
  return static_cast<int64_t>(v);
}

bool csv_boolean(const std::string& text, const SourceLocation& where) {
  std::string v = csv_trimmed(text);
  for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (v == "true") return true;
  if (v == "false") return false;
  throw Error(where, "expected true or false (any letter case), got '" + text + "'");
}

SourceLocation CsvTable::where(size_t row, const std::string& name) const {
  return SourceLocation{file_, line_of(row), static_cast<int>(col(name)) + 1, name};
}

double CsvTable::f64(size_t row, const std::string& name) const {
  const auto& s = at(row, name);
  if (s.empty()) throw Error(where(row, name), "value is missing", "this column is required in every row");
  return csv_decimal(s, where(row, name));
}
double CsvTable::f64(size_t row, const std::string& name, double dflt) const {
  const auto& s = at(row, name);
  return s.empty() ? dflt : csv_decimal(s, where(row, name));
}
int64_t CsvTable::i64(size_t row, const std::string& name) const {
  const auto& s = at(row, name);
  if (s.empty()) throw Error(where(row, name), "value is missing", "this column is required in every row");
  const int64_t v = csv_integer(s, where(row, name));
  // Beyond 2^53 no column of these tables holds a count, and the figures it feeds (doubles) no
  // longer hold every integer.
  if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53)) throw Error(where(row, name), "integer out of range: '" + s + "'");
  return v;
}
int64_t CsvTable::i64(size_t row, const std::string& name, int64_t dflt) const {
  return at(row, name).empty() ? dflt : i64(row, name);
}

}  // namespace sextant
