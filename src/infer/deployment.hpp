#pragma once
// Building a Deployment from names: model (catalog id, YAML or config.json), accelerator,
// engine, system (optional), parallelism and formats.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "infer/cost_model.hpp"

namespace sextant::infer {

// Largest device memory accepted, GiB (an exbibyte): a larger size is a typo, and 1e308 GiB had
// overflowed to an infinite byte count.
inline constexpr double kMaxMemoryGib = 1e9;

struct DeploymentSpec {
  std::string model, accelerator, engine = "generic", system;  // system optional
  int tp = 1, pp = 1, ep = 1;
  int kv_share_layers = 1;  // cross-layer KV sharing (see Deployment)
  double expert_load_factor = 0;  // MoE under EP, busiest rank over mean (see Deployment); 0: default
  // weight_format "": the checkpoint's own format when its config.json's quantization_config
  // names one Sextant knows (ModelConfig::checkpoint_weight_format), else bf16.
  // activation_format "": bf16, or fp8 for an FP8 checkpoint on an accelerator with FP8 tensor
  // cores (W8A8, as vLLM and SGLang run DeepSeek-V3's block FP8), or the weights' format where the
  // engine quantises activations into it on the fly and the accelerator has its peak (the engine's
  // dynamic_activation_formats: vLLM's fp8), 16-bit where it has none.
  std::string weight_format, activation_format;
  std::string kv_format;  // "": the activation format when 16-bit, else bf16 (vLLM's kv_cache_dtype auto)
  // Device memory in GiB (2^30 bytes: the "GB" of Apple's and GPU vendors' memory sizes) when it
  // differs from the catalog entry's (an Apple SoC ships with several sizes; the catalog lists
  // one); 0: the catalog's.
  double memory_gib = 0;
  // The hint of the error make_deployment raises for an accelerator whose entry states no memory
  // size: how this caller takes a size (a study's deployment.memory_gib, estimate's --memory-gib, a
  // plan candidate's entry). Empty: "give the device's memory with OPTION N" where given_at names
  // memory_gib's option or argument (estimate's --memory-gib, Python's memory_gib=), then "write the
  // entry's memory_gib". The hint had named --memory-gib for serve, plan and validate, which take no
  // such option, and deployment.memory_gib for a plan's other accelerators, which it does not size
  // (2026-12-07 review).
  std::string memory_gib_hint;
  // vLLM's gpu_memory_utilization: the share of device memory the engine may use (weights,
  // activations, KV cache), in (0, 1]; 0: the engine profile's (data/infer/engines.yaml). The
  // device's OS reserve (data/infer/devices.yaml) still caps it.
  double memory_utilization_fraction = 0;
  // vLLM's max_model_len: the longest context (prompt + output) served; 0: the model's window
  // (max_position_embeddings). Longer than the model's window is an error, as in vLLM.
  int64_t max_model_len = 0;
  // Where each field was given, by field name (tp, weight_format, ...): a study file's key with its
  // line, or the command-line option (--tp, --weights). Errors about a field name it there; a field
  // not listed is named by make_deployment's `where` and the field name.
  std::map<std::string, SourceLocation> given_at;
  // A study's own hardware (review of 2026-12-06: a hypothetical accelerator could only run on one
  // device, as no study could name the link between its devices): the catalog with the study's
  // hardware: entries and its inline or file systems added (load_study), which make_deployment
  // resolves names in instead of the catalog it is given; null: none. Shared by the copies of the
  // spec a plan makes.
  std::shared_ptr<const Catalog> hardware;
  // Ids of the systems the study gives (deployment.system inline or as a file, hardware.systems),
  // in that order: with no system named, the first of them holding the accelerator is the
  // replica's system (its link and node price), before any catalog system.
  std::vector<std::string> study_systems;
};

// A system as a study or a command line gives it beside a catalog id (load_system_ref): the entry,
// and where its accelerator and node power are written (for the checks its accelerator allows).
struct SystemEntry {
  System system;
  SourceLocation accelerator_at, node_power_at;
};

// A system named by catalog id (accelerator_at and node_power_at are then `where`), or by the path
// of a system catalog file (its one entry, or FILE#ID for one of several; a file of one mapping
// too), read beside the study that names it, then from the working directory, as an accelerator
// file is (load_accelerator_ref). A file's entry needs an id cat does not have; its networks are
// checked as the catalog's are (check_study_system_networks); its accelerator is the caller's to
// check. Errors name the file, line and key; an unknown name lists the catalog's systems.
SystemEntry load_system_ref(const Catalog& cat, const std::string& ref, const SourceLocation& where);

// The checks Catalog::load makes of a catalog system's networks, for one a study gives: each known
// in cat (unknown: valid choices listed), the scale-up one of kind scale_up or pcie and the
// scale-out one of kind scale_out, with bandwidths (check_system_networks). at(key) locates the
// entry's key (scale_up.network).
void check_study_system_networks(const Catalog& cat, const System& s, const std::function<SourceLocation(const std::string&)>& at);

// The scale-up link of a replica: the named system's, else that of the first catalog system
// (by id) holding the accelerator, else the device profile's link; zero when none is known.
// notes (when given) receives a note where a devices.yaml link is set aside for a catalog system's.
Link resolve_link(const Catalog& cat, const InferData& data, const Accelerator& a, const std::string& system,
                  std::vector<std::string>* notes = nullptr);

// The price of a device-hour of accelerator a (DevicePrice): the named system's catalog node price
// over its devices per node, rented in whole nodes (as `sweep` rents them), when the catalog has one
// (a node price of 0 is an Error: no price to cost tokens at); else the device profile's
// usd_per_hour (data/infer/devices.yaml), per device. Without a
// named system the device profile's stays: the system whose link a replica runs on by default is
// a guess, not a rental.
DevicePrice resolve_price(const Catalog& cat, const InferData& data, const Accelerator& a, const std::string& system);

// "the max_model_len of N tokens" when it shortens the model's window, else "MODEL's context
// window of N tokens", for messages about requests beyond it.
std::string context_window_text(const Deployment& d);

// Notes on the weight format: taken from the checkpoint's quantization_config, or a
// quantization_config that names a scheme Sextant does not map (costed as given or bf16), or a
// given format other than the checkpoint's.
std::vector<std::string> weight_format_notes(const Deployment& d);

Deployment make_deployment(const Catalog& cat, const InferData& data, const DeploymentSpec& s,
                           const SourceLocation& where = {});

}  // namespace sextant::infer
