#pragma once
// The YAML description of an inference study (data/examples/infer-*.yaml, docs/inference.md):
//   deployment: model, accelerator | system (catalog id, system file or inline mapping), engine,
//               tp, pp, ep, expert_load_factor, weight/activation/kv formats
//   hardware:   accelerators, networks (as a training scenario's inline hardware), systems
//               (the study's own; DeploymentSpec::hardware)
//   serving:    policy, replicas, pipeline_batches, max_batch_seqs, max_batch_tokens, prefix_caching,
//               request_table,
//               speculative {draft_model, draft_tokens, acceptance}, disaggregation {...}
//   workload:   arrival, rate_per_s | load_fraction, cv, trace_file, requests, prompt, output,
//               prefix {share_fraction, tokens, groups}, seed
//   slo:        ttft_s, tpot_s
//   sweep:      load_fractions | rates_per_s: `infer serve` also runs the workload at each offered
//               rate and adds the table load_sweep (throughput and latency against load)
//   power / cost overrides; plan: the search space of `sextant infer plan`
// Unknown keys are errors naming file, line and the valid keys.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/result.hpp"
#include "infer/deployment.hpp"
#include "infer/serving.hpp"

namespace sextant::infer {

struct PlanSpace {
  std::vector<std::string> accelerators;  // empty (key left out): the deployment's; an empty list written is refused
  std::vector<int> tp = {1, 2, 4, 8};
  std::vector<int> max_batch_seqs = {64, 256};
  std::vector<std::string> policies;       // empty (key left out): the serving policy; likewise
  int max_devices = 64;
  double slo_attainment_fraction = 0.9;    // required share of requests meeting the SLO
  int64_t requests = 2000;                 // simulated per candidate
};

struct StudySpec {
  DeploymentSpec deployment;
  ServingSpec serving;             // deployment filled from `deployment`
  WorkloadSpec workload;
  double load_fraction = 0;        // > 0: rate = load_fraction x saturation throughput
  std::string draft_model;         // speculative decoding draft (same accelerator/engine/formats)
  SourceLocation draft_model_at;   // where the file names it (its errors point there)
  SourceLocation deployment_at;    // the deployment key's line (errors about the deployment as a whole)
  PlanSpace plan;
  std::vector<double> sweep_load_fractions, sweep_rates_per_s;  // request-rate sweep (one of them)
  bool request_table_given = false;  // serving.request_table was in the file (else the caller decides)
  std::string file;
};

// A caller's changes to the study's deployment (estimate's --tp, --memory-gib, ...): applied once
// the file's deployment: section is read, before the deployment is built, and setting given_at
// for what they change. Estimate had applied its options after load_study had built the file's
// deployment, so `infer estimate STUDY --memory-gib 64` of an accelerator without a memory size was
// refused by the error that asks for --memory-gib (2026-12-07 review).
using DeploymentOverride = std::function<void(DeploymentSpec&)>;

StudySpec load_study(const std::string& path, const Catalog& cat, const InferData& data);
// Applies `key=value` overrides (dotted keys as in the file, e.g. deployment.tp=2) then loads;
// `override_deployment` (when set) then changes the deployment read (DeploymentOverride).
StudySpec load_study(const std::string& path, const Catalog& cat, const InferData& data,
                     const std::vector<std::pair<std::string, std::string>>& sets, const DeploymentOverride& override_deployment = {});
// The same from the study's text; `name` is used in messages, and relative files it names are
// read beside it when it is a file, else from the working directory.
StudySpec parse_study(const std::string& text, const std::string& name, const Catalog& cat, const InferData& data,
                      const std::vector<std::pair<std::string, std::string>>& sets,
                      const DeploymentOverride& override_deployment = {});

// Fills deployment-dependent serving fields: memory share, power, price, draft deployment.
void resolve_serving(StudySpec& s, const Catalog& cat, const InferData& data);

// `sextant infer serve`: runs the serving simulation of the study.
Result run_serve(StudySpec s, const Catalog& cat, const InferData& data);

// `sextant infer estimate`: single-stream and batched costs of one deployment: memory fit (with
// the device's OS reserve), prefill and decode speeds at the given prompt/output lengths and
// batch, the breakdown of a decode step, energy per token and cost per million tokens.
// The mean prompt and output lengths in tokens, rounded, over the requests the workload generates
// (a trace's own requests, or the synthetic ones drawn with its seed): `infer estimate FILE`'s
// lengths.
std::pair<int64_t, int64_t> mean_request_lengths(const WorkloadSpec& w);

// serving_pass_tokens > 0: a study's serving.max_batch_tokens, for which the activation workspace
// is reserved whole (as `infer serve` does); 0: one pass of the run's prefill, at most 8,192 tokens.
// usd_per_device_hour > 0: the price to cost tokens at (a study's cost.usd_per_device_hour, or
// the device's as the study resolved it); < 0: the device's from the infer data; 0: an Error (a
// price of 0 would be no price, as everywhere in infer).
// draft (not null): a speculative draft model on the same devices (a study's
// serving.speculative), accounted as serve accounts it: its weights and its cache in the memory
// fit (kv_memory_budget), its prefill pass in the prefill time, and a decode step of k draft passes
// and one target pass verifying k + 1 tokens per sequence, which emits (1 - a^(k+1)) / (1 - a)
// tokens per sequence in expectation (serve's draws until the first rejection).
// serving_policy: a study's serving.policy, whose largest pass (BatchingPolicy::largest_pass) the
// memory fit holds as serve's arrival check does, and whose passes the prefill is priced in
// (for_each_prefill_pass: chunks of serving_pass_tokens under chunked prefill, else whole
// prompts); empty: chunked-prefill, in passes of serving_pass_tokens (8,192 when 0).
// pipeline_batches: a study's serving.pipeline_batches; 0: serve's default (pp). Under pp > 1 the
// KV cache is split between that many scheduler slots as serve splits it (pipeline_slots,
// kv_cache_layout): fits_memory and max_context_tokens are one slot's, and cost and energy per
// token are charged per pipeline period with that many batches in flight.
// kv_capacity_tokens > 0: a study's serving.kv_capacity_tokens, the KV cache of an instance in
// tokens, checked and laid out as serve lays it out (given_kv_capacity_tokens, kv_cache_layout):
// fits_memory and max_context_tokens are then that cache's; 0: what the memory holds.
// serving_max_batch_seqs > 0: a study's serving.max_batch_seqs; an engine that allocates its cache
// per sequence (engine_kv_allocation: llama.cpp) then allocates serve's cache, the context window
// for each of that many sequences per pipeline batch, and fits_memory, max_context_tokens and the
// recommended working set are that cache's. 0 (no study): the run's own batch x (prompt + output),
// as llama-bench sizes its context.
// disaggregation (a study's serving.disaggregation): the prefill on a prefill instance and the
// decode on a decode instance, the batch's KV (the draft's with it) sent between them over the
// study's link after the prefill, one sequence after another (kv_transfer_s, in
// request_latency_s); cost and idle energy bill both pools, every instance, for the request's
// time, as serve bills a request served alone (review of 2026-12-06: it was costed colocated).
// max_context_tokens_by_memory is the longest context with this prompt; when the prompt itself
// does not fit (with one output token), the longest request that fits, its prompt shorter (without
// a study beside its own pass's workspace, batch x its prompt up to 8,192 tokens), with a note.
Result run_estimate(const DeploymentSpec& d, const Catalog& cat, const InferData& data, int64_t prompt_tokens,
                    int64_t output_tokens, int64_t batch, int64_t serving_pass_tokens = 0, double usd_per_device_hour = -1,
                    const Deployment* draft = nullptr, const SpeculativeSpec& speculative = {},
                    const std::string& serving_policy = "", int pipeline_batches = 0, double kv_capacity_tokens = 0,
                    int64_t serving_max_batch_seqs = 0, const DisaggregationSpec* disaggregation = nullptr);

// `sextant infer estimate FILE`: run_estimate of a study's deployment (as given, overrides
// applied), at its workload's mean prompt and output lengths (prompt_tokens / output_tokens, when
// given, replace them), its serving.max_batch_tokens, serving.kv_capacity_tokens and its speculative
// draft model (built as serve builds it, from the deployment as overridden); a note says where the
// lengths came from (study_name: the file, in it). A batch beyond the study's
// serving.max_batch_seqs is refused: serve never runs that many sequences in one pass; so is one
// beyond the prompts a static batch holds (serving.policy static: one prefill pass of
// max_batch_tokens). A disaggregated study (serving.disaggregation) is estimated as deployed: the
// KV transfer in the request's latency, both pools billed (run_estimate's disaggregation).
Result run_study_estimate(const StudySpec& s, const std::string& study_name, const Catalog& cat, const InferData& data,
                          std::optional<int64_t> prompt_tokens, std::optional<int64_t> output_tokens, int64_t batch);

// `sextant infer plan`: the cheapest deployment (accelerator, TP, replicas, batch limit, policy)
// whose simulated SLO attainment at the workload's rate reaches plan.slo_attainment_fraction.
// Each candidate's expert parallelism is the largest degree valid at its tp up to the study's ep
// (valid_expert_parallel; the candidates table's ep column).
Result run_plan(StudySpec s, const Catalog& cat, const InferData& data);

}  // namespace sextant::infer
