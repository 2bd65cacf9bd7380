#pragma once
// Helpers shared by the catalog tests: paths, a small RFC 4180 CSV reader, temp folders.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace catalog_test {
namespace fs = std::filesystem;

inline std::string source_dir() { return SEXTANT_SOURCE_DIR; }
inline std::string catalog_dir() { return source_dir() + "/data/catalog"; }
inline std::string test_data(const std::string& name) { return source_dir() + "/tests/data/catalog/" + name; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The repository's copy of a validation file (the same on every machine; a clone elsewhere had
// read /work/shared's older copy first, 2026-12-03 review); empty when absent.
inline std::string validation_file(const std::string& name) {
  const std::string f = source_dir() + "/data/validation/" + name;
  return fs::exists(f) ? f : std::string();
}

// The repository's copy and, when present beside the clone, ../shared/data/validation's (the
// published set, which may have rows the copy does not yet have).
inline std::vector<std::string> validation_files(const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& dir : {source_dir() + "/data/validation", source_dir() + "/../shared/data/validation"})
    if (fs::exists(dir + "/" + name)) out.push_back(dir + "/" + name);
  return out;
}

// Rows of a CSV file as maps column -> value (quoted fields with commas, doubled quotes, newlines).
inline std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  const std::string text = read_text(path);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(field);
      field.clear();
      if (!(row.size() == 1 && row[0].empty())) rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  if (!field.empty() || !row.empty()) {
    row.push_back(field);
    rows.push_back(row);
  }
  std::vector<std::map<std::string, std::string>> out;
  if (rows.empty()) return out;
  for (size_t r = 1; r < rows.size(); ++r) {
    std::map<std::string, std::string> m;
    for (size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c) m[rows[0][c]] = rows[r][c];
    out.push_back(m);
  }
  return out;
}

// A fresh folder under the system temp dir, removed on destruction.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path = fs::temp_directory_path() / ("sextant-catalog-test-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    fs::path p = path / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

}  // namespace catalog_test
