#pragma once
// The in-memory form of one rank's PyTorch profiler (Kineto) trace: columnar events with
// interned strings, plus the trace's metadata and the diagnostics gathered while reading it.
//
// Times are kept exactly as the file wrote them, in integer nanoseconds (Kineto writes
// microseconds, either integers or decimals with up to 3 fraction digits); nothing is rounded
// at ingestion. Analyses decide their own rounding (HTA compatibility rounds to µs).
#include <cstdint>
#include <deque>
#include <memory>
#include <map>
#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sextant::trace {

// Interned strings: every distinct name is stored once; events refer to it by id.
class StringTable {
 public:
  StringTable() = default;
  // The index holds views into the strings: a copy rebuilds it; a move keeps the deque's
  // elements in place (and is noexcept so that vectors of traces move rather than copy).
  StringTable(const StringTable& o);
  StringTable& operator=(const StringTable& o);
  StringTable(StringTable&& o) noexcept;
  StringTable& operator=(StringTable&& o) noexcept;
  uint32_t intern(std::string_view s);
  const std::string& str(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  // Id of s if present; UINT32_MAX otherwise.
  uint32_t find(std::string_view s) const;

 private:
  std::deque<std::string> strings_;                      // deque: stable addresses
  std::unordered_map<std::string_view, uint32_t> index_;  // views into strings_
};

// Event categories that the analyses distinguish. Kineto's modern lower-case names and the
// legacy 2021 capitalised ones ("Kernel", "Runtime", "Memcpy", "Memset", "Operator") map here.
enum class Category : uint8_t {
  CpuOp,
  UserAnnotation,
  GpuUserAnnotation,
  CudaRuntime,
  CudaDriver,
  Kernel,
  GpuMemcpy,
  GpuMemset,
  CudaSync,
  PythonFunction,
  Trace,      // the "PyTorch Profiler (0)" span
  Memory,     // "[memory]" instant events
  Other,      // any other category (kept, by name)
  None,       // event without "cat"
};
const char* category_name(Category c);
Category category_from_string(std::string_view s);
inline bool is_gpu_category(Category c) {
  return c == Category::Kernel || c == Category::GpuMemcpy || c == Category::GpuMemset;
}

// s cut to at most max_bytes on UTF-8 character boundaries: the head and the tail kept, joined by
// "..." (the tail usually says where: "<event name> on rank 3"). A byte cut had split a
// multi-byte character (invalid UTF-8 on stdout) and lost the suffix (review of 2026-12-06).
std::string shorten_utf8(std::string_view s, size_t max_bytes);
// The largest n' <= n at which s can be cut without splitting a UTF-8 character.
size_t utf8_floor(std::string_view s, size_t n);

// Diagnostics: recoverable oddities counted by kind, never fatal.
struct Diagnostic {
  std::string severity;  // "info", "warning"
  int64_t count = 0;
  std::string example;   // first occurrence (a short excerpt or description)
};
class Diagnostics {
 public:
  void add(const std::string& kind, const std::string& severity, const std::string& example);
  // Counts one more of a kind already present (true), or nothing (false: add it with its example).
  // For per-event kinds whose example costs a string to build.
  bool bump(const std::string& kind) {
    auto it = items_.find(kind);
    if (it == items_.end()) return false;
    ++it->second.count;
    return true;
  }
  void merge(const Diagnostics& other);
  // Adds count occurrences of one kind at once (restoring a cached rank).
  void add_count(const std::string& kind, const std::string& severity, const std::string& example, int64_t count);
  const std::map<std::string, Diagnostic>& items() const { return items_; }
  // Withdraws one occurrence of a kind (a provisional diagnostic the set-level step replaced).
  void withdraw(const std::string& kind) {
    auto it = items_.find(kind);
    if (it != items_.end() && --it->second.count <= 0) items_.erase(it);
  }

 private:
  std::map<std::string, Diagnostic> items_;
};

// Arguments of NCCL collectives (record_function "nccl:*" ops and NCCL kernels), where present.
struct CollectiveArgs {
  uint32_t event = 0;             // index into the event columns
  std::string collective_name;    // "allreduce", "all_gather", ...
  int64_t in_msg_nelems = -1;
  int64_t out_msg_nelems = -1;
  int64_t group_size = -1;
  std::string dtype;
  std::string pg_name;            // "Process Group Name"
  int64_t seq = -1;               // "Seq" / "seq" where recorded
};

// Shapes of one operator that the roofline analysis can count FLOPs for (aten::mm, addmm, bmm,
// baddbmm, linear, matmul, convolution, scaled-dot-product attention): the raw JSON text of its
// "Input Dims" and "Input type" args, interned in RankTrace::shape_strings (shapes repeat every
// iteration: 12 bytes per operator instead of two heap strings).
struct OpShape {
  uint32_t event = 0;   // index into the event columns
  uint32_t dims = 0;    // e.g. [[4096, 4096], [4096, 4096]]
  uint32_t types = 0;   // e.g. ["c10::BFloat16", "c10::BFloat16"]; "" when absent
};

// The "bytes" and "memory bandwidth (GB/s)" args of one gpu_memcpy / gpu_memset event (one entry
// per such event, in event order; -1 when the arg is absent or not a number).
struct TransferArgs {
  uint32_t event = 0;   // index into the event columns
  uint32_t zero = 0;    // explicit padding (the cache writes the struct's bytes)
  int64_t bytes = -1;
  double bandwidth_gbps = -1;
};

// A recorded cross-stream wait (a cuda_sync "Stream Wait Event", with the profiler's CUDA sync
// events on): the stream in its `stream` column waits for the CUDA event recorded on
// `wait_stream` by the runtime call whose correlation id is `record_correlation` (cudaEventRecord).
// An "Event Sync" (cudaEventSynchronize) is kept the same way, with `host_waits` 1: the host
// thread, not a stream, waits for the event recorded on `wait_stream`.
struct StreamWait {
  uint32_t event = 0;  // index into the event columns (the cuda_sync event)
  uint32_t host_waits = 0;  // 0: a stream waits (Stream Wait Event); 1: the host (Event Sync)
  int64_t wait_stream = -1;
  int64_t record_correlation = -1;
};

// The "External id" of one cpu_op or user_annotation event that has the same thread, category, ts
// and dur as another (kept by the scanner for such ties only: see RankTrace::tied_external_ids).
struct TiedExternalId {
  uint32_t event = 0;  // index into the event columns
  uint32_t zero = 0;   // explicit padding (the cache writes the struct's bytes)
  int64_t id = -1;
};

// One `[memory]` instant event.
struct MemorySample {
  int64_t ts_ns = 0;
  int64_t bytes = 0;              // allocation (+) or free (-)
  int64_t total_allocated_bytes = -1;
  int64_t total_reserved_bytes = -1;
  int64_t device = -1;
};

struct ProcessGroup {
  std::string name;
  std::string desc;
  int64_t size = 0;
  std::vector<int64_t> ranks;
};

// One rank's trace. Event columns all have the same length (complete "X" events only; flow,
// metadata and instant events are consumed during ingestion).
struct RankTrace {
  std::string file;
  int64_t rank = 0;
  std::string rank_source;        // "distributedInfo", "file name", "default"
  int64_t world_size = 0;
  std::string backend;
  std::vector<ProcessGroup> process_groups;
  std::vector<std::string> device_names;
  int64_t base_time_ns = -1;      // baseTimeNanoseconds; -1 when absent
  std::string generator;          // otherData.generator ("sextant simulate" on a simulated timeline); "" when absent
  bool float_timestamps = false;  // any ts or dur with a fraction (ns resolution)
  bool legacy_schema = false;     // capitalised 2021 categories seen
  bool has_trace_events = false;  // the document had a traceEvents array
  // Set by load_rank_files when the file could not be read (never cached or serialized): the
  // error, rethrown by assemble_trace_set when no file of the job is readable.
  std::exception_ptr load_error;
  uint64_t raw_bytes = 0;         // uncompressed JSON size
  uint64_t file_bytes = 0;
  uint64_t json_events = 0;       // elements of traceEvents

  StringTable strings;
  // Columns.
  std::vector<int64_t> ts_ns;
  std::vector<int64_t> dur_ns;
  std::vector<uint32_t> name;
  std::vector<Category> cat;
  std::vector<int32_t> pid;         // INT32_MIN when absent; a code (below) when not a 32-bit integer
  std::vector<int32_t> tid;
  std::vector<int64_t> stream;      // integer "stream" arg, -1 otherwise (4294967295 occurs)
  std::vector<int64_t> correlation; // -1 when absent
  // (45 bytes per event: the category name, External id is not kept; the byte counts
  // of memcpy/memset events are in `transfers`.)

  // Reserves capacity for about n events (untouched capacity costs no resident memory).
  void reserve(size_t n);

  std::vector<CollectiveArgs> collectives;
  std::vector<MemorySample> memory;
  std::vector<TransferArgs> transfers;  // gpu_memcpy / gpu_memset bytes and bandwidth
  std::vector<StreamWait> stream_waits;  // recorded cross-stream waits, in event order
  std::vector<OpShape> op_shapes;
  StringTable shape_strings;        // the dims and types texts of op_shapes
  // External ids of the cpu_op and user_annotation events that start and end together with
  // another of their category on their thread (same pid, tid, ts and dur), in event order: their
  // times cannot tell which one encloses the other, and the one recorded first (the smaller
  // External id) is the caller. Only such ties are kept (a few per thousand operators), not every
  // operator's id; events of no tie, or without an External id, have none. A tie counts whether
  // or not its other members have an id, so that one with an id tied with one without keeps it
  // (and encloses it). (Review of 2026-12-06: the order in the file had decided, so that a
  // shuffled trace changed kernel_sequences and the roofline.) While scan_trace runs it holds
  // every such event, with its id or -1.
  std::vector<TiedExternalId> tied_external_ids;
  Diagnostics diagnostics;

  const std::string& dims_of(const OpShape& s) const { return shape_strings.str(s.dims); }
  const std::string& types_of(const OpShape& s) const { return shape_strings.str(s.types); }
  void add_op_shape(uint32_t event, std::string_view dims, std::string_view types) {
    op_shapes.push_back(OpShape{event, shape_strings.intern(dims), shape_strings.intern(types)});
  }

  size_t size() const { return ts_ns.size(); }
  const std::string& name_of(size_t i) const { return strings.str(name[i]); }
  // The External id of event i where tied_external_ids holds it, else -1.
  int64_t tied_external_id(uint32_t i) const;
  // Whether event a, of the same thread, ts and dur as event b, comes before it as the enclosing
  // one: the smaller External id where both have one (one with an id before one without), then
  // the name; false for events equal by both (the caller then decides, never by the place in the
  // file).
  bool encloses_tied(uint32_t a, uint32_t b) const;

  // A pid or tid that is not an integer of 32 bits (a text, such as the legacy exports' "CPU
  // functions" or a "stream 7", or an integer beyond 32 bits) is kept apart under a code
  // kIdCodeBase + k, k the index of its label in id_labels ("i:<decimal>" or "s:<text>");
  // integers in [INT32_MIN, kIdCodeEnd) are coded too, so that no code is also a plain id.
  // INT32_MIN stands for no value. Before 2026-12-05 every such id read INT32_MIN, so that two
  // threads with tids 2^40+1 and 2^40+2 merged into one, and so did two GPU streams named by text.
  static constexpr int32_t kIdCodeBase = INT32_MIN + 1;
  static constexpr int32_t kIdCodeEnd = INT32_MIN + (1 << 24);
  StringTable id_labels;
  // The code of label (interned), or INT32_MIN once kIdCodeEnd - kIdCodeBase labels are taken.
  int32_t id_code(std::string_view label);
  // The column value of an integer id.
  int32_t id_of_int(int64_t v);
  static bool is_id_code(int32_t v) { return v >= kIdCodeBase && v < kIdCodeEnd; }
  // An id as the trace wrote it: the decimal integer, the coded text, or "-" for no value.
  std::string id_text(int32_t v) const;
};

}  // namespace sextant::trace
