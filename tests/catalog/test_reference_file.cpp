// Question: where is a file named in a scenario or study read from? One rule for models,
// accelerators and systems (resolve_reference_file; before 2026-12-07 three copies, and only the
// model's took a file whose own name holds '#').
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "catalog/reference_file.hpp"

namespace fs = std::filesystem;
using sextant::ReferenceFile;
using sextant::resolve_reference_file;
using sextant::SourceLocation;

namespace {

struct Dir {
  fs::path dir;
  Dir() {
    dir = fs::temp_directory_path() / ("sextant-ref-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "sub");
  }
  ~Dir() { fs::remove_all(dir); }
  fs::path touch(const std::string& rel) const {
    std::ofstream(dir / rel) << "x: 1\n";
    return dir / rel;
  }
};

}  // namespace

TEST(ReferenceFile, ARelativeFileIsReadBesideTheNamingFileFirst) {
  Dir d;
  const fs::path scenario = d.touch("sub/scenario.yaml");
  d.touch("sub/gpu.yaml");
  const ReferenceFile r = resolve_reference_file("gpu.yaml", SourceLocation{scenario.string(), 3, 1, "system.accelerator"});
  EXPECT_EQ(r.path, scenario.parent_path() / "gpu.yaml");
  EXPECT_EQ(r.file, "gpu.yaml");
  EXPECT_EQ(r.entry_id, "");
}

TEST(ReferenceFile, AnOverrideIsReadBesideTheScenarioItChanges) {
  Dir d;
  const fs::path scenario = d.touch("sub/scenario.yaml");
  d.touch("sub/gpu.yaml");
  const ReferenceFile r = resolve_reference_file("gpu.yaml#xpu-1", SourceLocation{scenario.string() + " (--set)", 0, 0, "model"});
  EXPECT_EQ(r.path, scenario.parent_path() / "gpu.yaml");
  EXPECT_EQ(r.file, "gpu.yaml");
  EXPECT_EQ(r.entry_id, "xpu-1");
}

TEST(ReferenceFile, AFileNotBesideIsTakenAsWritten) {
  Dir d;
  const fs::path scenario = d.touch("sub/scenario.yaml");
  const ReferenceFile r = resolve_reference_file("elsewhere/gpu.yaml#a", SourceLocation{scenario.string(), 1, 1, "k"});
  EXPECT_EQ(r.path, fs::path("elsewhere/gpu.yaml"));
  EXPECT_EQ(r.entry_id, "a");
}

TEST(ReferenceFile, AFileWhoseNameHoldsAHashIsThatFile) {
  Dir d;
  const fs::path scenario = d.touch("sub/scenario.yaml");
  d.touch("sub/gpu#2.yaml");
  const ReferenceFile r = resolve_reference_file("gpu#2.yaml", SourceLocation{scenario.string(), 1, 1, "k"});
  EXPECT_EQ(r.path, scenario.parent_path() / "gpu#2.yaml");
  EXPECT_EQ(r.file, "gpu#2.yaml");
  EXPECT_EQ(r.entry_id, "");
}

TEST(ReferenceFile, WithoutANamingFileTheWorkingDirectoryIsUsed) {
  const ReferenceFile r = resolve_reference_file("a/b.yaml#id", SourceLocation{});
  EXPECT_EQ(r.path, fs::path("a/b.yaml"));
  EXPECT_EQ(r.entry_id, "id");
}
