#pragma once
// Cell-by-cell comparison of Sextant's --compat hta output with HTA's reference CSV folders.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace parity {

using Row = std::map<std::string, std::string>;

inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool q = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (q) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        q = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      q = true;
    } else if (c == ',') {
      rows.back().push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(cell);
      cell.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (!cell.empty() || !rows.back().empty()) rows.back().push_back(cell);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

inline std::vector<Row> rows_of(const std::vector<std::vector<std::string>>& csv) {
  std::vector<Row> out;
  if (csv.empty()) return out;
  for (size_t i = 1; i < csv.size(); ++i) {
    Row r;
    for (size_t c = 0; c < csv[0].size() && c < csv[i].size(); ++c) r[csv[0][c]] = csv[i][c];
    out.push_back(r);
  }
  return out;
}

inline std::vector<Row> read_csv_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return rows_of(parse_csv(ss.str()));
}

inline double num(const std::string& s, bool* ok) {
  if (s.empty() || s == "nan" || s == "NaN") {
    *ok = true;
    return std::nan("");
  }
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  *ok = end && *end == '\0';
  return v;
}

// Normalised key text: numbers compare by value ("1.0" == "1").
inline std::string norm(const std::string& s) {
  bool ok = false;
  double v = num(s, &ok);
  if (ok && !std::isnan(v)) return sextant::format_double(v);
  return s;
}

// Within 0.5% relative, or half a unit of the reference's rounding (percentages are rounded to
// 2 decimals, the by-type percentage to 1).
inline bool close(const std::string& mine, const std::string& ref, const std::string& col) {
  bool ok1 = false, ok2 = false;
  double a = num(mine, &ok1), b = num(ref, &ok2);
  if (!ok1 || !ok2) return mine == ref;
  if (std::isnan(a) && std::isnan(b)) return true;
  if (std::isnan(a) || std::isnan(b)) return false;
  double tol = 0.005 * std::fabs(b);
  bool rounded2 = col.find("pctg") != std::string::npos || col.find("ratio") != std::string::npos ||
                  col == "mean" || col == "std" || col == "min" || col == "25%" || col == "50%" || col == "75%" ||
                  col == "max";
  if (rounded2) tol = std::max(tol, 0.0051);
  if (col == "percentage") tol = std::max(tol, 0.051);
  return std::fabs(a - b) <= tol + 1e-9;
}

struct Outcome {
  long cells = 0;
  long bad = 0;
  std::vector<std::string> examples;
};

inline const std::map<std::string, std::vector<std::string>>& keys() {
  static const std::map<std::string, std::vector<std::string>> k = {
      {"temporal_breakdown", {"rank"}},
      {"comm_comp_overlap", {"rank"}},
      {"gpu_kernel_breakdown_by_type", {"kernel_type"}},
      {"gpu_kernel_breakdown_by_kernel", {"kernel_type", "name", "rank"}},
      {"idle_time_breakdown", {"rank", "stream", "idle_category"}},
      {"idle_time_interval_stats", {"rank", "stream", "idle_category"}},
      {"cuda_kernel_launch_stats", {"rank", "correlation"}},
      {"queue_length_summary", {"rank", "stream"}},
      {"potential_stragglers", {"potential_straggler_rank"}},
  };
  return k;
}

// Compares every reference CSV in ref_dir with the same-named table of r.
inline Outcome compare(const sextant::Result& r, const std::string& ref_dir) {
  Outcome o;
  for (const auto& [table, key] : keys()) {
    std::string path = ref_dir + "/" + table + ".csv";
    if (!std::filesystem::exists(path)) continue;  // HTA raised: nothing to compare
    auto ref = read_csv_file(path);
    const sextant::Table* t = r.table(table);
    std::vector<Row> mine;
    if (t) mine = rows_of(parse_csv(sextant::render_csv(*t)));
    std::map<std::string, Row> idx;
    for (auto& m : mine) {
      std::string k;
      for (const auto& c : key) k += norm(m[c]) + "|";
      idx[k] = m;
    }
    // Row order too (a positional diff or merge of the CSVs must line up): the keys common to
    // both, in the reference's order and in ours.
    std::vector<std::string> ref_order, mine_order;
    for (auto& rr : ref) {
      std::string k;
      for (const auto& c : key) k += norm(rr[c]) + "|";
      if (idx.count(k)) ref_order.push_back(k);
    }
    for (auto& m : mine) {
      std::string k;
      for (const auto& c : key) k += norm(m[c]) + "|";
      if (std::find(ref_order.begin(), ref_order.end(), k) != ref_order.end()) mine_order.push_back(k);
    }
    ++o.cells;
    if (ref_order != mine_order) {
      ++o.bad;
      if (o.examples.size() < 5) o.examples.push_back(table + ": rows in another order than HTA's");
    }
    for (auto& rr : ref) {
      std::string k;
      for (const auto& c : key) k += norm(rr[c]) + "|";
      auto it = idx.find(k);
      for (const auto& [col, v] : rr) {
        bool is_key = false;
        for (const auto& c : key) is_key = is_key || c == col;
        if (is_key) continue;
        ++o.cells;
        bool good = it != idx.end() && it->second.count(col) && close(it->second[col], v, col);
        if (!good) {
          ++o.bad;
          if (o.examples.size() < 5)
            o.examples.push_back(table + " [" + k + "] " + col + ": ref " + v + " mine " +
                                 (it == idx.end() ? std::string("(missing row)") : it->second[col]));
        }
      }
    }
  }
  return o;
}

}  // namespace parity
