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
  // Latency hops of one pass of a ring collective over `members` of one domain (catalog's
  // ring_latency_hops): members - 1, on a torus a ring per axis of the group's block, the sum of
  // (extent - 1). The bytes are the flat ring's, (n - 1) / n of the buffer per pass. (Before the
  // 2026-12-07 review every torus ring paid n - 1 hops: a DP all-reduce over a 4,096-chip v5p slice
  // 8,190 hops of 2 us, 16.4 ms of its 18.5 ms, where a 16x16x16 block takes 90.)
  double up_ring_hops(int members) const { return ring_latency_hops(up_torus_dims, gpus_per_domain, up_torus_slice, members); }
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
  // Algorithms best() may take besides ring (plan.collective_algorithms, NCCL_ALGO).
  bool allow_tree = true;
  bool allow_nvls = true;
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
  // How group g lies on the leaves (ranks [l B, (l + 1) B), B = domains_per_leaf x gpus_per_domain)
  // over all its instances (offsets i + j stride size, i < stride, j < world_gpus / (stride size);
  // world_gpus 0: j = 0 only), as ir::place does for scale-up domains: whether some instance spans
  // leaves, and of the instances that do, the fewest of one instance's domains, and of its
  // members, that one leaf holds (they alone carry its traffic onto the uplinks). The slowest
  // instance sets the step. Before 2026-12-06 every instance was taken to start at a leaf boundary
  // (review): with 4-node leaves, stage 1 of tp 8 pp 2 dp 3 (nodes 3-5) spans two leaves and paid
  // nothing at oversubscription 8, and dp 5 over 4 + 1 nodes was charged as 4 nodes a leaf, not 1.
  // Not crossing: {false, g.domains, g.size}.
  struct LeafShare {
    bool crosses = false;
    int domains = 1;
    int members = 1;
  };
  LeafShare leaf_share(const ir::Group& g) const {
    if (g.size <= 1 || g.domains <= 1) return {false, g.domains, g.size};  // one domain: one leaf
    return spanning_leaf_share(g);
  }
  LeafShare spanning_leaf_share(const ir::Group& g) const;  // leaf_share of a group over domains
  // Scale-up domains of group g inside one leaf: the fewest of a crossing instance (g.domains
  // when every instance fits one leaf).
  int leaf_domains(const ir::Group& g) const { return leaf_share(g).domains; }
  bool crosses_leaves(const ir::Group& g) const { return leaf_share(g).crosses; }
  // Leaf-uplink time of a ring-like collective (ring, tree, pipeline send) relative to its
  // inter-domain NIC time: of an instance's hops inside a leaf holding m of its domains, one
  // leaves it (ranks are ordered by leaf), and those m domains bring m shares of uplink capacity,
  // so the uplink needs oversubscription / m of the NIC time, m the fewest (leaf_share).
  // 0 when no instance leaves its leaf. The bandwidth term is limited by the uplinks when this
  // exceeds 1.
  double ring_uplink_ratio(const ir::Group& g) const {
    if (oversubscription <= 1) return 0;
    const LeafShare s = leaf_share(g);
    return s.crosses ? oversubscription / s.domains : 0.0;
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
  // (m = members of the group in one leaf, the fewest of a crossing instance: leaf_share) crosses
  // the uplinks at out_busbw / oversubscription per GPU. Returns that fraction times the
  // oversubscription (0 inside one leaf): uplink time = bytes * all_to_all_uplink_weight(g) / out_busbw.
  double all_to_all_uplink_weight(const ir::Group& g) const {
    if (oversubscription <= 1) return 0;
    const LeafShare s = leaf_share(g);
    if (!s.crosses) return 0;
    const double n = g.size, m = s.members;
    return (n - m) / n * oversubscription;
  }
};
Fabric make_fabric(const Scenario& s);
// Fabric settings a scenario states that cannot change its estimate, for the note "stated but
// without effect" (estimate's notes), one entry per setting:
// - in_network_reduction_fraction of the scale-out network: in-network reduction across domains
//   (SHARP, which NCCL reaches through its CollNet plugin) is not modelled, only a scale-up
//   network's (NVLS);
// - parallel.collective_nic_aggregation, stated, on a job that fits one scale-up domain (or one
//   GPU): no collective leaves its domain, so none uses the NICs;
// - parallel.collective_algorithms, where what the list leaves out (tree, nvls) could not have
//   been taken anyway: tree only across domains, nvls only with in-switch reduction on the
//   scale-up network and more than one GPU. A list at the default is no statement to note.
// Judged on the job, not on its groups: no note where a setting can matter. All had been
// accepted and ignored without a word (review of 2026-12-06; comment updated 2026-12-06 review).
std::vector<std::string> fabric_settings_without_effect(const Scenario& s);

// The unknown fields of the networks the job's collectives use, with the values taken for them
// ("scale-up network X: achievable_fraction 0.8, latency_us 3"); empty where the catalog (or the
// inline hardware) states them all. Nothing is filled in silently (docs/catalog.md).
std::vector<std::string> fabric_defaults_assumed(const Scenario& s);

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
