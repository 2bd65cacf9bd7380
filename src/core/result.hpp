#pragma once
// The one result schema of Sextant. Every command returns a Result: ordered scalars and named
// tables of typed columns. Units are part of every numeric name (`step_time_s`, `memory_bytes`,
// `achieved_tflops`); dimensionless quantities say so (`mfu_fraction`, `count`).
//
// The same Result is rendered as a readable table (CLI default), JSON (`--json`), one CSV per
// table (`--csv DIR`), a Python dict (module `sextant`), HTML reports and results-database rows.
// Bump kSchemaVersion when the layout of the JSON changes (not when a command adds a column).
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/column_values.hpp"

namespace sextant {

inline constexpr int kSchemaVersion = 1;

using Value = std::variant<double, int64_t, std::string, bool>;

// One typed column. Integers (and doubles while they are exact integers) are stored packed at the
// narrowest width that holds them, strings as ids into a dictionary of the distinct values
// (core/column_values.hpp); they read like std::vector<double> / <int64_t> / <std::string>.
struct Column {
  enum class Type { F64, I64, Str };
  std::string name;
  Type type = Type::F64;
  DoubleVector f64;
  IntVector i64;
  StringVector str;

  size_t size() const;
  std::string cell_text(size_t row) const;  // shortest round-trip text (CSV/table)
};

class Table {
 public:
  Table() = default;
  Table(std::string name, std::string description = {})
      : name_(std::move(name)), description_(std::move(description)) {}

  // Declare columns before adding rows. Returns the column index.
  size_t add_f64(const std::string& name);
  size_t add_i64(const std::string& name);
  size_t add_str(const std::string& name);

  // Append one row: values in column order, types must match the columns.
  void add_row(const std::vector<Value>& values);
  // Capacity for rows in every declared column (a hint, like std::vector::reserve: a table with
  // many rows then grows without copying each column at every doubling).
  void reserve(size_t rows);

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::vector<Column>& columns() const { return columns_; }
  std::vector<Column>& columns() { return columns_; }
  size_t rows() const { return columns_.empty() ? 0 : columns_.front().size(); }
  const Column& column(const std::string& name) const;  // throws Error when absent
  bool has_column(const std::string& name) const;

 private:
  std::string name_;
  std::string description_;
  std::vector<Column> columns_;
};

struct Result {
  std::string command;
  std::vector<std::pair<std::string, Value>> scalars;  // in insertion order
  std::deque<Table> tables;  // deque: references returned by add_table stay valid
  std::vector<std::string> notes;  // human-readable remarks shown under the tables

  void set(const std::string& name, Value v);  // replaces an existing scalar of that name
  const Value* scalar(const std::string& name) const;
  double number(const std::string& name) const;  // throws Error when absent or not numeric
  Table& add_table(std::string name, std::string description = {});
  const Table* table(const std::string& name) const;
  Table* table(const std::string& name);
};

// Rendering. All renderings are deterministic: same Result, same bytes.
nlohmann::ordered_json to_json(const Result& r);
Result result_from_json(const nlohmann::ordered_json& j);  // inverse of to_json
std::string render_text(const Result& r);
std::string render_csv(const Table& t);
// Writes one CSV per table into dir (created if missing), all files or none (AtomicFileSet).
void write_csv_dir(const Result& r, const std::string& dir);
class AtomicFileSet;
// Stages the same files into set (committed by the caller with its other outputs).
void stage_csv_dir(const Result& r, const std::string& dir, AtomicFileSet& set);

// Number formatting shared by all renderers: shortest text that round-trips.
std::string format_double(double v);

}  // namespace sextant
