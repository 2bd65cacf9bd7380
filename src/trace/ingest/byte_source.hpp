#pragma once
// Byte sources for trace files: plain JSON read in chunks, or gzip inflated by a background
// thread into a small ring of blocks so that decompression overlaps with parsing. Memory is
// bounded by the block size times the ring length, whatever the file size.
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sextant::trace {

// An allocator that leaves new elements uninitialised (resize() does not zero them): byte
// buffers that are filled by read()/inflate() right after growing would otherwise be cleared
// first, which costs a page-faulting memset of the whole window per file (and, for the gzip
// ring, per 4 MiB block) before a byte is parsed.
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() noexcept = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using ByteBuffer = std::vector<char, UninitAllocator<char>>;

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Copies up to n bytes into dst; returns 0 only at the end of the data. Throws Error naming
  // the file and the byte offset when the file cannot be read or decompressed.
  virtual size_t read(char* dst, size_t n) = 0;
  virtual bool compressed() const = 0;
  // A source whose whole text is already in memory (a mapped plain file, a gzip member inflated
  // in one go) returns it here, so that the scanner reads it in place instead of copying it into
  // its window; an empty view otherwise. read() still works on such a source.
  virtual std::string_view contiguous() const { return {}; }
  // The reader of contiguous() will not look before `offset` again: the source may hand those
  // pages back to the OS, which keeps the resident set bounded by the unread part.
  virtual void release_before(uint64_t /*offset*/) {}

  // A progressive source: its whole text is being written into one buffer of known final size by
  // a background thread (a gzip member inflated by ISA-L, byte_source.cpp), so that the scanner can
  // read in place behind the writer instead of waiting for the end. progressive_data() is that
  // buffer (nullptr for other sources), progressive_size() its final size, and wait_ready(have)
  // blocks until more than `have` bytes are written or all of them are, and returns how many are
  // (bytes below the returned count are final and may be read from any thread). When the writer
  // fails (corrupt or multi-member gzip, a size other than the trailer's), wait_ready throws
  // InflateRetry: the caller reads the file again through open_byte_source(..., false), whose
  // errors name the byte offset.
  virtual const char* progressive_data() const { return nullptr; }
  virtual size_t progressive_size() const { return 0; }
  virtual size_t wait_ready(size_t have) { return have; }
  // Runs fn on the writer's thread once the writer has finished (the whole text written, or the
  // writer failed: fn finds out through wait_ready) and returns true; returns false, without
  // running fn, when there is no writer or it has finished already: the caller then runs fn on a
  // thread of its own. The scanner's second thread waits for the whole text before it starts;
  // handed to the writer, it starts the moment the text is complete, on a core that is running
  // already, instead of a thread being woken and scheduled (0.1-4 ms on this project's VMs).
  // fn must not throw; the caller must not return before fn has finished.
  virtual bool run_when_written(std::function<void()>& fn) {
    (void)fn;
    return false;
  }
};

// Thrown by a progressive source's wait_ready when its text cannot be completed (see above).
struct InflateRetry {};

// Gzip files whose uncompressed size (from the gzip trailer) is at most this are inflated in one
// go with libdeflate (about 2.7x zlib's speed on Kineto JSON) into memory that the scanner reads
// in place; larger ones stream through zlib on a background thread, so that memory stays bounded
// (the whole text of a trace of 50 MB and more is never held at once). Multi-member files, and
// files that libdeflate rejects, take the zlib path too (which also reports the errors).
inline constexpr uint64_t kWholeInflateMaxBytes = uint64_t{48} << 20;

// Decompression limit (gzip bombs): kDefaultInflateLimit means max(kInflateFloorBytes,
// kInflateRatio x compressed file size); 0 means no limit; a positive value is the limit in bytes.
// Kineto JSON deflates 8-20x, so the default never trips on a real trace. Going past the limit
// throws Error naming the file, the limit and the override (--max-inflate-bytes).
inline constexpr int64_t kDefaultInflateLimit = -1;
inline constexpr uint64_t kInflateFloorBytes = uint64_t{1} << 30;
inline constexpr uint64_t kInflateRatio = 100;

// Gzip files of at least this much text (and at most kWholeInflateMaxBytes), opened with
// `progressive`, are inflated progressively by ISA-L (when built with it) on a thread of their own.
inline constexpr uint64_t kProgressiveInflateMinBytes = uint64_t{4} << 20;

// Opens path; gzip is recognised by its magic bytes (not by the file name). `progressive` (for a
// caller that has a second core for the scan): a gzip member of kProgressiveInflateMinBytes to
// kWholeInflateMaxBytes becomes a progressive source (see ByteSource::progressive_data).
std::unique_ptr<ByteSource> open_byte_source(const std::string& path,
                                             int64_t max_inflate_bytes = kDefaultInflateLimit,
                                             bool progressive = false);

// Whether this build inflates gzip files progressively (built with ISA-L).
bool progressive_inflate_available();

// Whole-file helpers for small inputs and tests.
std::string read_all(ByteSource& src);

}  // namespace sextant::trace
