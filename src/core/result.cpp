#include "core/result.hpp"
#include "core/result_json.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sextant {

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

size_t Column::size() const {
  switch (type) {
    case Type::F64: return f64.size();
    case Type::I64: return i64.size();
    case Type::Str: return str.size();
  }
  return 0;
}

std::string Column::cell_text(size_t row) const {
  switch (type) {
    case Type::F64: return format_double(f64[row]);
    case Type::I64: return std::to_string(i64[row]);
    case Type::Str: return str[row];
  }
  return {};
}

static size_t add_col(std::vector<Column>& cols, const std::string& name, Column::Type t) {
  for (const auto& c : cols)
    if (c.name == name) throw Error("duplicate column '" + name + "'");
  Column c;
  c.name = name;
  c.type = t;
  cols.push_back(std::move(c));
  return cols.size() - 1;
}

size_t Table::add_f64(const std::string& name) { return add_col(columns_, name, Column::Type::F64); }
size_t Table::add_i64(const std::string& name) { return add_col(columns_, name, Column::Type::I64); }
size_t Table::add_str(const std::string& name) { return add_col(columns_, name, Column::Type::Str); }

void Table::reserve(size_t rows) {
  for (auto& c : columns_) {
    switch (c.type) {
      case Column::Type::F64: c.f64.reserve(rows); break;
      case Column::Type::I64: c.i64.reserve(rows); break;
      case Column::Type::Str: c.str.reserve(rows); break;
    }
  }
}

void Table::add_row(const std::vector<Value>& values) {
  if (values.size() != columns_.size())
    throw Error("table '" + name_ + "': row has " + std::to_string(values.size()) + " values, expected " +
                std::to_string(columns_.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    auto& c = columns_[i];
    const auto& v = values[i];
    switch (c.type) {
      case Column::Type::F64:
        if (auto d = std::get_if<double>(&v)) c.f64.push_back(*d);
        else if (auto n = std::get_if<int64_t>(&v)) c.f64.push_back(static_cast<double>(*n));
        else throw Error("table '" + name_ + "' column '" + c.name + "': expected a number");
        break;
      case Column::Type::I64:
        if (auto n = std::get_if<int64_t>(&v)) c.i64.push_back(*n);
        else if (auto b = std::get_if<bool>(&v)) c.i64.push_back(*b ? 1 : 0);
        else throw Error("table '" + name_ + "' column '" + c.name + "': expected an integer");
        break;
      case Column::Type::Str:
        if (auto s = std::get_if<std::string>(&v)) c.str.push_back(*s);
        else throw Error("table '" + name_ + "' column '" + c.name + "': expected a string");
        break;
    }
  }
}

const Column& Table::column(const std::string& name) const {
  for (const auto& c : columns_)
    if (c.name == name) return c;
  std::vector<std::string> names;
  for (const auto& c : columns_) names.push_back(c.name);
  throw Error(SourceLocation{"", 0, 0, name}, "table '" + name_ + "' has no such column",
              valid_choices_hint(name, names));
}

bool Table::has_column(const std::string& name) const {
  return std::any_of(columns_.begin(), columns_.end(), [&](const Column& c) { return c.name == name; });
}

void Result::set(const std::string& name, Value v) {
  for (auto& [k, old] : scalars)
    if (k == name) {
      old = std::move(v);
      return;
    }
  scalars.emplace_back(name, std::move(v));
}

const Value* Result::scalar(const std::string& name) const {
  for (const auto& [k, v] : scalars)
    if (k == name) return &v;
  return nullptr;
}

double Result::number(const std::string& name) const {
  const Value* v = scalar(name);
  if (!v) {
    std::vector<std::string> names;
    for (const auto& [k, _] : scalars) names.push_back(k);
    throw Error(SourceLocation{"", 0, 0, "scalars." + name}, "result has no such scalar", valid_choices_hint(name, names));
  }
  if (auto d = std::get_if<double>(v)) return *d;
  if (auto n = std::get_if<int64_t>(v)) return static_cast<double>(*n);
  if (auto b = std::get_if<bool>(v)) return *b ? 1.0 : 0.0;
  // Named by its path in the document, as the schema checks name theirs (review of 2026-12-07:
  // "key 'step_time_s'" where they say "key 'scalars.x'").
  throw Error(SourceLocation{"", 0, 0, "scalars." + name}, "is not a number", "a number (this result's reader needs it as one)");
}

Table& Result::add_table(std::string name, std::string description) {
  for (const auto& t : tables)
    if (t.name() == name) throw Error("duplicate table '" + name + "'");
  tables.emplace_back(std::move(name), std::move(description));
  return tables.back();
}

const Table* Result::table(const std::string& name) const {
  for (const auto& t : tables)
    if (t.name() == name) return &t;
  return nullptr;
}
Table* Result::table(const std::string& name) {
  for (auto& t : tables)
    if (t.name() == name) return &t;
  return nullptr;
}

// ---- JSON ----
static nlohmann::ordered_json json_number(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;  // JSON has no NaN/Inf; null means "not a number"
}

static nlohmann::ordered_json value_json(const Value& v) {
  if (auto d = std::get_if<double>(&v)) return json_number(*d);
  if (auto n = std::get_if<int64_t>(&v)) return *n;
  if (auto b = std::get_if<bool>(&v)) return *b;
  return std::get<std::string>(v);
}

// A column's values as a JSON array (the tree writer and the streaming writer share it).
static nlohmann::ordered_json column_json(const Column& c) {
  auto arr = nlohmann::ordered_json::array();
  switch (c.type) {
    case Column::Type::F64:
      for (double v : c.f64) arr.push_back(json_number(v));
      break;
    case Column::Type::I64:
      for (auto v : c.i64) arr.push_back(v);
      break;
    case Column::Type::Str:
      for (const auto& v : c.str) arr.push_back(v);
      break;
  }
  return arr;
}

static const char* type_name(Column::Type t) {
  switch (t) {
    case Column::Type::F64: return "f64";
    case Column::Type::I64: return "i64";
    case Column::Type::Str: return "str";
  }
  return "?";
}

nlohmann::ordered_json to_json(const Result& r) {
  nlohmann::ordered_json j;
  j["schema_version"] = kSchemaVersion;
  j["command"] = r.command;
  // Build children before inserting them: references into an ordered_json are invalidated by
  // later insertions into the same object.
  nlohmann::ordered_json sc = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.scalars) sc[k] = value_json(v);
  j["scalars"] = std::move(sc);
  nlohmann::ordered_json tabs = nlohmann::ordered_json::object();
  for (const auto& t : r.tables) {
    nlohmann::ordered_json tj;
    tj["description"] = t.description();
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    nlohmann::ordered_json cols = nlohmann::ordered_json::object();
    for (const auto& c : t.columns()) {
      types[c.name] = type_name(c.type);
      cols[c.name] = column_json(c);
    }
    tj["types"] = std::move(types);
    tj["columns"] = std::move(cols);
    tabs[t.name()] = std::move(tj);
  }
  j["tables"] = std::move(tabs);
  j["notes"] = r.notes;
  return j;
}

namespace {
// Pretty-printed text of j as it appears nested `indent` spaces deep in a document dumped with an
// indent step of 2. JSON text has no raw newline inside a string, so re-indenting every line is exact.
void append_nested(std::string& out, const nlohmann::ordered_json& j, size_t indent) {
  const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string pad(indent, ' ');
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1) {
    out.append(text, from, nl + 1 - from);
    out += pad;
  }
  out.append(text, from, std::string::npos);
}
void append_key(std::string& out, const std::string& key, size_t indent) {
  out.append(indent, ' ');
  out += nlohmann::ordered_json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += ": ";
}
}  // namespace

std::string render_json(const Result& r) {
  std::string out = "{\n";
  append_key(out, "schema_version", 2);
  out += std::to_string(kSchemaVersion) + ",\n";
  append_key(out, "command", 2);
  append_nested(out, nlohmann::ordered_json(r.command), 2);
  out += ",\n";
  nlohmann::ordered_json sc = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.scalars) sc[k] = value_json(v);
  append_key(out, "scalars", 2);
  append_nested(out, sc, 2);
  out += ",\n";
  append_key(out, "tables", 2);
  if (r.tables.empty()) {
    out += "{}";
  } else {
    out += "{\n";
    for (size_t ti = 0; ti < r.tables.size(); ++ti) {
      const Table& t = r.tables[ti];
      append_key(out, t.name(), 4);
      out += "{\n";
      append_key(out, "description", 6);
      append_nested(out, nlohmann::ordered_json(t.description()), 6);
      out += ",\n";
      nlohmann::ordered_json types = nlohmann::ordered_json::object();
      for (const auto& c : t.columns()) types[c.name] = type_name(c.type);
      append_key(out, "types", 6);
      append_nested(out, types, 6);
      out += ",\n";
      append_key(out, "columns", 6);
      // A repeated column name keeps its first place and its last array, as in an ordered_json object.
      std::vector<size_t> keep;
      for (size_t ci = 0; ci < t.columns().size(); ++ci) {
        const std::string& n = t.columns()[ci].name;
        bool earlier = false;
        for (size_t cj = 0; cj < ci; ++cj) earlier |= t.columns()[cj].name == n;
        if (earlier) continue;
        size_t last = ci;
        for (size_t cj = ci + 1; cj < t.columns().size(); ++cj)
          if (t.columns()[cj].name == n) last = cj;
        keep.push_back(last);
      }
      if (keep.empty()) {
        out += "{}";
      } else {
        out += "{\n";
        for (size_t k = 0; k < keep.size(); ++k) {
          const Column& c = t.columns()[keep[k]];
          const nlohmann::ordered_json arr = column_json(c);
          append_key(out, c.name, 8);
          append_nested(out, arr, 8);
          out += k + 1 < keep.size() ? ",\n" : "\n";
        }
        out += "      }";
      }
      out += "\n    }";
      out += ti + 1 < r.tables.size() ? ",\n" : "\n";
    }
    out += "  }";
  }
  out += ",\n";
  append_key(out, "notes", 2);
  append_nested(out, nlohmann::ordered_json(r.notes), 2);
  out += "\n}\n";
  return out;
}

Result result_from_json(const nlohmann::ordered_json& j) {
  // Strict: a saved result edited by hand or by another tool is checked, never trusted (a text
  // cell in a number column, or columns of different lengths, are errors naming the place).
  auto bad = [](const std::string& where, const std::string& what) -> Error {
    return Error(SourceLocation{"", 0, 0, where}, "malformed result JSON: " + what);
  };
  if (!j.is_object()) throw bad("", "the document is not an object of a Sextant result");
  // The document's shape before its version: a Kineto trace or any other JSON object without one
  // of the keys a result is known by had read "result JSON has schema_version (none), this build
  // reads 1", as if it were a result of another version (review of 2026-12-06).
  if (!j.contains("schema_version") && !j.contains("command") && !j.contains("tables")) {
    std::string keys;
    size_t listed = 0;
    for (const auto& [k, v] : j.items()) {
      (void)v;
      if (listed == 5) {
        keys += ", ...";
        break;
      }
      keys += (listed++ ? ", " : "") + k;
    }
    throw Error(SourceLocation{}, "not a Sextant result: the document has none of the keys schema_version, command and tables " +
                                      (keys.empty() ? std::string("(it is an empty object)") : "(its keys: " + keys + ")"),
                "give the JSON file a command wrote with --json");
  }
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer() || j["schema_version"].get<int64_t>() != kSchemaVersion)
    throw Error("result JSON has schema_version " +
                (j.contains("schema_version") ? j["schema_version"].dump() : std::string("(none)")) +
                ", this build reads " + std::to_string(kSchemaVersion));
  // Keys the schema does not have are errors (a misspelt "tabels" read as a result without tables).
  auto only_keys = [&](const nlohmann::ordered_json& o, const std::string& where, std::initializer_list<const char*> keys) {
    for (const auto& [k, v] : o.items()) {
      (void)v;
      bool known = false;
      std::string valid;
      for (const char* x : keys) {
        known = known || k == x;
        valid += (valid.empty() ? "" : ", ") + std::string(x);
      }
      if (!known) throw bad(where.empty() ? k : where + "." + k, "unknown key (valid: " + valid + ")");
    }
  };
  // Integers beyond int64 (read by nlohmann as unsigned) are refused, not wrapped to negatives.
  auto i64_of = [&](const nlohmann::ordered_json& v, const std::string& where) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      throw bad(where, "the integer " + v.dump() + " is beyond the signed 64-bit range");
    return v.get<int64_t>();
  };
  only_keys(j, "", {"schema_version", "command", "scalars", "tables", "notes"});
  Result r;
  try {
    // Every text field checked with its key (a number there had been a library type error naming none).
    auto text_of = [&](const nlohmann::ordered_json& obj, const char* key, const std::string& where) -> std::string {
      if (!obj.contains(key)) return "";
      if (!obj[key].is_string()) throw bad(where, "must be text, got " + obj[key].dump());
      return obj[key].get<std::string>();
    };
    r.command = text_of(j, "command", "command");
    if (j.contains("scalars")) {
      if (!j["scalars"].is_object()) throw bad("scalars", "not an object");
      for (const auto& [k, v] : j["scalars"].items()) {
        if (v.is_boolean()) r.set(k, v.get<bool>());
        else if (v.is_number_integer()) r.set(k, i64_of(v, "scalars." + k));
        else if (v.is_number()) r.set(k, v.get<double>());
        else if (v.is_null()) r.set(k, std::nan(""));
        else if (v.is_string()) r.set(k, v.get<std::string>());
        else throw bad("scalars." + k, "a scalar must be a number, text, boolean or null");
      }
    }
    if (j.contains("tables")) {
      if (!j["tables"].is_object()) throw bad("tables", "not an object");
      for (const auto& [name, tj] : j["tables"].items()) {
        if (!tj.is_object() || !tj.contains("columns") || !tj["columns"].is_object())
          throw bad("tables." + name, "a table needs an object of columns");
        only_keys(tj, "tables." + name, {"description", "types", "columns"});
        Table& t = r.add_table(name, text_of(tj, "description", "tables." + name + ".description"));
        // Every column's type is stated (to_json writes them all): a table without "types" had
        // been read as all f64, failing at its first text cell as "an f64 column holds
        // \"compute\"", and a column missing from "types" was taken as f64 without a word
        // (review of 2026-12-05).
        const std::string types_at = "tables." + name + ".types";
        if (!tj.contains("types")) throw bad(types_at, "missing: table '" + name + "' needs the type of each of its columns (f64, i64 or str)");
        if (!tj["types"].is_object()) throw bad(types_at, "must be an object of column types (f64, i64 or str)");
        for (const auto& [cname, ty] : tj["types"].items()) {
          (void)ty;
          if (!tj["columns"].contains(cname)) throw bad(types_at + "." + cname, "column '" + cname + "' has a type but no values: table '" + name + "' has no such column");
        }
        size_t rows = 0;
        bool first = true;
        for (const auto& [cname, arr] : tj["columns"].items()) {
          const std::string where = "tables." + name + ".columns." + cname;
          if (!arr.is_array()) throw bad(where, "a column must be an array");
          if (!tj["types"].contains(cname))
            throw bad(types_at + "." + cname, "missing: column '" + cname + "' of table '" + name + "' has no type (valid: f64, i64, str)");
          const std::string ty = text_of(tj["types"], cname.c_str(), types_at + "." + cname);
          Column c;
          c.name = cname;
          if (ty == "i64") {
            c.type = Column::Type::I64;
            for (const auto& v : arr) {
              if (!v.is_number_integer()) throw bad(where, "an i64 column holds " + v.dump());
              c.i64.push_back(i64_of(v, where));
            }
          } else if (ty == "str") {
            c.type = Column::Type::Str;
            for (const auto& v : arr) {
              if (!v.is_string()) throw bad(where, "a str column holds " + v.dump());
              c.str.push_back(v.get<std::string>());
            }
          } else if (ty == "f64") {
            c.type = Column::Type::F64;
            for (const auto& v : arr) {
              if (!v.is_null() && !v.is_number()) throw bad(where, "an f64 column holds " + v.dump());
              c.f64.push_back(v.is_null() ? std::nan("") : v.get<double>());
            }
          } else {
            throw bad("tables." + name + ".types." + cname, "unknown column type '" + ty + "' (valid: f64, i64, str)");
          }
          if (!first && arr.size() != rows)
            throw bad(where, "has " + std::to_string(arr.size()) + " rows where the table's other columns have " + std::to_string(rows));
          rows = arr.size();
          first = false;
          t.columns().push_back(std::move(c));
        }
      }
    }
    if (j.contains("notes")) {
      if (!j["notes"].is_array()) throw bad("notes", "not an array");
      for (const auto& n : j["notes"]) {
        if (!n.is_string()) throw bad("notes", "a note must be text");
        r.notes.push_back(n.get<std::string>());
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw bad("", e.what());
  }
  return r;
}

// ---- text ----
static std::string pretty_number(double v) {
  // A missing value (NaN: unknown, not applicable; null in JSON) reads "-" in the readable
  // table, as an empty cell would; CSV keeps "nan" so that readers parse the column as numbers.
  if (std::isnan(v)) return "-";
  if (!std::isfinite(v)) return format_double(v);
  const double a = std::fabs(v);
  char buf[64];
  // Whole numbers below 1e9 in full (counts, microseconds of a long trace: 14522911, not
  // 1.452e+07; 169, not 169.0); JSON and CSV keep every digit of every value anyway.
  if (a < 1e9 && v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a != 0 && (a >= 1e7 || a < 1e-3)) std::snprintf(buf, sizeof buf, "%.4g", v);
  else if (a >= 100) std::snprintf(buf, sizeof buf, "%.1f", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

static std::string value_text(const Value& v) {
  if (auto d = std::get_if<double>(&v)) return pretty_number(*d);
  if (auto n = std::get_if<int64_t>(&v)) return std::to_string(*n);
  if (auto b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

// UTF-8 decoding for the readable table: the code point at s[i] and its length in bytes (a stray
// byte is taken as itself, one byte long).
static char32_t code_point_at(const std::string& s, size_t i, size_t& len) {
  const auto b = [&s](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  auto cont = [&](size_t n) {
    for (size_t k = 1; k <= n; ++k)
      if (i + k >= s.size() || (b(i + k) & 0xC0) != 0x80) return false;
    return true;
  };
  if (c >= 0xC2 && c < 0xE0 && cont(1)) {
    len = 2;
    return static_cast<char32_t>(((c & 0x1F) << 6) | (b(i + 1) & 0x3F));
  }
  if (c >= 0xE0 && c < 0xF0 && cont(2)) {
    len = 3;
    return static_cast<char32_t>(((c & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F));
  }
  if (c >= 0xF0 && c < 0xF5 && cont(3)) {
    len = 4;
    return static_cast<char32_t>(((c & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12) | ((b(i + 2) & 0x3F) << 6) | (b(i + 3) & 0x3F));
  }
  len = 1;
  return c;
}

// Terminal columns of a code point: 2 for the East Asian wide and fullwidth blocks (CJK, kana,
// Hangul, fullwidth forms, emoji), 0 for combining marks and variation selectors, 1 otherwise
// (Unicode's EastAsianWidth W/F ranges, abridged to the blocks that hold them).
static size_t columns_of(char32_t cp) {
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x1DC0 && cp <= 0x1DFF) ||
      (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xFE20 && cp <= 0xFE2F))
    return 0;
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF) ||
      (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
      (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
}

// The readable table's columns line up by terminal columns, not bytes (a kernel name with arrows
// sat 12 columns left of its row before 2026-12-03; a CJK source name, two columns a character,
// 6 columns right of its header before 2026-12-04).
static size_t display_width(const std::string& s) {
  size_t n = 0, len = 1;
  for (size_t i = 0; i < s.size(); i += len) n += columns_of(code_point_at(s, i, len));
  return n;
}

// Characters (code points) of UTF-8 text: where a long cell is cut.
static size_t code_points(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Characters that would move the terminal or reorder the text: C0 and C1 controls, DEL, the
// Unicode line and paragraph separators and the bidirectional controls (U+202E showed a kernel's
// name reversed, 2026-12-04 review).
static bool unprintable(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F || cp == 0x2028 ||
         cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// Such characters in a text cell, scalar or note would break its row across lines or rewrite the
// screen (an ESC sequence in a process name cleared it): written as escapes (\n, \t, \xNN,
// \uNNNN) in the readable table; JSON keeps the text as it is (escaped by JSON itself) and CSV writes
// control characters other than tab and line breaks as escapes too (csv_escape). A note keeps its line
// breaks (a catalog entry or an nccl-tests table printed under its title).
static std::string printable(std::string s, bool keep_newlines = false) {
  auto escaped = [keep_newlines](char32_t cp) { return unprintable(cp) && !(keep_newlines && cp == '\n'); };
  bool any = false;
  size_t len = 1;
  for (size_t i = 0; i < s.size() && !any; i += len) any = escaped(code_point_at(s, i, len)) && (len > 1 || static_cast<unsigned char>(s[i]) < 0x80);
  if (!any) return s;
  static const char* hex = "0123456789abcdef";
  std::string o;
  for (size_t i = 0; i < s.size(); i += len) {
    const char32_t cp = code_point_at(s, i, len);
    const bool stray = len == 1 && static_cast<unsigned char>(s[i]) >= 0x80;  // not UTF-8: kept as it was
    if (stray || !escaped(cp)) {
      o.append(s, i, len);
    } else if (cp == '\n') {
      o += "\\n";
    } else if (cp == '\t') {
      o += "\\t";
    } else if (cp == '\r') {
      o += "\\r";
    } else if (cp < 0x80) {
      o += "\\x";
      o += hex[cp >> 4];
      o += hex[cp & 15];
    } else {
      o += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) o += hex[(cp >> shift) & 15];
    }
  }
  return o;
}

std::string render_text(const Result& r) {
  std::string out;
  size_t w = 0;
  for (const auto& [k, _] : r.scalars) w = std::max(w, display_width(k));
  for (const auto& [k, v] : r.scalars) {
    out += k;
    out.append(w + 2 - display_width(k), ' ');
    out += printable(value_text(v)) + "\n";
  }
  size_t shortened = 0;
  for (const auto& t : r.tables) {
    out += "\n== " + t.name();
    if (!t.description().empty()) out += ": " + t.description();
    out += " ==\n";
    const size_t nrows = t.rows();
    std::vector<std::vector<std::string>> cells(t.columns().size());
    std::vector<size_t> widths(t.columns().size());
    for (size_t c = 0; c < t.columns().size(); ++c) {
      const auto& col = t.columns()[c];
      widths[c] = display_width(col.name);
      for (size_t i = 0; i < nrows; ++i) {
        std::string s = col.type == Column::Type::F64 ? pretty_number(col.f64[i]) : printable(col.cell_text(i));
        // A readable table: text cells (a CUDA kernel's full signature runs to 1,800 characters)
        // are cut to 200 characters in the middle, on UTF-8 boundaries, keeping the head and the tail
        // that tell rows apart (a template's arguments, a path's file name); JSON and CSV keep them whole.
        // Counted in characters (code points), not bytes: 100 CJK characters showed as 39 before
        // 2026-12-03.
        // 200 since 2026-12-03 (120 had cut a row of refitted constants and a catalog source in
        // their middle), and a note says that cells were shortened.
        if (col.type == Column::Type::Str && code_points(s) > 200) {
          ++shortened;
          auto byte_of = [&s](size_t chars) {  // byte offset of the code point `chars`
            size_t seen = 0;
            for (size_t i = 0; i < s.size(); ++i)
              if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == chars) return i;
            return s.size();
          };
          const size_t n = code_points(s);
          s = s.substr(0, byte_of(100)) + "..." + s.substr(byte_of(n - 97));
        }
        widths[c] = std::max(widths[c], display_width(s));
        cells[c].push_back(std::move(s));
      }
    }
    for (size_t c = 0; c < widths.size(); ++c) {
      const auto& name = t.columns()[c].name;
      out += (c ? "  " : "") + name + std::string(widths[c] - display_width(name), ' ');
    }
    out += "\n";
    for (size_t i = 0; i < nrows; ++i) {
      for (size_t c = 0; c < widths.size(); ++c) {
        const auto& s = cells[c][i];
        const bool right = t.columns()[c].type != Column::Type::Str;
        out += c ? "  " : "";
        if (right) out += std::string(widths[c] - display_width(s), ' ') + s;
        else out += s + std::string(widths[c] - display_width(s), ' ');
      }
      out += "\n";
    }
  }
  for (const auto& n : r.notes) out += "\nnote: " + printable(n, true);
  if (shortened > 0)
    out += "\nnote: " + std::to_string(shortened) +
           " text cell(s) longer than 200 characters are shortened in the middle in this table view (--json and --csv keep them whole)";
  if (!r.notes.empty() || shortened > 0) out += "\n";
  return out;
}

// Invalid UTF-8 replaced by U+FFFD exactly as the JSON writes it (nlohmann's replace handler),
// so a kernel or file name with stray bytes reads the same in --csv as in --json; its raw bytes
// made the CSV undecodable as UTF-8 before 2026-12-03. ASCII text is returned as is.
static std::string utf8_as_json_writes_it(const std::string& s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return s;
  const std::string quoted = nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

// Control characters other than tab and line breaks (C0, DEL, C1) are written as the readable
// table writes them (\xNN, \u00NN): a kernel name with a NUL byte had put a raw NUL byte into
// top_kernels.csv, which readers of text refuse or cut the line at, and an ESC sequence would
// rewrite a terminal that shows the file (2026-12-06 review). Tab and line breaks stay, quoted, as
// CSV allows. The JSON writes them as its escapes.
static std::string csv_escape(const std::string& raw) {
  std::string s = utf8_as_json_writes_it(raw);
  auto control_at = [&](size_t i) -> size_t {  // the control character's length at i (0: none)
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return 1;
    return c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(s[i + 1]) <= 0x9F
               ? 2
               : 0;
  };
  bool any_control = false;
  for (size_t i = 0; i < s.size() && !any_control; ++i) any_control = control_at(i) > 0;
  if (any_control) {
    static const char* hex = "0123456789abcdef";
    std::string o;
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t len = control_at(i);
      if (len == 0) {
        o += s[i];
        continue;
      }
      const auto cp = len == 1 ? static_cast<unsigned char>(s[i]) : static_cast<unsigned char>(s[i + 1]);
      o += len == 1 ? "\\x" : "\\u00";
      o += hex[cp >> 4];
      o += hex[cp & 15];
      i += len - 1;
    }
    s.swap(o);
  }
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string render_csv(const Table& t) {
  std::string out;
  for (size_t c = 0; c < t.columns().size(); ++c) out += (c ? "," : "") + csv_escape(t.columns()[c].name);
  out += "\n";
  for (size_t i = 0; i < t.rows(); ++i) {
    for (size_t c = 0; c < t.columns().size(); ++c) out += (c ? "," : "") + csv_escape(t.columns()[c].cell_text(i));
    out += "\n";
  }
  return out;
}

// The table files an earlier run's tables.csv names: plain CSV names in the folder itself (no
// '/', no leading '.', ending in .csv, not the index, scalars or notes). An unreadable or foreign
// index names none.
static std::vector<std::string> earlier_index_files(const std::string& index) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(index, ec)) return out;
  std::string text;
  try {
    text = read_file(index);
  } catch (const Error&) {
    return out;
  }
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "table,file,rows,columns") return out;
  while (std::getline(in, line)) {
    // Names are [a-z0-9_] (no quoting), so the second field is between the first two commas.
    const size_t a = line.find(',');
    const size_t b = a == std::string::npos ? a : line.find(',', a + 1);
    if (b == std::string::npos) continue;
    const std::string file = line.substr(a + 1, b - a - 1);
    if (file.size() <= 4 || file.compare(file.size() - 4, 4, ".csv") != 0 || file.find('/') != std::string::npos ||
        file.find('"') != std::string::npos || file[0] == '.' || file == "tables.csv" || file == "scalars.csv" ||
        file == "notes.csv")
      continue;
    out.push_back(file);
  }
  return out;
}

void write_csv_dir(const Result& r, const std::string& dir) {
  AtomicFileSet set;
  stage_csv_dir(r, dir, set);
  set.commit();
}

void stage_csv_dir(const Result& r, const std::string& dir, AtomicFileSet& set) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(SourceLocation{dir}, "cannot create output directory: " + ec.message());
  // Render everything first so that a failing table leaves no partial set of files.
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& t : r.tables) files.emplace_back(dir + "/" + t.name() + ".csv", render_csv(t));
  // scalars.csv and notes.csv are written even when empty (a header only): a run into a folder of
  // an earlier run kept that run's notes beside the new tables (before 2026-12-03).
  {
    // The result's command and schema version first, as the JSON carries them: a folder of CSVs
    // says what wrote it (review of 2026-12-03: it had neither).
    std::string s = "name,value\n";
    s += "command," + csv_escape(r.command) + "\n";
    s += "schema_version," + std::to_string(kSchemaVersion) + "\n";
    for (const auto& [k, v] : r.scalars) {
      std::string text = std::holds_alternative<double>(v) ? format_double(std::get<double>(v)) : value_text(v);
      s += csv_escape(k) + "," + csv_escape(text) + "\n";
    }
    files.emplace_back(dir + "/scalars.csv", s);
  }
  // The notes, which tell how to read the numbers (caveats, what was left out), travel with them.
  {
    std::string s = "note\n";
    for (const auto& n : r.notes) s += csv_escape(n) + "\n";
    files.emplace_back(dir + "/notes.csv", s);
  }
  // tables.csv indexes the folder's tables (their file, rows and columns). A later run into the
  // same folder removes the tables of the earlier run's index that it does not write itself:
  // before 2026-12-06 (review) `analyze --csv out` after `estimate --csv out` left estimate's
  // breakdown.csv beside analyze's tables, read as if the same run had written it. Files no
  // index names (the user's own) are never touched.
  {
    std::string s = "table,file,rows,columns\n";
    for (const auto& t : r.tables)
      s += csv_escape(t.name()) + "," + csv_escape(t.name() + ".csv") + "," + std::to_string(t.rows()) + "," +
           std::to_string(t.columns().size()) + "\n";
    const std::string index = dir + "/tables.csv";
    std::set<std::string> written;
    for (const auto& f : files) written.insert(f.first);
    for (const auto& stale : earlier_index_files(index))
      if (!written.count(dir + "/" + stale)) set.remove_at_commit(dir + "/" + stale);
    files.emplace_back(index, s);
  }
  for (const auto& [p, content] : files) set.stage(p, content);
}

}  // namespace sextant
