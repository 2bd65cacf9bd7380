// Tree (NCCL double binary tree) across domains: the ring's bandwidth with logarithmic
// latency, log2(domains) steps up and down between domains plus a chain inside each domain.
// Chosen for all-reduce over many domains where the ring's 2(n-1) latency steps dominate.
#include <cmath>

#include "estimate/collective.hpp"

namespace sextant {
namespace {
class Tree final : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "tree"; }
  bool supports(ir::CollKind k, const ir::Group& g, const Fabric&) const override {
    return k == ir::CollKind::AllReduce && g.domains > 1;
  }
  double time_s(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f, const ir::A2ATraffic& = {}) const override {
    const double lat = 2.0 * std::ceil(std::log2(static_cast<double>(g.domains))) * f.out_latency_s +
                       2.0 * (g.per_domain - 1) * f.up_latency_s;
    return bytes * ir::bus_factor(k, g.size) / ring_busbw(g, f) + lat;
  }
};
}  // namespace
std::unique_ptr<CollectiveAlgorithm> make_tree() { return std::make_unique<Tree>(); }
}  // namespace sextant
