#pragma once
// Collective algorithms, one implementation per file in collectives/, chosen by name or by the
// fastest applicable one (as NCCL's tuner does). Contract of an implementation:
//  - supports(kind, group, fabric) says whether the algorithm can run this collective on this
//    placement (e.g. NVLS needs an in-switch-reduction fabric and a group inside one domain);
//  - time_s(kind, bytes, group, fabric, traffic) is the duration of one call of `bytes`
//    (nccl-tests size convention, see ir/workload.hpp) on an otherwise idle network: a bandwidth
//    term bytes * bus_factor / bus_bandwidth plus per-step latency terms. `traffic` is the
//    destination split of an all-to-all's bytes (ir::A2ATraffic: uniform unless a MoE
//    dispatcher deduplicates tokens); the other kinds ignore it. Pure function.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/workload.hpp"
#include "core/registry.hpp"

namespace sextant {

// Achievable bandwidths and latencies of the system, per GPU.
struct Fabric {
  double up_busbw_bytes_per_s = 0;    // ring bus bandwidth inside a scale-up domain
  double up_nvls_busbw_bytes_per_s = 0;  // all-reduce with in-switch reduction (0 = none)
  int up_nvls_measured_gpus = 8;         // the group size that bus bandwidth was measured at
  double up_nvls_latency_s = -1;         // fixed time of one in-switch all-reduce (< 0: 2 x up_latency_s)
  double up_latency_s = 0;
  double out_busbw_bytes_per_s = 0;   // per GPU share of the node's scale-out bandwidth
  double out_latency_s = 0;
  int gpus_per_domain = 8;
  // A point-to-point mesh (NetworkTech::topology): up_busbw_bytes_per_s is a member's bandwidth
  // over all D-1 links, of which a group of n members uses n-1.
  bool up_mesh = false;
  // A torus of this many axes (NetworkTech::torus_dims; 0: not a torus): up_busbw_bytes_per_s is a
  // chip's bandwidth over the links of all its axes; a group drives the ports of its block in the
  // job's slice (catalog's torus_group_extents and scale_up_group_share); a pair (a pipeline send,
  // a group of two) the one link between neighbours, 1/(2 dims).
  int up_torus_dims = 0;
  // Share of a member's scale-up bandwidth a group of `members` in one domain drives.
  int up_torus_slice = 0;  // torus: the chips of the job's slice (min of the domain and the job), 0 unknown
  // (catalog's scale_up_group_share. The job's slice of the pod sets a torus's axes: a 64-chip job
  // on a pod declared at 6,144 chips had placed a 16-member group on one axis of an 18-chip side,
  // half the bandwidth it gets on a 64-chip pod; 2026-12-04 review.)
  double up_share(int members) const {
    return scale_up_group_share(up_mesh, up_torus_dims, gpus_per_domain, up_torus_slice, members);
  }
  // Scale-up bus bandwidth of a group with `members` in one domain (2: a point-to-point send).
  double up_busbw(int members) const { return up_busbw_bytes_per_s * up_share(members); }
  // All-to-all on a torus: a member's bytes to a peer travel its hop distance, each hop on a
  // link, so the links carry sum(distances) / (n - 1) times what a switch's would (1 elsewhere),
  // over the same block as up_share (catalog's torus_all_to_all_hop_factor; they had been priced
  // as one hop from every peer before the 2026-12-04 review).
  double up_all_to_all_hop_factor(int members) const {
    return torus_all_to_all_hop_factor(up_torus_dims, gpus_per_domain, up_torus_slice, members);
  }
  // Inter-node traffic of a collective spread over all NICs of the node (NCCL channels), or
  // each GPU's over its own NIC only (plan.collective_nic_aggregation, from the framework).
  bool nic_aggregation = true;
  // Inter-domain bus bandwidth of a ring over a group with `per_domain` members per domain.
  double domain_out_busbw(int per_domain) const { return nic_aggregation ? per_domain * out_busbw_bytes_per_s : out_busbw_bytes_per_s; }

  // Leaf/spine level of the scale-out fabric. A leaf switch holds the NICs (of one rail) of
  // `domains_per_leaf` scale-up domains; its uplinks to the spine carry 1 / oversubscription of
  // its downlink capacity, i.e. each GPU brings out_busbw / oversubscription of uplink capacity
  // to its leaf. Only traffic between leaves crosses the uplinks. A system without a known leaf
  // size is one non-blocking leaf level when oversubscription is 1; with a larger ratio and no
  // leaf size, every inter-domain hop is taken to leave its leaf (domains_per_leaf = 1).
  int domains_per_leaf = 1;
  double oversubscription = 1;
  // Scale-up domains of group g inside one leaf (g.domains when the group fits one leaf);
  // groups are placed by rank with consecutive domains `stride / gpus_per_domain` apart.
  int leaf_domains(const ir::Group& g) const {
    if (g.domains <= 1) return g.domains;
    const int64_t ds = std::max(1, g.stride / std::max(1, gpus_per_domain));  // domain distance of consecutive members' domains
    if (ds * g.domains <= domains_per_leaf) return g.domains;
    if (ds >= domains_per_leaf) return 1;
    return static_cast<int>(domains_per_leaf / ds);
  }
  bool crosses_leaves(const ir::Group& g) const { return g.domains > 1 && leaf_domains(g) < g.domains; }
  // Leaf-uplink time of a ring-like collective (ring, tree, pipeline send) relative to its
  // inter-domain NIC time: of the group's hops inside a leaf, one in leaf_domains(g) leaves it
  // (ranks are ordered by leaf), and the members of the leaf bring leaf_domains(g) shares of
  // uplink capacity, so the uplink needs oversubscription / leaf_domains(g) of the NIC time.
  // 0 when the group stays inside one leaf. The bandwidth term is limited by the uplinks when
  // this exceeds 1.
  double ring_uplink_ratio(const ir::Group& g) const {
    if (oversubscription <= 1 || !crosses_leaves(g)) return 0;
    return oversubscription / leaf_domains(g);
  }
  // A pipeline send (its hop known, ir::pp_send): the uplink share only when the hop leaves its
  // leaf for some replica; a send between two domains of one leaf stays off the uplinks (every
  // send had paid ring_uplink_ratio, doubling the in-leaf hops at oversubscription 4; 2026-12-04).
  int64_t world_gpus = 0;  // the job's GPUs (0: unknown)
  double send_uplink_ratio(const ir::Group& g, const ir::A2ATraffic& tr) const {
    const double ring = ring_uplink_ratio(g);
    if (ring <= 0 || tr.hop_from < 0 || tr.hop_to < 0 || world_gpus <= 0) return ring;
    const int64_t leaf_block = static_cast<int64_t>(domains_per_leaf) * std::max(1, gpus_per_domain);
    return ir::hop_crosses_blocks(leaf_block, g.stride, g.size, world_gpus, tr.hop_from, tr.hop_to) ? ring : 0.0;
  }
  // All-to-all: the fraction (n - m) / n of each member's traffic addressed outside its leaf
  // (m = members of the group in one leaf) crosses the uplinks at out_busbw / oversubscription
  // per GPU. Returns that fraction times the oversubscription (0 inside one leaf): uplink time =
  // bytes * all_to_all_uplink_weight(g) / out_busbw.
  double all_to_all_uplink_weight(const ir::Group& g) const {
    if (oversubscription <= 1 || !crosses_leaves(g)) return 0;
    const double n = g.size, m = static_cast<double>(leaf_domains(g)) * g.per_domain;
    return (n - m) / n * oversubscription;
  }
};
Fabric make_fabric(const Scenario& s);

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string name() const = 0;
  virtual bool supports(ir::CollKind k, const ir::Group& g, const Fabric& f) const = 0;
  virtual double time_s(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f,
                        const ir::A2ATraffic& traffic = {}) const = 0;
  // The latency terms of time_s: its time for no bytes. The rest of a call's time is its
  // bandwidth part, the time it keeps its links busy (what concurrent traffic shares).
  double latency_s(ir::CollKind k, const ir::Group& g, const Fabric& f, const ir::A2ATraffic& traffic = {}) const {
    return time_s(k, 0.0, g, f, traffic);
  }
};

struct CollectiveChoice {
  const CollectiveAlgorithm* algorithm = nullptr;
  double time_s = 0;
};

// The built-in algorithms by name (core/registry.hpp: get() throws Error at `algorithm` with the
// valid names).
class CollectiveRegistry : public InstanceRegistry<CollectiveAlgorithm> {
 public:
  CollectiveRegistry();
  // The fastest supported algorithm (time 0 for a group of one).
  CollectiveChoice best(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f,
                        const ir::A2ATraffic& traffic = {}) const;
};

std::unique_ptr<CollectiveAlgorithm> make_ring();
std::unique_ptr<CollectiveAlgorithm> make_tree();
std::unique_ptr<CollectiveAlgorithm> make_nvls();
std::unique_ptr<CollectiveAlgorithm> make_all_to_all();
std::unique_ptr<CollectiveAlgorithm> make_p2p();

// Ring bus bandwidth of a group: inside one domain the scale-up rate; across domains the
// slower of the scale-up rate and the scale-out bandwidth of the members of one domain.
double ring_busbw(const ir::Group& g, const Fabric& f);

}  // namespace sextant
