#include "trace/ingest/byte_source.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if defined(SEXTANT_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif
#if defined(SEXTANT_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/threads.hpp"

namespace sextant::trace {

namespace {

class FileHandle {
 public:
  explicit FileHandle(const std::string& path) : path_(path), f_(nullptr) {
    // O_NONBLOCK so that a FIFO without a writer cannot hang the open; only regular files are
    // read (a FIFO or /dev/zero would block or never end).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw Error(SourceLocation{path, 0, 0, ""}, "cannot open trace file: " + std::string(std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw Error(SourceLocation{path, 0, 0, ""}, S_ISDIR(st.st_mode) ? "is a directory, not a trace file"
                                                                   : "not a regular file (a FIFO, device or socket)");
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    f_ = ::fdopen(fd, "rb");
    if (!f_) {
      const int e = errno;
      ::close(fd);
      throw Error(SourceLocation{path, 0, 0, ""}, "cannot open trace file: " + std::string(std::strerror(e)));
    }
  }
  ~FileHandle() {
    if (f_) std::fclose(f_);
  }
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  size_t read(char* dst, size_t n) {
    errno = 0;
    size_t got = std::fread(dst, 1, n, f_);
    if (got < n && std::ferror(f_)) {
      // The cause is named as estimate's and validate's readers name it (before 2026-12-06
      // review the message stopped at the offset: "/proc/self/mem: read error at byte offset 0").
      const int e = errno;
      throw Error(SourceLocation{path_, 0, 0, ""}, "read error at byte offset " + std::to_string(offset_ + got) +
                                                       (e != 0 ? ": " + std::string(std::strerror(e)) : std::string()));
    }
    offset_ += got;
    return got;
  }
  uint64_t offset() const { return offset_; }
  const std::string& path() const { return path_; }
  int fd() const { return ::fileno(f_); }
  // Size of the (regular) file now; 0 when it cannot be told.
  uint64_t size() const {
    struct stat st {};
    return ::fstat(fd(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }

 private:
  std::string path_;
  FILE* f_;
  uint64_t offset_ = 0;
};

class PlainSource final : public ByteSource {
 public:
  explicit PlainSource(std::unique_ptr<FileHandle> f, std::string head)
      : f_(std::move(f)), head_(std::move(head)) {}
  size_t read(char* dst, size_t n) override {
    if (head_pos_ < head_.size()) {
      size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(dst, head_.data() + head_pos_, k);
      head_pos_ += k;
      return k;
    }
    return f_->read(dst, n);
  }
  bool compressed() const override { return false; }

 private:
  std::unique_ptr<FileHandle> f_;
  std::string head_;
  size_t head_pos_ = 0;
};

// Memory obtained with mmap: a read-only private mapping of a plain trace file, or anonymous
// memory holding an inflated gzip member. The scanner reads it in place (contiguous()); pages
// it has passed are handed back with MADV_DONTNEED (a file mapping drops them from the resident
// set, the page cache keeps them; anonymous memory is freed), so the resident set stays near the
// unread part plus what was not released yet.
class MappedSource final : public ByteSource {
 public:
  MappedSource(char* data, size_t size, bool compressed) : data_(data), size_(size), compressed_(compressed) {}
  ~MappedSource() override { ::munmap(data_, size_); }
  MappedSource(const MappedSource&) = delete;
  MappedSource& operator=(const MappedSource&) = delete;
  size_t read(char* dst, size_t n) override {
    const size_t k = std::min(n, size_ - pos_);
    std::memcpy(dst, data_ + pos_, k);
    pos_ += k;
    return k;
  }
  bool compressed() const override { return compressed_; }
  std::string_view contiguous() const override { return {data_, size_}; }
  void release_before(uint64_t offset) override {
    static_assert(kReleaseStep % 65536 == 0, "a multiple of every page size");
    const uint64_t upto = std::min<uint64_t>(offset, size_) / kReleaseStep * kReleaseStep;
    if (upto <= released_) return;
    ::madvise(data_ + released_, upto - released_, MADV_DONTNEED);  // advisory: failure only costs memory
    released_ = upto;
  }

 private:
  static constexpr uint64_t kReleaseStep = 1 << 20;
  char* data_;
  size_t size_;
  bool compressed_;
  size_t pos_ = 0;
  uint64_t released_ = 0;
};

// Maps a plain file of size bytes (> 0); nullptr when mmap fails (the caller then reads it).
std::unique_ptr<ByteSource> map_plain_file(const FileHandle& f, uint64_t size) {
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f.fd(), 0);
  if (p == MAP_FAILED) return nullptr;
  ::madvise(p, size, MADV_SEQUENTIAL);
  return std::make_unique<MappedSource>(static_cast<char*>(p), size, false);
}

#if defined(SEXTANT_HAVE_LIBDEFLATE) || defined(SEXTANT_HAVE_ISAL)
// The uncompressed size a gzip file's trailer states (ISIZE, modulo 2^32), or 0 when the file is
// too short to be gzip or cannot be read. Files over 4 GiB wrap; callers use this only to choose
// an in-memory path for files of at most kWholeInflateMaxBytes, and verify it by inflating.
uint64_t gzip_trailer_size(const FileHandle& f) {
  const uint64_t csize = f.size();
  if (csize < 18) return 0;  // shorter than a gzip header and trailer
  unsigned char tail[4];
  if (::pread(f.fd(), tail, 4, static_cast<off_t>(csize - 4)) != 4) return 0;
  return uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 | uint64_t{tail[3]} << 24;
}

// The compressed bytes of a file in memory: its page-cache pages mapped in one call
// (MAP_POPULATE), rather than copied into fresh anonymous pages that the kernel first clears
// (1.6 MB: ~400 faults); read into a buffer where the file cannot be mapped.
class CompressedInput {
 public:
  bool open(const FileHandle& f) {
    size_ = f.size();
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.fd(), 0);
    if (p != MAP_FAILED) {
      mapped_ = p;
      data_ = static_cast<const unsigned char*>(p);
      return true;
    }
    buffered_ = ByteBuffer(size_);
    for (uint64_t got = 0; got < size_;) {
      const ssize_t n = ::pread(f.fd(), buffered_.data() + got, size_ - got, static_cast<off_t>(got));
      if (n <= 0) return false;
      got += static_cast<uint64_t>(n);
    }
    data_ = reinterpret_cast<const unsigned char*>(buffered_.data());
    return true;
  }
  ~CompressedInput() {
    if (mapped_) ::munmap(mapped_, size_);
  }
  const unsigned char* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  void* mapped_ = nullptr;
  ByteBuffer buffered_;
  const unsigned char* data_ = nullptr;
  uint64_t size_ = 0;
};

// Below this size a prefaulting thread costs more than the page clearing it moves off the
// inflating core, and huge pages do not apply.
constexpr uint64_t kPrefaultMinBytes = uint64_t{4} << 20;

// Anonymous memory for `size` bytes of inflated text, or nullptr. Under kPrefaultMinBytes it is
// populated by mmap itself (one call instead of a page fault per 4 KiB page as the inflater
// writes: 1.8 MB is ~430 faults at ~6 us each on this project's VMs); from there it is 2 MiB-aligned
// and advised for huge pages, so that they can back all of it (a 25 MB text otherwise takes
// ~6,000 faults). Unmapped with munmap(p, size).
char* map_text_buffer(uint64_t size) {
  if (size < kPrefaultMinBytes) {
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  }
  constexpr uint64_t kHuge = uint64_t{2} << 20;
  void* raw = ::mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (base + kHuge - 1) / kHuge * kHuge;
  const uintptr_t map_end = base + size + kHuge, used_end = (aligned + size + 4095) / 4096 * 4096;
  if (aligned > base) ::munmap(raw, aligned - base);
  if (map_end > used_end) ::munmap(reinterpret_cast<void*>(used_end), map_end - used_end);
  ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // advisory
  return reinterpret_cast<char*>(aligned);
}
#endif

#if defined(SEXTANT_HAVE_LIBDEFLATE)
// Faults in [p, p + size) writable, 2 MiB at a time from the end towards the start, until done
// says the writer has finished (the rest it has faulted itself). MADV_POPULATE_WRITE (Linux 5.14)
// where the kernel has it, else one write per 4 KiB page (the buffer is fresh anonymous memory:
// zero, so writing zero keeps its content whether the writer got there first or not, but the
// write races with libdeflate's, hence the atomic read-modify-write, which cannot lose its store).
void prefault_backwards(char* p, uint64_t size, const std::atomic<bool>& done) {
  constexpr uint64_t kChunk = uint64_t{2} << 20;
  bool populate = true;
  for (uint64_t hi = size; hi > 0 && !done.load(std::memory_order_relaxed);) {
    const uint64_t lo = hi > kChunk ? (hi - 1) / kChunk * kChunk : 0;  // 2 MiB-aligned offsets
    if (populate && ::madvise(p + lo, hi - lo, MADV_POPULATE_WRITE) != 0) populate = false;
    if (!populate)
      for (uint64_t off = lo; off < hi; off += 4096)
        std::atomic_ref<char>(p[off]).fetch_add(0, std::memory_order_relaxed);
    hi = lo;
  }
}

// Inflates a single-member gzip file of at most kWholeInflateMaxBytes (per its trailer) in one go.
// nullptr when the file does not qualify or libdeflate does not accept it (several members,
// trailing data, corruption, a trailer that lies): the caller then streams it through zlib,
// which handles members and reports errors with their offsets.
std::unique_ptr<ByteSource> inflate_whole(const FileHandle& f, uint64_t limit_bytes) {
  const uint64_t isize = gzip_trailer_size(f);
  if (isize == 0 || isize > kWholeInflateMaxBytes || (limit_bytes > 0 && isize > limit_bytes)) return nullptr;
  CompressedInput in;
  if (!in.open(f)) return nullptr;
  char* out = map_text_buffer(isize);
  if (!out) return nullptr;
  // The kernel zeroes every fresh page on its first write, which on this project's VMs costs as
  // much as the inflate itself (25 MB: ~19 ms of libdeflate, 10-19 ms of page clearing, all on
  // the inflating core while the other one waits for the text). A second thread faults the
  // pages in from the end backwards while libdeflate writes from the front, so the two meet
  // somewhere in the buffer instead of one core doing both (prefault_backwards).
  std::atomic<bool> inflated{false};
  std::thread prefault;
  if (isize >= kPrefaultMinBytes) {
    try {
      prefault = start_worker([&] { prefault_backwards(out, isize, inflated); });
    } catch (const std::exception&) {  // no second thread: the inflate faults its pages in itself
    }
  }
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  size_t in_used = 0, out_used = 0;
  const libdeflate_result rc =
      d ? libdeflate_gzip_decompress_ex(d, in.data(), in.size(), out, isize, &in_used, &out_used) : LIBDEFLATE_BAD_DATA;
  inflated.store(true, std::memory_order_relaxed);
  if (prefault.joinable()) prefault.join();
  if (d) libdeflate_free_decompressor(d);
  if (rc != LIBDEFLATE_SUCCESS || in_used != in.size() || out_used != isize) {
    ::munmap(out, isize);
    return nullptr;
  }
  return std::make_unique<MappedSource>(out, isize, true);
}
#endif

#if defined(SEXTANT_HAVE_ISAL)
// A gzip member of known size inflated by ISA-L on a thread of its own, 1 MiB at a time, into one
// buffer that the scanner reads in place behind it (ByteSource::progressive_data): the inflate
// (~19 ms for 25 MB of text) then overlaps the scan instead of preceding it. ISA-L rather than
// libdeflate because libdeflate only inflates whole buffers; zlib streams too but at a third of
// the speed (resnet_kineto: zlib 50 ms, libdeflate 17-22 ms, ISA-L 16-24 ms).
class ProgressiveInflateSource final : public ByteSource {
 public:
  static constexpr size_t kChunk = size_t{1} << 20;
  static constexpr size_t kFailed = SIZE_MAX;

  // Takes the input; `out` is a map_text_buffer of `size` + 1 bytes, owned from here on.
  ProgressiveInflateSource(std::unique_ptr<CompressedInput> in, char* out, size_t size)
      : in_(std::move(in)), out_(out), size_(size) {
    auto work = [this] {
      run();
      std::function<void()> then;
      {
        std::lock_guard<std::mutex> lock(then_mutex_);
        written_ = true;
        then.swap(then_);
      }
      if (then) then();
    };
    try {
      worker_ = start_worker(work);
    } catch (const std::exception&) {
      work();  // no thread of its own (a thread or memory limit): inflated whole before the scan
    }
  }
  ~ProgressiveInflateSource() override {
    stop_.store(true, std::memory_order_relaxed);
    worker_.join();
    ::munmap(out_, size_ + 1);
  }
  ProgressiveInflateSource(const ProgressiveInflateSource&) = delete;
  ProgressiveInflateSource& operator=(const ProgressiveInflateSource&) = delete;

  bool compressed() const override { return true; }
  const char* progressive_data() const override { return out_; }
  size_t progressive_size() const override { return size_; }
  size_t wait_ready(size_t have) override {
    for (;;) {
      const size_t r = ready_.load(std::memory_order_acquire);
      if (r == kFailed) throw InflateRetry{};
      if (r > have || r == size_) return r;
      ready_.wait(r, std::memory_order_acquire);
    }
  }
  bool run_when_written(std::function<void()>& fn) override {
    std::lock_guard<std::mutex> lock(then_mutex_);
    if (written_ || then_) return false;
    then_.swap(fn);
    return true;
  }
  size_t read(char* dst, size_t n) override {
    if (pos_ >= size_ || n == 0) return 0;
    const size_t r = wait_ready(pos_);
    const size_t k = std::min(n, r - pos_);
    std::memcpy(dst, out_ + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  void publish(size_t v) {
    ready_.store(v, std::memory_order_release);
    ready_.notify_all();
  }
  void run() {
    inflate_state st;
    isal_inflate_init(&st);
    st.crc_flag = ISAL_GZIP;  // parses the gzip header, checks the trailer's CRC-32 and size
    st.next_in = const_cast<uint8_t*>(in_->data());
    st.avail_in = static_cast<uint32_t>(in_->size());
    size_t done = 0;
    for (;;) {
      if (stop_.load(std::memory_order_relaxed)) return publish(kFailed);
      const size_t out_before = done;
      const uint32_t in_before = st.avail_in;
      // Room for one byte past the trailer's size (the buffer has it), so that the last call has
      // space to write into and a text longer than the trailer says shows as done > size_.
      st.next_out = reinterpret_cast<uint8_t*>(out_ + done);
      st.avail_out = static_cast<uint32_t>(std::min(kChunk, size_ + 1 - done));
      if (isal_inflate(&st) != ISAL_DECOMP_OK) return publish(kFailed);
      done = st.total_out;
      if (st.block_state == ISAL_BLOCK_FINISH) break;
      if (done > size_ || (done == out_before && st.avail_in == in_before)) return publish(kFailed);  // truncated
      if (done > out_before && done < size_) publish(done);
    }
    // One member whose size is the trailer's, nothing after it: anything else (several members,
    // trailing bytes, a trailer that lies) is read by the zlib path, which handles and reports it.
    if (done != size_ || st.avail_in != 0) return publish(kFailed);
    publish(size_);
  }

  std::unique_ptr<CompressedInput> in_;
  char* out_;
  size_t size_;
  size_t pos_ = 0;  // read()'s position
  std::atomic<size_t> ready_{0};
  std::atomic<bool> stop_{false};
  std::mutex then_mutex_;  // guards then_ and written_
  std::function<void()> then_;
  bool written_ = false;
  std::thread worker_;
};

std::unique_ptr<ByteSource> inflate_progressive(const FileHandle& f, uint64_t limit_bytes) {
  const uint64_t isize = gzip_trailer_size(f);
  if (isize < kProgressiveInflateMinBytes || isize > kWholeInflateMaxBytes || (limit_bytes > 0 && isize > limit_bytes))
    return nullptr;
  auto in = std::make_unique<CompressedInput>();
  if (!in->open(f) || in->size() > UINT32_MAX) return nullptr;
  char* out = map_text_buffer(isize + 1);
  if (!out) return nullptr;
  return std::make_unique<ProgressiveInflateSource>(std::move(in), out, isize);
}
#endif

// Inflates on a background thread into blocks handed over through a bounded queue.
class GzipSource final : public ByteSource {
 public:
  // Small blocks so that parsing starts after the first 256 KiB rather than after 4 MiB (a trace
  // of a few MB was otherwise inflated entirely before the parser saw a byte); 8 in flight keep
  // the inflater ahead of the parser. Memory: 2 MiB of blocks per open file.
  static constexpr size_t kBlock = 256 << 10;
  static constexpr size_t kQueue = 8;

  GzipSource(std::unique_ptr<FileHandle> f, std::string head, uint64_t limit_bytes)
      : f_(std::move(f)), head_(std::move(head)), limit_bytes_(limit_bytes) {
    try {
      worker_ = start_worker([this] { run(); });
    } catch (const std::exception& e) {
      // The inflater feeds a bounded queue the scanner drains: it needs a thread of its own.
      throw Error(SourceLocation{f_->path(), 0, 0, ""}, std::string("cannot start the thread that inflates this file (") + e.what() + ")",
                  "lower --threads, or raise the process's thread and memory limits");
    }
  }
  ~GzipSource() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  size_t read(char* dst, size_t n) override {
    size_t done = 0;
    while (done < n) {
      if (cur_pos_ >= cur_.size()) {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return !queue_.empty() || finished_; });
        if (queue_.empty()) {
          if (!error_.empty()) throw Error(SourceLocation{f_->path(), 0, 0, ""}, error_);
          return done;
        }
        free_.push_back(std::move(cur_));
        cur_ = std::move(queue_.front());
        queue_.pop_front();
        cur_pos_ = 0;
        lk.unlock();
        cv_.notify_all();
        continue;
      }
      size_t k = std::min(n - done, cur_.size() - cur_pos_);
      std::memcpy(dst + done, cur_.data() + cur_pos_, k);
      cur_pos_ += k;
      done += k;
    }
    return done;
  }
  bool compressed() const override { return true; }

 private:
  void run() {
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) {
      finish("zlib initialisation failed");
      return;
    }
    std::vector<unsigned char> in(1 << 20);
    std::memcpy(in.data(), head_.data(), head_.size());
    size_t in_len = head_.size();
    in_len += f_->read(reinterpret_cast<char*>(in.data()) + in_len, in.size() - in_len);
    uint64_t consumed = 0;
    uint64_t inflated = 0;
    zs.next_in = in.data();
    zs.avail_in = static_cast<uInt>(in_len);
    bool eof_in = in_len == 0;
    std::string err;
    for (;;) {
      ByteBuffer block;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return queue_.size() < kQueue || stop_; });
        if (stop_) break;
        if (!free_.empty()) {
          block = std::move(free_.back());
          free_.pop_back();
        }
      }
      block.resize(kBlock);
      size_t filled = 0;
      bool end = false;
      while (filled < kBlock) {
        if (zs.avail_in == 0 && !eof_in) {
          consumed += in_len;
          in_len = f_->read(reinterpret_cast<char*>(in.data()), in.size());
          zs.next_in = in.data();
          zs.avail_in = static_cast<uInt>(in_len);
          if (in_len == 0) eof_in = true;
        }
        zs.next_out = reinterpret_cast<Bytef*>(block.data() + filled);
        zs.avail_out = static_cast<uInt>(kBlock - filled);
        int rc = inflate(&zs, Z_NO_FLUSH);
        const size_t before = filled;
        filled = kBlock - zs.avail_out;
        inflated += filled - before;
        if (limit_bytes_ > 0 && inflated > limit_bytes_) {
          err = "decompression limit reached: more than " + std::to_string(limit_bytes_) +
                " bytes inflated from " + std::to_string(consumed + (in_len - zs.avail_in)) +
                " compressed bytes (a gzip bomb?); raise the limit with --max-inflate-bytes BYTES (Python: max_inflate_bytes=; 0: no limit)";
          end = true;
          break;
        }
        if (rc == Z_STREAM_END) {
          // Concatenated gzip members continue; otherwise the data ends here.
          if (zs.avail_in == 0 && !eof_in) {
            consumed += in_len;
            in_len = f_->read(reinterpret_cast<char*>(in.data()), in.size());
            zs.next_in = in.data();
            zs.avail_in = static_cast<uInt>(in_len);
            if (in_len == 0) eof_in = true;
          }
          // Zero bytes after the last member are block padding (gzip -t accepts them; they had
          // been read as a member with "unknown compression method" before 2026-12-02).
          if (zs.avail_in > 0 && zs.next_in[0] == 0) {
            bool zeros = true;
            for (;;) {
              for (uInt k = 0; k < zs.avail_in && zeros; ++k) zeros = zs.next_in[k] == 0;
              if (!zeros || eof_in) break;
              consumed += in_len;
              in_len = f_->read(reinterpret_cast<char*>(in.data()), in.size());
              zs.next_in = in.data();
              zs.avail_in = static_cast<uInt>(in_len);
              if (in_len == 0) eof_in = true;
            }
            if (zeros) zs.avail_in = 0;
          }
          if (zs.avail_in > 0) {
            inflateReset(&zs);
            continue;
          }
          end = true;
          break;
        }
        if (rc == Z_BUF_ERROR && eof_in && zs.avail_in == 0) {
          err = "truncated gzip data at compressed byte offset " + std::to_string(consumed + in_len);
          end = true;
          break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
          uint64_t off = consumed + (in_len - zs.avail_in);
          err = std::string("corrupt gzip data (") + (zs.msg ? zs.msg : "inflate error") +
                ") at compressed byte offset " + std::to_string(off);
          end = true;
          break;
        }
      }
      block.resize(filled);
      {
        std::lock_guard<std::mutex> lk(mu_);
        if (filled) queue_.push_back(std::move(block));
      }
      cv_.notify_all();
      if (end) break;
    }
    inflateEnd(&zs);
    finish(err);
  }

  void finish(const std::string& err) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      finished_ = true;
      error_ = err;
    }
    cv_.notify_all();
  }

  std::unique_ptr<FileHandle> f_;
  std::string head_;
  uint64_t limit_bytes_;  // 0: none
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<ByteBuffer> queue_;
  std::vector<ByteBuffer> free_;
  ByteBuffer cur_;
  size_t cur_pos_ = 0;
  bool finished_ = false;
  bool stop_ = false;
  std::string error_;
};

}  // namespace

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, int64_t max_inflate_bytes, bool progressive) {
  auto f = std::make_unique<FileHandle>(path);
  {
    // Compressions other than gzip are named (a .bz2 file had read as "expected a JSON object or
    // array at byte offset 0", 2026-12-03 review).
    std::ifstream peek(path, std::ios::binary);
    char m[6] = {};
    peek.read(m, sizeof m);
    const auto n = static_cast<size_t>(peek.gcount());
    auto is = [&](const char* magic, size_t len) { return n >= len && std::memcmp(m, magic, len) == 0; };
    const char* kind = is("BZh", 3)                        ? "bzip2 (bunzip2 it)"
                       : is("\xFD" "7zXZ\x00", 6)          ? "xz (unxz it)"
                       : is("\x28\xB5\x2F\xFD", 4)         ? "zstd (unzstd it)"
                       : is("PK\x03\x04", 4)               ? "a zip archive (unzip it)"
                       : is("\x80\x02", 2) || is("\x80\x04", 2) ? "a Python pickle, not a JSON trace"
                                                            : nullptr;
    if (kind)
      throw Error(SourceLocation{path}, std::string("the file is compressed as ") + kind,
                  "Sextant reads Kineto traces as .json or .json.gz (gzip)");
  }
  std::string head(2, '\0');
  head.resize(f->read(head.data(), 2));
  if (head.size() == 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b) {
    uint64_t limit = 0;
    if (max_inflate_bytes > 0) {
      limit = static_cast<uint64_t>(max_inflate_bytes);
    } else if (max_inflate_bytes < 0) {
      std::error_code ec;
      const uint64_t compressed = std::filesystem::file_size(path, ec);
      limit = std::max(kInflateFloorBytes, ec ? 0 : compressed * kInflateRatio);
    }
    (void)progressive;  // without ISA-L every gzip file is inflated whole or streamed
#if defined(SEXTANT_HAVE_ISAL)
    if (progressive)
      if (auto p = inflate_progressive(*f, limit)) return p;
#endif
#if defined(SEXTANT_HAVE_LIBDEFLATE)
    if (auto whole = inflate_whole(*f, limit)) return whole;
#endif
    return std::make_unique<GzipSource>(std::move(f), std::move(head), limit);
  }
  if (head.size() == 2) {
    if (auto mapped = map_plain_file(*f, f->size())) return mapped;
  }
  return std::make_unique<PlainSource>(std::move(f), std::move(head));
}

bool progressive_inflate_available() {
#if defined(SEXTANT_HAVE_ISAL)
  return true;
#else
  return false;
#endif
}

std::string read_all(ByteSource& src) {
  std::string out;
  std::vector<char> buf(1 << 20);
  for (;;) {
    size_t n = src.read(buf.data(), buf.size());
    if (n == 0) break;
    out.append(buf.data(), n);
  }
  return out;
}

}  // namespace sextant::trace
