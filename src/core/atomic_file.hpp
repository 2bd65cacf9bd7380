#pragma once
// Atomic output: content goes to a temporary file beside the target, is flushed and fsynced,
// then renamed over the target. A failure (disk full, permission) throws Error naming the path
// and leaves any previous file intact; the temporary is removed.
#include <string>
#include <string_view>

namespace sextant {

void write_file_atomic(const std::string& path, std::string_view content);
std::string read_file(const std::string& path);  // throws Error naming the path
inline std::string read_file_text(const std::string& path) { return read_file(path); }

}  // namespace sextant
