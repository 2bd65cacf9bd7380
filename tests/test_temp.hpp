#pragma once
// A temporary path private to this test process. ctest runs every test of a program as its own
// process, several at once (gtest_discover_tests + -j), so a fixed name under ::testing::TempDir()
// is shared by tests that run side by side: one truncates the file while another reads it (CI of
// 2026-12-07: a preset read back "file is empty"). Adding the process id keeps each test's files
// its own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace sextant::test_temp {
inline std::string path(const std::string& name) {
  std::string dir = ::testing::TempDir();
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir + "sextant-" + std::to_string(::getpid()) + "-" + name;
}
}  // namespace sextant::test_temp
