// Megatron-Core's `alltoall` token dispatcher: the tokens are permuted into one copy per
// (token, expert) pair and exchanged with one NCCL all-to-all. With uniform routing a member
// sends (k-1)/n of its copies to the other members of its domain and (n-k)/n to other domains
// (n members, k per domain), its own share (1/n) staying local.
#include "ir/moe_dispatch.hpp"

namespace sextant::ir {
namespace {
class AllToAllDispatcher final : public MoeDispatcher {
 public:
  std::string name() const override { return "alltoall"; }
  // The uniform exchange, which A2ATraffic's default states.
  A2ATraffic traffic(const MoeRoute&, const Group&) const override { return A2ATraffic{}; }
};
}  // namespace
std::unique_ptr<MoeDispatcher> make_alltoall_dispatcher() { return std::make_unique<AllToAllDispatcher>(); }
}  // namespace sextant::ir
