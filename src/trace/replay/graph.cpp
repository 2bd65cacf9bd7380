#include "trace/replay/graph.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "trace/analyses/analysis.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sextant::trace::replay {

namespace {
constexpr size_t kHugePageBytes = size_t{2} << 20;
size_t whole_pages(size_t bytes) { return (bytes + 4095) / 4096 * 4096; }
}  // namespace

void* large_block_allocate(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kLargeBlockBytes) {
    // Mapped at a 2 MiB boundary, not rounded up: huge pages back the whole 2 MiB ranges inside
    // the block that get written, the tail stays in 4 KiB pages (no memory beyond the block's).
    const size_t len = whole_pages(bytes);
    void* raw = ::mmap(nullptr, len + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto base = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (base + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (aligned > base) ::munmap(raw, aligned - base);
    ::munmap(reinterpret_cast<void*>(aligned + len), base + kHugePageBytes - aligned);
    ::madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);  // advisory: without it, 4 KiB pages
    return reinterpret_cast<void*>(aligned);
  }
#endif
  return ::operator new(bytes);
}

void large_block_deallocate(void* p, size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kLargeBlockBytes) {
    ::munmap(p, whole_pages(bytes));
    return;
  }
#endif
  ::operator delete(p, bytes);
}

const char* attribution_name(Attribution a) {
  switch (a) {
    case Attribution::CpuBound: return "cpu_bound";
    case Attribution::DataLoading: return "data_loading";
    case Attribution::LaunchOverhead: return "launch_overhead";
    case Attribution::Compute: return "compute";
    case Attribution::Communication: return "communication";
    case Attribution::Memcpy: return "memcpy";
    case Attribution::PreviousIteration: return "previous_iteration";
    case Attribution::Unexplained: return "unexplained";
    case Attribution::Count_: break;
  }
  return "";
}

namespace {

enum class CallType : uint8_t { Launch, DeviceSync, StreamSync, EventSync, SyncMemcpy, AsyncMemcpy, Other };

bool contains(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }

CallType call_type(const std::string& n) {
  if (contains(n, "DeviceSynchronize") || contains(n, "CtxSynchronize")) return CallType::DeviceSync;
  if (contains(n, "StreamSynchronize")) return CallType::StreamSync;
  if (contains(n, "EventSynchronize")) return CallType::EventSync;
  const bool memop = contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "memcpy") || contains(n, "memset");
  if (memop) return contains(n, "Async") ? CallType::AsyncMemcpy : CallType::SyncMemcpy;
  if (contains(n, "Launch")) return CallType::Launch;
  return CallType::Other;
}

Attribution gpu_attr(KernelKind k) {
  switch (k) {
    case KernelKind::Communication: return Attribution::Communication;
    case KernelKind::Memory: return Attribution::Memcpy;
    case KernelKind::Computation: break;
  }
  return Attribution::Compute;
}

// Whether n contains p (lower case) ignoring the case of ASCII letters (no copy of n).
bool contains_nocase(const std::string& n, std::string_view p) {
  if (n.size() < p.size()) return false;
  for (size_t i = 0; i + p.size() <= n.size(); ++i) {
    size_t j = 0;
    for (; j < p.size(); ++j) {
      char c = n[i + j];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != p[j]) break;
    }
    if (j == p.size()) return true;
  }
  return false;
}

bool is_dataloader_name(const std::string& n) {
  return contains_nocase(n, "dataloader") || contains_nocase(n, "data_loader");
}

struct Step {
  int64_t ts, end, n;
  int64_t tid_key;
};

int64_t thread_key(const RankTrace& t, uint32_t ev) {
  return (static_cast<int64_t>(t.pid[ev]) << 32) ^ static_cast<int64_t>(static_cast<uint32_t>(t.tid[ev]));
}

constexpr uint8_t kUnknownType = 0xff;  // CallType not yet classified

}  // namespace

// Scratch of the walk: per-frame indexes and per-iteration buffers, cleared (not freed) between
// uses, so each keeps the capacity of the largest iteration seen.
struct Workspace::Impl {
  // Per frame.
  LargeVector<uint8_t> type_of_name;  // CallType per string id, kUnknownType until classified
  LargeVector<Step> steps;
  LargeVector<uint32_t> stream_rank;  // per GPU event: rank of its stream among the frame's streams
  LargeVector<int64_t> streams;       // the frame's distinct streams, ascending
  LargeVector<int64_t> stream_last_end;
  LargeVector<uint32_t> stream_last;
  LargeVector<int64_t> lat;
  LargeVector<std::pair<int64_t, int64_t>> sync_stream;
  LargeVector<std::pair<uint32_t, uint32_t>> waits_own;
  LargeVector<uint32_t> prev_on_stream;  // per GPU event: the previous one on its stream (kNone: first)
  LargeVector<uint32_t> call_node;       // cpu position -> node (enter node for syncs)
  LargeVector<uint32_t> gpu_node;        // gpu position -> node
  LargeVector<uint32_t> calls_by_ts;     // cpu positions of the runtime/driver calls, by start
  LargeVector<uint32_t> launch_at;       // CSR over calls_by_ts: its GPU events in launch_k[launch_at[i] .. [i + 1])
  LargeVector<uint32_t> launch_k;
  LargeVector<uint32_t> unlaunched;      // gpu positions without a launching call, by ts
  // Work launched before the iteration (carry-in), swept forward with the iterations' starts: per
  // stream the event launched before the start that ends last, and the streams where that end is
  // after the start (live).
  LargeVector<uint32_t> carry_last;
  LargeVector<uint32_t> live;
  LargeVector<char> in_live;
  // Per stream: its resource in the iteration's graph (-1: none yet), reset through touched_streams.
  LargeVector<int32_t> res_of_stream;
  LargeVector<uint32_t> touched_streams, window_streams;
  // Device synchronisations of a thread, swept in launch order (see the sync edges): per stream
  // the latest end launched so far and whether a later sync must look at it again.
  LargeVector<int64_t> ds_maxend;
  LargeVector<uint8_t> ds_flags;
  LargeVector<uint32_t> ds_touched, ds_dirty, launch_order;
  // Per iteration.
  LargeVector<uint32_t> calls, call_tmp;
  LargeVector<int64_t> call_key, thread_keys;
  LargeVector<uint32_t> bucket_at;
  LargeVector<uint32_t> touched_calls;
  struct PendingSync {
    uint32_t ret;
    uint32_t cpu;
    CallType type;
  };
  LargeVector<PendingSync> pending;
  LargeVector<uint32_t> gk, gk_tmp;
  LargeVector<uint32_t> runs;
  LargeVector<std::pair<int64_t, uint32_t>> by_end, by_end_tmp;
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> by_res;  // by_end split by resource
  LargeVector<int64_t> launch_start;
  LargeVector<std::pair<uint32_t, Edge>> sync_edges;
  LargeVector<uint32_t> carry_events;                 // GPU events in a carry-in run (gpu_node, carry_cover reset)
  LargeVector<uint32_t> carry_cover;                  // per GPU event: the carry-in node whose run holds it (kNone: none)
  LargeVector<std::pair<uint32_t, uint32_t>> carry_span;  // per carry-in run (as Graph::carry_runs): first, last event
  LargeVector<std::pair<uint32_t, Edge>> carry_edges;  // incoming edges of the carry-in nodes
  // Fork/join of a secondary thread inside a host gap of the step's thread (see the host nodes).
  struct MainGap {
    int64_t a, b;      // absolute ticks
    uint32_t node;     // the gap's node
    uint32_t pred;     // the node before it on the step's thread (kNone: none)
  };
  LargeVector<MainGap> main_gaps;
  struct Burst {
    size_t first, last;  // indices into calls: the burst's first and last top-level calls
    size_t gap;          // index into main_gaps
    int64_t s, e;        // absolute ticks: first call's start, last top-level call's end
    bool straddle;       // the last call returns just after the gap's end (see the host nodes)
  };
  LargeVector<Burst> bursts;
  struct StraddleJoin {
    size_t edge;         // index into join_edges
    uint32_t enter;      // the call's first node (its start is in the gap)
    int64_t gap_end;     // ticks from the iteration start
  };
  LargeVector<StraddleJoin> straddle_joins;
  LargeVector<std::pair<uint32_t, Edge>> join_edges;
  LargeVector<uint32_t> indeg, succ_at, succ;
  LargeVector<char> done;
  LargeVector<std::pair<int64_t, uint32_t>> ready;
  Graph gr;
};

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;

namespace {

// Sorts v, whose runs [runs[r], runs[r + 1]) are each sorted, by merging the runs pairwise
// (n log(runs) instead of n log n). The order is total, so the result is the sort's.
template <class V, class R>
void merge_sorted_runs(V& v, R& runs, V& tmp) {
  while (runs.size() > 2) {
    tmp.resize(v.size());
    size_t w = 0, out = 0;
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      const uint32_t a = runs[r], b = runs[r + 1];
      const uint32_t c = r + 2 < runs.size() ? runs[r + 2] : b;
      std::merge(v.begin() + a, v.begin() + b, v.begin() + b, v.begin() + c, tmp.begin() + a);
      runs[out++] = a;
      w = c;
    }
    runs[out++] = static_cast<uint32_t>(w);
    runs.resize(out);
    v.swap(tmp);
  }
}

}  // namespace

std::vector<Graph> build_iteration_graphs(const Frame& f, const BuildOptions& opt, Diagnostics& diag) {
  std::vector<Graph> out;
  for_each_iteration_graph(f, opt, diag, [&](Graph& g) { out.push_back(std::move(g)); });
  return out;
}

void for_each_iteration_graph(const Frame& f, const BuildOptions& opt, Diagnostics& diag,
                              const std::function<void(Graph&)>& visit, Workspace* workspace) {
  std::unique_ptr<Workspace> own_workspace;
  if (!workspace) {
    own_workspace = std::make_unique<Workspace>();
    workspace = own_workspace.get();
  }
  Workspace::Impl& w = workspace->impl();
  const RankTrace& t = *f.trace;
  const std::string rank_s = "rank " + std::to_string(f.rank());
  constexpr uint32_t kNone = Edge::kNone;

  // Call types per name id (each distinct name classified once).
  w.type_of_name.assign(t.strings.size(), kUnknownType);
  auto type_of = [&](uint32_t ev) {
    uint8_t& c = w.type_of_name[t.name[ev]];
    if (c == kUnknownType) c = static_cast<uint8_t>(call_type(t.strings.str(t.name[ev])));
    return static_cast<CallType>(c);
  };
  auto is_call = [&](const CpuEvent& c) {
    return t.cat[c.event] == Category::CudaRuntime || t.cat[c.event] == Category::CudaDriver;
  };

  // Steps.
  auto& steps = w.steps;
  steps.clear();
  for (const auto& c : f.cpu) {
    if (t.cat[c.event] == Category::GpuUserAnnotation) continue;  // the GPU-side copy of the step range
    const std::string& n = t.strings.str(t.name[c.event]);
    // The one parser of step names the analyses share (iterations, stragglers, memory): its own
    // digit loop had overflowed on 20 digits and refused "ProfilerStep# 7", which the iterations
    // table listed (2026-12-03 review).
    const int64_t num = profiler_step_number(n);
    if (num >= 0) steps.push_back(Step{c.ts, c.end, num, thread_key(t, c.event)});
  }
  // On the whole step (std::sort by start alone left steps of one start in an unspecified order).
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return std::tie(a.ts, a.end, a.n, a.tid_key) < std::tie(b.ts, b.end, b.n, b.tid_key);
  });
  // A step that overlaps the next one ends at the next one's start: each call (and the GPU work it
  // launches) belongs to the latest step that started at or before it, the rule by which the
  // iterations table places GPU work (analyses/iterations.cpp). Before the 2026-12-07 review each
  // step's window was its raw [ts, end), and the work launched in an overlap counted in both steps
  // (a step 15 us into the next had the next one's memcpy on its critical path; with 500 us more
  // the step covered the whole next step).
  {
    int64_t overlapping = 0;
    for (size_t i = 0; i + 1 < steps.size(); ++i)
      if (steps[i].end > steps[i + 1].ts) {
        steps[i].end = steps[i + 1].ts;
        ++overlapping;
      }
    if (overlapping > 0)
      diag.add_count("replay: ProfilerSteps overlapping the next one (each ends at the next one's start; the work launched in the "
                     "overlap is the later step's)",
                     "warning", rank_s, overlapping);
  }
  if (steps.empty()) {
    // The whole trace is one iteration: from the first call or GPU event to the last end.
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    // The step's thread: the one of the earliest call (the Python thread runs the forward pass
    // before the autograd thread runs the backward; the first call in file order, used before
    // 2026-12-02, is often the autograd thread's).
    int64_t main_key = 0;
    int64_t main_ts = INT64_MAX;
    for (const auto& c : f.cpu)
      if (is_call(c)) {
        lo = std::min(lo, c.ts);
        hi = std::max(hi, c.end);
        if (c.ts < main_ts) {
          main_key = thread_key(t, c.event);
          main_ts = c.ts;
        }
      }
    for (const auto& g : f.gpu) {
      lo = std::min(lo, g.ts);
      hi = std::max(hi, g.end);
    }
    if (lo == INT64_MAX) {
      diag.add("replay: no runtime calls or GPU events", "info", rank_s);
      return;
    }
    steps.push_back(Step{lo, hi, -1, main_key});
  }

  // Streams: each GPU event's stream as its rank among the frame's distinct streams (ascending),
  // so that per-stream state is an array and "by stream" orders are counting sorts.
  const auto G = static_cast<uint32_t>(f.gpu.size());
  {
    std::unordered_map<int64_t, uint32_t> first_seen;
    auto& streams = w.streams;
    streams.clear();
    w.stream_rank.resize(G);
    int64_t last_stream = 0;
    uint32_t last_id = kNone;
    for (uint32_t k = 0; k < G; ++k) {
      const int64_t s = f.gpu[k].stream;
      if (last_id == kNone || s != last_stream) {
        auto [it, fresh] = first_seen.emplace(s, static_cast<uint32_t>(streams.size()));
        if (fresh) streams.push_back(s);
        last_stream = s;
        last_id = it->second;
      }
      w.stream_rank[k] = last_id;
    }
    // First-seen ids -> ranks by stream value.
    std::vector<uint32_t> by_value(streams.size()), rank_of(streams.size());
    for (uint32_t i = 0; i < by_value.size(); ++i) by_value[i] = i;
    std::sort(by_value.begin(), by_value.end(), [&](uint32_t a, uint32_t b) { return streams[a] < streams[b]; });
    for (uint32_t r = 0; r < by_value.size(); ++r) rank_of[by_value[r]] = r;
    for (uint32_t k = 0; k < G; ++k) w.stream_rank[k] = rank_of[w.stream_rank[k]];
    std::sort(streams.begin(), streams.end());
  }
  const auto S = static_cast<uint32_t>(w.streams.size());

  // Median launch latency (call start -> GPU start) over GPU events whose stream was idle at the
  // launch; and the previous GPU event on the same stream, for every GPU event (carry-in work).
  int64_t median_latency = 0;
  {
    w.stream_last_end.assign(S, INT64_MIN);
    w.stream_last.assign(S, kNone);
    w.prev_on_stream.resize(G);
    auto& lat = w.lat;
    lat.clear();
    // A start within kWaitTolerance of another stream's end, that end after the launch, is a
    // cross-stream wait, not launch latency: left out (gemm -> NCCL -> gemm on two streams had
    // taken the NCCL kernel's 400 us wait as the median launch latency, review of 2026-12-03).
    const auto wait_tolerance = static_cast<int64_t>(std::ceil(2.0 / f.us_per_tick));  // 2 us
    for (uint32_t k = 0; k < G; ++k) {
      const auto& g = f.gpu[k];
      const uint32_t s = w.stream_rank[k];
      const int64_t prev_end = w.stream_last_end[s];
      if (g.runtime >= 0) {
        const CpuEvent& c = f.cpu[static_cast<size_t>(g.runtime)];
        if (prev_end <= c.ts && g.ts >= c.ts) {
          bool waited = false;
          for (uint32_t o = 0; o < S && !waited; ++o) {
            const int64_t e = w.stream_last_end[o];
            waited = o != s && e != INT64_MIN && e > c.ts && e <= g.ts && g.ts - e <= wait_tolerance;
          }
          if (!waited) lat.push_back(g.ts - c.ts);
        }
      }
      w.stream_last_end[s] = std::max(prev_end, g.end);
      w.prev_on_stream[k] = w.stream_last[s];
      w.stream_last[s] = k;
    }
    if (!lat.empty()) {
      auto mid = lat.begin() + static_cast<std::ptrdiff_t>(lat.size() / 2);
      std::nth_element(lat.begin(), mid, lat.end());
      median_latency = *mid;
    }
  }

  // Recorded cross-stream waits (cuda_sync "Stream Wait Event", when the profiler records CUDA
  // sync events). The wait's own correlation id is its cudaStreamWaitEvent call's, and runtime
  // correlation ids increase with the calls: the first GPU event launched on the waiting stream
  // after that call (the smallest launch correlation above it) depends on the last GPU event
  // launched on the producer stream before the cudaEventRecord the wait names. (The wait's ts is
  // the host call's time, not a GPU time: matching by GPU start time pinned a wait to work queued
  // before it whenever the GPU ran behind.) With any recorded wait bound these are the
  // cross-stream dependencies; without, they are inferred (below).
  // waits: (consumer, producer) pairs, every producer kept (a consumer may wait on several
  // streams; a wait that did not bind in the measured run binds when the work around it changes).
  // recorded_waits: at least one wait of the trace was bound; otherwise (no usable correlation,
  // the record outside the trace) the dependencies are inferred as without recorded waits.
  std::vector<std::pair<uint32_t, uint32_t>> waits;
  // Event syncs: (the sync's correlation, the GPU event it waits for: the last one launched on the
  // recorded stream before the cudaEventRecord).
  std::vector<std::pair<int64_t, uint32_t>> event_sync_waits;
  if (!t.stream_waits.empty()) {
    auto rank_of_stream = [&](int64_t s) -> int64_t {
      auto it = std::lower_bound(w.streams.begin(), w.streams.end(), s);
      return it != w.streams.end() && *it == s ? it - w.streams.begin() : -1;
    };
    std::vector<std::vector<std::pair<int64_t, uint32_t>>> by_corr(S);
    for (uint32_t k = 0; k < G; ++k)
      if (f.gpu[k].correlation >= 0) by_corr[w.stream_rank[k]].emplace_back(f.gpu[k].correlation, k);
    for (auto& v : by_corr) std::sort(v.begin(), v.end());
    for (const auto& sw : t.stream_waits) {
      if (sw.host_waits) {
        const int64_t from = rank_of_stream(f.stream_key(sw.wait_stream, t.pid[sw.event]));
        const int64_t sync_corr = t.correlation[sw.event];
        if (from < 0 || sync_corr < 0) continue;
        const auto& prod = by_corr[static_cast<size_t>(from)];
        auto p = std::lower_bound(prod.begin(), prod.end(), std::make_pair(sw.record_correlation, uint32_t{0}));
        if (p == prod.begin()) continue;  // nothing launched on the recorded stream before the record
        event_sync_waits.emplace_back(sync_corr, std::prev(p)->second);
        continue;
      }
      // (both streams on the waiting event's device: a wait is within one device)
      const int64_t to = rank_of_stream(f.stream_key(t.stream[sw.event], t.pid[sw.event]));
      const int64_t from = rank_of_stream(f.stream_key(sw.wait_stream, t.pid[sw.event]));
      const int64_t wait_corr = t.correlation[sw.event];
      if (to < 0 || from < 0 || to == from || wait_corr < 0) continue;
      const auto& prod = by_corr[static_cast<size_t>(from)];
      auto p = std::lower_bound(prod.begin(), prod.end(), std::make_pair(sw.record_correlation, uint32_t{0}));
      if (p == prod.begin()) continue;  // nothing launched on the producer stream before the record
      const auto& cons = by_corr[static_cast<size_t>(to)];
      auto c = std::upper_bound(cons.begin(), cons.end(), std::make_pair(wait_corr, UINT32_MAX));
      if (c == cons.end()) continue;  // nothing launched on the waiting stream after the wait
      waits.emplace_back(c->second, std::prev(p)->second);
    }
    std::sort(waits.begin(), waits.end());
    waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
    std::sort(event_sync_waits.begin(), event_sync_waits.end());
  }
  const bool recorded_waits = !waits.empty();

  // Stream of each cuda_sync event by correlation id (cudaStreamSynchronize's stream).
  auto& sync_stream = w.sync_stream;
  sync_stream.clear();
  for (size_t i = 0; i < t.size(); ++i)
    if (t.cat[i] == Category::CudaSync && t.correlation[i] != -1 && t.stream[i] != -1)
      sync_stream.emplace_back(t.correlation[i], f.stream_key(t.stream[i], t.pid[i]));
  std::sort(sync_stream.begin(), sync_stream.end());
  auto event_sync_wait = [&](int64_t corr) -> uint32_t {
    auto it = std::lower_bound(event_sync_waits.begin(), event_sync_waits.end(), std::make_pair(corr, uint32_t{0}));
    return it != event_sync_waits.end() && it->first == corr ? it->second : kNone;
  };
  auto stream_of_sync = [&](int64_t corr) -> int64_t {
    auto it = std::lower_bound(sync_stream.begin(), sync_stream.end(), std::make_pair(corr, INT64_MIN));
    return it != sync_stream.end() && it->first == corr ? it->second : -1;
  };

  // Data-loading intervals per thread (operators/annotations named like a DataLoader).
  std::unordered_map<int64_t, std::vector<std::pair<int64_t, int64_t>>> loader;
  {
    std::vector<char> is_loader(t.strings.size(), 0);
    bool any = false;
    for (uint32_t id = 0; id < t.strings.size(); ++id)
      if (is_dataloader_name(t.strings.str(id))) is_loader[id] = 1, any = true;
    if (any) {
      const int64_t div = f.hta ? 1000 : 1;
      for (size_t i = 0; i < t.size(); ++i)
        if (is_loader[t.name[i]] && !is_gpu_category(t.cat[i]))
          loader[thread_key(t, static_cast<uint32_t>(i))].emplace_back(t.ts_ns[i] / div, (t.ts_ns[i] + t.dur_ns[i]) / div);
    }
  }
  // Per thread: intervals sorted by start and the running maximum of their ends, so that a gap
  // only visits the intervals that can overlap it.
  std::unordered_map<int64_t, std::vector<int64_t>> loader_max_end;
  for (auto& [key, iv] : loader) {
    std::sort(iv.begin(), iv.end());
    auto& m = loader_max_end[key];
    int64_t run = INT64_MIN;
    for (const auto& p : iv) m.push_back(run = std::max(run, p.second));
  }
  auto in_loader = [&](int64_t key, int64_t a, int64_t b) {
    if (loader.empty() || b <= a) return false;
    auto it = loader.find(key);
    if (it == loader.end()) return false;
    const auto& iv = it->second;
    const auto& mx = loader_max_end[key];
    int64_t covered = 0;
    auto hi = static_cast<size_t>(std::lower_bound(iv.begin(), iv.end(), std::make_pair(b, INT64_MIN)) - iv.begin());
    for (size_t i = hi; i-- > 0 && mx[i] > a;)
      covered += std::max<int64_t>(0, std::min(b, iv[i].second) - std::max(a, iv[i].first));
    return 2 * covered > b - a;
  };

  // Which calls returned only after their own GPU copy ended (synchronous memcpy/memset).
  auto& waits_own = w.waits_own;  // (cpu position, gpu position)
  waits_own.clear();
  for (uint32_t k = 0; k < G; ++k) {
    const auto& g = f.gpu[k];
    if (g.runtime < 0) continue;
    const CpuEvent& c = f.cpu[static_cast<size_t>(g.runtime)];
    CallType ct = type_of(c.event);
    if ((ct == CallType::SyncMemcpy || ct == CallType::AsyncMemcpy) && g.end <= c.end)
      waits_own.emplace_back(static_cast<uint32_t>(g.runtime), k);
  }
  std::sort(waits_own.begin(), waits_own.end());
  auto own_wait = [&](uint32_t cpu_pos) -> int64_t {
    if (waits_own.empty()) return -1;
    auto it = std::lower_bound(waits_own.begin(), waits_own.end(), std::make_pair(cpu_pos, 0u));
    return it != waits_own.end() && it->first == cpu_pos ? static_cast<int64_t>(it->second) : -1;
  };

  auto& call_node = w.call_node;
  auto& gpu_node = w.gpu_node;
  call_node.assign(f.cpu.size(), kNone);
  gpu_node.assign(G, kNone);

  // Indexes so that each window costs in proportion to its own events: calls sorted by start,
  // the GPU events launched by each (CSR over that order), GPU events without a launch by start.
  auto& calls_by_ts = w.calls_by_ts;
  calls_by_ts.clear();
  for (uint32_t k = 0; k < f.cpu.size(); ++k)
    if (is_call(f.cpu[k])) calls_by_ts.push_back(k);
  {
    // By start, then on the whole event, never by position: calls that start at the same time
    // (cudaPeekAtLastError of 0 us at a cudaOccupancy... call's start) had kept the file's order,
    // which decided which one is nested in the other, and the graph of a shuffled file lost nodes
    // (dlrm rank 0: 1286, 1285, 1283 nodes for the same events; review of 2026-12-06). The longer
    // call first (the enclosing one, as a call stack nests), then the thread, correlation id and
    // name; events equal in all of these are interchangeable.
    auto by_ts = [&](uint32_t a, uint32_t b) {
      const CpuEvent& x = f.cpu[a];
      const CpuEvent& y = f.cpu[b];
      if (x.ts != y.ts) return x.ts < y.ts;
      if (x.end != y.end) return x.end > y.end;
      const int64_t kx = thread_key(t, x.event), ky = thread_key(t, y.event);
      if (kx != ky) return kx < ky;
      if (t.correlation[x.event] != t.correlation[y.event]) return t.correlation[x.event] < t.correlation[y.event];
      if (t.name[x.event] != t.name[y.event]) return t.strings.str(t.name[x.event]) < t.strings.str(t.name[y.event]);
      return t.cat[x.event] < t.cat[y.event];
    };
    if (!std::is_sorted(calls_by_ts.begin(), calls_by_ts.end(), by_ts))
      std::stable_sort(calls_by_ts.begin(), calls_by_ts.end(), by_ts);
  }
  const auto C = static_cast<uint32_t>(calls_by_ts.size());
  {
    // call_node holds each call's index in calls_by_ts meanwhile (reset below).
    for (uint32_t i = 0; i < C; ++i) call_node[calls_by_ts[i]] = i;
    auto& at = w.launch_at;
    at.assign(C + 1, 0);
    w.unlaunched.clear();
    for (uint32_t k = 0; k < G; ++k) {
      const int32_t rt = f.gpu[k].runtime;
      if (rt < 0) {
        w.unlaunched.push_back(k);
      } else if (call_node[static_cast<size_t>(rt)] != kNone) {
        ++at[call_node[static_cast<size_t>(rt)]];
      }
    }
    uint32_t run = 0;
    for (uint32_t i = 0; i < C; ++i) at[i] = run += at[i];
    at[C] = run;
    w.launch_k.resize(run);
    for (uint32_t k = G; k-- > 0;) {
      const int32_t rt = f.gpu[k].runtime;
      if (rt >= 0 && call_node[static_cast<size_t>(rt)] != kNone) w.launch_k[--at[call_node[static_cast<size_t>(rt)]]] = k;
    }
    for (uint32_t i = 0; i < C; ++i) call_node[calls_by_ts[i]] = kNone;
  }

  // The carry-in sweep (below) and the per-stream indexes of the iterations.
  w.carry_last.assign(S, kNone);
  w.in_live.assign(S, 0);
  w.live.clear();
  w.res_of_stream.assign(S, -1);
  w.carry_cover.assign(G, kNone);
  w.ds_maxend.assign(S, INT64_MIN);
  w.ds_flags.assign(S, 0);
  size_t sweep_call = 0, sweep_unlaunched = 0;
  auto launch_abs = [&](uint32_t k) {  // when a GPU event was launched (its own start without a launch)
    return f.gpu[k].runtime >= 0 ? f.cpu[static_cast<size_t>(f.gpu[k].runtime)].ts : f.gpu[k].ts;
  };

  Graph& gr = w.gr;
  for (size_t si = 0; si < steps.size(); ++si) {
    const Step& st = steps[si];
    gr.step = st.n;
    gr.window_start = st.ts;
    gr.measured_ticks = 0;
    gr.median_launch_latency = median_latency;
    gr.nodes.clear();
    gr.edges.clear();
    gr.edge_at.clear();
    gr.resources.clear();
    gr.order.clear();
    gr.cycles_broken = 0;
    gr.unexplained_edge_ticks = 0;
    gr.carry_runs.clear();
    w.carry_span.clear();
    const int64_t w0 = st.ts;
    // Carry-in: per stream, the event launched before this iteration that ends last, and the
    // streams where it ends after the iteration's start (the steps are in start order, so the
    // launches are swept once per frame).
    {
      auto note_launch = [&](uint32_t k) {
        const uint32_t sr = w.stream_rank[k];
        if (w.carry_last[sr] == kNone || f.gpu[k].end > f.gpu[w.carry_last[sr]].end) w.carry_last[sr] = k;
        if (!w.in_live[sr]) {
          w.in_live[sr] = 1;
          w.live.push_back(sr);
        }
      };
      for (; sweep_call < C && f.cpu[calls_by_ts[sweep_call]].ts < w0; ++sweep_call)
        for (uint32_t a = w.launch_at[sweep_call]; a < w.launch_at[sweep_call + 1]; ++a) note_launch(w.launch_k[a]);
      for (; sweep_unlaunched < w.unlaunched.size() && f.gpu[w.unlaunched[sweep_unlaunched]].ts < w0; ++sweep_unlaunched)
        note_launch(w.unlaunched[sweep_unlaunched]);
      size_t keep = 0;
      for (const uint32_t sr : w.live) {
        if (f.gpu[w.carry_last[sr]].end > w0) w.live[keep++] = sr;
        else w.in_live[sr] = 0;
      }
      w.live.resize(keep);
    }
    w.touched_streams.clear();
    w.window_streams.clear();
    // Edges are found grouped by target node in increasing node order (each node's edges right
    // after it is created; the GPU nodes' after all of them are created, in node order), so they
    // go straight into CSR form; only the sync edges of return nodes come later and are merged in
    // at the end (each after its node's other edges, the order in which they were found).
    auto& sync_edges = w.sync_edges;
    sync_edges.clear();
    auto add_edge = [&](uint32_t to, const Edge& e) {
      assert(to + 1 >= gr.edge_at.size());
      while (gr.edge_at.size() <= to) gr.edge_at.push_back(static_cast<uint32_t>(gr.edges.size()));
      gr.edges.push_back(e);
    };
    auto new_node = [&](NodeKind kind, Attribution attr, int32_t res, int64_t start_abs, int64_t dur, uint32_t name) {
      Node n;
      n.kind = kind;
      n.attr = attr;
      n.resource = res;
      n.measured_start = start_abs - w0;
      n.dur = dur;
      n.name = name;
      gr.nodes.push_back(n);
      return static_cast<uint32_t>(gr.nodes.size() - 1);
    };

    // Calls in the window, by thread: the step's own thread first, then by thread key; each
    // thread's calls in start order (a stable bucket sort of the calls by start).
    const auto lo = static_cast<uint32_t>(
        std::lower_bound(calls_by_ts.begin(), calls_by_ts.end(), st.ts,
                         [&](uint32_t k, int64_t v) { return f.cpu[k].ts < v; }) - calls_by_ts.begin());
    const auto hi = static_cast<uint32_t>(
        std::lower_bound(calls_by_ts.begin() + lo, calls_by_ts.end(), st.end,
                         [&](uint32_t k, int64_t v) { return f.cpu[k].ts < v; }) - calls_by_ts.begin());
    auto& calls = w.calls;
    auto& call_key = w.call_key;
    calls.assign(calls_by_ts.begin() + lo, calls_by_ts.begin() + hi);
    call_key.resize(calls.size());
    bool one_thread = true;
    for (size_t q = 0; q < calls.size(); ++q) {
      call_key[q] = thread_key(t, f.cpu[calls[q]].event);
      one_thread = one_thread && call_key[q] == call_key[0];
    }
    if (!one_thread) {
      auto& keys = w.thread_keys;  // the threads in their order
      // The distinct threads, ascending: a window has a few threads and its calls come in runs
      // of one thread, so each run's key is looked up in the short sorted list (no sort of every
      // call's key); past 256 threads, a sort of the keys.
      keys.clear();
      for (size_t q = 0; q < call_key.size() && keys.size() <= 256; ++q) {
        if (q > 0 && call_key[q] == call_key[q - 1]) continue;
        const auto at = std::lower_bound(keys.begin(), keys.end(), call_key[q]);
        if (at == keys.end() || *at != call_key[q]) keys.insert(at, call_key[q]);
      }
      if (keys.size() > 256) {
        keys.assign(call_key.begin(), call_key.end());
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      }
      auto main_it = std::lower_bound(keys.begin(), keys.end(), st.tid_key);
      if (main_it != keys.end() && *main_it == st.tid_key) std::rotate(keys.begin(), main_it, main_it + 1);
      auto bucket_of = [&](int64_t key) {
        if (key == keys[0]) return uint32_t{0};
        auto it = std::lower_bound(keys.begin() + 1, keys.end(), key);
        return static_cast<uint32_t>(it - keys.begin());
      };
      auto& at = w.bucket_at;
      at.assign(keys.size() + 1, 0);
      for (int64_t k : call_key) ++at[bucket_of(k) + 1];
      for (size_t b = 0; b + 1 < at.size(); ++b) at[b + 1] += at[b];
      auto& tmp = w.call_tmp;
      tmp.resize(calls.size());
      for (size_t q = 0; q < calls.size(); ++q) tmp[at[bucket_of(call_key[q])]++] = calls[q];
      calls.swap(tmp);
      for (size_t q = 0; q < calls.size(); ++q) call_key[q] = thread_key(t, f.cpu[calls[q]].event);
    }

    // GPU events of the window: launched from a call in it, or (without a launch) starting in it;
    // by stream, then position (a counting sort by stream of runs already in position order).
    auto& gk = w.gk;
    gk.clear();
    for (uint32_t i = lo; i < hi; ++i)
      gk.insert(gk.end(), w.launch_k.begin() + w.launch_at[i], w.launch_k.begin() + w.launch_at[i + 1]);
    {
      auto ul = std::lower_bound(w.unlaunched.begin(), w.unlaunched.end(), st.ts,
                                 [&](uint32_t k, int64_t v) { return f.gpu[k].ts < v; });
      for (auto it = ul; it != w.unlaunched.end() && f.gpu[*it].ts < st.end; ++it) gk.push_back(*it);
    }
    auto& runs = w.runs;  // the streams' ranges in gk
    runs.clear();
    runs.push_back(0);
    if (!gk.empty()) {
      bool one_stream = true;
      for (uint32_t k : gk) one_stream = one_stream && w.stream_rank[k] == w.stream_rank[gk[0]];
      if (!one_stream) {
        auto& tmp = w.gk_tmp;
        tmp.resize(gk.size());
        if (S <= 2 * gk.size() + 64) {
          auto& at = w.bucket_at;
          at.assign(S + 1, 0);
          for (uint32_t k : gk) ++at[w.stream_rank[k] + 1];
          for (uint32_t s = 0; s < S; ++s) at[s + 1] += at[s];
          for (uint32_t k : gk) tmp[at[w.stream_rank[k]]++] = k;
        } else {
          tmp.assign(gk.begin(), gk.end());
          std::sort(tmp.begin(), tmp.end(), [&](uint32_t a, uint32_t b) {
            return w.stream_rank[a] != w.stream_rank[b] ? w.stream_rank[a] < w.stream_rank[b] : a < b;
          });
        }
        gk.swap(tmp);
      }
      for (uint32_t q = 1; q < gk.size(); ++q)
        if (w.stream_rank[gk[q]] != w.stream_rank[gk[q - 1]]) runs.push_back(q);
      runs.push_back(static_cast<uint32_t>(gk.size()));
      for (size_t r = 0; r + 1 < runs.size(); ++r)
        if (!std::is_sorted(gk.begin() + runs[r], gk.begin() + runs[r + 1]))
          std::sort(gk.begin() + runs[r], gk.begin() + runs[r + 1]);
    }

    // Host nodes, thread by thread.
    gr.nodes.reserve(3 * calls.size() + 1 + gk.size());
    gr.edges.reserve(6 * calls.size() + 3 * gk.size() + 2);
    gr.edge_at.reserve(3 * calls.size() + gk.size() + 2);
    auto& touched_calls = w.touched_calls;
    touched_calls.clear();
    // Pending sync edges: (return node, cpu position, call type).
    auto& pending = w.pending;
    pending.clear();
    // The step's thread often waits, without a runtime call, for work that a secondary thread
    // launches: loss.backward() hands the backward pass to PyTorch's autograd thread for the
    // device and blocks until it is done. Its host gap is then a wait, not CPU work: a secondary
    // thread's burst of calls that lies inside a gap of the step's thread, launches GPU work,
    // and spans at least half of the gap (of at least opt.join_min_gap_ticks) is forked from the
    // node before the gap (a host-gap node on the secondary thread from the gap's start, or from
    // the thread's previous call if later, to the burst's first call) and joined into the gap,
    // which then starts when the burst's last call returns and keeps only the time after it. A
    // call that starts in the gap and returns after it (integer-us rounding) ends the burst
    // before it. Every qualifying thread joins (one autograd thread per device); a thread that
    // launches nothing (the NCCL watchdog polling events, a pin-memory thread) never does. An
    // unscaled replay is unchanged; the critical path goes through the backward pass.
    auto& main_gaps = w.main_gaps;
    main_gaps.clear();
    auto& bursts = w.bursts;
    auto& join_edges = w.join_edges;
    join_edges.clear();
    w.straddle_joins.clear();

    // A step whose thread issues no call is one host gap: say why the path is (triton_example's
    // ProfilerStep#1 spans 13.3 s on a thread with no other event, its work in another process).
    if (st.n >= 0 && std::none_of(call_key.begin(), call_key.begin() + static_cast<ptrdiff_t>(calls.size()),
                                  [&](int64_t k) { return k == st.tid_key; }))
      diag.add("replay: a ProfilerStep's thread issues no runtime calls in it: the step is one host gap (its work recorded "
               "on another thread or process?)",
               "warning", rank_s);
    bool main_seen = false;
    size_t i = 0;
    while (i < calls.size() || !main_seen) {
      int64_t key = i < calls.size() ? call_key[i] : st.tid_key;
      const bool is_main = key == st.tid_key;
      if (is_main) main_seen = true;
      gr.resources.push_back(Resource{false, key & 0xffffffff});
      const auto res = static_cast<int32_t>(gr.resources.size() - 1);
      const auto first_node_of_thread = static_cast<uint32_t>(gr.nodes.size());
      uint32_t prev = kNone;
      int64_t prev_end = st.ts;
      auto chain = [&](uint32_t node) {
        if (prev != kNone) add_edge(node, Edge{prev, 0, EdgeKind::Program, false, false});
        prev = node;
      };
      // The bursts of this (secondary) thread that fork from and join into a gap of the step's thread.
      bursts.clear();
      size_t next_burst = 0;
      if (!is_main && !main_gaps.empty()) {
        size_t jend = i;
        while (jend < calls.size() && call_key[jend] == key) ++jend;
        bool open = false, ok = false;
        Workspace::Impl::Burst cur{};
        int64_t top_end = INT64_MIN;
        int64_t covered_to = INT64_MIN;  // the burst's span for the coverage test (see straddling)
        int launches = 0;
        auto close = [&] {
          if (open && ok) {
            const auto& g = main_gaps[cur.gap];
            // Only a thread that launches GPU work in the gap: a thread that polls events (the
            // NCCL watchdog's cudaEventQuery) or pins host memory is not what the step waits for.
            if (launches > 0 && g.b - g.a >= opt.join_min_gap_ticks && 2 * (std::max(cur.e, covered_to) - cur.s) >= g.b - g.a)
              bursts.push_back(cur);
          }
          open = false;
        };
        for (size_t q = i; q < jend; ++q) {
          const CpuEvent& c = f.cpu[calls[q]];
          if (q > i && c.ts < top_end) {  // nested: part of the previous top-level call
            if (open && c.end > main_gaps[cur.gap].b) ok = false;
            continue;
          }
          top_end = c.end;
          auto it = std::upper_bound(main_gaps.begin(), main_gaps.end(), c.ts,
                                     [](int64_t v, const Workspace::Impl::MainGap& g) { return v < g.a; });
          const bool starts_inside = it != main_gaps.begin() && c.ts >= (it - 1)->a && c.ts < (it - 1)->b;
          const size_t gi = starts_inside ? static_cast<size_t>(it - 1 - main_gaps.begin()) : SIZE_MAX;
          const bool inside = starts_inside && c.end <= main_gaps[gi].b;
          if (open && gi == cur.gap && !inside) {
            const auto& g = main_gaps[gi];
            if (c.end - g.b <= std::max(opt.join_min_gap_ticks / 5, (g.b - g.a) / 20)) {
              // A call that returns just after the step's thread resumed (integer-us timestamps
              // round so; the autograd engine signals the waiting thread before its last call
              // returns): the burst ends with it, and the gap resumes a fixed time after the
              // call's last node starts (for a synchronising call, when the GPU work it waited for
              // ended).
              cur.last = q;
              cur.e = g.b;
              cur.straddle = true;
              launches += type_of(c.event) == CallType::Launch || type_of(c.event) == CallType::AsyncMemcpy;
            } else {
              // One that returns long after: the step did not wait for it. The burst joins at the
              // call before it, and its span counts up to the call's start for the coverage test.
              covered_to = c.ts;
            }
            close();
            continue;
          }
          if (open && gi == cur.gap) {
            cur.last = q;
            cur.e = c.end;
            launches += type_of(c.event) == CallType::Launch || type_of(c.event) == CallType::AsyncMemcpy;
            continue;
          }
          close();
          if (inside) {
            open = true;
            ok = true;
            covered_to = INT64_MIN;
            launches = type_of(c.event) == CallType::Launch || type_of(c.event) == CallType::AsyncMemcpy;
            cur = Workspace::Impl::Burst{q, q, gi, c.ts, c.end, false};
          }
        }
        close();
      }
      size_t j = i;
      for (; j < calls.size() && call_key[j] == key; ++j) {
        const uint32_t cp = calls[j];
        const CpuEvent& c = f.cpu[cp];
        if (prev != kNone && c.ts < prev_end) {
          // Nested in (or overlapping) the previous call on this thread: its launches count from the outer call.
          call_node[cp] = call_node[calls[j - 1]] != kNone ? call_node[calls[j - 1]] : prev;
          touched_calls.push_back(cp);
          if (c.end > prev_end) diag.add("replay: overlapping runtime calls on a thread", "info", rank_s);
          continue;
        }
        const bool forked = next_burst < bursts.size() && bursts[next_burst].first == j;
        if (forked) {
          // Forked from the node before the step thread's gap: the time from the gap's start (or
          // this thread's previous call, if later) to the burst's first call.
          const auto& g = main_gaps[bursts[next_burst].gap];
          const int64_t from = prev == kNone ? g.a : std::max(prev_end, g.a);
          uint32_t fk = new_node(NodeKind::HostGap, Attribution::CpuBound, res, from, c.ts - from, UINT32_MAX);
          chain(fk);
          if (g.pred != kNone) add_edge(fk, Edge{g.pred, 0, EdgeKind::Program, false, false});
          else add_edge(fk, Edge{kNone, from - w0, EdgeKind::Start, false, false});
          prev_end = c.ts;
        }
        // A secondary thread starts when the trace says (what triggers it is not in the trace):
        // its first call gets a start edge, not a host gap.
        if (prev == kNone && !is_main) prev_end = c.ts;
        if (c.ts > prev_end) {
          Attribution a = in_loader(key, prev_end, c.ts) ? Attribution::DataLoading : Attribution::CpuBound;
          const uint32_t before = prev;
          uint32_t gap = new_node(NodeKind::HostGap, a, res, prev_end, c.ts - prev_end, UINT32_MAX);
          chain(gap);
          if (is_main && a == Attribution::CpuBound)
            main_gaps.push_back(Workspace::Impl::MainGap{prev_end, c.ts, gap, before});
        }
        const CallType ct = type_of(c.event);
        const int64_t own = own_wait(cp);
        const bool sync = ct == CallType::DeviceSync || ct == CallType::StreamSync || ct == CallType::EventSync ||
                          own >= 0;
        uint32_t first_node;
        if (sync) {
          uint32_t enter = new_node(NodeKind::SyncEnter, Attribution::CpuBound, res, c.ts, 0, t.name[c.event]);
          if (prev == kNone && !is_main) add_edge(enter, Edge{kNone, c.ts - w0, EdgeKind::Start, false, false});
          chain(enter);
          first_node = enter;
          uint32_t ret = new_node(NodeKind::SyncReturn, Attribution::CpuBound, res, c.ts, c.end - c.ts, t.name[c.event]);
          chain(ret);
          pending.push_back(Workspace::Impl::PendingSync{ret, cp, own >= 0 ? CallType::SyncMemcpy : ct});
        } else {
          Attribution a = (ct == CallType::Launch || ct == CallType::AsyncMemcpy || ct == CallType::SyncMemcpy)
                              ? Attribution::LaunchOverhead
                              : Attribution::CpuBound;
          uint32_t n = new_node(NodeKind::HostCall, a, res, c.ts, c.end - c.ts, t.name[c.event]);
          if (prev == kNone && !is_main) add_edge(n, Edge{kNone, c.ts - w0, EdgeKind::Start, false, false});
          chain(n);
          first_node = n;
        }
        call_node[cp] = first_node;
        touched_calls.push_back(cp);
        prev_end = c.end;
        if (next_burst < bursts.size() && bursts[next_burst].last == j) {
          // Joined: the step thread's gap starts when this call returns (when several threads
          // join one gap, the last of them: one autograd thread per device).
          auto& gn = gr.nodes[main_gaps[bursts[next_burst].gap].node];
          const int64_t gap_end = gn.measured_start + gn.dur;
          if (bursts[next_burst].straddle) {
            // The gap resumes at its measured end, a fixed time after the start of the call's last
            // node; the weight is set once the sync return nodes have their measured starts.
            gn.measured_start = gap_end;
            gn.dur = 0;
            w.straddle_joins.push_back(Workspace::Impl::StraddleJoin{join_edges.size(), first_node, gap_end});
            join_edges.emplace_back(main_gaps[bursts[next_burst].gap].node, Edge{prev, 0, EdgeKind::Sync, true, false});
          } else {
            gn.measured_start = std::max(gn.measured_start, c.end - w0);
            gn.dur = gap_end - gn.measured_start;
            join_edges.emplace_back(main_gaps[bursts[next_burst].gap].node, Edge{prev, 0, EdgeKind::Sync, false, false});
          }
          ++next_burst;
        }
      }
      // Up to the step's end when the step is a ProfilerStep (its thread's range). Without steps the
      // iteration ends with the last GPU event, and the host after its last call is not waiting
      // on anything: the gap to that end had been put on the path as cpu_bound, and GPU speedups
      // predicted no change (2026-12-03 review).
      if (is_main && st.end > prev_end && st.n >= 0) {
        Attribution a = in_loader(key, prev_end, st.end) ? Attribution::DataLoading : Attribution::CpuBound;
        const uint32_t before = prev;
        uint32_t gap = new_node(NodeKind::HostGap, a, res, prev_end, st.end - prev_end, UINT32_MAX);
        chain(gap);
        if (a == Attribution::CpuBound)
          main_gaps.push_back(Workspace::Impl::MainGap{prev_end, st.end, gap, before});
      }
      if (!is_main)
        for (auto q = first_node_of_thread; q < gr.nodes.size(); ++q) gr.nodes[q].in_iteration = false;
      i = j;
      if (i >= calls.size() && main_seen) break;
    }

    // GPU nodes, stream by stream (node g0 + q for gk[q]).
    const auto g0 = static_cast<uint32_t>(gr.nodes.size());
    {
      int32_t res = -1;
      for (size_t r = 0; r + 1 < runs.size(); ++r) {
        const uint32_t sr = w.stream_rank[gk[runs[r]]];
        gr.resources.push_back(Resource{true, w.streams[sr]});
        res = static_cast<int32_t>(gr.resources.size() - 1);
        w.res_of_stream[sr] = res;
        w.touched_streams.push_back(sr);
        w.window_streams.push_back(sr);
        for (uint32_t q = runs[r]; q < runs[r + 1]; ++q) {
          const uint32_t k = gk[q];
          const auto& g = f.gpu[k];
          uint32_t n = new_node(NodeKind::Gpu, gpu_attr(g.kind), res, g.ts, g.end - g.ts, g.name);
          gr.nodes[n].gpu_kind = g.kind;
          gpu_node[k] = n;
        }
      }
    }
    // GPU nodes by measured end, for the cross-stream and sync searches: each stream's run is
    // (nearly always) in end order already, so sorting is merging the streams.
    auto& by_end = w.by_end;  // (measured end, gk index)
    by_end.resize(gk.size());
    for (uint32_t q = 0; q < gk.size(); ++q) {
      const Node& n = gr.nodes[g0 + q];
      by_end[q] = {n.measured_start + n.dur, q};
    }
    for (size_t r = 0; r + 1 < runs.size(); ++r)
      if (!std::is_sorted(by_end.begin() + runs[r], by_end.begin() + runs[r + 1]))
        std::sort(by_end.begin() + runs[r], by_end.begin() + runs[r + 1]);
    merge_sorted_runs(by_end, runs, w.by_end_tmp);
    // The same per resource (stream), for the synchronisation searches.
    auto& by_res = w.by_res;
    for (auto& l : by_res) l.clear();
    by_res.resize(gr.resources.size());
    for (const auto& e : by_end) {
      const int32_t r = gr.nodes[g0 + e.second].resource;
      if (r >= 0 && static_cast<size_t>(r) < by_res.size()) by_res[static_cast<size_t>(r)].push_back(e);
    }
    auto& launch_start = w.launch_start;  // per gk index: launch call start (relative), or its own ts
    launch_start.resize(gk.size());
    for (uint32_t q = 0; q < gk.size(); ++q) {
      const auto& g = f.gpu[gk[q]];
      launch_start[q] = g.runtime >= 0 ? f.cpu[static_cast<size_t>(g.runtime)].ts - w0 : g.ts - w0;
    }

    // Carry-in nodes: GPU work outside the iteration that the iteration waits for (a stream's
    // predecessor of one of its events, an event a synchronisation or a recorded wait awaits). Before 2026-12-06 a
    // stream predecessor outside the iteration was a constant edge to the event's measured start,
    // called previous_iteration whether the stream was still busy or long idle (HTA's trace_compare
    // steps 1009/1010: 99.99% previous_iteration on a rank 99.38% idle, the predecessor an unlaunched
    // memcpy of the next step), and a synchronisation awaiting work launched in the previous step
    // had no edge at all (its wait was the host's, cpu_bound, and `host=0` returned it at once;
    // review of that day). Now the events before the iteration's own on a stream, while outside it,
    // of one kind (launched before the iteration: previous_iteration; else: unexplained, e.g. an
    // unlaunched event of the next step) and at most the gap threshold apart, are one node held at
    // their measured times; a gap before it binds to the event it waited for (an event of the
    // iteration, an earlier run) as slack, or, with nothing before it in the iteration, is an
    // unexplained constant. Returns k's node (k's own node when k is in the iteration).
    auto& carry_edges = w.carry_edges;
    carry_edges.clear();
    w.carry_events.clear();
    auto stream_resource = [&](uint32_t sr) {
      if (w.res_of_stream[sr] < 0) {
        gr.resources.push_back(Resource{true, w.streams[sr]});
        w.res_of_stream[sr] = static_cast<int32_t>(gr.resources.size() - 1);
        w.touched_streams.push_back(sr);
      }
      return w.res_of_stream[sr];
    };
    auto link_carry = [&](uint32_t to, uint32_t from) {  // carry node `to` waited for `from`
      const int64_t s_rel = gr.nodes[to].measured_start, e_rel = gr.nodes[from].measured_start + gr.nodes[from].dur;
      if (e_rel <= s_rel)
        carry_edges.emplace_back(to, Edge{from, s_rel - e_rel, EdgeKind::Program, false, s_rel - e_rel > opt.unexplained_gap_ticks});
      else carry_edges.emplace_back(to, Edge{kNone, s_rel, EdgeKind::Start, false, true});  // overlapping: unexplained
    };
    // The first carry-in node (they follow the GPU nodes); a run's events, from its last back to
    // its first, give the node its count and its longest event.
    const auto c0 = static_cast<uint32_t>(g0 + gk.size());
    auto describe_run = [&](uint32_t m) {
      const auto [first, last] = w.carry_span[m - c0];
      CarryRun& cr = gr.carry_runs[m - c0];
      cr.events = 0;
      cr.longest_ticks = -1;
      for (uint32_t e = last;; e = w.prev_on_stream[e]) {
        ++cr.events;
        if (w.carry_cover[e] == kNone) w.carry_events.push_back(e);
        w.carry_cover[e] = m;
        const int64_t in_iteration = std::max<int64_t>(0, f.gpu[e].end - std::max(f.gpu[e].ts, w0));
        if (in_iteration >= cr.longest_ticks) {  // ties: the earliest
          cr.longest_ticks = in_iteration;
          cr.longest_name = f.gpu[e].name;
          gr.nodes[m].gpu_kind = f.gpu[e].kind;
        }
        if (e == first) break;
      }
      gr.nodes[m].name = cr.longest_name;
    };
    auto new_run = [&](uint32_t first, uint32_t last, Attribution attr, int32_t res) {
      const int64_t s_rel = std::max(f.gpu[first].ts, w0) - w0, e_rel = f.gpu[last].end - w0;
      const uint32_t m = new_node(NodeKind::Carry, attr, res, s_rel + w0, std::max<int64_t>(0, e_rel - s_rel), UINT32_MAX);
      gr.nodes[m].in_iteration = false;
      gr.carry_runs.push_back(CarryRun{m, 0, UINT32_MAX, 0});
      w.carry_span.emplace_back(first, last);
      gpu_node[last] = m;
      describe_run(m);
      return m;
    };
    // k is inside the run of node m2, not its last event (another wait awaited a later one): the
    // run splits after k, the part up to k a node of its own that takes m2's incoming edges and
    // that m2 now waits for (before 2026-12-06 a second node of the same events overlapped it; review).
    auto split_run = [&](uint32_t m2, uint32_t k) {
      const auto [first, last] = w.carry_span[m2 - c0];
      uint32_t next = last;
      while (w.prev_on_stream[next] != k && w.prev_on_stream[next] != kNone) next = w.prev_on_stream[next];
      const uint32_t m = new_run(first, k, gr.nodes[m2].attr, gr.nodes[m2].resource);
      Node& later = gr.nodes[m2];
      const int64_t end_rel = later.measured_start + later.dur;
      later.measured_start = std::max(f.gpu[next].ts, w0) - w0;
      later.dur = std::max<int64_t>(0, end_rel - later.measured_start);
      w.carry_span[m2 - c0].first = next;
      describe_run(m2);
      for (auto& ce : carry_edges)
        if (ce.first == m2) ce.first = m;
      // The gap inside the run (at most the gap threshold, the run's own time), or, where the
      // profiler's times overlap, from the earlier part's start (f.gpu is in start order): the
      // measured times either way.
      const Node& earlier = gr.nodes[m];
      const int64_t gap = later.measured_start - (earlier.measured_start + earlier.dur);
      if (gap >= 0) carry_edges.emplace_back(m2, Edge{m, gap, EdgeKind::Program, false, false});
      else carry_edges.emplace_back(m2, Edge{m, later.measured_start - earlier.measured_start, EdgeKind::Program, true, false});
      return m;
    };
    auto carry_of = [&](uint32_t k) -> uint32_t {
      uint32_t result = kNone, waiting = kNone;
      for (uint32_t cur = k;;) {
        if (gpu_node[cur] == kNone && w.carry_cover[cur] != kNone) {
          const uint32_t m = split_run(w.carry_cover[cur], cur);
          if (waiting != kNone) link_carry(waiting, m);
          if (result == kNone) result = m;
          break;
        }
        if (gpu_node[cur] != kNone) {  // an event of the iteration, or a run made before
          if (waiting != kNone) link_carry(waiting, gpu_node[cur]);
          if (result == kNone) result = gpu_node[cur];
          break;
        }
        const bool before = launch_abs(cur) < w0;
        uint32_t first = cur;
        for (uint32_t p = w.prev_on_stream[first];
             p != kNone && gpu_node[p] == kNone && w.carry_cover[p] == kNone && (launch_abs(p) < w0) == before &&
             f.gpu[p].end > w0 && f.gpu[first].ts - f.gpu[p].end <= opt.unexplained_gap_ticks;
             p = w.prev_on_stream[first])
          first = p;
        const uint32_t m = new_run(first, cur, before ? Attribution::PreviousIteration : Attribution::Unexplained,
                                   stream_resource(w.stream_rank[cur]));
        const int64_t s_rel = gr.nodes[m].measured_start;
        if (result == kNone) result = m;
        if (waiting != kNone) link_carry(waiting, m);
        if (s_rel == 0) break;
        const uint32_t p = w.prev_on_stream[first];
        if (p == kNone || f.gpu[p].end <= w0) {
          carry_edges.emplace_back(m, Edge{kNone, s_rel, EdgeKind::Start, false, true});  // nothing before it in the iteration
          break;
        }
        waiting = m;
        cur = p;
      }
      return result;
    };

    // GPU edges.
    std::vector<uint32_t> producers;  // recorded producers of the GPU event at hand (in the window)
    // Per stream, the event ending latest so far (streams are contiguous in gk, in start order):
    // a stream runs an event after the latest end before it, not after the previous start's end
    // (an all-reduce inside a GEMM on one stream had made the next kernel's wait -350 us).
    int32_t run_res = -1;
    uint32_t run_node = kNone;
    int64_t run_end = INT64_MIN;
    int64_t overlapping = 0;
    for (uint32_t q = 0; q < gk.size(); ++q) {
      const uint32_t k = gk[q];
      const auto& g = f.gpu[k];
      const uint32_t n = g0 + q;
      const int64_t ts = g.ts - w0;
      // Stream predecessor: an event of the iteration, or one outside it that ends after the
      // iteration's start (a carry-in node, made below); one that ended before it left the stream
      // idle (no predecessor).
      uint32_t pred_node = kNone;
      int64_t r_p = INT64_MIN;
      uint32_t carry_k = kNone;
      if (w.prev_on_stream[k] != kNone) {
        const uint32_t pk = w.prev_on_stream[k];
        if (gpu_node[pk] != kNone && gr.nodes.size() > gpu_node[pk] && gr.nodes[gpu_node[pk]].kind == NodeKind::Gpu &&
            gr.nodes[gpu_node[pk]].resource == gr.nodes[n].resource && gpu_node[pk] < n) {
          pred_node = gpu_node[pk];
          r_p = gr.nodes[pred_node].measured_start + gr.nodes[pred_node].dur;
        } else if (f.gpu[pk].end > w0) {
          carry_k = pk;
          r_p = f.gpu[pk].end - w0;
        }
      }
      const bool has_pred = pred_node != kNone || carry_k != kNone;
      {
        const int32_t res = gr.nodes[n].resource;
        if (res != run_res) {
          run_res = res;
          run_node = kNone;
          run_end = INT64_MIN;
        }
        if (has_pred && run_node != kNone && run_end > r_p) {
          pred_node = run_node;
          r_p = run_end;
          carry_k = kNone;
        }
        // Started while an earlier event of its stream still ran (the profiler's times overlap;
        // HTA's trace_diff test has 31 such kernels): no stream edge binds it, and no segment of
        // the path may be negative.
        if (has_pred && r_p > ts) {
          ++overlapping;
          pred_node = kNone;
          carry_k = kNone;
          r_p = INT64_MIN;
        }
        const int64_t end_n = ts + gr.nodes[n].dur;
        if (end_n > run_end) {
          run_end = end_n;
          run_node = n;
        }
      }
      if (carry_k != kNone) pred_node = carry_of(carry_k);
      // Launch.
      uint32_t call = g.runtime >= 0 ? call_node[static_cast<size_t>(g.runtime)] : kNone;
      int64_t cs = call != kNone ? gr.nodes[call].measured_start : 0;
      int64_t actual = ts - cs;
      int64_t typical = std::min(median_latency, actual);
      int64_t r_l = call != kNone ? cs + typical : INT64_MIN;
      int64_t base = std::max(r_p, r_l);
      // Cross-stream dependency: the recorded wait's producer when the trace records waits (a
      // dependency only when it ended after the stream and the launch were ready); otherwise the
      // latest event on another stream ending in (base, ts].
      uint32_t cross = kNone;
      int64_t r_x = INT64_MIN;
      // The recorded producers of this GPU event that are in the window and consistent with the
      // trace's times (a producer ending after the consumer started, beyond the inference's
      // tolerance, is not a dependency): the latest-ending binds (if it ended after the stream and
      // the launch were ready), the others get edges of weight 0 below.
      producers.clear();
      if (recorded_waits) {
        auto range = std::equal_range(waits.begin(), waits.end(), std::make_pair(k, 0u),
                                      [](const std::pair<uint32_t, uint32_t>& a, const std::pair<uint32_t, uint32_t>& b) { return a.first < b.first; });
        for (auto it = range.first; it != range.second; ++it) {
          const uint32_t ak = it->second;
          uint32_t xn = gpu_node[ak];
          const bool in_window = xn != kNone && xn >= g0 && xn - g0 < gk.size() && gk[xn - g0] == ak;
          const int64_t end = in_window ? gr.nodes[xn].measured_start + gr.nodes[xn].dur : f.gpu[ak].end - w0;
          if (end > ts + opt.cross_stream_min_gap_ticks) continue;
          if (!in_window) {
            // Launched outside the iteration (an NCCL kernel of the previous step that this
            // step's GEMM waits for): a carry-in node, when it ran into the iteration (one that
            // ended before it holds nothing back). Before 2026-12-06 such a producer was dropped:
            // its wait was unexplained slack and `host=0` started the consumer before it ended
            // (review of that day).
            if (end <= 0) continue;
            xn = carry_of(ak);
          }
          if (xn == n) continue;
          producers.push_back(xn);
          if ((base == INT64_MIN || end > base) && (cross == kNone || end > r_x)) {
            cross = xn;
            r_x = end;
          }
        }
        // A producer ending up to the tolerance after the consumer started (the trace's
        // microsecond rounding) keeps its negative gap: the replay then starts the consumer at its
        // measured time, not at the producer's end (that had added 1 us per wait, 38 us over 20
        // waits; 2026-12-04 review).
      } else if (base != INT64_MIN && ts - base > opt.cross_stream_min_gap_ticks) {
        auto it = std::upper_bound(by_end.begin(), by_end.end(), std::make_pair(ts, UINT32_MAX));
        for (int steps_back = 0; it != by_end.begin() && steps_back < 32; ++steps_back) {
          --it;
          if (it->first <= base) break;
          const uint32_t xn = g0 + it->second;
          if (gr.nodes[xn].resource != gr.nodes[n].resource && xn != n) {
            cross = xn;
            r_x = it->first;
            break;
          }
        }
      }
      const int64_t slack_t = opt.unexplained_gap_ticks;
      // Clock skew between host and device (the event starts before its launching call): the
      // event is held at its measured start, as one without a known launch, whichever edge binds
      // it (a negative launch edge had made a -5 us launch_overhead segment, 2026-12-03 review);
      // the measured replay stays exact. Where this start binds, nothing in the trace explains it:
      // `unexplained` whatever its length, not `previous_iteration` (below the gap threshold it
      // had been; 2026-12-05 review). Until the 2026-12-07 review only a binding launch edge was
      // held so: where the stream predecessor or a producer bound too (the event starting exactly
      // at its end), the negative latency went on the launch edge as a scalable weight, and
      // `launch=0` moved the event from 51 us before its call to the call's start (a step 2%
      // slower for launches cut to nothing), and `host=0` let it start before its measured time.
      const bool skewed = call != kNone && actual < 0;
      if (skewed) diag.add("replay: GPU event starts before its launching call (held at its measured start)", "warning", rank_s);
      auto add_launch_edge = [&] {  // the non-binding launch edge: the median latency, or held as above
        if (skewed) add_edge(n, Edge{kNone, ts, EdgeKind::Start, false, ts > 0});
        else add_edge(n, Edge{call, typical, EdgeKind::Launch, true, false});
      };
      if (cross != kNone) {
        int64_t wt = ts - r_x;
        add_edge(n, Edge{cross, wt, EdgeKind::CrossStream, false, wt > slack_t});
        if (pred_node != kNone) add_edge(n, Edge{pred_node, 0, EdgeKind::Program, false, false});
        if (call != kNone) add_launch_edge();
      } else if (pred_node != kNone && r_p >= r_l) {
        int64_t wt = ts - r_p;
        add_edge(n, Edge{pred_node, wt, EdgeKind::Program, false, wt > slack_t});
        if (call != kNone) add_launch_edge();
      } else if (call != kNone) {
        if (skewed) {
          add_edge(n, Edge{kNone, ts, EdgeKind::Start, false, ts > 0});
        } else {
          // Unexplained only beyond the call's own return as well as the median latency: the time
          // of a launch call that blocked (a 4.2 s cudaLaunchKernel whose kernel started 8 us
          // before it returned) is the launch's, not GPU slack (2026-12-06 review: the excess over
          // the median had been slack, and `launch=0` moved the call's time into it).
          const int64_t covered = std::max(median_latency, gr.nodes[call].dur);
          add_edge(n, Edge{call, actual, EdgeKind::Launch, true, actual - covered > slack_t});
        }
        if (pred_node != kNone) add_edge(n, Edge{pred_node, 0, EdgeKind::Program, false, false});
      } else {
        // Nothing in the trace explains when it started: no launching call, nothing before it on
        // its stream, no producer on another. Held at its measured start; the time before it is
        // `unexplained` on the path, not `previous_iteration` (the stream was idle: an NCCL
        // SendRecv with no launch had been called 33% previous-iteration time, 2026-12-04 review).
        // No scale moves it. Below the gap threshold too (it had been previous_iteration there).
        add_edge(n, Edge{kNone, ts, EdgeKind::Start, false, ts > 0});
      }
      for (uint32_t xn : producers)
        if (xn != cross) add_edge(n, Edge{xn, std::min<int64_t>(0, ts - (gr.nodes[xn].measured_start + gr.nodes[xn].dur)), EdgeKind::CrossStream, false, false});
    }

    if (overlapping > 0)
      diag.add_count("replay: GPU events starting while an earlier event of their stream still ran (not ordered after it)", "info", rank_s,
                     overlapping);

    // Sync edges: the GPU event a synchronising call waited for.
    // On stream sr (frame rank), for a call [cts, cend]: the latest-ending event launched before
    // the call that ended by its return, of the iteration or carried in (launched before it: before
    // 2026-12-06 only the iteration's events were searched, and a cudaDeviceSynchronize at the start
    // of a step that waited 150 us for the previous step's kernel was 150 us of cpu_bound time that
    // `host=0` removed; review of that day). Each stream is searched on its own (by_res), however
    // many events other streams ran meanwhile: the search over every stream's events had stopped 256
    // events back, and a sync behind 316 short kernels of another stream lost its NCCL kernel (a
    // what-if 10-20% low; 2026-12-04 review).
    auto awaited_on = [&](uint32_t sr, int64_t cts, int64_t cend, int64_t& end) -> uint32_t {
      uint32_t node = kNone;
      end = INT64_MIN;
      const int32_t r = w.res_of_stream[sr];
      if (r >= 0 && static_cast<size_t>(r) < by_res.size()) {
        const auto& list = by_res[static_cast<size_t>(r)];
        auto it = std::upper_bound(list.begin(), list.end(), std::make_pair(cend, UINT32_MAX));
        while (it != list.begin()) {
          --it;
          if (launch_start[it->second] >= cts) continue;  // launched after the call: not awaited
          node = g0 + it->second;
          end = it->first;
          break;
        }
      }
      if (const uint32_t ck = w.carry_last[sr]; ck != kNone) {
        const int64_t ce = f.gpu[ck].end - w0;
        if (ce > 0 && ce <= cend && (node == kNone || ce > end)) {
          node = carry_of(ck);
          end = ce;
        }
      }
      return node;
    };
    // A device (context) synchronisation waits for every stream: besides the event that ended
    // last, the last event launched before the call on each other stream binds it too (a what-if
    // that shortens the former must not let the call return before the latter; before 2026-12-03
    // only the last-ending event was an edge: --scale comm=0 could return a cudaDeviceSynchronize
    // before the GEMMs it waited for). A thread's device syncs sweep the iteration's launches in
    // launch order, and each looks only at the streams that launched since the thread's previous
    // one (or still had work that ended after its return): that one's edges hold the others, as it
    // returns before this one starts. Before 2026-12-06 each sync had an edge from every stream, and
    // 5,000 syncs behind 5,000 streams took 4.8 s and 555 MB (review of that day).
    auto& launch_order = w.launch_order;  // the iteration's GPU events by launch (made at its first device sync)
    bool launch_order_made = false;
    int32_t sweep_thread = -1;  // the thread whose device syncs the sweep is at
    size_t sweep_next = 0;
    auto sweep_mark = [&](uint32_t sr, int64_t end) {  // stream sr launched work ending at end (relative)
      uint8_t& fl = w.ds_flags[sr];
      if (!(fl & 1)) {
        fl |= 1;
        w.ds_touched.push_back(sr);
        w.ds_maxend[sr] = end;
      } else {
        w.ds_maxend[sr] = std::max(w.ds_maxend[sr], end);
      }
      if (!(fl & 2)) {
        fl |= 2;
        w.ds_dirty.push_back(sr);
      }
    };
    auto sweep_reset = [&] {
      for (const uint32_t sr : w.ds_touched) {
        w.ds_flags[sr] = 0;
        w.ds_maxend[sr] = INT64_MIN;
      }
      w.ds_touched.clear();
      w.ds_dirty.clear();
    };
    std::vector<uint32_t> also_awaited;  // a device sync's other streams' last events
    for (const auto& ps : pending) {
      const CpuEvent& c = f.cpu[ps.cpu];
      const int64_t cts = c.ts - w0, cend = c.end - w0;
      uint32_t awaited = kNone;
      also_awaited.clear();
      int64_t aw_end = INT64_MIN;
      auto consider = [&](uint32_t xn, int64_t xe) {  // the latest-ending one binds first
        if (xn == kNone) return;
        if (awaited == kNone || xe > aw_end) {
          if (awaited != kNone) also_awaited.push_back(awaited);
          awaited = xn;
          aw_end = xe;
        } else {
          also_awaited.push_back(xn);
        }
      };
      if (ps.type == CallType::SyncMemcpy) {
        int64_t own = own_wait(ps.cpu);
        if (own >= 0 && gpu_node[static_cast<size_t>(own)] != kNone) {
          awaited = gpu_node[static_cast<size_t>(own)];
          aw_end = gr.nodes[awaited].measured_start + gr.nodes[awaited].dur;
        }
      } else if (const uint32_t ev = ps.type == CallType::EventSync ? event_sync_wait(t.correlation[c.event]) : kNone;
                 ev != kNone) {
        // The recorded event: the call returns when the work recorded before it ends, whatever
        // else runs (it had waited for the last GPU event to end: a 3x slower NCCL kernel on
        // another stream delayed a sync that never waited for it). Outside the iteration: carried in.
        const int64_t ev_end = gpu_node[ev] != kNone ? gr.nodes[gpu_node[ev]].measured_start + gr.nodes[gpu_node[ev]].dur
                                                     : f.gpu[ev].end - w0;
        if ((gpu_node[ev] != kNone || ev_end > 0) && ev_end <= cend) {  // else not consistent with the call's return: ignored
          awaited = carry_of(ev);
          aw_end = ev_end;
        }
      } else if (ps.type == CallType::DeviceSync) {
        if (!launch_order_made) {
          launch_order.clear();
          for (uint32_t q = lo; q < hi; ++q)
            launch_order.insert(launch_order.end(), w.launch_k.begin() + w.launch_at[q], w.launch_k.begin() + w.launch_at[q + 1]);
          const auto launched = static_cast<std::ptrdiff_t>(launch_order.size());
          for (auto it = std::lower_bound(w.unlaunched.begin(), w.unlaunched.end(), st.ts,
                                          [&](uint32_t k, int64_t v) { return f.gpu[k].ts < v; });
               it != w.unlaunched.end() && f.gpu[*it].ts < st.end; ++it)
            launch_order.push_back(*it);
          std::inplace_merge(launch_order.begin(), launch_order.begin() + launched, launch_order.end(),
                             [&](uint32_t a, uint32_t b) { return launch_abs(a) < launch_abs(b); });
          launch_order_made = true;
        }
        const int32_t thread = gr.nodes[ps.ret].resource;
        if (thread != sweep_thread) {
          sweep_reset();
          sweep_thread = thread;
          sweep_next = 0;
          for (const uint32_t sr : w.live) sweep_mark(sr, f.gpu[w.carry_last[sr]].end - w0);
        }
        for (; sweep_next < launch_order.size() && launch_abs(launch_order[sweep_next]) - w0 < cts; ++sweep_next) {
          const uint32_t k = launch_order[sweep_next];
          sweep_mark(w.stream_rank[k], f.gpu[k].end - w0);
        }
        std::sort(w.ds_dirty.begin(), w.ds_dirty.end());  // streams in order, as their edges were before
        size_t keep = 0;
        for (const uint32_t sr : w.ds_dirty) {
          int64_t xe = 0;
          const uint32_t xn = awaited_on(sr, cts, cend, xe);
          consider(xn, xe);
          if (w.ds_maxend[sr] <= cend) w.ds_flags[sr] &= static_cast<uint8_t>(~2u);
          else w.ds_dirty[keep++] = sr;  // work launched before the call that ended after it: looked at again
        }
        w.ds_dirty.resize(keep);
      } else {
        // cudaStreamSynchronize on its recorded stream; without one (or an event sync without its
        // recorded event), the event that ended last on any stream.
        const int64_t s = ps.type == CallType::StreamSync ? stream_of_sync(t.correlation[c.event]) : -1;
        if (s != -1) {
          const auto it = std::lower_bound(w.streams.begin(), w.streams.end(), s);
          if (it != w.streams.end() && *it == s) {
            int64_t xe = 0;
            const uint32_t xn = awaited_on(static_cast<uint32_t>(it - w.streams.begin()), cts, cend, xe);
            consider(xn, xe);
          }
        } else {
          for (const auto* list : {&w.window_streams, &w.live})
            for (const uint32_t sr : *list) {
              int64_t xe = 0;
              const uint32_t xn = awaited_on(sr, cts, cend, xe);
              consider(xn, xe);
            }
        }
        also_awaited.clear();
      }
      if (awaited != kNone) {
        sync_edges.emplace_back(ps.ret, Edge{awaited, 0, EdgeKind::Sync, false, false});
        if (ps.type == CallType::DeviceSync)
          for (const uint32_t xn : also_awaited) sync_edges.emplace_back(ps.ret, Edge{xn, 0, EdgeKind::Sync, false, false});
        gr.nodes[ps.ret].dur = cend - std::max(cts, aw_end);
        gr.nodes[ps.ret].measured_start = std::max(cts, aw_end);
      }
    }
    sweep_reset();
    // The carry-in nodes' edges, by node (they were made after the GPU nodes, in order).
    std::stable_sort(carry_edges.begin(), carry_edges.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [to, e] : carry_edges) add_edge(to, e);

    // Straddling joins: from the start of the call's last node (a sync return starts when the GPU
    // work it waited for ended) to the gap's end; from the call's start when that is later.
    for (const auto& sj : w.straddle_joins) {
      Edge& e = join_edges[sj.edge].second;
      if (gr.nodes[e.from].measured_start > sj.gap_end) e.from = sj.enter;
      e.weight = sj.gap_end - gr.nodes[e.from].measured_start;
    }
    // Measured iteration time.
    int64_t end_rel = st.end - w0;
    for (const Node& n : gr.nodes)
      if (n.in_iteration) end_rel = std::max(end_rel, n.measured_start + n.dur);
    gr.measured_ticks = end_rel;

    // CSR: close the offsets, then merge in the sync and join edges (the last of their node's
    // edges), moving the edges from the back.
    const auto N = static_cast<uint32_t>(gr.nodes.size());
    while (gr.edge_at.size() <= N) gr.edge_at.push_back(static_cast<uint32_t>(gr.edges.size()));
    if (!join_edges.empty()) {
      // The join edges (into gaps of the step's thread, in thread order) go in by target node,
      // after the sync edges of the same node (a gap has none).
      std::stable_sort(join_edges.begin(), join_edges.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      const size_t ns = sync_edges.size();
      sync_edges.insert(sync_edges.end(), join_edges.begin(), join_edges.end());
      std::inplace_merge(sync_edges.begin(), sync_edges.begin() + static_cast<std::ptrdiff_t>(ns), sync_edges.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
    }
    if (!sync_edges.empty()) {
      const auto main_edges = static_cast<uint32_t>(gr.edges.size());
      uint32_t wpos = main_edges + static_cast<uint32_t>(sync_edges.size());
      gr.edges.resize(wpos);
      size_t si_left = sync_edges.size();
      uint32_t old_end = main_edges;
      gr.edge_at[N] = wpos;
      for (uint32_t n = N; n-- > 0 && si_left > 0;) {
        const uint32_t old_begin = gr.edge_at[n];
        while (si_left > 0 && sync_edges[si_left - 1].first == n) gr.edges[--wpos] = sync_edges[--si_left].second;
        for (uint32_t q = old_end; q-- > old_begin;) gr.edges[--wpos] = gr.edges[q];
        gr.edge_at[n] = wpos;
        old_end = old_begin;
      }
    }
    for (const Edge& ed : gr.edges) gr.unexplained_edge_ticks += unexplained_part(gr, ed);

    // Topological order (Kahn), ready nodes taken by measured start then index; a cycle is
    // broken at the earliest remaining node (counted).
    {
      // Successors in CSR form (succ_at[n] .. succ_at[n + 1]), each list in increasing target order.
      auto& indeg = w.indeg;
      auto& succ_at = w.succ_at;
      auto& succ = w.succ;
      indeg.assign(N, 0);
      succ_at.assign(N + 1, 0);
      for (uint32_t n = 0; n < N; ++n)
        for (uint32_t q = gr.edge_at[n]; q < gr.edge_at[n + 1]; ++q)
          if (gr.edges[q].from != kNone) {
            ++indeg[n];
            ++succ_at[gr.edges[q].from];
          }
      uint32_t run = 0;
      for (uint32_t n = 0; n < N; ++n) succ_at[n] = run += succ_at[n];
      succ_at[N] = run;
      succ.resize(run);
      for (uint32_t n = N; n-- > 0;)
        for (uint32_t q = gr.edge_at[n + 1]; q-- > gr.edge_at[n];)
          if (gr.edges[q].from != kNone) succ[--succ_at[gr.edges[q].from]] = n;
      // Ready nodes by (measured start, index): a min-heap (the operations of std::priority_queue),
      // except that the smallest ready node, when it is the one made ready last (the next node of
      // the same thread or stream, nearly always), waits in `next` instead of going through the
      // heap; `next` is always smaller than everything in the heap, so the order is the same.
      using Item = std::pair<int64_t, uint32_t>;
      auto& ready = w.ready;
      ready.clear();
      Item next{};
      bool has_next = false;
      auto heap_push = [&](const Item& x) {
        ready.push_back(x);
        std::push_heap(ready.begin(), ready.end(), std::greater<>());
      };
      auto push = [&](int64_t s, uint32_t n) {
        const Item x{s, n};
        if (!has_next) {
          if (ready.empty() || x < ready.front()) {
            next = x;
            has_next = true;
          } else {
            heap_push(x);
          }
        } else if (x < next) {
          heap_push(next);
          next = x;
        } else {
          heap_push(x);
        }
      };
      for (uint32_t n = 0; n < N; ++n)
        if (indeg[n] == 0) push(gr.nodes[n].measured_start, n);
      auto& done = w.done;
      done.assign(N, 0);
      gr.order.resize(N);  // written in place (no push_back per node)
      uint32_t placed = 0;
      while (placed < N) {
        if (!has_next && ready.empty()) {
          uint32_t best = kNone;
          for (uint32_t n = 0; n < N; ++n)
            if (!done[n] && (best == kNone || gr.nodes[n].measured_start < gr.nodes[best].measured_start)) best = n;
          ++gr.cycles_broken;
          indeg[best] = 0;
          push(gr.nodes[best].measured_start, best);
        }
        uint32_t n;
        if (has_next) {
          n = next.second;
          has_next = false;
        } else {
          std::pop_heap(ready.begin(), ready.end(), std::greater<>());
          n = ready.back().second;
          ready.pop_back();
        }
        if (done[n]) continue;
        done[n] = 1;
        gr.order[placed++] = n;
        for (uint32_t k = succ_at[n]; k < succ_at[n + 1]; ++k) {
          const uint32_t m = succ[k];
          if (!done[m] && indeg[m] > 0 && --indeg[m] == 0) push(gr.nodes[m].measured_start, m);
        }
      }
      if (gr.cycles_broken > 0) diag.add("replay: dependency cycle broken", "warning", rank_s);
    }

    for (uint32_t cp : touched_calls) call_node[cp] = kNone;
    for (uint32_t k : gk) gpu_node[k] = kNone;
    for (uint32_t k : w.carry_events) gpu_node[k] = w.carry_cover[k] = kNone;
    for (uint32_t sr : w.touched_streams) w.res_of_stream[sr] = -1;
    visit(gr);
  }
}

bool scale_matches(const Scale& s, std::string_view name) {
  return s.re && RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *s.re);
}

Scale parse_scale(const std::string& spec) {
  static const std::vector<std::string> kinds = {"comm", "communication", "compute", "memcpy", "gpu", "host",
                                                 "cpu", "launch", "kernel:REGEX"};
  auto eq = spec.rfind('=');
  SourceLocation where{"", 0, 0, "--scale"};
  if (eq == std::string::npos || eq == 0)
    throw Error(where, "expected CLASS=FACTOR, got '" + spec + "'", "classes: comm, compute, memcpy, gpu, host, launch, kernel:REGEX");
  Scale s;
  std::string cls = spec.substr(0, eq), val = spec.substr(eq + 1);
  try {
    size_t used = 0;
    s.factor = std::stod(val, &used);
    if (used != val.size()) throw std::invalid_argument(val);
  } catch (const std::exception&) {
    throw Error(where, "factor '" + val + "' is not a number", "e.g. --scale comm=0.5");
  }
  if (!(s.factor >= 0) || !std::isfinite(s.factor)) throw Error(where, "factor must be finite and >= 0, got " + val);
  // Scaled durations are integer nanoseconds: a factor beyond 1e6 would overflow a long trace's
  // times (and asks a question no profile answers).
  if (s.factor > 1e6) throw Error(where, "factor must be at most 1e6, got " + val, "e.g. --scale comm=0 to remove communication, comm=2 to double it");
  if (cls.rfind("kernel:", 0) == 0) {
    s.target = Scale::Target::KernelRegex;
    s.pattern = cls.substr(7);
    // RE2 (linear in the name, bounded memory, no recursion). std::regex had overflowed the stack
    // on a 50 KB kernel name with its depth-first matcher (before 2026-12-03) and, breadth-first,
    // on a pattern of 20,000 nested groups; it took minutes on a 40,000-character name
    // (quadratic search; 2026-12-06 review).
    RE2::Options o;
    o.set_case_sensitive(false);
    o.set_log_errors(false);
    o.set_max_mem(64 << 20);
    auto re = std::make_shared<const RE2>(s.pattern, o);
    if (!re->ok())
      throw Error(where, "invalid regular expression '" + shorten_utf8(s.pattern, 203) + "': " + re->error(),
                  "RE2 syntax (https://github.com/google/re2/wiki/Syntax), case-insensitive, e.g. 'kernel:gemm|cutlass=0.8'");
    s.re = std::move(re);
  } else if (cls == "comm" || cls == "communication") {
    s.target = Scale::Target::Communication;
  } else if (cls == "compute") {
    s.target = Scale::Target::Compute;
  } else if (cls == "memcpy" || cls == "memory") {
    s.target = Scale::Target::Memcpy;
  } else if (cls == "gpu") {
    s.target = Scale::Target::Gpu;
  } else if (cls == "host" || cls == "cpu") {
    s.target = Scale::Target::Host;
  } else if (cls == "launch") {
    s.target = Scale::Target::Launch;
  } else {
    throw Error(where, "unknown class '" + cls + "'", valid_choices_hint(cls, kinds));
  }
  return s;
}

const CarryRun* Graph::carry_run(uint32_t node) const {
  if (node >= nodes.size() || nodes[node].kind != NodeKind::Carry) return nullptr;
  const auto it = std::lower_bound(carry_runs.begin(), carry_runs.end(), node,
                                   [](const CarryRun& c, uint32_t n) { return c.node < n; });
  return it != carry_runs.end() && it->node == node ? &*it : nullptr;
}

int64_t launch_call_ticks(const Graph& g, const Edge& e) {
  if (e.kind != EdgeKind::Launch || e.from == Edge::kNone || e.from >= g.nodes.size()) return 0;
  return std::clamp<int64_t>(g.nodes[e.from].dur, 0, std::max<int64_t>(0, e.weight));
}

int64_t unexplained_part(const Graph& g, const Edge& e) {
  if (!e.unexplained) return 0;
  if (e.kind != EdgeKind::Launch) return e.weight;
  // Beyond the call's return and the median latency (2026-12-06 review: beyond the median only,
  // which made a blocking launch call's own time GPU slack).
  const int64_t covered = std::max(g.median_launch_latency, launch_call_ticks(g, e));
  return e.weight - std::clamp<int64_t>(covered, 0, std::max<int64_t>(0, e.weight));
}

ReplayResult replay(const Graph& g, const Frame& f, const ReplayOptions& opt) {
  ReplayResult r;
  replay(g, f, opt, r);
  return r;
}

void replay(const Graph& g, const Frame& f, const ReplayOptions& opt, ReplayResult& r) {
  const size_t N = g.nodes.size();
  r.makespan = 0;
  r.sink = UINT32_MAX;
  // Every node is in g.order, so every element is written below.
  r.start.resize(N);
  r.finish.resize(N);
  r.binding.resize(N);
  // The factor of a node: the product of the factors of the scales that apply, in their order.
  bool has_regex = false;
  double launch_factor = 1.0;
  for (const auto& sc : opt.scales) {
    if (sc.target == Scale::Target::Launch) launch_factor *= sc.factor;
    has_regex = has_regex || sc.target == Scale::Target::KernelRegex;
  }
  std::vector<std::unordered_map<uint32_t, bool>> match(has_regex ? opt.scales.size() : 0);
  r.scale_hits.assign(opt.scales.size(), 0);
  r.gpu_gaps_dropped = opt.drop_gpu_gaps;
  auto hits = [&](size_t s, const Node& nd) {
    const Scale& sc = opt.scales[s];
    switch (sc.target) {
      case Scale::Target::Communication: return nd.kind == NodeKind::Gpu && nd.gpu_kind == KernelKind::Communication;
      case Scale::Target::Compute: return nd.kind == NodeKind::Gpu && nd.gpu_kind == KernelKind::Computation;
      case Scale::Target::Memcpy: return nd.kind == NodeKind::Gpu && nd.gpu_kind == KernelKind::Memory;
      case Scale::Target::Gpu: return nd.kind == NodeKind::Gpu;
      case Scale::Target::Host:
        return nd.kind == NodeKind::HostGap || nd.kind == NodeKind::SyncReturn ||
               (nd.kind == NodeKind::HostCall && nd.attr != Attribution::LaunchOverhead);
      case Scale::Target::Launch: return nd.kind == NodeKind::HostCall && nd.attr == Attribution::LaunchOverhead;
      case Scale::Target::KernelRegex:
        if (nd.kind == NodeKind::Gpu) {
          auto it = match[s].find(nd.name);
          if (it == match[s].end()) it = match[s].emplace(nd.name, scale_matches(sc, f.name(nd.name))).first;
          return it->second;
        }
        return false;
    }
    return false;
  };
  auto factor_of = [&](const Node& nd) {
    double factor = 1.0;
    for (size_t s = 0; s < opt.scales.size(); ++s) {
      if (hits(s, nd)) {
        factor *= opt.scales[s].factor;
        ++r.scale_hits[s];
      }
    }
    return factor;
  };
  // The factor of a launching call's node (a host node: no kernel pattern applies), without
  // counting hits (the node counts once, when it is replayed).
  auto call_factor = [&](const Node& nd) {
    double factor = 1.0;
    for (size_t s = 0; s < opt.scales.size(); ++s)
      if (hits(s, nd)) factor *= opt.scales[s].factor;
    return factor;
  };
  // Without a broken cycle every edge comes from a node earlier in g.order; with one, edges from
  // nodes not yet replayed are skipped.
  std::vector<char> done(g.cycles_broken > 0 ? N : 0, 0);
  const bool check_done = g.cycles_broken > 0;
  const bool scaled = !opt.scales.empty();
  for (uint32_t n : g.order) {
    const Node& nd = g.nodes[n];
    int64_t start = 0;
    uint32_t bind = UINT32_MAX;
    for (uint32_t q = g.edge_at[n], qe = g.edge_at[n + 1]; q < qe; ++q) {
      const Edge& e = g.edges[q];
      int64_t w = e.weight;
      if (e.kind == EdgeKind::Launch) {
        // A launch latency far above the rank's median and beyond the call's return (a kernel
        // starting long after its launch on an idle stream): up to the later of the two it is the
        // launch's; beyond it, it is the GPU slack the critical path calls unexplained,
        // which `--drop-gaps gpu` removes and `launch` leaves alone (before 2026-12-05 `launch=0`
        // removed all of it, and predicted -27% on a trace whose path had 1% of launch overhead;
        // review of that day). The part the call's own duration covers scales with the call
        // (`launch`, or `host` for a call attributed cpu_bound), the rest with `launch`: before
        // the 2026-12-06 review the latency beyond the median was slack even inside the call, and
        // `launch=0` kept a 4.2 s blocking cudaLaunchKernel (its kernel started 8 us before it
        // returned) as GPU slack: 53 ms saved of 4.2 s of launch_overhead on the path.
        const int64_t excess = e.unexplained ? unexplained_part(g, e) : 0;
        const int64_t launch = w - excess;
        if (scaled) {
          const int64_t in_call = std::min(launch, launch_call_ticks(g, e));
          const double f_call = in_call > 0 ? call_factor(g.nodes[e.from]) : launch_factor;
          if (f_call == launch_factor) {
            if (launch_factor != 1.0) w = std::llround(static_cast<double>(launch) * launch_factor) + excess;
          } else {
            w = std::llround(static_cast<double>(in_call) * f_call + static_cast<double>(launch - in_call) * launch_factor) +
                excess;
          }
        }
        if (opt.drop_gpu_gaps) w -= excess;
      }
      if (opt.drop_gpu_gaps && w > 0 && (e.kind == EdgeKind::Program || e.kind == EdgeKind::CrossStream) &&
          (nd.kind == NodeKind::Gpu || nd.kind == NodeKind::Carry))
        w = 0;
      int64_t ready;
      if (e.from == Edge::kNone) {
        ready = w;
      } else {
        if (check_done && !done[e.from]) continue;  // an edge of a broken cycle
        ready = (e.from_start ? r.start[e.from] : r.finish[e.from]) + w;
      }
      if (bind == UINT32_MAX || ready > start) {
        start = bind == UINT32_MAX ? ready : std::max(start, ready);
        bind = q;
      }
    }
    int64_t dur = nd.dur;
    if (opt.drop_host_gaps && nd.kind == NodeKind::HostGap) dur = 0;
    if (scaled) {
      const double factor = factor_of(nd);
      if (factor != 1.0) dur = std::llround(static_cast<double>(dur) * factor);
    }
    r.start[n] = start;
    r.finish[n] = start + dur;
    r.binding[n] = bind;
    if (check_done) done[n] = 1;
    if (nd.in_iteration && (r.sink == UINT32_MAX || r.finish[n] > r.makespan)) {
      r.makespan = r.finish[n];
      r.sink = n;
    }
  }
}

Path critical_path(const Graph& g, const ReplayResult& r) {
  Path path;
  critical_path(g, r, path);
  return path;
}

void critical_path(const Graph& g, const ReplayResult& r, Path& path) {
  path.clear();
  if (r.sink == UINT32_MAX) return;
  // At most three elements (a node and its binding edge, a slow launch's in two pieces) per node
  // on the path: no regrowth.
  path.reserve(3 * g.nodes.size() + 2);
  uint32_t cur = r.sink;
  bool at_finish = true;
  for (size_t guard = 0; guard < 4 * g.nodes.size() + 4; ++guard) {
    const Node& nd = g.nodes[cur];
    if (at_finish && r.finish[cur] != r.start[cur]) {
      PathElement p;
      p.node = cur;
      p.start = r.start[cur];
      p.ticks = r.finish[cur] - r.start[cur];
      p.attr = nd.attr;
      p.resource = nd.resource;
      path.push_back(p);
    }
    uint32_t b = r.binding[cur];
    if (b == UINT32_MAX) {
      if (r.start[cur] != 0) {
        PathElement p;
        p.start = 0;
        p.ticks = r.start[cur];
        p.attr = nd.kind == NodeKind::Gpu ? Attribution::PreviousIteration : Attribution::CpuBound;
        p.resource = nd.resource;
        path.push_back(p);
      }
      break;
    }
    const Edge& e = g.edges[b];
    int64_t base = e.from == Edge::kNone ? 0 : (e.from_start ? r.start[e.from] : r.finish[e.from]);
    int64_t contrib = r.start[cur] - base;
    // A slow launch's binding edge is two pieces, as the replay splits it: the median launch
    // latency (launch_overhead, first) and the excess over it (unexplained, after it); the
    // path is walked backwards, so the excess goes in first.
    if (contrib > 0 && e.kind == EdgeKind::Launch && e.unexplained) {
      const int64_t excess = r.gpu_gaps_dropped ? 0 : std::clamp<int64_t>(unexplained_part(g, e), 0, contrib);
      if (excess > 0) {
        PathElement p;
        p.edge = b;
        p.start = base + (contrib - excess);
        p.ticks = excess;
        p.resource = nd.resource;
        p.attr = Attribution::Unexplained;
        path.push_back(p);
        contrib -= excess;
      }
    }
    if (contrib != 0) {
      PathElement p;
      p.edge = b;
      p.start = base;
      p.ticks = contrib;
      p.resource = nd.resource;
      if (e.unexplained && e.kind != EdgeKind::Launch) {
        p.attr = Attribution::Unexplained;
      } else {
        switch (e.kind) {
          case EdgeKind::Launch: p.attr = Attribution::LaunchOverhead; break;
          case EdgeKind::Start:
            p.attr = nd.kind == NodeKind::Gpu || nd.kind == NodeKind::Carry ? Attribution::PreviousIteration : Attribution::CpuBound;
            break;
          case EdgeKind::Sync: p.attr = Attribution::CpuBound; break;
          case EdgeKind::Program:
          case EdgeKind::CrossStream: p.attr = nd.attr; break;
        }
      }
      path.push_back(p);
    }
    if (e.from == Edge::kNone) break;
    at_finish = !e.from_start;
    cur = e.from;
  }
  std::reverse(path.begin(), path.end());
}

}  // namespace sextant::trace::replay
