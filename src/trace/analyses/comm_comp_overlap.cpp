// Communication/computation overlap: the share of communication-kernel time (union of NCCL
// kernels) during which computation kernels also run, per rank; plus, outside HTA mode, the
// exposed communication and exposed memcpy time (not hidden under computation).
#include <cmath>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

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
    // Per device (one device, as HTA, unless the rank drives several GPUs: covered_per_device).
    const CoveredTime comm = covered_per_device(f, KernelKind::Communication, KernelKind::Computation);
    const CoveredTime mem = covered_per_device(f, KernelKind::Memory, KernelKind::Computation);
    const int64_t comm_len = comm.total;
    double pct = std::nan("");
    if (comm_len > 0) {
      // Rounded (2 decimals) only under --compat hta, HTA's convention; full precision otherwise
      // (review of 2026-12-06).
      pct = 100.0 * static_cast<double>(comm.covered) / static_cast<double>(comm_len);
      if (ctx.opt.hta) pct = stats::round_to(pct, 2);
    } else {
      ctx.diagnostics.add("no communication kernels: overlap undefined (NaN, as in HTA)", "info",
                          "rank " + std::to_string(f.rank()));
    }
    t.add_row({f.rank(), pct});
    if (ex) {
      ex->add_row({f.rank(), f.us(comm_len), f.us(comm_len - comm.covered), f.us(mem.total), f.us(mem.total - mem.covered)});
    }
  }
}

}  // namespace sextant::trace
