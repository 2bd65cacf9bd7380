// Kineto (PyTorch profiler) JSON through the whole loader: byte source, scanner, rank and value
// checks (load_traces). Seeds: tests/data/trace and `sextant trace synth` output.
//
// The loader maps a plain file and scans it in place; the same text is also scanned through a
// source that only streams (4 kB windows: values split across window boundaries), and the two
// must agree: both refuse the input, or both keep the same events (a differential check of the
// SIMD in-place path against the windowed one). The in-place text is also read in two halves at
// once (ScanOptions::threads 2, split at any size), which must give what one thread gives.
#include <cstring>
#include <string_view>

#include "fuzz/fuzz_common.hpp"
#include "trace/ingest/byte_source.hpp"
#include "trace/ingest/load.hpp"
#include "trace/ingest/scanner.hpp"

namespace {

class MemorySource final : public sextant::trace::ByteSource {
 public:
  MemorySource(const uint8_t* data, size_t size, bool in_place)
      : data_(reinterpret_cast<const char*>(data)), size_(size), in_place_(in_place) {}
  size_t read(char* dst, size_t n) override {
    const size_t k = n < size_ - pos_ ? n : size_ - pos_;
    if (k) std::memcpy(dst, data_ + pos_, k);
    pos_ += k;
    return k;
  }
  bool compressed() const override { return false; }
  std::string_view contiguous() const override { return in_place_ ? std::string_view(data_, size_) : std::string_view(); }

 private:
  const char* data_;
  size_t size_;
  bool in_place_;
  size_t pos_ = 0;
};

// 0: refused (sextant::Error), 1: scanned.
int scan(const uint8_t* data, size_t size, bool in_place, sextant::trace::RankTrace& out, int threads = 1) {
  MemorySource src(data, size, in_place);
  sextant::trace::ScanOptions o;
  o.chunk_bytes = 4096;
  o.threads = threads;
  o.split_min_bytes = 0;  // split every in-place text into two halves read at once
  try {
    sextant::trace::scan_trace(src, "fuzz.json", out, o);
  } catch (const sextant::Error&) {
    return 0;
  }
  return 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sextant::fuzz::MemFile f(data, size);
  sextant::fuzz::expect_ok_or_error([&] {
    sextant::trace::LoadOptions o;
    o.threads = 1;
    o.scan.chunk_bytes = 4096;
    o.scan.max_inflate_bytes = 8 << 20;
    auto set = sextant::trace::load_traces({f.path()}, o);
    for (const auto& r : set.ranks)
      for (size_t i = 0; i < r.size(); ++i)
        if (r.dur_ns[i] < 0 || r.ts_ns[i] < 0) std::abort();  // rejected at load, never kept
  });
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return 0;  // gzip: fuzz_kineto_gzip's part
  sextant::trace::RankTrace a, b, c;
  const int ra = scan(data, size, true, a), rb = scan(data, size, false, b), rc = scan(data, size, true, c, 2);
  if (ra != rc) {
    std::fprintf(stderr, "one-thread scan %s, two-thread scan %s\n", ra ? "accepted" : "refused", rc ? "accepted" : "refused");
    std::abort();
  }
  if (ra && (a.size() != c.size() || a.json_events != c.json_events || a.strings.size() != c.strings.size() ||
             a.name != c.name || a.ts_ns != c.ts_ns || a.dur_ns != c.dur_ns || a.collectives.size() != c.collectives.size() ||
             a.diagnostics.items().size() != c.diagnostics.items().size())) {
    std::fprintf(stderr, "one-thread and two-thread scans differ\n");
    std::abort();
  }
  if (ra != rb) {
    std::fprintf(stderr, "in-place scan %s, streaming scan %s\n", ra ? "accepted" : "refused", rb ? "accepted" : "refused");
    std::abort();
  }
  if (ra) {
    if (a.size() != b.size() || a.json_events != b.json_events || a.raw_bytes != b.raw_bytes) {
      std::fprintf(stderr, "in-place and streaming scans differ: %zu vs %zu events, %llu vs %llu JSON events, %llu vs %llu bytes\n",
                   a.size(), b.size(), static_cast<unsigned long long>(a.json_events), static_cast<unsigned long long>(b.json_events),
                   static_cast<unsigned long long>(a.raw_bytes), static_cast<unsigned long long>(b.raw_bytes));
      std::abort();
    }
    for (size_t i = 0; i < a.size(); ++i)
      if (a.ts_ns[i] != b.ts_ns[i] || a.dur_ns[i] != b.dur_ns[i] || a.name_of(i) != b.name_of(i)) {
        std::fprintf(stderr, "in-place and streaming scans differ at event %zu\n", i);
        std::abort();
      }
  }
  return 0;
}
