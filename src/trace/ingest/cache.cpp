#include "trace/ingest/cache.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <zlib.h>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sextant::trace {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'X', 'T', 'R', 'A', 'C', 'E', '\n'};

class Writer {
 public:
  std::string out;
  template <class T>
  void pod(const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void str(const std::string& s) {
    pod<uint64_t>(s.size());
    out.append(s);
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    pod<uint64_t>(v.size());
    if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
};

class Reader {
 public:
  // Reads b up to end (the checksum trailer is not content).
  Reader(const std::string& b, const std::string& what, size_t end) : b_(b), what_(what), end_(std::min(end, b.size())) {}
  template <class T>
  T pod() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string str() {
    auto n = pod<uint64_t>();
    need(n);
    std::string s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  template <class T>
  void vec(std::vector<T>& v) {
    auto n = pod<uint64_t>();
    if (n > (end_ - pos_) / sizeof(T)) fail();
    v.resize(n);
    if (n) std::memcpy(v.data(), b_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
  }
  bool done() const { return pos_ == end_; }
  [[noreturn]] void fail() const {
    throw Error(SourceLocation{what_, 0, 0, ""}, "damaged trace cache (at byte " + std::to_string(pos_) + ")");
  }

 private:
  void need(uint64_t n) const {
    if (n > end_ - pos_) fail();
  }
  const std::string& b_;
  std::string what_;
  size_t end_ = 0;
  size_t pos_ = 0;
};

// CRC-32 (zlib) of the bytes after the header, appended to the cache: a flipped bit in the events
// is a damaged cache, read again from the trace (before 2026-12-03 only the header was checked,
// and a flipped timestamp bit changed the results without a word).
constexpr size_t kHeaderBytes = 8 + sizeof(uint32_t) + sizeof(uint64_t) + sizeof(int64_t);
uint32_t body_crc(const std::string& b, size_t end) {
  uLong c = crc32(0L, Z_NULL, 0);
  for (size_t at = kHeaderBytes; at < end;) {  // zlib takes uInt lengths: chunks of 1 GiB
    const size_t n = std::min<size_t>(end - at, size_t{1} << 30);
    c = crc32(c, reinterpret_cast<const Bytef*>(b.data() + at), static_cast<uInt>(n));
    at += n;
  }
  return static_cast<uint32_t>(c);
}

void write_header(Writer& w, uint64_t size, int64_t mtime) {
  w.out.append(kMagic, sizeof kMagic);
  w.pod<uint32_t>(kCacheFormatVersion);
  w.pod<uint64_t>(size);
  w.pod<int64_t>(mtime);
}

bool source_key(const std::string& path, uint64_t& size, int64_t& mtime) {
  std::error_code ec;
  size = fs::file_size(path, ec);
  if (ec) return false;
  auto t = fs::last_write_time(path, ec);
  if (ec) return false;
  mtime = static_cast<int64_t>(t.time_since_epoch().count());
  return true;
}

}  // namespace

std::string serialize_rank(const RankTrace& t) {
  Writer w;
  write_header(w, 0, 0);
  w.str(t.file);
  w.pod(t.rank);
  w.str(t.rank_source);
  w.pod(t.world_size);
  w.str(t.backend);
  w.pod<uint64_t>(t.process_groups.size());
  for (const auto& g : t.process_groups) {
    w.str(g.name);
    w.str(g.desc);
    w.pod(g.size);
    w.vec(g.ranks);
  }
  w.pod<uint64_t>(t.device_names.size());
  for (const auto& d : t.device_names) w.str(d);
  w.pod(t.base_time_ns);
  w.str(t.generator);
  w.pod<uint8_t>(static_cast<uint8_t>(t.float_timestamps | (t.legacy_schema << 1) | (t.has_trace_events << 2)));
  w.pod(t.raw_bytes);
  w.pod(t.file_bytes);
  w.pod(t.json_events);
  w.pod<uint64_t>(t.strings.size());
  for (size_t i = 0; i < t.strings.size(); ++i) w.str(t.strings.str(static_cast<uint32_t>(i)));
  w.vec(t.ts_ns);
  w.vec(t.dur_ns);
  w.vec(t.name);
  w.vec(t.cat);
  w.vec(t.pid);
  w.vec(t.tid);
  w.pod<uint64_t>(t.id_labels.size());
  for (size_t i = 0; i < t.id_labels.size(); ++i) w.str(t.id_labels.str(static_cast<uint32_t>(i)));
  w.vec(t.stream);
  w.vec(t.correlation);
  w.pod<uint64_t>(t.collectives.size());
  for (const auto& c : t.collectives) {
    w.pod(c.event);
    w.str(c.collective_name);
    w.pod(c.in_msg_nelems);
    w.pod(c.out_msg_nelems);
    w.pod(c.group_size);
    w.str(c.dtype);
    w.str(c.pg_name);
    w.pod(c.seq);
  }
  w.vec(t.memory);
  w.vec(t.transfers);
  w.vec(t.stream_waits);
  w.vec(t.tied_external_ids);
  w.pod<uint64_t>(t.op_shapes.size());
  for (const auto& s : t.op_shapes) {
    w.pod(s.event);
    w.str(t.dims_of(s));
    w.str(t.types_of(s));
  }
  w.pod<uint64_t>(t.diagnostics.items().size());
  for (const auto& [k, d] : t.diagnostics.items()) {
    w.str(k);
    w.str(d.severity);
    w.pod(d.count);
    w.str(d.example);
  }
  w.pod<uint32_t>(body_crc(w.out, w.out.size()));
  return std::move(w.out);
}

RankTrace deserialize_rank(const std::string& bytes, const std::string& what) {
  if (bytes.size() < kHeaderBytes + sizeof(uint32_t)) Reader(bytes, what, 0).fail();
  const size_t end = bytes.size() - sizeof(uint32_t);
  uint32_t stored = 0;
  std::memcpy(&stored, bytes.data() + end, sizeof stored);
  if (stored != body_crc(bytes, end))
    throw Error(SourceLocation{what, 0, 0, ""}, "damaged trace cache (its checksum does not match its contents)");
  Reader r(bytes, what, end);
  char magic[sizeof kMagic];
  for (char& c : magic) c = r.pod<char>();
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) r.fail();
  if (r.pod<uint32_t>() != kCacheFormatVersion) r.fail();
  (void)r.pod<uint64_t>();
  (void)r.pod<int64_t>();
  RankTrace t;
  t.file = r.str();
  t.rank = r.pod<int64_t>();
  t.rank_source = r.str();
  t.world_size = r.pod<int64_t>();
  t.backend = r.str();
  auto ng = r.pod<uint64_t>();
  for (uint64_t i = 0; i < ng; ++i) {
    ProcessGroup g;
    g.name = r.str();
    g.desc = r.str();
    g.size = r.pod<int64_t>();
    r.vec(g.ranks);
    t.process_groups.push_back(std::move(g));
  }
  auto nd = r.pod<uint64_t>();
  for (uint64_t i = 0; i < nd; ++i) t.device_names.push_back(r.str());
  t.base_time_ns = r.pod<int64_t>();
  t.generator = r.str();
  auto flags = r.pod<uint8_t>();
  t.float_timestamps = flags & 1;
  t.legacy_schema = flags & 2;
  t.has_trace_events = flags & 4;
  t.raw_bytes = r.pod<uint64_t>();
  t.file_bytes = r.pod<uint64_t>();
  t.json_events = r.pod<uint64_t>();
  auto ns = r.pod<uint64_t>();
  for (uint64_t i = 0; i < ns; ++i) {
    std::string s = r.str();
    if (t.strings.intern(s) != i) r.fail();  // duplicate string: not written by serialize_rank
  }
  r.vec(t.ts_ns);
  r.vec(t.dur_ns);
  r.vec(t.name);
  r.vec(t.cat);
  r.vec(t.pid);
  r.vec(t.tid);
  auto nl = r.pod<uint64_t>();
  for (uint64_t i = 0; i < nl; ++i) {
    std::string s = r.str();
    if (t.id_labels.intern(s) != i) r.fail();
  }
  r.vec(t.stream);
  r.vec(t.correlation);
  const size_t n = t.ts_ns.size();
  if (t.dur_ns.size() != n || t.name.size() != n || t.cat.size() != n || t.pid.size() != n || t.tid.size() != n ||
      t.stream.size() != n || t.correlation.size() != n)
    r.fail();
  for (uint32_t id : t.name)
    if (id >= t.strings.size()) r.fail();
  for (Category c : t.cat)
    if (static_cast<uint8_t>(c) > static_cast<uint8_t>(Category::None)) r.fail();
  auto nc = r.pod<uint64_t>();
  for (uint64_t i = 0; i < nc; ++i) {
    CollectiveArgs c;
    c.event = r.pod<uint32_t>();
    c.collective_name = r.str();
    c.in_msg_nelems = r.pod<int64_t>();
    c.out_msg_nelems = r.pod<int64_t>();
    c.group_size = r.pod<int64_t>();
    c.dtype = r.str();
    c.pg_name = r.str();
    c.seq = r.pod<int64_t>();
    if (c.event >= n) r.fail();
    t.collectives.push_back(std::move(c));
  }
  r.vec(t.memory);
  r.vec(t.transfers);
  for (const auto& x : t.transfers)
    if (x.event >= n) r.fail();
  r.vec(t.stream_waits);
  for (const auto& x : t.stream_waits)
    if (x.event >= n) r.fail();
  r.vec(t.tied_external_ids);
  for (size_t i = 0; i < t.tied_external_ids.size(); ++i)
    if (t.tied_external_ids[i].event >= n || (i > 0 && t.tied_external_ids[i].event <= t.tied_external_ids[i - 1].event))
      r.fail();
  auto nsh = r.pod<uint64_t>();
  for (uint64_t i = 0; i < nsh; ++i) {
    const auto event = r.pod<uint32_t>();
    std::string dims = r.str();
    std::string types = r.str();
    if (event >= n) r.fail();
    t.add_op_shape(event, dims, types);
  }
  auto ndg = r.pod<uint64_t>();
  for (uint64_t i = 0; i < ndg; ++i) {
    std::string k = r.str(), sev = r.str();
    auto count = r.pod<int64_t>();
    std::string ex = r.str();
    t.diagnostics.add_count(k, sev, ex, count);
  }
  if (!r.done()) r.fail();
  return t;
}

std::string cache_path_for(const std::string& trace_path, const std::string& cache_dir) {
  if (cache_dir.empty()) return trace_path + ".sxcache";
  std::error_code ec;
  std::string abs = fs::absolute(trace_path, ec).lexically_normal().string();
  // FNV-1a of the absolute path, plus the file name for readability.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : abs) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return (fs::path(cache_dir) / (fs::path(trace_path).filename().string() + "." + hex + ".sxcache")).string();
}

std::optional<RankTrace> read_rank_cache(const std::string& trace_path, const std::string& cache_dir) {
  uint64_t size = 0;
  int64_t mtime = 0;
  if (!source_key(trace_path, size, mtime)) return std::nullopt;
  const std::string cp = cache_path_for(trace_path, cache_dir);
  std::error_code ec;
  if (!fs::is_regular_file(cp, ec)) return std::nullopt;
  std::ifstream in(cp, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Header: magic, version, source size, source mtime.
  const size_t hdr = sizeof kMagic + sizeof(uint32_t) + sizeof(uint64_t) + sizeof(int64_t);
  if (bytes.size() < hdr || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  uint32_t ver;
  uint64_t s;
  int64_t m;
  std::memcpy(&ver, bytes.data() + sizeof kMagic, sizeof ver);
  std::memcpy(&s, bytes.data() + sizeof kMagic + sizeof ver, sizeof s);
  std::memcpy(&m, bytes.data() + sizeof kMagic + sizeof ver + sizeof s, sizeof m);
  if (ver != kCacheFormatVersion || s != size || m != mtime) return std::nullopt;
  try {
    RankTrace t = deserialize_rank(bytes, cp);
    t.file = trace_path;
    return t;
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool write_rank_cache(const std::string& trace_path, const std::string& cache_dir, const RankTrace& t) {
  uint64_t size = 0;
  int64_t mtime = 0;
  if (!source_key(trace_path, size, mtime)) return false;
  std::string bytes = serialize_rank(t);
  // Patch the key into the header written by serialize_rank.
  std::memcpy(bytes.data() + sizeof kMagic + sizeof(uint32_t), &size, sizeof size);
  std::memcpy(bytes.data() + sizeof kMagic + sizeof(uint32_t) + sizeof size, &mtime, sizeof mtime);
  try {
    std::error_code ec;
    if (!cache_dir.empty()) fs::create_directories(cache_dir, ec);
    write_file_atomic(cache_path_for(trace_path, cache_dir), bytes);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace sextant::trace
