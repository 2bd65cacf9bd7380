// Deduplicating dispatchers (DeepEP's normal kernels, HybridEP): a token is sent once to each
// rank that holds at least one of its experts, not once per expert, and across scale-up domains
// once to each destination domain (over the scale-out NIC to the rank of the same local index),
// which forwards it over the scale-up links to the other ranks of that domain that need it. The
// combine runs the same routes backwards, reducing at each hop, so it moves the same bytes.
// Per token of a member (e experts per rank, k ranks per domain, D domains, K = topk):
//  - scale-up sends: k-1 ranks of its own domain and k-1 of each of the D-1 others (the
//    forwarding rank's share, counted at the source by symmetry), each needed with probability
//    1 - C(E-e, K)/C(E, K): D (k-1) (1 - q(e)) copies;
//  - scale-out sends: each other domain needed with probability 1 - q(e k): (D-1) (1 - q(e k)).
// Divided by K: multiples of the buffer of K copies per token. Sources: DeepEP README
// ("NVLink and RDMA forwarding", normal kernels), Megatron-Core HybridEP dispatcher docs.
#include "ir/moe_dispatch.hpp"

#include <cmath>

namespace sextant::ir {
namespace {
class DedupDispatcher final : public MoeDispatcher {
 public:
  explicit DedupDispatcher(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  A2ATraffic traffic(const MoeRoute& r, const Group& g) const override {
    const int E = r.experts, K = r.topk, n = g.size, k = g.per_domain, D = g.domains;
    if (n <= 1 || E <= 0 || K <= 0) return A2ATraffic{0, 0};
    const int e = E / n;  // experts per member
    const double rank_hit = 1 - moe_miss_probability(E, e, K);
    // A group placed unevenly over its domains (k: the fewest members one domain holds, the
    // limiting ones; Group): the other domains hold the other n - k members, (n - k) / (D - 1) each,
    // and a token needs such a domain with the chance that it holds one of its experts (the
    // member's own k had been used: on GB200 NVL72 at ep 32 placed 8 + 24, 0.907 where it is
    // 1.000; 2026-12-04 review). The scale-up copies, own domain and forwarded in the others, are
    // (k - 1) + (D - 1)(peer - 1) = n - D in either case.
    const double peer = D > 1 ? static_cast<double>(n - k) / (D - 1) : static_cast<double>(k);
    double domain_hit = 1 - moe_miss_probability(E, static_cast<int>(std::lround(e * peer)), K);
    // Group-limited routing (DeepSeek-V3: 4 of 8 groups, one group a node at EP 64 over 8 nodes)
    // bounds the domains a token needs: without it, 4.63 other nodes of 7 per token where the
    // routing allows at most 4 (2026-12-04 review; the example had claimed the bound was modelled).
    double member = rank_hit;
    if (moe_grouped_hits(r, n, k, D, &member, &domain_hit)) return A2ATraffic{static_cast<double>(n - D) * member / K, (D - 1) * domain_hit / K};
    return A2ATraffic{static_cast<double>(n - D) * rank_hit / K, (D - 1) * domain_hit / K};
  }

 private:
  std::string name_;
};
}  // namespace
std::unique_ptr<MoeDispatcher> make_dedup_dispatcher(const std::string& name) {
  return std::make_unique<DedupDispatcher>(name);
}
}  // namespace sextant::ir
