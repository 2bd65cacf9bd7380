#include "trace/model.hpp"

#include <algorithm>

namespace sextant::trace {

StringTable::StringTable(const StringTable& o) : strings_(o.strings_) {
  for (uint32_t i = 0; i < strings_.size(); ++i) index_.emplace(std::string_view(strings_[i]), i);
}
StringTable& StringTable::operator=(const StringTable& o) {
  if (this != &o) {
    strings_ = o.strings_;
    index_.clear();
    for (uint32_t i = 0; i < strings_.size(); ++i) index_.emplace(std::string_view(strings_[i]), i);
  }
  return *this;
}
StringTable::StringTable(StringTable&& o) noexcept : strings_(std::move(o.strings_)), index_(std::move(o.index_)) {
  o.index_.clear();
}
StringTable& StringTable::operator=(StringTable&& o) noexcept {
  if (this != &o) {
    strings_ = std::move(o.strings_);
    index_ = std::move(o.index_);
    o.strings_.clear();
    o.index_.clear();
  }
  return *this;
}

uint32_t StringTable::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  strings_.emplace_back(s);
  auto id = static_cast<uint32_t>(strings_.size() - 1);
  index_.emplace(std::string_view(strings_.back()), id);
  return id;
}

uint32_t StringTable::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? UINT32_MAX : it->second;
}

int32_t RankTrace::id_code(std::string_view label) {
  const uint32_t k = id_labels.find(label);
  if (k != UINT32_MAX) return kIdCodeBase + static_cast<int32_t>(k);
  if (id_labels.size() >= static_cast<size_t>(kIdCodeEnd - kIdCodeBase)) return INT32_MIN;
  return kIdCodeBase + static_cast<int32_t>(id_labels.intern(label));
}

int32_t RankTrace::id_of_int(int64_t v) {
  if (v <= INT32_MAX && v >= kIdCodeEnd) return static_cast<int32_t>(v);
  return id_code("i:" + std::to_string(v));
}

std::string RankTrace::id_text(int32_t v) const {
  if (v == INT32_MIN) return "-";
  if (is_id_code(v)) {
    const auto k = static_cast<uint32_t>(v - kIdCodeBase);
    if (k < id_labels.size()) return id_labels.str(k).substr(2);
  }
  return std::to_string(v);
}

int64_t RankTrace::tied_external_id(uint32_t i) const {
  const auto it = std::lower_bound(tied_external_ids.begin(), tied_external_ids.end(), i,
                                   [](const TiedExternalId& x, uint32_t e) { return x.event < e; });
  return it != tied_external_ids.end() && it->event == i ? it->id : -1;
}

bool RankTrace::encloses_tied(uint32_t a, uint32_t b) const {
  // By (without an id, id, name): a strict weak order however ids and names mix in a tie of three.
  const int64_t ia = tied_external_id(a), ib = tied_external_id(b);
  if ((ia == -1) != (ib == -1)) return ib == -1;
  if (ia != ib) return ia < ib;
  if (name[a] != name[b]) return name_of(a) < name_of(b);
  return false;
}

void RankTrace::reserve(size_t n) {
  ts_ns.reserve(n);
  dur_ns.reserve(n);
  name.reserve(n);
  cat.reserve(n);
  pid.reserve(n);
  tid.reserve(n);
  stream.reserve(n);
  correlation.reserve(n);
  // Every operator's External id while scanning (pruned to the ties after): capacity only, the
  // pages of operators that never come are not resident.
  tied_external_ids.reserve(n);
}

const char* category_name(Category c) {
  switch (c) {
    case Category::CpuOp: return "cpu_op";
    case Category::UserAnnotation: return "user_annotation";
    case Category::GpuUserAnnotation: return "gpu_user_annotation";
    case Category::CudaRuntime: return "cuda_runtime";
    case Category::CudaDriver: return "cuda_driver";
    case Category::Kernel: return "kernel";
    case Category::GpuMemcpy: return "gpu_memcpy";
    case Category::GpuMemset: return "gpu_memset";
    case Category::CudaSync: return "cuda_sync";
    case Category::PythonFunction: return "python_function";
    case Category::Trace: return "Trace";
    case Category::Memory: return "[memory]";
    case Category::Other: return "other";
    case Category::None: return "";
  }
  return "";
}

Category category_from_string(std::string_view s) {
  switch (s.size()) {
    case 5:
      if (s == "Trace") return Category::Trace;
      break;
    case 6:
      if (s == "cpu_op") return Category::CpuOp;
      if (s == "kernel" || s == "Kernel") return Category::Kernel;
      if (s == "Memcpy") return Category::GpuMemcpy;
      if (s == "Memset") return Category::GpuMemset;
      break;
    case 7:
      if (s == "Runtime") return Category::CudaRuntime;
      break;
    case 8:
      if (s == "Operator") return Category::CpuOp;
      if (s == "[memory]") return Category::Memory;
      break;
    case 9:
      if (s == "cuda_sync") return Category::CudaSync;
      break;
    case 10:
      if (s == "gpu_memcpy") return Category::GpuMemcpy;
      if (s == "gpu_memset") return Category::GpuMemset;
      break;
    case 11:
      if (s == "cpu_op") return Category::CpuOp;
      if (s == "cuda_driver") return Category::CudaDriver;
      break;
    case 12:
      if (s == "cuda_runtime") return Category::CudaRuntime;
      break;
    case 15:
      if (s == "user_annotation") return Category::UserAnnotation;
      if (s == "python_function") return Category::PythonFunction;
      break;
    case 19:
      if (s == "gpu_user_annotation") return Category::GpuUserAnnotation;
      break;
    default:
      break;
  }
  return Category::Other;
}

size_t utf8_floor(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  // Back over continuation bytes (10xxxxxx) to the lead byte of the character at n; at most 3.
  size_t k = n;
  while (k > 0 && n - k < 3 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
  return (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80 ? n : k;  // not UTF-8 there: the byte cut
}

std::string shorten_utf8(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  constexpr std::string_view kEllipsis = "...";
  if (max_bytes <= kEllipsis.size()) return std::string(s.substr(0, utf8_floor(s, max_bytes)));
  const size_t room = max_bytes - kEllipsis.size();
  const size_t tail_bytes = room / 3;  // a third for the tail (where), the rest for the head
  const size_t head = utf8_floor(s, room - tail_bytes);
  // The tail starts on a character boundary at or after size - tail_bytes.
  size_t from = s.size() - tail_bytes;
  while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) ++from;
  std::string out;
  out.reserve(max_bytes);
  out.append(s.substr(0, head)).append(kEllipsis).append(s.substr(from));
  return out;
}

namespace {
constexpr size_t kExampleMaxBytes = 200;
}  // namespace

void Diagnostics::add(const std::string& kind, const std::string& severity, const std::string& example) {
  auto& d = items_[kind];
  if (d.count == 0) {
    d.severity = severity;
    // On UTF-8 boundaries, head and tail kept (review of 2026-12-06: substr(0, 200) split
    // characters and cut off the "on rank N" the examples end with).
    d.example = shorten_utf8(example, kExampleMaxBytes);
  }
  ++d.count;
}

void Diagnostics::add_count(const std::string& kind, const std::string& severity, const std::string& example,
                            int64_t count) {
  auto& d = items_[kind];
  if (d.count == 0) {
    d.severity = severity;
    d.example = shorten_utf8(example, kExampleMaxBytes);
  }
  d.count += count;
}

void Diagnostics::merge(const Diagnostics& other) {
  for (const auto& [k, v] : other.items_) {
    auto& d = items_[k];
    if (d.count == 0) {
      d.severity = v.severity;
      d.example = v.example;
    }
    d.count += v.count;
  }
}

}  // namespace sextant::trace
