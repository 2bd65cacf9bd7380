#include "ir/moe_dispatch.hpp"

#include "core/error.hpp"

namespace sextant::ir {

double moe_miss_probability(int experts, int held, int topk) {
  if (held <= 0) return 1;
  if (experts - held < topk) return 0;
  double q = 1;
  for (int i = 0; i < topk; ++i) q *= static_cast<double>(experts - held - i) / (experts - i);
  return q;
}

MoeDispatcherRegistry::MoeDispatcherRegistry() : InstanceRegistry("parallel.moe_dispatcher", "MoE dispatcher") {
  add(make_alltoall_dispatcher());
  add(make_dedup_dispatcher("deepep"));
  add(make_dedup_dispatcher("hybridep"));
}

}  // namespace sextant::ir
