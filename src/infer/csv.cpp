#include <cerrno>
#include <cmath>
#include "infer/csv.hpp"

#include <cstdlib>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sextant::infer {

int CsvTable::column(const std::string& name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

int CsvTable::require(const std::string& name) const {
  int c = column(name);
  if (c < 0) {
    // The header's columns are what the file has, not what is valid: say so, and suggest a near miss.
    std::string has;
    for (const auto& h : header) has += (has.empty() ? "" : ", ") + h;
    const std::string near = closest_match(name, header);
    throw Error(SourceLocation{file, 1, 0, name}, "missing column '" + name + "'",
                "the file's columns: " + has + (near.empty() ? "" : "; is '" + near + "' meant to be '" + name + "'?"));
  }
  return c;
}

CsvTable parse_csv(const std::string& text, const std::string& file) {
  CsvTable t;
  t.file = file;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  int line = 1, row_line = 1;
  auto end_row = [&] {
    row.push_back(field);
    field.clear();
    const bool blank = row.size() == 1 && row[0].empty();
    if (!blank) {
      if (t.header.empty()) {
        t.header = row;
      } else {
        if (row.size() != t.header.size())
          throw Error(SourceLocation{file, row_line, 0, ""}, "row has " + std::to_string(row.size()) + " fields, header has " +
                      std::to_string(t.header.size()));
        t.rows.push_back(row);
        t.lines.push_back(row_line);
      }
    }
    row.clear();
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!any) { row_line = line; any = true; }
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') { field += '"'; ++i; }
        else quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == ',') row.push_back(std::move(field)), field.clear();
    else if (c == '\r') continue;
    else if (c == '\n') { end_row(); ++line; }
    else field += c;
  }
  if (quoted) throw Error(SourceLocation{file, row_line, 0, ""}, "unterminated quoted field");
  if (any || !field.empty() || !row.empty()) end_row();
  if (t.header.empty()) throw Error(SourceLocation{file, 1, 0, ""}, "empty CSV file (no header)");
  return t;
}

CsvTable read_csv(const std::string& path) { return parse_csv(read_file(path), path); }

double cell_f64(const CsvTable& t, size_t row, int col) {
  const std::string& s = t.rows[row][col];
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0')
    throw Error(SourceLocation{t.file, t.lines[row], col + 1, t.header[col]}, "expected a number, got '" + s + "'");
  if (!std::isfinite(v) || errno == ERANGE)
    throw Error(SourceLocation{t.file, t.lines[row], col + 1, t.header[col]}, "expected a finite number, got '" + s + "'");
  return v;
}

int64_t cell_i64(const CsvTable& t, size_t row, int col) {
  const std::string& s = t.rows[row][col];
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0')
    throw Error(SourceLocation{t.file, t.lines[row], col + 1, t.header[col]}, "expected an integer, got '" + s + "'");
  if (errno == ERANGE)
    throw Error(SourceLocation{t.file, t.lines[row], col + 1, t.header[col]}, "integer out of range: '" + s + "'");
  return v;
}

}  // namespace sextant::infer
