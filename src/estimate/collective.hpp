#pragma once
// Collective algorithms, one implementation per file in collectives/, chosen by name or by the
// fastest applicable one (as NCCL's tuner does). Contract of an implementation:
//  - supports(kind, group, fabric) says whether the algorithm can run this collective on this
//    placement (e.g. NVLS needs an in-switch-reduction fabric and a group inside one domain);
//  - time_s(kind, bytes, group, fabric) is the duration of one call of `bytes` (nccl-tests
//    size convention, see ir/workload.hpp) on an otherwise idle network: a bandwidth term
//    bytes * bus_factor / bus_bandwidth plus per-step latency terms. Pure function.
#include <memory>
#include <string>
#include <vector>

#include "ir/workload.hpp"

namespace sextant {

// Achievable bandwidths and latencies of the system, per GPU.
struct Fabric {
  double up_busbw_bytes_per_s = 0;    // ring bus bandwidth inside a scale-up domain
  double up_nvls_busbw_bytes_per_s = 0;  // all-reduce with in-switch reduction (0 = none)
  double up_latency_s = 0;
  double out_busbw_bytes_per_s = 0;   // per GPU share of the node's scale-out bandwidth
  double out_latency_s = 0;
  int gpus_per_domain = 8;
  // Inter-node traffic of a collective spread over all NICs of the node (NCCL channels), or
  // each GPU's over its own NIC only (plan.collective_nic_aggregation, from the framework).
  bool nic_aggregation = true;
  // Inter-domain bus bandwidth of a ring over a group with `per_domain` members per domain.
  double domain_out_busbw(int per_domain) const { return nic_aggregation ? per_domain * out_busbw_bytes_per_s : out_busbw_bytes_per_s; }
};
Fabric make_fabric(const Scenario& s);

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string name() const = 0;
  virtual bool supports(ir::CollKind k, const ir::Group& g, const Fabric& f) const = 0;
  virtual double time_s(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f) const = 0;
};

struct CollectiveChoice {
  const CollectiveAlgorithm* algorithm = nullptr;
  double time_s = 0;
};

class CollectiveRegistry {
 public:
  CollectiveRegistry();  // the built-in algorithms
  const CollectiveAlgorithm& get(const std::string& name) const;  // throws Error with valid names
  // The fastest supported algorithm (time 0 for a group of one).
  CollectiveChoice best(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<CollectiveAlgorithm>> items_;
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
