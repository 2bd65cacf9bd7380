#pragma once
#include <string>

namespace sextant {

// The folder holding Sextant's bundled data (catalog/, examples/, validation/).
// Order: $SEXTANT_DATA_DIR; <dir of executable>/../data; <dir of executable>/../share/sextant/data;
// the source tree the binary was built from. Throws Error listing the places tried.
std::string data_dir();

// Resolve a catalog-relative or user path: an existing path is returned as is; otherwise
// data_dir()/rel when that exists; otherwise the path unchanged.
std::string resolve_data_path(const std::string& rel);

}  // namespace sextant
