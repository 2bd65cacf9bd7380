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
#include <map>

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
    };
    std::map<uint32_t, Acc> by;  // by name id
    // Items of one sweep: annotations (kind 0) and launches (kind 1), by thread then time;
    // at equal times annotations first (a launch at an annotation's start is inside it), longer
    // annotations before shorter (the parent first).
    struct Item {
      int64_t thread, ts, end;
      uint32_t id;   // annotation: event index; launch: position in f.gpu
      uint8_t kind;
    };
    std::vector<Item> items;
    for (uint32_t i = 0; i < tr.size(); ++i) {
      if (tr.cat[i] == Category::UserAnnotation) {
        items.push_back(Item{thread_of(i), tr.ts_ns[i], tr.ts_ns[i] + tr.dur_ns[i], i, 0});
        Acc& a = by[tr.name[i]];
        ++a.count;
        a.cpu_ns += tr.dur_ns[i];
      } else if (tr.cat[i] == Category::GpuUserAnnotation) {
        Acc& a = by[tr.name[i]];
        ++a.gpu_ann;
        a.gpu_ann_ns += tr.dur_ns[i];
      }
    }
    if (by.empty()) continue;
    items.reserve(items.size() + f.gpu.size());  // one regrowth at most: launches <= GPU events
    for (uint32_t k = 0; k < f.gpu.size(); ++k) {
      const GpuEvent& g = f.gpu[k];
      if (g.runtime < 0) continue;
      const uint32_t ri = f.cpu[static_cast<size_t>(g.runtime)].event;
      items.push_back(Item{thread_of(ri), tr.ts_ns[ri], tr.ts_ns[ri], k, 1});
    }
    // Ties in the order the items were pushed (ids ascend within a kind): a stable sort's order,
    // without its buffer of every item.
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      if (a.thread != b.thread) return a.thread < b.thread;
      if (a.ts != b.ts) return a.ts < b.ts;
      if (a.kind != b.kind) return a.kind < b.kind;
      if (a.end != b.end) return a.end > b.end;
      return a.id < b.id;
    });
    std::vector<const Item*> stack;
    std::vector<uint32_t> names;  // distinct names on the stack, for one launch
    int64_t cur = INT64_MIN;
    for (const Item& it : items) {
      if (it.thread != cur) {
        stack.clear();
        cur = it.thread;
      }
      while (!stack.empty() && stack.back()->end <= it.ts) stack.pop_back();
      if (it.kind == 0) {
        stack.push_back(&it);
        continue;
      }
      if (stack.empty()) continue;
      const GpuEvent& g = f.gpu[it.id];
      const double us = f.us(g.end - g.ts);
      Acc& inner = by[tr.name[stack.back()->id]];
      ++inner.exc_n;
      inner.exc_us += us;
      names.clear();
      for (const Item* s : stack) {
        // An enclosing annotation that ended before this launch but is below a longer one on
        // the stack (improper nesting) does not contain it.
        if (s->end <= it.ts) continue;
        uint32_t n = tr.name[s->id];
        if (std::find(names.begin(), names.end(), n) != names.end()) continue;
        names.push_back(n);
        Acc& a = by[n];
        ++a.inc_n;
        a.inc_us += us;
      }
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
  }
  if (t.rows() == 0)
    ctx.diagnostics.add("no user_annotation or gpu_user_annotation events: user-annotation table is empty", "info",
                        std::to_string(ctx.frames.size()) + " rank(s)");
}

}  // namespace sextant::trace
