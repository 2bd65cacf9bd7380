// Chunked prefill with stall-free batching (Sarathi-Serve; vLLM's enable_chunked_prefill): every
// pass first decodes one token of every running sequence, then fills the remaining token budget
// (max_batch_tokens) with prompt chunks, first of partially prefilled sequences, then of newly
// admitted ones. Decodes never wait for a long prompt.
#include <algorithm>

#include "infer/batching/policy.hpp"

namespace sextant::infer {
namespace {
class ChunkedPrefill final : public BatchingPolicy {
 public:
  std::string name() const override { return "chunked-prefill"; }
  std::string description() const override { return "Sarathi-style: decodes first, prompt chunks fill the token budget"; }
  // Prompts (and a preempted request's recompute) run in chunks of at most max_batch_tokens.
  Pass largest_pass(int64_t prompt, int64_t output, const BatchLimits& lim) const override {
    const int64_t context = prompt + output - 1;
    return {context, std::min<int64_t>(context, lim.max_batch_tokens)};
  }
  void schedule(SchedulerContext& ctx, std::vector<WorkItem>& out) override {
    const auto& lim = ctx.limits();
    schedule_running_decodes(ctx, out);
    int64_t budget = lim.max_batch_tokens;
    for (const auto& w : out) budget -= w.new_tokens;
    // Partially prefilled running sequences, oldest first.
    for (size_t i = 0; i < ctx.running().size() && budget > 0; ++i) {
      const int32_t s = ctx.running()[i];
      const int32_t rem = ctx.prefill_remaining(s);
      if (rem <= 0) continue;
      if (static_cast<int>(out.size()) >= lim.max_batch_seqs) return;
      const int32_t chunk = static_cast<int32_t>(std::min<int64_t>(rem, budget));
      // Pipeline slots share one block pool: two half-prefilled prompts, one per slot, could each
      // wait for the other's blocks for ever. A slot with nothing else to run preempts its newest
      // sequence (vLLM's recompute preemption), itself last, and admits nothing more this pass
      // (it had waited: 'cannot schedule', 2026-12-04 review).
      bool ok = ctx.reserve(s, chunk);
      while (!ok && out.empty()) {
        const int32_t v = ctx.preempt_newest();
        if (v < 0 || v == s) return;
        ok = ctx.reserve(s, chunk);
      }
      if (!ok) return;
      out.push_back(WorkItem{s, chunk, true});
      budget -= chunk;
    }
    // New sequences.
    while (budget > 0 && !ctx.waiting().empty() && static_cast<int>(ctx.running().size()) < lim.max_batch_seqs &&
           static_cast<int>(out.size()) < lim.max_batch_seqs) {
      const int32_t s = ctx.waiting().front();
      const int32_t chunk = static_cast<int32_t>(std::min<int64_t>(ctx.prefill_remaining(s), budget));
      if (!ctx.admit_front(chunk)) return;
      out.push_back(WorkItem{s, chunk, true});
      budget -= chunk;
    }
  }
};
}  // namespace

std::unique_ptr<BatchingPolicy> make_chunked_prefill_policy() { return std::make_unique<ChunkedPrefill>(); }

}  // namespace sextant::infer
