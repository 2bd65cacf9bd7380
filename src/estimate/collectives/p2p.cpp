// Point-to-point send/receive between neighbours of a group (pipeline stages, ring-attention
// exchanges): one link, inside the domain when the group fits one domain; across leaf switches
// limited by the leaf uplinks when they are oversubscribed.
#include "estimate/collective.hpp"

namespace sextant {
namespace {
class P2P final : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "p2p"; }
  bool supports(ir::CollKind k, const ir::Group&, const Fabric&) const override { return k == ir::CollKind::SendRecv; }
  double time_s(ir::CollKind, double bytes, const ir::Group& g, const Fabric& f, const ir::A2ATraffic& traffic = {}) const override {
    // Inside the domain: the group fits one, or the send is marked as staying in one (ir::pp_send).
    if (g.domains <= 1 || (!traffic.uniform() && traffic.inter <= 0)) return bytes / f.up_busbw(2) + f.up_latency_s;
    // Between leaves: the uplink share of the send (Fabric::ring_uplink_ratio) when it is slower.
    return bytes * std::max(1.0, f.send_uplink_ratio(g, traffic)) / f.out_busbw_bytes_per_s + f.out_latency_s;
  }
};
}  // namespace
std::unique_ptr<CollectiveAlgorithm> make_p2p() { return std::make_unique<P2P>(); }
}  // namespace sextant
