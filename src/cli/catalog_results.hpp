#pragma once
// Results of `sextant catalog list [KIND]` and `sextant catalog show NAME` (cmd_catalog.cpp), shared
// with the Python module's catalog() so that both render the same tables.
#include <string>

#include "catalog/catalog.hpp"
#include "core/result.hpp"

namespace sextant::cli {
Result catalog_list(const Catalog& cat, const std::string& kind);
Result catalog_show(const Catalog& cat, const std::string& name);
}  // namespace sextant::cli
