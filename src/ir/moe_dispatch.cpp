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

MoeDispatcherRegistry::MoeDispatcherRegistry() {
  items_.push_back(make_alltoall_dispatcher());
  items_.push_back(make_dedup_dispatcher("deepep"));
  items_.push_back(make_dedup_dispatcher("hybridep"));
}

const MoeDispatcher& MoeDispatcherRegistry::get(const std::string& name) const {
  for (const auto& d : items_)
    if (d->name() == name) return *d;
  throw Error(SourceLocation{"", 0, 0, "parallel.moe_dispatcher"}, "unknown MoE dispatcher '" + name + "'",
              valid_choices_hint(name, names()));
}

std::vector<std::string> MoeDispatcherRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& d : items_) out.push_back(d->name());
  return out;
}

}  // namespace sextant::ir
