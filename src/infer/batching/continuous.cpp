// Continuous (iteration-level) batching as in Orca and vLLM's default scheduler: new requests join
// at any iteration. When requests are waiting and fit, the next pass prefills them (FIFO, whole
// prompts, up to max_batch_tokens and max_batch_seqs) and running decodes pause for that pass;
// otherwise every running sequence decodes one token.
#include "infer/batching/policy.hpp"

namespace sextant::infer {
namespace {
class Continuous final : public BatchingPolicy {
 public:
  std::string name() const override { return "continuous"; }
  std::string description() const override { return "vLLM-style: prefill-priority passes of whole prompts, else decode all"; }
  void schedule(SchedulerContext& ctx, std::vector<WorkItem>& out) override {
    const auto& lim = ctx.limits();
    // Sequences preempted earlier are back in waiting; running ones still prefilling (none here,
    // prompts are never split) would be finished first.
    int64_t tokens = 0;
    while (!ctx.waiting().empty() && static_cast<int>(ctx.running().size()) < lim.max_batch_seqs) {
      const int32_t s = ctx.waiting().front();
      const int32_t need = ctx.prefill_remaining(s);
      if (!out.empty() && tokens + need > lim.max_batch_tokens) break;
      if (!ctx.admit_front(need)) break;
      out.push_back(WorkItem{s, need, true});
      tokens += need;
      if (tokens >= lim.max_batch_tokens) break;
    }
    if (!out.empty()) return;
    schedule_running_decodes(ctx, out);
  }
};
}  // namespace

std::unique_ptr<BatchingPolicy> make_continuous_policy() { return std::make_unique<Continuous>(); }

}  // namespace sextant::infer
