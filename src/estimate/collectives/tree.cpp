// Tree (NCCL double binary tree) across domains, as NCCL's tuning model costs it
// (src/graph/tuning.cc): bus bandwidth 0.92 of the ring's for all-reduce, and algorithm
// bandwidth half of that, so the bandwidth term is 2 S / (0.92 busbw) where the ring's is
// 2 (n-1)/n S / busbw; latency 2 (log2(domains) steps between domains + a chain inside each
// domain), log2 rounded down (NCCL's log2i). Chosen for all-reduce over many domains where the
// ring's 2(n-1) latency steps outweigh its better bandwidth. Before 2026-12-03 the tree was given
// the ring's bandwidth, so it was chosen at every size (a 25 MB bucket over 128 nodes 10% fast).
#include <cmath>

#include "estimate/collective.hpp"

namespace sextant {
namespace {
// NCCL's tree all-reduce bus bandwidth against the ring's (tuning.cc: busBw * .92).
constexpr double kTreeBusBwFraction = 0.92;

class Tree final : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "tree"; }
  bool supports(ir::CollKind k, const ir::Group& g, const Fabric&) const override {
    return k == ir::CollKind::AllReduce && g.domains > 1;
  }
  double time_s(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f, const ir::A2ATraffic& = {}) const override {
    (void)k;
    const double lat = 2.0 * std::floor(std::log2(static_cast<double>(g.domains))) * f.out_latency_s +
                       2.0 * (g.per_domain - 1) * f.up_latency_s;
    return 2.0 * bytes / (kTreeBusBwFraction * ring_busbw(g, f)) + lat;
  }
};
}  // namespace
std::unique_ptr<CollectiveAlgorithm> make_tree() { return std::make_unique<Tree>(); }
}  // namespace sextant
