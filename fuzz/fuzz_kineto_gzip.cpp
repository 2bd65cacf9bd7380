// Gzip-compressed Kineto traces. The first input byte picks how the rest becomes a file:
//   0: the bytes as they are (corrupt headers, bad checksums, garbage after a member);
//   1: the rest gzip-compressed, then cut at a length taken from bytes 1-2 (truncated downloads);
//   2: the rest split in two concatenated gzip members (what `cat a.gz b.gz` gives);
//   3: the rest compressed whole, with a tiny decompression limit (the gzip-bomb guard).
#include <zlib.h>

#include <vector>

#include "fuzz/fuzz_common.hpp"
#include "trace/ingest/load.hpp"

namespace {
std::vector<uint8_t> gzip(const uint8_t* p, size_t n) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::vector<uint8_t> out(deflateBound(&zs, static_cast<uLong>(n)) + 32);
  zs.next_in = const_cast<Bytef*>(p);
  zs.avail_in = static_cast<uInt>(n);
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const int mode = data[0] & 3;
  const size_t cut = static_cast<size_t>(data[1]) << 8 | data[2];
  const uint8_t* rest = data + 3;
  const size_t n = size - 3;
  std::vector<uint8_t> file;
  int64_t limit = 8 << 20;
  if (mode == 0) {
    file.assign(rest, rest + n);
  } else if (mode == 1) {
    file = gzip(rest, n);
    if (cut < file.size()) file.resize(cut);
  } else if (mode == 2) {
    const size_t half = n ? cut % (n + 1) : 0;
    file = gzip(rest, half);
    auto b = gzip(rest + half, n - half);
    file.insert(file.end(), b.begin(), b.end());
  } else {
    file = gzip(rest, n);
    limit = static_cast<int64_t>(cut) + 1;
  }
  sextant::fuzz::MemFile f(file.data(), file.size());
  sextant::fuzz::expect_ok_or_error([&] {
    sextant::trace::LoadOptions o;
    o.threads = 1;
    o.scan.chunk_bytes = 4096;
    o.scan.max_inflate_bytes = limit;
    (void)sextant::trace::load_traces({f.path()}, o);
  });
  return 0;
}
