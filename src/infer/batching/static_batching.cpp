// Static (request-level) batching, as in FasterTransformer-era servers: when the instance is idle
// it takes up to max_batch_seqs waiting requests, reserves KV for their whole prompt + output,
// prefills them together and decodes until every one has finished; requests arriving meanwhile
// wait for the next batch. The batch is bounded by max_batch_seqs and by max_batch_tokens (its
// prompts prefill in one pass; a lone prompt beyond max_batch_tokens still runs).
#include "infer/batching/policy.hpp"

namespace sextant::infer {
namespace {
class StaticBatching final : public BatchingPolicy {
 public:
  std::string name() const override { return "static"; }
  std::string description() const override { return "request-level batches: admit when idle, run until all finish"; }
  // A static batch is never preempted: its largest pass is the prompt's.
  Pass largest_pass(int64_t prompt, int64_t output, const BatchLimits& lim) const override {
    (void)output;
    (void)lim;
    return {prompt, prompt};
  }
  void schedule(SchedulerContext& ctx, std::vector<WorkItem>& out) override {
    const auto& lim = ctx.limits();
    if (ctx.running().empty()) {
      // The batch is bounded by max_batch_seqs and by max_batch_tokens, since it prefills all its
      // prompts in one pass and the activation memory is sized for that many tokens (a lone
      // prompt beyond it still runs, with a note). It had been bounded by max_batch_seqs only: 57
      // prompts of 8,000 tokens in one 456,000-token pass where memory was held for 8,192
      // (2026-12-04 review).
      int64_t batch_tokens = 0;
      while (!ctx.waiting().empty() && static_cast<int>(out.size()) < lim.max_batch_seqs) {
        const int32_t s = ctx.waiting().front();
        const int32_t need = ctx.prefill_remaining(s);
        if (!out.empty() && batch_tokens + need > lim.max_batch_tokens) break;
        batch_tokens += need;
        // Reserve the final size up front: a static batch is never preempted. The last token's KV
        // is never written (no pass consumes it): prompt + output - 1.
        const int32_t whole = ctx.final_tokens(s) - 1 - ctx.context_tokens(s) + need;
        if (!ctx.admit_front(whole, need)) break;
        out.push_back(WorkItem{s, need, true});
      }
      return;
    }
    // Prompts of a static batch are prefilled in its first pass; afterwards decode all.
    for (int32_t s : ctx.running())
      if (ctx.prefill_remaining(s) > 0) {
        if (!ctx.reserve(s, ctx.prefill_remaining(s))) continue;
        out.push_back(WorkItem{s, ctx.prefill_remaining(s), true});
      }
    if (!out.empty()) return;
    schedule_running_decodes(ctx, out);
  }
};
}  // namespace

std::unique_ptr<BatchingPolicy> make_static_policy() { return std::make_unique<StaticBatching>(); }

}  // namespace sextant::infer
