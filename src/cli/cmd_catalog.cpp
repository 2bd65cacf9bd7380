// sextant catalog list [KIND] | show NAME
#include "catalog/catalog.hpp"
#include "cli/catalog_results.hpp"
#include "cli/cli.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/yaml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace sextant::cli {
namespace fs = std::filesystem;

namespace {
std::string sourced_text(const Sourced& s) {
  if (!s.known) return "unknown";
  return s.estimated.empty() ? s.source : "estimated: " + s.estimated;
}

void add_sourced(Table& t, const std::string& field, const Sourced& s, const std::string& unit, double scale = 1) {
  t.add_row({field, s.known ? format_double(s.value / scale) : std::string("unknown"), unit, sourced_text(s)});
}

Table& field_table(Result& r) {
  Table& t = r.add_table("fields", "every value with its provenance");
  t.add_str("field");
  t.add_str("value");
  t.add_str("unit");
  t.add_str("source");
  return t;
}

bool is_model_file(const std::string& name_in) {
  // FILE#ID: one entry of a file of several, unless the whole name is a file (one#model.yaml).
  std::error_code ec0;
  const std::string name = std::filesystem::exists(name_in, ec0) ? name_in : name_in.substr(0, name_in.rfind('#'));
  std::string lower = name;
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  auto ends = [&](const std::string& suf) {
    return lower.size() >= suf.size() && lower.compare(lower.size() - suf.size(), suf.size(), suf) == 0;
  };
  // (Mistral.JSON, or a file in the working folder without an extension, had been looked up as a
  // catalog id: "no catalog entry of that name" for a file that exists)
  std::error_code ec;
  return name.find('/') != std::string::npos || ends(".json") || ends(".yaml") || ends(".yml") || std::filesystem::is_regular_file(name, ec);
}

// Where an entry's file lies, relative to its catalog folder (accelerators/nvidia-hopper.yaml), and
// the folder itself as "bundled" for the catalog shipped with Sextant: the same catalog prints the
// same bytes on every machine (the absolute paths of the checkout had been printed).
std::string file_in(const Catalog& cat, const std::string& file) {
  std::error_code ec;
  const fs::path rel = fs::relative(fs::path(file), fs::path(cat.dir()), ec);
  if (ec || rel.empty() || rel.native().rfind("..", 0) == 0) return file;
  return rel.generic_string();
}
std::string folder_of(const Catalog& cat) {
  std::error_code ec;
  return fs::equivalent(fs::path(cat.dir()), fs::path(data_dir()) / "catalog", ec) ? std::string("bundled") : cat.dir();
}
}  // namespace

// Also used by the Python module (catalog()).
// An accelerator catalog file given by path (FILE, or FILE#ID for one of several entries), as
// `calibrate` writes and `accelerator: FILE` reads: its entries (or the file) give peak_tflops.
// It had been read as a model file ("a catalog file of several models"; review of 2026-12-05).
bool is_accelerator_file(const std::string& name) {
  const std::string file = name.substr(0, name.rfind('#'));
  std::error_code ec;
  std::string ext = fs::path(file).extension().string();
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (!fs::is_regular_file(file, ec) || (ext != ".yaml" && ext != ".yml")) return false;
  try {
    const YamlMap m = YamlMap::load_file(file);
    if (m.has("peak_tflops")) return true;
    if (!m.has("entries")) return false;
    for (const auto& e : m.map_list("entries"))
      if (e.has("peak_tflops")) return true;
  } catch (const Error&) {
    // Not readable as a catalog file: left to the model reader, whose error names the problem.
  }
  return false;
}

// A system, network or framework catalog file given by path (FILE, or FILE#ID): `catalog show`
// reads those kinds by id from a catalog folder. FILE#ID of the catalog's own file returns ID, to
// be shown as `catalog show ID`; otherwise the error lists the file's ids and how to show one.
// Until 2026-12-07 (review) such a file went to the model reader: "holds systems, not models",
// which told the user to name a model. Returns "" where the name is not such a file.
namespace {
std::string other_kind_file_id(const Catalog& cat, const std::string& name) {
  std::error_code ec;
  std::string file = name, want;
  if (!fs::is_regular_file(file, ec) && name.rfind('#') != std::string::npos) {
    file = name.substr(0, name.rfind('#'));
    want = name.substr(name.rfind('#') + 1);
  }
  if (!fs::is_regular_file(file, ec)) return "";
  std::string ext = fs::path(file).extension().string();
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext != ".yaml" && ext != ".yml") return "";
  std::string kind;
  std::vector<std::string> ids;
  try {
    const YamlMap m = YamlMap::load_file(file);
    if (!m.has("entries")) {
      kind = guess_entry_kind(m.keys()).kind;
      if (m.has("id")) ids.push_back(m.str("id"));
    } else {
      for (const auto& e : m.map_list("entries")) {
        const std::string k = guess_entry_kind(e.keys()).kind;
        if (k.empty() || (!kind.empty() && k != kind)) return "";  // mixed or unknown: left to the readers
        kind = k;
        if (e.has("id")) ids.push_back(e.str("id"));
      }
    }
  } catch (const Error&) {
    return "";  // not readable as a catalog file: the model reader's error names the problem
  }
  if (kind != "system" && kind != "network" && kind != "framework") return "";
  auto in_catalog = [&](const std::string& id) {
    return kind == "system" ? cat.has_system(id) : kind == "network" ? cat.has_network(id) : cat.has_framework(id);
  };
  // The catalog's own file: its entries are the catalog's.
  const bool own_file = fs::equivalent(fs::path(file).parent_path(), fs::path(cat.dir()) / (kind + "s"), ec);
  const bool listed_id = std::find(ids.begin(), ids.end(), want) != ids.end();
  if (!want.empty() && own_file && listed_id && in_catalog(want)) return want;
  std::string listed, known;
  for (const auto& id : ids) {
    listed += (listed.empty() ? "" : ", ") + id;
    if (own_file && in_catalog(id) && known.empty()) known = id;
  }
  if (!want.empty() && !listed_id)
    throw Error(SourceLocation{file, 0, 0, want}, "no " + kind + " of that id in the file", valid_choices_hint(want, ids));
  throw Error(SourceLocation{file, 0, 0, ""},
              "holds " + kind + "s" + (listed.empty() ? std::string() : " (" + listed + ")") + ": catalog show reads " + kind +
                  "s by id, from a catalog folder",
              known.empty() ? "to show an entry of your own, copy the catalog folder (cp -r " + cat.dir() + " F), add it to F/" + kind +
                                  "s/ as a catalog file (its entries under entries:, with the keys docs/catalog.md lists) and run "
                                  "sextant catalog show " + (ids.empty() ? std::string("ID") : ids.front()) + " --catalog F"
                            : "sextant catalog show " + known);
}
}  // namespace

Result catalog_show(const Catalog& cat, const std::string& name) {
  Result r;
  r.command = "catalog show";
  if (const std::string id = other_kind_file_id(cat, name); !id.empty()) return catalog_show(cat, id);
  if (cat.has_accelerator(name) || is_accelerator_file(name)) {
    const Accelerator a = cat.has_accelerator(name) ? cat.accelerator(name) : load_accelerator_ref(cat, name, SourceLocation{});
    r.set("kind", std::string("accelerator"));
    r.set("id", a.id);
    r.set("name", a.name);
    if (!a.platform.empty()) r.set("platform", a.platform);
    r.set("file", file_in(cat, a.file));
    Table& t = field_table(r);
    // Integer peaks are tera-operations per second (docs/catalog.md), not floating point: they had
    // been labelled TFLOP/s before 2026-12-06 (review).
    for (const auto& [d, s] : a.peak_flops) {
      const std::string dtype = to_string(d);
      add_sourced(t, "peak_" + dtype, s, dtype.rfind("int", 0) == 0 ? "TOPS" : "TFLOP/s", 1e12);
    }
    add_sourced(t, "memory", a.memory_bytes, "GiB", 1024.0 * 1024 * 1024);
    add_sourced(t, "memory_bandwidth", a.memory_bandwidth_bytes_per_s, "GB/s", 1e9);
    add_sourced(t, "cache", a.cache_bytes, "MiB", 1024.0 * 1024);
    add_sourced(t, "compute_units", a.compute_units, "count");
    add_sourced(t, "tdp", a.tdp_w, "W");
    add_sourced(t, "idle_power", a.idle_w, "W");
    add_sourced(t, "price", a.price_usd, "USD");
    for (const auto& p : a.power_caps) {
      add_sourced(t, "clock_at_" + format_double(p.power_w) + "W", p.clock_mhz, "MHz");
      add_sourced(t, "bf16_at_" + format_double(p.power_w) + "W", p.bf16_tflops, "TFLOP/s", 1e12);
    }
    for (const auto& [d, s] : a.gemm_peak_fraction) add_sourced(t, "gemm_peak_fraction_" + to_string(d), s, "fraction");
    add_sourced(t, "gemm_half_dim", a.gemm_half_dim, "elements");
    // Per-role half-dimensions only where the entry gives them (otherwise gemm_half_dim applies).
    for (const auto& [role, s] : {std::pair<const char*, const Sourced*>{"m", &a.gemm_half_dim_m}, {"n", &a.gemm_half_dim_n}, {"k", &a.gemm_half_dim_k}})
      if (s->known) add_sourced(t, std::string("gemm_half_dim_") + role, *s, "elements");
    // The GEMM operand-traffic data (calibrated CPU hosts) only where the entry gives it.
    if (a.gemm_fitted_footprint_bytes.known) add_sourced(t, "gemm_fitted_footprint", a.gemm_fitted_footprint_bytes, "MiB", 1024.0 * 1024);
    for (const auto& p : a.bandwidth_by_working_set.points)
      add_sourced(t, "read_bandwidth_at_" + format_double(p.working_set_bytes / 1024) + "KiB",
                  Sourced{p.bytes_per_s, a.bandwidth_by_working_set.source, a.bandwidth_by_working_set.estimated, true}, "GB/s", 1e9);
    add_sourced(t, "memory_bandwidth_fraction", a.memory_bandwidth_fraction, "fraction");
    add_sourced(t, "attention_fraction", a.attention_fraction, "fraction");
    add_sourced(t, "kernel_overhead", a.kernel_overhead_s, "us", 1e-6);
    add_sourced(t, "comm_compute_interference", a.comm_compute_interference, "fraction");
    add_sourced(t, "sustained_compute_fraction", a.sustained_compute_fraction, "fraction");
    add_sourced(t, "fp8_block_scaled_gemm_fraction", a.fp8_block_scaled_gemm_fraction, "fraction");
    // A yes/no fact (review, 2026-12-07): whether training.fp8_recipe blockwise runs on the part.
    t.add_row({"fp8_block_scaling", a.fp8_block_scaling.known ? std::string(a.fp8_block_scaling.value != 0 ? "true" : "false") : "unknown",
               "yes/no", sourced_text(a.fp8_block_scaling)});
  } else if (cat.has_system(name)) {
    const auto& s = cat.system(name);
    r.set("kind", std::string("system"));
    r.set("id", s.id);
    r.set("name", s.name);
    r.set("description", s.description);
    r.set("file", file_in(cat, s.file));
    r.set("accelerator", s.accelerator);
    r.set("gpus_per_node", int64_t{s.gpus_per_node});
    r.set("scale_up_network", s.scale_up_network);
    r.set("scale_up_domain_gpus", int64_t{s.scale_up_domain});
    r.set("scale_out_network", s.scale_out_network);
    r.set("nics_per_node", int64_t{s.nics_per_node});
    r.set("topology", s.topology);
    r.set("oversubscription_ratio", s.oversubscription);
    Table& t = field_table(r);
    add_sourced(t, "nic_bandwidth", s.nic_bandwidth_bytes_per_s, "Gb/s", 1e9 / 8);
    add_sourced(t, "leaf_nodes", s.leaf_nodes, "nodes per leaf switch (per rail)");
    add_sourced(t, "storage_bandwidth", s.storage_bandwidth_bytes_per_s, "GB/s", 1e9);
    add_sourced(t, "node_price", s.node_price_usd_per_hour, "USD/h");
    add_sourced(t, "node_power", s.node_power_w, "W");
    // The counts that shape the system (GPUs per node, scale-up domain, NICs per node) and its
    // oversubscription are plain values whose provenance the description gives, citing the file's
    // sources: listed here so that it reads on its own (review of 2026-12-05).
    Table& src = r.add_table("sources", "citations of the system's file, which the description and the fields name");
    src.add_str("id");
    src.add_str("citation");
    for (const auto& [id, text] : s.sources) src.add_row({id, text});
  } else if (cat.has_network(name)) {
    const auto& n = cat.network(name);
    r.set("kind", std::string("network"));
    r.set("id", n.id);
    r.set("name", n.name);
    r.set("network_kind", n.kind);
    r.set("file", file_in(cat, n.file));
    Table& t = field_table(r);
    add_sourced(t, "bandwidth", n.bandwidth_bytes_per_s, "GB/s per direction", 1e9);
    add_sourced(t, "latency", n.latency_s, "us", 1e-6);
    add_sourced(t, "achievable_fraction", n.achievable_fraction, "fraction");
    add_sourced(t, "in_network_reduction_fraction", n.in_network_reduction_fraction, "fraction");
    add_sourced(t, "in_network_reduction_latency", n.in_network_reduction_latency_s, "us", 1e-6);
    // Inputs of the collective models that had not been shown (review of 2026-12-05): NVLS's
    // measured group size and the fabric's shape (a mesh or torus scales the bandwidth a group gets).
    add_sourced(t, "in_network_reduction_measured_gpus", n.in_network_reduction_measured_gpus, "GPUs");
    r.set("topology", n.topology);
    // A count says so in its name (review of 2026-12-06: printed as the catalog key torus_dims).
    if (n.torus_dims > 0) r.set("torus_dims_count", int64_t{n.torus_dims});
  } else if (cat.has_framework(name)) {
    const auto& f = cat.framework(name);
    r.set("kind", std::string("framework"));
    r.set("id", f.id);
    r.set("name", f.name);
    r.set("file", file_in(cat, f.file));
    Table& t = r.add_table("properties", "implementation choices the framework sets as plan defaults, with their sources");
    t.add_str("property");
    t.add_str("value");
    t.add_str("source");
    t.add_row({std::string("zero3_gather"), f.zero3_gather.value, f.zero3_gather.source});
    t.add_row({std::string("zero3_regather_for_recompute"), f.zero3_regather_for_recompute.value, f.zero3_regather_for_recompute.source});
    {
      const auto& l = f.zero3_max_live_params;
      t.add_row({std::string("zero3_max_live_params"), l.known ? format_double(l.value) : std::string("whole layers (scenario default)"),
                 l.known ? sourced_text(l) : std::string("not set")});
    }
    t.add_row({std::string("collective_nic_aggregation"), f.collective_nic_aggregation.value, f.collective_nic_aggregation.source});
    t.add_row({std::string("grad_reduce_dtype"), f.grad_reduce_dtype.value.empty() ? std::string("scenario default") : f.grad_reduce_dtype.value,
               f.grad_reduce_dtype.source});
    t.add_row({std::string("moe_router_weighting"),
               f.moe_router_weighting.value.empty() ? std::string("scenario default (at_combine)") : f.moe_router_weighting.value,
               f.moe_router_weighting.source});
    t.add_row({std::string("dropout"), f.dropout.value.empty() ? std::string("the model's (yes for a GELU model)") : f.dropout.value,
               f.dropout.source});
    t.add_row({std::string("tp_backward_overlap"),
               f.tp_backward_overlap.value.empty() ? std::string("scenario default (true)") : f.tp_backward_overlap.value,
               f.tp_backward_overlap.source});
    {
      const auto& a = f.attention_peak_fraction;
      t.add_row({std::string("attention_peak_fraction"), a.known ? format_double(a.value) : std::string("the accelerator's attention rate"),
                 a.known ? sourced_text(a) : std::string("not set")});
    }
    // The plan features the stack offers (a restriction of `sextant plan`, docs/plan.md).
    const auto& k = f.capabilities;
    if (!k.stated) {
      t.add_row({std::string("capabilities"), std::string("not stated"), std::string("the plan search is not restricted")});
    } else {
      for (const auto& [key, p] : std::vector<std::pair<const char*, const FrameworkProperty*>>{
               {"tensor_parallel", &k.tensor_parallel}, {"pipeline_parallel", &k.pipeline_parallel},
               {"context_parallel", &k.context_parallel}, {"expert_parallel", &k.expert_parallel},
               {"sequence_parallel", &k.sequence_parallel}, {"tp_comm_overlap", &k.tp_comm_overlap},
               {"overlap_grad_reduce", &k.overlap_grad_reduce}, {"overlap_param_gather", &k.overlap_param_gather},
               {"flash_attention", &k.flash_attention}, {"recompute", &k.recompute}, {"recompute_modules", &k.recompute_modules},
               {"recompute_block", &k.recompute_block},
               {"zero_stages", &k.zero_stages},
               {"pipeline_zero_stages", &k.pipeline_zero_stages}, {"schedules", &k.schedules}})
        t.add_row({std::string("capabilities.") + key, p->value.empty() ? std::string("(none)") : p->value, p->source});
    }
  } else if (cat.has_model(name) || is_model_file(name)) {
    // A catalog id, or a Hugging Face config.json / model YAML given by path.
    const ModelConfig m = cat.has_model(name) ? cat.model(name) : load_model_ref(cat, name, SourceLocation{});
    r.set("kind", std::string("model"));
    r.set("id", m.id);
    r.set("name", m.name);
    r.set("source", m.source);
    r.set("file", file_in(cat, m.file));
    r.set("layers", int64_t{m.layers});
    r.set("hidden", int64_t{m.hidden});
    r.set("heads", int64_t{m.heads});
    r.set("kv_heads", int64_t{m.kv_heads});
    r.set("head_dim", int64_t{m.head_dim});
    r.set("ffn_hidden", int64_t{m.ffn_hidden});
    r.set("vocab", int64_t{m.vocab});
    r.set("mlp", m.mlp);
    r.set("tied_embeddings", m.tied_embeddings);
    // every field the models read (a config.json's window could not be checked before)
    r.set("norm", m.norm);
    r.set("learned_position", m.learned_position);
    r.set("qk_norm", m.qk_norm);
    if (m.mtp_layers > 0) r.set("mtp_layers_count", int64_t{m.mtp_layers});
    r.set("dropout", m.dropout < 0 ? std::string("not stated (the framework's, else yes for a GELU model)") : m.dropout ? std::string("yes") : std::string("no"));
    r.set("max_seq_len", int64_t{m.max_seq_len});
    if (!m.max_seq_len_source.empty()) r.set("max_seq_len_source", m.max_seq_len_source);  // a config.json's key, default or rope scaling
    r.set("sliding_window", int64_t{m.sliding_window});
    if (m.sliding_window > 0)
      r.set("sliding_window_layers_count", int64_t{m.sliding_window_layers < 0 ? m.layers : m.sliding_window_layers});
    if (m.moe) {
      r.set("moe_num_experts", int64_t{m.moe->num_experts});
      r.set("moe_topk", int64_t{m.moe->topk});
      r.set("moe_expert_ffn_hidden", int64_t{m.moe->expert_ffn_hidden});
      r.set("moe_shared_experts", int64_t{m.moe->shared_experts});
      r.set("moe_dense_layers", int64_t{m.moe->dense_layers});
      r.set("moe_layer_freq", int64_t{m.moe->layer_freq});
      if (!m.moe->layer_pattern.empty()) {
        std::string pattern;
        for (const int v : m.moe->layer_pattern) pattern += v ? '1' : '0';
        r.set("moe_layer_pattern", pattern);  // one digit per layer: 1 = MoE
      }
      r.set("moe_layers_count", int64_t{m.num_moe_layers()});
      r.set("moe_capacity_factor", m.moe->capacity_factor);
      if (m.moe->router_groups > 0) {
        r.set("moe_router_groups_count", int64_t{m.moe->router_groups});
        r.set("moe_router_groups_per_token_count", int64_t{m.moe->router_groups_per_token});
      }
    }
    if (m.mla) {
      r.set("mla_kv_lora_rank", int64_t{m.mla->kv_lora_rank});
      r.set("mla_q_lora_rank", int64_t{m.mla->q_lora_rank});
      r.set("mla_qk_nope_head_dim", int64_t{m.mla->qk_nope_head_dim});
      r.set("mla_qk_rope_head_dim", int64_t{m.mla->qk_rope_head_dim});
      r.set("mla_v_head_dim", int64_t{m.mla->v_head_dim});
    }
    r.set("params_total_count", m.params_total());
    r.set("params_active_count", m.params_active());
    if (!m.checkpoint_quantization.empty()) {
      r.set("checkpoint_quantization", m.checkpoint_quantization);
      r.set("checkpoint_weight_format", m.checkpoint_weight_format.empty() ? std::string("not mapped") : m.checkpoint_weight_format);
    }
    if (!m.ignored_keys.empty()) {
      // Keys of a Hugging Face config.json this mapping does not read (shown, not silently dropped;
      // `estimate` names those that could matter).
      Table& t = r.add_table("ignored_keys", "config.json keys this model_type's mapping does not read");
      t.add_str("key");
      for (const auto& k : m.ignored_keys) t.add_row({k});
    }
  } else {
    std::vector<std::string> all = cat.accelerator_ids();
    for (auto v : {cat.system_ids(), cat.network_ids(), cat.model_ids(), cat.framework_ids()}) all.insert(all.end(), v.begin(), v.end());
    throw Error(SourceLocation{"", 0, 0, name}, "no catalog entry of that name", valid_choices_hint(name, all));
  }
  return r;
}

Result catalog_list(const Catalog& cat, const std::string& kind) {
  Result r;
  r.command = "catalog list";
  const std::vector<std::string> kinds = {"accelerators", "networks", "systems", "models", "frameworks"};
  if (!kind.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    throw Error(SourceLocation{"", 0, 0, "KIND"}, "unknown catalog kind '" + kind + "'", valid_choices_hint(kind, kinds));
  r.set("catalog_dir", folder_of(cat));
  if (kind.empty() || kind == "accelerators") {
    Table& t = r.add_table("accelerators");
    t.add_str("id"); t.add_str("name"); t.add_f64("bf16_tflops"); t.add_f64("fp8_tflops");
    t.add_f64("memory_gib"); t.add_f64("memory_bandwidth_gb_per_s"); t.add_f64("tdp_w");
    for (const auto& id : cat.accelerator_ids()) {
      const auto& a = cat.accelerator(id);
      auto pk = [&](DType d) { return a.has_peak(d) ? a.peak(d) / 1e12 : std::nan(""); };
      auto v = [](const Sourced& s, double k) { return s.known ? s.value / k : std::nan(""); };
      t.add_row({a.id, a.name, pk(DType::BF16), pk(DType::FP8), v(a.memory_bytes, 1024.0 * 1024 * 1024),
                 v(a.memory_bandwidth_bytes_per_s, 1e9), v(a.tdp_w, 1)});
    }
  }
  if (kind.empty() || kind == "networks") {
    Table& t = r.add_table("networks");
    t.add_str("id"); t.add_str("kind"); t.add_str("name"); t.add_f64("bandwidth_gb_per_s");
    for (const auto& id : cat.network_ids()) {
      const auto& n = cat.network(id);
      t.add_row({n.id, n.kind, n.name, n.bandwidth_bytes_per_s.value / 1e9});
    }
  }
  if (kind.empty() || kind == "systems") {
    Table& t = r.add_table("systems");
    t.add_str("id"); t.add_str("accelerator"); t.add_i64("gpus_per_node"); t.add_str("scale_up");
    t.add_i64("scale_up_domain_gpus"); t.add_str("scale_out");
    for (const auto& id : cat.system_ids()) {
      const auto& s = cat.system(id);
      t.add_row({s.id, s.accelerator, int64_t{s.gpus_per_node}, s.scale_up_network, int64_t{s.scale_up_domain},
                 s.scale_out_network});
    }
  }
  if (kind.empty() || kind == "models") {
    Table& t = r.add_table("models");
    t.add_str("id"); t.add_str("name"); t.add_f64("params_total_billions"); t.add_f64("params_active_billions");
    t.add_i64("layers"); t.add_i64("hidden");
    for (const auto& id : cat.model_ids()) {
      const auto& m = cat.model(id);
      t.add_row({m.id, m.name, m.params_total() / 1e9, m.params_active() / 1e9, int64_t{m.layers}, int64_t{m.hidden}});
    }
  }
  if (kind.empty() || kind == "frameworks") {
    Table& t = r.add_table("frameworks");
    t.add_str("id"); t.add_str("name"); t.add_str("zero3_gather"); t.add_str("zero3_regather_for_recompute");
    t.add_str("collective_nic_aggregation");
    for (const auto& id : cat.framework_ids()) {
      const auto& f = cat.framework(id);
      t.add_row({f.id, f.name, f.zero3_gather.value, f.zero3_regather_for_recompute.value, f.collective_nic_aggregation.value});
    }
  }
  return r;
}

namespace {
struct CatalogArgs {
  std::string kind, name, catalog_dir;
  OutputOptions out;
};
}  // namespace

void add_catalog_command(CLI::App& app) {
  auto args = std::make_shared<CatalogArgs>();
  auto* cmd = app.add_subcommand("catalog", "List and show catalog entries (accelerators, networks, systems, models, frameworks) with sources");
  cmd->require_subcommand(1);
  cmd->add_option("--catalog", args->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  auto* ls = cmd->add_subcommand("list", "List entries, optionally of one KIND");
  ls->add_option("kind", args->kind, "accelerators | networks | systems | models | frameworks");
  // --catalog after the subcommand too, as every other command takes it (it was refused there).
  ls->add_option("--catalog", args->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  add_output_options(*ls, args->out);
  auto* sh = cmd->add_subcommand("show", "Show one entry with the source of every value");
  sh->add_option("name", args->name, "Catalog id, or the path of a Hugging Face config.json or model YAML")->required();
  sh->add_option("--catalog", args->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  add_output_options(*sh, args->out);
  auto load = [args] { return args->catalog_dir.empty() ? Catalog::load_default() : Catalog::load(args->catalog_dir); };
  ls->callback([args, load] { emit(catalog_list(*load(), args->kind), args->out); });
  sh->callback([args, load] { emit(catalog_show(*load(), args->name), args->out); });
}

}  // namespace sextant::cli
