#pragma once
// Building a Deployment from names: model (catalog id, YAML or config.json), accelerator,
// engine, system (optional), parallelism and formats.
#include <string>

#include "infer/cost_model.hpp"

namespace sextant::infer {

struct DeploymentSpec {
  std::string model, accelerator, engine = "generic", system;  // system optional
  int tp = 1, pp = 1, ep = 1;
  int kv_share_layers = 1;  // cross-layer KV sharing (see Deployment)
  double expert_load_factor = 0;  // MoE under EP, busiest rank over mean (see Deployment); 0: default
  std::string weight_format = "bf16", activation_format = "bf16";
  std::string kv_format;  // "": the activation format when 16-bit, else bf16 (vLLM's kv_cache_dtype auto)
  // Device memory in GiB (2^30 bytes: the "GB" of Apple's and GPU vendors' memory sizes) when it
  // differs from the catalog entry's (an Apple SoC ships with several sizes; the catalog lists
  // one); 0: the catalog's.
  double memory_gib = 0;
};

// The scale-up link of a replica: the named system's, else that of the first catalog system
// (by id) holding the accelerator, else the device profile's link; zero when none is known.
Link resolve_link(const Catalog& cat, const InferData& data, const Accelerator& a, const std::string& system);

Deployment make_deployment(const Catalog& cat, const InferData& data, const DeploymentSpec& s,
                           const SourceLocation& where = {});

}  // namespace sextant::infer
