#include "core/paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"

#ifndef SEXTANT_SOURCE_DATA_DIR
#define SEXTANT_SOURCE_DATA_DIR ""
#endif

namespace sextant {
namespace fs = std::filesystem;

std::string data_dir() {
  std::vector<std::string> tried;
  // A SEXTANT_DATA_DIR that is set names the data to use: one without a catalog is an error, not
  // a silent fallback to the bundled data (a typo ran on the bundled catalog, before 2026-12-03).
  if (const char* env = std::getenv("SEXTANT_DATA_DIR"); env && *env) {
    if (fs::is_directory(fs::path(env) / "catalog")) return env;
    throw Error(SourceLocation{env, 0, 0, "SEXTANT_DATA_DIR"}, "is not a Sextant data folder (it has no catalog/ folder)",
                "point SEXTANT_DATA_DIR at a folder holding catalog/ (the repository's data/), or unset it");
  }
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    fs::path exe_dir = fs::path(buf).parent_path();
    for (auto cand : {exe_dir / ".." / "data", exe_dir / ".." / "share" / "sextant" / "data",
                      exe_dir / ".." / ".." / "data"}) {
      if (fs::is_directory(cand / "catalog")) return fs::weakly_canonical(cand).string();
      tried.push_back(cand.string());
    }
  }
  const std::string src = SEXTANT_SOURCE_DATA_DIR;
  if (!src.empty() && fs::is_directory(fs::path(src) / "catalog")) return src;
  tried.push_back(src);
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  throw Error("cannot find Sextant's data folder (tried " + list + "); set SEXTANT_DATA_DIR");
}

std::string resolve_data_path(const std::string& rel) {
  // A path the system refuses (too long, a loop of links) is taken as not there: the caller's
  // "not found" names it (it had ended as an internal error, 2026-12-04 review).
  std::error_code ec;
  if (fs::exists(rel, ec)) return rel;
  if (fs::path(rel).is_absolute()) return rel;
  try {
    const fs::path d = data_dir();
    if (auto p = d / rel; fs::exists(p, ec)) return p.string();
    // The README's paths are the repository's (data/examples/...): from another working directory
    // they name the data folder's own files (they were "not found" outside the repository root).
    if (rel.rfind("data/", 0) == 0)
      if (auto p = d / rel.substr(5); fs::exists(p, ec)) return p.string();
  } catch (const Error&) {
  }
  return rel;
}

std::string not_found_hint(const std::string& rel) {
  std::string where = "looked for " + rel + " in the working directory (" + fs::current_path().string() + ")";
  try {
    where += " and in the data folder (" + data_dir() + ")";
  } catch (const Error&) {
  }
  return where + "; the bundled examples are data/examples/*.yaml";
}

}  // namespace sextant
