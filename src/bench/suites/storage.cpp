// Storage: sequential write of checkpoint-sized files with fsync, sequential read after dropping
// the file's pages from the page cache (posix_fadvise DONTNEED, no root needed), and the latency
// of small synchronous writes (4 KiB pwrite + fdatasync). Everything is written into a fresh
// folder under the chosen directory and removed before the suite returns, also on error.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "bench/suite.hpp"
#include "bench/timing.hpp"
#include "core/error.hpp"
#include "core/random.hpp"

namespace sextant::bench {
namespace {
namespace fs = std::filesystem;

constexpr size_t kBlock = 4u << 20;
constexpr size_t kSmall = 4096;

[[noreturn]] void sys_fail(const std::string& path, const std::string& what) {
  throw Error(SourceLocation{path}, what + ": " + std::strerror(errno));
}

// A folder removed on scope exit.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& parent) {
    fs::path base = parent.empty() ? fs::temp_directory_path() : fs::path(parent);
    std::error_code ec;
    if (!fs::is_directory(base, ec)) throw Error(SourceLocation{base.string(), 0, 0, "--storage-dir"}, "not a directory");
    const uint64_t tag = mix64(static_cast<uint64_t>(getpid()) ^ static_cast<uint64_t>(now_s() * 1e9));
    path = base / fmt::format("sextant-bench-{}-{:08x}", getpid(), tag & 0xffffffffu);
    if (!fs::create_directory(path, ec)) throw Error(SourceLocation{path.string()}, "cannot create scratch folder: " + ec.message());
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

double write_file(const std::string& path, size_t bytes, const std::vector<char>& block) {
  const double t0 = now_s();
  Fd f;
  f.fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (f.fd < 0) sys_fail(path, "open for writing");
  for (size_t off = 0; off < bytes; off += kBlock) {
    const size_t len = std::min(kBlock, bytes - off);
    size_t w = 0;
    while (w < len) {
      const ssize_t r = pwrite(f.fd, block.data() + w, len - w, static_cast<off_t>(off + w));
      if (r < 0) sys_fail(path, "write");
      w += static_cast<size_t>(r);
    }
  }
  if (fsync(f.fd) != 0) sys_fail(path, "fsync");
  const double t = now_s() - t0;
  posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);  // the read case starts from storage
  return t;
}

double read_file_s(const std::string& path, size_t bytes, std::vector<char>& buf) {
  const double t0 = now_s();
  Fd f;
  f.fd = open(path.c_str(), O_RDONLY);
  if (f.fd < 0) sys_fail(path, "open for reading");
  posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  size_t total = 0;
  while (total < bytes) {
    const ssize_t r = read(f.fd, buf.data(), kBlock);
    if (r < 0) sys_fail(path, "read");
    if (r == 0) break;
    total += static_cast<size_t>(r);
  }
  const double t = now_s() - t0;
  if (total != bytes) throw Error(SourceLocation{path}, fmt::format("read {} bytes, expected {}", total, bytes));
  posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
  return t;
}

class StorageSuite : public Suite {
 public:
  std::string name() const override { return "storage"; }
  std::string description() const override {
    return "sequential write+fsync and cold read of checkpoint-sized files; 4 KiB write+fdatasync latency";
  }
  static size_t file_bytes(const SuiteConfig& c) { return c.quick ? (64u << 20) : (1024u << 20); }
  static int small_writes(const SuiteConfig& c) { return c.quick ? 16 : 128; }
  double expected_duration_s(const SuiteConfig& c) const override {
    const double reps = c.warmup_count + c.repetition_count;
    return reps * (2 * static_cast<double>(file_bytes(c)) / 500e6 + small_writes(c) * 2e-3);
  }

  SuiteOutput run(const SuiteConfig& c) const override {
    SuiteOutput out;
    ScratchDir dir(c.storage_dir);
    const size_t bytes = file_bytes(c);
    std::vector<char> block(kBlock);
    RandomStream rs(11, 0);
    for (size_t i = 0; i < kBlock; i += 8) {
      const uint64_t v = rs.next_u64();  // incompressible content
      std::memcpy(block.data() + i, &v, 8);
    }
    std::vector<char> buf(kBlock);
    const std::string file = (dir.path / "checkpoint.bin").string();
    Measurement wm, rm, lm;
    for (auto* m : {&wm, &rm, &lm}) {
      m->suite = name();
      m->warmup_count = c.warmup_count;
    }
    const int total = c.warmup_count + c.repetition_count;
    for (int rep = 0; rep < total; ++rep) {
      if (c.progress) c.progress(name(), fmt::format("write+fsync/read {} MiB", bytes >> 20), static_cast<double>(rep) / total);
      const double tw = write_file(file, bytes, block);
      const double tr = read_file_s(file, bytes, buf);
      if (rep >= c.warmup_count) {
        wm.samples.push_back(static_cast<double>(bytes) / tw);
        rm.samples.push_back(static_cast<double>(bytes) / tr);
      }
    }
    // Small synchronous writes: each repetition appends small_writes() 4 KiB records, each made
    // durable with fdatasync before the next (a write-ahead log's pattern).
    const std::string log = (dir.path / "log.bin").string();
    Fd lf;
    lf.fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (lf.fd < 0) sys_fail(log, "open for writing");
    off_t off = 0;
    for (int rep = 0; rep < total; ++rep) {
      const double t0 = now_s();
      for (int i = 0; i < small_writes(c); ++i) {
        if (pwrite(lf.fd, block.data(), kSmall, off) != static_cast<ssize_t>(kSmall)) sys_fail(log, "write");
        if (fdatasync(lf.fd) != 0) sys_fail(log, "fdatasync");
        off += static_cast<off_t>(kSmall);
      }
      if (rep >= c.warmup_count) lm.samples.push_back((now_s() - t0) / small_writes(c));
    }
    // The file system under the scratch folder: on tmpfs or ramfs "storage" is memory (fsync and
    // posix_fadvise are no-ops there), so the figures are RAM speeds, not a disk's.
    std::string fstype = "unknown";
    bool in_memory = false;
    struct statfs sf {};
    if (statfs(dir.path.c_str(), &sf) == 0) {
      const auto magic = static_cast<unsigned long>(sf.f_type);
      struct Known {
        unsigned long magic;
        const char* name;
        bool memory;
      };
      static const Known kKnown[] = {{0x01021994UL, "tmpfs", true},     {0x858458f6UL, "ramfs", true},   {0xEF53UL, "ext4", false},
                                     {0x58465342UL, "xfs", false},       {0x9123683EUL, "btrfs", false},  {0x6969UL, "nfs", false},
                                     {0x794c7630UL, "overlayfs", false}, {0x65735546UL, "fuse", false},   {0x2fc12fc1UL, "zfs", false},
                                     {0x0BD00BD0UL, "lustre", false},    {0x47504653UL, "gpfs", false},  {0xFF534D42UL, "cifs", false}};
      fstype = fmt::format("0x{:x}", magic);
      for (const auto& k : kKnown)
        if (k.magic == magic) {
          fstype = k.name;
          in_memory = k.memory;
        }
    }
    if (in_memory)
      out.notes.push_back("storage: " + dir.path.parent_path().string() + " is on " + fstype +
                          " (memory): fsync and the page-cache drop do nothing there, so these are RAM speeds, not a disk's; "
                          "pass --storage-dir on the file system the checkpoints go to");
    wm.name = fmt::format("seq_write_fsync file={}MiB", bytes >> 20);
    wm.metric = "bytes_per_s";
    rm.name = fmt::format("seq_read file={}MiB", bytes >> 20);
    rm.metric = "bytes_per_s";
    lm.name = "small_write_fdatasync 4KiB";
    lm.metric = "latency_s";
    lm.higher_is_better = false;
    for (auto* m : {&wm, &rm}) {
      m->params = {{"directory", dir.path.parent_path().string()},
                   {"filesystem", fstype},
                   {"file_bytes", std::to_string(bytes)},
                   {"block_bytes", std::to_string(kBlock)}};
    }
    wm.set_param("durability", "fsync before the clock stops");
    rm.set_param("page_cache", "file pages dropped with posix_fadvise(DONTNEED) before reading");
    lm.params = {{"directory", dir.path.parent_path().string()},
                 {"filesystem", fstype},
                 {"write_bytes", std::to_string(kSmall)},
                 {"writes_per_repetition", std::to_string(small_writes(c))},
                 {"durability", "fdatasync after every write"}};
    out.measurements = {wm, rm, lm};
    out.notes.push_back("storage: scratch folder " + dir.path.string() + " removed after the run");
    return out;
  }
};

}  // namespace

std::unique_ptr<Suite> make_storage_suite() { return std::make_unique<StorageSuite>(); }

}  // namespace sextant::bench
