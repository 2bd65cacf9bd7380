// NVLS (NVLink SHARP): all-reduce with the reduction done in the NVSwitch, inside one
// scale-up domain. Each member pushes its whole buffer into the switch and reads the whole
// result back, whatever the group size: the algorithm bandwidth is a constant, the catalog's bus
// bandwidth (in_network_reduction_fraction x line rate, measured by nccl-tests at
// in_network_reduction_measured_gpus n0) times n0 / (2(n0 - 1)), as NCCL's tuning model converts
// a non-ring algorithm's bus bandwidth with a fixed ratio. The ring's 2(n-1)/n had been applied
// at every n: at tp 2 it gave 480 GB/s algorithm bandwidth, above NVLink 4's 450 GB/s line rate
// (2026-12-03 review); now 274 GB/s, and the ring (367 GB/s at n = 2) is chosen there.
#include <algorithm>

#include "estimate/collective.hpp"

namespace sextant {
namespace {
class NVLS final : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "nvls"; }
  bool supports(ir::CollKind k, const ir::Group& g, const Fabric& f) const override {
    return k == ir::CollKind::AllReduce && g.domains == 1 && f.up_nvls_busbw_bytes_per_s > 0;
  }
  double time_s(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f, const ir::A2ATraffic& = {}) const override {
    (void)g;
    // The fixed time: the catalog's (NCCL's tuning model puts NVLS on NVLink at 25 us, against a
    // ring step's 3.4; two ring steps, 6 us, had made a 8.4 MB all-reduce cheaper than an all-gather
    // of the same buffer, 2026-12-04 review), else two scale-up steps.
    const double fixed = f.up_nvls_latency_s >= 0 ? f.up_nvls_latency_s : 2.0 * f.up_latency_s;
    return bytes * ir::bus_factor(k, std::max(2, f.up_nvls_measured_gpus)) / f.up_nvls_busbw_bytes_per_s + fixed;
  }
};
}  // namespace
std::unique_ptr<CollectiveAlgorithm> make_nvls() { return std::make_unique<NVLS>(); }
}  // namespace sextant
