#include "core/error.hpp"
#include "infer/batching/policy.hpp"

namespace sextant::infer {

std::unique_ptr<BatchingPolicy> PolicyRegistry::make(const std::string& name) const {
  auto it = factories_.find(name);
  if (it == factories_.end())
    throw Error(SourceLocation{"", 0, 0, "policy"}, "unknown batching policy '" + name + "'", valid_choices_hint(name, names()));
  return it->second();
}

std::vector<std::string> PolicyRegistry::names() const {
  std::vector<std::string> v;
  for (const auto& [k, _] : factories_) v.push_back(k);
  return v;
}

PolicyRegistry make_policy_registry() {
  PolicyRegistry r;
  r.add("static", make_static_policy);
  r.add("continuous", make_continuous_policy);
  r.add("chunked-prefill", make_chunked_prefill_policy);
  return r;
}

void schedule_running_decodes(SchedulerContext& ctx, std::vector<WorkItem>& out) {
  const int32_t n = ctx.decode_tokens();
  // Oldest first; preemption takes the newest, so a snapshot index walk stays valid.
  size_t i = 0;
  while (i < ctx.running().size()) {
    const int32_t s = ctx.running()[i];
    if (ctx.prefill_remaining(s) > 0) { ++i; continue; }
    bool ok = ctx.reserve(s, n);
    while (!ok) {
      const int32_t v = ctx.preempt_newest();
      if (v < 0 || v == s) break;
      ok = ctx.reserve(s, n);
    }
    if (!ok) break;  // s itself was preempted: it was the newest
    if (static_cast<int>(out.size()) >= ctx.limits().max_batch_seqs) break;
    out.push_back(WorkItem{s, n, false});
    ++i;
  }
}

}  // namespace sextant::infer
