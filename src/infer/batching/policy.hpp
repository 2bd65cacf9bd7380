#pragma once
// Batching policies of the serving simulator, chosen by name (registry below). A policy decides,
// before every forward pass of one engine instance, which sequences run and how many new
// tokens each contributes. It works through a SchedulerContext that owns the queues and the paged
// KV cache; the context enforces capacity (an allocation that does not fit fails) and implements
// preemption with recomputation (the evicted sequence loses its KV cache and returns to the front
// of the waiting queue; its prompt and the tokens generated so far are prefilled again, and that
// pass samples its next token, as vLLM's recompute does).
//
// Contract of schedule():
//  * every WorkItem names a sequence that is running after the call (admitted by the policy or
//    already running), appears at most once, and has new_tokens >= 1;
//  * a prefill item's new_tokens never exceeds the sequence's prefill_remaining(); a decode item
//    has exactly decode_tokens() new tokens (1, or 1 + draft tokens with speculative decoding);
//  * the KV cache holds room for every item's new tokens (reserve() or admit() succeeded);
//  * the total new tokens respect limits().max_batch_tokens (a pass always admits at least one
//    prompt, even one beyond it), and at most limits().max_batch_seqs sequences are in the pass;
//  * returning no items while sequences are running or waiting and nothing else is in flight
//    means the instance cannot make progress (the simulator reports it as an error).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "core/registry.hpp"

namespace sextant::infer {

struct WorkItem {
  int32_t seq = -1;
  int32_t new_tokens = 0;
  bool prefill = false;
};

struct BatchLimits {
  int max_batch_seqs = 256;        // sequences per forward pass
  int64_t max_batch_tokens = 8192; // new tokens per forward pass (chunk budget)
};

class SchedulerContext {
 public:
  virtual ~SchedulerContext() = default;
  virtual const BatchLimits& limits() const = 0;
  virtual const std::deque<int32_t>& waiting() const = 0;   // FIFO, front = next
  virtual const std::vector<int32_t>& running() const = 0;  // admitted, oldest first
  // Tokens still to prefill before the sequence can decode (prompt + recomputed output - cached);
  // for a waiting sequence this already counts a prefix-cache hit.
  virtual int32_t prefill_remaining(int32_t seq) const = 0;
  // Tokens the sequence has so far (prompt + generated), cached or not.
  virtual int32_t context_tokens(int32_t seq) const = 0;
  // New tokens of one decode pass of this instance (1 + speculative draft tokens).
  virtual int32_t decode_tokens() const = 0;
  // Tokens the sequence will hold when finished (prompt + output), for up-front reservation.
  virtual int32_t final_tokens(int32_t seq) const = 0;
  // Moves the front of the waiting queue to running with KV room for `tokens` new tokens (after
  // any cached prefix); false (and nothing changes) when the cache cannot hold them. With
  // pass_tokens >= 0, `tokens` is a reservation of which the next pass writes pass_tokens (static
  // batching reserves prompt + output and prefills the prompt): layers with a sliding window then
  // hold their window and a pass, not every token.
  virtual bool admit_front(int32_t tokens, int32_t pass_tokens = -1) = 0;
  // Makes the running sequence's KV room cover its cached tokens + `tokens` (room already reserved
  // counts); false when the cache is full.
  virtual bool reserve(int32_t seq, int32_t tokens) = 0;
  // Preempts the most recently admitted running sequence (recompute); returns it or -1.
  virtual int32_t preempt_newest() = 0;
};

class BatchingPolicy {
 public:
  virtual ~BatchingPolicy() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual void schedule(SchedulerContext& ctx, std::vector<WorkItem>& out) = 0;
  // The largest pass this policy may run for one request of this size: the context it reaches and
  // the new tokens it writes. The simulator refuses at arrival a request whose largest pass cannot
  // fit an empty KV cache (with a sliding window a pass holds its window plus its new tokens), so
  // an admitted request can always be served. Default (whole prompts, recompute preemption): a
  // preempted request re-prefills prompt + output - 1 tokens in one pass. In 64 bits: `infer
  // estimate` asks it of contexts beyond a simulated request's (2026-12-06).
  struct Pass {
    int64_t context_tokens = 0, new_tokens = 0;
  };
  virtual Pass largest_pass(int64_t prompt, int64_t output, const BatchLimits& lim) const {
    (void)lim;
    return {prompt + output - 1, prompt + output - 1};
  }
};

// Shared step of the policies that keep decoding sequences running: gives every running sequence
// in its decode phase room for ctx.decode_tokens() more tokens, preempting the newest sequences
// when the cache is full (vLLM's recompute preemption), and appends their decode items.
void schedule_running_decodes(SchedulerContext& ctx, std::vector<WorkItem>& out);

// Policies by name (core/registry.hpp): create(name, where) throws Error at `where` naming the
// valid policies.
using PolicyRegistry = FactoryRegistry<BatchingPolicy>;

// static, continuous, chunked-prefill.
PolicyRegistry make_policy_registry();

std::unique_ptr<BatchingPolicy> make_static_policy();
std::unique_ptr<BatchingPolicy> make_continuous_policy();
std::unique_ptr<BatchingPolicy> make_chunked_prefill_policy();

}  // namespace sextant::infer
