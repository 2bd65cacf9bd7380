#pragma once
// CSV reading (RFC 4180: quoted fields, doubled quotes, CRLF). Columns are addressed by name;
// errors name the file, line and column.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sextant {

// The cell rules of every CSV Sextant reads (training and inference validation, request traces,
// incident logs), each throwing Error at `where` (review of 2026-12-06: the readers had a rule each,
// and the inference, request-trace and incident readers took 0x1000 as 4096 and 0x1p+2 as 4):
//  - a number is decimal (digits, sign, point, exponent), finite, blanks around it allowed:
//    hexadecimal, inf, nan and text are refused;
//  - an integer is written as one (optional sign, digits; blanks around): 24.0 and 2.4e1 are
//    refused, as every other reader of integers refuses them, and beyond int64 is out of range;
//  - a boolean is true or false in any letter case (pandas and spreadsheets write True, FALSE).
double csv_decimal(const std::string& text, const SourceLocation& where);
int64_t csv_integer(const std::string& text, const SourceLocation& where);
bool csv_boolean(const std::string& text, const SourceLocation& where);
// The text without the blanks (spaces, tabs) around it.
std::string csv_trimmed(const std::string& text);

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
  int header_line() const { return header_line_; }     // 1-based line of the header row
  const std::string& file() const { return file_; }

  // Typed access by the rules above; empty cells give the default, malformed ones throw Error
  // naming file, line, column number and column name.
  double f64(size_t row, const std::string& name) const;
  double f64(size_t row, const std::string& name, double dflt) const;
  int64_t i64(size_t row, const std::string& name) const;
  int64_t i64(size_t row, const std::string& name, int64_t dflt) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
  int header_line_ = 1;
  SourceLocation where(size_t row, const std::string& name) const;
};

}  // namespace sextant
