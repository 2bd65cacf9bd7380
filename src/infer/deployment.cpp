#include "infer/deployment.hpp"

#include <cctype>
#include <cmath>
#include <filesystem>

#include "catalog/reference_file.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/result.hpp"

namespace sextant::infer {

namespace fs = std::filesystem;

namespace {
// Whether deployment d can multiply in t: the device's peak and the engine's kernels (llama.cpp
// multiplies in fp16 on an H100 whatever fp8 peak it has). make_deployment's choice of activation
// format and weight_format_notes' hints read the same test (2026-12-07 review).
bool multiplies_in(const Deployment& d, DType t) {
  const auto& m = d.engine.matmul_dtypes;
  return d.accel.has_peak(t) && (m.empty() || std::find(m.begin(), m.end(), t) != m.end());
}

// The system whose link a replica runs on: the named one, else the first catalog system (by id)
// holding the accelerator; null when none does (resolve_link and make_deployment's node check
// read the same one; make_deployment names a study's own system holding it first).
const System* replica_system(const Catalog& cat, const Accelerator& a, const std::string& system) {
  if (!system.empty()) return &cat.system(system);
  for (const auto& id : cat.system_ids())
    if (cat.system(id).accelerator == a.id) return &cat.system(id);
  return nullptr;
}

// A data file as the notes name it: one in Sextant's data folder relative to it ("data/infer/devices.yaml",
// the same on every install), another as given (a user's --infer-data folder). price_source had
// held the absolute path of the install (/work/main/data/infer/devices.yaml), so the JSON and CSV
// of the same run differed per machine (2026-12-06 review).
std::string shown_data_file(const std::string& file) {
  try {
    std::error_code ec;
    const std::filesystem::path rel = std::filesystem::relative(std::filesystem::path(file), std::filesystem::path(data_dir()), ec);
    if (ec || rel.empty() || rel.native().rfind("..", 0) == 0) return file;
    return "data/" + rel.generic_string();
  } catch (const Error&) {  // no data folder found: the file is the user's
    return file;
  }
}
}  // namespace

void check_study_system_networks(const Catalog& cat, const System& s, const std::function<SourceLocation(const std::string&)>& at) {
  for (const auto& [key, id] : {std::pair<std::string, std::string>{"scale_up.network", s.scale_up_network}, {"scale_out.network", s.scale_out_network}})
    if (!id.empty() && !cat.has_network(id))
      throw Error(at(key), "system '" + s.id + "' refers to unknown network '" + id + "'",
                  valid_choices_hint(id, cat.network_ids()) + "; or describe the network under the study's hardware.networks");
  const NetworkTech& up = cat.network(s.scale_up_network);
  check_system_networks(s, up, nullptr, at("scale_up.network"));
  if (!s.scale_out_network.empty()) check_system_networks(s, up, &cat.network(s.scale_out_network), at("scale_out.network"));
}

// A system file is read as load_accelerator_ref reads an accelerator file: beside the study that
// names it (its `where`, "FILE (--set)" for an override), then from the working directory
// (2026-12-06 review: `deployment.system=sys.yaml` was an "unknown system").
SystemEntry load_system_ref(const Catalog& cat, const std::string& ref, const SourceLocation& where) {
  if (cat.has_system(ref)) return SystemEntry{cat.system(ref), where, where};
  std::error_code ec;
  const ReferenceFile named = resolve_reference_file(ref, where);
  const std::string& file = named.file;
  const std::string& want = named.entry_id;
  const fs::path p = named.path;
  const std::string ext = p.extension().string();
  const std::string forms = "a catalog system id (sextant catalog list systems), a system file (FILE or FILE#ID), or, in a study, "
                            "an inline mapping of system fields";
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    throw Error(where, "'" + file + "' is not a regular file (a folder, a device or a pipe)", "name " + forms);
  if (!fs::is_regular_file(p, ec) && (file.find('/') != std::string::npos || ext == ".yaml" || ext == ".yml"))
    throw Error(where, "system file '" + file + "' not found", "check the path, or name " + forms);
  if (!fs::is_regular_file(p, ec) || (ext != ".yaml" && ext != ".yml"))
    throw Error(where, "unknown system '" + ref + "' (not a catalog id, nor a system catalog file)",
                valid_choices_hint(ref, cat.system_ids()) + "; or give " + forms);
  const YamlMap m = YamlMap::load_file(p.string());
  // One entry: the file's mapping itself, or its entries: list (with its sources: citations).
  std::vector<YamlMap> entries;
  std::map<std::string, std::string> sources;
  if (!m.has("entries")) {
    entries.push_back(m);
  } else {
    if (auto src = m.opt_map("sources")) {
      for (const auto& k : src->keys()) sources[k] = src->str(k);
      src->finish();
    }
    entries = m.map_list("entries");
  }
  std::vector<std::pair<System, const YamlMap*>> all;
  for (const auto& e : entries) all.emplace_back(parse_system(e, sources), &e);
  if (m.has("entries")) m.finish();
  std::string ids;
  const std::pair<System, const YamlMap*>* chosen = nullptr;
  for (const auto& x : all) {
    if (!want.empty() && x.first.id == want) chosen = &x;
    ids += (ids.empty() ? "" : ", ") + x.first.id;
  }
  if (want.empty() && all.size() == 1) chosen = &all.front();
  if (!chosen)
    throw Error(where, want.empty() ? "'" + file + "' holds " + std::to_string(all.size()) + " systems"
                                    : "'" + file + "' holds no system '" + want + "'",
                "name one as " + file + "#ID: " + (ids.empty() ? std::string("(none)") : ids));
  const System& sys = chosen->first;
  const YamlMap& e = *chosen->second;
  auto at = [&](const std::string& key) {
    SourceLocation w = e.locate(key);
    w.key = sys.id + "." + key;
    return w;
  };
  // Its figures would run under the catalog system's name (as an inline one would; scenario.cpp).
  if (cat.has_system(sys.id))
    throw Error(at("id"), "system '" + sys.id + "' is already defined (" + shown_data_file(cat.system(sys.id).file) +
                              "); a system file's entry needs an id of its own",
                "name it, e.g., '" + sys.id + "-custom', or name that system by its id");
  check_study_system_networks(cat, sys, at);
  return SystemEntry{sys, at("accelerator"), at("node_power_w")};
}

Link resolve_link(const Catalog& cat, const InferData& data, const Accelerator& a, const std::string& system,
                  std::vector<std::string>* notes) {
  const DeviceProfile p = data.device(a);
  // A devices.yaml link is for accelerators no catalog system holds: where one does, its link is
  // used and the entry's is said to be set aside (it had been ignored without a word; review of
  // 2026-12-05).
  auto set_aside = [&](const std::string& sys) {
    if (notes && (p.link_bandwidth_bytes_per_s.known || p.link_latency_s.known))
      notes->push_back("the devices.yaml link of " + a.id + " is not used: system " + sys +
                       "'s scale-up network is (devices.yaml links apply to accelerators no catalog system holds)");
  };
  if (const System* sys = replica_system(cat, a, system)) {
    set_aside(sys->id);
    return scale_up_link(cat, *sys);
  }
  Link l;
  l.bandwidth_bytes_per_s = value_or(p.link_bandwidth_bytes_per_s, 0.0);
  l.latency_s = value_or(p.link_latency_s, 0.0);
  return l;
}

DevicePrice resolve_price(const Catalog& cat, const InferData& data, const Accelerator& a, const std::string& system) {
  DevicePrice out;
  // A citation as sweep's price_source gives it: the source, or the basis of an estimate.
  auto cite = [](const Sourced& v) { return !v.source.empty() ? v.source : !v.estimated.empty() ? "estimated: " + v.estimated : std::string("no source"); };
  std::string unpriced_system;
  if (!system.empty() && cat.has_system(system)) {
    const System& sys = cat.system(system);
    const Sourced& node = sys.node_price_usd_per_hour;
    // A node price of 0 is no price to cost tokens at, as a study's cost.usd_per_device_hour of 0
    // is refused. Before 2026-12-06 it fell through to devices.yaml's estimate, said as "no node
    // price in the catalog" (review).
    if (node.known && node.value == 0)
      throw Error(SourceLocation{sys.file, 0, 0, sys.id + ".node_price_usd_per_hour"},
                  "system '" + sys.id + "' has a node price of 0 USD/h: infer needs a price > 0 to cost tokens at",
                  "a price > 0, or node_price_usd_per_hour: unknown for a price not known (devices.yaml's usd_per_hour is "
                  "then used, or the study's cost.usd_per_device_hour)");
    // A study's own system (inline, a system file, hardware.systems) is named as the study's, not
    // the catalog's (review of 2026-12-06).
    const bool in_catalog = !cat.dir().empty() && sys.file.rfind(cat.dir(), 0) == 0;
    const std::string named = in_catalog ? "catalog " + sys.id : "system " + sys.id + " (" + shown_data_file(sys.file) + ")";
    if (node.known && node.value > 0 && sys.gpus_per_node > 0) {
      // make_deployment refuses a system of another accelerator: the node price is for these devices.
      const double per_device = node.value / sys.gpus_per_node;
      out.usd_per_device_hour = Sourced{per_device, named + " node price " + format_double(node.value) + " USD/h / " +
                                                        std::to_string(sys.gpus_per_node) + " devices per node (" + cite(node) + ")",
                                        "", true};
      out.node_devices = sys.gpus_per_node;
      out.source = named + " node price " + format_double(node.value) + " USD/h, " + format_double(per_device) +
                   " USD per device-hour, whole nodes of " + std::to_string(sys.gpus_per_node) + " (" + cite(node) + ")";
      return out;
    }
    unpriced_system = in_catalog ? "system " + sys.id + " has no node price in the catalog: " : named + " has no node price: ";
  }
  const DeviceProfile p = data.device(a);
  out.usd_per_device_hour = p.usd_per_hour;
  out.source = p.usd_per_hour.known && p.usd_per_hour.value > 0
                   ? unpriced_system + shown_data_file(p.file) + " usd_per_hour of " + a.id + ": " + format_double(p.usd_per_hour.value) +
                         " USD per device-hour, per device (" + cite(p.usd_per_hour) + ")"
                   : unpriced_system + "unknown: " + a.id + " has no usd_per_hour in " +
                         (p.file.empty() ? std::string("devices.yaml") : shown_data_file(p.file));
  return out;
}

std::string context_window_text(const Deployment& d) {
  if (d.context_window_tokens > 0 && d.context_window_tokens != d.model.max_seq_len)
    return "the max_model_len of " + std::to_string(d.context_window_tokens) + " tokens";
  return d.model.id + "'s context window of " + std::to_string(d.context_window_tokens) + " tokens";
}

std::vector<std::string> weight_format_notes(const Deployment& d) {
  std::vector<std::string> out = d.data_notes;
  const auto& m = d.model;
  // The 16-bit type the GEMMs run in where the activations are 16-bit: bf16 taken on a device
  // without a bf16 peak runs in fp16 (compute_dtype), and the notes name that one (2026-12-07
  // review: "activations: bf16 assumed" beside compute_dtype fp16 on a V100 and an M2 Max).
  std::string act16 = d.activation.name;
  if (d.activation.bits_per_element == 16 && !d.activation.block_quantized) try {
      act16 = to_string(compute_dtype(d.activation, d.activation, d.accel, d.engine.matmul_dtypes));
    } catch (const Error&) {
      // no peak to run it in: the cost model refuses the deployment; the note names the format
    }
  // Weight-only integer weights dequantised to 16 bits (W4A16), or narrow native weights multiplied
  // in 16 bits (W8A16); the reason is the device, the engine, or (2026-12-07 review) no engine
  // pairing these weights with the given format.
  const bool weight_only = weight_only_integer(d.weight);
  if (!d.activation_fallback_from.empty())
    out.push_back("activations " + d.activation_fallback_from + " given, but " +
                  (!d.activation_fallback_why.empty() ? d.activation_fallback_why
                   : d.accel.has_peak(parse_format(d.activation_fallback_from).compute_dtype)
                       ? "engine " + d.engine.id + " does not multiply in " + d.activation_fallback_from
                       : d.accel.id + " has no " + d.activation_fallback_from + " peak") +
                  ": activations costed in " + act16 +
                  (weight_only ? " (the " + d.weight.name + " weights dequantised to it: W" + (d.weight.bits_per_element >= 8 ? "8" : "4") + "A16)"
                   : d.weight.bits_per_element < 16 ? std::string(" (the weights multiplied in it, as vLLM runs an FP8 checkpoint on Ampere: W8A16)")
                                                    : std::string()));
  // A given format the GEMMs do not run in, for any other reason, is said too (2026-12-07 review:
  // `--weights bf16 --activations fp8` ran bf16 GEMMs without a word): wider weights (no GEMM
  // multiplies bf16 weights by fp8 activations), or a 16-bit type the device or engine lacks.
  else if (d.activation_format_source == "given") try {
      const DType gemm = compute_dtype(d.weight, d.activation, d.accel, d.engine.matmul_dtypes);
      const DType given = d.activation.compute_dtype;
      if (gemm != given)
        out.push_back("activations " + d.activation.name + " given, but the GEMMs run in " + to_string(gemm) + ": " +
                      (dtype_bytes(d.weight.compute_dtype) > dtype_bytes(given)
                           ? "the " + d.weight.name + " weights are wider, and no engine multiplies them by " + d.activation.name +
                                 " activations (a quantised GEMM needs both sides narrow: give the weight format too); the " +
                                 d.activation.name + " activations count in attention only, over a cache as narrow (attention_dtype)"
                       : d.accel.has_peak(given) ? "engine " + d.engine.id + " does not multiply in " + d.activation.name
                                                 : d.accel.id + " has no " + d.activation.name + " peak"));
    } catch (const Error&) {
      // no peak to run it in: the cost model refuses the deployment
    }
  // Which activation format was taken where none was given, and why (2026-12-07 review): the
  // engine's on-the-fly quantisation (W8A8), its 16-bit fallback on a device without the format's
  // peak (W8A16), or, for weights narrower than 16 bits given without an engine rule, 16 bits.
  const NumberFormat& w = d.weight;
  // The rule's citation: its source id and file (the text is in the file), or its estimated basis.
  const std::string& rule_src = d.engine.dynamic_activation_source;
  const std::string rule = rule_src.rfind("estimated: ", 0) == 0 ? rule_src
                                                                  : "source " + rule_src.substr(0, rule_src.find(':')) + ", " +
                                                                        shown_data_file(d.engine.file) + " dynamic_activation_formats";
  if (d.activation_format_source == "engine")
    out.push_back("activations: " + d.activation.name + " assumed (none given): engine " + d.engine.id + " runs " + w.name +
                  " weights with the activations quantised to " + d.activation.name + " on the fly where the device multiplies in " +
                  d.activation.name + ", as " + d.accel.id + " does (W8A8; " + rule +
                  "); give the activation format to cost another");
  // A device without the format's peak is said plainly, without the rule's source: that source
  // documents the 16-bit fallback for some devices only (vLLM's FP8 Marlin W8A16 for Ampere), not
  // for every device without the peak (2026-12-07 review: a V100 cited it).
  else if (d.activation_format_source == "engine_fallback")
    out.push_back("activations: " + act16 + " assumed (none given): " +
                  (d.accel.has_peak(parse_format(w.name).compute_dtype)
                       ? "engine " + d.engine.id + " does not multiply in " + w.name + " on " + d.accel.id + ", so engine " + d.engine.id +
                             " runs the " + w.name + " weights dequantised to 16 bits (weight-only, " +
                             (w.bits_per_element >= 8 ? "W8A16; " : "W4A16; ") + rule + ")"
                       : d.accel.id + " has no " + w.name + " peak, so the GEMMs run at 16 bits (" + act16 + "), the " + w.name +
                             " weights dequantised (weight-only, " + (w.bits_per_element >= 8 ? "W8A16" : "W4A16") + ")"));
  // The hint to give the activation format only where the device can multiply in it: elsewhere
  // giving it changes nothing (2026-12-07 review: `--weights fp4` on an H100 was told to give fp4).
  else if (d.activation_format_source == "default" && d.weight_format_source == "given" && !w.block_quantized && w.bits_per_element < 16 &&
           w.name.rfind("mixed:", 0) != 0)
    out.push_back("activations: " + act16 + " assumed (none given): engine " + d.engine.id + " states no on-the-fly " +
                  "quantisation of activations for " + w.name + " weights (dynamic_activation_formats, " + shown_data_file(d.engine.file) +
                  "), so they are costed weight-only, dequantised to 16 bits; " +
                  (multiplies_in(d, parse_activation_format(w.name).compute_dtype)
                       ? "give the activation format (e.g. " + w.name + ") to cost the quantised GEMMs"
                       : (d.accel.has_peak(parse_activation_format(w.name).compute_dtype) ? "engine " + d.engine.id + " does not multiply in " + w.name + " on " + d.accel.id
                                                                                          : d.accel.id + " has no " + w.name + " peak") +
                             " (no quantised-GEMM path in " + w.name + "), so the GEMMs run at 16 bits (" + act16 + ") whatever activation format is given"));
  // llama-quantize names its file types Q2_K, Q3_K, Q4_K and Q5_K too (the last three aliases of
  // the _M mixes), and a *.Q2_K.gguf file is one of them: the names mean those file types as
  // weights (parse_weight_format); before 2026-12-05 they were the pure block types, 2-9% light.
  // The name given, or a part of a mixed: one (mixed:A:B:F).
  std::vector<std::string> given_parts = {d.weight_format_given};
  if (d.weight_format_given.rfind("mixed:", 0) == 0) {
    const std::string& g = d.weight_format_given;
    const size_t p1 = g.find(':', 6), p2 = p1 == std::string::npos ? p1 : g.find(':', p1 + 1);
    if (p2 != std::string::npos) given_parts = {g.substr(6, p1 - 6), g.substr(p1 + 1, p2 - p1 - 1)};
  }
  auto given = [&](const char* name) { return std::find(given_parts.begin(), given_parts.end(), name) != given_parts.end(); };
  for (const auto& [alias, file] : {std::pair<const char*, const char*>{"q3_k", "q3_k_m"}, {"q4_k", "q4_k_m"}, {"q5_k", "q5_k_m"}})
    if (given(alias))
      out.push_back(std::string("weights: ") + alias + " is llama-quantize's alias of its " + file + " file type (a mix of block types "
                    "across tensors): costed as " + file);
  if (given("q2_k"))
    out.push_back("weights: q2_k is costed as llama-quantize's Q2_K file type (q2_k blocks, some tensors in heavier ones: 2.96 GiB for "
                  "Llama-3-8B, as Q2_K_S), not every matrix in q2_k blocks");
  if (m.checkpoint_quantization.empty()) return out;
  if (d.weight_format_source == "checkpoint")
    out.push_back("weights in " + d.weight.name + (d.weight_experts_only ? " for the MoE experts (the other layers in bf16)" : "") +
                  ", the format of the checkpoint (config.json quantization_config: " + m.checkpoint_quantization +
                  "); give the weight format to cost another" +
                  (d.activation_format_source == "checkpoint" ? "; activations in fp8 (W8A8, quantised on the fly as vLLM and SGLang run "
                                                                "an FP8 checkpoint): give the activation format to cost another"
                                                              : ""));
  else if (m.checkpoint_weight_format.empty())
    out.push_back("the checkpoint's quantization_config (" + m.checkpoint_quantization + ") names no format Sextant maps: weights costed in " +
                  d.weight.name + (d.weight_format_source == "default" ? " (the default)" : "") +
                  "; give the weight format that matches it (fp8, fp4, int4, int8, ...)");
  else if (d.weight.name != m.checkpoint_weight_format)
    out.push_back("weights costed in " + d.weight.name + " as given; the checkpoint stores " + m.checkpoint_weight_format + " (" +
                  m.checkpoint_quantization + ")");
  return out;
}

Deployment make_deployment(const Catalog& given_cat, const InferData& data, const DeploymentSpec& s, const SourceLocation& where) {
  // Names resolve in the study's own hardware where it gives some (review of 2026-12-06).
  const Catalog& cat = s.hardware ? *s.hardware : given_cat;
  Deployment d;
  auto at = [&](const std::string& key) {
    if (auto it = s.given_at.find(key); it != s.given_at.end()) return it->second;
    SourceLocation w = where;
    w.key = w.key.empty() ? key : w.key + "." + key;
    return w;
  };
  d.model = load_model_ref(cat, s.model, at("model"));
  // A catalog id, or an accelerator catalog file (FILE or FILE#ID, read beside the study, then
  // from the working directory), as a training scenario's accelerator: a hypothetical part ran in
  // training and was an "unknown accelerator" here before 2026-12-06 (review).
  d.accel = load_accelerator_ref(cat, s.accelerator, at("accelerator"));
  d.data_notes = data.match_notes(d.accel, cat.accelerator_ids());
  // An entry without its memory size (memory_gib unknown or left out) had been run as a 0 GB
  // device: fits false, "ships with at most 0 GB" against a size given (2026-12-07 review). The
  // size is needed for every fit: the one given, else an error at the entry's field.
  const bool listed_memory = d.accel.memory_bytes.known && d.accel.memory_bytes.value > 0;
  if (!listed_memory && s.memory_gib == 0) {
    // A remedy the caller takes (2026-12-07 review: "--memory-gib N" had been advised to serve,
    // plan and validate, which have no such option).
    std::string hint = s.memory_gib_hint;
    if (hint.empty()) {
      if (auto it = s.given_at.find("memory_gib"); it != s.given_at.end() && !it->second.key.empty() && it->second.line == 0)
        hint = "give the device's memory in GiB with " + it->second.key + (it->second.key.rfind("--", 0) == 0 ? " N" : "=N") + ", or ";
      hint += "write the entry's memory_gib in GiB with its provenance, e.g. memory_gib: {value: 80, source: ID}";
    }
    throw Error(accelerator_field_location(d.accel, "memory_gib"),
                "accelerator '" + d.accel.id + "' has no memory size (memory_gib is unknown or left out): the weights and KV cache "
                "cannot be fitted",
                hint);
  }
  if (s.memory_gib != 0 && !listed_memory) {
    if (!(s.memory_gib > 0 && s.memory_gib <= kMaxMemoryGib))
      throw Error(at("memory_gib"), "must be a positive size in GiB up to 1e9", "e.g. 32 for a machine sold as 32 GB (Apple's GB are GiB)");
    d.data_notes.push_back("memory: " + d.accel.id + " costed with " + format_double(s.memory_gib) +
                           " GiB as given (memory_gib): its catalog entry does not state its memory size, so the size is not checked "
                           "against the sizes it ships in");
    d.accel.memory_bytes = Sourced{s.memory_gib * 1073741824.0, "given (memory_gib)", "", true};
  } else if (s.memory_gib != 0) {
    if (!(s.memory_gib > 0 && s.memory_gib <= kMaxMemoryGib))
      throw Error(at("memory_gib"), "must be a positive size in GiB up to 1e9", "e.g. 32 for a machine sold as 32 GB (Apple's GB are GiB)");
    // A SoC's catalog entry lists the largest memory it ships with: more is a machine that does not
    // exist (an M3 Pro with 128 GB had been costed, 2026-12-04 review). A GPU's larger memory is a
    // hypothetical part, as sweep varies it.
    const double listed_gib = d.accel.memory_bytes.value / 1073741824.0;
    if (d.accel.kind == "soc" && s.memory_gib > listed_gib * (1 + 1e-9))
      throw Error(at("memory_gib"), d.accel.id + " ships with at most " + format_double(std::round(listed_gib * 100) / 100) +
                                        " GB (its catalog memory_gib), not " + format_double(s.memory_gib),
                  "the machine's size, at most " + format_double(std::round(listed_gib * 100) / 100) +
                      " (smaller sizes are not checked against the ones sold: the catalog lists the largest), or a SoC that offers more");
    // A GPU (or TPU, NPU) ships in the sizes its catalog entries list (an H100 SXM with 80 GB,
    // the 94 GB NVL a part of its own): another size is a part that does not exist, costed as asked,
    // and said (200 GiB on an H100 had run silently; review of 2026-12-05).
    if (d.accel.kind != "soc" && std::fabs(s.memory_gib - listed_gib) > listed_gib * 1e-9)
      d.data_notes.push_back("memory: " + d.accel.id + " costed with " + format_double(s.memory_gib) + " GiB as given (memory_gib), not the " +
                             format_double(std::round(listed_gib * 100) / 100) +
                             " GiB its catalog entry lists: a " + d.accel.kind + " ships in fixed sizes, so this is a hypothetical part; "
                             "for another real size choose its catalog entry (`sextant catalog list accelerators`)");
    d.accel.memory_bytes = Sourced{s.memory_gib * 1073741824.0, "given (memory_gib)", "", true};
  }
  if (!data.has_engine(s.engine))
    throw Error(at("engine"), "unknown inference engine '" + s.engine + "'", valid_choices_hint(s.engine, data.engine_ids()));
  d.engine = data.engine(s.engine);
  if (s.memory_utilization_fraction != 0) {
    if (!(s.memory_utilization_fraction > 0 && s.memory_utilization_fraction <= 1))
      throw Error(at("memory_utilization_fraction"), "must be in (0, 1]", "vLLM's gpu_memory_utilization, e.g. 0.9 (its default)");
    d.engine.memory_utilization_fraction = Sourced{s.memory_utilization_fraction, "given (deployment.memory_utilization_fraction)", "", true};
  }
  d.context_window_tokens = d.model.max_seq_len > 0 ? d.model.max_seq_len : 0;
  if (s.max_model_len != 0) {
    if (s.max_model_len < 1) throw Error(at("max_model_len"), "must be >= 1 (tokens of prompt + output), or 0 for the model's window");
    if (d.model.max_seq_len > 0 && s.max_model_len > d.model.max_seq_len)
      throw Error(at("max_model_len"), "max_model_len " + std::to_string(s.max_model_len) + " is longer than " + d.model.id +
                                           "'s context window of " + std::to_string(d.model.max_seq_len) + " tokens",
                  "at most " + std::to_string(d.model.max_seq_len) + " (vLLM refuses a longer one too)");
    d.context_window_tokens = s.max_model_len;
  }
  d.par = Parallelism{s.tp, s.pp, s.ep};
  d.kv_share_layers = s.kv_share_layers;
  d.expert_load_factor = s.expert_load_factor;
  // The factor scales the busiest expert-parallel rank: a dense model or ep 1 has none, and the
  // factor was accepted and did nothing (2026-12-04 review).
  if (s.expert_load_factor != 0 && (!d.model.moe || s.ep <= 1))
    throw Error(at("expert_load_factor"),
                !d.model.moe ? d.model.id + " is dense: it has no experts whose load could be uneven"
                             : "ep is 1: every device holds every expert, and no expert-parallel rank is busier than another",
                !d.model.moe ? "leave it out" : "give ep > 1 (expert parallelism), or leave it out");
  // At most the largest load the routing can give the busiest rank, ep x min(k, E/ep) / k, said at
  // the key's line or the CLI option (--expert-load-factor 3 at a cap of 2, and 1e9, had been
  // costed as given: 0.00038 decode tokens/s, no note; 2026-12-07 review). An ep the experts do
  // not divide is refused by Deployment::check, with the valid degrees.
  if (s.expert_load_factor > 0 && d.model.moe && s.ep > 1 && d.model.moe->num_experts % s.ep == 0 &&
      s.expert_load_factor > max_expert_load_factor(d.model, s.ep) * (1 + 1e-12))
    throw Error(at("expert_load_factor"),
                "expert_load_factor " + format_double(s.expert_load_factor) + " is above " + format_double(max_expert_load_factor(d.model, s.ep)) +
                    ", the largest load the busiest of " + std::to_string(s.ep) + " expert-parallel ranks can take: " +
                    max_expert_load_factor_text(d.model, s.ep),
                "at most " + format_double(max_expert_load_factor(d.model, s.ep)) + ", or leave it out for the routing's expected maximum");
  // The checkpoint's own format, given (`--weights mxfp4` for GPT-OSS), is the checkpoint: its
  // experts-only quantisation and FP8 activations hold as when it is left out (every layer had
  // been costed in 4-bit, 28% below the decode floor, without a note; 2026-12-04 review).
  const bool names_checkpoint = !s.weight_format.empty() && !d.model.checkpoint_weight_format.empty() &&
                                parse_weight_format(s.weight_format, at("weight_format")).name == d.model.checkpoint_weight_format;
  if (!s.weight_format.empty() && !names_checkpoint) {
    d.weight = parse_weight_format(s.weight_format, at("weight_format"));
    for (char ch : s.weight_format) d.weight_format_given += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  } else if (!d.model.checkpoint_weight_format.empty()) {
    d.weight = parse_format(d.model.checkpoint_weight_format);
    d.weight_format_source = "checkpoint";
    d.weight_experts_only = d.model.checkpoint_quantized_experts_only;
  } else {
    // bf16, or fp16 for an engine without bf16 weights (llama.cpp of 2023).
    const auto& wf = d.engine.weight_formats;
    d.weight = parse_format(!wf.empty() && std::find(wf.begin(), wf.end(), "bf16") == wf.end() ? "fp16" : "bf16");
    d.weight_format_source = "default";
  }
  // No activation format given: bf16, except an FP8 checkpoint on an accelerator with FP8 tensor
  // cores, which vLLM and SGLang run as W8A8 with activations quantised on the fly (DeepSeek-V3's
  // block FP8, llm-compressor's FP8-dynamic); before 2026-12-03 its prefill was costed in bf16.
  // And weights in a format the engine quantises activations into on the fly
  // (dynamic_activation_formats: vLLM's fp8) run in that format where the device can multiply in it,
  // else 16-bit (2026-12-07 review: `--weights fp8` on vLLM had been costed in bf16 on an H100).
  // "can multiply in" is the device's peak and the engine's kernels (llama.cpp multiplies in fp16
  // on an H100 whatever fp8 peak it has).
  auto usable = [&](DType t) { return multiplies_in(d, t); };
  const auto& dyn = d.engine.dynamic_activation_formats;
  const bool engine_quantises = std::find(dyn.begin(), dyn.end(), d.weight.name) != dyn.end();
  if (!s.activation_format.empty()) {
    d.activation = parse_activation_format(s.activation_format, at("activation_format"));
    d.activation_format_source = "given";
    // Activations in a format the device cannot multiply in run 16-bit, as vLLM runs an FP8
    // checkpoint on Ampere (W8A16): costed so, with a note. Before 2026-12-04 the compute moved
    // to fp16 while the workspace stayed sized at 1 byte per activation, with no word.
    // Only a format narrower than 16 bits widens (fp32 on a device without an fp32 peak stays the
    // error compute_dtype gives).
    // So do activations no engine multiplies weight-only integer weights by (llama.cpp's q4_0 by
    // fp8, int4 by fp4): before 2026-12-07 they were dropped without a word (review). Weight-only
    // weights fall back to the 16-bit type they dequantise to (llama.cpp's blocks fp16, int4 bf16).
    const std::string gap = weight_only_activation_gap(d.weight, d.activation);
    if (d.activation.bits_per_element < 16 && (!gap.empty() || !usable(d.activation.compute_dtype))) {
      std::vector<std::string> wides = {"bf16", "fp16", "fp32"};
      if (weight_only_integer(d.weight)) wides.insert(wides.begin(), to_string(d.weight.compute_dtype));
      for (const auto& wide : wides) {
        const NumberFormat f = parse_format(wide);
        if (usable(f.compute_dtype)) {
          d.activation_fallback_from = d.activation.name;
          // The device or engine first, as the note said before: the pairing matters only where
          // the format could run.
          if (usable(d.activation.compute_dtype)) d.activation_fallback_why = gap;
          d.activation = f;
          break;
        }
      }
    }
  } else if (d.weight_format_source == "checkpoint" && d.weight.name == "fp8" && d.accel.has_peak(DType::FP8)) {
    d.activation = parse_format("fp8");
    d.activation_format_source = "checkpoint";
  } else if (engine_quantises && usable(parse_activation_format(d.weight.name).compute_dtype)) {
    d.activation = parse_activation_format(d.weight.name);
    d.activation_format_source = "engine";
  } else {
    d.activation = parse_format("bf16");
    if (engine_quantises) d.activation_format_source = "engine_fallback";
  }
  // No KV format given: the activations' when they are 16-bit, else bf16 (vLLM's kv_cache_dtype
  // auto keeps the model's 16-bit dtype under FP8 W8A8; an fp8 cache is opt-in). Serve had taken
  // the activation format and estimate bf16: fp8 activations doubled serve's KV capacity.
  d.kv = s.kv_format.empty() ? (d.activation.bits_per_element == 16 && !d.activation.block_quantized ? d.activation : parse_format("bf16"))
                             : parse_kv_format(s.kv_format, at("kv_format"), d.engine.kv_formats, d.engine.id);
  // Not given, and not a cache the engine has: its fp16 (llama.cpp's default f16 cache).
  if (s.kv_format.empty() && !d.engine.kv_formats.empty() &&
      std::find(d.engine.kv_formats.begin(), d.engine.kv_formats.end(), d.kv.name) == d.engine.kv_formats.end())
    d.kv = parse_format(std::find(d.engine.kv_formats.begin(), d.engine.kv_formats.end(), "fp16") != d.engine.kv_formats.end()
                            ? std::string("fp16")
                            : d.engine.kv_formats.front());
  // What the engine can run: its accelerator kinds, weight formats and KV-cache formats.
  auto listed = [](const std::vector<std::string>& v) {
    std::string t;
    for (const auto& x : v) t += (t.empty() ? "" : ", ") + x;
    return t;
  };
  if (!d.engine.runs_on_kinds.empty() &&
      std::find(d.engine.runs_on_kinds.begin(), d.engine.runs_on_kinds.end(), d.accel.kind) == d.engine.runs_on_kinds.end())
    throw Error(at("engine"), "engine " + d.engine.id + " does not run on a " + d.accel.kind + " (" + d.accel.id + "): it runs on " +
                                  listed(d.engine.runs_on_kinds) + " (" + d.engine.runs_on_source + ")",
                "an engine for this device (data/infer/engines.yaml: llama.cpp on Apple SoCs), or generic");
  // A GGUF file type runs where its block types do (K-quant files came with the K-quant blocks),
  // a mixed: format where both its parts do.
  // A format no one gave (the checkpoint's, from the model's quantization_config) is named where it
  // came from, at the model's key, with the weight format to give: it had been refused at
  // '--weights', which was never given (2026-12-06 review).
  if (!d.engine.weight_formats.empty())
    for (const auto& stored : d.weight.stored)
      if (std::find(d.engine.weight_formats.begin(), d.engine.weight_formats.end(), stored) == d.engine.weight_formats.end()) {
        const std::string what = stored == d.weight.name ? stored : stored + " (in " + d.weight.name + ")";
        const std::string why = "engine " + d.engine.id + " has no " + what + " weights (" + d.engine.formats_source + ")";
        if (d.weight_format_source == "checkpoint" && s.weight_format.empty())
          throw Error(at("model"),
                      d.model.id + "'s checkpoint stores its weights in " + d.weight.name + " (config.json quantization_config: " +
                          d.model.checkpoint_quantization + "), the format taken where no weight format is given, and " + why,
                      "give the weight format to run (--weights, deployment.weight_format, Python weights=): one of " +
                          listed(d.engine.weight_formats));
        throw Error(at("weight_format"), why, "one of " + listed(d.engine.weight_formats));
      }
  if (!d.engine.kv_formats.empty() &&
      std::find(d.engine.kv_formats.begin(), d.engine.kv_formats.end(), d.kv.name) == d.engine.kv_formats.end())
    throw Error(at("kv_format"), "engine " + d.engine.id + " has no " + d.kv.name + " KV cache (" + d.engine.kv_formats_source + ")",
                "one of " + listed(d.engine.kv_formats));
  // The system: a catalog id or one of the study's own (its hardware catalog), else a system file
  // (--system FILE, Python system=, read as load_system_ref reads it); none named, the first of the
  // study's own systems holding the accelerator, else replica_system's catalog default. Before
  // 2026-12-06 only a catalog id was taken, so a hypothetical accelerator had no link to run tp > 1
  // on (review).
  std::shared_ptr<Catalog> with_file;
  std::string system = s.system;
  if (!system.empty() && !cat.has_system(system)) {
    const SystemEntry e = load_system_ref(cat, system, at("system"));
    if (e.system.accelerator == d.accel.id) check_node_power(e.system, d.accel, e.node_power_at);
    with_file = std::make_shared<Catalog>(cat);
    with_file->add(e.system);
    system = e.system.id;
  }
  if (system.empty())
    for (const auto& id : s.study_systems)
      if (cat.has_system(id) && cat.system(id).accelerator == d.accel.id) {
        system = id;
        break;
      }
  const Catalog& sys_cat = with_file ? *with_file : cat;
  if (!system.empty() && sys_cat.system(system).accelerator != d.accel.id)
    throw Error(at("system"), "system '" + system + "' holds " + sys_cat.system(system).accelerator + ", not " + d.accel.id,
                "leave the system out (the link of " + d.accel.id + "'s own system is used) or name one that holds it: a catalog id, "
                "a system file, or in a study an inline deployment.system or a hardware.systems entry with accelerator: " + d.accel.id +
                " (docs/inference.md)");
  d.link = resolve_link(sys_cat, data, d.accel, system, &d.data_notes);
  d.price = resolve_price(sys_cat, data, d.accel, system);
  // Tensor (and expert) parallelism is modelled on the scale-up link: a TP group larger than the
  // domain it joins would run over the network, which this model does not describe.
  if (d.link.domain_devices > 0 && s.tp > d.link.domain_devices)
    throw Error(at("tp"), "tp " + std::to_string(s.tp) + " is beyond the " + std::to_string(d.link.domain_devices) +
                              "-device scale-up domain: the model has tensor parallelism on the scale-up link only",
                "tp <= " + std::to_string(d.link.domain_devices) + ", with pp across nodes");
  // With stages beyond one domain, a TP group that does not divide the domain straddles two of them
  // (devices fill one domain after another): its all-reduces would cross the network the model
  // prices only for sends (tp 6 pp 2 on 8-GPU nodes had been priced on the mesh; review of
  // 2026-12-05). A replica inside one domain (tp 16 pp 2 on an NVL72) straddles nothing.
  if (d.link.domain_devices > 0 && s.pp > 1 && static_cast<int64_t>(s.tp) * s.pp > d.link.domain_devices &&
      d.link.domain_devices % s.tp != 0)
    throw Error(at("tp"), "tp " + std::to_string(s.tp) + " does not divide the " + std::to_string(d.link.domain_devices) +
                              "-device scale-up domain: with pp " + std::to_string(s.pp) + " a stage's TP group would straddle two domains",
                "a tp that divides " + std::to_string(d.link.domain_devices));
  // A replica beyond the scale-up domain sends between stages over the scale-out fabric: a system
  // the catalog gives none (mosaic-h100: single-node use only) cannot hold it. Before 2026-12-05 tp 8
  // pp 2 on it ran, its cross-node sends priced on NVLink (review).
  if (const System* sys = replica_system(sys_cat, d.accel, system);
      sys && sys->scale_out_network.empty() && d.link.domain_devices > 0 && d.par.devices() > d.link.domain_devices)
    throw Error(at(!s.system.empty() ? "system" : s.pp > 1 ? "pp" : "tp"),
                "system '" + sys->id + "' has no scale-out fabric in the catalog (nodes of " + std::to_string(sys->gpus_per_node) + " " +
                    d.accel.id + ", a scale-up domain of " + std::to_string(d.link.domain_devices) + "): tp " + std::to_string(s.tp) +
                    " x pp " + std::to_string(s.pp) + " needs " + std::to_string(d.par.devices()) + " devices, beyond one domain",
                "at most " + std::to_string(d.link.domain_devices) + " devices (tp x pp), or a system with a scale-out network");
  if (d.par.devices() > 1 && d.link.bandwidth_bytes_per_s <= 0) {
    // Named at what asked for a second device (the error named --system, which was never given,
    // for --tp 2 on an Apple SoC; 2026-12-04 review).
    const std::string key = !s.system.empty() ? "system" : s.tp > 1 ? "tp" : s.pp > 1 ? "pp" : "ep";
    const int n = key == "tp" ? s.tp : key == "pp" ? s.pp : s.ep;
    throw Error(at(key),
                (key == "system" ? std::string("system '") + system + "' gives" : key + " " + std::to_string(n) + " needs " + std::to_string(d.par.devices()) +
                                                                                     " devices, and the catalog gives") +
                    " no link between " + d.accel.id + " devices to carry their traffic",
                "run it on one device, or give a system holding " + d.accel.id + " with a scale-up link: --system or deployment.system as a "
                "catalog id or a system file, in a study an inline deployment.system or a hardware.systems entry (docs/inference.md); "
                "or link_bandwidth_gb_per_s in data/infer/devices.yaml");
  }
  // The plan's own checks name parallel.tp and the like without a place: name the field where it
  // was given (a study file's deployment.tp and its line, or --tp; before 2026-12-03 neither).
  try {
    d.check();
  } catch (const Error& e) {
    if (!e.where().file.empty() || e.where().line > 0) throw;
    std::string key = e.where().key;
    if (key.starts_with("parallel.")) key = key.substr(9);
    else if (key == "parallel") key = s.tp < 1 ? "tp" : s.pp < 1 ? "pp" : "ep";
    throw Error(at(key), e.message(), e.hint());
  }
  return d;
}

}  // namespace sextant::infer
