// NVLS (NVLink SHARP): all-reduce with the reduction done in the NVSwitch, inside one
// scale-up domain. Bus bandwidth from the network's in_network_reduction_fraction.
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
    return bytes * ir::bus_factor(k, g.size) / f.up_nvls_busbw_bytes_per_s + 2.0 * f.up_latency_s;
  }
};
}  // namespace
std::unique_ptr<CollectiveAlgorithm> make_nvls() { return std::make_unique<NVLS>(); }
}  // namespace sextant
