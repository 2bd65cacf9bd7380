// Ring: n-1 (or 2(n-1) for all-reduce) steps; bus bandwidth of the slowest hop. Across
// domains the k members of a domain send through their share of the domain's NICs, so the
// inter-domain bus bandwidth is k * (per-GPU scale-out bandwidth) (nccl-tests: multi-node
// all-reduce busbw ~ a node's aggregate NIC bandwidth). A group spanning leaf switches is also
// limited by its share of the leaf uplinks (Fabric::ring_uplink_ratio).
#include <algorithm>

#include "estimate/collective.hpp"

namespace sextant {

double ring_busbw(const ir::Group& g, const Fabric& f) {
  // On a mesh a group uses the links to its own members only (Fabric::up_busbw).
  if (g.domains <= 1) return f.up_busbw(g.size);
  const double out = f.domain_out_busbw(g.per_domain);
  const double uplink = f.ring_uplink_ratio(g);  // > 1: the leaf uplinks are the slower hop
  const double net = uplink > 1 ? out / uplink : out;
  // One member a domain: every hop leaves its domain (GPU -> NIC -> the next domain's GPU), no
  // scale-up link is on the ring (it had been capped by the scale-up bandwidth: a sweep taking
  // NVLink below the NIC rate slowed a dp ring of tp8 plans, or of one-GPU domains; review of
  // 2026-12-05). simulate's contention model draws no NVLink share for it either.
  if (g.per_domain <= 1) return net;
  return std::min(f.up_busbw(g.per_domain), net);
}

namespace {
class Ring final : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "ring"; }
  bool supports(ir::CollKind k, const ir::Group&, const Fabric&) const override {
    return k == ir::CollKind::AllReduce || k == ir::CollKind::AllGather || k == ir::CollKind::ReduceScatter ||
           k == ir::CollKind::Broadcast;
  }
  double time_s(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f, const ir::A2ATraffic& = {}) const override {
    const int n = g.size;
    // Latency: only the hops between domains pay the scale-out latency (NCCL's tuning model:
    // nInterSteps = domains - 1 per pass, the other ring steps are scale-up hops).
    const double passes = k == ir::CollKind::AllReduce ? 2.0 : 1.0;
    // Inside one domain a torus runs a ring per axis of the group's block (Fabric::up_ring_hops).
    const double steps = passes * (g.domains > 1 ? n - 1 : f.up_ring_hops(n));
    const double inter = g.domains > 1 ? passes * (g.domains - 1) : 0.0;
    return bytes * ir::bus_factor(k, n) / ring_busbw(g, f) + inter * f.out_latency_s + (steps - inter) * f.up_latency_s;
  }
};
}  // namespace
std::unique_ptr<CollectiveAlgorithm> make_ring() { return std::make_unique<Ring>(); }
}  // namespace sextant
