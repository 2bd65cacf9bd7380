#pragma once
// Inference-only properties of serving engines and devices, read from data/infer/engines.yaml
// and data/infer/devices.yaml. Every number carries its provenance (source or estimated basis);
// constants fitted to the validation set say so and name the rows (see docs/inference.md).
//
// Engine: how close an inference engine's kernels come to the device's peaks, and its fixed
// costs per forward pass (kernel launches, synchronisation, sampling) and per sequence.
// Device profile: what the operating system leaves to a model on a device (unified-memory
// SoCs reserve part of RAM), idle power, electricity price and amortisation for $/Mtok.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"

namespace sextant::infer {

struct EngineProfile {
  std::string id, name, description;
  // Fitted or estimated constants (the `fit` set of the validation may replace them):
  Sourced bandwidth_fraction;        // achieved / peak memory bandwidth when streaming weights and KV
  Sourced gemm_fraction;             // achieved / peak FLOP rate of its matrix multiplies (compute dtype)
  Sourced dequant_fraction;          // GEMM rate multiplier when weights are block-quantised (dequantised on the fly)
  Sourced overlap_fraction;          // 1: memory and compute overlap fully (roofline max); 0: they add
  Sourced iteration_overhead_s;      // fixed cost of one forward pass (launch, sync, sampling)
  // The layer count iteration_overhead_s was fitted on, when the engine's fixed cost is per layer
  // (ggml dispatches a fixed number of kernels per layer): a model of L layers pays
  // iteration_overhead_s x L / overhead_reference_layers. Unknown: the cost is per pass whatever
  // the layers (vLLM's host scheduling with CUDA graphs). Before 2026-12-06 llama.cpp's 5.1 ms,
  // fitted on 32-layer Llama-2-7B, capped a 12-layer GPT-3 125M at 190 tokens/s on an M3 Ultra,
  // where its 80 MB of weights stream in 0.1 ms (review).
  Sourced overhead_reference_layers;
  Sourced sequence_overhead_s;       // per sequence in the batch per forward pass
  // Serving properties:
  Sourced memory_utilization_fraction;  // share of the device memory the engine may use
  int kv_block_tokens = 16;            // paged KV-cache block size
  // How it allocates its KV cache where serving.kv_capacity_tokens gives none (kv_allocation:
  // {value: ..., source: ID | estimated: "basis"}): "paged" (the default) a pool of every block its
  // memory share leaves beside the weights and the workspace (vLLM's gpu_memory_utilization, SGLang's
  // mem_fraction_static); "context_per_sequence" the context window for each sequence it runs at
  // once (llama-server's -c window x -np slots, each slot -c / -np), at most what the memory
  // holds. Before 2026-12-06 (review) llama.cpp's cache was sized as a pool of the whole memory:
  // serve warned of 169,525 tokens beyond an M2 Max's recommended working set where llama-server
  // allocates 16,384 and estimate saw no problem.
  std::string kv_allocation = "paged";
  std::string kv_allocation_source;  // its provenance ("source-id: text" or "estimated: basis"); empty for the default
  // Accelerator kinds (gpu, soc, ...) its fitted constants were measured on; empty: not fitted
  // on any. An estimate on another kind says the constants are carried over.
  std::vector<std::string> measured_on_kinds;
  // The vendors (the catalog accelerators' `vendor`) of the devices they were measured on; empty:
  // any. An estimate on another vendor's device of the same kind says so too: a Snapdragon SoC had
  // taken llama.cpp's Apple Metal constants without a word (2026-12-06 review).
  std::vector<std::string> measured_on_vendors;
  // The dtypes its matrix kernels multiply in (matmul_dtypes: {value: [...], source: ...}); empty:
  // any the device has a peak for. A format narrower than all of them is widened to the narrowest
  // (llama.cpp's Metal kernels multiply in f16/f32: an Apple SoC's int8 peak is its Neural Engine's,
  // which they never use).
  std::vector<DType> matmul_dtypes;
  std::string matmul_dtypes_source;
  // The weight and KV-cache formats it can run (weight_formats / kv_formats: {value: [...],
  // source: ...}), and the accelerator kinds it runs on (runs_on_kinds); empty: any. A deployment
  // outside them is an error naming the valid ones (llama.cpp had been costed in NVFP4 and an fp8
  // cache, vLLM on an Apple GPU it does not run on; 2026-12-04 review).
  std::vector<std::string> weight_formats, kv_formats, runs_on_kinds;
  // The weight formats it runs with activations quantised on the fly into the same format where
  // the accelerator has a peak for it and its kernels multiply in it (dynamic_activation_formats:
  // {value: [...], source: ...}): where no activation format is given, fp8 weights on vLLM run
  // W8A8 on an H100 and W8A16 (16-bit math, the FP8 Marlin kernel) on an A100. Empty: none, the
  // activations are 16-bit unless given (or an FP8 checkpoint's). Before 2026-12-07 `--weights
  // fp8` on vLLM was costed in bf16 on an H100, slower than bf16 weights (review).
  std::vector<std::string> dynamic_activation_formats;
  std::string dynamic_activation_source;
  // kv_formats_source: the KV list's own (an engine listing both had cited its weight list's
  // source for a refused cache; 2026-12-06 review).
  std::string formats_source, kv_formats_source, runs_on_source;
  std::map<std::string, std::string> sources;
  std::string file;
};

struct DeviceProfile {
  std::string match;                   // accelerator id, or "kind:<kind>" for a default
  SourceLocation match_loc;
  Sourced memory_available_fraction;   // share of device memory an application may use (OS reserve)
  // Advisory share beyond which the platform warns but allocates (Metal's
  // recommendedMaxWorkingSetSize): a run above it still fits, with a note; unknown: none.
  Sourced memory_recommended_fraction;
  // The entry's memory_available_fraction and memory_recommended_fraction hold only for a device with more memory than this
  // (Metal recommends 3/4 from 36 GB, 2/3 up to 32 GB): a smaller configuration of the same chip
  // (--memory-gib) takes the next entry of the lookup, the same match's for a smaller size or
  // any size first. One match may have an entry per size. 0: any size.
  double above_memory_bytes = 0;
  Sourced idle_power_fraction;         // idle / TDP power when the catalog has no idle_w
  Sourced usd_per_hour;                // device cost per hour (amortised + hosting) for $/Mtok
  // Scale-up link used when no catalog system holds this accelerator (per device, one direction,
  // achievable) and its per-step latency.
  Sourced link_bandwidth_bytes_per_s, link_latency_s;
  std::string file;
};

class InferData {
 public:
  // Loads <dir>/engines.yaml and <dir>/devices.yaml (data_dir()/infer by default).
  static std::shared_ptr<const InferData> load(const std::string& dir);
  static std::shared_ptr<const InferData> load_default();

  const EngineProfile& engine(const std::string& id) const;  // throws with valid choices
  bool has_engine(const std::string& id) const { return engines_.count(id) > 0; }
  std::vector<std::string> engine_ids() const;
  // The profile of accelerator a, field by field: its own entry, its platform's ("platform:ios"),
  // its vendor's of its kind, its kind's, "kind:any".
  DeviceProfile device(const Accelerator& a) const;
  // Notes for accelerator a, which has no entry of its own: the entries whose id names no
  // accelerator of accelerator_ids but is close to a's (a misspelt id, which never applies).
  std::vector<std::string> match_notes(const Accelerator& a, const std::vector<std::string>& accelerator_ids) const;

  void add(EngineProfile e) { engines_[e.id] = std::move(e); }

 private:
  std::map<std::string, EngineProfile> engines_;
  // By match; a match's entries (one per above_memory_bytes) largest size first.
  std::map<std::string, std::vector<DeviceProfile>> devices_;
};

// Value of a Sourced number, or dflt when unknown.
inline double value_or(const Sourced& s, double dflt) { return s.known ? s.value : dflt; }

}  // namespace sextant::infer
