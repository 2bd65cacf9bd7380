#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace sextant {

void write_file_atomic(const std::string& path, std::string_view content) {
  if (path == "/dev/stdout" || path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() || std::fflush(stdout) != 0)
      throw Error(SourceLocation{path}, "cannot write to standard output: " + std::string(std::strerror(errno)));
    return;
  }
  struct stat st {};
  const bool is_special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  std::string tmp = is_special ? path : path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(SourceLocation{path}, "cannot open for writing: " + std::string(std::strerror(errno)));
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      if (!is_special) ::unlink(tmp.c_str());
      throw Error(SourceLocation{path}, "write failed: " + std::string(std::strerror(e)));
    }
    off += static_cast<size_t>(n);
  }
  if (!is_special && ::fsync(fd) != 0) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error(SourceLocation{path}, "fsync failed: " + std::string(std::strerror(e)));
  }
  if (::close(fd) != 0) {
    int e = errno;
    if (!is_special) ::unlink(tmp.c_str());
    throw Error(SourceLocation{path}, "close failed: " + std::string(std::strerror(e)));
  }
  if (!is_special && ::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error(SourceLocation{path}, "rename failed: " + std::string(std::strerror(e)));
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(SourceLocation{path}, "cannot open file: " + std::string(std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(SourceLocation{path}, "read failed");
  return ss.str();
}

}  // namespace sextant
