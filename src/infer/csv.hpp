#pragma once
// A small RFC-4180 CSV reader (quoted fields, doubled quotes, CRLF) for validation sets and
// request traces. Throws Error naming file and line on an unterminated quote or a row whose
// field count differs from the header's.
#include <map>
#include <string>
#include <vector>

namespace sextant::infer {

struct CsvTable {
  std::string file;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;  // 1-based line of each row
  int column(const std::string& name) const;  // -1 when absent
  // Index of a required column; throws Error listing the header.
  int require(const std::string& name) const;
};

CsvTable parse_csv(const std::string& text, const std::string& file);
CsvTable read_csv(const std::string& path);

// One cell by the number rules of core/csv.hpp (decimal, finite; integers as integer text);
// throws Error with file, line, column number and column name.
double cell_f64(const CsvTable& t, size_t row, int col);
int64_t cell_i64(const CsvTable& t, size_t row, int col);

}  // namespace sextant::infer
