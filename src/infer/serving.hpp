#pragma once
// Discrete-event simulation of LLM serving. Engine instances (model replicas) run forward passes
// ("iterations") whose duration comes from the CostModel; before each pass a batching policy
// (batching/policy.hpp) picks the work. Each instance has a paged KV cache (blocks of
// engine.kv_block_tokens tokens; capacity = usable device memory - weights, divided by the KV
// bytes per token per device, or for an engine that allocates per sequence, llama.cpp, the context
// window for each of max_batch_seqs sequences within that: engine_kv_allocation), preemption with
// recomputation, and optional prefix caching
// (requests of one prefix group share the cached blocks of their common prefix; unreferenced
// prefixes are evicted least-recently-used first).
//
// Options: speculative decoding (a draft model proposes k tokens per decode pass, run as k draft
// decode passes; the target verifies k + 1 tokens per sequence; each draft token is accepted
// with probability `acceptance` until the first rejection), and disaggregated prefill/decode
// pools (prefill instances emit the first token, the KV cache moves over a link to the least
// loaded decode instance).
//
// Metrics: TTFT (arrival -> first token), TPOT ((finish - first token) / (output - 1)),
// inter-token latency (one value per generated token after the first; a pass emitting a tokens
// contributes a values of gap / a), end-to-end latency; throughput; SLO attainment (TTFT and TPOT
// both within the SLO) and goodput (requests per second meeting it); KV memory over time;
// energy from the device power model (idle + (TDP - idle) x utilisation of each pass) and cost.
// The per-second figures, energy and cost are over one window (duration_s): from the first arrival
// over n mean arrival gaps (n (last - first arrival) / (n - 1): a trace's offered rate is one over
// that gap), or to the last completion when later (makespan_s), so that throughput never exceeds
// the offered rate.
// Deterministic: identical inputs give identical results.
#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "infer/arrivals/arrival.hpp"
#include "infer/batching/policy.hpp"
#include "infer/cost_model.hpp"

namespace sextant::infer {

struct SpeculativeSpec {
  int draft_tokens = 4;      // k
  double acceptance = 0.7;   // per-token acceptance probability
};

struct DisaggregationSpec {
  int prefill_instances = 1, decode_instances = 1;
  Link kv_link;  // between prefill and decode instances
};

struct SloSpec {
  double ttft_s = 0;  // 0: no bound
  double tpot_s = 0;
};

struct ServingSpec {
  Deployment deployment;
  int replicas = 1;                    // colocated instances (ignored when disaggregated)
  // Passes in flight per replica when pp > 1 (scheduler slots sharing the replica's KV cache and
  // pipeline stages, as vLLM's virtual engines); 0: pp. Stage s of a pass starts when stage s - 1
  // of it and stage s of the previous pass are done.
  int pipeline_batches = 0;
  std::string policy = "continuous";
  BatchLimits limits;
  bool prefix_caching = false;
  std::optional<Deployment> draft;     // speculative decoding when set
  SpeculativeSpec speculative;
  std::optional<DisaggregationSpec> disaggregation;
  SloSpec slo;
  double memory_available_fraction = 0.9;  // of device memory (engine x OS limits, resolved by the caller)
  double kv_capacity_tokens = 0;       // > 0 overrides the capacity computed from memory
  // Advisory share of device memory (Metal's recommended working set) below the usable one: a
  // note when the KV cache reaches beyond it (the engine warns and allocates). 0: none.
  double memory_recommended_fraction = 0;
  double idle_power_w = 0, busy_power_w = 0;  // per device; 0 busy power: no energy figures
  double usd_per_device_hour = 0;      // 0: no cost figures
  bool usd_per_device_hour_stated = false;  // the study's cost.usd_per_device_hour, not the device's
  // > 0: devices are rented in whole nodes of this many (a named system's catalog node price,
  // DevicePrice): the deployment pays for its devices rounded up to whole nodes. 0: per device.
  int price_node_devices = 0;
  std::string price_source;            // where usd_per_device_hour came from (the result's price_source)
  int timeline_points = 200;
  bool request_table = true;           // the per-request table "requests" in the Result
  uint64_t seed = 1;                   // speculative acceptance draws
};

struct ServingSummary {  // the headline numbers, also in the Result
  int64_t completed = 0, preemptions = 0, iterations = 0;
  double duration_s = 0, output_tokens_per_s = 0, requests_per_s = 0;  // duration_s: the measurement window
  double ttft_p50_s = 0, ttft_p99_s = 0, tpot_p50_s = 0, tpot_p99_s = 0, e2e_p50_s = 0, itl_p50_s = 0, itl_p99_s = 0;
  double slo_attainment_fraction = 0, goodput_requests_per_s = 0;
  // The share of the requests (refused ones miss) within each bound alone, NaN where the SLO has
  // no such bound: which bound an unmet SLO fails (`infer plan` says it; 2026-12-07 review).
  double slo_ttft_met_fraction = std::numeric_limits<double>::quiet_NaN(), slo_tpot_met_fraction = std::numeric_limits<double>::quiet_NaN();
  double kv_capacity_tokens = 0, kv_peak_fraction = 0, mean_batch_seqs = 0;
  double prefix_hit_fraction = 0;
  double energy_per_output_token_j = 0, usd_per_million_output_tokens = 0;
};

// Runs the simulation; throws Error when the model does not fit or no progress is possible.
Result simulate_serving(const ServingSpec& spec, const std::vector<Request>& requests, ServingSummary* summary = nullptr);

// The error of a deployment whose memory leaves no room for a KV cache (serve's, and the status
// of such an `infer plan` candidate): names the target's weights, its draft's (when there is one)
// or the activation workspace, with the per-device figures against the usable memory.
Error no_kv_cache_room_error(const ServingSpec& spec);

// Throughput when saturated, in requests per second: n requests of the workload's lengths all
// waiting at time 0, the completions counted between the n/10-th one and the last first token
// (while requests still wait), which leaves out the burst's ramp-up and drain.
double saturation_requests_per_s(const ServingSpec& spec, const WorkloadSpec& workload, int64_t n);
// The same of a given burst (requests waiting at about time 0), e.g. a trace's lengths.
double saturation_requests_per_s(const ServingSpec& spec, const std::vector<Request>& burst);

// The memory of one device of an instance, as serve accounts it: the device's memory times the
// memory share (engine and OS limits), less the target's weights, a speculative draft's weights
// (they share the devices) and the activation workspace of one pass of pass_tokens tokens; what
// is left holds the KV cache, at the target's and the draft's bytes per token (the draft keeps its
// own cache of every token the target holds). `infer estimate` of a study and `infer serve` both
// read it (before 2026-12-05 estimate left the draft out: a 70B target with an 8B draft "fitted"
// one H100 that serve refused; review).
struct KvMemoryBudget {
  double usable_bytes = 0;             // memory x share
  double weight_bytes = 0;             // the target's, per device
  double draft_weight_bytes = 0;       // the draft's, per device (0 without one)
  double workspace_bytes = 0;          // activations of one pass: activation_workspace_bytes
  double kv_bytes_per_token = 0;       // target's + draft's, per device, every layer holding the token
  double draft_kv_bytes_per_token = 0; // the draft's share of it
  // usable - weights - draft weights - workspace, in that order (< 0: no room for a cache).
  double free_bytes() const { return usable_bytes - weight_bytes - draft_weight_bytes - workspace_bytes; }
};
KvMemoryBudget kv_memory_budget(const Deployment& d, const Deployment* draft, double memory_available_fraction, double pass_tokens);

// Activation workspace of one pass of pass_tokens tokens on one device: tokens x hidden x 8 live
// tensors of max(activation bytes, 2): FP8 (W8A8) GEMMs write bf16 outputs and the residual stream
// stays bf16, as the communication model already sized it (before 2026-12-06 fp8 activations
// halved the workspace while comm_s kept 16 bits; review).
double activation_workspace_bytes(const Deployment& d, double pass_tokens);

// KV-cache capacity in tokens of one instance of the deployment (0 when weights do not fit): the
// study's serving.kv_capacity_tokens when given (given_kv_capacity_tokens), else what the engine
// allocates (engine_kv_allocation) for max_batch_seqs sequences in each pipeline batch.
double kv_capacity_tokens(const ServingSpec& spec, const Deployment& d);

// The KV cache an engine allocates for one instance where no capacity is given, in every-layer
// tokens, by its kv_allocation (EngineProfile): a paged engine's pool holds what the memory holds
// (by_memory_tokens); a context_per_sequence engine (llama.cpp) allocates the context window for
// each of `seqs` sequences run at once (llama-server -c window x -np seqs, each slot -c / -np), at
// most what the memory holds. A deployment with no known window takes what the memory holds.
// `infer serve` (kv_capacity_tokens) and `infer estimate` of a study both read it (serve had sized
// llama.cpp's cache as a pool of all the memory and warned of it beyond an M2 Max's recommended
// working set where estimate saw none; 2026-12-06 review).
struct KvAllocation {
  double tokens = 0;              // the cache, per instance
  double per_sequence_tokens = 0; // context_per_sequence: the window each sequence gets (0 otherwise)
  double asked_tokens = 0;        // context_per_sequence: window x seqs, before the memory's cap (0 otherwise)
  bool per_sequence = false;      // sized per sequence (context_per_sequence with a known window)
  bool capped_by_memory = false;  // per_sequence, and window x seqs is more than the memory holds
};
KvAllocation engine_kv_allocation(const Deployment& d, int64_t seqs, double by_memory_tokens);
// The note serve and estimate give of a per-sequence allocation (empty for a paged one).
std::string kv_allocation_note(const Deployment& d, const KvAllocation& a, int64_t seqs, double by_memory_tokens);
// The capacity of a given serving.kv_capacity_tokens (> 0), checked against what the memory holds
// (by_memory_tokens) and one KV block, or by_memory_tokens when none is given (0). `infer serve`
// (kv_capacity_tokens) and `infer estimate` of a study both read it: estimate had sized the cache
// from the memory whatever the study gave, and called a 3,500-token request fitting that serve
// refused at a capacity of 2,000 tokens (2026-12-06 review).
double given_kv_capacity_tokens(double given_tokens, double by_memory_tokens, const Deployment& d);

// What a unit of serve's paged KV pool holds. Without a sliding window a unit is a block of every
// layer (and the draft's cache). With one, a unit is one layer's block: a sequence holds
// `full_units` of them per block of its context (the layers keeping every token, the draft's cache
// as whole layers rounded up) and `window_units` per block its window spans (vLLM's hybrid KV cache
// manager frees a windowed layer's blocks once the window has passed them).
struct KvUnits {
  int32_t full_units = 1, window_units = 0, window = 0;
  int32_t per_block() const { return full_units + window_units; }  // units of a block every layer holds
  // Units for `tokens` of context of which `shared` sit in a cached prefix (its full layers'
  // blocks; windowed layers keep their own), the last `new_tokens` written by the pass in flight.
  // Not monotone in `tokens` under a window: the blocks a window spans alternate between two
  // counts as its edge crosses block boundaries.
  int64_t units(int64_t tokens, int64_t shared, int64_t new_tokens, int64_t block) const {
    const int64_t priv = std::max<int64_t>(0, tokens - shared);
    int64_t n = full_units * ((priv + block - 1) / block);
    if (window_units > 0 && tokens > 0) {
      const int64_t held = std::min<int64_t>(tokens, window - 1 + std::max<int64_t>(1, new_tokens));
      n += window_units * ((tokens - 1) / block - (tokens - held) / block + 1);
    }
    return n;
  }
};

// Serve's paged KV cache of one scheduler slot, from an instance's capacity in every-layer tokens
// (kv_capacity_tokens): whole blocks of the engine's kv_block_tokens, counted in KvUnits, split
// evenly between `slots` scheduler slots (pipeline batches). `infer serve` refuses a request at
// arrival, and `infer estimate` calls a context too long, by the same units (estimate had counted
// bytes continuously before 2026-12-06, and called GPT-OSS-120B requests of 101,042 tokens fitting
// that serve refused; review).
struct KvCacheLayout {
  int block_tokens = 16;
  KvUnits units;
  int64_t blocks = 0;       // every-layer blocks of an instance
  int64_t pool_units = 0;   // units of one slot
  int64_t slot_blocks = 0;  // every-layer blocks of one slot
  double unit_bytes_per_device = 0;  // bytes of KV one unit stands for on one device (the draft's share included)
  // Units a request of `prompt` + `output` tokens holds alone at its last token: prompt + output - 1
  // tokens of KV (the last token's is never written, no pass consuming it).
  int64_t last_token_units(int64_t prompt, int64_t output) const;
  // Units it holds at the end of its largest pass: its prompt's (whole, or a chunk of at most
  // largest.new_tokens) or the policy's largest (BatchingPolicy::largest_pass, a recompute). Beyond
  // last_token_units only with a sliding window, where a pass holds the window plus its new tokens.
  int64_t pass_units(int64_t prompt, const BatchingPolicy::Pass& largest) const;
  // The longest KV context one slot holds for a single sequence (whole blocks; with a window, at
  // the most blocks the window can span).
  int64_t longest_fit_tokens() const;
};
KvCacheLayout kv_cache_layout(const CostModel& cm, const CostModel* draft, double capacity_tokens, int slots);

// Scheduler slots (pipeline batches in flight) of one replica: serving.pipeline_batches when
// given (> 0), else pp, under pipeline parallelism; 1 at pp 1. Each slot holds 1/slots of the
// replica's KV cache (kv_cache_layout). `infer serve`, `infer estimate` and `infer plan` read it
// (estimate had laid the cache out as one slot: it called a 110,000-token request fitting a pp 2
// replica whose pipeline batches hold 96,832 tokens each, which serve refused; 2026-12-06 review).
int pipeline_slots(int pp, int pipeline_batches);

// A speculative draft model's own prefill pass beside a target's pass: the pass's prompt chunks,
// without logits (serve's Instance::start and estimate's prefill build it alike).
Batch draft_prefill_batch(const Batch& target);

// The prefill passes serve runs for `seqs` prompts of `prompt` tokens that arrive together at an
// idle instance with a cold cache, in passes of at most max_batch_tokens new tokens. Chunked
// (ChunkedPrefill::schedule): each pass takes the next max_batch_tokens prompt tokens in arrival
// order, a chunk attending to the keys its sequence already holds (CostModel::add_prefill_chunk);
// otherwise (Continuous, StaticBatching) whole prompts, as many as max_batch_tokens holds and at
// least one. Left out: max_batch_seqs, and the decodes of prompts already prefilled that chunked
// prefill runs in the same passes (none with one prompt). Calls f(pass, count) for `count`
// identical passes, in order; beyond 65,536 passes, 65,536 evenly spaced ones stand for the rest
// (count: the passes each stands for). Returns the number of passes.
int64_t for_each_prefill_pass(const CostModel& cm, int64_t seqs, int64_t prompt, int64_t max_batch_tokens, bool chunked,
                              const std::function<void(const Batch&, double)>& f);

}  // namespace sextant::infer
