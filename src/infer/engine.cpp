#include "infer/engine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/result.hpp"
#include "infer/formats.hpp"

namespace sextant::infer {
namespace fs = std::filesystem;
namespace {
std::map<std::string, std::string> read_sources(const YamlMap& file) {
  std::map<std::string, std::string> out;
  if (auto s = file.opt_map("sources")) {
    for (const auto& k : s->keys()) out[k] = s->str(k);
    s->finish();
  }
  return out;
}

Sourced src(const YamlMap& m, const std::string& key, const std::map<std::string, std::string>& sources,
            double scale = 1.0) {
  Sourced s = m.sourced(key);
  s.value *= scale;
  // A source id that is none of the file's citations is refused, as in the catalog (`source:
  // iosx` had been printed bare; 2026-12-05 review).
  check_citation_word(m, key, s.source, sources);
  if (!s.source.empty()) {
    auto it = sources.find(s.source);
    if (it != sources.end()) s.source = it->first + ": " + it->second;
  }
  return s;
}

// The values are printed as the file gives them (format_double: 1.5, not std::to_string's
// 1.500000; 2026-12-07 review).
void check_fraction(const YamlMap& m, const std::string& key, const Sourced& s, double hi = 1.0) {
  if (s.known && !(s.value >= 0 && s.value <= hi))
    m.fail(key, "must be in [0, " + format_double(hi) + "], got " + format_double(s.value));
}
// A share of a rate that the times divide by: 0 made a decode take for ever and a serve complete
// nothing without an error (review of 2026-12-05).
void check_rate_fraction(const YamlMap& m, const std::string& key, const Sourced& s) {
  if (s.known && !(s.value > 0 && s.value <= 1)) m.fail(key, "must be in (0, 1], got " + format_double(s.value), "a share of the peak the engine reaches");
}
// A share of the device's memory (what the cache is sized from: 0 left no memory): its own hint,
// which says what the share is of (before 2026-12-07 it was the rate's "a share of the peak the
// engine reaches", review). `what`: what the share is, for the hint.
void check_memory_fraction(const YamlMap& m, const std::string& key, const Sourced& s, const std::string& what) {
  if (s.known && !(s.value > 0 && s.value <= 1)) m.fail(key, "must be in (0, 1], got " + format_double(s.value), what);
}
// A time or a price: never negative (-20000 us of overhead per iteration had made a negative TPOT).
// (scale: what the file's value was multiplied by when read, undone in the message.)
void check_not_negative(const YamlMap& m, const std::string& key, const Sourced& s, const std::string& unit, double scale = 1) {
  if (s.known && !(s.value >= 0 && std::isfinite(s.value))) m.fail(key, "must be a " + unit + " >= 0, got " + format_double(s.value / scale));
}
void check_positive(const YamlMap& m, const std::string& key, const Sourced& s, const std::string& unit, double scale = 1) {
  if (s.known && !(s.value > 0 && std::isfinite(s.value))) m.fail(key, "must be a " + unit + " > 0, got " + format_double(s.value / scale));
}

// The entries of an engine's weight_formats and kv_formats (lm: the list's {value: [...]} map) are
// compared verbatim with a deployment's canonical format names: before 2026-12-06 a misspelt one
// (fp88, q4_00, 2.5, true) was accepted, matched nothing, and was listed among the valid formats
// when a correct one was refused (review). Each is named at its own line, with the valid names.
enum class FormatList { none, weight, kv };
void check_format_list(const YamlMap& lm, const std::vector<std::string>& names, FormatList list) {
  if (list == FormatList::none) return;
  const bool kv = list == FormatList::kv;
  const auto& valid = kv ? kv_format_names() : stored_weight_format_names();
  const YAML::Node n = lm.raw("value");
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& x = names[i];
    if (std::find(valid.begin(), valid.end(), x) != valid.end()) continue;
    const YAML::Mark mark = (n.IsSequence() ? n[i] : n).Mark();
    const SourceLocation at{lm.file(), mark.line + 1, mark.column + 1, lm.key_path("value") + "." + std::to_string(i)};
    std::string why = std::string("unknown ") + (kv ? "KV-cache" : "weight") + " format '" + x + "'", meant = x;
    // A format the reader knows, but not as this list's entry, says why.
    NumberFormat f;
    bool known = true;
    try {
      f = parse_format(x);
    } catch (const Error&) {
      known = false;
    }
    if (known && f.name != x) {
      why = "'" + x + "' is written '" + f.name + "' in a format list (the deployment's format is compared by its canonical name)";
      meant = f.name;
    } else if (known && !f.gguf_base.empty()) {
      why = "'" + x + "' is a llama.cpp file type (a mix of block types), which an engine runs where it runs its base block type '" +
            f.gguf_base + "': list that";
      meant = f.gguf_base;
    } else if (known && f.name.rfind("mixed:", 0) == 0) {
      why = "'" + x + "' is a mix, which an engine runs where it runs both its parts: list those";
    } else if (known && kv) {
      why = "'" + x + "' is a weight format no engine keeps a KV cache in";
    }
    throw Error(at, why, valid_choices_hint(meant, valid));
  }
}
}  // namespace

std::shared_ptr<const InferData> InferData::load(const std::string& dir) {
  auto d = std::make_shared<InferData>();
  const fs::path ef = fs::path(dir) / "engines.yaml", df = fs::path(dir) / "devices.yaml";
  if (!fs::exists(ef)) throw Error(SourceLocation{ef.string()}, "engine file not found");
  {
    auto file = YamlMap::load_file(ef.string());
    auto sources = read_sources(file);
    for (auto& m : file.map_list("entries")) {
      EngineProfile e;
      e.file = ef.string();
      e.sources = sources;
      e.id = m.str("id");
      e.name = m.str("name", e.id);
      e.description = m.str("description", "");
      e.bandwidth_fraction = src(m, "bandwidth_fraction", sources);
      e.gemm_fraction = src(m, "gemm_fraction", sources);
      e.dequant_fraction = src(m, "dequant_fraction", sources);
      e.overlap_fraction = src(m, "overlap_fraction", sources);
      e.iteration_overhead_s = src(m, "iteration_overhead_us", sources, 1e-6);
      e.sequence_overhead_s = src(m, "sequence_overhead_us", sources, 1e-6);
      e.overhead_reference_layers = src(m, "overhead_reference_layers", sources);
      if (e.overhead_reference_layers.known &&
          !(e.overhead_reference_layers.value >= 1 && e.overhead_reference_layers.value <= 100000 &&
            e.overhead_reference_layers.value == std::floor(e.overhead_reference_layers.value)))
        m.fail("overhead_reference_layers", "must be a whole number of layers >= 1, got " + format_double(e.overhead_reference_layers.value),
               "the layers of the model iteration_overhead_us was fitted on (32 for Llama-2-7B); leave it out for a cost per pass");
      e.memory_utilization_fraction = src(m, "memory_utilization_fraction", sources);
      e.kv_block_tokens = static_cast<int>(m.i64("kv_block_tokens", 16));
      if (m.has("measured_on_kinds")) e.measured_on_kinds = m.str_list("measured_on_kinds");
      for (const auto& k : e.measured_on_kinds)
        if (k != "gpu" && k != "soc" && k != "tpu" && k != "npu" && k != "cpu")
          m.fail("measured_on_kinds", "unknown accelerator kind '" + k + "' (valid: gpu, tpu, npu, soc, cpu)");
      if (m.has("measured_on_vendors")) e.measured_on_vendors = m.str_list("measured_on_vendors");
      for (const auto& v : e.measured_on_vendors)
        if (v.empty() || v.find_first_of(" :") != std::string::npos ||
            std::any_of(v.begin(), v.end(), [](unsigned char c) { return std::isupper(c) != 0; }))
          m.fail("measured_on_vendors", "'" + v + "' is no vendor name", "the lower-case vendor of the catalog's accelerators, e.g. apple, nvidia");
      check_rate_fraction(m, "bandwidth_fraction", e.bandwidth_fraction);
      check_rate_fraction(m, "gemm_fraction", e.gemm_fraction);
      // The GEMM rate of block-quantised weights is multiplied by it: 0 had run a prefill in
      // infinite time and decoded 0 tokens/s (2026-12-07 review). overlap_fraction 0 is valid
      // (memory and compute add).
      check_rate_fraction(m, "dequant_fraction", e.dequant_fraction);
      check_fraction(m, "overlap_fraction", e.overlap_fraction);
      check_memory_fraction(m, "memory_utilization_fraction", e.memory_utilization_fraction,
                            "the share of the device's memory the engine may use for weights, KV cache and workspace "
                            "(vLLM's gpu_memory_utilization, e.g. 0.9)");
      check_not_negative(m, "iteration_overhead_us", e.iteration_overhead_s, "time in us", 1e-6);
      check_not_negative(m, "sequence_overhead_us", e.sequence_overhead_s, "time in us", 1e-6);
      if (e.kv_block_tokens <= 0) m.fail("kv_block_tokens", "must be positive");
      if (auto md = m.opt_map("matmul_dtypes")) {
        for (const auto& name : md->str_list("value")) e.matmul_dtypes.push_back(parse_dtype(name, md->loc("value")));
        if (e.matmul_dtypes.empty()) md->fail("value", "lists no dtype", "leave matmul_dtypes out: any dtype the device has");
        e.matmul_dtypes_source = md->str("source", "");
        check_citation_word(*md, "source", e.matmul_dtypes_source, sources);
        const std::string basis = md->str("estimated", "");
        if (e.matmul_dtypes_source.empty() == basis.empty())
          md->fail("value", "needs its provenance: source: ID or estimated: \"basis\" (one of the two)");
        if (e.matmul_dtypes_source.empty()) e.matmul_dtypes_source = "estimated: " + basis;
        md->finish();
      }
      // Lists with their provenance: {value: [...], source: ID | estimated: "basis"}.
      auto sourced_list = [&](const char* key, std::vector<std::string>& out, std::string& source, FormatList formats) {
        auto lm = m.opt_map(key);
        if (!lm) return;
        out = lm->str_list("value");
        if (out.empty()) lm->fail("value", "lists nothing", std::string("leave ") + key + " out: any");
        check_format_list(*lm, out, formats);
        const std::string src_id = lm->str("source", ""), basis = lm->str("estimated", "");
        check_citation_word(*lm, "source", src_id, sources);
        if (src_id.empty() == basis.empty()) lm->fail("value", "needs its provenance: source: ID or estimated: \"basis\" (one of the two)");
        // A source id is given with its text, as src() gives a number's: the refusal cites it.
        const auto cited = sources.find(src_id);
        source = src_id.empty() ? "estimated: " + basis : cited != sources.end() ? cited->first + ": " + cited->second : src_id;
        lm->finish();
      };
      sourced_list("weight_formats", e.weight_formats, e.formats_source, FormatList::weight);
      sourced_list("kv_formats", e.kv_formats, e.kv_formats_source, FormatList::kv);
      if (e.formats_source.empty()) e.formats_source = e.kv_formats_source;
      sourced_list("runs_on_kinds", e.runs_on_kinds, e.runs_on_source, FormatList::none);
      // Formats its activations are quantised into on the fly: weight formats that are also
      // activation formats narrower than 16 bits (fp8, int8, fp4, mxfp4), each at its own line.
      if (auto am = m.opt_map("dynamic_activation_formats")) {
        sourced_list("dynamic_activation_formats", e.dynamic_activation_formats, e.dynamic_activation_source, FormatList::weight);
        const YAML::Node n = am->raw("value");
        for (size_t i = 0; i < e.dynamic_activation_formats.size(); ++i) {
          const std::string& x = e.dynamic_activation_formats[i];
          bool ok = true;
          try {
            ok = parse_activation_format(x).bits_per_element < 16;
          } catch (const Error&) {
            ok = false;
          }
          if (ok) continue;
          const YAML::Mark mark = (n.IsSequence() ? n[i] : n).Mark();
          throw Error(SourceLocation{am->file(), mark.line + 1, mark.column + 1, am->key_path("value") + "." + std::to_string(i)},
                      "'" + x + "' is no format activations are quantised into on the fly",
                      "a weight format narrower than 16 bits that activations are multiplied in: fp8, int8, fp4 or mxfp4");
        }
      }
      // The KV cache's allocation (EngineProfile::kv_allocation), with its provenance.
      if (auto km = m.opt_map("kv_allocation")) {
        static const std::vector<std::string> kinds = {"paged", "context_per_sequence"};
        e.kv_allocation = km->str("value");
        if (std::find(kinds.begin(), kinds.end(), e.kv_allocation) == kinds.end())
          km->fail("value", "unknown KV-cache allocation '" + e.kv_allocation + "'", valid_choices_hint(e.kv_allocation, kinds));
        const std::string src_id = km->str("source", ""), basis = km->str("estimated", "");
        check_citation_word(*km, "source", src_id, sources);
        if (src_id.empty() == basis.empty()) km->fail("value", "needs its provenance: source: ID or estimated: \"basis\" (one of the two)");
        const auto cited = sources.find(src_id);
        e.kv_allocation_source = src_id.empty() ? "estimated: " + basis : cited != sources.end() ? cited->first + ": " + cited->second : src_id;
        km->finish();
      }
      for (const auto& k : e.runs_on_kinds)
        if (k != "gpu" && k != "soc" && k != "tpu" && k != "npu" && k != "cpu")
          m.fail("runs_on_kinds", "unknown accelerator kind '" + k + "' (valid: gpu, tpu, npu, soc, cpu)");
      m.finish();
      if (d->engines_.count(e.id)) throw Error(m.loc("id"), "duplicate engine id '" + e.id + "'");
      d->engines_[e.id] = std::move(e);
    }
    file.finish();
  }
  if (fs::exists(df)) {
    auto file = YamlMap::load_file(df.string());
    auto sources = read_sources(file);
    for (auto& m : file.map_list("entries")) {
      DeviceProfile p;
      p.file = df.string();
      p.match = m.str("match");
      p.match_loc = m.loc("match");
      // The forms of a match; an accelerator id is checked against the catalog when a deployment
      // is resolved (InferData::check_matches). A misspelt form had been ignored without a word.
      static const std::vector<std::string> kinds = {"gpu", "tpu", "npu", "soc", "cpu", "any"},
                                            platforms = {"macos", "ios", "android", "linux", "windows"};
      if (p.match.rfind("kind:", 0) == 0) {
        const size_t sp = p.match.find(' ');
        const std::string kind = p.match.substr(5, sp == std::string::npos ? std::string::npos : sp - 5);
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
          m.fail("match", "unknown kind '" + kind + "' in '" + p.match + "'", valid_choices_hint(kind, kinds));
        if (sp != std::string::npos && (p.match.compare(sp + 1, 7, "vendor:") != 0 || p.match.size() <= sp + 8 || kind == "any"))
          m.fail("match", "'" + p.match + "' is no match form", "kind:<kind>, kind:<kind> vendor:<vendor>, kind:any, platform:<os> or an accelerator id");
      } else if (p.match.rfind("platform:", 0) == 0) {
        const std::string os = p.match.substr(9);
        if (std::find(platforms.begin(), platforms.end(), os) == platforms.end())
          m.fail("match", "unknown platform '" + os + "'", valid_choices_hint(os, platforms));
      } else if (p.match.empty() || p.match.find_first_of(" :") != std::string::npos) {
        m.fail("match", "'" + p.match + "' is no match form", "kind:<kind>, kind:<kind> vendor:<vendor>, kind:any, platform:<os> or an accelerator id");
      }
      p.memory_available_fraction = src(m, "memory_available_fraction", sources);
      p.memory_recommended_fraction = src(m, "memory_recommended_fraction", sources);
      p.above_memory_bytes = m.f64("above_memory_gib", 0) * 1073741824.0;
      if (!(p.above_memory_bytes >= 0)) m.fail("above_memory_gib", "must be a size in GiB >= 0");
      p.idle_power_fraction = src(m, "idle_power_fraction", sources);
      p.usd_per_hour = src(m, "usd_per_hour", sources);
      p.link_bandwidth_bytes_per_s = src(m, "link_bandwidth_gb_per_s", sources, 1e9);
      p.link_latency_s = src(m, "link_latency_us", sources, 1e-6);
      check_memory_fraction(m, "memory_available_fraction", p.memory_available_fraction,
                            "the share of the device's memory an application may allocate (the rest the OS and the driver keep), "
                            "e.g. 0.9");
      check_memory_fraction(m, "memory_recommended_fraction", p.memory_recommended_fraction,
                            "the share of the device's memory beyond which the platform warns but allocates (Metal's recommended "
                            "working set: 0.75 of a 36 GB Mac), e.g. 0.66667");
      check_fraction(m, "idle_power_fraction", p.idle_power_fraction);
      check_positive(m, "usd_per_hour", p.usd_per_hour, "price in USD per device-hour");
      check_positive(m, "link_bandwidth_gb_per_s", p.link_bandwidth_bytes_per_s, "bandwidth in GB/s", 1e9);
      check_not_negative(m, "link_latency_us", p.link_latency_s, "time in us", 1e-6);
      m.finish();
      // One match may have entries for several sizes (above_memory_gib), each once: the Macs'
      // platform:macos holds the 2/3 of any Mac and the 3/4 above 32 GiB (2026-12-07 review: the
      // 3/4 had been 18 per-id entries, which a Mac of a user catalog never took). Kept by size,
      // the largest first, so that the lookup takes the largest size a device is above.
      auto& same = d->devices_[p.match];
      for (const auto& q : same)
        if (q.above_memory_bytes == p.above_memory_bytes)
          m.fail("match", "a second entry for '" + p.match + "'" +
                              (p.above_memory_bytes > 0 ? " above " + format_double(p.above_memory_bytes / 1073741824.0) + " GiB" : std::string()),
                 "merge the two entries (entries of one match differ by above_memory_gib)");
      same.push_back(std::move(p));
      std::stable_sort(same.begin(), same.end(),
                       [](const DeviceProfile& a, const DeviceProfile& b) { return a.above_memory_bytes > b.above_memory_bytes; });
    }
    file.finish();
  }
  return d;
}

std::vector<std::string> InferData::match_notes(const Accelerator& a, const std::vector<std::string>& accelerator_ids) const {
  // An entry whose id is no accelerator of the catalog but close to this run's accelerator, which
  // has no entry of its own, was probably meant for it (`match: apple-a17pro` had dropped the
  // iPhone's limit without a word). Said, not refused: an entry of another catalog (a user's own
  // chips, or the bundled ids under --catalog) is no error, and never blocks another device.
  std::vector<std::string> out;
  if (devices_.count(a.id)) return out;
  for (const auto& [match, entries] : devices_) {
    if (match.rfind("kind:", 0) == 0 || match.rfind("platform:", 0) == 0) continue;
    const DeviceProfile& p = entries.back();  // the match's first size (any size, when it has one)
    if (std::find(accelerator_ids.begin(), accelerator_ids.end(), match) != accelerator_ids.end()) continue;
    if (closest_match(match, {a.id}).empty()) continue;
    out.push_back(p.match_loc.file + ":" + std::to_string(p.match_loc.line) + ": the entry for '" + match +
                  "' names no accelerator of the catalog and does not apply to " + a.id + ", which has no entry of its own: if it was meant "
                  "for " + a.id + ", correct its match (" + a.id + " takes its platform's and kind's defaults)");
  }
  return out;
}

std::shared_ptr<const InferData> InferData::load_default() {
  return load((fs::path(data_dir()) / "infer").string());
}

const EngineProfile& InferData::engine(const std::string& id) const {
  auto it = engines_.find(id);
  if (it == engines_.end())
    throw Error(SourceLocation{"", 0, 0, "engine"}, "unknown inference engine '" + id + "'",
                valid_choices_hint(id, engine_ids()));
  return it->second;
}

std::vector<std::string> InferData::engine_ids() const {
  std::vector<std::string> v;
  for (const auto& [k, _] : engines_) v.push_back(k);
  return v;
}

DeviceProfile InferData::device(const Accelerator& a) const {
  // Field-wise: the accelerator's own entry, then its platform's ("platform:macos": the Macs' Metal
  // limits, which a Jetson in a user catalog had taken as a kind:soc default), then its vendor's
  // of its kind ("kind:soc vendor:V"), then its kind's, then "kind:any".
  DeviceProfile out;
  out.match = a.id;
  std::vector<std::string> keys = {a.id};
  if (!a.platform.empty()) keys.push_back("platform:" + a.platform);
  for (const std::string& k : {"kind:" + a.kind + " vendor:" + a.vendor, "kind:" + a.kind, std::string("kind:any")}) keys.push_back(k);
  // A match's entries for several sizes come largest first: the device's memory above an entry's
  // above_memory_gib takes its memory shares, a platform's as an id's (2026-12-07 review: a Mac of
  // a user catalog above 32 GiB had taken platform:macos's 2/3 where Metal recommends 3/4).
  for (const std::string& key : keys) {
    auto it = devices_.find(key);
    if (it == devices_.end()) continue;
    for (const auto& p : it->second) {
      const bool size_applies = !(p.above_memory_bytes > 0 && a.memory_bytes.value <= p.above_memory_bytes);
      if (!out.memory_available_fraction.known && size_applies) out.memory_available_fraction = p.memory_available_fraction;
      if (!out.memory_recommended_fraction.known && size_applies) out.memory_recommended_fraction = p.memory_recommended_fraction;
      if (!out.idle_power_fraction.known) out.idle_power_fraction = p.idle_power_fraction;
      if (!out.usd_per_hour.known) out.usd_per_hour = p.usd_per_hour;
      if (!out.link_bandwidth_bytes_per_s.known) out.link_bandwidth_bytes_per_s = p.link_bandwidth_bytes_per_s;
      if (!out.link_latency_s.known) out.link_latency_s = p.link_latency_s;
      if (out.file.empty()) out.file = p.file;
    }
  }
  return out;
}

}  // namespace sextant::infer
