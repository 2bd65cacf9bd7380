#pragma once
// The dependency graph of one iteration of one rank, rebuilt from the trace's dependencies and
// measured durations, and its replay (longest path). Used by the critical-path and the what-if
// analyses (docs/trace-analysis.md, "Critical path and what-if replay").
//
// Nodes:
//  - host gaps: the CPU time on a thread between two consecutive runtime/driver calls (Python,
//    operator dispatch, data loading), with their measured durations;
//  - runtime/driver calls on a thread (launches, memcpy, event record, ...); a call that waits
//    for the GPU (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, a memcpy
//    that returns after its copy) is split into an "enter" node and a "return" node whose start
//    waits for the GPU work it synchronises with;
//  - GPU events (kernels, memcpy, memset), one chain per stream;
//  - carry-in: GPU work outside the iteration that it waits for (a stream still running work
//    launched before the iteration, a synchronisation or a recorded cross-stream wait awaiting
//    it), one node per contiguous run of such events on a stream (CarryRun), held at its measured
//    times (no scale applies to it).
// Edges (ready time = predecessor's finish + weight, or its start + weight for launch edges):
//  - program order on a thread and on a stream;
//  - launch: call start -> GPU event start (correlation id);
//  - sync: awaited GPU event -> return node of the synchronising call;
//  - cross-stream: inferred where a GPU event waits on no edge above but starts right after an
//    event on another stream ends (cudaStreamWaitEvent / event dependencies);
//  - start: a constant offset from the iteration start (the first call of a secondary thread,
//    a GPU event or carry-in run that nothing in the trace explains the start of);
//  - fork/join: a burst of a secondary thread's calls inside a host gap of the step's thread
//    (PyTorch's autograd thread running the backward pass while the step's thread waits in
//    loss.backward()) starts after the node before the gap and ends before the gap's remainder.
// Edge weights are measured latencies: the binding edge of each GPU event carries the measured
// slack (so an unscaled replay reproduces the iteration), non-binding launch edges carry the
// rank's median launch latency. Slack above a threshold on a GPU ordering edge is "unexplained".
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "trace/analyses/frame.hpp"

namespace re2 {
class RE2;
}  // namespace re2

namespace sextant::trace::replay {

// Memory of the replay's large arrays (the graph, the replay result, the walk's scratch). A block
// of kLargeBlockBytes or more is a mapping of its own at a 2 MiB boundary, advised as transparent
// huge pages, so that the kernel faults its whole 2 MiB ranges in (and zeroes them) 2 MiB at a
// time instead of 4 KiB (a fault costs ~4 us on this project's VMs; resnet_kineto's one graph of
// 60,000 nodes has ~9 MB of arrays); the tail past the last 2 MiB boundary stays in 4 KiB pages,
// and only written ranges become resident. Smaller blocks come from operator new.
inline constexpr size_t kLargeBlockBytes = size_t{1} << 20;
void* large_block_allocate(size_t bytes);
void large_block_deallocate(void* p, size_t bytes) noexcept;

template <class T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <class U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t));
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(large_block_allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { large_block_deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const LargeArrayAllocator<U>&) const noexcept { return true; }
};
template <class T>
using LargeVector = std::vector<T, LargeArrayAllocator<T>>;

// Carry: GPU work outside the iteration that the iteration waits for, held at its measured
// times (attributed previous_iteration when launched before the iteration, else unexplained).
enum class NodeKind : uint8_t { HostGap, HostCall, SyncEnter, SyncReturn, Gpu, Carry };
enum class EdgeKind : uint8_t { Program, Launch, Sync, CrossStream, Start };

// What a piece of the critical path is attributed to.
enum class Attribution : uint8_t {
  CpuBound = 0,
  DataLoading,
  LaunchOverhead,
  Compute,
  Communication,
  Memcpy,
  PreviousIteration,
  Unexplained,
  Count_
};
const char* attribution_name(Attribution a);

struct Node {
  int64_t dur = 0;             // measured duration (ticks)
  int64_t measured_start = 0;  // ticks from the iteration start (for ordering and reporting)
  int32_t resource = 0;        // index into Graph::resources
  uint32_t name = UINT32_MAX;  // string id in the rank's trace (UINT32_MAX for gaps)
  NodeKind kind = NodeKind::HostGap;
  Attribution attr = Attribution::CpuBound;
  KernelKind gpu_kind = KernelKind::Computation;
  // The iteration ends with the last node of the step's thread or the GPU: a secondary thread's
  // own nodes (a watchdog polling events, a thread still waiting) count only through the edges
  // they have to those (launches, joins). Before 2026-12-02 an unlinked thread's last poll set a
  // floor under every what-if prediction.
  bool in_iteration = true;
};
static_assert(sizeof(Node) == 32, "Node is one of 10^4-10^5 per iteration: keep it at 32 bytes");

struct Edge {
  static constexpr uint32_t kNone = UINT32_MAX;
  Edge() = default;
  Edge(uint32_t from_, int64_t weight_, EdgeKind kind_, bool from_start_, bool unexplained_)
      : weight(weight_), from(from_), kind(kind_), from_start(from_start_), unexplained(unexplained_) {}
  int64_t weight = 0;     // ticks
  uint32_t from = kNone;  // kNone: a constant ready time (weight) from the iteration start
  EdgeKind kind = EdgeKind::Program;
  bool from_start = false;  // ready = from's start + weight (launch edges), else from's finish + weight
  bool unexplained = false; // measured slack above the threshold on a GPU ordering edge
};
static_assert(sizeof(Edge) == 16, "Edge: 16 bytes");

struct Resource {
  bool gpu = false;
  int64_t id = 0;  // stream, or thread id
};

// What a carry-in node stands for: a run of GPU events on one stream, of which the path reports
// the number and the longest (before 2026-12-06 a run counted as one event named after its last:
// a 205 us run of a 190 us GEMM, a relu and a softmax read "events_count 1, softmax_kernel";
// review of that day). The node's name is the longest event's too.
struct CarryRun {
  uint32_t node = UINT32_MAX;
  uint32_t events = 0;                 // GPU events of the run
  uint32_t longest_name = UINT32_MAX;  // string id of the longest of them
  int64_t longest_ticks = 0;           // its time inside the iteration (ticks)
};

struct Graph {
  int64_t step = -1;              // ProfilerStep number; -1 for a whole trace without steps
  int64_t window_start = 0;       // absolute ticks of the iteration start
  int64_t measured_ticks = 0;     // measured iteration time (CPU step end or last GPU end)
  int64_t median_launch_latency = 0;
  LargeVector<Node> nodes;
  LargeVector<Edge> edges;        // incoming edges grouped by target node, in the order they were found
  LargeVector<uint32_t> edge_at;  // CSR: node n's incoming edges are edges[edge_at[n] .. edge_at[n + 1])
  std::vector<Resource> resources;
  LargeVector<uint32_t> order;    // a topological order of the nodes
  int64_t cycles_broken = 0;      // edges ignored because the data formed a cycle
  int64_t unexplained_edge_ticks = 0;  // total slack on unexplained edges (on the path or not)
  std::vector<CarryRun> carry_runs;    // one per carry-in node, by node
  // The run of a carry-in node (nullptr for any other node).
  const CarryRun* carry_run(uint32_t node) const;
};

// The unexplained part of an edge's measured weight: none unless the edge is flagged unexplained;
// on a launch edge its excess over the later of the rank's median launch latency and the launching
// call's return (up to it the time is the launch's, which `launch=` scales), on any other edge all
// of it. The replay, the critical path and Graph::unexplained_edge_ticks split an edge by this one
// rule (before 2026-12-05 the path called a whole slow launch latency unexplained while the replay
// kept its median part as launch time; until the 2026-12-06 review the call's return did not
// count, and a blocking 4.2 s cudaLaunchKernel was GPU slack to `launch=0`; review of that day).
int64_t unexplained_part(const Graph& g, const Edge& e);

// The part of a launch edge's measured weight that its launching call's own duration covers (0
// for any other edge): it scales with the call's node in the replay.
int64_t launch_call_ticks(const Graph& g, const Edge& e);

struct BuildOptions {
  int64_t unexplained_gap_ticks = 10000;  // slack above this on a GPU ordering edge is unexplained
  int64_t cross_stream_min_gap_ticks = 2000;  // look for a cross-stream dependency above this slack
  // A gap of the step's thread of at least this, half spanned by a burst of a secondary thread's
  // calls that launches GPU work (the autograd thread's backward pass), is a wait for that thread
  // (fork/join edges). In ticks: 10 us in ns ticks here; the analyses set it per rule set.
  int64_t join_min_gap_ticks = 10000;
};

// Scratch memory of the graph walk (per-frame indexes, per-iteration buffers and the graph itself),
// kept from one iteration and one frame to the next: a buffer grows to the largest iteration once
// and its pages are faulted in once, instead of every iteration's vectors being allocated (and,
// above the mmap threshold, mapped, faulted in, zeroed and unmapped) again.
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// One graph per iteration (ProfilerStep#N) of the frame, or one for the whole trace when it has
// no steps, handed to visit in iteration order; the graph is only valid during the visit (its
// buffers are reused for the next iteration; visit may move it away). Memory holds one
// iteration's graph, not the trace's (a 10^7-event trace has ~80000 iterations). Never throws on
// odd data; oddities are counted in diag. ws: scratch to reuse across calls (nullptr: a fresh one).
void for_each_iteration_graph(const Frame& f, const BuildOptions& opt, Diagnostics& diag,
                              const std::function<void(Graph&)>& visit, Workspace* ws = nullptr);
// All of them at once (tests, small traces).
std::vector<Graph> build_iteration_graphs(const Frame& f, const BuildOptions& opt, Diagnostics& diag);

// What-if scaling of classes of work.
struct Scale {
  enum class Target : uint8_t { Communication, Compute, Memcpy, Gpu, Host, Launch, KernelRegex };
  Target target = Target::Gpu;
  double factor = 1.0;
  std::string pattern;  // for KernelRegex
  std::shared_ptr<const re2::RE2> re;  // its compiled form (RE2: linear in the name, no recursion)
};
// Whether a KernelRegex scale's pattern matches (anywhere in) a kernel name.
bool scale_matches(const Scale& s, std::string_view name);
// Parses "comm=0.5", "compute=0.8", "memcpy=2", "gpu=0.9", "host=0.5", "launch=0",
// "kernel:REGEX=0.8". Throws sextant::Error naming the valid choices.
Scale parse_scale(const std::string& spec);

struct ReplayOptions {
  std::vector<Scale> scales;  // factors multiply where several apply
  bool drop_host_gaps = false;   // host gaps take no time
  bool drop_gpu_gaps = false;    // slack on GPU ordering edges is removed, and a launch latency's excess over the median
};

struct ReplayResult {
  int64_t makespan = 0;                 // ticks
  LargeVector<int64_t> start, finish;   // per node
  LargeVector<uint32_t> binding;        // per node: index of the binding incoming edge (UINT32_MAX: none)
  uint32_t sink = UINT32_MAX;
  std::vector<int64_t> scale_hits;      // per opt.scales entry: nodes it scaled in this replay
  bool gpu_gaps_dropped = false;        // the replay's opt.drop_gpu_gaps (no unexplained slack left on its path)
};
ReplayResult replay(const Graph& g, const Frame& f, const ReplayOptions& opt);
// The same into r, whose buffers are reused (no allocation once they are large enough).
void replay(const Graph& g, const Frame& f, const ReplayOptions& opt, ReplayResult& r);

// One element of the critical path, in time order.
struct PathElement {
  uint32_t node = UINT32_MAX;  // node whose duration is on the path (UINT32_MAX: an edge)
  uint32_t edge = UINT32_MAX;  // edge whose weight is on the path
  int64_t start = 0, ticks = 0;
  Attribution attr = Attribution::CpuBound;
  int32_t resource = -1;       // the node's resource, or the edge's target's
};
using Path = LargeVector<PathElement>;
// Walks back from the sink along binding edges. The ticks of the elements sum to the makespan.
Path critical_path(const Graph& g, const ReplayResult& r);
// The same into path (cleared first; its buffer is reused).
void critical_path(const Graph& g, const ReplayResult& r, Path& path);

}  // namespace sextant::trace::replay
