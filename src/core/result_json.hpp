#pragma once
// The `--json` text of a Result without its JSON tree (declared apart from result.hpp, which every
// module includes).
#include <string>

#include "core/result.hpp"

namespace sextant {

// The `--json` text: the same bytes as to_json(r).dump(2, ' ', false, replace) followed by a
// newline (invalid UTF-8 replaced by U+FFFD), built one column at a time instead of as one JSON
// tree (a tree costs ~8x the text: 150 MB for the 19 MB result of a 10^6-event trace).
std::string render_json(const Result& r);

}  // namespace sextant
