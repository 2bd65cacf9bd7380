#pragma once
// Shared pieces of the libFuzzer targets (fuzz/fuzz_<parser>.cpp, built with -DSEXTANT_FUZZ=ON by
// scripts/fuzz.sh). Policy under test: a parser either returns or throws sextant::Error; any other
// exception, a crash, a sanitizer report, a leak or a hang is a bug.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/error.hpp"

namespace sextant::fuzz {

// The input as a file (memfd, no disk): for readers that take a path.
class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) {
    fd_ = ::memfd_create("sextant-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) std::abort();
    size_t off = 0;
    while (off < size) {
      ssize_t n = ::write(fd_, data + off, size - off);
      if (n <= 0) std::abort();
      off += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Runs f; sextant::Error is the expected way to refuse an input. Anything else aborts (a finding).
template <class F>
void expect_ok_or_error(F&& f) {
  try {
    f();
  } catch (const sextant::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception (not sextant::Error): %s\n", e.what());
    std::abort();
  }
}

}  // namespace sextant::fuzz
