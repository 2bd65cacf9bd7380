#pragma once
// MoE token dispatchers: how an expert-parallel layer moves its tokens to the ranks that hold
// their experts (dispatch) and the expert outputs back (combine). One implementation per file in
// dispatchers/, chosen by name (parallel.moe_dispatcher). Contract of an implementation:
//  - traffic(route, group) gives what one member of the EP group sends in one dispatch (and,
//    symmetrically, one combine), as multiples of the buffer of its token-expert copies
//    (tokens * topk * hidden * bytes per element, the IR collective's `bytes`): the part sent to
//    other members of its scale-up domain and the part sent to other domains. Routing is taken
//    as uniform: each token picks topk distinct experts at random, independently of the other
//    tokens (balanced load; Megatron's force-balanced benchmark routing draws it that way).
//    Pure function.
#include <memory>
#include <string>
#include <vector>

#include "ir/workload.hpp"
#include "core/registry.hpp"

namespace sextant::ir {

struct MoeRoute {
  int experts = 0;  // routed experts of the layer (all EP ranks)
  int topk = 0;     // experts per token
};

class MoeDispatcher {
 public:
  virtual ~MoeDispatcher() = default;
  virtual std::string name() const = 0;
  virtual A2ATraffic traffic(const MoeRoute& r, const Group& ep) const = 0;
};

// The built-in dispatchers by name (core/registry.hpp: get() throws Error at
// parallel.moe_dispatcher with the valid names).
class MoeDispatcherRegistry : public InstanceRegistry<MoeDispatcher> {
 public:
  MoeDispatcherRegistry();
};

// Probability that a token's topk experts (distinct, uniformly drawn from `experts`) all miss a
// given set of `held` experts: C(experts - held, topk) / C(experts, topk).
double moe_miss_probability(int experts, int held, int topk);

std::unique_ptr<MoeDispatcher> make_alltoall_dispatcher();
// DeepEP and HybridEP: one implementation of the traffic, registered under both names.
std::unique_ptr<MoeDispatcher> make_dedup_dispatcher(const std::string& name);

}  // namespace sextant::ir
