#include "trace/replay/graph.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_map>

#include "core/error.hpp"

namespace sextant::trace::replay {

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

bool is_dataloader_name(const std::string& n) {
  std::string l(n);
  for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return contains(l, "dataloader") || contains(l, "data_loader");
}

struct Step {
  int64_t ts, end, n;
  int64_t tid_key;
};

int64_t thread_key(const RankTrace& t, uint32_t ev) {
  return (static_cast<int64_t>(t.pid[ev]) << 32) ^ static_cast<int64_t>(static_cast<uint32_t>(t.tid[ev]));
}

}  // namespace

std::vector<Graph> build_iteration_graphs(const Frame& f, const BuildOptions& opt, Diagnostics& diag) {
  std::vector<Graph> out;
  for_each_iteration_graph(f, opt, diag, [&](Graph& g) { out.push_back(std::move(g)); });
  return out;
}

void for_each_iteration_graph(const Frame& f, const BuildOptions& opt, Diagnostics& diag,
                              const std::function<void(Graph&)>& visit) {
  const RankTrace& t = *f.trace;
  const std::string rank_s = "rank " + std::to_string(f.rank());

  // Call types per name id (each distinct name classified once).
  std::unordered_map<uint32_t, CallType> types;
  auto type_of = [&](uint32_t ev) {
    auto it = types.find(t.name[ev]);
    if (it != types.end()) return it->second;
    CallType c = call_type(t.strings.str(t.name[ev]));
    types.emplace(t.name[ev], c);
    return c;
  };
  auto is_call = [&](const CpuEvent& c) {
    return t.cat[c.event] == Category::CudaRuntime || t.cat[c.event] == Category::CudaDriver;
  };

  // Steps.
  std::vector<Step> steps;
  for (const auto& c : f.cpu) {
    if (t.cat[c.event] == Category::GpuUserAnnotation) continue;  // the GPU-side copy of the step range
    const std::string& n = t.strings.str(t.name[c.event]);
    if (n.rfind("ProfilerStep#", 0) != 0 || n.size() <= 13) continue;
    int64_t num = 0;
    bool ok = true;
    for (size_t i = 13; i < n.size(); ++i) {
      if (n[i] < '0' || n[i] > '9') {
        ok = false;
        break;
      }
      num = num * 10 + (n[i] - '0');
    }
    if (ok) steps.push_back(Step{c.ts, c.end, num, thread_key(t, c.event)});
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
  if (steps.empty()) {
    // The whole trace is one iteration: from the first call or GPU event to the last end.
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t main_key = 0;
    bool have_main = false;
    for (const auto& c : f.cpu)
      if (is_call(c)) {
        lo = std::min(lo, c.ts);
        hi = std::max(hi, c.end);
        if (!have_main) {
          main_key = thread_key(t, c.event);
          have_main = true;
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

  // Median launch latency (call start -> GPU start) over GPU events whose stream was idle at the launch.
  int64_t median_latency = 0;
  {
    std::unordered_map<int64_t, int64_t> last_end;  // stream -> end of the previous event
    std::vector<int64_t> lat;
    for (const auto& g : f.gpu) {
      auto it = last_end.find(g.stream);
      int64_t prev_end = it == last_end.end() ? INT64_MIN : it->second;
      if (g.runtime >= 0) {
        const CpuEvent& c = f.cpu[static_cast<size_t>(g.runtime)];
        if (prev_end <= c.ts && g.ts >= c.ts) lat.push_back(g.ts - c.ts);
      }
      last_end[g.stream] = std::max(prev_end, g.end);
    }
    if (!lat.empty()) {
      auto mid = lat.begin() + static_cast<std::ptrdiff_t>(lat.size() / 2);
      std::nth_element(lat.begin(), mid, lat.end());
      median_latency = *mid;
    }
  }

  // Stream of each cuda_sync event by correlation id (cudaStreamSynchronize's stream).
  std::vector<std::pair<int64_t, int64_t>> sync_stream;
  for (size_t i = 0; i < t.size(); ++i)
    if (t.cat[i] == Category::CudaSync && t.correlation[i] != -1 && t.stream[i] != -1)
      sync_stream.emplace_back(t.correlation[i], t.stream[i]);
  std::sort(sync_stream.begin(), sync_stream.end());
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
    auto it = loader.find(key);
    if (it == loader.end() || b <= a) return false;
    const auto& iv = it->second;
    const auto& mx = loader_max_end[key];
    int64_t covered = 0;
    auto hi = static_cast<size_t>(std::lower_bound(iv.begin(), iv.end(), std::make_pair(b, INT64_MIN)) - iv.begin());
    for (size_t i = hi; i-- > 0 && mx[i] > a;)
      covered += std::max<int64_t>(0, std::min(b, iv[i].second) - std::max(a, iv[i].first));
    return 2 * covered > b - a;
  };

  // Which calls returned only after their own GPU copy ended (synchronous memcpy/memset).
  std::vector<std::pair<uint32_t, uint32_t>> waits_own;  // (cpu position, gpu position)
  for (uint32_t k = 0; k < f.gpu.size(); ++k) {
    const auto& g = f.gpu[k];
    if (g.runtime < 0) continue;
    const CpuEvent& c = f.cpu[static_cast<size_t>(g.runtime)];
    CallType ct = type_of(c.event);
    if ((ct == CallType::SyncMemcpy || ct == CallType::AsyncMemcpy) && g.end <= c.end)
      waits_own.emplace_back(static_cast<uint32_t>(g.runtime), k);
  }
  std::sort(waits_own.begin(), waits_own.end());
  auto own_wait = [&](uint32_t cpu_pos) -> int64_t {
    auto it = std::lower_bound(waits_own.begin(), waits_own.end(), std::make_pair(cpu_pos, 0u));
    return it != waits_own.end() && it->first == cpu_pos ? static_cast<int64_t>(it->second) : -1;
  };

  // Previous GPU event on the same stream, for every GPU event (to find carry-in work).
  std::vector<int64_t> prev_on_stream(f.gpu.size(), -1);
  {
    std::unordered_map<int64_t, int64_t> last;
    for (uint32_t k = 0; k < f.gpu.size(); ++k) {
      auto it = last.find(f.gpu[k].stream);
      if (it != last.end()) prev_on_stream[k] = it->second;
      last[f.gpu[k].stream] = k;
    }
  }

  std::vector<uint32_t> call_node(f.cpu.size(), Edge::kNone);  // cpu position -> node (enter node for syncs)
  std::vector<uint32_t> gpu_node(f.gpu.size(), Edge::kNone);

  // Indexes so that each window costs in proportion to its own events: calls sorted by start,
  // GPU events by launching call, GPU events without a launch by start.
  std::vector<uint32_t> calls_by_ts;
  for (uint32_t k = 0; k < f.cpu.size(); ++k)
    if (is_call(f.cpu[k])) calls_by_ts.push_back(k);
  std::stable_sort(calls_by_ts.begin(), calls_by_ts.end(),
                   [&](uint32_t a, uint32_t b) { return f.cpu[a].ts < f.cpu[b].ts; });
  std::vector<std::pair<uint32_t, uint32_t>> gpu_by_call;  // (cpu position, gpu position)
  std::vector<uint32_t> unlaunched;                        // gpu positions, by ts (f.gpu is sorted by ts)
  for (uint32_t k = 0; k < f.gpu.size(); ++k) {
    if (f.gpu[k].runtime >= 0) {
      gpu_by_call.emplace_back(static_cast<uint32_t>(f.gpu[k].runtime), k);
    } else {
      unlaunched.push_back(k);
    }
  }
  std::sort(gpu_by_call.begin(), gpu_by_call.end());

  for (size_t si = 0; si < steps.size(); ++si) {
    const Step& st = steps[si];
    Graph gr;
    gr.step = st.n;
    gr.window_start = st.ts;
    gr.median_launch_latency = median_latency;
    const int64_t w0 = st.ts;
    std::vector<std::pair<uint32_t, Edge>> edges;
    auto add_edge = [&](uint32_t to, Edge e) { edges.emplace_back(to, e); };
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

    // Calls in the window, by thread.
    std::vector<uint32_t> calls;
    {
      auto lo = std::lower_bound(calls_by_ts.begin(), calls_by_ts.end(), st.ts,
                                 [&](uint32_t k, int64_t v) { return f.cpu[k].ts < v; });
      for (auto it = lo; it != calls_by_ts.end() && f.cpu[*it].ts < st.end; ++it) calls.push_back(*it);
    }
    std::stable_sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
      int64_t ka = thread_key(t, f.cpu[a].event), kb = thread_key(t, f.cpu[b].event);
      if (ka != kb) {
        // The step's own thread first, then by key.
        if (ka == st.tid_key) return true;
        if (kb == st.tid_key) return false;
        return ka < kb;
      }
      return f.cpu[a].ts < f.cpu[b].ts;
    });
    std::vector<uint32_t> touched_calls;
    // Pending sync edges: (return node, cpu position, call type).
    struct PendingSync {
      uint32_t ret;
      uint32_t cpu;
      CallType type;
    };
    std::vector<PendingSync> pending;

    bool main_seen = false;
    size_t i = 0;
    while (i < calls.size() || !main_seen) {
      int64_t key = i < calls.size() ? thread_key(t, f.cpu[calls[i]].event) : st.tid_key;
      const bool is_main = key == st.tid_key;
      if (is_main) main_seen = true;
      gr.resources.push_back(Resource{false, key & 0xffffffff});
      const auto res = static_cast<int32_t>(gr.resources.size() - 1);
      uint32_t prev = Edge::kNone;
      int64_t prev_end = st.ts;
      auto chain = [&](uint32_t node) {
        if (prev != Edge::kNone) add_edge(node, Edge{prev, 0, EdgeKind::Program, false, false});
        prev = node;
      };
      size_t j = i;
      for (; j < calls.size() && thread_key(t, f.cpu[calls[j]].event) == key; ++j) {
        const uint32_t cp = calls[j];
        const CpuEvent& c = f.cpu[cp];
        if (prev != Edge::kNone && c.ts < prev_end) {
          // Nested in (or overlapping) the previous call on this thread: its launches count from the outer call.
          call_node[cp] = call_node[calls[j - 1]] != Edge::kNone ? call_node[calls[j - 1]] : prev;
          touched_calls.push_back(cp);
          if (c.end > prev_end) diag.add("replay: overlapping runtime calls on a thread", "info", rank_s);
          continue;
        }
        // A secondary thread starts when the trace says (what triggers it is not in the trace):
        // its first call gets a start edge, not a host gap.
        if (prev == Edge::kNone && !is_main) prev_end = c.ts;
        if (c.ts > prev_end) {
          Attribution a = in_loader(key, prev_end, c.ts) ? Attribution::DataLoading : Attribution::CpuBound;
          uint32_t gap = new_node(NodeKind::HostGap, a, res, prev_end, c.ts - prev_end, UINT32_MAX);
          chain(gap);
        }
        const CallType ct = type_of(c.event);
        const int64_t own = own_wait(cp);
        const bool sync = ct == CallType::DeviceSync || ct == CallType::StreamSync || ct == CallType::EventSync ||
                          own >= 0;
        uint32_t first_node;
        if (sync) {
          uint32_t enter = new_node(NodeKind::SyncEnter, Attribution::CpuBound, res, c.ts, 0, t.name[c.event]);
          if (prev == Edge::kNone && !is_main)
            add_edge(enter, Edge{Edge::kNone, c.ts - w0, EdgeKind::Start, false, false});
          chain(enter);
          first_node = enter;
          uint32_t ret = new_node(NodeKind::SyncReturn, Attribution::CpuBound, res, c.ts, c.end - c.ts, t.name[c.event]);
          chain(ret);
          pending.push_back(PendingSync{ret, cp, own >= 0 ? CallType::SyncMemcpy : ct});
        } else {
          Attribution a = (ct == CallType::Launch || ct == CallType::AsyncMemcpy || ct == CallType::SyncMemcpy)
                              ? Attribution::LaunchOverhead
                              : Attribution::CpuBound;
          uint32_t n = new_node(NodeKind::HostCall, a, res, c.ts, c.end - c.ts, t.name[c.event]);
          if (prev == Edge::kNone && !is_main) add_edge(n, Edge{Edge::kNone, c.ts - w0, EdgeKind::Start, false, false});
          chain(n);
          first_node = n;
        }
        call_node[cp] = first_node;
        touched_calls.push_back(cp);
        prev_end = c.end;
      }
      if (is_main && st.end > prev_end) {
        Attribution a = in_loader(key, prev_end, st.end) ? Attribution::DataLoading : Attribution::CpuBound;
        uint32_t gap = new_node(NodeKind::HostGap, a, res, prev_end, st.end - prev_end, UINT32_MAX);
        chain(gap);
      }
      i = j;
      if (i >= calls.size() && main_seen) break;
    }

    // GPU events of the window: launched from a call in it, or (without a launch) starting in it.
    std::vector<uint32_t> gk;
    for (uint32_t cp : calls) {
      auto r = std::equal_range(gpu_by_call.begin(), gpu_by_call.end(), std::make_pair(cp, 0u),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto it = r.first; it != r.second; ++it) gk.push_back(it->second);
    }
    {
      auto lo = std::lower_bound(unlaunched.begin(), unlaunched.end(), st.ts,
                                 [&](uint32_t k, int64_t v) { return f.gpu[k].ts < v; });
      for (auto it = lo; it != unlaunched.end() && f.gpu[*it].ts < st.end; ++it) gk.push_back(*it);
    }
    std::stable_sort(gk.begin(), gk.end(), [&](uint32_t a, uint32_t b) {
      if (f.gpu[a].stream != f.gpu[b].stream) return f.gpu[a].stream < f.gpu[b].stream;
      return a < b;
    });
    std::vector<int64_t> launch_start;  // per GPU node in gk order: launch call start (relative), or its own ts
    std::vector<uint32_t> gnodes;
    {
      int64_t cur_stream = INT64_MIN;
      int32_t res = -1;
      for (uint32_t k : gk) {
        const auto& g = f.gpu[k];
        if (g.stream != cur_stream) {
          gr.resources.push_back(Resource{true, g.stream});
          res = static_cast<int32_t>(gr.resources.size() - 1);
          cur_stream = g.stream;
        }
        uint32_t n = new_node(NodeKind::Gpu, gpu_attr(g.kind), res, g.ts, g.end - g.ts, g.name);
        gr.nodes[n].gpu_kind = g.kind;
        gpu_node[k] = n;
        gnodes.push_back(n);
      }
    }
    // GPU nodes by measured end, for the cross-stream and sync searches.
    std::vector<std::pair<int64_t, uint32_t>> by_end;  // (measured end, gk index)
    for (uint32_t q = 0; q < gk.size(); ++q) {
      const Node& n = gr.nodes[gnodes[q]];
      by_end.emplace_back(n.measured_start + n.dur, q);
    }
    std::sort(by_end.begin(), by_end.end());
    for (uint32_t q = 0; q < gk.size(); ++q) {
      const auto& g = f.gpu[gk[q]];
      launch_start.push_back(g.runtime >= 0 ? f.cpu[static_cast<size_t>(g.runtime)].ts - w0 : g.ts - w0);
    }

    // GPU edges.
    for (uint32_t q = 0; q < gk.size(); ++q) {
      const uint32_t k = gk[q];
      const auto& g = f.gpu[k];
      const uint32_t n = gnodes[q];
      const int64_t ts = g.ts - w0;
      // Stream predecessor.
      uint32_t pred_node = Edge::kNone;
      int64_t r_p = INT64_MIN;
      bool pred_const = false;
      if (prev_on_stream[k] >= 0) {
        const auto pk = static_cast<uint32_t>(prev_on_stream[k]);
        if (gpu_node[pk] != Edge::kNone && gr.nodes.size() > gpu_node[pk] && gr.nodes[gpu_node[pk]].kind == NodeKind::Gpu &&
            gr.nodes[gpu_node[pk]].resource == gr.nodes[n].resource && gpu_node[pk] < n) {
          pred_node = gpu_node[pk];
          r_p = gr.nodes[pred_node].measured_start + gr.nodes[pred_node].dur;
        } else {
          r_p = f.gpu[pk].end - w0;  // still running the previous iteration's work (or earlier)
          pred_const = true;
        }
      }
      // Launch.
      uint32_t call = g.runtime >= 0 ? call_node[static_cast<size_t>(g.runtime)] : Edge::kNone;
      int64_t cs = call != Edge::kNone ? gr.nodes[call].measured_start : 0;
      int64_t actual = ts - cs;
      int64_t typical = std::min(median_latency, actual);
      int64_t r_l = call != Edge::kNone ? cs + typical : INT64_MIN;
      int64_t base = std::max(r_p, r_l);
      // Cross-stream dependency: the latest event on another stream ending in (base, ts].
      uint32_t cross = Edge::kNone;
      int64_t r_x = INT64_MIN;
      if (base != INT64_MIN && ts - base > opt.cross_stream_min_gap_ticks) {
        auto it = std::upper_bound(by_end.begin(), by_end.end(), std::make_pair(ts, UINT32_MAX));
        for (int steps_back = 0; it != by_end.begin() && steps_back < 32; ++steps_back) {
          --it;
          if (it->first <= base) break;
          const uint32_t xn = gnodes[it->second];
          if (gr.nodes[xn].resource != gr.nodes[n].resource && xn != n) {
            cross = xn;
            r_x = it->first;
            break;
          }
        }
      }
      const int64_t slack_t = opt.unexplained_gap_ticks;
      if (cross != Edge::kNone) {
        int64_t w = ts - r_x;
        add_edge(n, Edge{cross, w, EdgeKind::CrossStream, false, w > slack_t});
        if (pred_node != Edge::kNone) add_edge(n, Edge{pred_node, 0, EdgeKind::Program, false, false});
        else if (pred_const) add_edge(n, Edge{Edge::kNone, r_p, EdgeKind::Start, false, false});
        if (call != Edge::kNone) add_edge(n, Edge{call, typical, EdgeKind::Launch, true, false});
      } else if (r_p != INT64_MIN && r_p >= r_l) {
        int64_t w = ts - r_p;
        bool unexpl = w > slack_t;
        if (pred_node != Edge::kNone) add_edge(n, Edge{pred_node, w, EdgeKind::Program, false, unexpl});
        else add_edge(n, Edge{Edge::kNone, ts, EdgeKind::Start, false, false});
        if (call != Edge::kNone) add_edge(n, Edge{call, typical, EdgeKind::Launch, true, false});
      } else if (call != Edge::kNone) {
        if (actual < 0) diag.add("replay: GPU event starts before its launching call", "warning", rank_s);
        add_edge(n, Edge{call, actual, EdgeKind::Launch, true, actual - median_latency > slack_t});
        if (pred_node != Edge::kNone) add_edge(n, Edge{pred_node, 0, EdgeKind::Program, false, false});
        else if (pred_const) add_edge(n, Edge{Edge::kNone, r_p, EdgeKind::Start, false, false});
      } else {
        add_edge(n, Edge{Edge::kNone, ts, EdgeKind::Start, false, false});
      }
    }

    // Sync edges: the GPU event a synchronising call waited for.
    std::unordered_map<int64_t, int32_t> stream_res;
    for (size_t r = 0; r < gr.resources.size(); ++r)
      if (gr.resources[r].gpu) stream_res[gr.resources[r].id] = static_cast<int32_t>(r);
    for (const auto& ps : pending) {
      const CpuEvent& c = f.cpu[ps.cpu];
      const int64_t cts = c.ts - w0, cend = c.end - w0;
      uint32_t awaited = Edge::kNone;
      int64_t aw_end = INT64_MIN;
      if (ps.type == CallType::SyncMemcpy) {
        int64_t own = own_wait(ps.cpu);
        if (own >= 0 && gpu_node[static_cast<size_t>(own)] != Edge::kNone) {
          awaited = gpu_node[static_cast<size_t>(own)];
          aw_end = gr.nodes[awaited].measured_start + gr.nodes[awaited].dur;
        }
      } else {
        int32_t only_res = -1;
        if (ps.type == CallType::StreamSync) {
          int64_t s = stream_of_sync(t.correlation[c.event]);
          if (s != -1) {
            auto it = stream_res.find(s);
            only_res = it == stream_res.end() ? -2 : it->second;
          }
        }
        if (only_res != -2) {
          auto it = std::upper_bound(by_end.begin(), by_end.end(), std::make_pair(cend, UINT32_MAX));
          for (int back = 0; it != by_end.begin() && back < 256; ++back) {
            --it;
            const uint32_t xn = gnodes[it->second];
            if (only_res >= 0 && gr.nodes[xn].resource != only_res) continue;
            if (launch_start[it->second] < cts) {
              awaited = xn;
              aw_end = it->first;
              break;
            }
          }
        }
      }
      if (awaited != Edge::kNone) {
        add_edge(ps.ret, Edge{awaited, 0, EdgeKind::Sync, false, false});
        gr.nodes[ps.ret].dur = cend - std::max(cts, aw_end);
        gr.nodes[ps.ret].measured_start = std::max(cts, aw_end);
      }
    }

    // Measured iteration time.
    int64_t end_rel = st.end - w0;
    for (const Node& n : gr.nodes) end_rel = std::max(end_rel, n.measured_start + n.dur);
    gr.measured_ticks = end_rel;

    // CSR: edges grouped by target node, in the order they were added (a counting sort).
    {
      const size_t N = gr.nodes.size();
      std::vector<uint32_t> at(N + 1, 0);
      for (const auto& [to, ed] : edges) ++at[to + 1];
      for (size_t n = 0; n < N; ++n) at[n + 1] += at[n];
      for (size_t n = 0; n < N; ++n) {
        gr.nodes[n].edge_begin = at[n];
        gr.nodes[n].edge_end = at[n + 1];
      }
      gr.edges.resize(edges.size());
      for (const auto& [to, ed] : edges) gr.edges[at[to]++] = ed;
      for (const Edge& ed : gr.edges)
        if (ed.unexplained) gr.unexplained_edge_ticks += ed.weight;
    }
    // Topological order (Kahn), ready nodes taken by measured start then index; a cycle is
    // broken at the earliest remaining node (counted).
    {
      const size_t N = gr.nodes.size();
      // Successors in CSR form (succ_at[n] .. succ_at[n + 1]), each list in increasing target order.
      std::vector<uint32_t> indeg(N, 0);
      std::vector<uint32_t> succ_at(N + 1, 0);
      for (uint32_t n = 0; n < N; ++n)
        for (uint32_t q = gr.nodes[n].edge_begin; q < gr.nodes[n].edge_end; ++q)
          if (gr.edges[q].from != Edge::kNone) {
            ++indeg[n];
            ++succ_at[gr.edges[q].from + 1];
          }
      for (size_t n = 0; n < N; ++n) succ_at[n + 1] += succ_at[n];
      std::vector<uint32_t> succ(succ_at[N]);
      {
        std::vector<uint32_t> fill(succ_at.begin(), succ_at.end() - 1);
        for (uint32_t n = 0; n < N; ++n)
          for (uint32_t q = gr.nodes[n].edge_begin; q < gr.nodes[n].edge_end; ++q)
            if (gr.edges[q].from != Edge::kNone) succ[fill[gr.edges[q].from]++] = n;
      }
      using Item = std::pair<int64_t, uint32_t>;
      std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
      for (uint32_t n = 0; n < N; ++n)
        if (indeg[n] == 0) ready.emplace(gr.nodes[n].measured_start, n);
      std::vector<char> done(N, 0);
      gr.order.reserve(N);
      while (gr.order.size() < N) {
        if (ready.empty()) {
          uint32_t best = Edge::kNone;
          for (uint32_t n = 0; n < N; ++n)
            if (!done[n] && (best == Edge::kNone || gr.nodes[n].measured_start < gr.nodes[best].measured_start)) best = n;
          ++gr.cycles_broken;
          indeg[best] = 0;
          ready.emplace(gr.nodes[best].measured_start, best);
        }
        auto [s, n] = ready.top();
        ready.pop();
        if (done[n]) continue;
        done[n] = 1;
        gr.order.push_back(n);
        for (uint32_t k = succ_at[n]; k < succ_at[n + 1]; ++k) {
          const uint32_t m = succ[k];
          if (!done[m] && indeg[m] > 0 && --indeg[m] == 0) ready.emplace(gr.nodes[m].measured_start, m);
        }
      }
      if (gr.cycles_broken > 0) diag.add("replay: dependency cycle broken", "warning", rank_s);
    }

    for (uint32_t cp : touched_calls) call_node[cp] = Edge::kNone;
    for (uint32_t k : gk) gpu_node[k] = Edge::kNone;
    visit(gr);
  }
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
  if (cls.rfind("kernel:", 0) == 0) {
    s.target = Scale::Target::KernelRegex;
    s.pattern = cls.substr(7);
    try {
      s.re = std::regex(s.pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw Error(where, "invalid regular expression '" + s.pattern + "': " + e.what());
    }
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

ReplayResult replay(const Graph& g, const Frame& f, const ReplayOptions& opt) {
  const size_t N = g.nodes.size();
  ReplayResult r;
  r.start.assign(N, 0);
  r.finish.assign(N, 0);
  r.binding.assign(N, UINT32_MAX);
  // Factors per node.
  std::vector<double> factor(N, 1.0);
  double launch_factor = 1.0;
  if (!opt.scales.empty()) {
    std::vector<std::unordered_map<uint32_t, bool>> match(opt.scales.size());
    for (size_t n = 0; n < N; ++n) {
      const Node& nd = g.nodes[n];
      for (size_t s = 0; s < opt.scales.size(); ++s) {
        const Scale& sc = opt.scales[s];
        bool hit = false;
        switch (sc.target) {
          case Scale::Target::Communication: hit = nd.kind == NodeKind::Gpu && nd.gpu_kind == KernelKind::Communication; break;
          case Scale::Target::Compute: hit = nd.kind == NodeKind::Gpu && nd.gpu_kind == KernelKind::Computation; break;
          case Scale::Target::Memcpy: hit = nd.kind == NodeKind::Gpu && nd.gpu_kind == KernelKind::Memory; break;
          case Scale::Target::Gpu: hit = nd.kind == NodeKind::Gpu; break;
          case Scale::Target::Host:
            hit = nd.kind == NodeKind::HostGap || nd.kind == NodeKind::SyncReturn ||
                  (nd.kind == NodeKind::HostCall && nd.attr != Attribution::LaunchOverhead);
            break;
          case Scale::Target::Launch: hit = nd.kind == NodeKind::HostCall && nd.attr == Attribution::LaunchOverhead; break;
          case Scale::Target::KernelRegex:
            if (nd.kind == NodeKind::Gpu) {
              auto it = match[s].find(nd.name);
              if (it == match[s].end()) it = match[s].emplace(nd.name, std::regex_search(f.name(nd.name), sc.re)).first;
              hit = it->second;
            }
            break;
        }
        if (hit) factor[n] *= sc.factor;
      }
    }
    for (const auto& sc : opt.scales)
      if (sc.target == Scale::Target::Launch) launch_factor *= sc.factor;
  }
  std::vector<char> done(N, 0);
  for (uint32_t n : g.order) {
    const Node& nd = g.nodes[n];
    int64_t start = 0;
    uint32_t bind = UINT32_MAX;
    for (uint32_t q = nd.edge_begin; q < nd.edge_end; ++q) {
      const Edge& e = g.edges[q];
      int64_t w = e.weight;
      if (e.kind == EdgeKind::Launch && launch_factor != 1.0) w = std::llround(static_cast<double>(w) * launch_factor);
      if (opt.drop_gpu_gaps && w > 0 && (e.kind == EdgeKind::Program || e.kind == EdgeKind::CrossStream) &&
          nd.kind == NodeKind::Gpu)
        w = 0;
      int64_t ready;
      if (e.from == Edge::kNone) {
        ready = w;
      } else {
        if (!done[e.from]) continue;  // an edge of a broken cycle
        ready = (e.from_start ? r.start[e.from] : r.finish[e.from]) + w;
      }
      if (bind == UINT32_MAX || ready > start) {
        start = bind == UINT32_MAX ? ready : std::max(start, ready);
        bind = q;
      }
    }
    int64_t dur = nd.dur;
    if (opt.drop_host_gaps && nd.kind == NodeKind::HostGap) dur = 0;
    if (factor[n] != 1.0) dur = std::llround(static_cast<double>(dur) * factor[n]);
    r.start[n] = start;
    r.finish[n] = start + dur;
    r.binding[n] = bind;
    done[n] = 1;
    if (r.sink == UINT32_MAX || r.finish[n] > r.makespan) {
      r.makespan = r.finish[n];
      r.sink = n;
    }
  }
  return r;
}

std::vector<PathElement> critical_path(const Graph& g, const ReplayResult& r) {
  std::vector<PathElement> path;
  if (r.sink == UINT32_MAX) return path;
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
    if (contrib != 0) {
      PathElement p;
      p.edge = b;
      p.start = base;
      p.ticks = contrib;
      p.resource = nd.resource;
      if (e.unexplained) {
        p.attr = Attribution::Unexplained;
      } else {
        switch (e.kind) {
          case EdgeKind::Launch: p.attr = Attribution::LaunchOverhead; break;
          case EdgeKind::Start:
            p.attr = nd.kind == NodeKind::Gpu ? Attribution::PreviousIteration : Attribution::CpuBound;
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
  return path;
}

}  // namespace sextant::trace::replay
