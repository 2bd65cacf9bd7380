#pragma once
// The analysis view of one rank: which events count as GPU work, their times in integer ticks,
// their kernel type, and the CPU runtime call that launched each of them.
//
// Two rule sets (see docs/trace-analysis.md):
//  - Sextant's own (default): GPU work = events of category kernel, gpu_memcpy, gpu_memset;
//    ticks are nanoseconds, exactly as written; every ProfilerStep is kept; communication kernels
//    are NCCL (ncclKernel_*, ncclDevKernel_*, any "nccl" name), RCCL and gloo.
//  - HTA compatibility (--compat hta), matching Holistic Trace Analysis' loader at commit
//    f4d0062: GPU work = any event with an integer "stream" arg other than -1 (except
//    gpu_user_annotation); ticks are µs with ts = ceil(ts), end = floor(ts + dur); with two or
//    more distinct ProfilerStep#N names, CPU events at or after the start of the last step are
//    dropped, and GPU events are kept only when their correlation id matches a kept CPU event;
//    communication = name starting with "nccl" or containing "gloo:", memory = name containing
//    "Memcpy" or "Memset", everything else computation.
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/model.hpp"

namespace sextant::trace {

enum class KernelKind : uint8_t { Computation = 0, Communication = 1, Memory = 2 };
const char* kernel_kind_name(KernelKind k);  // "COMPUTATION", "COMMUNICATION", "MEMORY"

// Sextant's classification of a kernel name (default rules).
KernelKind classify_kernel(const std::string& name, Category cat);
// HTA's classification (compat rules).
KernelKind classify_kernel_hta(const std::string& name);
// True for collective communication kernels of NCCL (old and new names) and RCCL.
bool is_nccl_kernel_name(const std::string& name);

// 48 bytes (the 32-bit fields together; Frame::cpu holds fewer than 2^31 events).
struct GpuEvent {
  int64_t ts = 0;
  int64_t end = 0;
  int64_t stream = 0;
  int64_t correlation = -1;
  uint32_t name = 0;
  uint32_t event = 0;    // index into RankTrace columns
  int32_t runtime = -1;  // position in Frame::cpu of the launching runtime call; -1 if none
  KernelKind kind = KernelKind::Computation;
};
static_assert(sizeof(GpuEvent) == 48);

struct CpuEvent {
  int64_t ts = 0;
  int64_t end = 0;
  uint32_t event = 0;
};

struct Frame {
  const RankTrace* trace = nullptr;
  bool hta = false;
  double us_per_tick = 1.0;        // 1 (HTA: µs ticks) or 0.001 (ns ticks)
  // Kept non-GPU events the analyses use (runtime/driver calls, events with a correlation id,
  // user annotations and ProfilerSteps), in file order. cpu_op/python_function rows are
  // counted in `rows` but not listed.
  std::vector<CpuEvent> cpu;
  std::vector<GpuEvent> gpu;       // kept GPU events, sorted by ts (stable)
  // cuda_sync waits kept in HTA mode: HTA counts them in the GPU-active span of the temporal
  // breakdown (not in any kernel type). Empty in Sextant mode.
  std::vector<std::pair<int64_t, int64_t>> sync;
  int64_t profiler_steps = 0;      // distinct ProfilerStep#N names
  // CPU events named like a step that no analysis can number ("ProfilerStep#abc", "#-1", "#1x",
  // "#", a number of more than 18 digits): not steps, counted, and the first such name (Sextant
  // rules; 0 in HTA mode, whose rule takes them). They had been left out silently (review of
  // 2026-12-07).
  int64_t unnumbered_steps = 0;
  std::string unnumbered_step_example;
  bool last_step_dropped = false;
  int64_t rows = 0;                // events kept (HTA's "rows after load")
  // Correlation ids that several launching calls carry (two processes merged into one file, a
  // broken exporter): each GPU event then goes to the latest of them that started at or before it.
  int64_t repeated_correlation_ids = 0;
  // A process that drives several GPUs records each device's kernels under its own pid (the
  // device index) with stream ids that repeat across devices: their streams are kept apart as
  // device x kDeviceStreamStride + stream (Sextant rules; 0 when the rank's GPU work is on one
  // device, and in HTA mode, which keys by stream alone). Before 2026-12-02 they were merged.
  static constexpr int64_t kDeviceStreamStride = 1000000;
  int64_t device_stride = 0;
  // The stream key of a GPU-side event's stream (kernels, memcpys, cuda_sync waits) recorded
  // under pid `pid`.
  // A stream or a device named by text or a wide integer (a coded tid or pid, RankTrace::id_code)
  // is kept apart too (two devices' "stream 7", or the streams of pids "GPU 0" and "GPU 1", had
  // merged; 2026-12-05 reviews). The device is the pid, or 2^31 + the code's index for a coded
  // pid; a plain stream's key is device x stride + stream (from kCodedPidKeyBase for a coded
  // pid's), a coded stream's its code less device x 2^25 (the codes span 2^24), below every
  // plain key.
  static constexpr int64_t kCodedPidKeyBase = int64_t{1} << 52;
  int64_t stream_key(int64_t stream, int32_t pid) const {
    if (device_stride <= 0) return stream;
    int64_t dev;
    if (pid >= 0) dev = pid;
    else if (RankTrace::is_id_code(pid)) dev = (int64_t{1} << 31) + (pid - RankTrace::kIdCodeBase);
    else return stream;
    if (stream >= 0)
      return dev < (int64_t{1} << 31) ? dev * device_stride + stream : kCodedPidKeyBase + (dev - (int64_t{1} << 31)) * device_stride + stream;
    if (stream >= INT32_MIN && stream <= INT32_MAX && RankTrace::is_id_code(static_cast<int32_t>(stream)))
      return stream - dev * (int64_t{1} << 25);
    return stream;
  }

  int64_t rank() const { return trace->rank; }
  const std::string& name(uint32_t id) const { return trace->strings.str(id); }
  double us(int64_t ticks) const { return static_cast<double>(ticks) * us_per_tick; }
};

Frame build_frame(const RankTrace& t, bool hta);

// GPU events by correlation id, giving for a correlation id the positions in Frame::gpu of its
// events, in Frame::gpu order: when the ids form a compact range (they are counters), an offset
// array indexed by id (CSR); otherwise a sorted array (16 bytes per event, no hash-map nodes).
// The GPU events of each launching call (GpuEvent::runtime), for Sextant's rules: a correlation
// id carried by several calls no longer pairs every call with every event (HTA's join does).
class GpuByLaunch {
 public:
  explicit GpuByLaunch(const Frame& f);
  // [first, last) of positions in f.gpu whose launching call is f.cpu[k].
  std::pair<const uint32_t*, const uint32_t*> find(size_t k) const {
    if (k + 1 >= at_.size()) return {nullptr, nullptr};
    return {pos_.data() + at_[k], pos_.data() + at_[k + 1]};
  }

 private:
  std::vector<uint32_t> at_, pos_;
};

class GpuByCorrelation {
 public:
  explicit GpuByCorrelation(const Frame& f);
  // [first, last) of positions in f.gpu with this correlation id.
  std::pair<const uint32_t*, const uint32_t*> find(int64_t corr) const;

 private:
  int64_t min_ = 0;
  std::vector<uint32_t> at_;  // compact ids: id - min_ -> [at_[i], at_[i + 1]) in pos_
  std::vector<int64_t> corr_; // otherwise: sorted ids, parallel to pos_
  std::vector<uint32_t> pos_;
};

// Under --compat hta, launch statistics join calls and GPU events on the correlation id as HTA
// does, every call of a repeated id with every event of it: where that join would exceed
// max(1e7, 20 x the GPU events) rows (one id on every event: 1.2e8 rows, 13.7 GB), an error naming
// the file says so instead (review of 2026-12-05). is_launch: by string id, nonzero for a launch.
void check_hta_join(const Frame& f, const GpuByCorrelation& g, const std::vector<char>& is_launch, const char* analysis);

// Merges intervals the way HTA does (sorted by start; an interval starting at or before the
// running maximum end joins the group). Returns [start, end) pairs sorted by start.
std::vector<std::pair<int64_t, int64_t>> merge_intervals(std::vector<std::pair<int64_t, int64_t>> iv);

// merge_intervals of [ts, end) of the GPU events g of f with keep(g), without building the input:
// Frame::gpu is sorted by ts (stable), which is the order merge_intervals would sort them into.
template <class Keep>
std::vector<std::pair<int64_t, int64_t>> merge_gpu_intervals(const Frame& f, Keep keep) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t run_max = 0;
  bool first = true;
  for (const GpuEvent& g : f.gpu) {
    if (!keep(g)) continue;
    if (first || g.ts > run_max) {
      out.emplace_back(g.ts, g.end);
    } else {
      out.back().second = std::max(out.back().second, g.end);
    }
    run_max = first ? g.end : std::max(run_max, g.end);
    first = false;
  }
  return out;
}
inline auto gpu_of_kind(KernelKind k) {
  return [k](const GpuEvent& g) { return g.kind == k; };
}

using Intervals = std::vector<std::pair<int64_t, int64_t>>;
// Total length of merged (sorted, disjoint) intervals.
inline int64_t length(const Intervals& m) {
  int64_t s = 0;
  for (const auto& [a, b] : m) s += b - a;
  return s;
}
// Length of the intersection of two merged (sorted, disjoint) interval lists.
inline int64_t intersection(const Intervals& a, const Intervals& b) {
  int64_t s = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) s += hi - lo;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return s;
}

// The device of a GPU event of f (0 when the frame's GPU work is on one device, and in HTA mode).
inline int64_t device_of(const Frame& f, const GpuEvent& g) {
  if (f.device_stride <= 0) return 0;
  if (g.stream >= Frame::kCodedPidKeyBase) return (int64_t{1} << 31) + (g.stream - Frame::kCodedPidKeyBase) / f.device_stride;
  if (g.stream >= 0) return g.stream / f.device_stride;
  // A text-named stream's key (Frame::stream_key): code - pid x 2^25, code - kIdCodeBase in [0, 2^24).
  if (g.stream < RankTrace::kIdCodeEnd) {
    const int64_t x = g.stream - RankTrace::kIdCodeBase;
    const int64_t q = x >= 0 ? x / (int64_t{1} << 25) : -((-x + (int64_t{1} << 25) - 1) / (int64_t{1} << 25));
    return -q;
  }
  return 0;
}
// The devices of f's GPU events, ascending (one, 0, unless the rank drives several GPUs).
std::vector<int64_t> devices_of(const Frame& f);

// Busy time of kernels of kind `a`, and the part of it during which kernels of kind `b` run on the
// same device, summed over the frame's devices. Communication on one GPU is not hidden by
// computation on another: before 2026-12-03 a process driving two GPUs was measured on the union
// of their busy time (all-exposed NCCL on device 0 read 100% overlapped by GEMMs on device 1).
struct CoveredTime {
  int64_t total = 0, covered = 0;
};
CoveredTime covered_per_device(const Frame& f, KernelKind a, KernelKind b);

}  // namespace sextant::trace
