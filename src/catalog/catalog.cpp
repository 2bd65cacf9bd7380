#include "catalog/catalog.hpp"
#include "catalog/reference_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <tuple>

#include "core/atomic_file.hpp"
#include "core/paths.hpp"
#include "core/result.hpp"

namespace sextant {

namespace {
// Catalog integers are ints: a value that does not fit is an error, never a silent truncation.
int to_int(const YamlMap& m, const std::string& key, int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX) m.fail(key, "integer out of range: " + std::to_string(v));
  return static_cast<int>(v);
}
}  // namespace

namespace fs = std::filesystem;

// ---------------------------------------------------------------- dtypes
const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> n = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4"};
  return n;
}

DType parse_dtype(const std::string& s, const SourceLocation& where) {
  const auto& n = dtype_names();
  for (size_t i = 0; i < n.size(); ++i)
    if (n[i] == s) return static_cast<DType>(i);
  throw Error(where, "unknown number format '" + s + "'", valid_choices_hint(s, n));
}

std::string to_string(DType d) { return dtype_names()[static_cast<size_t>(d)]; }

double dtype_bytes(DType d) {
  switch (d) {
    case DType::FP64: return 8;
    case DType::FP32: case DType::TF32: return 4;
    case DType::BF16: case DType::FP16: return 2;
    case DType::FP8: case DType::INT8: return 1;
    case DType::FP4: case DType::INT4: return 0.5;
  }
  return 2;
}

// ---------------------------------------------------------------- helpers
static Sourced scaled(Sourced s, double k) {
  s.value *= k;
  return s;
}

static Sourced resolve(Sourced s, const std::map<std::string, std::string>& sources) {
  // A source that names a citation id of the file is replaced by "id: text" so the
  // provenance reads on its own; free-text sources are kept as written.
  if (!s.source.empty()) {
    auto it = sources.find(s.source);
    if (it != sources.end()) s.source = it->first + ": " + it->second;
  }
  return s;
}

static Sourced src(const YamlMap& m, const std::string& key, const std::map<std::string, std::string>& sources,
                   double scale = 1.0) {
  Sourced v = m.sourced(key);
  // In a file that lists citations, a source written as one word that is none of them is a
  // misspelt id (`h100-wpp` for `h100-wp`), not free text: it was kept as the provenance. So is
  // the word before the colon of "ID: arithmetic" (the form for a citation with the arithmetic
  // applied). Until 2026-12-05 only lower-case words were checked: `IEEE8023`, `ieee8O23`,
  // `ieee8023;` and `"ieee8032: per port"` were kept unresolved. A URL is free text.
  check_citation_word(m, key, v.source, sources);
  // A finite value that its unit's scale carries past a double's range (1e308 Gbit/s) is said as
  // such: the range checks after it had read "must be a positive bandwidth" or "got inf" (review
  // of 2026-12-05).
  if (v.known && std::isfinite(v.value) && !std::isfinite(v.value * scale))
    m.fail(key, "the value " + format_double(v.value) + " overflows a double once converted to base units (x " + format_double(scale) + ")",
           "give a value in the range of real hardware");
  return resolve(scaled(v, scale), sources);
}

// A yes/no fact with its provenance (review, 2026-12-07): {value: true|false, source: ID} or
// {value: ..., estimated: "basis"}, or `unknown` / left out (known = false); held as a Sourced of
// value 1 (true) or 0 (false), its source resolved as a number's.
static Sourced src_flag(const YamlMap& m, const std::string& key, const std::map<std::string, std::string>& sources) {
  Sourced s;
  if (!m.has(key)) return s;
  const YAML::Node n = m.raw(key);
  if (n.IsScalar() && n.Scalar() == "unknown") return s;
  const char* form = "write {value: true, source: ID}, {value: false, source: ID}, {value: ..., estimated: \"basis\"} or unknown";
  if (!n.IsMap()) m.fail(key, "a catalog fact needs its value and its provenance", form);
  const YamlMap f(n, m.file(), m.key_path(key));
  s.value = f.boolean("value") ? 1 : 0;
  s.source = f.str("source", "");
  s.estimated = f.str("estimated", "");
  if (f.has("source") && is_blank(s.source)) f.fail("source", "is empty: a catalog fact needs its provenance", form);
  if (f.has("estimated") && is_blank(s.estimated)) f.fail("estimated", "is empty: an estimate needs its basis", form);
  if (s.source.empty() && s.estimated.empty()) m.fail(key, "a catalog fact needs its provenance", "add source: ID or estimated: \"basis\"");
  if (!s.source.empty() && !s.estimated.empty())
    f.fail("estimated", "a fact is either sourced or estimated, not both", "keep source: for a published one, estimated: for a derived one");
  f.finish();
  check_citation_word(m, key, s.source, sources);
  s.known = true;
  return resolve(s, sources);
}

double Accelerator::peak(DType d) const {
  auto it = peak_flops.find(d);
  if (it == peak_flops.end() || !it->second.known)
    throw Error(SourceLocation{file, 0, 0, id + ".peak_tflops." + to_string(d)},
                "accelerator '" + id + "' has no published peak for " + to_string(d));
  return it->second.value;
}

bool Accelerator::has_peak(DType d) const {
  auto it = peak_flops.find(d);
  return it != peak_flops.end() && it->second.known;
}

double Accelerator::gemm_fraction(DType d) const {
  auto it = gemm_peak_fraction.find(d);
  if (it != gemm_peak_fraction.end() && it->second.known) return it->second.value;
  if (d == DType::FP16) return gemm_fraction(DType::BF16);
  it = gemm_peak_fraction.find(DType::BF16);
  if (it != gemm_peak_fraction.end() && it->second.known) {
    // Lower-precision GEMMs reach a smaller fraction of their doubled peak (memory and
    // epilogue costs do not halve); 0.9x of the bf16 fraction, see docs/models.md.
    if (d == DType::FP8 || d == DType::FP4 || d == DType::INT8) return 0.9 * it->second.value;
    return it->second.value;
  }
  return 0.75;  // documented default for accelerators without a measured MAMF
}

GemmHalfDims Accelerator::gemm_half_dims(double default_half_dim) const {
  const double h = gemm_half_dim.known ? gemm_half_dim.value : default_half_dim;
  auto role = [h](const Sourced& s) { return s.known ? s.value : h; };
  return GemmHalfDims{role(gemm_half_dim_m), role(gemm_half_dim_n), role(gemm_half_dim_k)};
}

std::optional<std::pair<std::string, std::string>> scale_up_domain_problem(int domain_gpus, int gpus_per_node) {
  // A domain is whole nodes (an NVL72 rack: 18 of 4, or one node). Part of a node (NVLink-bridged
  // PCIe pairs) had been accepted, but the fabric has no path between two domains of one node other
  // than the NICs: a one-node job's TP ran at the NIC's share of bandwidth and changed 7.9x with
  // nics_per_node (review of 2026-12-06).
  if (gpus_per_node <= 0 || domain_gpus % gpus_per_node == 0) return std::nullopt;
  const std::string g = std::to_string(gpus_per_node);
  return std::make_pair(
      "a scale-up domain of " + std::to_string(domain_gpus) + " GPUs is not whole nodes of " + g +
          (gpus_per_node % domain_gpus == 0 ? ": domains within one node would reach each other only through the scale-out NICs, the one "
                                              "path between domains Sextant models"
                                            : ""),
      "a multiple of " + g + " (the node's GPUs on one link: for a PCIe server, scale_up: {network: pcie4-x16 or pcie5-x16, domain_gpus: " + g +
          "}; bridged pairs are then priced at the PCIe rate)");
}

double bandwidth_at_working_set(const std::vector<WorkingSetBandwidth>& table, double bytes) {
  // The least bandwidth of the rows up to that one: a larger working set never reads faster than a
  // smaller one did. A hand-written table, or one calibrated before calibrate wrote the envelope,
  // may rise with the noise of its repetitions (78 GB/s at 2 MiB after 45 at 1 MiB), and a GEMM
  // twice as large had then been given less operand-traffic time (review of 2026-12-07).
  double bw = table.front().bytes_per_s;
  for (const auto& p : table) {
    bw = std::min(bw, p.bytes_per_s);
    if (p.working_set_bytes >= bytes) return bw;
  }
  return bw;
}

double gemm_operand_traffic_s(double m, double n, double k, double element_bytes, const std::vector<WorkingSetBandwidth>& table,
                              double fitted_footprint_bytes) {
  const double f = gemm_footprint_bytes(m, n, k, element_bytes);
  if (f <= fitted_footprint_bytes) return 0;
  const double extra_s_per_byte = 1 / bandwidth_at_working_set(table, f) - 1 / bandwidth_at_working_set(table, fitted_footprint_bytes);
  return extra_s_per_byte > 0 ? f * extra_s_per_byte : 0;
}

// ---------------------------------------------------------------- parsers
// bandwidth_by_working_set: {source: ID | estimated: basis, points: [{working_set_kib: X, gb_per_s: Y}, ...]}
// with at least two points, working sets > 0 strictly increasing, bandwidths > 0.
static WorkingSetBandwidthTable parse_working_set_bandwidth(const YamlMap& m, const std::string& key,
                                                            const std::map<std::string, std::string>& sources) {
  WorkingSetBandwidthTable t;
  auto b = m.opt_map(key);
  if (!b) return t;
  for (const char* k : {"source", "estimated", "points"}) b->raw(k);  // the valid keys: an unknown one is named first
  b->finish();
  t.source = b->str("source", "");
  t.estimated = b->str("estimated", "");
  // A blank source or basis is none, and a source is checked against the file's citations, as a
  // number's is (review, 2026-12-07: `source: "  "` had loaded).
  if (b->has("source") && is_blank(t.source)) b->fail("source", "is empty: the table needs its provenance", "name the citation, or write estimated: \"basis\"");
  if (b->has("estimated") && is_blank(t.estimated)) b->fail("estimated", "is empty: an estimate needs its basis", "say how the table was obtained");
  if (t.source.empty() == t.estimated.empty())
    b->fail("source", "the table needs its provenance", "give exactly one of source: ID or estimated: \"basis\"");
  check_citation_word(*b, "source", t.source, sources);
  if (auto it = sources.find(t.source); it != sources.end()) t.source = it->first + ": " + it->second;
  const auto rows = b->map_list("points");
  if (rows.size() < 2) b->fail("points", "needs at least two {working_set_kib, gb_per_s} points");
  for (const auto& r : rows) {
    r.raw("working_set_kib");  // the valid keys: an unknown one is named before a missing one
    r.raw("gb_per_s");
    r.finish();
    WorkingSetBandwidth p{r.f64("working_set_kib") * 1024.0, r.f64("gb_per_s") * 1e9};
    if (!(p.working_set_bytes > 0)) r.fail("working_set_kib", "a working set must be > 0 KiB");
    if (!(p.bytes_per_s > 0)) r.fail("gb_per_s", "a bandwidth must be > 0 GB/s");
    if (!t.points.empty() && !(p.working_set_bytes > t.points.back().working_set_bytes))
      r.fail("working_set_kib", "working sets must be strictly increasing down the list");
    t.points.push_back(p);
  }
  b->finish();
  return t;
}

// A file's citations. A blank id or citation text is refused at its line: a number citing it had
// loaded with the provenance "me: " (review, 2026-12-07; docs/errors.md: an empty source is none).
static std::map<std::string, std::string> read_sources(const YamlMap& file) {
  std::map<std::string, std::string> out;
  if (auto s = file.opt_map("sources")) {
    for (const auto& k : s->keys()) {
      if (is_blank(k)) s->fail(k, "a citation id is empty", "give each citation an id of one word (h100-ds) that values name as source: ID");
      out[k] = s->str(k);
      if (is_blank(out[k]))
        s->fail(k, "the citation '" + k + "' is empty", "write the document, its edition or year, and the table or section the values come from");
    }
    s->finish();
  }
  return out;
}

namespace {
// The range a catalog number must lie in: a negative peak or a zero bandwidth would give a negative
// MFU or an infinite step, not an error (docs/errors.md: impossible inputs are errors).
enum class Range { Positive, NonNegative, Fraction /* (0, 1] */, UnitInterval /* [0, 1] */ };
// `scale`: what the value was multiplied by when read (1e12 for TFLOP/s): the message shows it in
// the unit the file writes (a -5 TFLOP/s peak read "got -5e+12").
void require_range(const YamlMap& m, const std::string& key, const Sourced& v, Range r, const char* what, double scale = 1) {
  if (!v.known) return;
  const double x = v.value / scale;
  bool ok = std::isfinite(x);
  const char* rule = "";
  switch (r) {
    case Range::Positive: ok = ok && x > 0; rule = "> 0"; break;
    case Range::NonNegative: ok = ok && x >= 0; rule = ">= 0"; break;
    case Range::Fraction: ok = ok && x > 0 && x <= 1; rule = "in (0, 1]"; break;
    case Range::UnitInterval: ok = ok && x >= 0 && x <= 1; rule = "in [0, 1]"; break;
  }
  if (!ok) m.fail(key, std::string(what) + " must be finite and " + rule + ", got " + format_double(x), "or `unknown` where it is not published");
}

// The most a field can plausibly hold, in the unit the file writes: a value above it is the base
// unit typed into a scaled field (`peak_tflops.bf16: {value: 900000000000000}`, FLOP/s in a
// TFLOP/s field, ran at 9e26 FLOP/s; `memory_gib: 85899345920`, bytes in a GiB field, loaded;
// review, 2026-12-07). Only > 0 had been checked. The bounds are far beyond any part, so that a
// hypothetical one (or a study of one at 10x today's figures) loads: 1e6 TFLOP/s is some 70x the
// largest dense rate in the catalog (GB300's FP4, 15,000) and 8x a wafer-scale chip's 125 PFLOP/s;
// 1e6 GiB is about a PiB; 1e10 GB/s is 10 EB/s, 500x a wafer's on-chip SRAM bandwidth. A value in
// the base unit exceeds them for any real part (1 GiB is 1.07e9 bytes, 1 TFLOP/s is 1e12 FLOP/s).
struct Plausible {
  double max;            // in the file's unit
  const char* unit;      // the file's unit ("TFLOP/s")
  const char* mistaken;  // the unit a value above max looks like ("FLOP/s")
  const char* example;   // the value written right, for the hint
};
constexpr Plausible kPeakTflops{1e6, "TFLOP/s", "FLOP/s", "989.4 for 989.4e12 FLOP/s"};
constexpr Plausible kPeakTops{1e6, "TOPS", "operations per second", "1979 for 1979e12 operations per second"};
constexpr Plausible kMemoryGib{1e6, "GiB", "bytes", "80 for 80 GiB, 85899345920 bytes"};
constexpr Plausible kCacheMib{1e6, "MiB", "bytes", "50 for 50 MiB, 52428800 bytes"};
constexpr Plausible kGbPerS{1e10, "GB/s", "bytes per second", "3350 for 3.35e12 bytes per second"};
constexpr Plausible kGbitPerS{8e10, "Gb/s", "bits per second", "400 for a 400 Gb/s port, 4e11 bits per second"};

// `scale`: what the value was multiplied by when read (1e12 for TFLOP/s).
void require_plausible(const YamlMap& m, const std::string& key, const Sourced& v, double scale, const Plausible& p) {
  if (!v.known || !(v.value / scale > p.max)) return;
  m.fail(key,
         format_double(v.value / scale) + " " + p.unit + " is above " + format_double(p.max) + " " + p.unit +
             ", far beyond any device: it looks like a value in " + p.mistaken + " given in a field in " + p.unit,
         std::string("write it in ") + p.unit + " (" + p.example + ")");
}
}  // namespace

Accelerator parse_accelerator(const YamlMap& m, const std::map<std::string, std::string>& sources) {
  Accelerator a;
  a.sources = sources;
  a.file = m.file();
  a.id = m.str("id");
  a.name = m.str("name");
  a.vendor = m.str("vendor");
  a.kind = m.choice("kind", {"gpu", "tpu", "npu", "soc", "cpu"});
  if (m.has("platform")) a.platform = m.choice("platform", {"macos", "ios", "android", "linux", "windows"});
  a.year = to_int(m, "year", m.i64("year", 0));
  // A release year (left out: unknown); -1 had been accepted (review of 2026-12-06).
  if (m.has("year") && (a.year < 1950 || a.year > 2100)) m.fail("year", "must be a release year from 1950 to 2100, got " + std::to_string(a.year), "or leave it out");
  if (auto p = m.opt_map("peak_tflops")) {
    for (const auto& k : p->keys()) {
      DType d = parse_dtype(k, p->loc(k));
      a.peak_flops[d] = src(*p, k, sources, 1e12);
      require_range(*p, k, a.peak_flops[d], Range::Positive, "a peak rate (TFLOP/s)", 1e12);
      require_plausible(*p, k, a.peak_flops[d], 1e12, d == DType::INT8 || d == DType::INT4 ? kPeakTops : kPeakTflops);
    }
    p->finish();
  }
  a.memory_bytes = src(m, "memory_gib", sources, 1024.0 * 1024 * 1024);
  require_range(m, "memory_gib", a.memory_bytes, Range::Positive, "a memory capacity (GiB)", 1024.0 * 1024 * 1024);
  require_plausible(m, "memory_gib", a.memory_bytes, 1024.0 * 1024 * 1024, kMemoryGib);
  a.memory_bandwidth_bytes_per_s = src(m, "memory_bandwidth_gb_per_s", sources, 1e9);
  require_range(m, "memory_bandwidth_gb_per_s", a.memory_bandwidth_bytes_per_s, Range::Positive, "a memory bandwidth (GB/s)", 1e9);
  require_plausible(m, "memory_bandwidth_gb_per_s", a.memory_bandwidth_bytes_per_s, 1e9, kGbPerS);
  a.cache_bytes = src(m, "cache_mib", sources, 1024.0 * 1024);
  require_range(m, "cache_mib", a.cache_bytes, Range::NonNegative, "a cache size (MiB)", 1024.0 * 1024);
  require_plausible(m, "cache_mib", a.cache_bytes, 1024.0 * 1024, kCacheMib);
  a.compute_units = src(m, "compute_units", sources);
  require_range(m, "compute_units", a.compute_units, Range::Positive, "a compute-unit count");
  // A count of cores is whole (2.5 had been accepted; review of 2026-12-06).
  if (a.compute_units.known && (a.compute_units.value != std::floor(a.compute_units.value) || a.compute_units.value > INT32_MAX))
    m.fail("compute_units", "a compute-unit count must be a whole number from 1 to " + std::to_string(INT32_MAX) + ", got " +
                                format_double(a.compute_units.value));
  a.bandwidth_by_working_set = parse_working_set_bandwidth(m, "bandwidth_by_working_set", sources);
  a.tdp_w = src(m, "tdp_w", sources);
  require_range(m, "tdp_w", a.tdp_w, Range::Positive, "a board power (W)");
  a.idle_w = src(m, "idle_w", sources);
  require_range(m, "idle_w", a.idle_w, Range::NonNegative, "an idle power (W)");
  if (a.idle_w.known && a.tdp_w.known && a.idle_w.value > a.tdp_w.value)
    m.fail("idle_w", "idle power " + format_double(a.idle_w.value) + " W is above the TDP of " + format_double(a.tdp_w.value) + " W");
  a.price_usd = src(m, "price_usd", sources);
  require_range(m, "price_usd", a.price_usd, Range::NonNegative, "a price (USD)");
  const std::vector<YamlMap> caps = m.map_list("power_caps");
  for (const auto& pc : caps) {
    PowerCapPoint p;
    p.power_w = pc.f64("power_w");
    if (!(p.power_w > 0) || !std::isfinite(p.power_w)) pc.fail("power_w", "must be a finite power > 0 (W)");
    // A cap lowers the board's power: one above the TDP had loaded (900 W on a 700 W part; review,
    // 2026-12-07), and the power model skipped it without a word.
    if (a.tdp_w.known && p.power_w > a.tdp_w.value)
      pc.fail("power_w", "a power cap of " + format_double(p.power_w) + " W is above the board's TDP of " + format_double(a.tdp_w.value) + " W",
              "a cap is a limit at or below tdp_w, the throughput the board reaches held to that power");
    for (const auto& q : a.power_caps)
      if (q.power_w == p.power_w) pc.fail("power_w", "a power cap of " + format_double(p.power_w) + " W is given twice", "give each limit once");
    p.clock_mhz = src(pc, "clock_mhz", sources);
    require_range(pc, "clock_mhz", p.clock_mhz, Range::Positive, "a clock (MHz)");
    p.bf16_tflops = src(pc, "bf16_tflops", sources, 1e12);
    require_range(pc, "bf16_tflops", p.bf16_tflops, Range::Positive, "a peak rate (TFLOP/s)", 1e12);
    require_plausible(pc, "bf16_tflops", p.bf16_tflops, 1e12, kPeakTflops);
    const auto bf16 = a.peak_flops.find(DType::BF16);
    if (p.bf16_tflops.known && bf16 != a.peak_flops.end() && bf16->second.known && bf16->second.value > 0) {
      p.clock_ratio = p.bf16_tflops.value / bf16->second.value;
      if (p.clock_ratio > 1 + 1e-9)
        pc.fail("bf16_tflops", format_double(p.bf16_tflops.value / 1e12) + " TFLOP/s under a power limit is above the bf16 peak of " +
                                   format_double(bf16->second.value / 1e12));
    }
    pc.finish();
    a.power_caps.push_back(p);
  }
  // A higher limit never runs slower than a lower one (a 600 W cap at 450 TFLOP/s beside a 500 W cap
  // at 700 had loaded, and the power model interpolated a clock that fell as the limit rose;
  // review, 2026-12-07): each cap's rate and clock at least those of every lower cap, in any order
  // the file lists them.
  for (size_t i = 0; i < a.power_caps.size(); ++i)
    for (size_t j = 0; j < a.power_caps.size(); ++j) {
      const PowerCapPoint &hi = a.power_caps[i], &lo = a.power_caps[j];
      if (!(hi.power_w > lo.power_w)) continue;
      for (const auto& [key, mine, theirs, unit] :
           {std::tuple<const char*, const Sourced*, const Sourced*, double>{"bf16_tflops", &hi.bf16_tflops, &lo.bf16_tflops, 1e12},
            {"clock_mhz", &hi.clock_mhz, &lo.clock_mhz, 1.0}})
        if (mine->known && theirs->known && mine->value < theirs->value)
          caps[i].fail(key, std::string(key) + " " + format_double(mine->value / unit) + " at " + format_double(hi.power_w) + " W is below the " +
                                format_double(theirs->value / unit) + " of the lower cap at " + format_double(lo.power_w) +
                                " W: a higher power limit cannot run slower",
                       "check the two caps' powers and rates (each cap: the board held to power_w, flat out)");
    }
  a.fp8_block_scaling = src_flag(m, "fp8_block_scaling", sources);
  if (auto e = m.opt_map("efficiency")) {
    if (auto g = e->opt_map("gemm_peak_fraction")) {
      for (const auto& k : g->keys()) {
        const DType d = parse_dtype(k, g->loc(k));
        a.gemm_peak_fraction[d] = src(*g, k, sources);
        require_range(*g, k, a.gemm_peak_fraction[d], Range::Fraction, "a fraction of the peak");
      }
      g->finish();
    }
    a.gemm_half_dim = src(*e, "gemm_half_dim", sources);
    a.gemm_half_dim_m = src(*e, "gemm_half_dim_m", sources);
    a.gemm_half_dim_n = src(*e, "gemm_half_dim_n", sources);
    a.gemm_half_dim_k = src(*e, "gemm_half_dim_k", sources);
    for (const auto& [key, v] : {std::pair<const char*, const Sourced*>{"gemm_half_dim", &a.gemm_half_dim},
                                 {"gemm_half_dim_m", &a.gemm_half_dim_m},
                                 {"gemm_half_dim_n", &a.gemm_half_dim_n},
                                 {"gemm_half_dim_k", &a.gemm_half_dim_k}})
      if (v->known && !(v->value >= 0)) e->fail(key, "a GEMM half-dimension must be >= 0 (elements)");
    a.gemm_fitted_footprint_bytes = src(*e, "gemm_fitted_footprint_mib", sources, 1024.0 * 1024);
    if (a.gemm_fitted_footprint_bytes.known && !(a.gemm_fitted_footprint_bytes.value > 0))
      e->fail("gemm_fitted_footprint_mib", "the fitted GEMM footprint must be > 0 MiB");
    a.memory_bandwidth_fraction = src(*e, "memory_bandwidth_fraction", sources);
    require_range(*e, "memory_bandwidth_fraction", a.memory_bandwidth_fraction, Range::Fraction, "a fraction of the peak bandwidth");
    a.attention_fraction = src(*e, "attention_fraction", sources);
    require_range(*e, "attention_fraction", a.attention_fraction, Range::Positive, "a ratio of the attention rate to the GEMM rate");
    a.kernel_overhead_s = src(*e, "kernel_overhead_us", sources, 1e-6);
    require_range(*e, "kernel_overhead_us", a.kernel_overhead_s, Range::NonNegative, "a time per kernel (us)", 1e-6);
    a.comm_compute_interference = src(*e, "comm_compute_interference", sources);
    require_range(*e, "comm_compute_interference", a.comm_compute_interference, Range::UnitInterval, "a fractional slow-down");
    a.sustained_compute_fraction = src(*e, "sustained_compute_fraction", sources);
    require_range(*e, "sustained_compute_fraction", a.sustained_compute_fraction, Range::Fraction, "a fraction of the burst rate");
    a.fp8_block_scaled_gemm_fraction = src(*e, "fp8_block_scaled_gemm_fraction", sources);
    require_range(*e, "fp8_block_scaled_gemm_fraction", a.fp8_block_scaled_gemm_fraction, Range::Fraction,
                  "a fraction of the per-tensor-scaled FP8 GEMM rate");
    // A rate for GEMMs the part cannot run contradicts its entry (review, 2026-12-07).
    if (a.fp8_block_scaled_gemm_fraction.known && a.lacks_fp8_block_scaling())
      e->fail("fp8_block_scaled_gemm_fraction", "a block-scaled FP8 GEMM rate is given, but the entry's fp8_block_scaling is false",
              "leave the fraction out, or correct fp8_block_scaling");
    e->finish();
    if (a.gemm_fitted_footprint_bytes.known != a.bandwidth_by_working_set.known())
      e->fail("gemm_fitted_footprint_mib",
              a.bandwidth_by_working_set.known() ? "bandwidth_by_working_set is given but efficiency.gemm_fitted_footprint_mib is not"
                                                 : "efficiency.gemm_fitted_footprint_mib is given but bandwidth_by_working_set is not",
              "the GEMM operand-traffic term needs both (sextant calibrate writes them together); give both or neither");
  } else if (a.bandwidth_by_working_set.known()) {
    m.fail("bandwidth_by_working_set", "bandwidth_by_working_set is given but efficiency.gemm_fitted_footprint_mib is not",
           "the GEMM operand-traffic term needs both (sextant calibrate writes them together); give both or neither");
  }
  m.finish();
  return a;
}

NetworkTech parse_network(const YamlMap& m, const std::map<std::string, std::string>& sources) {
  NetworkTech n;
  n.sources = sources;
  n.file = m.file();
  n.id = m.str("id");
  n.name = m.str("name");
  n.kind = m.choice("kind", {"scale_up", "scale_out", "pcie"});
  const bool bytes = m.has("bandwidth_gb_per_s"), bits = m.has("bandwidth_gbit_per_s");
  if (bytes == bits)
    m.fail("bandwidth_gb_per_s", "give exactly one of bandwidth_gb_per_s (GB/s) or bandwidth_gbit_per_s (Gb/s)");
  n.bandwidth_bytes_per_s = bytes ? src(m, "bandwidth_gb_per_s", sources, 1e9) : src(m, "bandwidth_gbit_per_s", sources, 1e9 / 8);
  m.raw(bytes ? "bandwidth_gbit_per_s" : "bandwidth_gb_per_s");
  require_range(m, bytes ? "bandwidth_gb_per_s" : "bandwidth_gbit_per_s", n.bandwidth_bytes_per_s, Range::Positive, "a link bandwidth", bytes ? 1e9 : 1e9 / 8);
  require_plausible(m, bytes ? "bandwidth_gb_per_s" : "bandwidth_gbit_per_s", n.bandwidth_bytes_per_s, bytes ? 1e9 : 1e9 / 8, bytes ? kGbPerS : kGbitPerS);
  n.latency_s = src(m, "latency_us", sources, 1e-6);
  require_range(m, "latency_us", n.latency_s, Range::NonNegative, "a latency (us)", 1e-6);
  n.achievable_fraction = src(m, "achievable_fraction", sources);
  require_range(m, "achievable_fraction", n.achievable_fraction, Range::Fraction, "a fraction of the link bandwidth");
  n.in_network_reduction_fraction = src(m, "in_network_reduction_fraction", sources);
  require_range(m, "in_network_reduction_fraction", n.in_network_reduction_fraction, Range::Positive, "a ratio of in-switch reduction bandwidth");
  n.in_network_reduction_measured_gpus = src(m, "in_network_reduction_measured_gpus", sources);
  n.in_network_reduction_latency_s = src(m, "in_network_reduction_latency_us", sources, 1e-6);
  require_range(m, "in_network_reduction_latency_us", n.in_network_reduction_latency_s, Range::NonNegative, "a latency (us)", 1e-6);
  if (n.in_network_reduction_fraction.known && !n.in_network_reduction_measured_gpus.known)
    m.fail("in_network_reduction_measured_gpus", "in_network_reduction_fraction needs the group size it was measured at",
           "e.g. {value: 8, source: \"components.csv NCCL-H100x8-AR-NVLS\"}");
  if (n.in_network_reduction_measured_gpus.known &&
      !(n.in_network_reduction_measured_gpus.value >= 2 && n.in_network_reduction_measured_gpus.value == std::floor(n.in_network_reduction_measured_gpus.value)))
    m.fail("in_network_reduction_measured_gpus", "must be a whole number of GPUs >= 2");
  n.topology = m.choice("topology", {"switch", "mesh", "torus"}, "switch");
  if (n.topology != "switch" && n.kind != "scale_up")
    m.fail("topology", "a " + n.topology + " is a scale-up fabric's topology", "kind: scale_up");
  if (n.topology == "torus") {
    const int64_t d = m.i64("torus_dims", 0);
    if (d != 2 && d != 3) m.fail("torus_dims", "a torus needs its number of axes: 2 or 3", "e.g. torus_dims: 2 (TPU v5e), 3 (TPU v5p)");
    n.torus_dims = static_cast<int>(d);
  } else if (m.has("torus_dims")) {
    m.fail("torus_dims", "applies to topology: torus only (this network's topology is " + n.topology + ")");
  }
  m.finish();
  return n;
}

// A framework property: {value: V, source: ID-or-text} (or estimated: basis), V one of valid.
// A framework property's provenance: exactly one of `source:` (a citation id of the file's
// sources, or the citation itself) and `estimated:` (the basis of an estimate).
static std::string property_source(const YamlMap& p, const std::map<std::string, std::string>& sources) {
  const bool has_src = p.has("source"), has_est = p.has("estimated");
  if (has_src == has_est) p.fail("source", "give exactly one of source: (citation) or estimated: (basis)");
  const std::string text = p.str(has_src ? "source" : "estimated");
  if (text.find_first_not_of(" \t") == std::string::npos)
    p.fail(has_src ? "source" : "estimated", "is empty", has_src ? "name the citation" : "say how the value was obtained");
  if (!has_src) return "estimated: " + text;
  // A misspelt citation id is refused as in the other catalog files (`mcore-argz` had been kept as
  // the provenance; 2026-12-06 review).
  check_citation_word(p, "source", text, sources);
  const std::string id = text;
  auto it = sources.find(id);
  return it != sources.end() ? it->second : id;
}

static FrameworkProperty framework_property(const YamlMap& m, const std::string& key, const std::vector<std::string>& valid,
                                            const std::map<std::string, std::string>& sources) {
  auto p = m.map(key);
  FrameworkProperty out;
  const YAML::Node v = p.raw("value");
  out.value = v.IsScalar() ? v.Scalar() : "";
  if (std::find(valid.begin(), valid.end(), out.value) == valid.end())
    p.fail("value", "'" + out.value + "' is not valid for " + key, valid_choices_hint(out.value, valid));
  out.source = property_source(p, sources);
  p.finish();
  return out;
}

const std::vector<std::string>& recompute_module_names() {
  static const std::vector<std::string> names = {"core_attn", "layernorm", "mlp", "moe_act", "shared_experts", "moe", "mla_up_proj"};
  return names;
}

static std::string join_items(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : std::string()) + v[i];
  return out;
}

// A list-valued framework property: {value: [A, B], source: ...}, every item one of valid, no
// repeats; the items are kept in the order of `valid` (canonical), value is them comma-joined.
static FrameworkProperty framework_list_property(const YamlMap& m, const std::string& key, const std::vector<std::string>& valid,
                                                 const std::map<std::string, std::string>& sources, bool may_be_empty) {
  auto p = m.map(key);
  FrameworkProperty out;
  const YAML::Node v = p.raw("value");
  if (!v.IsSequence()) p.fail("value", "expected a list for " + key, "valid items: " + join_items(valid, ", "));
  std::vector<bool> seen(valid.size(), false);
  for (const auto& item : v) {
    const std::string x = item.IsScalar() ? item.Scalar() : "";
    const auto it = std::find(valid.begin(), valid.end(), x);
    if (it == valid.end()) p.fail("value", "'" + x + "' is not valid in " + key, valid_choices_hint(x, valid));
    const size_t i = static_cast<size_t>(it - valid.begin());
    if (seen[i]) p.fail("value", "'" + x + "' is listed twice in " + key);
    seen[i] = true;
  }
  for (size_t i = 0; i < valid.size(); ++i)
    if (seen[i]) out.items.push_back(valid[i]);
  if (out.items.empty() && !may_be_empty) p.fail("value", key + " must list at least one of: " + join_items(valid, ", "));
  out.value = join_items(out.items, ",");
  out.source = property_source(p, sources);
  p.finish();
  return out;
}

// `capabilities:` of a framework: every key required, unknown keys rejected (YamlMap::finish
// names the file, line, key and the valid keys), and the lists consistent with the flags.
static FrameworkCapabilities parse_framework_capabilities(const YamlMap& c, const std::map<std::string, std::string>& sources) {
  FrameworkCapabilities k;
  k.stated = true;
  // Unknown keys first, so that a misspelt key is named as such (not as a missing one).
  static const std::vector<std::string> keys = {"tensor_parallel", "pipeline_parallel", "context_parallel", "expert_parallel",
                                                "sequence_parallel", "tp_comm_overlap", "overlap_grad_reduce", "overlap_param_gather",
                                                "flash_attention", "recompute", "recompute_modules", "recompute_block", "zero_stages",
                                                "pipeline_zero_stages", "schedules"};
  for (const auto& key : c.keys())
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) c.fail(key, "unknown key", valid_choices_hint(key, keys));
  const std::vector<std::string> tf = {"true", "false"};
  k.tensor_parallel = framework_property(c, "tensor_parallel", tf, sources);
  k.pipeline_parallel = framework_property(c, "pipeline_parallel", tf, sources);
  k.context_parallel = framework_property(c, "context_parallel", tf, sources);
  k.expert_parallel = framework_property(c, "expert_parallel", tf, sources);
  k.sequence_parallel = framework_property(c, "sequence_parallel", tf, sources);
  k.tp_comm_overlap = framework_property(c, "tp_comm_overlap", tf, sources);
  k.overlap_grad_reduce = framework_property(c, "overlap_grad_reduce", tf, sources);
  k.overlap_param_gather = framework_property(c, "overlap_param_gather", tf, sources);
  k.flash_attention = framework_property(c, "flash_attention", tf, sources);
  k.recompute = framework_list_property(c, "recompute", {"none", "selective", "full"}, sources, false);
  k.recompute_modules = framework_list_property(c, "recompute_modules", recompute_module_names(), sources, true);
  k.recompute_block = framework_property(c, "recompute_block", tf, sources);
  k.zero_stages = framework_list_property(c, "zero_stages", {"0", "1", "2", "3"}, sources, false);
  k.pipeline_zero_stages = framework_list_property(c, "pipeline_zero_stages", {"0", "1", "2", "3"}, sources, true);
  k.schedules = framework_list_property(c, "schedules", {"1f1b", "interleaved-1f1b", "gpipe", "zb-h1", "dualpipev"}, sources, true);
  c.finish();
  const bool pp = k.pipeline_parallel.value == "true", tp = k.tensor_parallel.value == "true";
  if (pp && k.schedules.items.empty()) c.fail("schedules", "a framework with pipeline_parallel must list its pipeline schedules");
  if (!pp && !k.schedules.items.empty()) c.fail("schedules", "pipeline schedules listed, but pipeline_parallel is false");
  if (pp && k.pipeline_zero_stages.items.empty())
    c.fail("pipeline_zero_stages", "a framework with pipeline_parallel must list the ZeRO stages usable with it");
  if (!pp && !k.pipeline_zero_stages.items.empty())
    c.fail("pipeline_zero_stages", "ZeRO stages with a pipeline listed, but pipeline_parallel is false");
  for (const auto& z : k.pipeline_zero_stages.items)
    if (std::find(k.zero_stages.items.begin(), k.zero_stages.items.end(), z) == k.zero_stages.items.end())
      c.fail("pipeline_zero_stages", "stage " + z + " is not among zero_stages (" + k.zero_stages.value + ")");
  const bool selective = std::find(k.recompute.items.begin(), k.recompute.items.end(), "selective") != k.recompute.items.end();
  if (selective && k.recompute_modules.items.empty())
    c.fail("recompute_modules", "a framework with selective recompute must list the modules it can recompute", "e.g. [core_attn]");
  if (!selective && !k.recompute_modules.items.empty())
    c.fail("recompute_modules", "recompute modules listed, but selective is not among recompute (" + k.recompute.value + ")");
  const bool full = std::find(k.recompute.items.begin(), k.recompute.items.end(), "full") != k.recompute.items.end();
  if (!full && k.recompute_block.value == "true")
    c.fail("recompute_block", "full recompute of some layers needs full among recompute (" + k.recompute.value + ")");
  if (!tp && k.sequence_parallel.value == "true") c.fail("sequence_parallel", "sequence parallelism needs tensor_parallel");
  if (k.sequence_parallel.value != "true" && k.tp_comm_overlap.value == "true")
    c.fail("tp_comm_overlap", "TP communication overlap needs sequence_parallel (docs/plan.md)");
  return k;
}

Framework parse_framework(const YamlMap& m, const std::map<std::string, std::string>& sources) {
  Framework f;
  f.sources = sources;
  f.file = m.file();
  f.id = m.str("id");
  f.name = m.str("name");
  f.description = m.str("description", "");
  f.zero3_gather = framework_property(m, "zero3_gather", {"layer", "tensor"}, sources);
  f.zero3_regather_for_recompute = framework_property(m, "zero3_regather_for_recompute", {"true", "false"}, sources);
  f.collective_nic_aggregation = framework_property(m, "collective_nic_aggregation", {"true", "false"}, sources);
  if (m.has("grad_reduce_dtype")) f.grad_reduce_dtype = framework_property(m, "grad_reduce_dtype", {"fp32", "bf16", "fp16"}, sources);
  if (m.has("moe_router_weighting"))
    f.moe_router_weighting = framework_property(m, "moe_router_weighting", {"in_expert", "at_combine"}, sources);
  if (m.has("tp_backward_overlap")) f.tp_backward_overlap = framework_property(m, "tp_backward_overlap", {"true", "false"}, sources);
  if (m.has("dropout")) f.dropout = framework_property(m, "dropout", {"true", "false"}, sources);
  if (m.has("zero3_max_live_params")) {
    f.zero3_max_live_params = src(m, "zero3_max_live_params", sources);
    if (f.zero3_max_live_params.known && !(f.zero3_max_live_params.value >= 1 && f.zero3_max_live_params.value <= 1e15))
      m.fail("zero3_max_live_params", "must be a number of parameters from 1 to 1e15 (or unknown: whole layers)");
  }
  if (m.has("attention_peak_fraction")) {
    f.attention_peak_fraction = src(m, "attention_peak_fraction", sources);
    require_range(m, "attention_peak_fraction", f.attention_peak_fraction, Range::Fraction, "a fraction of the dense 16-bit peak");
  }
  if (auto c = m.opt_map("capabilities")) f.capabilities = parse_framework_capabilities(*c, sources);
  m.finish();
  return f;
}

void check_system_networks(const System& s, const NetworkTech& up, const NetworkTech* out, const SourceLocation& where) {
  // (ib-ndr as the scale-up fabric was accepted and costed the NVLink traffic at IB rates)
  if (up.kind != "scale_up" && up.kind != "pcie")
    throw Error(where, "system '" + s.id + "': its scale_up network '" + up.id + "' is a " + up.kind + " network",
                "a scale_up network is of kind scale_up (NVLink, Infinity Fabric, ICI) or pcie");
  if (out && out->kind != "scale_out")
    throw Error(where, "system '" + s.id + "': its scale_out network '" + out->id + "' is a " + out->kind + " network",
                "a scale_out network is of kind scale_out (InfiniBand, RoCE, EFA, DCN)");
  // Every collective is costed on these rates: an unknown one ended in "no collective algorithm
  // supports reduce_scatter", naming nothing.
  auto positive = [](const Sourced& v) { return v.known && v.value > 0 && std::isfinite(v.value); };
  if (!positive(up.bandwidth_bytes_per_s))
    throw Error(where, "system '" + s.id + "': its scale_up network '" + up.id + "' has no known bandwidth",
                "give the network's bandwidth_gb_per_s");
  if (out && !positive(out->bandwidth_bytes_per_s) && !positive(s.nic_bandwidth_bytes_per_s))
    throw Error(where, "system '" + s.id + "': neither its scale_out network '" + out->id + "' nor the system gives a bandwidth",
                "give the network's bandwidth_gb_per_s or the system's scale_out.nic_bandwidth_gbit_per_s");
}

// A node draws at least its boards: a node power below gpus_per_node x TDP is a typo or another
// configuration's figure.
void check_node_power(const System& s, const Accelerator& a, const SourceLocation& where) {
  if (s.node_power_w.known && a.tdp_w.known && s.node_power_w.value < s.gpus_per_node * a.tdp_w.value)
    throw Error(where,
                "node power " + format_double(s.node_power_w.value) + " W is below its " + std::to_string(s.gpus_per_node) + " x " +
                    format_double(a.tdp_w.value) + " W of " + a.id + " boards",
                "the node's maximum input power, GPUs included (its datasheet's system power), or unknown");
}

System parse_system(const YamlMap& m, const std::map<std::string, std::string>& sources) {
  System s;
  s.sources = sources;
  s.file = m.file();
  s.id = m.str("id");
  s.name = m.str("name");
  s.description = m.str("description", "");
  // The description is where the system's plain counts get their source (docs/catalog.md): one of
  // blanks says nothing (review, 2026-12-07). A catalog folder's systems must have one
  // (Catalog::load); an inline system may leave it out.
  if (m.has("description") && is_blank(s.description))
    m.fail("description", "is empty", "say where the system's counts (gpus_per_node, domain_gpus, nics_per_node) come from, citing the file's sources:");
  s.accelerator = m.str("accelerator");
  s.gpus_per_node = to_int(m, "gpus_per_node", m.i64("gpus_per_node"));
  auto up = m.map("scale_up");
  s.scale_up_network = up.str("network");
  s.scale_up_domain = to_int(up, "domain_gpus", up.i64("domain_gpus", s.gpus_per_node));
  up.finish();
  if (auto out = m.opt_map("scale_out")) {
    s.scale_out_network = out->str("network");
    s.nics_per_node = to_int(*out, "nics_per_node", out->i64("nics_per_node", s.gpus_per_node));
    s.nic_bandwidth_bytes_per_s = src(*out, "nic_bandwidth_gbit_per_s", sources, 1e9 / 8);
    // Descriptive: both are costed as a fat tree (with oversubscription and leaf_nodes); a typo
    // was accepted.
    s.topology = out->choice("topology", {"fat-tree", "rail-optimized-fat-tree"}, "fat-tree");
    s.oversubscription = out->f64("oversubscription", 1.0);
    s.leaf_nodes = src(*out, "leaf_nodes", sources);
    if (!(s.oversubscription >= 1.0) || !std::isfinite(s.oversubscription))
      out->fail("oversubscription", "must be a finite ratio >= 1 (leaf downlink / uplink capacity)");
    if (s.leaf_nodes.known && (!(s.leaf_nodes.value >= 1.0) || s.leaf_nodes.value != std::floor(s.leaf_nodes.value) ||
                               s.leaf_nodes.value > INT32_MAX))
      out->fail("leaf_nodes", "must be a whole number of nodes >= 1 (or unknown)");
    // (-8 NICs of -400 Gb/s gave a negative DP time; 0 NICs no collective algorithm at all)
    if (s.nics_per_node < 1) out->fail("nics_per_node", "must be 1 or more, got " + std::to_string(s.nics_per_node));
    if (s.nic_bandwidth_bytes_per_s.known && !(s.nic_bandwidth_bytes_per_s.value > 0 && std::isfinite(s.nic_bandwidth_bytes_per_s.value)))
      out->fail("nic_bandwidth_gbit_per_s", "must be a positive bandwidth (or unknown: the network's port bandwidth)");
    require_plausible(*out, "nic_bandwidth_gbit_per_s", s.nic_bandwidth_bytes_per_s, 1e9 / 8, kGbitPerS);
    out->finish();
  }
  s.storage_bandwidth_bytes_per_s = src(m, "storage_bandwidth_gb_per_s", sources, 1e9);
  s.node_price_usd_per_hour = src(m, "node_price_usd_per_hour", sources);
  s.node_power_w = src(m, "node_power_w", sources);
  if (s.node_power_w.known && !(s.node_power_w.value > 0 && std::isfinite(s.node_power_w.value)))
    m.fail("node_power_w", "must be a positive power in W (or unknown)");
  if (s.storage_bandwidth_bytes_per_s.known && !(s.storage_bandwidth_bytes_per_s.value > 0 && std::isfinite(s.storage_bandwidth_bytes_per_s.value)))
    m.fail("storage_bandwidth_gb_per_s", "must be a positive bandwidth (or unknown)");
  require_plausible(m, "storage_bandwidth_gb_per_s", s.storage_bandwidth_bytes_per_s, 1e9, kGbPerS);
  if (s.node_price_usd_per_hour.known && !(s.node_price_usd_per_hour.value >= 0 && std::isfinite(s.node_price_usd_per_hour.value)))
    m.fail("node_price_usd_per_hour", "must be a price of 0 or more (or unknown)");
  if (s.gpus_per_node <= 0) m.fail("gpus_per_node", "must be positive");
  if (s.scale_up_domain < 1) up.fail("domain_gpus", "must be positive, got " + std::to_string(s.scale_up_domain));
  if (const auto why = scale_up_domain_problem(s.scale_up_domain, s.gpus_per_node)) up.fail("domain_gpus", why->first, why->second);
  m.finish();
  return s;
}

ModelConfig parse_model(const YamlMap& m) {
  ModelConfig c;
  c.file = m.file();
  c.id = m.str("id");
  c.name = m.str("name", c.id);
  c.source = m.str("source");
  // An empty provenance is none (it loaded, 2026-12-05 review), as for a catalog number.
  if (c.source.find_first_not_of(" \t") == std::string::npos)
    m.fail("source", "is empty: a model needs its provenance", "name the paper, model card or config.json its numbers come from");
  c.layers = to_int(m, "layers", m.i64("layers"));
  c.hidden = to_int(m, "hidden", m.i64("hidden"));
  c.heads = to_int(m, "heads", m.i64("heads"));
  c.kv_heads = to_int(m, "kv_heads", m.i64("kv_heads", c.heads));
  // Without head_dim the query width is hidden: a hidden that heads do not divide has no such
  // width (GPT-3 1.3B: 2048 over 24 heads of 128) and needs head_dim stated; floor(2048 / 24) =
  // 85 made its attention 6120 wide, silently.
  // A hidden that is no width at all is named as such by validate(), at its own key (`hidden: -1`
  // had been told it is no multiple of the heads, at head_dim; review of 2026-12-06).
  if (!m.has("head_dim") && c.heads > 0 && c.hidden > 0 && c.hidden % c.heads != 0)
    m.fail("head_dim", "hidden " + std::to_string(c.hidden) + " is not a multiple of heads " + std::to_string(c.heads),
           "state head_dim, the width of one head (the query width is heads x head_dim)");
  c.head_dim = to_int(m, "head_dim", m.i64("head_dim", c.heads > 0 ? c.hidden / c.heads : 0));
  c.ffn_hidden = to_int(m, "ffn_hidden", m.i64("ffn_hidden", 0));
  c.vocab = to_int(m, "vocab", m.i64("vocab"));
  c.mlp = m.choice("mlp", {"gelu", "relu2", "swiglu", "geglu"}, "swiglu");
  c.norm = m.choice("norm", {"rmsnorm", "layernorm"}, "rmsnorm");
  c.tied_embeddings = m.boolean("tied_embeddings", false);
  c.learned_position = m.boolean("learned_position", false);
  c.qk_norm = m.boolean("qk_norm", false);
  if (m.has("dropout")) c.dropout = m.boolean("dropout") ? 1 : 0;
  c.mtp_layers = to_int(m, "mtp_layers", m.i64("mtp_layers", 0));
  c.max_seq_len = to_int(m, "max_seq_len", m.i64("max_seq_len", 0));
  c.sliding_window = to_int(m, "sliding_window", m.i64("sliding_window", 0));
  if (m.has("sliding_window_layers")) {
    if (c.sliding_window <= 0) m.fail("sliding_window_layers", "names the layers of a window, but sliding_window is not set");
    c.sliding_window_layers = to_int(m, "sliding_window_layers", m.i64("sliding_window_layers"));
    // -1 is the reader's "not given" (every layer): a written negative count meant that silently.
    if (c.sliding_window_layers < 1)
      m.fail("sliding_window_layers", "must be from 1 to the model's layers (leave it out: every layer), got " + std::to_string(c.sliding_window_layers));
  }
  if (auto e = m.opt_map("moe")) {
    MoEConfig x;
    x.num_experts = to_int(*e, "num_experts", e->i64("num_experts"));
    x.topk = to_int(*e, "topk", e->i64("topk"));
    x.expert_ffn_hidden = to_int(*e, "expert_ffn_hidden", e->i64("expert_ffn_hidden"));
    x.shared_experts = to_int(*e, "shared_experts", e->i64("shared_experts", 0));
    x.dense_layers = to_int(*e, "dense_layers", e->i64("dense_layers", 0));
    x.layer_freq = to_int(*e, "layer_freq", e->i64("layer_freq", 1));
    if (e->has("layer_pattern")) {
      for (const char* rule : {"dense_layers", "layer_freq"})
        if (e->has(rule))
          throw Error(e->loc("layer_pattern"), std::string("layer_pattern states every layer: it replaces ") + rule,
                      std::string("leave out ") + rule);
      // Each entry is 0 or 1; another is named as written (7 had been reported as 2, its clamp).
      const auto pattern = e->i64_list("layer_pattern");
      for (size_t l = 0; l < pattern.size(); ++l)
        if (pattern[l] != 0 && pattern[l] != 1)
          e->fail("layer_pattern", "entry " + std::to_string(l) + " is " + std::to_string(pattern[l]) + ": each layer is 0 (dense) or 1 (MoE)");
      for (const int64_t v : pattern) x.layer_pattern.push_back(static_cast<int>(v));
    }
    x.capacity_factor = e->f64("capacity_factor", 0);
    if (e->has("router_groups") || e->has("router_groups_per_token")) {
      x.router_groups = to_int(*e, "router_groups", e->i64("router_groups"));
      x.router_groups_per_token = to_int(*e, "router_groups_per_token", e->i64("router_groups_per_token"));
    }
    e->finish();
    c.moe = x;
  }
  if (auto e = m.opt_map("mla")) {
    MLAConfig x;
    x.q_lora_rank = to_int(*e, "q_lora_rank", e->i64("q_lora_rank", 0));
    x.kv_lora_rank = to_int(*e, "kv_lora_rank", e->i64("kv_lora_rank"));
    x.qk_nope_head_dim = to_int(*e, "qk_nope_head_dim", e->i64("qk_nope_head_dim"));
    x.qk_rope_head_dim = to_int(*e, "qk_rope_head_dim", e->i64("qk_rope_head_dim"));
    x.v_head_dim = to_int(*e, "v_head_dim", e->i64("v_head_dim"));
    e->finish();
    c.mla = x;
    // Under MLA the head widths are the mla block's: a head_dim that disagrees would be ignored
    // (56, 192 or none gave one estimate without a word, 2026-12-05 review).
    if (m.has("head_dim") && c.head_dim != x.qk_nope_head_dim + x.qk_rope_head_dim)
      m.fail("head_dim", "is " + std::to_string(c.head_dim) + ", but with mla the query/key head width is qk_nope_head_dim + qk_rope_head_dim = " +
                             std::to_string(x.qk_nope_head_dim + x.qk_rope_head_dim) + " (and the value head width v_head_dim)",
             "leave head_dim out, or give " + std::to_string(x.qk_nope_head_dim + x.qk_rope_head_dim));
  }
  // The format the published checkpoint stores its weights in (what a config.json's
  // quantization_config says): inference costs the weights in it unless a format is given. The
  // catalog's gpt-oss had been costed in bf16 (233.6 GB, "does not fit" one H100) where its MXFP4
  // checkpoint holds 67 GB, and only the config.json route knew (2026-12-03 review).
  if (auto q = m.opt_map("checkpoint")) {
    c.checkpoint_weight_format = q->choice("weight_format", {"fp8", "fp4", "mxfp4", "int4", "int8"});
    // The layers the checkpoint quantises: all its linear layers, or only the MoE experts (gpt-oss
    // keeps attention, router, embedding and head in bf16).
    c.checkpoint_quantized_experts_only = q->choice("quantized_layers", {"all", "experts"}, "all") == "experts";
    if (c.checkpoint_quantized_experts_only && !c.moe) q->fail("quantized_layers", "'experts' needs a mixture-of-experts model; this one is dense");
    c.checkpoint_quantization = q->str("quantization");
    q->finish();
  }
  m.finish();
  try {
    c.validate(m.loc());
  } catch (const Error& e) {
    // validate() names the field; point at its own line (an inline model's error pointed at the
    // model's first line), or at "(--set)" when an override wrote it.
    const std::string prefix = m.path().empty() ? std::string() : m.path() + ".";
    const std::string& key = e.where().key;
    if (key.size() <= prefix.size() || key.compare(0, prefix.size(), prefix) != 0) throw;
    throw Error(m.locate(key.substr(prefix.size())), e.message(), e.hint());
  }
  return c;
}

// ---------------------------------------------------------------- model arithmetic
bool ModelConfig::is_moe_layer(int layer) const {
  if (!moe) return false;
  if (!moe->layer_pattern.empty())
    return layer >= 0 && layer < static_cast<int>(moe->layer_pattern.size()) && moe->layer_pattern[static_cast<size_t>(layer)] != 0;
  if (layer < moe->dense_layers) return false;
  return (layer - moe->dense_layers) % std::max(1, moe->layer_freq) == 0;
}

bool ModelConfig::all_layers_moe() const {
  if (!moe) return false;
  if (moe->layer_pattern.empty()) return moe->dense_layers == 0 && moe->layer_freq == 1;
  return num_moe_layers() == layers;
}

int ModelConfig::num_moe_layers() const {
  int n = 0;
  for (int l = 0; l < layers; ++l) n += is_moe_layer(l) ? 1 : 0;
  return n;
}

static double attn_params(const ModelConfig& c) {
  const double h = c.hidden;
  if (c.mla) {
    const auto& a = *c.mla;
    const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    double q = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * c.heads * qk : h * c.heads * qk;
    double kv = h * (a.kv_lora_rank + a.qk_rope_head_dim) +
                a.kv_lora_rank * c.heads * (a.qk_nope_head_dim + a.v_head_dim);
    double o = static_cast<double>(c.heads) * a.v_head_dim * h;
    return q + kv + o;
  }
  return h * c.q_dim() + 2.0 * h * c.kv_dim() + static_cast<double>(c.q_dim()) * h;
}

static double mlp_params(const ModelConfig& c, double ffn) { return (c.gated() ? 3.0 : 2.0) * c.hidden * ffn; }

double ModelConfig::params_embedding() const {
  double e = static_cast<double>(vocab) * hidden;
  if (!tied_embeddings) e *= 2;
  if (learned_position && max_seq_len > 0) e += static_cast<double>(max_seq_len) * hidden;
  return e;
}

double ModelConfig::params_total() const {
  double p = params_embedding();
  for (int l = 0; l < layers; ++l) {
    p += attn_params(*this) + 2.0 * hidden;  // two norms
    if (is_moe_layer(l)) {
      p += (moe->num_experts + moe->shared_experts) * mlp_params(*this, moe->expert_ffn_hidden);
      p += static_cast<double>(hidden) * moe->num_experts;  // router
    } else {
      p += mlp_params(*this, ffn_hidden);
    }
  }
  return p + hidden;  // final norm
}

double ModelConfig::params_active() const {
  double p = params_embedding();
  for (int l = 0; l < layers; ++l) {
    p += attn_params(*this) + 2.0 * hidden;
    if (is_moe_layer(l)) {
      p += (moe->topk + moe->shared_experts) * mlp_params(*this, moe->expert_ffn_hidden);
      // Every token runs the router, as params_total counts it: it had been left out here, so the
      // active count was not the total's own terms (DeepSeek-V3 37.446B where its weights a token
      // uses are 37.552B; review of 2026-12-06). Only printed (catalog show/list, infer): the
      // model FLOPs count their matrices themselves.
      p += static_cast<double>(hidden) * moe->num_experts;
    } else {
      p += mlp_params(*this, ffn_hidden);
    }
  }
  return p + hidden;
}

void ModelConfig::validate(const SourceLocation& where) const {
  auto bad = [&](const std::string& key, const std::string& msg) {
    SourceLocation w = where;
    w.key = (w.key.empty() ? "" : w.key + ".") + key;
    throw Error(w, "model '" + id + "': " + msg);
  };
  if (layers <= 0) bad("layers", "must be positive");
  // Bounded: simulate builds every layer's ops and the plan search its stage splits (2e9 layers
  // had run past 300 s in plan and 12 GB in simulate; 2026-12-04 review). The deepest published
  // transformers have a few hundred layers.
  if (layers > 10000) bad("layers", "must be at most 10000, got " + std::to_string(layers));
  if (hidden <= 0) bad("hidden", "must be positive");
  if (heads <= 0) bad("heads", "must be positive");
  // 0 is no divisor but a missing count, and a count that does not divide heads is said with the
  // counts that do (it had been "must divide heads (32), got 7" alone; 2026-12-07 review).
  if (kv_heads <= 0) bad("kv_heads", "must be positive, got " + std::to_string(kv_heads));
  if (heads % kv_heads != 0) {
    std::string valid;
    for (int k = 1; k <= heads; ++k)
      if (heads % k == 0) valid += (valid.empty() ? "" : ", ") + std::to_string(k);
    SourceLocation w = where;
    w.key = (w.key.empty() ? "" : w.key + ".") + "kv_heads";
    throw Error(w, "model '" + id + "': must divide heads (" + std::to_string(heads) + "), got " + std::to_string(kv_heads),
                "valid: " + valid + " (1: multi-query attention; " + std::to_string(heads) + ": one KV head per query head)");
  }
  if (head_dim <= 0) bad("head_dim", "must be positive");
  if (vocab <= 0) bad("vocab", "must be positive");
  // The attention widths are ints (q_dim, kv_dim): heads 32768 x head_dim 65536 wrapped to a
  // negative parameter count before 2026-12-03. 2^24 is 16x the widest published model's.
  constexpr int64_t kMaxWidth = int64_t{1} << 24;
  if (static_cast<int64_t>(heads) * head_dim > kMaxWidth)
    bad("head_dim", "heads x head_dim = " + std::to_string(static_cast<int64_t>(heads) * head_dim) + " exceeds " +
                        std::to_string(kMaxWidth) + " (the attention width is an element count of one token)");
  if (hidden > kMaxWidth) bad("hidden", "must be at most " + std::to_string(kMaxWidth));
  if (ffn_hidden > kMaxWidth) bad("ffn_hidden", "must be at most " + std::to_string(kMaxWidth));
  const bool all_moe = all_layers_moe();
  if (!all_moe && ffn_hidden <= 0) bad("ffn_hidden", "dense layers need ffn_hidden > 0");
  if (mtp_layers < 0 || mtp_layers > 8) bad("mtp_layers", "must be from 0 to 8 multi-token-prediction modules, got " + std::to_string(mtp_layers));
  if (moe) {
    if (moe->num_experts <= 0) bad("moe.num_experts", "must be positive");
    if (moe->topk <= 0 || moe->topk > moe->num_experts)
      bad("moe.topk", "must be in 1.." + std::to_string(moe->num_experts));
    if (moe->expert_ffn_hidden <= 0) bad("moe.expert_ffn_hidden", "must be positive");
    if (moe->dense_layers < 0 || moe->dense_layers > layers) bad("moe.dense_layers", "must be in 0..layers");
    // (-3 shared experts gave negative FLOPs and MFU; a layer frequency of 0 divides by zero)
    if (moe->shared_experts < 0) bad("moe.shared_experts", "must be 0 or more, got " + std::to_string(moe->shared_experts));
    if (moe->layer_freq < 1) bad("moe.layer_freq", "every k-th layer is MoE: k must be 1 or more, got " + std::to_string(moe->layer_freq));
    // Below 1 is refused as training.moe_capacity_factor is (0.5 had been accepted here and then
    // ignored by training and raised to 1 by inference, without a word; review of 2026-12-05).
    if (!(moe->capacity_factor == 0 || (moe->capacity_factor >= 1 && std::isfinite(moe->capacity_factor))))
      bad("moe.capacity_factor", "must be 0 (dropless) or a finite factor >= 1 (each expert takes at most this multiple of its mean share)");
    if (moe->router_groups != 0 || moe->router_groups_per_token != 0) {
      const int g = moe->router_groups, m = moe->router_groups_per_token;
      if (g < 1 || moe->num_experts % g != 0)
        bad("moe.router_groups", "must divide the " + std::to_string(moe->num_experts) + " experts into equal groups, got " + std::to_string(g));
      if (m < 1 || m > g) bad("moe.router_groups_per_token", "must be in 1..router_groups (" + std::to_string(g) + "), got " + std::to_string(m));
      if (g >= 1 && m >= 1 && moe->num_experts % g == 0 && moe->topk > m * (moe->num_experts / g))
        bad("moe.router_groups_per_token", std::to_string(m) + " groups of " + std::to_string(moe->num_experts / g) +
                                               " experts hold fewer than the topk " + std::to_string(moe->topk));
    }
    if (!moe->layer_pattern.empty()) {
      if (static_cast<int>(moe->layer_pattern.size()) != layers)
        bad("moe.layer_pattern", "has " + std::to_string(moe->layer_pattern.size()) + " entries for " + std::to_string(layers) +
                                     " layers: one 0 (dense) or 1 (MoE) per layer");
      for (size_t l = 0; l < moe->layer_pattern.size(); ++l)
        if (moe->layer_pattern[l] != 0 && moe->layer_pattern[l] != 1)
          bad("moe.layer_pattern", "entry " + std::to_string(l) + " is " + std::to_string(moe->layer_pattern[l]) +
                                       ": each layer is 0 (dense) or 1 (MoE)");
      if (num_moe_layers() == 0) bad("moe.layer_pattern", "names no MoE layer: write the model without moe");
    } else if (num_moe_layers() == 0) {
      // (every layer dense ran with no MoE layer, its ep and load keys accepted, 2026-12-04 review)
      bad("moe.dense_layers", "with dense_layers " + std::to_string(moe->dense_layers) + " and layer_freq " + std::to_string(moe->layer_freq) +
                                  " no MoE layer is left of the " + std::to_string(layers) + ": write the model without moe, or fewer dense_layers");
    }
  }
  if (mla) {
    // (a negative or zero rank gave a zero step time and an infinite MFU)
    if (mla->q_lora_rank < 0) bad("mla.q_lora_rank", "must be 0 (queries not compressed) or positive");
    const std::pair<const char*, int> dims[] = {{"mla.kv_lora_rank", mla->kv_lora_rank},
                                                {"mla.qk_nope_head_dim", mla->qk_nope_head_dim},
                                                {"mla.qk_rope_head_dim", mla->qk_rope_head_dim},
                                                {"mla.v_head_dim", mla->v_head_dim}};
    for (const auto& [k, v] : dims)
      if (v <= 0) bad(k, "must be positive, got " + std::to_string(v));
  }
  if (max_seq_len < 0) bad("max_seq_len", "must be 0 (unknown) or positive");
  if (sliding_window < 0) bad("sliding_window", "must be 0 (full attention) or a positive number of tokens");
  if (sliding_window > 0 && sliding_window_layers >= 0 && (sliding_window_layers < 1 || sliding_window_layers > layers))
    bad("sliding_window_layers", "must be from 1 to the " + std::to_string(layers) + " layers (leave it out: every layer), got " +
                                     std::to_string(sliding_window_layers));
  if (learned_position && max_seq_len <= 0) bad("max_seq_len", "learned positions need the table's length (max_seq_len)");
}

// ---------------------------------------------------------------- Catalog
template <class T>
static const T& lookup(const std::map<std::string, T>& m, const std::string& id, const std::string& what) {
  auto it = m.find(id);
  if (it != m.end()) return it->second;
  std::vector<std::string> ids;
  for (const auto& [k, _] : m) ids.push_back(k);
  throw Error(SourceLocation{"", 0, 0, what}, "unknown " + what + " '" + id + "'", valid_choices_hint(id, ids));
}

const Accelerator& Catalog::accelerator(const std::string& id) const { return lookup(accelerators_, id, "accelerator"); }
const NetworkTech& Catalog::network(const std::string& id) const { return lookup(networks_, id, "network"); }
const System& Catalog::system(const std::string& id) const { return lookup(systems_, id, "system"); }
const ModelConfig& Catalog::model(const std::string& id) const { return lookup(models_, id, "model"); }
const Framework& Catalog::framework(const std::string& id) const { return lookup(frameworks_, id, "framework"); }

template <class T>
static std::vector<std::string> ids_of(const std::map<std::string, T>& m) {
  std::vector<std::string> out;
  for (const auto& [k, _] : m) out.push_back(k);
  return out;
}
std::vector<std::string> Catalog::accelerator_ids() const { return ids_of(accelerators_); }
std::vector<std::string> Catalog::network_ids() const { return ids_of(networks_); }
std::vector<std::string> Catalog::system_ids() const { return ids_of(systems_); }
std::vector<std::string> Catalog::model_ids() const { return ids_of(models_); }
std::vector<std::string> Catalog::framework_ids() const { return ids_of(frameworks_); }

static std::vector<std::string> yaml_files(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  // The extension in any case: models/llama.YAML had been skipped without a word (2026-12-05).
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string ext = e.path().extension().string();
    for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Lower-case ASCII copy.
static std::string ascii_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// mention: when not empty, only the files whose text contains it (ASCII case-insensitively) are parsed.
template <class T, class F>
static void load_kind(const fs::path& dir, std::map<std::string, T>& into, F parse, const std::string& mention = {}) {
  const std::string needle = ascii_lower(mention);
  for (const auto& f : yaml_files(dir)) {
    if (!needle.empty() && ascii_lower(read_file(f)).find(needle) == std::string::npos) continue;
    auto file = YamlMap::load_file(f);
    auto sources = read_sources(file);
    // A catalog file without entries is a mistake (an empty file already is an error): one with
    // only its sources loaded as nothing.
    if (!file.has("entries")) file.fail("entries", "a catalog file lists its entries under 'entries:'");
    for (auto& e : file.map_list("entries")) {
      T v = parse(e, sources);
      if (into.count(v.id))
        throw Error(e.loc("id"), "duplicate catalog id '" + v.id + "' (also in " + into.at(v.id).file + ")");
      into.emplace(v.id, std::move(v));
    }
    file.finish();
  }
}

// The folder of a catalog: it exists and holds at least one of the kinds' folders, and no other
// folder of YAML files (a misspelt `system/` beside `systems/` had been skipped without a word;
// review of 2026-12-06). Hidden folders and folders without YAML files are not entries.
static void check_catalog_folder(const std::string& dir) {
  if (!fs::is_directory(dir)) throw Error(SourceLocation{dir}, "catalog folder not found");
  const std::vector<std::string> kinds = {"accelerators", "networks", "systems", "models", "frameworks"};
  // A folder with none of the kinds is not a catalog (it read as "unknown model ... is the catalog
  // folder empty?", 2026-12-05 review).
  bool any = false;
  for (const auto& kind : kinds) any = any || fs::is_directory(fs::path(dir) / kind);
  if (!any)
    throw Error(SourceLocation{dir}, "not a catalog folder: it has none of accelerators/, networks/, systems/, models/, frameworks/",
                "give the folder that holds them (the bundled one is data/catalog), or a folder written by `sextant calibrate --out`");
  std::vector<fs::path> others;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && !name.empty() && name[0] != '.' && std::find(kinds.begin(), kinds.end(), name) == kinds.end() &&
        !yaml_files(e.path()).empty())
      others.push_back(e.path());
  }
  if (others.empty()) return;
  std::sort(others.begin(), others.end());  // the same folder named whatever the listing's order
  const std::string name = others.front().filename().string();
  throw Error(SourceLocation{others.front().string()},
              "folder '" + name + "/' is none of the catalog's kinds, so its YAML files would not be read: rename it, or move it out of the catalog",
              valid_choices_hint(name, kinds));
}

std::shared_ptr<const Catalog> Catalog::load(const std::string& dir) {
  check_catalog_folder(dir);
  auto c = std::make_shared<Catalog>();
  c->dir_ = dir;
  load_kind(fs::path(dir) / "accelerators", c->accelerators_, parse_accelerator);
  load_kind(fs::path(dir) / "networks", c->networks_, parse_network);
  // A system's references and its node power are checked where it is read, so that the error names
  // its file, the line of the key and the key (`dgx-h100.accelerator`) as every other catalog error
  // does (before 2026-12-06, review, a pass after loading checked them, naming the entry's id as
  // the key and no line).
  load_kind(fs::path(dir) / "systems", c->systems_, [&c](const YamlMap& m, const std::map<std::string, std::string>& sources) {
    System s = parse_system(m, sources);
    // A catalog system's counts are plain values whose source its description gives
    // (docs/catalog.md): one without a description had loaded with none (review, 2026-12-07).
    if (!m.has("description"))
      m.fail("description", "required key is missing: a catalog system's description says where its counts come from",
             "e.g. description: \"8x H100 per node on NVLink4/NVSwitch; 8x NDR 400 Gb/s per node (dgxh100)\", citing the file's sources:");
    auto at = [&](const std::string& key) {
      SourceLocation where = m.locate(key);
      where.key = s.id + "." + key;
      return where;
    };
    const auto a = c->accelerators_.find(s.accelerator);
    if (a == c->accelerators_.end())
      throw Error(at("accelerator"), "system refers to unknown accelerator '" + s.accelerator + "'",
                  valid_choices_hint(s.accelerator, c->accelerator_ids()));
    for (const auto& [key, id] : {std::pair<std::string, std::string>{"scale_up.network", s.scale_up_network}, {"scale_out.network", s.scale_out_network}})
      if (!id.empty() && !c->networks_.count(id))
        throw Error(at(key), "system refers to unknown network '" + id + "'", valid_choices_hint(id, c->network_ids()));
    // Each network's kind and bandwidth at its own key: the scale-up one alone first.
    const NetworkTech& up = c->networks_.at(s.scale_up_network);
    check_system_networks(s, up, nullptr, at("scale_up.network"));
    if (!s.scale_out_network.empty()) check_system_networks(s, up, &c->networks_.at(s.scale_out_network), at("scale_out.network"));
    check_node_power(s, a->second, at("node_power_w"));
    return s;
  });
  load_kind(fs::path(dir) / "models", c->models_,
            [](const YamlMap& m, const std::map<std::string, std::string>&) { return parse_model(m); });
  load_kind(fs::path(dir) / "frameworks", c->frameworks_, parse_framework);
  // An id appears once in the whole catalog (docs/catalog.md): a model named like an accelerator
  // was loaded and could not be reached by `catalog show` (2026-12-04 review).
  {
    std::map<std::string, std::pair<std::string, std::string>> seen;  // id -> kind, file
    auto claim = [&seen](const auto& entries, const char* kind) {
      for (const auto& [id, e] : entries) {
        const auto [it, fresh] = seen.emplace(id, std::make_pair(std::string(kind), e.file));
        if (!fresh)
          throw Error(SourceLocation{e.file, 0, 0, id},
                      std::string("catalog id '") + id + "' names a " + kind + " here and " + (it->second.first == "accelerator" ? "an " : "a ") +
                          it->second.first + " in " + it->second.second,
                      "an id may appear once in the whole catalog: rename one");
      }
    };
    claim(c->accelerators_, "accelerator");
    claim(c->networks_, "network");
    claim(c->systems_, "system");
    claim(c->models_, "model");
    claim(c->frameworks_, "framework");
  }
  return c;
}

std::shared_ptr<const Catalog> Catalog::load_default() { return load((fs::path(data_dir()) / "catalog").string()); }

std::shared_ptr<const Catalog> Catalog::load_accelerators(const std::string& dir) {
  check_catalog_folder(dir);
  auto c = std::make_shared<Catalog>();
  c->dir_ = dir;
  load_kind(fs::path(dir) / "accelerators", c->accelerators_, parse_accelerator);
  return c;
}

std::shared_ptr<const Catalog> Catalog::load_accelerators_mentioning(const std::string& dir, const std::string& text) {
  check_catalog_folder(dir);
  auto c = std::make_shared<Catalog>();
  c->dir_ = dir;
  if (!text.empty()) load_kind(fs::path(dir) / "accelerators", c->accelerators_, parse_accelerator, text);
  return c;
}

std::shared_ptr<const Catalog> Catalog::load_default_accelerators() {
  return load_accelerators((fs::path(data_dir()) / "catalog").string());
}

namespace {
// Whether two YAML values say the same: scalars by their text, lists entry by entry, mappings key by
// key in any order. (Nesting beyond a model entry's few levels is taken as different.)
bool same_yaml(const YAML::Node& a, const YAML::Node& b, int depth = 0) {
  if (depth > 32 || a.Type() != b.Type()) return false;
  if (a.IsScalar()) return a.Scalar() == b.Scalar();
  if (a.IsSequence() || a.IsMap()) {
    if (a.size() != b.size()) return false;
    if (a.IsSequence()) {
      for (size_t i = 0; i < a.size(); ++i)
        if (!same_yaml(a[i], b[i], depth + 1)) return false;
      return true;
    }
    for (const auto& kv : a) {
      const YAML::Node other = b[kv.first.Scalar()];
      if (!other.IsDefined() || !same_yaml(kv.second, other, depth + 1)) return false;
    }
  }
  return true;
}

// The model of a model file's entry `e`. An entry that takes a catalog model's id must be that
// model as written in the catalog (the bundled file, or a copy of it, read by FILE#ID): one with
// other figures ran under the catalog model's name (layers 40 as "llama3-70b": a step of 4.5 s
// where the model's is 8.6 s; review of 2026-12-06), as an inline entry with a catalog id, which
// the scenario refuses.
ModelConfig model_of_file(const Catalog& cat, const YamlMap& e) {
  ModelConfig c = parse_model(e);
  if (!cat.has_model(c.id)) return c;
  const std::string& catalog_file = cat.model(c.id).file;
  bool same = false;
  try {
    const YamlMap f = YamlMap::load_file(catalog_file);
    YAML::Node mine(YAML::NodeType::Map);
    for (const auto& k : e.keys()) mine[k] = e.raw(k);
    for (const auto& entry : f.map_list("entries")) {
      if (!entry.has("id") || !entry.raw("id").IsScalar() || entry.raw("id").Scalar() != c.id) continue;
      YAML::Node theirs(YAML::NodeType::Map);
      for (const auto& k : entry.keys()) theirs[k] = entry.raw(k);
      same = same_yaml(mine, theirs);
    }
  } catch (const Error&) {
    // the catalog's file no longer reads as it did: not the same entry
  }
  if (!same)
    e.fail("id", "model '" + c.id + "' is a catalog model's id, but this entry's figures are not the catalog's (" + catalog_file +
                     "): results would carry the catalog model's name",
           "give the model an id of its own, e.g. '" + c.id + "-custom', or name the catalog's as model: " + c.id);
  return c;
}

// The figures in which two descriptions of a model differ, as "layers 40 (the catalog's 80)",
// joined by "; " (empty: the same model). Compared: every value the cost models read (shape,
// attention, MLP, MoE routing and its layers, MLA, MTP, dropout, context window, the checkpoint's
// format); not the id, name, source, file or the ignored keys. An unstated dropout is the
// convention's (yes for a GELU model, dropout_default without a framework), as a config.json
// states it where a catalog entry mostly does not. (Review of 2026-12-06.)
std::string model_figure_differences(const ModelConfig& mine, const ModelConfig& theirs) {
  std::string out;
  auto add = [&](const std::string& what, const std::string& a, const std::string& b) {
    if (a == b) return;
    out += (out.empty() ? "" : "; ") + what + " " + a + " (the catalog's " + b + ")";
  };
  auto num = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  auto yes = [](bool v) { return std::string(v ? "yes" : "no"); };
  add("layers", num(mine.layers), num(theirs.layers));
  add("hidden", num(mine.hidden), num(theirs.hidden));
  add("heads", num(mine.heads), num(theirs.heads));
  add("kv_heads", num(mine.kv_heads), num(theirs.kv_heads));
  add("head_dim", num(mine.head_dim), num(theirs.head_dim));
  // A model routed in every layer has no dense FFN: its ffn_hidden is read nowhere.
  if (!(mine.all_layers_moe() && theirs.all_layers_moe())) add("ffn_hidden", num(mine.ffn_hidden), num(theirs.ffn_hidden));
  add("vocab", num(mine.vocab), num(theirs.vocab));
  add("mlp", mine.mlp, theirs.mlp);
  add("norm", mine.norm, theirs.norm);
  add("tied_embeddings", yes(mine.tied_embeddings), yes(theirs.tied_embeddings));
  add("learned_position", yes(mine.learned_position), yes(theirs.learned_position));
  add("qk_norm", yes(mine.qk_norm), yes(theirs.qk_norm));
  add("dropout", yes(dropout_default(mine, nullptr)), yes(dropout_default(theirs, nullptr)));
  add("mtp_layers", num(mine.mtp_layers), num(theirs.mtp_layers));
  add("max_seq_len", num(mine.max_seq_len), num(theirs.max_seq_len));
  add("sliding_window", num(mine.sliding_window), num(theirs.sliding_window));
  if (mine.sliding_window > 0 && theirs.sliding_window > 0)
    add("windowed layers", num(mine.sliding_window_layers < 0 ? mine.layers : mine.sliding_window_layers),
        num(theirs.sliding_window_layers < 0 ? theirs.layers : theirs.sliding_window_layers));
  add("moe", yes(mine.moe.has_value()), yes(theirs.moe.has_value()));
  if (mine.moe && theirs.moe) {
    const MoEConfig &a = *mine.moe, &b = *theirs.moe;
    add("moe.num_experts", num(a.num_experts), num(b.num_experts));
    add("moe.topk", num(a.topk), num(b.topk));
    add("moe.expert_ffn_hidden", num(a.expert_ffn_hidden), num(b.expert_ffn_hidden));
    add("moe.shared_experts", num(a.shared_experts), num(b.shared_experts));
    add("moe.capacity_factor", num(a.capacity_factor), num(b.capacity_factor));
    add("moe.router_groups", num(a.router_groups), num(b.router_groups));
    add("moe.router_groups_per_token", num(a.router_groups_per_token), num(b.router_groups_per_token));
    // The routed layers, however each states them (rules or a pattern), where the depths agree.
    if (mine.layers == theirs.layers) {
      std::string la, lb;
      for (int l = 0; l < mine.layers; ++l) {
        la += mine.is_moe_layer(l) ? '1' : '0';
        lb += theirs.is_moe_layer(l) ? '1' : '0';
      }
      add("routed layers (1 = MoE)", la, lb);
    }
  }
  add("mla", yes(mine.mla.has_value()), yes(theirs.mla.has_value()));
  if (mine.mla && theirs.mla) {
    const MLAConfig &a = *mine.mla, &b = *theirs.mla;
    add("mla.q_lora_rank", num(a.q_lora_rank), num(b.q_lora_rank));
    add("mla.kv_lora_rank", num(a.kv_lora_rank), num(b.kv_lora_rank));
    add("mla.qk_nope_head_dim", num(a.qk_nope_head_dim), num(b.qk_nope_head_dim));
    add("mla.qk_rope_head_dim", num(a.qk_rope_head_dim), num(b.qk_rope_head_dim));
    add("mla.v_head_dim", num(a.v_head_dim), num(b.v_head_dim));
  }
  auto fmt = [](const std::string& f) { return f.empty() ? std::string("none") : f; };
  add("checkpoint weight format", fmt(mine.checkpoint_weight_format), fmt(theirs.checkpoint_weight_format));
  add("checkpoint quantizes experts only", yes(mine.checkpoint_quantized_experts_only), yes(theirs.checkpoint_quantized_experts_only));
  return out;
}

// A config.json's model whose id is a catalog model's must be that model: one with other figures
// ran under the catalog model's name, silently (a 40-layer config saved as llama3-70b.json read a
// step of 4.18 s as "llama3-70b", whose own is 8.25 s; review of 2026-12-06). The rule of a model
// YAML file's entry (model_of_file), here on the figures as read, since the config's keys are not
// the catalog's.
ModelConfig checked_hf_model(const Catalog& cat, ModelConfig c, const SourceLocation& where) {
  if (!cat.has_model(c.id)) return c;
  const ModelConfig& known = cat.model(c.id);
  const std::string diff = model_figure_differences(c, known);
  if (diff.empty()) return c;
  throw Error(where,
              "config.json '" + c.file + "' gives the model the id '" + c.id + "', a catalog model's id (" + known.file +
                  "), but its figures are not the catalog's: " + diff + "; results would carry the catalog model's name",
              "give the config a \"_name_or_path\" of its own, or, without one, name the file (or its model folder) otherwise, e.g. '" +
                  c.id + "-custom.json'; or name the catalog's model as model: " + c.id);
}
}  // namespace

EntryKindGuess guess_entry_kind(const std::vector<std::string>& keys) {
  // Keys that only one kind has (a system's `accelerator:` and a model's `source:` aside, which
  // others share or could).
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kinds = {
      {"accelerator", {"vendor", "peak_tflops", "memory_gib", "memory_bandwidth_gb_per_s", "cache_mib", "compute_units", "tdp_w", "idle_w",
                       "price_usd", "power_caps", "efficiency", "bandwidth_by_working_set", "platform", "year"}},
      {"network", {"bandwidth_gb_per_s", "bandwidth_gbit_per_s", "latency_us", "achievable_fraction", "in_network_reduction_fraction",
                   "in_network_reduction_measured_gpus", "in_network_reduction_latency_us", "topology", "torus_dims"}},
      {"system", {"accelerator", "gpus_per_node", "scale_up", "scale_out", "storage_bandwidth_gb_per_s", "node_price_usd_per_hour",
                  "node_power_w"}},
      {"model", {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab", "mlp", "norm", "tied_embeddings", "moe", "mla",
                 "max_seq_len", "checkpoint", "mtp_layers"}},
      {"framework", {"zero3_gather", "zero3_regather_for_recompute", "collective_nic_aggregation", "capabilities", "grad_reduce_dtype",
                     "moe_router_weighting", "tp_backward_overlap", "zero3_max_live_params", "attention_peak_fraction"}},
      {"scenario", {"model", "system", "num_gpus", "parallel", "training", "deployment", "workload", "hardware", "serving", "plan"}},
      // The data files of other commands (2026-12-07 review: `catalog show data/goodput/generic.yaml`
      // had answered "key 'id': required key is missing", as if the file were a broken model).
      {"goodput failure preset", {"processes", "observed", "remove"}},
      {"inference device profile", {"match", "memory_available_fraction", "memory_recommended_fraction", "idle_power_fraction",
                                    "usd_per_hour", "link_bandwidth_gb_per_s", "link_latency_us", "above_memory_gib"}},
      {"inference engine profile", {"kv_block_tokens", "iteration_overhead_us", "sequence_overhead_us", "gemm_fraction", "dequant_fraction",
                                    "bandwidth_fraction", "memory_utilization_fraction", "overlap_fraction", "kv_formats", "weight_formats",
                                    "kv_allocation", "overhead_reference_layers", "matmul_dtypes"}},
  };
  EntryKindGuess best;
  std::map<std::string, size_t> score;
  for (const auto& [kind, own] : kinds) {
    std::vector<std::string> hits;
    for (const auto& k : keys)
      if (std::find(own.begin(), own.end(), k) != own.end()) hits.push_back(k);
    score[kind] = hits.size();
    if (hits.size() > best.keys.size()) best = EntryKindGuess{kind, hits};
  }
  // A tie names no kind.
  for (const auto& [kind, n] : score)
    if (kind != best.kind && n == best.keys.size()) return {};
  return best;
}

void check_entry_kind(const YamlMap& file, const std::string& expected, const std::string& shown_file, const SourceLocation& where,
                      const std::string& hint) {
  auto plural = [](const std::string& k) {
    if (k == "scenario") return std::string("a scenario or study");
    if (k == "goodput failure preset") return std::string("a goodput failure preset");
    if (k.rfind("inference ", 0) == 0) return k + "s";
    return k + "s";
  };
  auto article = [](const std::string& k) {
    return std::string(k == "accelerator" || k.rfind("inference ", 0) == 0 ? "an " : "a ") + k;
  };
  // Which command reads a data file that is no catalog entry (2026-12-07 review).
  auto reader = [](const std::string& k) -> std::string {
    if (k == "goodput failure preset")
      return "; a goodput scenario names it as failures.preset (sextant goodput --list-presets lists the bundled ones, with their rates)";
    if (k == "inference device profile")
      return "; sextant infer reads it (data/infer/devices.yaml, matched to the accelerator in use; docs/inference.md)";
    if (k == "inference engine profile")
      return "; sextant infer reads it (data/infer/engines.yaml, chosen with --engine or deployment.engine; docs/inference.md)";
    return "";
  };
  std::vector<EntryKindGuess> guesses;
  if (!file.has("entries")) {
    guesses.push_back(guess_entry_kind(file.keys()));
  } else if (const YAML::Node list = file.raw("entries"); list.IsSequence()) {
    for (size_t i = 0; i < list.size(); ++i)
      guesses.push_back(list[i].IsMap() ? guess_entry_kind(YamlMap(list[i], file.file(), "entries[" + std::to_string(i) + "]").keys())
                                        : EntryKindGuess{});
  }
  // The first entry of another kind; an entry that reads as its own kind (a misspelt accelerator is
  // still one) or as none is left to the parser, whose error names the key.
  for (size_t i = 0; i < guesses.size(); ++i) {
    const EntryKindGuess& g = guesses[i];
    if (g.kind.empty() || g.kind == expected) continue;
    const bool all = std::all_of(guesses.begin(), guesses.end(), [&](const EntryKindGuess& x) { return x.kind == g.kind; });
    const std::string which = !file.has("entries") ? "the file has"
                              : all                ? (guesses.size() == 1 ? "its entry has" : "its entries have")
                                                   : "entry " + std::to_string(i) + " has";
    std::string keys;
    for (size_t k = 0; k < g.keys.size() && k < 5; ++k) keys += (k ? ", " : "") + g.keys[k];
    throw Error(where,
                "'" + shown_file + "' holds " + (all ? plural(g.kind) : "entries of another kind") + ", not " + plural(expected) + ": " + which +
                    " the keys of " + article(g.kind) + " (" + keys + ")" + (all ? reader(g.kind) : std::string()),
                hint);
  }
}

ModelConfig load_model_ref(const Catalog& cat, const std::string& ref, const SourceLocation& where) {
  if (cat.has_model(ref)) return cat.model(ref);
  if (ref.find_first_not_of(" \t") == std::string::npos)
    throw Error(where, "is empty", "a catalog model id (sextant catalog list models), a config.json or a model YAML file");
  // A relative path is read beside the scenario that names it (also when --set wrote it), then
  // from the working directory; FILE#ID picks one entry of a catalog file of several models, as
  // for accelerators (resolve_reference_file; reviews of 2026-12-03 and 2026-12-05).
  std::error_code ec;
  const ReferenceFile named = resolve_reference_file(ref, where);
  const std::string& want = named.entry_id;
  fs::path p = named.path;
  // A config.json or a model folder holds one model: an #ID there is a mistake, not ignored.
  auto no_id = [&](const std::string& what) {
    if (!want.empty()) throw Error(where, "'" + p.string() + "' is " + what + ", one model: there is no entry '" + want + "' to pick", "name it without #" + want);
  };
  if (fs::exists(p, ec)) {
    // A model folder (a Hugging Face snapshot) is read through its config.json; a folder without
    // one is named as such at the model key (it had been "is a directory, not a file" without it).
    if (fs::is_directory(p, ec)) {
      no_id("a model folder");
      if (fs::is_regular_file(p / "config.json", ec)) p /= "config.json";
      else throw Error(where, "'" + ref + "' is a folder without a config.json", "name the config.json, a model YAML file or a catalog id");
    } else if (!fs::is_regular_file(p, ec)) {
      throw Error(where, "'" + ref + "' is not a regular file (a device or a pipe)", "name a config.json, a model YAML file or a catalog id");
    }
    // A config.json by its extension in any case (Mistral.JSON), or, without a YAML extension, by
    // its first character (a saved "mistral_config"): both were read as a model YAML and refused
    // for a missing 'id' (2026-12-04 review).
    const std::string ext = ascii_lower(p.extension().string());
    if (ext == ".json") {
      no_id("a config.json");
      return checked_hf_model(cat, parse_hf_config(read_file(p.string()), p.string()), where);
    }
    if (ext != ".yaml" && ext != ".yml") {
      const std::string text = read_file(p.string());
      const size_t first = text.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && text[first] == '{' && text.find("\"model_type\"") != std::string::npos) {
        no_id("a config.json");
        return checked_hf_model(cat, parse_hf_config(text, p.string()), where);
      }
    }
    auto m = YamlMap::load_file(p.string());
    // A file of another kind is named as such (a system file read as a model had said
    // "entries[0].layers: required key is missing"; review, 2026-12-07).
    check_entry_kind(m, "model", p.string(), where,
                     "name a model: a catalog id (sextant catalog list models), a config.json, or a model YAML file (entries with layers, "
                     "hidden, heads, vocab, as data/catalog/models/*.yaml)");
    if (m.has("entries")) {
      // A catalog file of models (data/catalog/models/*.yaml): its one entry, or the one FILE#ID
      // names (it was refused as "a catalog file of several models" with one entry too, and the
      // ids it named were not catalog ids; review of 2026-12-05).
      // The file is read whole, as a catalog folder's is (review of 2026-12-06: an unknown
      // top-level key, `sourcse:`, loaded silently, and with FILE#ID the other entries were never
      // parsed, `layers: -5` among them): its sources, every entry validated, ids once each, and
      // no key besides entries and sources.
      (void)read_sources(m);
      std::string ids;
      std::set<std::string> seen;
      const std::vector<YamlMap> entries = m.map_list("entries");
      std::optional<size_t> picked;
      for (size_t k = 0; k < entries.size(); ++k) {
        const YamlMap& e = entries[k];
        const std::string id = parse_model(e).id;
        if (!seen.insert(id).second) throw Error(e.loc("id"), "model '" + id + "' is given twice in this file", "an id may appear once in a catalog file: rename one");
        if (!want.empty() && id == want) picked = k;
        ids += (ids.empty() ? "" : ", ") + id;
      }
      m.finish();
      if (picked) return model_of_file(cat, entries[*picked]);
      const size_t count = entries.size();
      if (want.empty() && count == 1) return model_of_file(cat, entries.front());
      const std::string file = p.string();
      throw Error(where, want.empty() ? "'" + file + "' is a catalog file of " + std::to_string(count) + " models, not one model"
                                      : "'" + file + "' holds no model '" + want + "'",
                  "name one as " + file + "#ID: " + (ids.empty() ? std::string("(none)") : ids));
    }
    if (!want.empty()) throw Error(where, "'" + p.string() + "' is one model, not a catalog file of several", "name the file without #" + want);
    return model_of_file(cat, m);
  }
  // A reference written as a path (a '/' or a file extension) that names no file: "not found",
  // not a list of catalog ids (2026-12-04 review: a mistyped config.json path read as an unknown id).
  const std::string ext = fs::path(ref).extension().string();
  if (ref.find('/') != std::string::npos || ext == ".json" || ext == ".yaml" || ext == ".yml" || ext == ".JSON")
    throw Error(where, "model file '" + ref + "' not found" + (where.file.empty() ? std::string() : " (looked beside the scenario and in the working directory)"),
                "check the path, or name a catalog model id (sextant catalog list models)");
  throw Error(where, "unknown model '" + ref + "' (not a catalog id, nor a config.json or YAML file)",
              valid_choices_hint(ref, cat.model_ids()));
}

Accelerator load_accelerator_ref(const Catalog& cat, const std::string& ref, const SourceLocation& where) {
  if (cat.has_accelerator(ref)) return cat.accelerator(ref);
  // FILE#ID picks one entry of a file of several; a relative file is read beside the scenario first.
  std::error_code ec;
  const ReferenceFile named = resolve_reference_file(ref, where);
  const std::string& file = named.file;
  const std::string& want = named.entry_id;
  const fs::path p = named.path;
  const std::string ext = p.extension().string();
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    throw Error(where, "'" + file + "' is not a regular file (a folder, a device or a pipe)", "name an accelerator catalog file or a catalog accelerator id");
  if (!fs::is_regular_file(p, ec) && (file.find('/') != std::string::npos || ext == ".yaml" || ext == ".yml"))
    throw Error(where, "accelerator file '" + file + "' not found", "check the path, or name a catalog accelerator id (sextant catalog list accelerators)");
  if (!fs::is_regular_file(p, ec) || (ext != ".yaml" && ext != ".yml"))
    throw Error(where, "unknown accelerator '" + ref + "' (not a catalog id, nor an accelerator catalog file)",
                valid_choices_hint(ref, cat.accelerator_ids()));
  auto m = YamlMap::load_file(p.string());
  // A file of another kind is named as such: `accelerator: systems.yaml#dgx-h100` had said
  // "entries[0].vendor: required key is missing" (review, 2026-12-07).
  check_entry_kind(m, "accelerator", file, where,
                   "name an accelerator catalog file (entries with vendor, peak_tflops, memory_gib, as data/catalog/accelerators/*.yaml or "
                   "what sextant calibrate writes) or a catalog accelerator id (sextant catalog list accelerators)");
  if (!m.has("entries")) return parse_accelerator(m, {});
  const auto sources = read_sources(m);
  std::vector<Accelerator> all;
  for (auto& e : m.map_list("entries")) all.push_back(parse_accelerator(e, sources));
  m.finish();
  std::string ids;
  for (const auto& a : all) {
    if (!want.empty() && a.id == want) return a;
    ids += (ids.empty() ? "" : ", ") + a.id;
  }
  if (want.empty() && all.size() == 1) return all.front();
  throw Error(where, want.empty() ? "'" + file + "' holds " + std::to_string(all.size()) + " accelerators"
                                  : "'" + file + "' holds no accelerator '" + want + "'",
              "name one as " + file + "#ID: " + (ids.empty() ? std::string("(none)") : ids));
}

}  // namespace sextant
