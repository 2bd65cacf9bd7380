#pragma once
#include <string>

namespace sextant {

// The folder holding Sextant's bundled data (catalog/, examples/, validation/).
// Order: $SEXTANT_DATA_DIR; <dir of executable>/../data; <dir of executable>/../share/sextant/data;
// the source tree the binary was built from. Throws Error listing the places tried.
std::string data_dir();

// Resolve a catalog-relative or user path: an existing path is returned as is; otherwise
// data_dir()/rel when that exists, or data_dir()/X for a rel of data/X (the repository's paths from
// another working directory); otherwise the path unchanged.
std::string resolve_data_path(const std::string& rel);
// Where resolve_data_path looked for a file it did not find, for the error's hint.
std::string not_found_hint(const std::string& rel);

}  // namespace sextant
