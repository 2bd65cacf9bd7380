#include "catalog/reference_file.hpp"

namespace sextant {

namespace fs = std::filesystem;

ReferenceFile resolve_reference_file(const std::string& ref, const SourceLocation& where) {
  std::error_code ec;
  std::string naming_file = where.file;
  static const std::string kSetSuffix = " (--set)";
  if (naming_file.size() > kSetSuffix.size() &&
      naming_file.compare(naming_file.size() - kSetSuffix.size(), kSetSuffix.size(), kSetSuffix) == 0)
    naming_file.resize(naming_file.size() - kSetSuffix.size());
  const bool has_naming_file = !naming_file.empty() && fs::is_regular_file(naming_file, ec);
  auto located = [&](const std::string& file) -> fs::path {
    const fs::path f = file;
    if (f.is_relative() && has_naming_file) {
      const fs::path beside = fs::path(naming_file).parent_path() / f;
      if (fs::exists(beside, ec)) return beside;
    }
    return f;
  };
  ReferenceFile r{located(ref), ref, {}};
  if (const size_t hash = ref.rfind('#'); hash != std::string::npos && hash > 0 && !fs::exists(r.path, ec)) {
    r.file = ref.substr(0, hash);
    r.entry_id = ref.substr(hash + 1);
    r.path = located(r.file);
  }
  return r;
}

}  // namespace sextant
