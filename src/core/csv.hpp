#pragma once
// CSV reading (RFC 4180: quoted fields, doubled quotes, CRLF). Columns are addressed by name;
// errors name the file, line and column.
#include <string>
#include <vector>

namespace sextant {

class CsvTable {
 public:
  static CsvTable read_file(const std::string& path);
  static CsvTable parse(const std::string& text, const std::string& name);

  const std::vector<std::string>& header() const { return header_; }
  size_t rows() const { return rows_.size(); }
  bool has(const std::string& col) const;
  size_t col(const std::string& name) const;  // throws Error listing the columns
  const std::string& at(size_t row, size_t col) const { return rows_[row][col]; }
  const std::string& at(size_t row, const std::string& name) const { return rows_[row][col(name)]; }
  int line_of(size_t row) const { return lines_[row]; }  // 1-based line in the file
  const std::string& file() const { return file_; }

  // Typed access; empty cells give the default, malformed ones throw Error (file:line, column).
  double f64(size_t row, const std::string& name) const;
  double f64(size_t row, const std::string& name, double dflt) const;
  int64_t i64(size_t row, const std::string& name) const;
  int64_t i64(size_t row, const std::string& name, int64_t dflt) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

}  // namespace sextant
