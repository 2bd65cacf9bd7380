// User-annotation attribution: for each user_annotation name (record_function / NVTX ranges,
// ProfilerStep#N and nccl:* included), per rank: instances, CPU wall time, and the GPU time of
// the GPU events (kernels, memcpy, memset) launched inside it, i.e. whose launching runtime call
// lies in the annotation's CPU range on the same thread (ts <= launch < end). Nesting: each
// launch counts once to the innermost enclosing annotation (exclusive) and once to every distinct
// annotation name on the enclosing stack (inclusive; a name nested in itself counts once).
// gpu_user_annotation events (the GPU-side ranges Kineto writes per stream) are listed by name
// with their count and summed duration. GPU time is the sum of the events' durations.
//
// Linear in events up to the sorts of annotations and launches per thread (n log n).
#include <algorithm>
#include <cstdio>
#include <map>

#include "core/error.hpp"
#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

void run_user_annotations(const AnalysisContext& ctx, Result& r) {
  Table& t = r.add_table("user_annotations",
                         "GPU time attributed to user annotations (record_function/NVTX): inclusive and innermost");
  t.add_i64("rank");
  t.add_str("annotation");
  t.add_i64("count");
  t.add_f64("cpu_time_us");
  t.add_i64("gpu_events_inclusive_count");
  t.add_f64("gpu_time_inclusive_us");
  t.add_i64("gpu_events_exclusive_count");
  t.add_f64("gpu_time_exclusive_us");
  t.add_i64("gpu_annotation_count");
  t.add_f64("gpu_annotation_time_us");

  for (const Frame& f : ctx.frames) {
    const RankTrace& tr = *f.trace;
    auto thread_of = [&](uint32_t i) {
      return (static_cast<int64_t>(tr.pid[i]) << 32) | static_cast<int64_t>(static_cast<uint32_t>(tr.tid[i]));
    };
    struct Acc {
      int64_t count = 0;
      int64_t cpu_ns = 0;
      int64_t inc_n = 0, exc_n = 0;
      double inc_us = 0, exc_us = 0;
      int64_t gpu_ann = 0;
      int64_t gpu_ann_ns = 0;
      int64_t last_launch = -1;  // the launch whose inclusive time this name last took (once per launch)
    };
    std::map<uint32_t, Acc> by;  // by name id
    // Items of one sweep: annotations (kind 0) and launches (kind 1), by thread then time;
    // at equal times annotations first (a launch at an annotation's start is inside it), longer
    // annotations before shorter (the parent first). 16 bytes each: the thread as its rank among
    // the threads of the items (`threads`, sorted by key: the order by rank is the order by key),
    // with the kind in its top bit; an annotation's end read from the trace, a launch's is its ts.
    std::vector<int64_t> threads;
    auto add_thread = [&](int64_t th) {
      const auto at = std::lower_bound(threads.begin(), threads.end(), th);
      if (at == threads.end() || *at != th) threads.insert(at, th);
    };
    auto thread_rank = [&](int64_t th) {
      return static_cast<uint32_t>(std::lower_bound(threads.begin(), threads.end(), th) - threads.begin());
    };
    size_t n_items = 0;
    // CPU time is the union of a name's ranges per thread: one nested in another of its name
    // (DistributedDataParallel.forward inside itself) had been counted twice, more than its parent.
    std::vector<std::tuple<uint32_t, int64_t, int64_t, int64_t>> ranges;  // name, thread, ts, end
    for (uint32_t i = 0; i < tr.size(); ++i) {
      if (tr.cat[i] == Category::UserAnnotation) {
        add_thread(thread_of(i));
        ++n_items;
        Acc& a = by[tr.name[i]];
        ++a.count;
        ranges.emplace_back(tr.name[i], thread_of(i), tr.ts_ns[i], tr.ts_ns[i] + tr.dur_ns[i]);
      } else if (tr.cat[i] == Category::GpuUserAnnotation) {
        Acc& a = by[tr.name[i]];
        ++a.gpu_ann;
        a.gpu_ann_ns += tr.dur_ns[i];
      }
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t k = 0; k < ranges.size();) {
      const auto [name, th, ts0, end0] = ranges[k];
      int64_t open_start = ts0, open_end = end0, total = 0;
      size_t j = k + 1;
      for (; j < ranges.size() && std::get<0>(ranges[j]) == name && std::get<1>(ranges[j]) == th; ++j) {
        const int64_t ts = std::get<2>(ranges[j]), end = std::get<3>(ranges[j]);
        if (ts > open_end) {
          total += open_end - open_start;
          open_start = ts;
          open_end = end;
        } else {
          open_end = std::max(open_end, end);
        }
      }
      by[name].cpu_ns += total + (open_end - open_start);
      k = j;
    }
    if (by.empty()) continue;
    for (const GpuEvent& g : f.gpu) {
      if (g.runtime < 0) continue;
      add_thread(thread_of(f.cpu[static_cast<size_t>(g.runtime)].event));
      ++n_items;
    }
    constexpr uint32_t kLaunch = uint32_t{1} << 31;
    if (threads.size() >= kLaunch) throw Error("user_annotations: more than 2^31 threads");
    struct Item {
      int64_t ts;
      uint32_t thread_kind;  // thread rank | kLaunch for a launch
      uint32_t id;           // annotation: event index; launch: position in f.gpu
    };
    static_assert(sizeof(Item) == 16);
    auto end_of = [&](const Item& it) {
      return (it.thread_kind & kLaunch) ? it.ts : it.ts + tr.dur_ns[it.id];
    };
    std::vector<Item> items;
    items.reserve(n_items);
    for (uint32_t i = 0; i < tr.size(); ++i)
      if (tr.cat[i] == Category::UserAnnotation) items.push_back(Item{tr.ts_ns[i], thread_rank(thread_of(i)), i});
    for (uint32_t k = 0; k < f.gpu.size(); ++k) {
      const GpuEvent& g = f.gpu[k];
      if (g.runtime < 0) continue;
      const uint32_t ri = f.cpu[static_cast<size_t>(g.runtime)].event;
      items.push_back(Item{tr.ts_ns[ri], thread_rank(thread_of(ri)) | kLaunch, k});
    }
    // Ties in the order the items were pushed (ids ascend within a kind): a stable sort's order,
    // without its buffer of every item. Two annotations that start and end together go by
    // External id (the one recorded first encloses the other), then by name, not by their place
    // in the file, which decided the innermost one before the review of 2026-12-06.
    std::sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
      const uint32_t ta = a.thread_kind & ~kLaunch, tb = b.thread_kind & ~kLaunch;
      if (ta != tb) return ta < tb;
      if (a.ts != b.ts) return a.ts < b.ts;
      const uint32_t ka = a.thread_kind & kLaunch, kb = b.thread_kind & kLaunch;
      if (ka != kb) return ka < kb;
      const int64_t ea = end_of(a), eb = end_of(b);
      if (ea != eb) return ea > eb;
      if (!ka) {
        if (tr.encloses_tied(a.id, b.id)) return true;
        if (tr.encloses_tied(b.id, a.id)) return false;
      }
      return a.id < b.id;
    });
    // The open annotations of the thread, each with its name's accumulator (looked up once, at its
    // start: a deep stack had been looked up name by name at every launch).
    struct Open {
      const Item* item;
      Acc* acc;
    };
    std::vector<Open> stack;
    int64_t launch_no = 0;
    uint32_t cur = UINT32_MAX;
    // GPU work launched from threads other than the one running the ProfilerStep ranges (the
    // autograd engine's thread runs the backward: a `## backward ##` range on the main thread
    // contains none of its launches).
    std::vector<char> main_thread(threads.size(), 0);
    for (const Item& it : items)
      if (!(it.thread_kind & kLaunch) && f.name(tr.name[it.id]).rfind("ProfilerStep#", 0) == 0) main_thread[it.thread_kind] = 1;
    const bool steps_known = std::find(main_thread.begin(), main_thread.end(), 1) != main_thread.end();
    double total_us = 0, other_thread_us = 0;
    int64_t other_thread_n = 0;
    for (const Item& it : items) {
      const uint32_t thread = it.thread_kind & ~kLaunch;
      if (thread != cur) {
        stack.clear();
        cur = thread;
      }
      while (!stack.empty() && end_of(*stack.back().item) <= it.ts) stack.pop_back();
      if (!(it.thread_kind & kLaunch)) {
        stack.push_back({&it, &by[tr.name[it.id]]});
        continue;
      }
      const GpuEvent& g = f.gpu[it.id];
      const double us = f.us(g.end - g.ts);
      total_us += us;
      if (steps_known && !main_thread[thread]) {
        other_thread_us += us;
        ++other_thread_n;
      }
      if (stack.empty()) continue;
      Acc& inner = *stack.back().acc;
      ++inner.exc_n;
      inner.exc_us += us;
      ++launch_no;
      // One pass over the stack: an annotation that ended before this launch but sits below a
      // longer one (improper nesting) does not contain it, nor any later item, and is dropped;
      // each name takes the launch once. Stale entries had piled up and every launch had scanned
      // them and the names seen so far: 100k partly overlapping ranges took 12 s, 20k nested ones
      // with 1,000 launches 41 s (review of 2026-12-05).
      size_t keep = 0;
      for (size_t i = 0; i < stack.size(); ++i) {
        const Open o = stack[i];
        if (end_of(*o.item) <= it.ts) continue;
        stack[keep++] = o;
        Acc& a = *o.acc;
        if (a.last_launch == launch_no) continue;
        a.last_launch = launch_no;
        ++a.inc_n;
        a.inc_us += us;
      }
      stack.resize(keep);
    }
    struct Row {
      std::string name;
      const Acc* a;
    };
    std::vector<Row> rows;
    for (const auto& [n, a] : by) rows.push_back(Row{f.name(n), &a});
    std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
      if (x.a->inc_us != y.a->inc_us) return x.a->inc_us > y.a->inc_us;
      return x.name < y.name;
    });
    for (const Row& w : rows)
      t.add_row({f.rank(), w.name, w.a->count, static_cast<double>(w.a->cpu_ns) / 1000.0, w.a->inc_n, w.a->inc_us,
                 w.a->exc_n, w.a->exc_us, w.a->gpu_ann, static_cast<double>(w.a->gpu_ann_ns) / 1000.0});
    // Attribution is by launching thread: say how much GPU time the main thread's annotations
    // cannot hold (silent before 2026-12-02: a backward range showed 57 us of GPU time where the
    // autograd thread launched 124 of 165 ms).
    if (total_us > 0 && other_thread_us >= 0.05 * total_us) {
      char b[160];
      std::snprintf(b, sizeof b, "rank %lld: %lld GPU events, %.1f%% of the launched GPU time", static_cast<long long>(f.rank()),
                    static_cast<long long>(other_thread_n), 100.0 * other_thread_us / total_us);
      ctx.diagnostics.add("user_annotations: GPU work launched from threads other than the ProfilerStep's (e.g. the autograd "
                          "thread running the backward) is in no annotation of the main thread (## backward ##); the iterations "
                          "table counts it",
                          "warning", b);
    }
  }
  if (t.rows() == 0)
    ctx.diagnostics.add("no user_annotation or gpu_user_annotation events: user-annotation table is empty", "info",
                        std::to_string(ctx.frames.size()) + " rank(s)");
}

}  // namespace sextant::trace
