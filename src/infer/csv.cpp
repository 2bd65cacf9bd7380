#include "infer/csv.hpp"

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

// The number rules of core/csv.hpp, as for the training CSV (review of 2026-12-06: strtod here had
// read 0x6C as 108 tok/s, 0x1p+2 as 4 B parameters and a request's arrival 0x10 as 16 s).
double cell_f64(const CsvTable& t, size_t row, int col) {
  return csv_decimal(t.rows[row][col], SourceLocation{t.file, t.lines[row], col + 1, t.header[col]});
}

int64_t cell_i64(const CsvTable& t, size_t row, int col) {
  return csv_integer(t.rows[row][col], SourceLocation{t.file, t.lines[row], col + 1, t.header[col]});
}

}  // namespace sextant::infer
