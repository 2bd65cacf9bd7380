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
  // Group-limited routing (DeepSeek-V3): the experts form `groups` equal groups, a token's topk
  // come from `groups_per_token` of them, chosen uniformly. 0: unrestricted.
  int groups = 0, groups_per_token = 0;
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

// Under group-limited routing, the probability that a token needs a given member of an EP group of
// n members placed k per domain over D domains (experts held contiguously, e = experts / n per
// member), and that it needs a given domain: each averaged over the members or domains, over the
// token's group choices (enumerated) and over its topk experts within them. False where routing is
// unrestricted, the placement uneven, or the group choices too many to enumerate (the caller then
// takes unrestricted routing, which needs more members and domains: an upper bound).
bool moe_grouped_hits(const MoeRoute& r, int n, int k, int D, double* member_hit, double* domain_hit);

std::unique_ptr<MoeDispatcher> make_alltoall_dispatcher();
// DeepEP and HybridEP: one implementation of the traffic, registered under both names.
std::unique_ptr<MoeDispatcher> make_dedup_dispatcher(const std::string& name);

}  // namespace sextant::ir
