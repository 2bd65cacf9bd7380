#include "trace/analyses/frame.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/error.hpp"
#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

const char* kernel_kind_name(KernelKind k) {
  switch (k) {
    case KernelKind::Computation: return "COMPUTATION";
    case KernelKind::Communication: return "COMMUNICATION";
    case KernelKind::Memory: return "MEMORY";
  }
  return "";
}

static bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool is_nccl_kernel_name(const std::string& name) {
  if (starts_with(name, "nccl") || starts_with(name, "rccl")) return true;
  // Older/demangled spellings, e.g. "void ncclKernel_AllReduce_..." or "ncclDevKernel_*".
  return name.find("ncclKernel") != std::string::npos || name.find("ncclDevKernel") != std::string::npos ||
         name.find("rcclKernel") != std::string::npos;
}

KernelKind classify_kernel(const std::string& name, Category cat) {
  if (cat == Category::GpuMemcpy || cat == Category::GpuMemset) return KernelKind::Memory;
  if (is_nccl_kernel_name(name) || name.find("gloo:") != std::string::npos) return KernelKind::Communication;
  if (starts_with(name, "Memcpy") || starts_with(name, "Memset")) return KernelKind::Memory;
  return KernelKind::Computation;
}

KernelKind classify_kernel_hta(const std::string& name) {
  if (starts_with(name, "nccl") || name.find("gloo:") != std::string::npos) return KernelKind::Communication;
  if (name.find("Memcpy") != std::string::npos || name.find("Memset") != std::string::npos) return KernelKind::Memory;
  return KernelKind::Computation;
}

std::vector<std::pair<int64_t, int64_t>> merge_intervals(std::vector<std::pair<int64_t, int64_t>> iv) {
  const auto by_start = [](const auto& a, const auto& b) { return a.first < b.first; };
  // Callers mostly pass intervals taken from Frame::gpu, already sorted by start: then the stable
  // sort (and the temporary buffer of n intervals it allocates) is skipped; same result.
  if (!std::is_sorted(iv.begin(), iv.end(), by_start)) std::stable_sort(iv.begin(), iv.end(), by_start);
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t run_max = 0;
  for (size_t i = 0; i < iv.size(); ++i) {
    if (i == 0 || iv[i].first > run_max) {
      out.push_back(iv[i]);
    } else {
      out.back().second = std::max(out.back().second, iv[i].second);
    }
    run_max = i == 0 ? iv[i].second : std::max(run_max, iv[i].second);
  }
  return out;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// HTA's rule (a name starting "ProfilerStep#" and longer) in --compat hta; otherwise the step
// parser every analysis shares, so load_summary counts the steps the analyses use (it had counted
// "ProfilerStep#99999999999999999999", which no analysis could number; 2026-12-03 review).
static bool is_profiler_step(const std::string& n, bool hta) {
  if (!hta) return profiler_step_number(n) >= 0;
  if (!starts_with(n, "ProfilerStep#")) return false;
  return n.size() > 13;
}

Frame build_frame(const RankTrace& t, bool hta) {
  Frame f;
  f.trace = &t;
  f.hta = hta;
  f.us_per_tick = hta ? 1.0 : 0.001;
  const size_t n = t.size();

  // Per-event rules, computed on the fly (no per-event temporaries: memory stays with the columns).
  auto analysable = [&](size_t i) { return t.cat[i] != Category::Trace && t.cat[i] != Category::None; };
  auto is_gpu = [&](size_t i) {
    if (hta) return t.cat[i] != Category::GpuUserAnnotation && t.stream[i] != -1;
    return is_gpu_category(t.cat[i]);
  };
  // HTA reads ts and dur into float64 columns (json.load, then pandas) and rounds there:
  // ceil(ts), floor(ts + dur) with the sum in float64. At epoch-microsecond timestamps (1.7e15
  // us) a double's step is 0.25 us, so "...957.104" is 957.0 and rounds up to 957 where the exact
  // decimal gives 958 (9,614 of 82,026 starts of a synthetic trace, 2026-12-03 review). The
  // decimal's nearest double is q + r/1000 (q whole us, r ns, < 2^53: one rounding, ties to even
  // as strtod), so compat mode computes as HTA does; whole microseconds are exact either way.
  auto us_double = [](int64_t ns) {
    const int64_t q = floor_div(ns, 1000);
    return static_cast<double>(q) + static_cast<double>(ns - q * 1000) / 1000.0;
  };
  auto ts_of = [&](size_t i) { return hta ? static_cast<int64_t>(std::ceil(us_double(t.ts_ns[i]))) : t.ts_ns[i]; };
  auto end_of = [&](size_t i) {
    return hta ? static_cast<int64_t>(std::floor(us_double(t.ts_ns[i]) + us_double(t.dur_ns[i]))) : t.ts_ns[i] + t.dur_ns[i];
  };

  // ProfilerStep names, as flags per string id (one lookup per event).
  std::vector<char> step_id(t.strings.size(), 0);
  bool any_step_id = false;
  for (uint32_t id = 0; id < t.strings.size(); ++id)
    if (is_profiler_step(t.strings.str(id), hta)) step_id[id] = 1, any_step_id = true;
  std::vector<char> step_name(t.strings.size(), 0);  // a step name on an analysable CPU event
  int64_t step_names = 0;
  if (any_step_id)
    for (size_t i = 0; i < n; ++i)
      if (step_id[t.name[i]] && !step_name[t.name[i]] && analysable(i) && !is_gpu(i)) step_name[t.name[i]] = 1, ++step_names;
  f.profiler_steps = step_names;
  if (!hta) {
    // Names written as a step ("ProfilerStep", optional blanks, '#') that profiler_step_number
    // cannot number.
    std::vector<char> unnumbered(t.strings.size(), 0);
    bool any_unnumbered = false;
    for (uint32_t id = 0; id < t.strings.size(); ++id) {
      const std::string& s = t.strings.str(id);
      if (step_id[id] || !starts_with(s, "ProfilerStep")) continue;
      const size_t hash = s.find_first_not_of(" \t\n\v\f\r", 12);
      if (hash != std::string::npos && s[hash] == '#') unnumbered[id] = 1, any_unnumbered = true;
    }
    if (any_unnumbered)
      for (size_t i = 0; i < n; ++i)
        if (unnumbered[t.name[i]] && analysable(i) && !is_gpu(i) && t.cat[i] != Category::GpuUserAnnotation &&
            f.unnumbered_steps++ == 0)
          f.unnumbered_step_example = t.name_of(i);
  }
  if (!hta) {
    int32_t first_pid = INT32_MIN;
    for (size_t i = 0; i < n && f.device_stride == 0; ++i)
      if (analysable(i) && is_gpu(i)) {
        if (first_pid == INT32_MIN) first_pid = t.pid[i];
        else if (t.pid[i] != first_pid) f.device_stride = Frame::kDeviceStreamStride;
      }
  }

  // HTA: drop the last ProfilerStep (CPU events from its start on, and GPU events whose
  // correlation id matches no kept CPU event).
  int64_t last_start = INT64_MAX;
  std::vector<int64_t> corr;  // correlation ids of the kept CPU events, sorted
  const bool drop_last = hta && step_names >= 2;
  if (drop_last) {
    last_start = INT64_MIN;
    for (size_t i = 0; i < n; ++i)
      if (step_name[t.name[i]] && analysable(i) && !is_gpu(i)) last_start = std::max(last_start, ts_of(i));
    for (size_t i = 0; i < n; ++i)
      if (analysable(i) && !is_gpu(i) && ts_of(i) < last_start) corr.push_back(t.correlation[i]);
    std::sort(corr.begin(), corr.end());
    corr.erase(std::unique(corr.begin(), corr.end()), corr.end());
    f.last_step_dropped = true;
  }

  std::vector<int8_t> kind_of_name(t.strings.size(), -1);  // kernel kind by name id, classified on first use
  // Capacity for every event: pages are touched only as events are kept, and no regrowth copies
  // the kept events (which held the old and the new array at once while building).
  f.gpu.reserve(n);
  f.cpu.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!analysable(i)) continue;
    const bool g = is_gpu(i);
    if (drop_last && (g ? !std::binary_search(corr.begin(), corr.end(), t.correlation[i]) : ts_of(i) >= last_start))
      continue;
    ++f.rows;
    // cuda_sync events (Stream/Event/Context Sync) are GPU-side waits, not work: HTA loads them
    // as GPU rows and counts them in the GPU-active span only; Sextant ignores them.
    if (t.cat[i] == Category::CudaSync) {
      if (hta && g) f.sync.emplace_back(ts_of(i), end_of(i));
      continue;
    }
    if (g) {
      GpuEvent e;
      e.ts = ts_of(i);
      e.end = end_of(i);
      e.stream = hta ? t.stream[i] : f.stream_key(t.stream[i] != -1 ? t.stream[i] : t.tid[i], t.pid[i]);
      e.name = t.name[i];
      if (t.cat[i] == Category::GpuMemcpy || t.cat[i] == Category::GpuMemset) {
        e.kind = hta ? classify_kernel_hta(t.name_of(i)) : KernelKind::Memory;
      } else {
        // By name only (classify_kernel's category rule is the branch above): once per name.
        int8_t& k = kind_of_name[t.name[i]];
        if (k < 0) k = static_cast<int8_t>(hta ? classify_kernel_hta(t.name_of(i)) : classify_kernel(t.name_of(i), t.cat[i]));
        e.kind = static_cast<KernelKind>(k);
      }
      e.correlation = t.correlation[i];
      e.event = static_cast<uint32_t>(i);
      f.gpu.push_back(e);
    } else {
      // Only the CPU events the analyses use: runtime/driver calls, anything carrying a
      // correlation id, and annotations (ProfilerStep#N, nccl:*, record_function ranges).
      Category c = t.cat[i];
      if (c != Category::CudaRuntime && c != Category::CudaDriver && c != Category::UserAnnotation &&
          t.correlation[i] == -1 && !step_name[t.name[i]])
        continue;
      f.cpu.push_back(CpuEvent{ts_of(i), end_of(i), static_cast<uint32_t>(i)});
    }
  }
  // The launching call of each GPU event: the first runtime/driver call with its correlation id,
  // else (rare) the first other CPU event carrying it.
  if (f.cpu.size() > static_cast<size_t>(INT32_MAX))
    throw Error(SourceLocation{t.file, 0, 0, "traceEvents"}, "more than 2^31 CPU events kept in one rank",
                "split the trace into shorter captures");
  // Stable sort by ts, skipped when already in order (its buffer holds a copy of every GPU event).
  const auto by_ts = [](const GpuEvent& a, const GpuEvent& b) { return a.ts < b.ts; };
  if (!std::is_sorted(f.gpu.begin(), f.gpu.end(), by_ts)) std::stable_sort(f.gpu.begin(), f.gpu.end(), by_ts);
  auto is_call = [&](uint32_t i) { return t.cat[i] == Category::CudaRuntime || t.cat[i] == Category::CudaDriver; };
  int64_t cmin = INT64_MAX, cmax = INT64_MIN;
  size_t with_corr = 0;
  for (const CpuEvent& c : f.cpu) {
    const int64_t corr = t.correlation[c.event];
    if (corr == -1) continue;
    ++with_corr;
    cmin = std::min(cmin, corr);
    cmax = std::max(cmax, corr);
  }
  if (with_corr == 0) return f;
  // Correlation ids are counters: nearly always a compact range (the public traces use 1 id in
  // 3 to 5: the others go to events the profiler did not keep), then the launching call of each
  // id is an array slot (4 bytes per id of the range, at most 32 per keyed event beyond 256 KiB;
  // one pass per priority, in position order: the first of the better priority wins). Otherwise
  // a sorted array by (id, priority, position), searched per GPU event.
  const auto range = static_cast<uint64_t>(cmax) - static_cast<uint64_t>(cmin);
  if (range < 8 * static_cast<uint64_t>(with_corr) + 65536) {
    std::vector<int32_t> first(static_cast<size_t>(range) + 1, -1);
    bool repeated = false;
    for (int prio = 0; prio < 2; ++prio)
      for (uint32_t k = 0; k < f.cpu.size(); ++k) {
        const uint32_t i = f.cpu[k].event;
        if (t.correlation[i] == -1 || is_call(i) != (prio == 0)) continue;
        int32_t& slot = first[static_cast<size_t>(t.correlation[i] - cmin)];
        if (slot < 0) slot = static_cast<int32_t>(k);
        else if (prio == 0 && is_call(f.cpu[static_cast<size_t>(slot)].event)) repeated = true;
      }
    if (!repeated) {
      for (auto& g : f.gpu)
        if (g.correlation != -1 && g.correlation >= cmin && g.correlation <= cmax)
          g.runtime = first[static_cast<size_t>(g.correlation - cmin)];
      return f;
    }
    // Some id is carried by several calls: the general path below picks by time.
  }
  // By (id, priority, start): a GPU event goes to the latest call of its id (of the better
  // priority) that started at or before it, else the first (clock skew). Before 2026-12-05 it went
  // to the first call of its id, and launch statistics paired every call of a repeated id with
  // every GPU event of it: two processes merged into one file doubled the launches and read a
  // 12.5 ms mean launch delay for 61 us; one id on every event made 1.2e8 pairs of 11k launches.
  struct Key {
    int64_t corr;
    int prio;
    uint32_t pos;
  };
  std::vector<Key> keys;
  keys.reserve(with_corr);
  for (uint32_t k = 0; k < f.cpu.size(); ++k) {
    uint32_t i = f.cpu[k].event;
    if (t.correlation[i] == -1) continue;
    keys.push_back(Key{t.correlation[i], is_call(i) ? 0 : 1, k});
  }
  const auto ts_of_key = [&](const Key& k) { return f.cpu[k.pos].ts; };
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.corr != b.corr) return a.corr < b.corr;
    if (a.prio != b.prio) return a.prio < b.prio;
    if (ts_of_key(a) != ts_of_key(b)) return ts_of_key(a) < ts_of_key(b);
    return a.pos < b.pos;
  });
  for (size_t i = 1; i < keys.size(); ++i)
    if (keys[i].corr == keys[i - 1].corr && keys[i].prio == 0 && keys[i - 1].prio == 0 &&
        (i == 1 || keys[i - 2].corr != keys[i].corr || keys[i - 2].prio != 0))
      ++f.repeated_correlation_ids;
  for (auto& g : f.gpu) {
    if (g.correlation == -1) continue;
    auto it = std::lower_bound(keys.begin(), keys.end(), g.correlation,
                               [](const Key& k, int64_t c) { return k.corr < c; });
    if (it == keys.end() || it->corr != g.correlation) continue;
    // The best priority's calls of this id: [it, end).
    auto end = it;
    while (end != keys.end() && end->corr == g.correlation && end->prio == it->prio) ++end;
    // The latest that started at or before the GPU event, else the first.
    auto after = std::upper_bound(it, end, g.ts, [&](int64_t ts, const Key& k) { return ts < ts_of_key(k); });
    g.runtime = static_cast<int32_t>((after == it ? it : std::prev(after))->pos);
  }
  return f;
}

void check_hta_join(const Frame& f, const GpuByCorrelation& g, const std::vector<char>& is_launch, const char* analysis) {
  const double limit = std::max(1e7, 20.0 * static_cast<double>(f.gpu.size()));
  double rows = 0;
  for (const CpuEvent& c : f.cpu) {
    if (!is_launch[f.trace->name[c.event]]) continue;
    const int64_t corr = f.trace->correlation[c.event];
    if (corr == -1) continue;
    const auto [first, last] = g.find(corr);
    rows += static_cast<double>(last - first);
    if (rows > limit)
      throw Error(SourceLocation{f.trace->file, 0, 0, "correlation"},
                  std::string(analysis) + ": HTA's join on the correlation id would pair more than " + std::to_string(static_cast<int64_t>(limit)) +
                      " launches with GPU events: correlation ids are repeated by several calls (merged processes, a broken exporter)",
                  "run without --compat hta: Sextant pairs each GPU event with its own launching call");
  }
}

GpuByLaunch::GpuByLaunch(const Frame& f) {
  at_.assign(f.cpu.size() + 1, 0);
  for (const GpuEvent& g : f.gpu)
    if (g.runtime >= 0) ++at_[static_cast<size_t>(g.runtime) + 1];
  for (size_t k = 1; k < at_.size(); ++k) at_[k] += at_[k - 1];
  pos_.resize(at_.back());
  std::vector<uint32_t> fill(at_.begin(), at_.end() - 1);
  for (uint32_t p = 0; p < f.gpu.size(); ++p)
    if (f.gpu[p].runtime >= 0) pos_[fill[static_cast<size_t>(f.gpu[p].runtime)]++] = p;
}

GpuByCorrelation::GpuByCorrelation(const Frame& f) {
  int64_t cmin = INT64_MAX, cmax = INT64_MIN;
  size_t n = 0;
  for (const GpuEvent& g : f.gpu) {
    if (g.correlation == -1) continue;
    ++n;
    cmin = std::min(cmin, g.correlation);
    cmax = std::max(cmax, g.correlation);
  }
  if (n == 0) return;
  const auto range = static_cast<uint64_t>(cmax) - static_cast<uint64_t>(cmin);
  if (range < 8 * static_cast<uint64_t>(n) + 65536) {
    // Compact ids: a counting sort by id (positions stay in Frame::gpu order within an id).
    min_ = cmin;
    at_.assign(static_cast<size_t>(range) + 2, 0);
    for (const GpuEvent& g : f.gpu)
      if (g.correlation != -1) ++at_[static_cast<size_t>(g.correlation - cmin)];
    for (size_t i = 1; i < at_.size(); ++i) at_[i] += at_[i - 1];  // at_[i]: the end of id i's slots
    pos_.resize(n);
    // Filled from the back, each id's slots from their end: at_[i] ends at the start of id i's.
    for (uint32_t k = static_cast<uint32_t>(f.gpu.size()); k-- > 0;)
      if (f.gpu[k].correlation != -1) pos_[--at_[static_cast<size_t>(f.gpu[k].correlation - cmin)]] = k;
    return;
  }
  std::vector<std::pair<int64_t, uint32_t>> v;
  v.reserve(n);
  for (uint32_t k = 0; k < f.gpu.size(); ++k)
    if (f.gpu[k].correlation != -1) v.emplace_back(f.gpu[k].correlation, k);
  std::sort(v.begin(), v.end());
  corr_.reserve(v.size());
  pos_.reserve(v.size());
  for (const auto& [c, k] : v) {
    corr_.push_back(c);
    pos_.push_back(k);
  }
}

std::pair<const uint32_t*, const uint32_t*> GpuByCorrelation::find(int64_t corr) const {
  const uint32_t* base = pos_.data();
  if (!at_.empty()) {
    if (corr < min_ || static_cast<uint64_t>(corr - min_) + 1 >= at_.size()) return {base, base};
    const auto i = static_cast<size_t>(corr - min_);
    return {base + at_[i], base + at_[i + 1]};
  }
  auto lo = std::lower_bound(corr_.begin(), corr_.end(), corr);
  auto hi = std::upper_bound(lo, corr_.end(), corr);
  return {base + (lo - corr_.begin()), base + (hi - corr_.begin())};
}

std::vector<int64_t> devices_of(const Frame& f) {
  std::vector<int64_t> out;
  if (f.device_stride == 0) return {0};
  for (const auto& g : f.gpu) out.push_back(device_of(f, g));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.empty()) out.push_back(0);
  return out;
}

CoveredTime covered_per_device(const Frame& f, KernelKind a, KernelKind b) {
  CoveredTime out;
  for (const int64_t d : devices_of(f)) {
    const auto ma = merge_gpu_intervals(f, [&](const GpuEvent& g) { return g.kind == a && device_of(f, g) == d; });
    const auto mb = merge_gpu_intervals(f, [&](const GpuEvent& g) { return g.kind == b && device_of(f, g) == d; });
    out.total += length(ma);
    out.covered += intersection(mb, ma);
  }
  return out;
}

}  // namespace sextant::trace
