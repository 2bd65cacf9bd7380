#include <cerrno>
#include <cmath>
#include "infer/csv.hpp"

#include <cstdlib>

#include "core/atomic_file.hpp"
#include "core/csv.hpp"
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

// One tokenizer for every CSV Sextant reads (core/csv.hpp: quoted fields, CRLF or CR endings, a
// UTF-8 byte-order mark, rows of empty fields skipped, a column named twice refused); this table
// is its column-index view. Before 2026-12-02 this file had a tokenizer of its own, without those.
CsvTable parse_csv(const std::string& text, const std::string& file) {
  const sextant::CsvTable c = sextant::CsvTable::parse(text, file);
  CsvTable t;
  t.file = file;
  t.header = c.header();
  t.rows.reserve(c.rows());
  t.lines.reserve(c.rows());
  for (size_t r = 0; r < c.rows(); ++r) {
    std::vector<std::string> row;
    row.reserve(t.header.size());
    for (size_t k = 0; k < t.header.size(); ++k) row.push_back(c.at(r, k));
    t.rows.push_back(std::move(row));
    t.lines.push_back(c.line_of(r));
  }
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
