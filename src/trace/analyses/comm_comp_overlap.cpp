// Communication/computation overlap: the share of communication-kernel time (union of NCCL
// kernels) during which computation kernels also run, per rank; plus, outside HTA mode, the
// exposed communication and exposed memcpy time (not hidden under computation).
#include <cmath>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {
using Iv = std::vector<std::pair<int64_t, int64_t>>;
int64_t length(const Iv& m) {
  int64_t s = 0;
  for (const auto& [a, b] : m) s += b - a;
  return s;
}
// Length of the intersection of two merged (sorted, disjoint) interval lists.
int64_t intersection(const Iv& a, const Iv& b) {
  int64_t s = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].first, b[j].first);
    int64_t hi = std::min(a[i].second, b[j].second);
    if (hi > lo) s += hi - lo;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return s;
}
}  // namespace

void run_comm_comp_overlap(const AnalysisContext& ctx, Result& r) {
  Table& t = r.add_table("comm_comp_overlap", "share of communication time overlapped by computation, per rank");
  t.add_i64("rank");
  t.add_f64("comp_comm_overlap_pctg");
  Table* ex = nullptr;
  if (!ctx.opt.hta) {
    ex = &r.add_table("exposed_time", "communication and memcpy time not hidden under computation, per rank");
    ex->add_i64("rank");
    ex->add_f64("communication_us");
    ex->add_f64("exposed_communication_us");
    ex->add_f64("memory_us");
    ex->add_f64("exposed_memory_us");
  }
  for (const Frame& f : ctx.frames) {
    const auto mc = merge_gpu_intervals(f, gpu_of_kind(KernelKind::Computation));
    const auto mm = merge_gpu_intervals(f, gpu_of_kind(KernelKind::Communication));
    const auto mem_m = merge_gpu_intervals(f, gpu_of_kind(KernelKind::Memory));
    int64_t comm_len = length(mm);
    double pct = std::nan("");
    if (comm_len > 0) {
      pct = stats::round_to(100.0 * static_cast<double>(intersection(mc, mm)) / static_cast<double>(comm_len), 2);
    } else {
      ctx.diagnostics.add("no communication kernels: overlap undefined (NaN, as in HTA)", "info",
                          "rank " + std::to_string(f.rank()));
    }
    t.add_row({f.rank(), pct});
    if (ex) {
      int64_t mem_len = length(mem_m);
      ex->add_row({f.rank(), f.us(comm_len), f.us(comm_len - intersection(mc, mm)), f.us(mem_len),
                   f.us(mem_len - intersection(mc, mem_m))});
    }
  }
}

}  // namespace sextant::trace
