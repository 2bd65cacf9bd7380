// All-to-all: each member sends (n-1)/n of its buffer, (k-1)/n to members of its own domain
// over the scale-up links and (n-k)/n to other domains through its scale-out share; the two
// proceed concurrently. A MoE dispatcher that deduplicates tokens states its own split
// (ir::A2ATraffic, ir/moe_dispatch.hpp). The share addressed outside the member's leaf switch
// also crosses the leaf uplinks, at 1 / oversubscription of the NIC rate. On a torus the
// scale-up bytes travel their hop distance (Fabric::up_all_to_all_hop_factor). Latency: one step per
// peer domain plus one inside the domain.
#include <algorithm>

#include "estimate/collective.hpp"

namespace sextant {
namespace {
class AllToAll final : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "all_to_all"; }
  bool supports(ir::CollKind k, const ir::Group&, const Fabric&) const override { return k == ir::CollKind::AllToAll; }
  double time_s(ir::CollKind, double bytes, const ir::Group& g, const Fabric& f, const ir::A2ATraffic& tr = {}) const override {
    const double n = g.size, k = g.per_domain;
    // A mesh: the links to the k-1 peers of the domain; a torus: the links of the axes the group
    // spans, each byte over its hop distance (Fabric::up_all_to_all_hop_factor).
    const double up = f.up_busbw(g.per_domain) / f.up_all_to_all_hop_factor(g.per_domain);
    const double intra = tr.uniform() ? bytes * (k - 1) / n / up : bytes * tr.intra / up;
    // Traffic leaving the leaf also crosses the uplinks (Fabric::all_to_all_uplink_weight); a
    // deduplicated exchange sends tr.inter of the uniform (n-k)/n there, and to the leaf alike.
    double inter = 0;
    if (g.domains > 1) {
      const double scale = tr.uniform() ? 1.0 : tr.inter / ((n - k) / n);
      inter = bytes * std::max((n - k) / n, f.all_to_all_uplink_weight(g)) * scale / f.out_busbw_bytes_per_s;
    }
    const double lat = (g.domains > 1 ? (g.domains - 1) * f.out_latency_s : 0.0) + f.up_latency_s;
    return std::max(intra, inter) + lat;
  }
};
}  // namespace
std::unique_ptr<CollectiveAlgorithm> make_all_to_all() { return std::make_unique<AllToAll>(); }
}  // namespace sextant
