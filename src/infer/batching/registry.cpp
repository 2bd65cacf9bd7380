#include <algorithm>

#include "core/error.hpp"
#include "infer/batching/policy.hpp"

namespace sextant::infer {

PolicyRegistry make_policy_registry() {
  PolicyRegistry r("batching policy");
  r.add("static", make_static_policy);
  r.add("continuous", make_continuous_policy);
  r.add("chunked-prefill", make_chunked_prefill_policy);
  return r;
}

void schedule_running_decodes(SchedulerContext& ctx, std::vector<WorkItem>& out) {
  const int32_t n = ctx.decode_tokens();
  // The pass's new tokens stay within max_batch_tokens (the contract): with speculative decoding a
  // decode writes 1 + draft tokens, and the sequences beyond the budget wait for the next pass, as
  // vLLM's scheduler counts spec tokens against max_num_batched_tokens (132 sequences x 5 tokens
  // had run in passes of a 256-token budget; review of 2026-12-05). At least one decodes.
  int64_t tokens = 0;
  // Oldest first; preemption takes the newest, so a snapshot index walk stays valid.
  size_t i = 0;
  while (i < ctx.running().size()) {
    const int32_t s = ctx.running()[i];
    if (ctx.prefill_remaining(s) > 0) { ++i; continue; }
    if (!out.empty() && tokens + n > ctx.limits().max_batch_tokens) break;
    // Room for the pass's tokens, but never beyond the tokens the sequence ends with: a
    // speculative look-ahead of k tokens near the end of a request that fills the cache had
    // preempted the sequence itself, forever (before 2026-12-03); the drafts past its last
    // token are discarded, not kept.
    const int32_t room = std::max(1, std::min(n, ctx.final_tokens(s) - ctx.context_tokens(s)));
    bool ok = ctx.reserve(s, room);
    while (!ok) {
      const int32_t v = ctx.preempt_newest();
      if (v < 0 || v == s) break;
      ok = ctx.reserve(s, room);
    }
    if (!ok) break;  // s itself was preempted: it was the newest
    if (static_cast<int>(out.size()) >= ctx.limits().max_batch_seqs) break;
    out.push_back(WorkItem{s, n, false});
    tokens += n;
    ++i;
  }
}

}  // namespace sextant::infer
