// Findings with concrete advice, in the style of Nsight Systems' expert rules. Per rank:
//  - gpu_idle_gap: GPU idle (no kernel, memcpy or memset on any stream) longer than
//    --gap-threshold-us, with what the CPU was doing (the longest operator on the thread that
//    launched the next GPU event, host synchronisation calls in the gap);
//  - host_sync: cudaDeviceSynchronize / StreamSynchronize / EventSynchronize calls, grouped by the
//    operator that issued them (aten::item, aten::nonzero, ...);
//  - sync_memcpy: synchronous memcpy calls and copies to or from pageable host memory;
//  - low_gpu_utilization: windows of --low-utilization-window where the GPU is busy less than half
//    of the time;
//  - exposed_communication: communication kernel time not overlapped by computation, with the part
//    of its collectives' time the rank spent waiting for late ranks (rank_lateness);
//  - straggler (two or more ranks): a rank the others wait for at collectives (its start after the
//    others' median start, less the lateness its own waits for other ranks since it last met the
//    median one explain, summed: caused_wait_us; at least 2x the median rank's and 1% of the GPU-active span): the fix
//    is on that rank, not in overlap.
// Severity is the time at stake against the rank's GPU-active span (host_sync: against the rank's
// CPU and GPU span, as a host wait can lie outside the GPU's): high >= 10%, medium >= 3%, else low.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <string_view>
#include <unordered_map>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {
using Iv = Intervals;
bool contains(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }
// Operators whose host sync is a read of a tensor's value on the host (.item(), bool(), nonzero,
// boolean masks, .cpu(), .to("cpu"), .tolist() through them), matched by the whole name. Before
// 2026-12-06 (review) a part of the name was enough and "to" was one: every sync with no operator
// ("... in (no operator)"), in autograd::... or in aten::topk was told to stop reading tensor values.
bool reads_tensor_on_host(const std::string& op) {
  static constexpr std::string_view kOps[] = {"aten::item",    "aten::_local_scalar_dense", "aten::is_nonzero",
                                              "aten::nonzero", "aten::nonzero_static",      "aten::masked_select",
                                              "aten::to",      "aten::_to_copy",            "aten::copy_"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}
bool is_sync_call(const std::string& n) {
  return contains(n, "DeviceSynchronize") || contains(n, "StreamSynchronize") || contains(n, "EventSynchronize") ||
         contains(n, "CtxSynchronize");
}
std::string fmt_us(double us) {
  char b[64];
  if (us >= 1000) {
    std::snprintf(b, sizeof b, "%.2f ms", us / 1000);
  } else {
    std::snprintf(b, sizeof b, "%.1f us", us);
  }
  return b;
}
std::string pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * x);
  return b;
}
const char* severity_of(double share) { return share >= 0.10 ? "high" : share >= 0.03 ? "medium" : "low"; }
int severity_rank(const std::string& s) { return s == "high" ? 0 : s == "medium" ? 1 : 2; }

struct Finding {
  int64_t rank;
  std::string severity, rule, where, evidence, advice;
  double time_at_stake_us;  // what the rule sees on the timeline: an upper bound of what fixing it saves
};
}  // namespace

void run_findings(const AnalysisContext& ctx, Result& r) {
  std::vector<Finding> out;
  const int64_t max_gaps_listed = 5;
  // Lateness at collectives across ranks (Sextant's rules only: HTA has no such finding).
  std::map<int64_t, RankLateness> late;
  int64_t top_straggler = -1;
  // Not for ranks of different jobs (TraceSet::not_one_job): a rank had read "17.71 ms of its
  // collectives' time was waiting for the last rank", the other job's (review of 2026-12-07).
  if (ctx.frames.size() >= 2 && !ctx.opt.hta && ctx.set.not_one_job.empty()) {
    late = rank_lateness(matched_collectives(ctx.frames, ctx.opt.clock_sync));
    // Among the ranks that arrive latest somewhere (ties included): a rank late against the median
    // but never the latest holds nobody up on its own (its finding says so; review of 2026-12-05).
    double top = 0;
    for (const auto& [rank, l] : late)
      if (l.latest_arrivals > 0 && l.caused_wait_us > top) {
        top = l.caused_wait_us;
        top_straggler = rank;
      }
  }
  std::vector<double> spans_us;  // GPU-active span per rank, for the straggler rule
  for (const Frame& f : ctx.frames) {
    const RankTrace& t = *f.trace;
    const int64_t rank = f.rank();
    const double ticks_per_us = 1.0 / f.us_per_tick;
    // is_sync_call by name id, decided on first use (four substring searches per name, not per call).
    std::vector<int8_t> sync_name(t.strings.size(), -1);
    auto sync_call_name = [&](uint32_t id) {
      int8_t& v = sync_name[id];
      if (v < 0) v = is_sync_call(t.strings.str(id)) ? 1 : 0;
      return v == 1;
    };
    const auto busy = merge_gpu_intervals(f, [](const GpuEvent&) { return true; });
    if (busy.empty()) continue;
    const int64_t span = busy.back().second - busy.front().first;
    const double span_us = f.us(span);
    spans_us.push_back(span_us);
    auto share = [&](double us) { return span_us > 0 ? us / span_us : 0.0; };
    // Host time (blocking calls) against the rank's whole span, CPU and GPU: a host wait can lie
    // outside the GPU-active span, and a 16.8 us sync had read "957.2% of the GPU-active span"
    // (2026-12-03 review).
    int64_t wall_lo = busy.front().first, wall_hi = busy.back().second;
    for (const auto& c : f.cpu) {
      wall_lo = std::min(wall_lo, c.ts);
      wall_hi = std::max(wall_hi, c.end);
    }
    const double wall_us = f.us(wall_hi - wall_lo);
    auto host_share = [&](double us) { return wall_us > 0 ? us / wall_us : 0.0; };

    // --- GPU idle gaps ---
    const auto thr = static_cast<int64_t>(ctx.opt.gpu_gap_threshold_us * ticks_per_us);
    struct Gap {
      int64_t a, b;
      size_t next_gpu;  // index in f.gpu of the event that ends the gap
    };
    std::vector<Gap> gaps;
    {
      size_t gi = 0;
      for (size_t k = 1; k < busy.size(); ++k) {
        if (busy[k].first - busy[k - 1].second <= thr) continue;
        while (gi < f.gpu.size() && f.gpu[gi].ts < busy[k].first) ++gi;
        gaps.push_back(Gap{busy[k - 1].second, busy[k].first, gi < f.gpu.size() ? gi : f.gpu.size() - 1});
      }
    }
    if (!gaps.empty()) {
      int64_t total = 0;
      for (const auto& g : gaps) total += g.b - g.a;
      std::vector<size_t> idx(gaps.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
        return gaps[x].b - gaps[x].a > gaps[y].b - gaps[y].a;
      });
      idx.resize(std::min<size_t>(idx.size(), static_cast<size_t>(max_gaps_listed)));
      // What the CPU did during the listed gaps: per gap, the longest CPU operator overlapping it on
      // the launching thread, and the synchronisation calls inside it (one pass over the events).
      struct Ctx {
        int32_t pid = INT32_MIN, tid = INT32_MIN;
        int64_t launch_ts = INT64_MIN;
        uint32_t op = UINT32_MAX;
        int64_t op_overlap = 0, op_dur = 0, op_ts = 0;
        int64_t sync_count = 0, sync_ticks = 0;
        bool loader = false;
      };
      std::vector<Ctx> cx(idx.size());
      for (size_t q = 0; q < idx.size(); ++q) {
        const auto& ge = f.gpu[gaps[idx[q]].next_gpu];
        if (ge.runtime >= 0) {
          uint32_t ev = f.cpu[static_cast<size_t>(ge.runtime)].event;
          cx[q].pid = t.pid[ev];
          cx[q].tid = t.tid[ev];
          cx[q].launch_ts = f.cpu[static_cast<size_t>(ge.runtime)].ts;
        }
      }
      // Ticks of an event's ns times (truncated to µs in HTA mode), dividing by a constant (a
      // multiplication) only where needed: this loop visits every event.
      const bool hta_ticks = f.hta;
      // The hull of the listed gaps: an event not overlapping it overlaps none of them.
      int64_t hull_a = INT64_MAX, hull_b = INT64_MIN;
      for (size_t q = 0; q < idx.size(); ++q) {
        hull_a = std::min(hull_a, gaps[idx[q]].a);
        hull_b = std::max(hull_b, gaps[idx[q]].b);
      }
      for (size_t i = 0; i < t.size(); ++i) {
        const Category c = t.cat[i];
        const bool op = c == Category::CpuOp || c == Category::UserAnnotation || c == Category::PythonFunction;
        const bool call = c == Category::CudaRuntime || c == Category::CudaDriver;
        if (!op && !call) continue;
        const int64_t a_ns = t.ts_ns[i], b_ns = a_ns + t.dur_ns[i];
        const int64_t a = hta_ticks ? a_ns / 1000 : a_ns, b = hta_ticks ? b_ns / 1000 : b_ns;
        if (std::min(b, hull_b) - std::max(a, hull_a) <= 0) continue;
        for (size_t q = 0; q < idx.size(); ++q) {
          const Gap& g = gaps[idx[q]];
          const int64_t ov = std::min(b, g.b) - std::max(a, g.a);
          if (ov <= 0) continue;
          const std::string& n = t.strings.str(t.name[i]);
          if (call && sync_call_name(t.name[i])) {
            ++cx[q].sync_count;
            cx[q].sync_ticks += ov;
          }
          if (op && t.pid[i] == cx[q].pid && t.tid[i] == cx[q].tid && n.rfind("ProfilerStep", 0) != 0) {
            // The innermost long operator: prefer the shorter of two that cover the gap equally,
            // then the later-starting, then the name, so that the file's event order never decides.
            const bool better =
                cx[q].op == UINT32_MAX || ov > cx[q].op_overlap ||
                (ov == cx[q].op_overlap &&
                 (t.dur_ns[i] < cx[q].op_dur ||
                  (t.dur_ns[i] == cx[q].op_dur &&
                   (a_ns > cx[q].op_ts || (a_ns == cx[q].op_ts && n < t.strings.str(cx[q].op))))));
            if (better) {
              cx[q].op = t.name[i];
              cx[q].op_overlap = ov;
              cx[q].op_dur = t.dur_ns[i];
              cx[q].op_ts = a_ns;
            }
            std::string l(n);
            for (auto& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (contains(l, "dataloader")) cx[q].loader = true;
          }
        }
      }
      for (size_t q = 0; q < idx.size(); ++q) {
        const Gap& g = gaps[idx[q]];
        const double gap_us = f.us(g.b - g.a);
        const auto& ge = f.gpu[g.next_gpu];
        std::string ev = "GPU idle " + fmt_us(gap_us) + " at +" + fmt_us(f.us(g.a - busy.front().first)) +
                         " (before " + f.name(ge.name) + ")";
        std::string advice;
        // The next GPU event's launch came before the gap began: the CPU had queued it, so the
        // gap is not the host's (before 2026-12-03 such gaps got the host-overhead advice, with
        // "next launch issued -66324 us into the gap" as evidence).
        const bool queued_before = cx[q].launch_ts != INT64_MIN && cx[q].launch_ts < g.a;
        if (cx[q].sync_count > 0)
          ev += "; " + std::to_string(cx[q].sync_count) + " host sync call(s) in the gap (" +
                fmt_us(f.us(cx[q].sync_ticks)) + ")";
        if (queued_before) {
          advice = "The next GPU work was already queued when the GPU went idle, so the CPU was not the limiter: "
                   "the GPU waited on a dependency (a stream waiting on an event recorded later, a copy staged "
                   "through pageable host memory, a peer rank) or the trace's CPU and GPU clocks disagree. Look at "
                   "the stream waits and copies just before the gap.";
        } else if (cx[q].sync_count > 0) {
          advice = "The CPU waited for the GPU and then had nothing queued: remove the synchronisation "
                   "(.item(), .cpu(), .tolist(), printing a tensor, torch.cuda.synchronize) from the loop or move "
                   "it after the next step's launches.";
        } else if (cx[q].loader) {
          advice = "The gap is spent in the DataLoader: raise num_workers, set pin_memory=True and "
                   "persistent_workers=True, prefetch the next batch.";
        } else {
          advice = "The CPU did not issue GPU work fast enough: reduce per-op host overhead (CUDA graphs, "
                   "torch.compile mode='reduce-overhead'), fuse small ops, or enlarge the batch.";
        }
        if (cx[q].op != UINT32_MAX)
          ev += "; launching thread busy in " + t.strings.str(cx[q].op) + " for " + fmt_us(f.us(cx[q].op_overlap));
        if (queued_before)
          ev += "; next launch issued " + fmt_us(f.us(g.a - cx[q].launch_ts)) + " before the gap";
        else if (cx[q].launch_ts != INT64_MIN)
          ev += "; next launch issued " + fmt_us(f.us(cx[q].launch_ts - g.a)) + " into the gap";
        out.push_back(Finding{rank, severity_of(share(gap_us)), "gpu_idle_gap",
                              "rank " + std::to_string(rank) + ", +" + fmt_us(f.us(g.a - busy.front().first)), ev,
                              advice, gap_us});
      }
      const double total_us = f.us(total);
      out.push_back(Finding{rank, severity_of(share(total_us)), "gpu_idle_gaps_total", "rank " + std::to_string(rank),
                            std::to_string(gaps.size()) + " GPU idle gaps > " + fmt_us(ctx.opt.gpu_gap_threshold_us) +
                                " total " + fmt_us(total_us) + " (" + pct(share(total_us)) + " of the GPU-active span)",
                            "See the gpu_idle_gap rows for the longest ones and their causes.", total_us});
    }

    // --- host sync calls, grouped by the operator that issued them ---
    {
      struct Agg {
        int64_t count = 0, ticks = 0;
        bool reads_tensor = false;  // the enclosing operator reads a tensor's value on the host
      };
      std::map<std::string, Agg> by_parent;
      // Innermost enclosing CPU op per sync call: scan ops on the same thread (one pass, small sets).
      std::vector<size_t> syncs;
      for (const auto& c : f.cpu)
        if ((t.cat[c.event] == Category::CudaRuntime || t.cat[c.event] == Category::CudaDriver) &&
            sync_call_name(t.name[c.event]))
          syncs.push_back(c.event);
      if (!syncs.empty() && syncs.size() <= 100000) {
        std::vector<uint32_t> parent(syncs.size(), UINT32_MAX);
        std::vector<int64_t> parent_dur(syncs.size(), INT64_MAX), parent_ts(syncs.size(), INT64_MIN);
        std::vector<int64_t> sts(syncs.size());
        for (size_t s = 0; s < syncs.size(); ++s) sts[s] = t.ts_ns[syncs[s]];
        std::vector<size_t> order(syncs.size());
        for (size_t s = 0; s < order.size(); ++s) order[s] = s;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sts[a] < sts[b]; });
        std::vector<int64_t> sorted_ts(order.size());
        for (size_t s = 0; s < order.size(); ++s) sorted_ts[s] = sts[order[s]];
        for (size_t i = 0; i < t.size(); ++i) {
          if (t.cat[i] != Category::CpuOp) continue;
          const int64_t a = t.ts_ns[i], b = a + t.dur_ns[i];
          auto lo = std::lower_bound(sorted_ts.begin(), sorted_ts.end(), a);
          for (auto it = lo; it != sorted_ts.end() && *it < b; ++it) {
            size_t s = order[static_cast<size_t>(it - sorted_ts.begin())];
            size_t ev = syncs[s];
            if (t.tid[i] != t.tid[ev] || t.pid[i] != t.pid[ev]) continue;
            if (t.ts_ns[ev] + t.dur_ns[ev] > b) continue;
            // Innermost: the shortest enclosing op; of equal ones the later-starting, then the
            // name (not the file's event order).
            if (t.dur_ns[i] < parent_dur[s] ||
                (t.dur_ns[i] == parent_dur[s] &&
                 (a > parent_ts[s] || (a == parent_ts[s] && t.strings.str(t.name[i]) < t.strings.str(parent[s]))))) {
              parent[s] = t.name[i];
              parent_dur[s] = t.dur_ns[i];
              parent_ts[s] = a;
            }
          }
        }
        const int64_t div = f.hta ? 1000 : 1;
        for (size_t s = 0; s < syncs.size(); ++s) {
          const std::string op = parent[s] == UINT32_MAX ? std::string("(no operator)") : t.strings.str(parent[s]);
          auto& ag = by_parent[t.strings.str(t.name[syncs[s]]) + " in " + op];
          ag.reads_tensor = parent[s] != UINT32_MAX && reads_tensor_on_host(op);
          ++ag.count;
          ag.ticks += t.dur_ns[syncs[s]] / div;
        }
        for (const auto& [key, ag] : by_parent) {
          const double us = f.us(ag.ticks);
          std::string advice =
              "Each call blocks the CPU until the GPU drains, so nothing is queued behind it. ";
          if (ag.reads_tensor)
            advice += "Reading a tensor value on the host (.item(), .tolist(), nonzero, boolean masks, .cpu()) "
                      "forces it: keep the value on the GPU, accumulate metrics as tensors and read them once "
                      "per N steps.";
          else
            advice += "Synchronise once per step at most (or use torch.cuda.Event for timing) and only where the "
                      "host needs the result.";
          out.push_back(Finding{rank, severity_of(host_share(us)), "host_sync", "rank " + std::to_string(rank) + ", " + key,
                                std::to_string(ag.count) + " call(s), CPU blocked " + fmt_us(us) + " (" +
                                    pct(host_share(us)) + " of the rank's CPU and GPU span)",
                                advice, us});
        }
      }
    }

    // --- synchronous and pageable memcpy ---
    {
      struct Agg {
        int64_t count = 0, ticks = 0;
      };
      std::map<std::string, Agg> agg;
      for (const auto& g : f.gpu) {
        if (g.kind != KernelKind::Memory) continue;
        const std::string& n = f.name(g.name);
        bool pageable = contains(n, "Pageable");
        bool sync_call = false;
        std::string call;
        if (g.runtime >= 0) {
          call = t.strings.str(t.name[f.cpu[static_cast<size_t>(g.runtime)].event]);
          sync_call = (contains(call, "Memcpy") || contains(call, "Memset")) && !contains(call, "Async");
        }
        if (!pageable && !sync_call) continue;
        std::string key = (sync_call ? call + " (synchronous)" : call.empty() ? std::string("(no call)") : call) +
                          ": " + n;
        auto& a = agg[key];
        ++a.count;
        a.ticks += g.end - g.ts;
      }
      for (const auto& [key, a] : agg) {
        const double us = f.us(a.ticks);
        out.push_back(Finding{
            rank, severity_of(share(us)), "sync_memcpy", "rank " + std::to_string(rank) + ", " + key,
            std::to_string(a.count) + " copies, " + fmt_us(us) + " on the GPU",
            "Copies from or to pageable host memory are staged and block the host; use pinned memory "
            "(pin_memory=True, tensor.pin_memory()) and .to(device, non_blocking=True), and avoid cudaMemcpy "
            "(synchronous) in the step.",
            us});
      }
    }

    // --- low GPU utilisation windows ---
    {
      const auto w = static_cast<int64_t>(ctx.opt.low_utilization_window_us * ticks_per_us);
      if (w > 0 && span >= 2 * w) {
        // The busy time of each window, streamed over the merged (sorted, disjoint) busy
        // intervals: windows no interval touches are idle, runs of fully busy windows are counted
        // at once, so memory and time do not grow with the span (an event lasting years must not
        // allocate a window array of that length). worst = the first window of least busy time.
        const int64_t t0 = busy.front().first;
        const int64_t nwin = span / w;
        const double threshold = ctx.opt.low_utilization_fraction * static_cast<double>(w);
        int64_t next_k = 0, high = 0, first_gap = -1, worst_k = -1, worst_b = INT64_MAX;
        int64_t busy_in_low = 0;  // busy time inside the low windows (untouched windows: none)
        auto close_run = [&](int64_t k, int64_t count, int64_t b) {  // windows k .. k+count-1, busy b each
          if (first_gap < 0 && k > next_k) first_gap = next_k;
          if (!(static_cast<double>(b) < threshold)) high += count;
          else busy_in_low += b * count;
          if (b < worst_b) {
            worst_b = b;
            worst_k = k;
          }
          next_k = k + count;
        };
        int64_t cur_k = -1, cur_b = 0;
        for (const auto& [a, e] : busy) {
          for (int64_t x = a; x < e;) {
            const int64_t k = (x - t0) / w;
            if (k >= nwin) break;
            const int64_t wstart = t0 + k * w, wend = wstart + w;
            if (k != cur_k) {
              if (cur_k >= 0) close_run(cur_k, 1, cur_b);
              cur_k = k;
              cur_b = 0;
            }
            if (x == wstart && e >= wend) {  // whole windows from k on (nothing earlier falls in window k)
              const int64_t full = std::min((e - wstart) / w, nwin - k);
              close_run(k, full, w);
              cur_k = -1;
              x = wstart + full * w;
              continue;
            }
            const int64_t y = std::min(e, wend);
            cur_b += y - x;
            x = y;
          }
        }
        if (cur_k >= 0) close_run(cur_k, 1, cur_b);
        if (first_gap < 0 && next_k < nwin) first_gap = next_k;
        const auto low = static_cast<size_t>(nwin - high);
        const int64_t worst = first_gap >= 0 ? first_gap : worst_k;
        const int64_t worst_busy = first_gap >= 0 ? 0 : worst_b;
        if (low > 0) {
          // At stake: the GPU's idle time inside the low windows, not their whole length (a window
          // 49% busy had counted in full, about twice its idle time, before 2026-12-03).
          const double low_us = f.us(static_cast<int64_t>(low) * w - busy_in_low);
          out.push_back(Finding{
              rank, severity_of(share(low_us)), "low_gpu_utilization", "rank " + std::to_string(rank),
              std::to_string(low) + " of " + std::to_string(nwin) + " windows of " +
                  fmt_us(ctx.opt.low_utilization_window_us) + " have the GPU busy < " +
                  pct(ctx.opt.low_utilization_fraction) + "; the worst, at +" +
                  fmt_us(f.us(worst * w)) + ", is busy " + pct(static_cast<double>(worst_busy) / static_cast<double>(w)),
              "Look at the critical_path table for these windows: if cpu_bound or data_loading dominates, overlap "
              "host work with GPU work (CUDA graphs, more DataLoader workers); if short kernels dominate, fuse them "
              "(torch.compile) or enlarge the batch.",
              low_us});
        }
      }
    }

    // --- exposed communication ---
    {
      const CoveredTime comm = covered_per_device(f, KernelKind::Communication, KernelKind::Computation);
      const int64_t comm_len = comm.total;
      if (comm_len > 0) {
        const int64_t exposed = comm_len - comm.covered;
        const double us = f.us(exposed);
        // Does communication share streams with computation (then it cannot overlap)?
        std::map<int64_t, std::pair<int64_t, int64_t>> per_stream;  // stream -> (comm, comp) counts
        for (const auto& g : f.gpu) {
          if (g.kind == KernelKind::Communication) ++per_stream[g.stream].first;
          if (g.kind == KernelKind::Computation) ++per_stream[g.stream].second;
        }
        bool shared = false;
        for (const auto& [s, c] : per_stream)
          if (c.first > 0 && c.second > 0) shared = true;
        if (share(us) >= 0.01) {
          std::string advice =
              "Overlap communication with computation: with DDP let gradient buckets all-reduce during backward "
              "(bucket_cap_mb, no find_unused_parameters), with FSDP prefetch (backward_prefetch, forward_prefetch); "
              "move optimizer-step collectives off the critical path.";
          if (shared) advice = "Communication kernels run on a stream that also runs computation, so they cannot "
                               "overlap: issue collectives on their own stream (async_op=True). " + advice;
          std::string evidence = fmt_us(us) + " of " + fmt_us(f.us(comm_len)) +
                                 " communication is not overlapped by computation (" + pct(share(us)) +
                                 " of the GPU-active span)";
          // Waiting for late ranks inside the collectives is not transfer: overlap tuning cannot
          // recover it. (Collective times are in µs of the baseTimeNanoseconds clock.)
          const auto lt = late.find(rank);
          if (lt != late.end() && lt->second.waited_for_others_us > 0) {
            const double wait_us = lt->second.waited_for_others_us;
            evidence += "; " + fmt_us(wait_us) + " of its collectives' time was waiting for the last rank to arrive";
            // The rank that keeps the others waiting longest, this one left out: the top straggler
            // itself waits too, for the next (review, 2026-12-07: dlrm's rank 7, 97% of its exposed
            // time waiting, had been told only to overlap, as the top straggler was skipped).
            int64_t waited_for = top_straggler;
            if (waited_for == rank) {
              waited_for = -1;
              double top_other = 0;
              for (const auto& [other, l] : late)
                if (other != rank && l.latest_arrivals > 0 && l.caused_wait_us > top_other) {
                  top_other = l.caused_wait_us;
                  waited_for = other;
                }
            }
            if (wait_us >= 0.5 * us && waited_for >= 0)
              advice = "Most of this is waiting for other ranks at the collectives, not transfer: fix the straggler "
                       "first (rank " + std::to_string(waited_for) + " keeps the others waiting longest" +
                       (waited_for != top_straggler ? " after this rank, which the others wait for most (its straggler finding)"
                                                    : std::string()) +
                       "; see the stragglers table and any straggler finding); overlap tuning will not recover the wait. Then: " +
                       advice;
          }
          out.push_back(Finding{rank, severity_of(share(us)), "exposed_communication", "rank " + std::to_string(rank),
                                evidence, advice, us});
        }
      }
    }
  }
  // --- stragglers: ranks the others wait for at collectives ---
  if (!late.empty() && !spans_us.empty()) {
    std::vector<double> caused, spans = spans_us;
    for (const auto& [rank, l] : late) caused.push_back(l.caused_wait_us);
    auto median_of = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      const size_t n = v.size();
      return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    };
    const double typical = median_of(caused), span_us = median_of(spans);
    for (const auto& [rank, l] : late) {
      const double share = span_us > 0 ? l.caused_wait_us / span_us : 0.0;
      if (share < 0.01 || l.caused_wait_us < 2 * typical) continue;
      // A rank that is late against the median but never the last to arrive holds nobody up on
      // its own: a later rank starts each collective (review of 2026-12-05: such ranks had been
      // told that the others wait for them). Said so, and ranked as information.
      if (l.latest_arrivals == 0) {
        out.push_back(Finding{rank, "info", "straggler", "rank " + std::to_string(rank),
                              "starts its matched collectives " + fmt_us(l.mean_late_vs_median_us()) +
                                  " after the other ranks' median on average (" + fmt_us(l.caused_wait_us) + " in total, " + pct(share) +
                                  " of the median GPU-active span), but arrived latest at none of its " + std::to_string(l.collectives) +
                                  ": another rank holds each collective longer",
                              "Late but not the bottleneck: fix the ranks that arrive last first (the findings above, the "
                              "collectives table's last_rank); this rank's lateness matters once they are fixed.",
                              0.0});
        continue;
      }
      // A latest start shared with another rank is not "last" (review of 2026-12-07: a rank tied at
      // every latest start read "started 0 of 12 matched collectives last" as a high straggler): the
      // ties are told apart, and lateness inherited from its own waits is named.
      const int64_t tied = l.latest_arrivals - l.last_arrivals;
      std::string ev = "started " + std::to_string(l.last_arrivals) + " of " + std::to_string(l.collectives) +
                       " matched collectives last";
      if (tied > 0) ev += " (and " + std::to_string(tied) + " more tied with another rank for the latest start)";
      ev += "; the typical rank waited " + fmt_us(l.caused_wait_us) + " for it in total (" + pct(share) +
            " of the median GPU-active span; mean start " + fmt_us(l.mean_late_vs_median_us()) + " after the other ranks' median)";
      if (l.inherited_late_us > 0)
        ev += "; a further " + fmt_us(l.inherited_late_us) +
              " of lateness followed from its own waits for other ranks at its previous collectives and is not counted";
      out.push_back(Finding{
          rank, severity_of(share), "straggler", "rank " + std::to_string(rank), ev,
          "The other ranks' exposed communication is waiting for this one: compare its compute with theirs "
          "(kernel_breakdown, temporal_breakdown per rank). Slower kernels point at the GPU (clocks or power "
          "throttling: nvidia-smi -q -d PERFORMANCE, DCGM), longer host gaps at its host (data loading, CPU "
          "contention, a noisy neighbour), more work at the partitioning (uneven batches, pipeline stages or "
          "expert load). Overlap tuning on the waiting ranks will not recover this time.",
          l.caused_wait_us});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (severity_rank(a.severity) != severity_rank(b.severity)) return severity_rank(a.severity) < severity_rank(b.severity);
    if (a.time_at_stake_us != b.time_at_stake_us) return a.time_at_stake_us > b.time_at_stake_us;
    return a.rank < b.rank;
  });
  Table& t = r.add_table("findings", "what to fix, with evidence and advice (expert rules), most important first");
  t.add_str("severity");
  t.add_str("rule");
  t.add_str("where");
  t.add_str("evidence");
  t.add_str("advice");
  t.add_f64("time_at_stake_us");
  for (const auto& fd : out) t.add_row({fd.severity, fd.rule, fd.where, fd.evidence, fd.advice, fd.time_at_stake_us});
}

}  // namespace sextant::trace
