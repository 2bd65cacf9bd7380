#pragma once
// Where a file named in a scenario or a study is read from. One rule for models, accelerators and
// systems (before 2026-12-07 catalog.cpp and infer/deployment.cpp each held a copy, and only the
// model's knew a file whose own name holds '#').
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace sextant {

struct ReferenceFile {
  std::filesystem::path path;  // beside the naming file when it is there, else as written (working directory)
  std::string file;            // the file part as written (before '#ID')
  std::string entry_id;        // the ID of FILE#ID, empty when none
};

// The file REF names, written at WHERE (a scenario or study: its file, or "FILE (--set)" when an
// override wrote it, which is read as FILE). A relative path is taken beside that file when it
// exists there, otherwise from the working directory. FILE#ID picks one entry of a catalog file of
// several; a file whose own name holds '#' is that file. Nothing is checked beyond existence: the
// callers say which files they accept.
ReferenceFile resolve_reference_file(const std::string& ref, const SourceLocation& where);

}  // namespace sextant
