#include "infer/config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"

namespace sextant::infer {

namespace {
// A system-on-chip's int8 peak in the catalog is its NPU's (Apple's Neural Engine TOPS; vendors
// state no GPU int8 rate), while the generic engine reads weights at the memory bandwidth as a GPU
// would: int8 activations there cost the prefill at the NPU's rate, 10x the fp16 GPU's on an A17
// Pro, unsaid before 2026-12-04.
// How far the engine's constants are from a measurement of this kind of device: said by estimate
// and serve alike (serve had left them out; review of 2026-12-05).
void engine_caveat_notes(const Deployment& d, std::vector<std::string>& notes) {
  const auto& e = d.engine;
  auto outside = [](const std::vector<std::string>& list, const std::string& v) {
    return !list.empty() && std::find(list.begin(), list.end(), v) == list.end();
  };
  // Another vendor's device of the same kind is carried over too (measured_on_vendors): a
  // Snapdragon SoC had taken llama.cpp's Apple Metal constants without a word (2026-12-06 review).
  const bool other_kind = outside(e.measured_on_kinds, d.accel.kind), other_vendor = outside(e.measured_on_vendors, d.accel.vendor);
  if (other_kind || other_vendor) {
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    const std::string on = e.measured_on_kinds.empty() ? std::string("device") : e.measured_on_kinds.front();
    const std::string vendors = e.measured_on_vendors.empty() ? std::string() : " of " + join(e.measured_on_vendors) + " devices";
    notes.push_back("engine " + e.id + ": its constants were fitted on " + on + " runs" + vendors +
                    " (data/infer/engines.yaml: measured_on_kinds, measured_on_vendors) and are carried over to this " +
                    (d.accel.vendor.empty() ? std::string() : d.accel.vendor + " ") + d.accel.kind + " (" + d.accel.id +
                    ") unmeasured; its kernels differ by backend (llama.cpp on CUDA runs its matrix multiplies on tensor cores, "
                    "on an Android SoC on the CPU or through OpenCL or Vulkan, not Metal)");
  } else if (d.engine.measured_on_kinds.empty() && d.accel.kind == "gpu")
    notes.push_back("engine " + d.engine.id + ": no measured run of it is in the validation set. The only datacenter rows "
                    "(Llama-2-70B on 2 x A100) come out with 17-27% too little time per output token (median 20%) and up to 19% "
                    "too little prompt time when the fit leaves them out (sextant infer validate, leave-one-chip-out): read "
                    "these speeds as optimistic by about that much, and prefill-bound work (long prompts, short outputs) by more: "
                    "the fit has no datacenter prefill-heavy throughput row");
}

void npu_peak_note(const Deployment& d, DType compute, std::vector<std::string>& notes) {
  if (d.accel.kind != "soc" || compute != DType::INT8) return;
  notes.push_back("int8: " + d.accel.id + "'s int8 peak (" + format_double(d.accel.peak(DType::INT8) / 1e12) +
                  " TOPS) is its neural engine's, and the matrix multiplies are costed at it beside the GPU's memory bandwidth; "
                  "an engine running on the GPU multiplies in fp16 (--activations fp16)");
}
}  // namespace

namespace fs = std::filesystem;
namespace {

// At most this many requests in one serving simulation (about 200 bytes of state each, plus the
// percentile samples): 10 million is 2 GB at most.
constexpr int64_t kMaxServingRequests = 10'000'000;
// Bounds of the serving sizes, far above practice (vLLM's max_num_seqs is 256 by default; a
// deployment of 100,000 instances), so that a typo is an error, not hours of simulation or an
// allocation failure (before 2026-12-03 only a minimum was checked).
constexpr int kMaxBatchSeqs = 65536;
constexpr int kMaxInstances = 100000;
constexpr int kMaxTimelinePoints = 1000000;

LengthSpec read_length(const YamlMap& m, LengthSpec d) {
  d.dist = m.choice("dist", make_length_registry().names(), d.dist);
  // A uniform length is drawn from [min, max]: a mean or cv given with it was silently ignored
  // ({dist: uniform, mean: 1024} drew from [1, 1,048,576]).
  if (d.dist == "uniform")
    for (const char* k : {"mean", "cv"})
      if (m.has(k))
        m.fail(k, std::string("a uniform length is drawn from [min, max], with mean (min + max) / 2: ") + k + " is not used",
               "give min and max");
  // An exponential length has cv 1 and a fixed one cv 0 by definition: a cv given with them was
  // accepted and drew the same lengths (2026-12-04 review).
  if ((d.dist == "exponential" || d.dist == "fixed") && m.has("cv"))
    m.fail("cv", "a" + std::string(d.dist == "exponential" ? "n exponential length has cv 1" : " fixed length has cv 0") + " by definition: cv is not used",
           "use dist: lognormal for another spread, or leave cv out");
  d.mean = m.f64("mean", d.mean);
  d.cv = m.f64("cv", d.cv);
  d.min = m.i32("min", d.min);
  d.max = m.i32("max", d.max);
  if (d.dist == "uniform") d.mean = (static_cast<double>(d.min) + static_cast<double>(d.max)) / 2.0;
  if (!(d.mean >= 1)) m.fail("mean", "mean length must be >= 1 token");
  if (d.min < 1 || d.max < d.min) m.fail("max", "need 1 <= min <= max");
  if (d.max > kMaxRequestTokens)
    m.fail("max", "a request length is at most " + std::to_string(kMaxRequestTokens) + " tokens, got " + std::to_string(d.max));
  if (!(d.cv >= 0)) m.fail("cv", "the coefficient of variation must be >= 0");
  // Lengths are clipped to [min, max]: a mean outside it would silently become the bound.
  if (d.mean > d.max || d.mean < d.min)
    m.fail("mean", "mean " + format_double(d.mean) + " is outside [min, max] = [" + std::to_string(d.min) + ", " + std::to_string(d.max) + "]",
           "lengths are clipped to [min, max]; raise max or lower the mean");
  m.finish();
  return d;
}

// A list of the plan section: every combination of its entries is a candidate, so an empty one
// plans nothing. Before 2026-12-06 `accelerators: []` and `policies: []` silently planned the
// study's own accelerator and policy while `tp: []` and `max_batch_seqs: []` were refused (review):
// each is refused alike, naming what the list holds and what leaving the key out gives.
void reject_empty_plan_list(const YamlMap& m, const std::string& key, bool empty, const std::string& holds, const std::string& absent) {
  if (empty)
    m.fail(key, "must not be empty: an empty list plans no candidate",
           "give one or more " + holds + ", or leave " + key + " out for " + absent);
}

// An entry given twice in a list of runs (plan.tp, plan.accelerators, plan.max_batch_seqs,
// plan.policies, sweep.load_fractions, sweep.rates_per_s) is refused, as a key given twice in a
// mapping is: before 2026-12-06 each copy was run and listed, `tp: [2, 2]` every tp 2 candidate
// twice and `load_fractions: [0.5, 0.5]` two identical rows (review). The error names the second
// entry's line (or FILE (--set)), the value and both positions (1-based) in the list.
template <class T>
void reject_duplicate_entries(const YamlMap& m, const std::string& key, const std::vector<T>& values,
                              const std::function<std::string(const T&)>& text, const std::string& each) {
  std::map<T, size_t> first;  // value -> index of its first entry
  for (size_t j = 0; j < values.size(); ++j) {
    const auto [it, fresh] = first.emplace(values[j], j);
    if (fresh) continue;
    const size_t i = it->second;
    const YAML::Node n = m.raw(key);
    const YAML::Mark a = n.IsSequence() && i < n.size() ? n[i].Mark() : YAML::Mark::null_mark();
    const YAML::Mark b = n.IsSequence() && j < n.size() ? n[j].Mark() : YAML::Mark::null_mark();
    auto at = [](const YAML::Mark& mk) { return "line " + std::to_string(mk.line + 1) + ", column " + std::to_string(mk.column + 1); };
    const bool marked = a.line >= 0 && b.line >= 0;
    const SourceLocation where = b.line < 0 ? SourceLocation{m.file() + " (--set)", 0, 0, m.key_path(key)}
                                            : SourceLocation{m.file(), b.line + 1, b.column + 1, m.key_path(key)};
    throw Error(where,
                "duplicate entry " + text(values[j]) + ": entries " + std::to_string(i + 1) + " and " + std::to_string(j + 1) +
                    " of the list are the same" + (marked ? " (at " + at(a) + " and " + at(b) + ")" : std::string()),
                each + "; remove one");
  }
}
std::string quoted(const std::string& x) { return "'" + x + "'"; }
std::string int_text(const int& x) { return std::to_string(x); }
constexpr const char* kPlanEntry = "each entry is a candidate, planned once";

template <class T>
std::vector<T> int_list(const YamlMap& m, const std::string& key, std::vector<T> d, const std::string& holds) {
  m.reject_blank(key);
  if (!m.has(key)) return d;
  std::vector<T> out;
  for (auto v : m.i64_list(key)) out.push_back(static_cast<T>(v));
  std::string absent;
  for (const T& x : d) absent += (absent.empty() ? "[" : ", ") + std::to_string(x);
  reject_empty_plan_list(m, key, out.empty(), holds, absent + "]");
  return out;
}
std::vector<std::string> plan_str_list(const YamlMap& m, const std::string& key, std::vector<std::string> d, const std::string& holds,
                                       const std::string& absent) {
  if (!m.has(key)) return d;
  std::vector<std::string> out = m.str_list(key);
  reject_empty_plan_list(m, key, out.empty(), holds, absent);
  return out;
}


double device_power_busy(const Accelerator& a) { return value_or(a.tdp_w, 0.0); }
double device_power_idle(const Accelerator& a, const DeviceProfile& p) {
  if (a.idle_w.known) return a.idle_w.value;
  return value_or(a.tdp_w, 0.0) * value_or(p.idle_power_fraction, 0.0);
}
double memory_share(const Deployment& d, const DeviceProfile& p) {
  return std::min(value_or(d.engine.memory_utilization_fraction, 0.9), value_or(p.memory_available_fraction, 1.0));
}
// price_source of a study's cost.usd_per_device_hour: per device, where it was given.
std::string stated_price_source(double usd, const SourceLocation& at) {
  return "given: " + format_double(usd) + " USD per device-hour, per device (cost.usd_per_device_hour, " +
         (at.file.empty() ? std::string("the study") : at.file) + (at.line > 0 ? ":" + std::to_string(at.line) : std::string()) + ")";
}
}  // namespace

StudySpec load_study(const std::string& path, const Catalog& cat, const InferData& data) {
  return load_study(path, cat, data, {});
}

StudySpec load_study(const std::string& given, const Catalog& cat, const InferData& data,
                     const std::vector<std::pair<std::string, std::string>>& sets, const DeploymentOverride& override_deployment) {
  // A relative path is also looked up in the data folder, as scenarios and goodput inputs are
  // (`examples/infer-llama3-8b-h100.yaml` from any folder; it was "not found" before 2026-12-03).
  const std::string path = resolve_data_path(given);
  if (!fs::exists(path)) throw Error(SourceLocation{given}, "study file not found", not_found_hint(given));
  return parse_study(read_file(path), path, cat, data, sets, override_deployment);  // read_file names a directory or a read error
}

// `path` names the study in messages; relative files it names (model, trace) are read beside it
// when it is a file, else from the working directory (a study given as text from Python: it had
// been written to a temporary file, and a model file of the same name in the temporary folder
// was read instead of the caller's, 2026-12-03 review).
StudySpec parse_study(const std::string& text, const std::string& path, const Catalog& cat, const InferData& data,
                      const std::vector<std::pair<std::string, std::string>>& sets, const DeploymentOverride& override_deployment) {
  YAML::Node root = parse_yaml_document(text, path);
  for (const auto& [k, v] : sets) {
    // `--set KEY=null` (or ~) removes the file's key (apply_yaml_override), `sweep=null` its
    // request-rate sweep; a null is no rate given, and leaves the file's other rate in place.
    // (Before 2026-12-06 the sweep alone was special-cased here, and `serving.disaggregation=null`
    // was "no value given"; review.)
    const size_t b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
    const std::string t = b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
    const bool removes = t == "null" || t == "~" || t == "Null" || t == "NULL";
    // The request rate is given one way: a --set of rate_per_s or load_fraction replaces the
    // file's other one (before 2026-12-02 the file's load_fraction silently won over a --set
    // rate_per_s). Both in the file (or both set) is an error below. So do the sweep's
    // rates_per_s and load_fractions (2026-12-06 review: `--set sweep.rates_per_s=[5]` on a file
    // sweeping load_fractions was "give one of load_fractions or rates_per_s").
    struct OneOf {
      const char* key;
      const char* section;
      const char* other;
    };
    for (const OneOf& o : {OneOf{"workload.rate_per_s", "workload", "load_fraction"}, OneOf{"workload.load_fraction", "workload", "rate_per_s"},
                           OneOf{"sweep.rates_per_s", "sweep", "load_fractions"}, OneOf{"sweep.load_fractions", "sweep", "rates_per_s"}}) {
      bool other_set = false;
      for (const auto& [k2, v2] : sets) other_set |= k2 == std::string(o.section) + "." + o.other;
      if (k == o.key && !removes && !other_set && root[o.section].IsMap() && root[o.section][o.other]) root[o.section].remove(o.other);
    }
    apply_yaml_override(root, k, v, path);
  }
  YamlMap m(root, path);
  StudySpec s;
  s.file = path;
  // The study's own hardware, as a training scenario's (docs/scenario.md; review of 2026-12-06: a
  // hypothetical accelerator could run on one device only, as no study could name the link between
  // its devices): hardware.accelerators and hardware.networks read as a scenario reads them (the
  // catalog's parsers, an id the catalog does not have, none given twice), hardware.systems (an
  // infer study's own: the systems a deployment or plan candidate holding their accelerator runs
  // on), and deployment.system as an inline mapping or a system file. They go into a copy of the
  // catalog (DeploymentSpec::hardware), made only when the study gives some. A system's accelerator
  // is checked once the deployment's and the plan's are read: an accelerator file may define it.
  std::shared_ptr<Catalog> local;
  auto own = [&]() -> Catalog& {
    if (!local) local = std::make_shared<Catalog>(cat);
    return *local;
  };
  auto known = [&]() -> const Catalog& { return local ? *local : cat; };
  struct StudySystem {
    System system;
    SourceLocation accelerator_at, node_power_at;
  };
  std::vector<StudySystem> study_systems;  // deployment.system (inline or a file) first, then hardware.systems
  if (auto hw = m.opt_map("hardware")) {
    std::set<std::string> acc_ids, net_ids;
    for (auto& a : hw->map_list("accelerators")) {
      Accelerator x = parse_accelerator(a, {});
      if (!acc_ids.insert(x.id).second) a.fail("id", "accelerator '" + x.id + "' is given twice in hardware.accelerators");
      if (cat.has_accelerator(x.id))
        a.fail("id", "accelerator '" + x.id + "' is already in the catalog; an inline entry needs an id of its own",
               "name it, e.g., '" + x.id + "-custom', and refer to it with deployment.accelerator, plan.accelerators or a system's accelerator:");
      own().add(std::move(x));
    }
    for (auto& n : hw->map_list("networks")) {
      NetworkTech x = parse_network(n, {});
      if (!net_ids.insert(x.id).second) n.fail("id", "network '" + x.id + "' is given twice in hardware.networks");
      if (cat.has_network(x.id))
        n.fail("id", "network '" + x.id + "' is already in the catalog; an inline entry needs an id of its own",
               "name it, e.g., '" + x.id + "-custom', and refer to it from a system's scale_up.network or scale_out.network");
      own().add(std::move(x));
    }
    std::set<std::string> sys_ids;
    for (auto& e : hw->map_list("systems")) {
      System x = parse_system(e, {});
      if (!sys_ids.insert(x.id).second) e.fail("id", "system '" + x.id + "' is given twice in hardware.systems");
      if (cat.has_system(x.id))
        e.fail("id", "system '" + x.id + "' is already in the catalog; an inline entry needs an id of its own",
               "name it, e.g., '" + x.id + "-custom', or write deployment.system: " + x.id + " for the catalog's");
      check_study_system_networks(known(), x, [&e](const std::string& k) { return e.locate(k); });
      study_systems.push_back({x, e.locate("accelerator"), e.locate("node_power_w")});
      own().add(std::move(x));
    }
    hw->finish();
  }
  {
    auto d = m.map("deployment");
    // The line of the deployment key itself, for errors about the deployment as a whole (serve's
    // "the weights leave no room for a KV cache" had named key 'deployment' without a line;
    // 2026-12-07 review). A section an override made has no line.
    s.deployment_at = SourceLocation{path, 0, 0, "deployment"};
    for (const auto& kv : root)
      if (kv.first.IsScalar() && kv.first.Scalar() == "deployment" && kv.first.Mark().line >= 0)
        s.deployment_at = SourceLocation{path, kv.first.Mark().line + 1, kv.first.Mark().column + 1, "deployment"};
    auto& x = s.deployment;
    x.model = d.str("model");
    if (d.has("system") && d.raw("system").IsMap()) {
      // An inline system, with an id of its own (an inline dgx-h100 would run other figures under
      // the catalog's name, as scenario.cpp refuses).
      const YamlMap sm = d.map("system");
      System sys = parse_system(sm, {});
      if (cat.has_system(sys.id))
        sm.fail("id", "system '" + sys.id + "' is already in the catalog; an inline system needs an id of its own",
                "name it, e.g., '" + sys.id + "-custom', or write system: " + sys.id + " for the catalog's");
      if (known().has_system(sys.id))
        sm.fail("id", "system '" + sys.id + "' is also given in hardware.systems", "give it once: write system: " + sys.id + " for that entry");
      check_study_system_networks(known(), sys, [&sm](const std::string& k) { return sm.locate(k); });
      study_systems.insert(study_systems.begin(), {sys, sm.locate("accelerator"), sm.locate("node_power_w")});
      x.system = sys.id;
      own().add(std::move(sys));
    } else {
      x.system = d.str("system", "");
      // A system file (FILE or FILE#ID, beside the study, then the working directory).
      if (!x.system.empty() && !known().has_system(x.system)) {
        const SystemEntry e = load_system_ref(known(), x.system, d.loc("system"));
        study_systems.insert(study_systems.begin(), {e.system, e.accelerator_at, e.node_power_at});
        x.system = e.system.id;
        own().add(e.system);
      }
    }
    if (!x.system.empty()) x.accelerator = known().system(x.system).accelerator;
    x.accelerator = d.str("accelerator", x.accelerator);
    if (x.accelerator.empty()) d.fail("accelerator", "give an accelerator or a system");
    x.engine = d.str("engine", "generic");
    x.tp = d.i32("tp", 1);
    x.pp = d.i32("pp", 1);
    x.ep = d.i32("ep", 1);
    for (const char* k : {"tp", "pp", "ep"})
      if (d.i32(k, 1) < 1) d.fail(k, "must be >= 1", "got " + std::to_string(d.i32(k, 1)));
    x.kv_share_layers = d.i32("kv_share_layers", 1);
    x.memory_gib = d.f64("memory_gib", 0);
    x.memory_utilization_fraction = d.f64("memory_utilization_fraction", 0);
    // 0 is the reader's "not given": written, it is refused as any other non-positive value.
    // Bounded at 1e9 GiB (an exbibyte): 1e308 GiB overflowed to an infinite byte count (2026-12-05).
    if (d.has("memory_gib") && !(x.memory_gib > 0 && x.memory_gib <= kMaxMemoryGib))
      d.fail("memory_gib", "must be a positive size in GiB up to 1e9", "e.g. 32 for a machine sold as 32 GB; leave it out for the catalog's");
    if (d.has("memory_utilization_fraction") && !(x.memory_utilization_fraction > 0))
      d.fail("memory_utilization_fraction", "must be in (0, 1]", "vLLM's gpu_memory_utilization, e.g. 0.9; leave it out for the engine's");
    x.max_model_len = d.i64("max_model_len", 0);
    x.expert_load_factor = d.f64("expert_load_factor", 0);
    if (!(x.expert_load_factor == 0 || x.expert_load_factor >= 1))
      d.fail("expert_load_factor", "must be >= 1 (busiest EP rank's routed tokens over the mean), or 0 for the default");
    // "" is make_deployment's "not given": written, it had silently meant the default (2026-12-06
    // review), so an empty format is refused as an unknown one is.
    if (d.has("system") && !d.raw("system").IsMap() && d.str("system", "").empty())
      d.fail("system", "unknown system ''", "give a catalog system id or a system YAML file, or leave system out for the accelerator alone");
    for (const char* k : {"weight_format", "activation_format", "kv_format"})
      if (d.has(k) && d.str(k, "").empty())
        d.fail(k, "unknown number format ''", valid_choices_hint("", format_names()) + "; or leave " + k + " out for the default");
    x.weight_format = d.str("weight_format", "");  // "": the checkpoint's (quantization_config), else bf16
    x.activation_format = d.str("activation_format", "");  // "": make_deployment's default
    x.kv_format = d.str("kv_format", "");  // "": make_deployment's default
    // Errors found when the deployment is built (an unknown accelerator, tp not dividing the heads)
    // name the key's own line.
    for (const auto& k : d.keys()) x.given_at[k] = d.loc(k);
    d.finish();
    // A study's way to size an accelerator whose entry states no memory size (make_deployment's
    // error; it had advised --memory-gib, which serve and plan do not take; 2026-12-07 review).
    x.memory_gib_hint = "give the device's memory in GiB as deployment.memory_gib: N in the study (on the command line: --set "
                        "deployment.memory_gib=N), or write the entry's memory_gib in GiB with its provenance, e.g. memory_gib: "
                        "{value: 80, source: ID}";
    // The caller's changes (estimate's options) before anything reads the deployment: the
    // deployment built below had been the file's, and refused what the options fix (review).
    if (override_deployment) override_deployment(x);
  }
  auto& sv = s.serving;
  if (auto v = m.opt_map("serving")) {
    sv.policy = v->choice("policy", make_policy_registry().names(), "continuous");
    sv.replicas = v->i32("replicas", 1);
    // before the saturation estimate multiplies by it (0 replicas was reported as a non-positive rate)
    if (sv.replicas < 1 || sv.replicas > kMaxInstances)
      v->fail("replicas", "replicas must be from 1 to " + std::to_string(kMaxInstances), "got " + std::to_string(sv.replicas));
    sv.pipeline_batches = v->i32("pipeline_batches", 0);
    if (sv.pipeline_batches < 0) v->fail("pipeline_batches", "must be >= 0 (0: one pass in flight per pipeline stage)");
    s.request_table_given = v->has("request_table");
    sv.request_table = v->boolean("request_table", true);
    sv.limits.max_batch_seqs = v->i32("max_batch_seqs", 256);
    sv.limits.max_batch_tokens = v->i64("max_batch_tokens", 8192);
    if (sv.limits.max_batch_seqs < 1 || sv.limits.max_batch_seqs > kMaxBatchSeqs)
      v->fail("max_batch_seqs", "must be from 1 to " + std::to_string(kMaxBatchSeqs), "got " + std::to_string(sv.limits.max_batch_seqs));
    if (sv.limits.max_batch_tokens < 1) v->fail("max_batch_tokens", "must be >= 1", "got " + std::to_string(sv.limits.max_batch_tokens));
    // A pass of max_batch_seqs decoding sequences needs a token each: vLLM refuses
    // max_num_batched_tokens < max_num_seqs at start-up (it had been capped silently; 2026-12-06 review).
    if (sv.limits.max_batch_tokens < sv.limits.max_batch_seqs)
      v->fail("max_batch_tokens", "max_batch_tokens " + std::to_string(sv.limits.max_batch_tokens) + " is below max_batch_seqs " +
                                      std::to_string(sv.limits.max_batch_seqs) + ": a pass of that many decoding sequences needs a token each",
              "raise max_batch_tokens to at least max_batch_seqs, or lower max_batch_seqs (vLLM refuses the same)");
    sv.prefix_caching = v->boolean("prefix_caching", false);
    sv.kv_capacity_tokens = v->f64("kv_capacity_tokens", 0);
    if (!(sv.kv_capacity_tokens >= 0) || !std::isfinite(sv.kv_capacity_tokens))
      v->fail("kv_capacity_tokens", "must be a number of tokens >= 0 (0: what the device's memory holds)");
    sv.timeline_points = v->i32("timeline_points", 200);
    if (sv.timeline_points < 1 || sv.timeline_points > kMaxTimelinePoints)
      v->fail("timeline_points", "must be from 1 to " + std::to_string(kMaxTimelinePoints) + " (points of the KV-cache memory timeline)",
              "got " + std::to_string(sv.timeline_points));
    if (auto sp = v->opt_map("speculative")) {
      s.draft_model = sp->str("draft_model");
      s.draft_model_at = sp->loc("draft_model");
      // An empty name had turned speculative decoding off, its draft_tokens and acceptance checked
      // and ignored (2026-12-06 review); an empty engine is refused alike.
      if (s.draft_model.empty())
        sp->fail("draft_model", "unknown model ''", "give the draft model's name (catalog id, YAML or config.json), "
                                                    "or remove serving.speculative to serve without speculative decoding");
      sv.speculative.draft_tokens = sp->i32("draft_tokens", 4);
      sv.speculative.acceptance = sp->f64("acceptance", 0.7);
      if (sv.speculative.draft_tokens < 1) sp->fail("draft_tokens", "must be >= 1");
      if (!(sv.speculative.acceptance >= 0 && sv.speculative.acceptance <= 1)) sp->fail("acceptance", "must be in [0, 1]");
      sp->finish();
    }
    if (auto dg = v->opt_map("disaggregation")) {
      DisaggregationSpec g;
      g.prefill_instances = dg->i32("prefill_instances", 1);
      g.decode_instances = dg->i32("decode_instances", 1);
      g.kv_link.bandwidth_bytes_per_s = dg->f64("link_gb_per_s", 50) * 1e9;
      g.kv_link.latency_s = dg->f64("link_latency_us", 10) * 1e-6;
      // (0 or -50 GB/s made the KV transfer free before 2026-12-03)
      if (!(g.kv_link.bandwidth_bytes_per_s > 0) || !std::isfinite(g.kv_link.bandwidth_bytes_per_s))
        dg->fail("link_gb_per_s", "must be a positive, finite bandwidth in GB/s");
      if (!(g.kv_link.latency_s >= 0) || !std::isfinite(g.kv_link.latency_s))
        dg->fail("link_latency_us", "must be a finite latency of 0 us or more");
      for (const auto& [key, n] : {std::pair<const char*, int>{"prefill_instances", g.prefill_instances}, {"decode_instances", g.decode_instances}})
        if (n < 1 || n > kMaxInstances) dg->fail(key, "instances must be from 1 to " + std::to_string(kMaxInstances), "got " + std::to_string(n));
      dg->finish();
      sv.disaggregation = g;
    }
    // Read only by a pipeline and by colocated replicas: accepted and ignored before 2026-12-04.
    // (1, the one pass a single stage holds, stays accepted at pp 1: a pp sweep sets both.)
    if (v->has("pipeline_batches") && sv.pipeline_batches > 1 && s.deployment.pp <= 1)
      v->fail("pipeline_batches", "passes in flight are a pipeline's: the deployment has pp 1", "give deployment.pp > 1, or leave it out");
    if (v->has("replicas") && sv.disaggregation)
      v->fail("replicas", "a disaggregated deployment is sized by disaggregation.prefill_instances and decode_instances, not replicas",
              "leave replicas out");
    // Static batching admits whole requests into a batch run to its end; a decode pool receives
    // prefilled sequences one by one, outside any batch (they had joined the running set as under
    // continuous batching, then been preempted and recomputed until the run stalled: 'cannot
    // schedule', 2026-12-04 review).
    if (sv.disaggregation && sv.policy == "static")
      v->fail("policy", "static batching has no meaning for a disaggregated decode pool, which receives prefilled sequences one by one",
              "continuous or chunked-prefill");
    v->finish();
  }
  auto& w = s.workload;
  if (auto v = m.opt_map("workload")) {
    w.arrival = v->choice("arrival", make_arrival_registry().names(), "poisson");
    w.rate_per_s = v->f64("rate_per_s", 0);
    s.load_fraction = v->f64("load_fraction", 0);
    // A stated rate or load must be a positive number (name the key given); neither: ask for one.
    for (const char* k : {"rate_per_s", "load_fraction"})
      if (v->has(k) && !(v->f64(k) > 0) ) v->fail(k, std::string(k) + " must be > 0");
    for (const char* k : {"rate_per_s", "load_fraction"})
      if (v->has(k) && !std::isfinite(v->f64(k))) v->fail(k, std::string(k) + " must be finite");
    if (w.arrival != "trace" && !(w.rate_per_s > 0) && !(s.load_fraction > 0))
      v->fail("rate_per_s", "give rate_per_s or load_fraction (share of the saturation throughput)");
    if (v->has("rate_per_s") && v->has("load_fraction"))
      v->fail("load_fraction", "give one of rate_per_s (requests/s) and load_fraction (share of the saturation throughput), not both");
    // A trace brings its own arrival times: a rate or load beside it had been accepted and reported
    // as if it applied (2026-12-03 review).
    if (w.arrival == "trace")
      for (const char* k : {"rate_per_s", "load_fraction"})
        if (v->has(k))
          v->fail(k, std::string(k) + " does not apply to trace arrivals (the trace gives each request's arrival_s)",
                  "remove it, or use arrival: poisson or gamma");
    // Keys the chosen arrival process does not read were accepted and did nothing (2026-12-04
    // review): the inter-arrival cv is gamma's, the trace_file the trace's, and a trace brings its
    // own lengths and prefixes.
    if (v->has("cv") && w.arrival != "gamma")
      v->fail("cv", "the inter-arrival coefficient of variation is read by gamma arrivals only (" + w.arrival + " arrivals " +
                        (w.arrival == "poisson" ? "have cv 1" : "give their own times") + ")",
              "use arrival: gamma for burstier or smoother arrivals, or leave cv out");
    if (v->has("trace_file") && w.arrival != "trace")
      v->fail("trace_file", "a trace file is read by trace arrivals only (arrival is " + w.arrival + ")", "add arrival: trace, or leave trace_file out");
    if (w.arrival == "trace")
      for (const char* k : {"prompt", "output", "prefix"})
        if (v->has(k))
          v->fail(k, std::string("the trace gives each request's ") +
                         (std::string(k) == "prefix" ? "shared prefix (prefix_group, prefix_tokens columns)" : std::string(k) + "_tokens") +
                         ": " + k + " is not used with trace arrivals",
                  "remove it, or use arrival: poisson or gamma");
    w.cv = v->f64("cv", 1);
    // 0 (below kDeterministicArrivalCv) is the deterministic limit, evenly spaced arrivals; the cap
    // keeps shape 1/cv^2 where the gamma sampler still draws the distribution (arrival.hpp).
    if (!(w.cv >= 0 && w.cv <= kMaxArrivalCv))
      v->fail("cv", "the inter-arrival coefficient of variation must be from 0 to " + format_double(kMaxArrivalCv) + ", got " + format_double(w.cv),
              "1: Poisson; 0: evenly spaced arrivals; above 1 burstier");
    w.trace_file = v->str("trace_file", "");
    // Beside the study first, then the working directory (the working directory came first
    // before 2026-12-03: the same study read another trace from another directory).
    if (!w.trace_file.empty() && !fs::path(w.trace_file).is_absolute()) {
      std::error_code ec;
      if (fs::is_regular_file(path, ec)) {
        fs::path rel = fs::path(path).parent_path() / w.trace_file;
        if (fs::exists(rel)) w.trace_file = rel.string();
      }
    }
    w.requests = v->i64("requests", w.arrival == "trace" ? 0 : 1000);
    // The event simulation holds every request (its lengths, times and KV blocks): bound it so a
    // typo cannot exhaust memory; a long run is a trace or several seeds.
    if (w.arrival != "trace" && (w.requests < 1 || w.requests > kMaxServingRequests))
      v->fail("requests", "requests must be from 1 to " + std::to_string(kMaxServingRequests) + ", got " + std::to_string(w.requests),
              "the serving simulation holds every request in memory");
    // A rate whose run would span more than kMaxArrivalSpanS is refused at its key (2026-12-06 review).
    if (w.arrival != "trace" && v->has("rate_per_s"))
      if (const ArrivalSpanProblem sp = arrival_span_problem(w.rate_per_s, w.requests); !sp.empty())
        v->fail("rate_per_s", "rate_per_s " + format_double(w.rate_per_s) + ": " + sp.message, sp.hint);
    if (auto p = v->opt_map("prompt")) w.prompt = read_length(*p, w.prompt);
    if (auto p = v->opt_map("output")) w.output = read_length(*p, w.output);
    if (auto p = v->opt_map("prefix")) {
      w.prefix_share_fraction = p->f64("share_fraction");
      w.prefix_tokens = p->i32("tokens");
      w.prefix_groups = p->i32("groups", 1);
      // (1.5, -512 tokens and -3 groups ran)
      if (!(w.prefix_share_fraction >= 0 && w.prefix_share_fraction <= 1))
        p->fail("share_fraction", "the share of requests opening with a shared prefix is a fraction from 0 to 1");
      if (w.prefix_tokens < 1) p->fail("tokens", "a shared prefix is at least 1 token");
      if (w.prefix_tokens > kMaxRequestTokens)
        p->fail("tokens", "a shared prefix is at most " + std::to_string(kMaxRequestTokens) + " tokens, got " + std::to_string(w.prefix_tokens));
      if (w.prefix_groups < 1) p->fail("groups", "at least 1 group of requests shares a prefix");
      p->finish();
    }
    const int64_t seed = v->i64("seed", 1);
    if (seed < 0) v->fail("seed", "must be an integer from 0 to 2^63-1");
    w.seed = static_cast<uint64_t>(seed);
    v->finish();
  }
  if (auto v = m.opt_map("slo")) {
    // An absent bound is no bound; a given one must be a time.
    for (const char* k : {"ttft_s", "tpot_s"})
      if (v->has(k) && !(v->f64(k) > 0)) v->fail(k, "an SLO bound must be > 0 s (leave the key out for no bound)");
    sv.slo.ttft_s = v->f64("ttft_s", 0);
    sv.slo.tpot_s = v->f64("tpot_s", 0);
    v->finish();
  }
  // A given power or price must be one: a negative value had been dropped silently for the
  // catalog's (2026-12-03 review); an idle power above the busy one is refused below.
  double busy_w = -1, idle_w = -1, usd = -1;
  std::optional<SourceLocation> idle_at, usd_at;
  if (auto v = m.opt_map("power")) {
    if (v->has("busy_w") && !(v->f64("busy_w") > 0 && std::isfinite(v->f64("busy_w"))))
      v->fail("busy_w", "must be a power in W > 0 (leave the key out for the accelerator's TDP)");
    if (v->has("idle_w") && !(v->f64("idle_w") >= 0 && std::isfinite(v->f64("idle_w"))))
      v->fail("idle_w", "must be a power in W >= 0 (leave the key out for the accelerator's idle power)");
    busy_w = v->f64("busy_w", -1);
    idle_w = v->f64("idle_w", -1);
    if (v->has("idle_w")) idle_at = v->loc("idle_w");
    v->finish();
  }
  if (auto v = m.opt_map("cost")) {
    // A price of 0 is refused as sweep's --price-usd-per-gpu-hour 0 is: every cost figure reads a
    // price of 0 as none. Before 2026-12-06 it was accepted, said as "given: 0 USD per device-hour"
    // and then left out: no $ figures, the candidates ranked after priced ones, and estimate's note
    // asked for a price (review).
    if (v->has("usd_per_device_hour") && !(v->f64("usd_per_device_hour") > 0 && std::isfinite(v->f64("usd_per_device_hour"))))
      v->fail("usd_per_device_hour", "must be a price in USD per device-hour > 0, got " + format_double(v->f64("usd_per_device_hour")),
              "leave the key out for the system's node price or devices.yaml's usd_per_hour");
    usd = v->f64("usd_per_device_hour", -1);
    if (v->has("usd_per_device_hour")) usd_at = v->loc("usd_per_device_hour");
    v->finish();
  }
  if (auto v = m.opt_map("sweep")) {
    auto read = [&](const std::string& key, std::vector<double>& out) {
      if (!v->has(key)) return;
      const YAML::Node n = v->raw(key);
      if (!n.IsSequence()) v->fail(key, "expected a list of numbers");
      out.clear();
      for (const auto& e : n) {
        const std::string text = e.IsScalar() ? e.Scalar() : std::string();
        char* end = nullptr;
        const double x = text.empty() ? std::nan("") : std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) v->fail(key, "expected a list of numbers, got '" + text + "'");
        out.push_back(x);
      }
      if (out.empty()) v->fail(key, "must not be empty");
      for (double x : out)
        if (!(x > 0) || !std::isfinite(x)) v->fail(key, "values must be finite and > 0");  // (inf ran, with null rows)
      reject_duplicate_entries<double>(*v, key, out, [](const double& x) { return format_double(x); }, "each entry is one run of the sweep");
    };
    read("load_fractions", s.sweep_load_fractions);
    read("rates_per_s", s.sweep_rates_per_s);
    if (s.workload.arrival != "trace")
      for (double x : s.sweep_rates_per_s)
        if (const ArrivalSpanProblem sp = arrival_span_problem(x, s.workload.requests); !sp.empty())
          v->fail("rates_per_s", "rates_per_s entry " + format_double(x) + ": " + sp.message, sp.hint);
    if (s.sweep_load_fractions.empty() == s.sweep_rates_per_s.empty())
      v->fail("load_fractions", "give one of load_fractions or rates_per_s");
    v->finish();
  }
  if (auto v = m.opt_map("plan")) {
    auto& p = s.plan;
    // Each list entry is checked here, at its key: an unknown accelerator, tp 0 or a bad policy had
    // become a candidate row whose status held the error, without the file (2026-12-03 review).
    p.accelerators = plan_str_list(*v, "accelerators", p.accelerators, "catalog accelerator ids or accelerator files, e.g. [h100-sxm-80gb, h200-sxm-141gb]",
                              "the deployment's accelerator");
    // A catalog id or an accelerator file, as deployment.accelerator (2026-12-06 review).
    // Named by its id, as the notes and serve name it: entries of two names for one part (a file
    // and its id) are one candidate (review of 2026-12-06).
    std::vector<std::string> ids;
    for (const auto& a : p.accelerators)
      ids.push_back(known().has_accelerator(a) ? a : load_accelerator_ref(known(), a, v->loc("accelerators")).id);
    reject_duplicate_entries<std::string>(*v, "accelerators", p.accelerators, quoted, kPlanEntry);
    for (size_t j = 0; j < ids.size(); ++j)
      for (size_t i = 0; i < j; ++i)
        if (ids[i] == ids[j])
          v->fail("accelerators", "entries " + std::to_string(i + 1) + " ('" + p.accelerators[i] + "') and " + std::to_string(j + 1) + " ('" +
                                      p.accelerators[j] + "') are both accelerator '" + ids[j] + "'",
                  std::string(kPlanEntry) + "; remove one, or give the file's entry an id of its own");
    p.tp = int_list<int>(*v, "tp", p.tp, "tensor-parallel sizes >= 1, e.g. [2, 4, 8]");
    for (int x : p.tp)
      if (x < 1) v->fail("tp", "entries must be >= 1, got " + std::to_string(x));
    reject_duplicate_entries<int>(*v, "tp", p.tp, int_text, kPlanEntry);
    p.max_batch_seqs = int_list<int>(*v, "max_batch_seqs", p.max_batch_seqs,
                                     "batch sizes from 1 to " + std::to_string(kMaxBatchSeqs) + ", e.g. [128, 256]");
    for (int x : p.max_batch_seqs)
      if (x < 1 || x > kMaxBatchSeqs) v->fail("max_batch_seqs", "entries must be from 1 to " + std::to_string(kMaxBatchSeqs) + ", got " + std::to_string(x));
    reject_duplicate_entries<int>(*v, "max_batch_seqs", p.max_batch_seqs, int_text, kPlanEntry);
    // Every candidate runs at the study's serving.max_batch_tokens, which serve refuses below
    // max_batch_seqs (as vLLM does): before 2026-12-06 plan simulated such a candidate and could
    // recommend it (review). An entry written is refused here; the default list's are marked in
    // the candidates table (run_plan).
    if (v->has("max_batch_seqs"))
      for (int x : p.max_batch_seqs)
        if (x > sv.limits.max_batch_tokens)
          v->fail("max_batch_seqs", "entry " + std::to_string(x) + " is above serving.max_batch_tokens " + std::to_string(sv.limits.max_batch_tokens) +
                                        ": a pass of that many decoding sequences needs a token each, and serve refuses it",
                  "entries at most " + std::to_string(sv.limits.max_batch_tokens) + ", or raise serving.max_batch_tokens (vLLM refuses "
                  "max_num_batched_tokens below max_num_seqs)");
    {
      const auto names = make_policy_registry().names();
      std::string valid;
      for (const auto& x : names) valid += (valid.empty() ? "" : ", ") + x;
      p.policies = plan_str_list(*v, "policies", p.policies, "batching policies among " + valid, "the study's serving.policy");
      for (const auto& x : p.policies)
        if (std::find(names.begin(), names.end(), x) == names.end())
          v->fail("policies", "unknown batching policy '" + x + "'", valid_choices_hint(x, names));
      reject_duplicate_entries<std::string>(*v, "policies", p.policies, quoted, kPlanEntry);
    }
    p.max_devices = v->i32("max_devices", p.max_devices);
    p.slo_attainment_fraction = v->f64("slo_attainment_fraction", p.slo_attainment_fraction);
    if (!(p.slo_attainment_fraction > 0 && p.slo_attainment_fraction <= 1))
      v->fail("slo_attainment_fraction", "must be in (0, 1]");
    if (p.max_devices < 1) v->fail("max_devices", "must be >= 1");
    p.requests = v->i64("requests", p.requests);
    if (p.requests < 1 || p.requests > kMaxServingRequests)
      v->fail("requests", "must be from 1 to " + std::to_string(kMaxServingRequests));
    v->finish();
  }
  m.finish();
  // The accelerators of the study's systems: a catalog or hardware.accelerators id, or the id of the
  // deployment's or a plan entry's accelerator file; each system's node power is checked against
  // its boards as the catalog's are.
  if (!study_systems.empty()) {
    std::vector<Accelerator> parts;  // from the deployment's and the plan's accelerator files
    auto add_part = [&](const std::string& ref, const SourceLocation& at) {
      if (!ref.empty() && !known().has_accelerator(ref)) parts.push_back(load_accelerator_ref(known(), ref, at));
    };
    if (auto it = s.deployment.given_at.find("accelerator"); it != s.deployment.given_at.end()) add_part(s.deployment.accelerator, it->second);
    for (const auto& a : s.plan.accelerators) add_part(a, SourceLocation{path, 0, 0, "plan.accelerators"});
    for (const auto& ss : study_systems) {
      const std::string& id = ss.system.accelerator;
      const Accelerator* a = known().has_accelerator(id) ? &known().accelerator(id) : nullptr;
      for (const auto& part : parts)
        if (!a && part.id == id) a = &part;
      if (!a) {
        std::vector<std::string> ids = known().accelerator_ids();
        for (const auto& part : parts) ids.push_back(part.id);
        throw Error(ss.accelerator_at, "system '" + ss.system.id + "' holds unknown accelerator '" + id + "'",
                    valid_choices_hint(id, ids) + "; or describe the part under hardware.accelerators, or give its accelerator file as "
                                                  "deployment.accelerator or in plan.accelerators");
      }
      check_node_power(ss.system, *a, ss.node_power_at);
    }
    for (const auto& ss : study_systems) s.deployment.study_systems.push_back(ss.system.id);
  }
  s.deployment.hardware = local;
  sv.deployment = make_deployment(cat, data, s.deployment, SourceLocation{path, 0, 0, "deployment"});
  resolve_serving(s, cat, data);
  if (busy_w >= 0) sv.busy_power_w = busy_w;
  if (idle_w >= 0) sv.idle_power_w = idle_w;
  // A stated price is per device, whatever the system's node price (as sweep's flat
  // --price-usd-per-gpu-hour is per GPU).
  if (usd >= 0) {
    sv.usd_per_device_hour = usd;
    sv.usd_per_device_hour_stated = true;
    sv.price_node_devices = 0;
    sv.price_source = stated_price_source(usd, usd_at ? *usd_at : SourceLocation{path, 0, 0, "cost.usd_per_device_hour"});
  }
  if (sv.idle_power_w > sv.busy_power_w && (busy_w >= 0 || idle_w >= 0))
    throw Error(idle_at ? *idle_at : SourceLocation{path, 0, 0, "power.busy_w"},
                "idle power " + format_double(sv.idle_power_w) + " W is above the busy power of " + format_double(sv.busy_power_w) +
                    " W (the energy's dynamic part would be negative)");
  return s;
}

void resolve_serving(StudySpec& s, const Catalog& cat, const InferData& data) {
  auto& sv = s.serving;
  // The speculative acceptance draws follow the workload's seed (they were always seed 1).
  sv.seed = s.workload.seed;
  const auto& d = sv.deployment;
  const DeviceProfile p = data.device(d.accel);
  sv.memory_available_fraction = memory_share(d, p);
  sv.memory_recommended_fraction = p.memory_recommended_fraction.known && p.memory_recommended_fraction.value < sv.memory_available_fraction
                                       ? p.memory_recommended_fraction.value : 0.0;
  sv.busy_power_w = device_power_busy(d.accel);
  sv.idle_power_w = device_power_idle(d.accel, p);
  sv.usd_per_device_hour = value_or(d.price.usd_per_device_hour, 0.0);
  sv.usd_per_device_hour_stated = false;
  sv.price_node_devices = d.price.node_devices;
  sv.price_source = d.price.source;
  sv.draft.reset();
  if (!s.draft_model.empty()) {
    DeploymentSpec ds = s.deployment;
    ds.model = s.draft_model;
    // The draft's own key, not the target's `model` line (an unknown draft had been reported at
    // deployment.model, 2026-12-04 review).
    SourceLocation at = s.draft_model_at;
    if (at.file.empty()) at = SourceLocation{s.file, 0, 0, ""};
    at.key = "serving.speculative.draft_model";
    ds.given_at["model"] = at;
    sv.draft = make_deployment(cat, data, ds, at);
    // Speculative sampling compares the draft's and the target's probabilities of the same token
    // (Leviathan et al. 2023): the two share a vocabulary (Llama 3.1 8B drafting for Llama 2 7B
    // had been accepted before 2026-12-03).
    if (sv.draft->model.vocab != sv.deployment.model.vocab)
      throw Error(at, "draft model " + sv.draft->model.id + " has a vocabulary of " + std::to_string(sv.draft->model.vocab) +
                          " tokens, the target " + sv.deployment.model.id + " one of " + std::to_string(sv.deployment.model.vocab),
                  "a draft model shares the target's tokenizer: choose a smaller model of the same family");
  }
}

namespace {
std::string sig4(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}
// One decimal (fmt's "{:.1f}"): printf, as the infer library links no libfmt (run_estimate, which
// `infer validate` now calls, had pulled fmt symbols into test_infer; 2026-12-06).
std::string pct1(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// Scheduler slots of one replica: pipeline_batches (default pp) under pipeline parallelism.
int slots_of(const ServingSpec& sv) { return pipeline_slots(sv.deployment.par.pp, sv.pipeline_batches); }

// Requests of the burst that measures the saturation throughput: sixteen full batches, so that the
// steady window outweighs the first batch's synchronised start.
int64_t saturation_burst_requests(const ServingSpec& sv) {
  return std::min<int64_t>(kMaxServingRequests, std::max<int64_t>(2000, 16 * static_cast<int64_t>(sv.limits.max_batch_seqs) * slots_of(sv)));
}

// Forward passes that burst takes, estimated from the workload's mean lengths: its decode tokens
// over the sequences a replica runs at once (max_batch_seqs per slot, or the mean requests its KV
// cache holds whole, if fewer), plus its prompt tokens over max_batch_tokens. An estimate of its
// cost, not of its result.
double saturation_burst_passes(const StudySpec& s) {
  const ServingSpec& sv = s.serving;
  const double prompt = s.workload.prompt.mean + s.workload.prefix_share_fraction * s.workload.prefix_tokens, output = s.workload.output.mean;
  const int slots = slots_of(sv);
  const double held = std::floor(kv_capacity_tokens(sv, sv.deployment) / slots / (prompt + output));
  const int instances = sv.disaggregation ? sv.disaggregation->decode_instances : 1;
  const double running = instances * slots * std::clamp(held, 1.0, static_cast<double>(sv.limits.max_batch_seqs));
  const double n = static_cast<double>(saturation_burst_requests(sv));
  return n * output / running + n * prompt / static_cast<double>(sv.limits.max_batch_tokens);
}

// A ceiling on the saturation throughput of the whole setup, in requests per second, from the cost
// of its passes alone, for when the burst that measures it is left out: a request needs its
// prompt's prefill, in passes of up to max_batch_tokens and max_batch_seqs (short prompts batched
// into one pass, a longer one whole, which costs no more than its chunks), and output - 1 decode
// tokens from passes of as many sequences as max_batch_seqs and the KV cache allow at the mean
// context (prompt + output / 2, every sequence halfway), a speculative step emitting its expected
// tokens. A pass takes at least its prefill part's time and its decode part's, so an instance
// serves at most one request per the larger of the two (a disaggregated pool per its own); under
// pipeline parallelism a pass holds the devices for the pipeline's period. Queueing, preemption
// and the ramp-up are left out, so the simulated server is slower: with fixed lengths the burst
// measured from 1% below it to 2.4 times below it on the examples, GPT-OSS-120B and their policies
// (2026-12-06). Lengths drawn from a distribution are taken at the run's mean (`prompt` including
// a shared prefix, of which `prefill` leaves out what prefix caching serves), and the burst's own
// draw measured up to 21% above it there.
double saturation_ceiling_per_s(const StudySpec& s, double prompt, double prefill, double output) {
  const ServingSpec& sv = s.serving;
  const CostModel cm(sv.deployment);
  const int slots = slots_of(sv);
  auto period = [&](const IterationCost& c) { return slots > 1 ? c.pipeline_period_s(slots) : c.total_s; };
  const double mbt = static_cast<double>(sv.limits.max_batch_tokens);
  const int64_t chunk = std::max<int64_t>(1, std::llround(prefill));
  const int64_t per_pass = std::clamp<int64_t>(static_cast<int64_t>(std::floor(mbt / static_cast<double>(chunk))), 1, sv.limits.max_batch_seqs);
  const double prefill_s = period(cm.iteration(cm.prefill(per_pass, chunk))) / static_cast<double>(per_pass);
  double decode_s = 0;
  if (output > 1) {
    const double context = prompt + output / 2;
    const KvCacheLayout L = kv_cache_layout(cm, nullptr, kv_capacity_tokens(sv, sv.deployment), slots);
    const int64_t seq_units = std::max<int64_t>(1, L.units.units(std::llround(context), 0, 1, L.block_tokens));
    const int64_t running = std::clamp<int64_t>(L.pool_units / seq_units, 1, sv.limits.max_batch_seqs);
    // With a draft, serve's step (Instance::start): k draft passes, then the target verifying k + 1
    // tokens per sequence, which emits (1 - a^(k+1)) / (1 - a) of them in expectation.
    const int k = sv.draft ? sv.speculative.draft_tokens : 0;
    const double a = sv.speculative.acceptance;
    const double per_step = !sv.draft ? 1.0 : a >= 1 ? k + 1.0 : (1.0 - std::pow(a, k + 1)) / (1.0 - a);
    double step_s = period(cm.iteration(cm.decode(running, context, k + 1)));
    if (sv.draft) step_s += k * CostModel(*sv.draft).iteration(CostModel(*sv.draft).decode(running, context)).total_s;
    decode_s = (output - 1) * step_s / (static_cast<double>(running) * per_step);
  }
  if (sv.disaggregation) {
    const double pre = prefill_s > 0 ? sv.disaggregation->prefill_instances / prefill_s : INFINITY;
    const double dec = decode_s > 0 ? sv.disaggregation->decode_instances / decode_s : INFINITY;
    return std::min(pre, dec);
  }
  return sv.replicas / std::max(prefill_s, decode_s);
}

// Saturation throughput of the whole serving setup: one replica measured with all requests
// waiting (a replica needs several batches of requests to saturate), times the replicas;
// disaggregated pools are measured whole.
// A trace's burst is its own lengths (prefixes included), cycled to the burst's size, all waiting
// at about time 0: the workload's prompt and output keys, which a trace does not use, had sized it
// (2026-12-07 review). `trace` is the study's requests, read again from its file where not given.
double saturation_of(const StudySpec& s, const std::vector<Request>* trace = nullptr) {
  ServingSpec one = s.serving;
  const int copies = one.disaggregation ? 1 : one.replicas;
  if (!one.disaggregation) one.replicas = 1;
  const int64_t n = saturation_burst_requests(one);
  if (s.workload.arrival != "trace") return saturation_requests_per_s(one, s.workload, n) * copies;
  std::vector<Request> read;
  if (!trace) read = generate_requests(s.workload);
  const std::vector<Request>& lengths = trace ? *trace : read;
  if (lengths.empty()) return 0;
  std::vector<Request> burst(static_cast<size_t>(n));
  for (size_t i = 0; i < burst.size(); ++i) {
    burst[i] = lengths[i % lengths.size()];
    burst[i].arrival_s = static_cast<double>(i) * 1e-9;  // as the generated burst's 1e9 requests/s
  }
  return saturation_requests_per_s(one, burst) * copies;
}

// The steady cost alone does not justify a burst of more than this many estimated passes and
// this many times the run's own (2,000 requests of 41,000 tokens, KV-bound at 11 sequences, took
// 9 s for a 2-request run of 0.5 s; GPT-OSS-120B at 90,000 output tokens over a minute; review of
// 2026-12-06). One million passes take about 1.5 s on one core of the build machine.
constexpr double kSteadyBurstMinPasses = 1e6;
constexpr double kSteadyBurstRunMultiple = 16;

// The share of a run's requests refused at arrival (too long for the cache or the context): it
// depends on their lengths only, not on the rate, so one run gives it for every rate.
double refused_share(const Result& r, size_t requests) {
  const Value* rej = r.scalar("rejected_count");
  return rej && std::holds_alternative<int64_t>(*rej) && requests > 0
             ? static_cast<double>(std::get<int64_t>(*rej)) / static_cast<double>(requests)
             : 0.0;
}

// The offered rate of trace arrivals: (n - 1) / (last - first arrival), the inverse of the mean
// gap between arrivals (the rate a Poisson process of those gaps would have); NaN (null: unknown)
// when fewer than two requests arrive or all at one instant. A trace has no workload.rate_per_s,
// and its 0 had been reported as the offered rate beside a throughput of 0.59 requests/s
// (2026-12-06 review).
double trace_rate_per_s(const std::vector<Request>& reqs) {
  if (reqs.size() < 2) return std::nan("");
  double first = reqs.front().arrival_s, last = first;
  for (const Request& q : reqs) {
    first = std::min(first, q.arrival_s);
    last = std::max(last, q.arrival_s);
  }
  return last > first ? static_cast<double>(reqs.size() - 1) / (last - first) : std::nan("");
}

// The arrival rate at which the accepted requests arrive at `fraction` of the saturation
// throughput, which counts completed requests: refused ones are no load, so the rate is divided by
// the share accepted. workload.load_fraction and sweep.load_fractions both mean it (the sweep had
// offered fraction x saturation: 43 requests/s at 0.8 where the run at load_fraction 0.8 offered 83
// with 48% refused; review of 2026-12-05).
double rate_at_load(double fraction, double saturation_per_s, double refused) {
  return refused > 0 && refused < 1 ? fraction * saturation_per_s / (1.0 - refused) : fraction * saturation_per_s;
}

// Inference validation (data/validation/inference.csv) has dense models only, and published
// small-batch decode of a large mixture of experts runs several times slower than the roofline:
// said by estimate and serve of a MoE model (DeepSeek-V3 at TP8 and batch 1 read 3.05 ms a token,
// 328 tokens/s, with no word; review of 2026-12-05). The median is `infer validate`'s of
// 2026-12-02 (docs/inference.md, Validation); InferCli.test_moe_models_say_validation_is_dense_only
// checks the CSV still has no MoE row.
void moe_validation_note(const Deployment& d, std::vector<std::string>& notes) {
  if (!d.model.moe) return;
  notes.push_back(d.model.id + " is a mixture of experts, and the inference validation covers dense models only "
                  "(data/validation/inference.csv: Llama-2-7B and Llama-2-70B; median error 4.2% by `sextant infer validate`). "
                  "Published small-batch decode of a large MoE runs several times slower than this roofline: DeepSeek-V3 at TP8, "
                  "batch 1, 128-token prompts and 256 outputs, 30.3 tokens/s (SGLang v0.4.1.post2, sgl-project/sglang PR #2643), "
                  "and about 13 tokens/s on 8 x H200 (sgl-project/sglang issue #3196). The per-kernel latency of many small expert "
                  "GEMMs (a few tokens per expert at a small batch) is not modelled: read small-batch decode speeds of a MoE model "
                  "as an upper bound, not a prediction");
}
}  // namespace

static Result run_serve_in(StudySpec s);

// The memory size assumed on a SoC whose size was not given (memory_gib 0): estimate's and serve's
// note (serve had assumed the catalog's size without a word; 2026-12-07 review).
static std::string catalog_memory_note(const Deployment& d, double memory_gib_given) {
  if (d.accel.kind != "soc" || memory_gib_given != 0) return {};
  char gbs[64];
  std::snprintf(gbs, sizeof gbs, "%.1f GB (%.0f GiB)", d.accel.memory_bytes.value / 1e9, d.accel.memory_bytes.value / 1073741824.0);
  return "memory: " + d.accel.id + " as the catalog lists it, " + gbs +
         "; a chip may ship with other sizes: give the machine's with --memory-gib (deployment.memory_gib)";
}

// Errors of the serving model name a key but no file (it is built from specs, not files): the
// study's file is added here, so that "every request is refused" says where the study is.
Result run_serve(StudySpec s, const Catalog&, const InferData&) {
  const std::string file = s.file;
  const SourceLocation deployment_at = s.deployment_at;
  try {
    return run_serve_in(std::move(s));
  } catch (const Error& e) {
    if (!e.where().file.empty() || e.where().key.empty() || file.empty()) throw;
    SourceLocation w = e.where();
    w.file = file;
    // An error about the deployment as a whole at the line of its key (2026-12-07 review).
    if (w.key == "deployment" && w.line == 0) w = deployment_at;
    throw Error(w, e.message(), e.hint());
  }
}

static Result run_serve_in(StudySpec s) {
  const bool sweep = !s.sweep_load_fractions.empty() || !s.sweep_rates_per_s.empty();
  if (sweep && s.workload.arrival == "trace")
    throw Error(SourceLocation{s.file, 0, 0, "sweep"}, "a request-rate sweep needs generated arrivals (poisson or gamma), not a trace");
  // A sweep always reports each rate's share of the saturation throughput, whichever way it was given.
  double cap = 0;
  if (s.load_fraction > 0 || sweep) cap = saturation_of(s);
  if (s.load_fraction > 0) s.workload.rate_per_s = rate_at_load(s.load_fraction, cap, 0.0);
  // A load so small that its rate's run would span more than kMaxArrivalSpanS is refused at its key
  // (a given rate is refused by load_study; 2026-12-06 review).
  auto check_span = [&](double rate, const char* key, double fraction) {
    if (const ArrivalSpanProblem sp = arrival_span_problem(rate, s.workload.requests); !sp.empty())
      throw Error(SourceLocation{s.file, 0, 0, key}, std::string(key) + " " + format_double(fraction) + " of the saturation throughput (" +
                                                         format_double(cap) + " requests/s): " + sp.message,
                  "a larger load fraction, or fewer requests");
  };
  if (s.load_fraction > 0) check_span(s.workload.rate_per_s, "workload.load_fraction", s.load_fraction);
  auto reqs = generate_requests(s.workload);
  Result r = simulate_serving(s.serving, reqs);
  // The saturation throughput counts completed requests: requests refused at arrival (too long
  // for the cache or the context) are no load. The rate is raised so that the accepted ones
  // arrive at load_fraction x saturation (at 1.0 the server had run at 81% with 19% refused;
  // 2026-12-04 review). The lengths do not depend on the rate: the same requests, refused alike.
  const double refused = refused_share(r, reqs.size());
  if (s.load_fraction > 0 && refused > 0 && refused < 1) {
    s.workload.rate_per_s = rate_at_load(s.load_fraction, cap, refused);
    reqs = generate_requests(s.workload);
    r = simulate_serving(s.serving, reqs);
    r.notes.push_back(pct1(100.0 * refused) + "% of the requests are refused at arrival: the arrival rate is load_fraction x saturation / "
                                              "(1 - that share), so that the accepted requests arrive at load_fraction x saturation");
  }
  for (const auto& n : weight_format_notes(s.serving.deployment)) r.notes.push_back(n);
  if (const std::string note = catalog_memory_note(s.serving.deployment, s.deployment.memory_gib); !note.empty()) r.notes.push_back(note);
  npu_peak_note(s.serving.deployment, CostModel(s.serving.deployment).compute_type(), r.notes);
  engine_caveat_notes(s.serving.deployment, r.notes);
  moe_validation_note(s.serving.deployment, r.notes);
  if (const std::string note = ignored_keys_note(s.serving.deployment.model); !note.empty()) r.notes.push_back(note);
  // Lengths are clamped to [min, max]: a bound inside the distribution's tail moves the mean the
  // workload asked for (exponential, mean 256, max 511: 224), which is said.
  if (s.workload.arrival != "trace" && !reqs.empty()) {
    auto check = [&](const LengthSpec& spec, bool prompt, const char* key) {
      if (spec.dist == "fixed" || spec.dist == "uniform") return;
      double sum = 0;
      // A shared prefix precedes the drawn prompt (arrivals/registry.cpp): it is not the draw's,
      // so it is not counted (its 60% x 512 tokens were blamed on clamping before 2026-12-03).
      for (const auto& q : reqs) sum += prompt ? q.prompt_tokens - q.prefix_tokens : q.output_tokens;
      const double mean = sum / static_cast<double>(reqs.size());
      if (std::fabs(mean / spec.mean - 1.0) > 0.05)
        r.notes.push_back(std::string("workload.") + key + ": the drawn lengths average " + format_double(std::round(mean * 10) / 10) +
                          " tokens where mean " + format_double(spec.mean) + " was asked: clamping to [" + std::to_string(spec.min) +
                          ", " + std::to_string(spec.max) + "] (or a short run) moves it; raise max or give more requests");
    };
    check(s.workload.prompt, true, "prompt");
    check(s.workload.output, false, "output");
  }
  r.set("arrival", s.workload.arrival);
  r.set("rate_per_s", s.workload.arrival == "trace" ? trace_rate_per_s(reqs) : s.workload.rate_per_s);
  if (s.load_fraction > 0) r.set("load_fraction", s.load_fraction);
  // Steady-state cost: the run's $/Mtok is over the whole run, ramp-up and drain included, so a
  // short run reads high. At steady state the server completes what arrives, up to its saturation
  // throughput: the arrival rate (the generator's) x output tokens per arrival (refused requests
  // give none), per device-hour. Not for a trace: the saturation
  // throughput is measured on generated lengths.
  // The saturation throughput is measured for it when the run has not measured it already
  // (load_fraction, sweep), unless that burst would dwarf the run itself: then the figure is left
  // out with a note, rather than a 2-request run simulating thousands of long requests.
  const double usd_h = s.serving.usd_per_device_hour;
  bool steady = usd_h > 0 && s.workload.arrival != "trace" && reqs.size() >= 2 && reqs.back().arrival_s > reqs.front().arrival_s;
  if (steady && cap <= 0) {
    const double burst = saturation_burst_passes(s);
    const Value* it = r.scalar("iterations_count");
    const double run_passes = it && std::holds_alternative<int64_t>(*it) ? static_cast<double>(std::get<int64_t>(*it)) : 0.0;
    if (burst > std::max(kSteadyBurstMinPasses, kSteadyBurstRunMultiple * run_passes)) {
      steady = false;
      // The overload check stays, against a ceiling on the saturation throughput from the
      // passes' cost (saturation_ceiling_per_s): it had gone with the burst, and 2 requests/s of
      // 30,000 output tokens on the disaggregated 70B example, 26 times its saturation throughput,
      // ran with no word of the queue (2026-12-06 review).
      double prompt = 0, prefill = 0, output = 0;
      for (const auto& q : reqs) {
        prompt += q.prompt_tokens;
        prefill += q.prompt_tokens - (s.serving.prefix_caching && q.prefix_group >= 0 ? q.prefix_tokens : 0);
        output += q.output_tokens;
      }
      const double n = static_cast<double>(reqs.size());
      const double bound = saturation_ceiling_per_s(s, prompt / n, prefill / n, output / n);
      const double accepted = 1.0 - refused_share(r, reqs.size()), accepted_per_s = s.workload.rate_per_s * accepted;
      r.notes.push_back("steady_usd_per_million_output_tokens is left out: it needs the saturation throughput, measured by a burst of " +
                        std::to_string(saturation_burst_requests(s.serving)) + " requests of this workload's lengths, about " +
                        sig4(burst) + " forward passes against this run's " + sig4(run_passes) +
                        "; usd_per_million_output_tokens is the run's own, ramp-up and drain included. workload.load_fraction or a "
                        "sweep measures the saturation throughput whatever the burst costs. Overload is checked against " +
                        sig4(bound) + " requests/s instead, a ceiling on the saturation throughput from the passes' cost at full "
                        "batches and the run's mean lengths: a rate below it may still overload the server");
      if (accepted_per_s > bound)
        r.notes.push_back("requests arrive at " + sig4(s.workload.rate_per_s) + "/s" +
                          (accepted < 1 ? ", the accepted ones at " + sig4(accepted_per_s) + "/s" : std::string()) +
                          ", above " + sig4(bound) + "/s, a ceiling on the saturation throughput (the passes' cost at full batches "
                          "and the run's mean lengths; the burst that measures it is left out): the queue grows without bound");
    } else {
      cap = saturation_of(s);
    }
  }
  if (steady) {
    const double arrivals_per_s = s.workload.rate_per_s > 0 ? s.workload.rate_per_s  // the generator's rate, exact
                                                              : static_cast<double>(reqs.size() - 1) / (reqs.back().arrival_s - reqs.front().arrival_s);
    const double dur = std::get<double>(*r.scalar("duration_s"));
    const double out = std::get<double>(*r.scalar("output_tokens_per_s")) * dur;
    // The devices paid for (the whole nodes its instances are placed on under a system's node
    // price, billed_nodes), as the run's own cost.
    const int64_t devices = billed_devices(std::get<int64_t>(*r.scalar("instances_count")), s.serving.deployment.par.devices(),
                                           s.serving.price_node_devices, s.serving.deployment.par.pp);
    const Value* done = r.scalar("completed_count");
    const double completed = done && std::holds_alternative<int64_t>(*done) ? static_cast<double>(std::get<int64_t>(*done)) : 0.0;
    const double accepted = 1.0 - refused_share(r, reqs.size());
    if (out > 0 && completed > 0) {
      // Completions per second (the accepted arrivals, up to saturation) x output tokens per
      // completed request (per arrival before 2026-12-04, which discounted refusals twice).
      const double accepted_per_s = arrivals_per_s * accepted;
      const double served = std::min(accepted_per_s, cap);
      r.set("steady_usd_per_million_output_tokens", devices * usd_h / 3600.0 / (served * out / completed) * 1e6);
      // The accepted arrivals are the load (the saturation throughput counts completed requests):
      // every arrival had been compared, and a run at load_fraction 0.8 with 48% refused was said to
      // grow without bound (review of 2026-12-05).
      if (accepted_per_s > cap)
        r.notes.push_back("requests arrive at " + sig4(arrivals_per_s) + "/s" +
                          (accepted < 1 ? ", the accepted ones at " + sig4(accepted_per_s) + "/s" : std::string()) +
                          ", above the saturation throughput " + sig4(cap) + "/s: the queue grows without bound, and the steady cost is at saturation");
    }
  }
  if (cap > 0) r.set("saturation_requests_per_s", cap);
  if (s.serving.draft) {
    r.set("draft_model", s.draft_model);
    r.set("draft_tokens", static_cast<int64_t>(s.serving.speculative.draft_tokens));
    r.set("acceptance_fraction", s.serving.speculative.acceptance);
  }
  if (sweep) {
    // The same workload (lengths, seed, request count) at each offered rate.
    Table& t = r.add_table("load_sweep", "the workload at each offered request rate: throughput, latency percentiles and SLO attainment");
    t.add_f64("offered_requests_per_s"); t.add_f64("load_fraction"); t.add_f64("throughput_requests_per_s");
    t.add_f64("output_tokens_per_s"); t.add_f64("ttft_p50_s"); t.add_f64("ttft_p99_s"); t.add_f64("tpot_p50_s");
    t.add_f64("tpot_p99_s"); t.add_f64("slo_attainment_fraction"); t.add_f64("goodput_requests_per_s");
    std::vector<double> rates = s.sweep_rates_per_s;
    for (double f : s.sweep_load_fractions) {
      rates.push_back(rate_at_load(f, cap, refused));
      check_span(rates.back(), "sweep.load_fractions", f);
    }
    // Said for rates_per_s too: its load_fraction column is the accepted rate's as well (review of
    // 2026-12-05: 0.489 at 2 req/s with 27% refused read as unexplained).
    if (refused > 0 && refused < 1)
      r.notes.push_back("load_sweep: " + pct1(100.0 * refused) +
                        "% of the requests are refused at arrival at every rate (their lengths decide it): "
                        "the load_fraction column is the accepted requests' rate over the saturation throughput" +
                        (s.sweep_load_fractions.empty() ? std::string()
                                                        : ", and each offered rate of load_fractions is load_fraction x saturation / (1 - "
                                                          "that share), as for workload.load_fraction"));
    ServingSpec quiet = s.serving;
    quiet.request_table = false;
    quiet.timeline_points = 1;
    for (double rate : rates) {
      WorkloadSpec w = s.workload;
      w.rate_per_s = rate;
      ServingSummary m;
      simulate_serving(quiet, generate_requests(w), &m);
      t.add_row({rate, rate * (1.0 - refused) / cap, m.requests_per_s, m.output_tokens_per_s, m.ttft_p50_s, m.ttft_p99_s,
                 m.tpot_p50_s, m.tpot_p99_s, m.slo_attainment_fraction, m.goodput_requests_per_s});
    }
  }
  r.notes.push_back("power: busy " + format_double(s.serving.busy_power_w) + " W, idle " + format_double(s.serving.idle_power_w) +
                    " W per device; price " + format_double(s.serving.usd_per_device_hour) + " USD per device-hour (0: unknown; price_source says where it came from)");
  return r;
}

std::pair<int64_t, int64_t> mean_request_lengths(const WorkloadSpec& workload) {
  // The lengths do not depend on the rate, which a load_fraction sets only against a deployment's
  // saturation throughput (0 until then).
  WorkloadSpec w = workload;
  if (!(w.rate_per_s > 0)) w.rate_per_s = 1;
  const std::vector<Request> reqs = generate_requests(w);
  if (reqs.empty()) return {1024, 256};
  double prompt = 0, output = 0;  // in request order: the same sums on every run
  for (const Request& r : reqs) {
    prompt += r.prompt_tokens;
    output += r.output_tokens;
  }
  const double n = static_cast<double>(reqs.size());
  return {std::max<int64_t>(1, std::llround(prompt / n)), std::max<int64_t>(1, std::llround(output / n))};
}

static void check_token_counts(int64_t prompt, int64_t output, int64_t batch);  // below, beside run_estimate

Result run_study_estimate(const StudySpec& s, const std::string& study_name, const Catalog& cat, const InferData& data,
                          std::optional<int64_t> prompt_given, std::optional<int64_t> output_given, int64_t batch) {
  // The workload's mean lengths (a trace's, over its requests); given lengths override them.
  const auto mean_lengths = mean_request_lengths(s.workload);
  const bool own_prompt = !prompt_given, own_output = !output_given;
  const int64_t prompt = prompt_given.value_or(mean_lengths.first), output = output_given.value_or(mean_lengths.second);
  // Serve runs at most max_batch_seqs sequences in a pass, prefill or decode: a larger batch is
  // no pass of this study. Before 2026-12-06 estimate ran --batch 16 of a study with max_batch_seqs
  // 4 as prefill passes of 8 prompts and decode steps of 16 sequences, passes serve never runs
  // (review); refused rather than capped, as a decode of 16 sequences 4 at a time is no step's
  // cost. (Within it, the prefill passes hold at most max_batch_seqs prompts as serve's do.)
  check_token_counts(prompt, output, batch);
  if (batch > s.serving.limits.max_batch_seqs)
    throw Error(SourceLocation{"", 0, 0, "--batch"},
                "is " + std::to_string(batch) + ", above the study's serving.max_batch_seqs " + std::to_string(s.serving.limits.max_batch_seqs) +
                    " (" + study_name + "): serve never runs more sequences than that in one pass",
                "a batch of at most " + std::to_string(s.serving.limits.max_batch_seqs) + ", or serving.max_batch_seqs raised to " +
                    std::to_string(batch) + " (--set serving.max_batch_seqs=" + std::to_string(batch) + "; at most serving.max_batch_tokens " +
                    std::to_string(s.serving.limits.max_batch_tokens) + ")");
  // Static batching admits at most the prompts one prefill pass of max_batch_tokens holds (a lone
  // longer prompt alone; static_batching.cpp) and decodes that batch to its end: a larger --batch
  // is never one static batch, refused as one beyond max_batch_seqs is. Before 2026-12-06 estimate
  // prefilled 8 prompts of 2,000 tokens in 2 passes of max_batch_tokens 8,192 and decoded all 8
  // together (TPOT 6.6 ms, 1,210 tokens/s), where serve runs them as two batches of 4 (makespan
  // 1.91 s, 536 tokens/s; review).
  if (s.serving.policy == "static") {
    const int64_t mbt = s.serving.limits.max_batch_tokens;
    const int64_t held = std::clamp<int64_t>(mbt / prompt, 1, s.serving.limits.max_batch_seqs);
    if (batch > held) {
      const int64_t batches = (batch + held - 1) / held;
      const int64_t need = std::max<int64_t>(mbt, batch * prompt);
      throw Error(SourceLocation{"", 0, 0, "--batch"},
                  "is " + std::to_string(batch) + ", above the " + std::to_string(held) + " prompt(s) of " + std::to_string(prompt) +
                      " tokens a static batch of " + study_name + " holds: static batching prefills a batch's prompts in one pass of " +
                      "serving.max_batch_tokens " + std::to_string(mbt) + " (a lone longer prompt alone), so serve runs " +
                      std::to_string(batch) + " such requests as " + std::to_string(batches) + " batches of at most " + std::to_string(held),
                  "a batch of at most " + std::to_string(held) + ", or serving.max_batch_tokens raised to " + std::to_string(need) +
                      " (--set serving.max_batch_tokens=" + std::to_string(need) +
                      "), or a policy that decodes the prompts of several passes together (--set serving.policy=continuous)");
    }
  }
  // The draft as serve builds it (resolve_serving), from the deployment as overridden here (--tp
  // and the like are applied after the file was read): before 2026-12-05 estimate left it out, and
  // called a 70B target with an 8B draft fitting one H100 that serve refused (review).
  std::optional<Deployment> draft;
  if (!s.draft_model.empty()) {
    StudySpec c = s;
    c.serving.deployment = make_deployment(cat, data, c.deployment);
    resolve_serving(c, cat, data);
    draft = c.serving.draft;
  }
  // serving.kv_capacity_tokens is serve's cache (checked as serve checks it): before 2026-12-06
  // estimate sized the cache from the memory whatever the study gave, and called a 3,500-token
  // request fitting (max_context_tokens_by_memory 169,526) that serve refused at 2,000 (review).
  // Errors of the study's serving keys name its file, as serve's do (run_serve).
  Result res;
  try {
    res = run_estimate(s.deployment, cat, data, prompt, output, batch, s.serving.limits.max_batch_tokens,
                       s.serving.usd_per_device_hour_stated ? s.serving.usd_per_device_hour : -1.0, draft ? &*draft : nullptr,
                       s.serving.speculative, s.serving.policy, s.serving.pipeline_batches, s.serving.kv_capacity_tokens,
                       s.serving.limits.max_batch_seqs, s.serving.disaggregation ? &*s.serving.disaggregation : nullptr);
  } catch (const Error& e) {
    if (!e.where().file.empty() || e.where().key.rfind("serving.", 0) != 0 || s.file.empty()) throw;
    SourceLocation w = e.where();
    w.file = s.file;
    throw Error(w, e.message(), e.hint());
  }
  if (own_prompt || own_output) {
    const std::string what = own_prompt && own_output ? "prompt " + std::to_string(prompt) + " and output " + std::to_string(output) + " tokens: the mean lengths"
                             : own_prompt            ? "prompt " + std::to_string(prompt) + " tokens: the mean length"
                                                     : "output " + std::to_string(output) + " tokens: the mean length";
    res.notes.push_back(what + " of " + study_name + "'s workload (--prompt and --output, Python prompt= and output=, override them)");
  }
  // A stated price names where it was given, as serve's price_source does.
  if (s.serving.usd_per_device_hour_stated && !s.serving.price_source.empty()) res.set("price_source", s.serving.price_source);
  return res;
}

// Token counts: at least 1, and far beyond any context or batch refused: their products (batch x
// prompt, prompt + output) are int64 and had wrapped to negative speeds and energies (2026-12-04
// review). Checked before a study's limits, whose advice would name an impossible batch.
// How many speculative decode steps a request expects to start at each decode offset (its KV
// holding prompt + offset tokens), over runs of consecutive offsets: `steps` is a run's expected
// steps, `toward_last` that sum weighted by (offset - first) / (last - first), so a run's expected
// time is steps x (first step's time) + toward_last x (last's - first's), exact where a step's cost
// is linear in its context. Serve's rule (Instance::complete): a step yields X tokens, 1 + the draft
// tokens accepted until the first rejection (P(X = x) = a^(x-1) (1 - a) for x <= k, a^k for
// x = k + 1: the bonus token counts), capped at what the request still needs, and the next step
// starts X tokens on. A step starts at offset c with probability p(c) = sum_x P(X = x) p(c - x),
// p(0) = 1, for c below the output - 1 tokens the steps decode (the cap touches the last step
// only). p tends to 1 / E[X]: past `kExactOffsets`, or once k + 1 consecutive offsets are within
// 1e-12 of it (every later p is their weighted mean), it is taken as 1 / E[X]. Before 2026-12-07
// estimate divided every step by E[X] = 2.77 (k = 4, a = 0.7), a request's last step yielding only
// the tokens it still needs left out: 2 output tokens read TPOT 8.37 ms where serve's lone request
// pays its one whole step, 23.2 ms (review).
struct SpeculativeRunWeights {
  double steps = 0;
  double toward_last = 0;
};
static std::vector<SpeculativeRunWeights> speculative_run_weights(const std::vector<std::pair<int64_t, int64_t>>& runs, int k,
                                                                  double acceptance) {
  const double a = std::clamp(acceptance, 0.0, 1.0);
  const double a_k = std::pow(a, k);
  const double mean_tokens = a >= 1 ? k + 1.0 : (1.0 - std::pow(a, k + 1)) / (1.0 - a);
  const double tail_p = 1.0 / mean_tokens;
  constexpr int64_t kExactOffsets = int64_t{1} << 20;
  // p of the last k + 2 offsets (p(c - k) and p(c - k - 1) are read), and
  // s = sum_{x=1..k} a^(x-1) p(c - x), carried from offset to offset.
  // (An offset of at most the runs' last reads no p(c - k) when k is beyond it.)
  const int64_t last_offset = runs.empty() ? 0 : std::min(runs.back().second, kExactOffsets);
  std::vector<double> ring(static_cast<size_t>(std::min<int64_t>(int64_t{k} + 2, last_offset + 2)), 0.0);
  const int64_t ring_n = static_cast<int64_t>(ring.size());
  auto past = [&](int64_t c) { return c < 0 ? 0.0 : ring[static_cast<size_t>(c % ring_n)]; };
  double s = 0;
  int64_t streak = 0, c = 0;
  bool converged = false;
  std::vector<SpeculativeRunWeights> out;
  for (const auto& [first, last] : runs) {
    SpeculativeRunWeights w;
    const double span = last > first ? static_cast<double>(last - first) : 1.0;
    for (; c <= last && !converged; ++c) {
      double p = 1.0;
      if (c > 0) {
        s = past(c - 1) + a * s - a_k * past(c - 1 - k);  // from s(c - 1) to s(c)
        p = (1.0 - a) * s + a_k * past(c - 1 - k);
      }
      ring[static_cast<size_t>(c % ring_n)] = p;
      w.steps += p;
      w.toward_last += p * static_cast<double>(c - first) / span;
      streak = std::fabs(p * mean_tokens - 1.0) < 1e-12 ? streak + 1 : 0;
      converged = streak > k || c + 1 >= kExactOffsets;
    }
    if (c <= last) {  // the rest of the run at 1 / E[X]: offsets c .. last
      const double n = static_cast<double>(last - c + 1);
      w.steps += n * tail_p;
      w.toward_last += tail_p * n * (0.5 * static_cast<double>(c + last) - static_cast<double>(first)) / span;
      c = last + 1;
    }
    out.push_back(w);
  }
  return out;
}

static void check_token_counts(int64_t prompt, int64_t output, int64_t batch) {
  for (const auto& [name, v] : {std::pair<const char*, int64_t>{"--prompt", prompt}, {"--output", output}, {"--batch", batch}})
    if (v < 1) throw Error(SourceLocation{"", 0, 0, name}, "must be >= 1, got " + std::to_string(v));
  constexpr int64_t kMaxTokens = int64_t{1} << 32, kMaxBatch = int64_t{1} << 24;
  for (const auto& [name, v, lim] : {std::tuple<const char*, int64_t, int64_t>{"--prompt", prompt, kMaxTokens},
                                     {"--output", output, kMaxTokens}, {"--batch", batch, kMaxBatch}})
    if (v > lim) throw Error(SourceLocation{"", 0, 0, name}, "must be at most " + std::to_string(lim) + ", got " + std::to_string(v));
}

Result run_estimate(const DeploymentSpec& ds, const Catalog& cat, const InferData& data, int64_t prompt, int64_t output,
                    int64_t batch, int64_t serving_pass_tokens, double usd_per_device_hour, const Deployment* draft,
                    const SpeculativeSpec& speculative, const std::string& serving_policy, int pipeline_batches,
                    double kv_capacity_tokens_given, int64_t serving_max_batch_seqs, const DisaggregationSpec* disaggregation) {
  if (pipeline_batches < 0)
    throw Error(SourceLocation{"", 0, 0, "serving.pipeline_batches"}, "must be >= 0, got " + std::to_string(pipeline_batches),
                "0 for serve's default (one batch in flight per pipeline stage)");
  check_token_counts(prompt, output, batch);
  const Deployment d = make_deployment(cat, data, ds);
  const CostModel cm(d);
  const DeviceProfile p = data.device(d.accel);
  Result r;
  r.command = "infer estimate";
  r.set("model", d.model.id);
  r.set("accelerator", d.accel.id);
  r.set("engine", d.engine.id);
  // A disaggregated deployment's devices are both pools', as serve counts them (review of
  // 2026-12-06: estimate had said one instance's).
  const int instances = disaggregation ? disaggregation->prefill_instances + disaggregation->decode_instances : 1;
  r.set("devices_count", static_cast<int64_t>(instances) * d.par.devices());
  if (disaggregation) {
    r.set("prefill_instances_count", static_cast<int64_t>(disaggregation->prefill_instances));
    r.set("decode_instances_count", static_cast<int64_t>(disaggregation->decode_instances));
    r.set("devices_per_instance_count", static_cast<int64_t>(d.par.devices()));
  }
  r.set("weight_format", d.weight.name);
  r.set("weight_bits_per_element", d.weight.bits_per_element);
  // The activations' format as costed (a given one the device, the engine or the weights cannot
  // run replaced by the 16-bit one, with a note), as plan's candidates name it; 2026-12-07 review:
  // estimate had no such scalar.
  r.set("activation_format", d.activation.name);
  r.set("kv_format", d.kv.name);
  r.set("kv_share_layers", static_cast<int64_t>(d.kv_share_layers));
  r.set("compute_dtype", to_string(cm.compute_type()));
  r.set("attention_dtype", to_string(cm.attention_type()));
  r.set("params_total_count", d.model.params_total());
  r.set("params_active_count", d.model.params_active());
  // Memory fit, by the same accounting as `infer serve` (kv_capacity_tokens): the engine's memory
  // share capped by the device's (vLLM's gpu_memory_utilization, the phone's OS reserve), less the
  // weights and the activation workspace of the largest pass, here the prefill of batch x prompt
  // tokens (serve: max_batch_tokens). Before 2026-12-01 estimate took the device's share only and
  // no workspace, so it could call a context fitting that serve then refused.
  const double mem = d.accel.memory_bytes.value;
  const double avail_frac = memory_share(d, p);
  // The workspace holds one pass: at most serve's default max_batch_tokens (8,192, vLLM's
  // max_num_batched_tokens), as an engine splits a larger prefill into passes (chunked prefill;
  // requests beyond a pass wait for the next). Before 2026-12-02 it was sized for all batch x
  // prompt tokens at once: 40 prompts of 8,192 tokens of Llama 3.1 8B on an H100 needed 21 GB of
  // workspace and "did not fit", where vLLM runs them.
  // With a study's serving limits (`infer estimate FILE`), the workspace is serve's: its whole
  // max_batch_tokens, as an engine profiles and reserves its token budget whatever the prompt (the
  // on-device example had fitted by estimate and been refused by serve, 2026-12-04 review).
  const double kPassTokens = serving_pass_tokens > 0 ? static_cast<double>(serving_pass_tokens) : 8192.0;
  const double pass_tokens = serving_pass_tokens > 0 ? kPassTokens
                                                     : std::min(static_cast<double>(prompt) * static_cast<double>(batch), kPassTokens);
  // serve's accounting itself (kv_memory_budget): the weights include a draft model's, and the
  // cache its bytes per token.
  const KvMemoryBudget budget = kv_memory_budget(d, draft, avail_frac, pass_tokens);
  const double usable = budget.usable_bytes;
  // What the weights hold, the target's and a draft's together (the memory the KV cache is left
  // after); weights_bytes_per_device is the target's alone, draft_weights_bytes_per_device beside it.
  const double w = budget.weight_bytes + budget.draft_weight_bytes;
  const double workspace = budget.workspace_bytes;
  std::optional<CostModel> dcm;
  if (draft) dcm.emplace(*draft);
  // The KV cache as serve lays it out (kv_cache_layout): whole blocks of the engine's
  // kv_block_tokens, with a sliding window one layer's blocks, a windowed layer holding the blocks
  // its window spans. A request fits when, alone, its last token (prompt + output - 1 tokens of KV:
  // the last token's is never written) and its largest pass fit the units: the prompt's pass and
  // the policy's largest (BatchingPolicy::largest_pass: a preempted request's recompute), with a
  // window the window plus every token the pass writes. The policy is the study's, else chunked
  // prefill (vLLM V1's default) in passes of pass_tokens. Before 2026-12-06 estimate counted bytes
  // continuously and a pass of at most max_batch_tokens whatever the policy: it called GPT-OSS-120B
  // requests of 101,042 tokens fitting that serve refused in blocks, and a 60,100-token request
  // under the continuous policy (a whole-prompt pass) fitting where serve refused every one
  // (review).
  BatchLimits pass_limits;
  pass_limits.max_batch_tokens = static_cast<int64_t>(kPassTokens);
  const std::unique_ptr<BatchingPolicy> policy =
      make_policy_registry().create(serving_policy.empty() ? "chunked-prefill" : serving_policy, SourceLocation{"", 0, 0, "serving.policy"});
  // Under pipeline parallelism each of serve's scheduler slots (pipeline batches in flight: the
  // study's serving.pipeline_batches, else pp) holds 1/slots of the cache, and a request must fit
  // one slot: the layout is serve's, slots and all. Before 2026-12-06 estimate laid it out as one
  // slot and called a 110,000-token request of Llama 3.1 8B fitting a pp 2 replica (the longest
  // context 193,665 tokens) that serve refused, each batch holding 96,832 (review).
  const int slots = pipeline_slots(d.par.pp, pipeline_batches);
  auto layout_with = [&](double free_bytes) {
    return kv_cache_layout(cm, dcm ? &*dcm : nullptr, std::max(0.0, free_bytes) / budget.kv_bytes_per_token, slots);
  };
  // A study's serving.kv_capacity_tokens is the cache, checked against what the memory holds as
  // serve checks it (given_kv_capacity_tokens; see run_study_estimate).
  const bool capacity_given = kv_capacity_tokens_given > 0;
  const double memory_capacity_tokens = std::max(0.0, budget.free_bytes()) / budget.kv_bytes_per_token;
  // With a study and no capacity given, the cache serve allocates (engine_kv_allocation): an engine
  // that allocates per sequence (llama.cpp) holds the context window for each of the study's
  // max_batch_seqs sequences per pipeline batch, not all the memory. Before 2026-12-06 serve sized
  // it from the memory alone and warned of the recommended working set where estimate did not
  // (review). Without a study the run's own batch is what the engine allocates (llama-bench's -c).
  const int64_t alloc_seqs = serving_max_batch_seqs > 0 ? serving_max_batch_seqs * static_cast<int64_t>(slots) : 0;
  const KvAllocation allocation = capacity_given ? KvAllocation{} : engine_kv_allocation(d, alloc_seqs, memory_capacity_tokens);
  // The cache is fixed (not what the memory holds) when given or allocated per sequence.
  const bool capacity_fixed = capacity_given || allocation.per_sequence;
  const double capacity_tokens = capacity_given ? given_kv_capacity_tokens(kv_capacity_tokens_given, memory_capacity_tokens, d)
                                                : allocation.tokens;
  const KvCacheLayout layout = capacity_fixed ? kv_cache_layout(cm, dcm ? &*dcm : nullptr, capacity_tokens, slots)
                                              : layout_with(budget.free_bytes());
  // Units `seqs` sequences of `context` tokens (prompt + output) hold, whose prompt is this run's
  // (or context - 1, when shorter): every one at its last token, or one in its largest pass and the
  // others at their last token. Serve's arrival check at seqs = 1.
  auto units_at = [&](const KvCacheLayout& L, int64_t context, double seqs) {
    const int64_t pr = std::clamp<int64_t>(prompt, 1, std::max<int64_t>(1, context - 1));
    const int64_t out = std::max<int64_t>(1, context - pr);
    const double last = static_cast<double>(L.last_token_units(pr, out));
    const double pass = static_cast<double>(L.pass_units(pr, policy->largest_pass(pr, out, pass_limits)));
    return std::max(seqs * last, (seqs - 1) * last + pass);
  };
  const double kv_units = units_at(layout, prompt + output, static_cast<double>(batch));
  const double kv = kv_units * layout.unit_bytes_per_device;
  r.set("memory_capacity_bytes_per_device", mem);  // the device's memory (the iterations table's column of that name is bytes moved)
  r.set("memory_available_fraction", avail_frac);
  r.set("memory_usable_bytes_per_device", usable);
  // Metal's recommended working set is advisory: beyond it llama.cpp warns and allocates (the
  // measured 8 GB M1 runs of Q8_0 are there). Reported, with a note when the run is beyond it.
  const double recommended = p.memory_recommended_fraction.known && p.memory_recommended_fraction.value < avail_frac
                                 ? mem * p.memory_recommended_fraction.value : 0.0;
  if (recommended > 0) r.set("memory_recommended_bytes_per_device", recommended);
  // The target's weights (sharded / tp + replicated, as docs/inference.md defines them), the draft's
  // beside them, as kv_bytes_per_token is the target's: until 2026-12-07 (review) it included the
  // draft's too, printed beside draft_weights_bytes_per_device (Llama 3.1 70B with its 8B draft read
  // 20.43 GB, the target's 18.16 GB and the draft's 2.27 GB).
  r.set("weights_bytes_per_device", budget.weight_bytes);
  if (draft) r.set("draft_weights_bytes_per_device", budget.draft_weight_bytes);
  r.set("kv_bytes_per_token", cm.kv_bytes_per_token());
  r.set("kv_bytes_per_token_per_layer", cm.kv_bytes_per_token_per_layer());
  r.set("kv_bytes_per_device", kv);
  // serve's figure of the same name, where the study gives the cache (serving.kv_capacity_tokens).
  if (capacity_fixed) r.set("kv_capacity_tokens_per_instance", static_cast<double>(layout.blocks * layout.block_tokens));
  r.set("activation_workspace_bytes_per_device", workspace);
  for (const auto& n : weight_format_notes(d)) r.notes.push_back(n);
  npu_peak_note(d, cm.compute_type(), r.notes);
  if (const std::string note = ignored_keys_note(d.model); !note.empty()) r.notes.push_back(note);
  if (const std::string note = catalog_memory_note(d, ds.memory_gib); !note.empty()) r.notes.push_back(note);
  engine_caveat_notes(d, r.notes);
  moe_validation_note(d, r.notes);
  // A context beyond the model's window (max_position_embeddings) does not fit whatever the memory.
  const bool fits_memory = layout.blocks > 0 && kv_units <= static_cast<double>(layout.pool_units);
  const bool fits_context = d.context_window_tokens <= 0 || prompt + output <= d.context_window_tokens;
  if (slots > 1)
    r.notes.push_back("pipeline parallelism: each of the " + std::to_string(slots) + " batches in flight (" +
                      (pipeline_batches > 0 ? std::string("the study's serving.pipeline_batches") : std::string("serve's default pipeline_batches, pp")) +
                      ") holds 1/" + std::to_string(slots) + " of the replica's KV cache (" +
                      std::to_string(layout.slot_blocks * layout.block_tokens) +
                      " tokens), as serve splits it: fits_memory and max_context_tokens are one batch's, the longest request serve admits");
  r.set("fits_memory", fits_memory);
  r.set("fits_context", fits_context);
  r.set("fits", fits_memory && fits_context);
  // The window fits_context checks (the model's max_position_embeddings, or the study's
  // max_model_len), for the report's headline: it had printed max_context_tokens, memory's limit
  // capped by the window, as the window ("at most 0 tokens" for a 131,072-token window; 2026-12-06
  // review).
  if (d.context_window_tokens > 0) r.set("context_window_tokens", static_cast<int64_t>(d.context_window_tokens));
  if (d.context_window_tokens <= 0)
    r.notes.push_back(d.model.id + " states no context window (max_position_embeddings): fits_context does not check the "
                      "prompt + output of " + std::to_string(prompt + output) + " tokens against one");
  // The longest context: the one memory holds for a single sequence beside this run's workspace,
  // capped by the model's own context window where it states one (max_position_embeddings); both
  // are reported. The largest context C such that a sequence of every length up to C fits
  // (units_at: fits_memory's own test), so that one token more does not; +inf when every layer is
  // windowed and no context is too long. Under a window the units are not monotone in C (the blocks
  // a window spans alternate between two counts: GPT-OSS-120B on 72 GiB with a 100,000-token prompt
  // fits 101,041 tokens, not 101,042 to 101,050, and 101,056 again), so the bisection's boundary is
  // checked downwards over the span in which the alternation can outweigh the growth of the full
  // layers' blocks.
  // room_bytes: the memory for the workspace and the cache (usable, or recommended, less the
  // weights); with_capacity: the cache is the study's serving.kv_capacity_tokens instead. A context
  // shorter than the prompt has a prompt of context - 1 tokens (units_at), and without a study the
  // workspace of that prompt's pass (batch x prompt, at most 8,192 tokens), as estimate of that
  // prompt reserves it: before 2026-12-06 it kept the asked prompt's workspace, and an A17 Pro
  // "held" 149 tokens of Llama-2-7B Q4_0 beside the 0.39 GB workspace of a 3,000-token prompt no
  // request of 149 tokens reserves (review). With a study the workspace is serve's whatever the
  // prompt.
  auto workspace_at = [&](int64_t context) {
    const int64_t pr = std::max<int64_t>(1, context - 1);
    if (serving_pass_tokens > 0 || pr >= prompt) return workspace;
    return workspace / pass_tokens * std::min(static_cast<double>(pr) * static_cast<double>(batch), kPassTokens);
  };
  auto longest_context = [&](double room_bytes, bool with_capacity) {
    auto fits_at = [&](int64_t c) {
      const KvCacheLayout L = with_capacity ? layout : layout_with(room_bytes - workspace_at(c));
      return L.blocks > 0 && units_at(L, c, 1.0) <= static_cast<double>(L.pool_units);
    };
    constexpr int64_t kUnbounded = int64_t{1} << 52;
    if (!fits_at(1)) return 0.0;
    if (fits_at(kUnbounded)) return static_cast<double>(INFINITY);
    int64_t lo = 1, hi = kUnbounded;  // fits_at(lo), !fits_at(hi)
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      (fits_at(mid) ? lo : hi) = mid;
    }
    const int64_t span = layout.block_tokens * std::min<int64_t>(int64_t{1} << 16, 2 + 2 * layout.units.window_units / std::max(1, layout.units.full_units));
    for (bool moved = true; moved;) {
      moved = false;
      for (int64_t c = std::max<int64_t>(1, lo - span); c <= lo; ++c)
        if (!fits_at(c)) {
          lo = c - 1;
          moved = true;
          break;
        }
    }
    return static_cast<double>(lo);
  };
  double memory_context = longest_context(usable - w, capacity_fixed);
  // The prompt itself does not fit (with one output token): no context with it fits, and the
  // longest request that does has a shorter prompt; said, as the figure is below the prompt.
  if (memory_context >= 1 && memory_context <= static_cast<double>(prompt))
    r.notes.push_back("the prompt of " + std::to_string(prompt) + " tokens does not fit, even with one output token: " +
                      "max_context_tokens_by_memory (" + format_double(memory_context) +
                      " tokens) is the longest request that fits, its prompt shorter" +
                      (serving_pass_tokens > 0 ? std::string(", beside the workspace of the study's serving.max_batch_tokens")
                                               : std::string(", each prompt beside its own pass's activation workspace (batch x prompt, at "
                                                             "most 8,192 tokens) where this run's is the asked prompt's")) +
                      (capacity_given            ? ", in the study's serving.kv_capacity_tokens"
                       : allocation.per_sequence ? ", in the cache engine " + d.engine.id + " allocates (kv_capacity_tokens_per_instance)"
                                                 : std::string()));
  if (std::isinf(memory_context)) {
    // Every layer windowed: memory bounds no context once the window fits.
    memory_context = d.context_window_tokens > 0 ? static_cast<double>(d.context_window_tokens) : std::nan("");
    r.notes.push_back("every layer of " + d.model.id + " holds a " + std::to_string(d.model.sliding_window) +
                      "-token window of KV: memory bounds no context length");
  }
  r.set("max_context_tokens_by_memory", memory_context);
  r.set("max_context_tokens",
        d.context_window_tokens > 0 ? std::min(memory_context, static_cast<double>(d.context_window_tokens)) : memory_context);
  // Within the recommended working set (where it is below the usable memory): the context that
  // leaves the OS its recommended share.
  if (recommended > 0 && !std::isnan(memory_context)) {
    double rec_context = longest_context(recommended - w, false);
    if (std::isinf(rec_context)) rec_context = memory_context;
    r.set("max_context_tokens_by_recommended_memory", std::min(rec_context, memory_context));
  }
  // Speeds.
  // Under pipeline parallelism the slots' batches are in flight (the study's
  // serving.pipeline_batches, else serve's default, pp): a batch holds the devices for the
  // pipeline's period, not the pass's latency. Cost and idle energy per token are charged per
  // period (before 2026-12-04 per latency: pp 4 read 4x the $/token of pp 1 where serve gives 1.8x).
  const int in_flight = slots;
  auto held_s = [&](const IterationCost& c) { return in_flight > 1 ? c.pipeline_period_s(in_flight) : c.total_s; };
  // With a draft, a decode step is serve's (Instance::start): k draft passes on the host's path,
  // then the target's pass verifying k + 1 tokens per sequence; draws until the first rejection
  // emit (1 - a^(k+1)) / (1 - a) tokens per sequence in expectation (per_step), a request's last
  // step only those it still needs (the steps' time: speculative_run_weights). Each prefill pass adds the
  // draft's own prefill pass of its chunks. A step's busy time (for energy) is each model's larger
  // of compute and memory, at most the step's time.
  const int k = draft ? speculative.draft_tokens : 0;
  const double acc = speculative.acceptance;
  const double per_step = !draft ? 1.0 : acc >= 1 ? k + 1.0 : (1.0 - std::pow(acc, k + 1)) / (1.0 - acc);
  struct Step {
    IterationCost cost;  // the target's pass with the draft's passes added to its time and host overhead
    double active_s = 0;
    double held_s = 0;   // the devices' time it holds: its period with passes in flight, else its time
  };
  auto add_draft = [&](Step& st, const IterationCost& one, double times) {
    st.cost.total_s += times * one.total_s;
    st.cost.overhead_s += times * one.total_s;
    st.cost.compute_s += times * one.compute_s;
    st.cost.memory_s += times * one.memory_s;
    st.cost.bottleneck_s = std::max(st.cost.stage_max_s, st.cost.overhead_s);
    st.active_s += times * std::max(one.compute_s, one.memory_s);
  };
  auto decode_step = [&](double context) {
    const IterationCost v = cm.iteration(cm.decode(batch, context, k + 1));
    Step st{v, std::max(v.compute_s, v.memory_s)};
    if (dcm) add_draft(st, dcm->iteration(dcm->decode(batch, context)), k);
    st.held_s = held_s(st.cost);
    return st;
  };
  // The prefill in serve's passes (for_each_prefill_pass): under chunked prefill ceil(batch x
  // prompt / max_batch_tokens) of them, each paying the engine's per-pass overhead, a read of the
  // weights and its TP exchanges, its chunks attending to the keys their sequences already cached
  // (CostModel::add_prefill_chunk, serve's own); under the other policies whole prompts, as many a
  // pass as max_batch_tokens holds. Before 2026-12-06 estimate priced one pass of every prompt
  // token, "the same work": at max_batch_tokens 512 serve's TTFT of one 2,000-token prompt of
  // Llama 3.1 70B was 18% above estimate's prefill_time_s (review). `pre` sums the target's passes
  // (the iterations table); pre_step adds the draft's.
  IterationCost pre;
  Step pre_step;
  double largest_pass_tokens = 0;
  auto add_cost = [](IterationCost& into, const IterationCost& c, double times) {
    into.total_s += times * c.total_s;
    into.compute_s += times * c.compute_s;
    into.memory_s += times * c.memory_s;
    into.comm_s += times * c.comm_s;
    into.overhead_s += times * c.overhead_s;
    into.stage_max_s += times * c.stage_max_s;
    into.bottleneck_s += times * c.bottleneck_s;
    into.flops += times * c.flops;
    into.memory_bytes += times * c.memory_bytes;
    into.comm_bytes += times * c.comm_bytes;
    into.flops_device_max += times * c.flops_device_max;
    into.memory_bytes_device_max += times * c.memory_bytes_device_max;
    into.expert_load_factor = std::max(into.expert_load_factor, c.expert_load_factor);
  };
  const bool chunked = serving_policy.empty() || serving_policy == "chunked-prefill";
  const int64_t prefill_passes =
      for_each_prefill_pass(cm, batch, prompt, static_cast<int64_t>(kPassTokens), chunked, [&](const Batch& b, double count) {
        const IterationCost one = cm.iteration(b);
        Step st{one, std::max(one.compute_s, one.memory_s)};
        if (dcm) add_draft(st, dcm->iteration(draft_prefill_batch(b)), 1);
        add_cost(pre, one, count);
        add_cost(pre_step.cost, st.cost, count);
        pre_step.active_s += count * std::min(st.active_s, st.cost.total_s);
        pre_step.held_s += count * held_s(st.cost);
        largest_pass_tokens = std::max(largest_pass_tokens, b.tokens());
      });
  r.set("prefill_passes_count", prefill_passes);
  if (prefill_passes > 1 || static_cast<double>(prompt) > kPassTokens) {
    const std::string whole_gb =
        format_double(std::round(activation_workspace_bytes(d, static_cast<double>(prompt)) / 1e8) / 10) + " GB";
    const std::string budget_text = format_double(kPassTokens) + " tokens (" +
                                    (serving_pass_tokens > 0 ? "the study's serving.max_batch_tokens" : "serve's default max_batch_tokens") + ")";
    const std::string head = "the prefill of " + std::to_string(batch * prompt) + " tokens runs in " + std::to_string(prefill_passes) +
                             (prefill_passes > 1 ? " passes" : " pass");
    if (chunked)
      r.notes.push_back(head + " of at most " + budget_text +
                        ", chunked prefill's (vLLM V1's default) as serve runs them: prefill_time_s is their sum, each pass paying the "
                        "engine's per-pass overhead, a read of the weights and its TP exchanges, and its chunk attending to the tokens "
                        "its sequence already cached; the activation workspace holds one pass" +
                        (static_cast<double>(prompt) > kPassTokens ? "; an engine without chunked prefill needs the whole prompt's workspace, " + whole_gb
                                                                   : std::string()));
    else
      r.notes.push_back(head + ": the " + serving_policy + " policy prefills whole prompts, as many a pass as " + budget_text +
                        " hold, at least one" +
                        (static_cast<double>(prompt) > kPassTokens
                             ? "; a " + std::to_string(prompt) + "-token prompt runs whole in one pass beyond them, needing " + whole_gb +
                                   " of workspace where one pass's is reserved (serving.policy chunked-prefill splits it)"
                             : std::string()));
  }
  // One output token is the prefill pass's: the request has no decode step, and TPOT
  // ((finish - first token) / (output - 1)) and every decode figure are no number (null in JSON).
  // Before 2026-12-06 --output 1 reported a decode step the request never runs: 90.6 tokens/s,
  // its energy and decode rows in `iterations` (review).
  const bool decodes = output > 1;
  // The decode steps run at contexts prompt .. prompt + output - 2 (the first output token is the
  // prefill's; a step at context c attends to c cached tokens and its own, and the last token's KV is
  // never written): output - 1 of them, as serve runs them (Instance::start, kv_tokens). TPOT is
  // their mean: the steps in at most 16 runs of consecutive contexts, each run's sum its count times
  // the mean of its first and last step (exact where a step's cost is linear in the whole tokens it
  // attends to, as it is between the cost's kinks; every step itself up to 17 output tokens). Before
  // 2026-12-07 it averaged output contexts, prompt .. prompt + output - 1, one step beyond the last
  // (review).
  const int64_t decode_steps = std::max<int64_t>(0, output - 1);
  const int64_t last_decode_context = prompt + decode_steps - 1;
  // With a draft the request's steps are fewer than its tokens: dec_sum is their expected time,
  // each run's steps weighted by how many the request expects to start there
  // (speculative_run_weights, serve's rule, its last step yielding only the tokens it still needs;
  // review of 2026-12-07).
  double dec_sum = 0, dec_held_sum = 0;
  const int64_t runs = std::min<int64_t>(decode_steps, 16);
  std::vector<std::pair<int64_t, int64_t>> run_offsets;
  for (int64_t j = 0; j < runs && decodes; ++j) run_offsets.emplace_back(j * decode_steps / runs, (j + 1) * decode_steps / runs - 1);
  const std::vector<SpeculativeRunWeights> spec_weights =
      draft && decodes ? speculative_run_weights(run_offsets, k, acc) : std::vector<SpeculativeRunWeights>{};
  for (size_t j = 0; j < run_offsets.size(); ++j) {
    const int64_t first = prompt + run_offsets[j].first, last = prompt + run_offsets[j].second;
    const Step a = decode_step(static_cast<double>(first));
    const Step b = last == first ? a : decode_step(static_cast<double>(last));
    if (draft) {
      const SpeculativeRunWeights& w = spec_weights[j];
      dec_sum += w.steps * a.cost.total_s + w.toward_last * (b.cost.total_s - a.cost.total_s);
      dec_held_sum += w.steps * a.held_s + w.toward_last * (b.held_s - a.held_s);
    } else {
      const double count = static_cast<double>(last - first + 1);
      dec_sum += count * 0.5 * (a.cost.total_s + b.cost.total_s);
      dec_held_sum += count * 0.5 * (a.held_s + b.held_s);
    }
  }
  const double steps = static_cast<double>(std::max<int64_t>(1, decode_steps));
  const double tpot = decodes ? dec_sum / steps : std::nan(""), tpot_held = decodes ? dec_held_sum / steps : std::nan("");
  // The decode steps' mean context, where one step stands for them all (energy, the pipeline's
  // figures): prompt + output / 2 before 2026-12-07, a step beyond the middle (review).
  const double mid_decode_context = decodes ? 0.5 * static_cast<double>(prompt + last_decode_context) : static_cast<double>(prompt);
  // Disaggregated: after the prefill each sequence's KV crosses the study's link to a decode
  // instance (serve's start_handoffs: the target's KV of the prompt and the draft's, one transfer
  // at a time on the prefill instance's link, then its latency); a request of one output token is
  // done at its prefill and sends nothing. Serve's TTFT is the prefill's end, and the transfer
  // lies between the first and the second token. Before 2026-12-06 estimate left it out and billed
  // one instance (review).
  double transfer_s = 0;
  if (disaggregation && decodes) {
    const double seq_bytes = cm.kv_bytes(static_cast<double>(prompt)) + (dcm ? dcm->kv_bytes(static_cast<double>(prompt)) : 0.0);
    transfer_s = static_cast<double>(batch) * seq_bytes / disaggregation->kv_link.bandwidth_bytes_per_s + disaggregation->kv_link.latency_s;
  }
  r.set("prefill_time_s", pre_step.cost.total_s);
  r.set("prefill_tokens_per_s", static_cast<double>(prompt * batch) / pre_step.cost.total_s);
  r.set("time_per_output_token_s", tpot);
  r.set("decode_tokens_per_s", batch / tpot);  // all sequences of the batch together
  r.set("decode_tokens_per_s_per_sequence", 1.0 / tpot);
  if (disaggregation) r.set("kv_transfer_s", transfer_s);
  r.set("request_latency_s", pre_step.cost.total_s + transfer_s + (decodes ? (output - 1) * tpot : 0.0));
  if (disaggregation)
    r.notes.push_back(
        "disaggregated (serving.disaggregation, " + std::to_string(disaggregation->prefill_instances) + " prefill and " +
        std::to_string(disaggregation->decode_instances) + " decode instance(s) of " + std::to_string(d.par.devices()) +
        " device(s)): the prefill runs on a prefill instance and the decode steps on a decode instance, as serve runs them; " +
        (decodes ? "kv_transfer_s is the batch's KV of the prompt sent over the " + format_double(disaggregation->kv_link.bandwidth_bytes_per_s / 1e9) +
                       " GB/s link one sequence after another after the prefill, plus its " +
                       format_double(disaggregation->kv_link.latency_s * 1e6) +
                       " us latency, in request_latency_s (serve's TTFT is the prefill's end: the transfer lies between the first and "
                       "the second token, in serve's TPOT of the request; serve starts a sequence's transfer as its own prefill ends, "
                       "which overlaps the later prefill passes of a batch); "
                 : std::string("one output token: the request ends with its prefill and sends no KV; ")) +
        "cost and idle energy bill every instance of both pools for the request's time, as serve bills a request served alone "
        "(under load each pool serves other requests meanwhile: infer serve of the study prices that)");
  if (!decodes)
    r.notes.push_back("--output 1: the one output token comes from the prefill pass, so the request has no decode step: "
                      "time_per_output_token_s, the decode speeds and floor, energy_per_decode_token_j and usd_per_million_decode_tokens "
                      "are not numbers (null in JSON), and the iterations table has the prefill pass only");
  if (draft) {
    r.set("draft_model", draft->model.id);
    r.set("draft_tokens", static_cast<int64_t>(k));
    r.set("acceptance_fraction", acc);
    r.set("speculative_tokens_per_step", per_step);
    r.notes.push_back("speculative decoding (serving.speculative): " + draft->model.id + " drafts " + std::to_string(k) +
                      " tokens per step, each accepted with probability " + format_double(acc) + " until the first rejection, " +
                      format_double(std::round(per_step * 1000) / 1000) + " tokens per sequence per step in expectation; a step is " +
                      std::to_string(k) + " draft passes and one pass of " + d.model.id + " verifying " + std::to_string(k + 1) +
                      " tokens per sequence; time_per_output_token_s is the request's expected steps' time over its output - 1 "
                      "tokens, a request's last step yielding only the tokens it still needs (as serve runs it). The "
                      "prefill includes the draft's own pass, the memory fit its weights and its cache. decode_bandwidth_floor_s "
                      "and the iterations table are the target's passes alone");
  }
  // The time to stream, at the peak bandwidth, the bytes a decode step of this batch must read at
  // the shortest context it decodes at, the prompt: the weights it touches (a MoE step reads only
  // the experts its tokens route to) and every sequence's KV cache of the prompt. No decode step of
  // this request can be faster (before 2026-12-01: a one-token cache, a floor that ignored the KV).
  const double weight_floor =
      cm.iteration(cm.decode(batch, std::max<double>(1, static_cast<double>(prompt)))).memory_bytes / d.accel.memory_bandwidth_bytes_per_s.value;
  r.set("decode_bandwidth_floor_s", decodes ? weight_floor : std::nan(""));
  if (d.par.pp > 1) {
    // The slots' batches of `batch` sequences in flight (pp of them by default: the pipeline full).
    const Step mid = decode_step(mid_decode_context);
    r.set("pipeline_stages_count", static_cast<int64_t>(d.par.pp));
    r.set("pipeline_batches_count", static_cast<int64_t>(slots));
    r.set("decode_stage_max_s", decodes ? mid.cost.stage_max_s : std::nan(""));
    r.set("pipeline_decode_tokens_per_s", decodes ? batch * per_step / mid.cost.pipeline_period_s(slots) : std::nan(""));
    r.notes.push_back("pp " + std::to_string(d.par.pp) + ": energy and cost per token assume " + std::to_string(slots) +
                      " batch(es) in flight (" +
                      (pipeline_batches > 0 ? std::string("the study's serving.pipeline_batches")
                                            : std::string("the pipeline full, serve's default pipeline_batches")) +
                      "), each holding the devices for the pipeline period, not the pass's latency");
  }
  if (!cm.expert_load_source().empty()) {
    r.set("expert_load_factor_decode", cm.expert_load_factor(static_cast<double>(batch)));
    r.set("expert_load_factor_prefill", cm.expert_load_factor(largest_pass_tokens));  // the largest prefill pass's
    r.set("expert_load_source", cm.expert_load_source());
  }
  // Energy and cost.
  const double busy = device_power_busy(d.accel), idle = device_power_idle(d.accel, p);
  if (busy > 0) {
    auto energy = [&](const Step& c) {
      const double util = std::min(1.0, c.active_s / c.cost.total_s);
      // Every device idles through the pass; the dynamic part is the work, done once by the tp
      // devices of each stage in turn (as serve charges it): not pp times over (before
      // 2026-12-03 pp 4 printed 4x the dynamic energy).
      return instances * d.par.devices() * idle * c.held_s + d.par.tp * (busy - idle) * util * c.cost.total_s;
    };
    const Step mid = decode_step(mid_decode_context);
    // One decode step's energy (at the decode steps' mean context) over the tokens it emits: the
    // decode's alone, as usd_per_million_decode_tokens. Named so since 2026-12-07 (review): as
    // energy_per_output_token_j it read as serve's figure of that name, all the run's energy
    // (prefill and idle included) over its output tokens, 1.023 against 1.803 J on one study.
    r.set("energy_per_decode_token_j", decodes ? energy(mid) / (batch * per_step) : std::nan(""));
    r.set("energy_per_prompt_token_j", energy(pre_step) / static_cast<double>(prompt * batch));
  } else {
    // Said, not left out silently (TPU v5p's energy scalars had just been missing; 2026-12-04 review).
    r.notes.push_back("no energy per token: " + d.accel.id + " has no board power (TDP) in the catalog");
  }
  // A study's stated price (cost.usd_per_device_hour) is the one serve charges: estimate of the
  // file charges it too (it read the device's only; review of 2026-12-05).
  // Otherwise the named system's node price per device, rented in whole nodes as serve and sweep
  // rent them, or devices.yaml's per device (DevicePrice; before 2026-12-06 devices.yaml's alone,
  // review).
  // A stated price of 0 is refused where a study states it (load_study); a caller's is too, not
  // said as "given: 0" and then read as no price (review of 2026-12-06).
  if (usd_per_device_hour == 0)
    throw Error(SourceLocation{"", 0, 0, "cost.usd_per_device_hour"}, "must be a price in USD per device-hour > 0, got 0",
                "leave it out (< 0) for the system's node price or devices.yaml's usd_per_hour");
  const bool stated = usd_per_device_hour > 0;
  const double usd = stated ? usd_per_device_hour : value_or(d.price.usd_per_device_hour, 0.0);
  const int node_devices = stated ? 0 : d.price.node_devices;
  r.set("price_source", stated ? "given: " + format_double(usd) + " USD per device-hour, per device (the study's cost.usd_per_device_hour)"
                               : d.price.source);
  if (!(usd > 0))
    r.notes.push_back("no cost per token: " + d.accel.id + " has no device-hour price (data/infer/devices.yaml usd_per_hour, or the "
                      "node price of a system named with --system or deployment.system); give one in a study's cost.usd_per_device_hour "
                      "(`infer estimate STUDY` or `infer serve STUDY --set cost.usd_per_device_hour=2`)");
  if (usd > 0) {
    const int64_t billed = billed_devices(instances, d.par.devices(), node_devices, d.par.pp);
    r.set("usd_per_device_hour", usd);
    r.set("billed_devices_count", billed);
    r.set("usd_per_hour", static_cast<double>(billed) * usd);
    // The request's device time: its prefill and its decode steps (as serve charges them; the
    // decode steps alone had made a 4,096-token prompt's tokens 2.2x cheaper than serve's).
    const double per_s = static_cast<double>(billed) * usd / 3600.0;
    const double per_mtok =
        per_s * (pre_step.held_s + transfer_s + (decodes ? (output - 1) * tpot_held : 0.0)) / static_cast<double>(batch * output) * 1e6;
    r.set("usd_per_million_output_tokens", per_mtok);
    r.set("usd_per_million_decode_tokens", per_s * tpot_held / batch * 1e6);  // (no number without a decode step)
    if (billed > static_cast<int64_t>(instances) * d.par.devices() && disaggregation) {
      r.notes.push_back("the deployment's " + std::to_string(instances * d.par.devices()) + " device(s) (" + std::to_string(instances) +
                        " instance(s) of both pools) are billed as " + std::to_string(billed / node_devices) + " whole node(s) of " +
                        std::to_string(node_devices) + " (nodes are rented whole, as serve rents them): the costs per token are those of " +
                        std::to_string(billed) + " devices");
    } else if (billed > d.par.devices() && !disaggregation) {
      // Replicas that fit the nodes paid for share them (4 of TP2 on an 8-device node; one TP6
      // alone, none straddling two nodes: billed_nodes, as serve places them).
      const int64_t sharing = 1 + spare_instances(1, d.par.devices(), node_devices, d.par.pp);
      r.notes.push_back("the replica's " + std::to_string(d.par.devices()) + " device(s) are billed as " + std::to_string(billed / node_devices) +
                        " whole node(s) of " + std::to_string(node_devices) + " (nodes are rented whole, as serve and sweep rent them): "
                        "the costs per token are those of " + std::to_string(billed) + " devices" +
                        (sharing >= 2 ? "; " + std::to_string(sharing) + " such replicas share them at " +
                                            format_double(std::round(per_mtok / static_cast<double>(sharing) * 1e4) / 1e4) +
                                            " USD per million output tokens each (infer serve with serving.replicas " + std::to_string(sharing) + ")"
                                      : std::string()));
    }
  }
  // flops_per_device and memory_bytes_per_device: one device's, the pipeline stage with the most
  // (before 2026-12-02 the sum over the stages, pp times one device's at pp > 1).
  Table& t = r.add_table("iterations", "cost breakdown of the prefill (its passes summed: prefill_passes_count) and of the first, "
                                       "middle and last decode steps, at contexts prompt .. prompt + output - 2 (times: the pass through every stage; per device: the busiest stage's device)");
  t.add_str("phase"); t.add_i64("context_tokens"); t.add_f64("total_s"); t.add_f64("compute_s"); t.add_f64("memory_s");
  t.add_f64("comm_s"); t.add_f64("overhead_s"); t.add_f64("stage_max_s"); t.add_f64("flops_per_device"); t.add_f64("memory_bytes_per_device");
  auto row = [&](const std::string& ph, int64_t ctx, const IterationCost& c) {
    t.add_row({ph, ctx, c.total_s, c.compute_s, c.memory_s, c.comm_s, c.overhead_s, c.stage_max_s, c.flops_device_max, c.memory_bytes_device_max});
  };
  row("prefill", prompt, pre);
  // The first, middle and last of the decode steps that run (contexts prompt .. prompt + output -
  // 2), each once: one row at --output 2, none at 1. Before 2026-12-07 the rows were at prompt +
  // f (output - 1), f = 0, 0.5, 1: three rows where one step runs, the last a step beyond the
  // request's (review).
  int64_t shown = -1;
  for (const int64_t ctx : {prompt, prompt + (decode_steps - 1) / 2, last_decode_context}) {
    if (!decodes || ctx <= shown) continue;
    shown = ctx;
    row("decode", ctx, cm.iteration(cm.decode(batch, static_cast<double>(ctx))));
  }
  Table& pv = r.add_table("provenance", "engine and device constants used");
  pv.add_str("constant"); pv.add_f64("value"); pv.add_str("provenance");
  auto prov = [&](const std::string& name, const Sourced& s, double scale) {
    pv.add_row({name, s.known ? s.value * scale : std::nan(""),
                s.known ? (s.estimated.empty() ? s.source : "estimated: " + s.estimated) : std::string("unknown (default)")});
  };
  prov("engine.bandwidth_fraction", d.engine.bandwidth_fraction, 1);
  prov("engine.gemm_fraction", d.engine.gemm_fraction, 1);
  prov("engine.dequant_fraction", d.engine.dequant_fraction, 1);
  prov("engine.overlap_fraction", d.engine.overlap_fraction, 1);
  prov("engine.iteration_overhead_us", d.engine.iteration_overhead_s, 1e6);
  prov("engine.sequence_overhead_us", d.engine.sequence_overhead_s, 1e6);
  if (d.engine.overhead_reference_layers.known) {
    prov("engine.overhead_reference_layers", d.engine.overhead_reference_layers, 1);
    pv.add_row({std::string("iteration_overhead_us"),
                value_or(d.engine.iteration_overhead_s, 0.0) * 1e6 * d.model.layers / d.engine.overhead_reference_layers.value,
                "engine.iteration_overhead_us x " + d.model.id + "'s " + std::to_string(d.model.layers) +
                    " layers / engine.overhead_reference_layers (the engine's fixed cost is per layer)"});
  }
  prov("engine.memory_utilization_fraction", d.engine.memory_utilization_fraction, 1);
  prov("device.memory_available_fraction", p.memory_available_fraction, 1);
  if (recommended > 0) prov("device.memory_recommended_fraction", p.memory_recommended_fraction, 1);
  pv.add_row({std::string("memory_available_fraction"), avail_frac,
              std::string("the smaller of engine.memory_utilization_fraction (0.9 when unknown) and "
                          "device.memory_available_fraction (1 when unknown)")});
  prov("device.tdp_w", d.accel.tdp_w, 1);
  // A stated price is the one charged, per device, even where it equals the catalog's.
  if (stated)
    prov("device.usd_per_hour", Sourced{usd_per_device_hour, "given (the study's cost.usd_per_device_hour)", "", true}, 1);
  else
    prov("device.usd_per_hour", d.price.usd_per_device_hour, 1);
  auto gb = [](double b) { return format_double(std::round(b / 1e7) / 100); };
  // The weights in a note's memory sum: the draft's named beside the target's (the sum is the
  // memory identity usable = weights + draft weights + KV + workspace; 2026-12-07 review).
  const std::string weights_text =
      "weights " + gb(budget.weight_bytes) + " GB" + (draft ? " + draft weights " + gb(budget.draft_weight_bytes) + " GB" : std::string());
  // The KV the engine holds against the recommended working set: a per-sequence allocation is
  // allocated whole (serve's kv_capacity_tokens_per_instance, as serve checks it), else this run's.
  const double kv_held = allocation.per_sequence ? static_cast<double>(layout.blocks * layout.block_tokens) * budget.kv_bytes_per_token : kv;
  if (fits_memory && recommended > 0 && w + kv_held + workspace > recommended)
    r.notes.push_back("beyond the recommended working set: " + weights_text + " + KV " + gb(kv_held) + " GB" +
                      (allocation.per_sequence ? " (the " + format_double(static_cast<double>(layout.blocks * layout.block_tokens)) +
                                                     " tokens engine " + d.engine.id + " allocates)"
                                               : std::string()) +
                      " + activation workspace " +
                      gb(workspace) + " GB > " + gb(recommended) + " GB (" + format_double(p.memory_recommended_fraction.value) +
                      " of memory: Metal's recommendedMaxWorkingSetSize, data/infer/devices.yaml): the engine warns and allocates (8 GB M1 Macs run Llama-2-7B Q8_0 so, at 83% of their memory bandwidth); " +
                      gb(mem - (w + kv_held + workspace)) + " GB of the " + gb(mem) +
                      " GB are left to the OS and other applications, which page if they need more");
  // Under pipeline batches the limit can be one batch's share of the cache, not the device's
  // memory: the sum is then below the usable memory, and is not said to exceed it.
  const double slot_kv = static_cast<double>(layout.pool_units) * layout.unit_bytes_per_device;
  // A study's serving.kv_capacity_tokens is serve's cache, whatever more the memory holds.
  const std::string capacity_text =
      capacity_given ? "the study's serving.kv_capacity_tokens, " + format_double(static_cast<double>(layout.blocks * layout.block_tokens)) +
                           " tokens per instance" +
                           (layout.block_tokens > 1 ? " (whole blocks of " + std::to_string(layout.block_tokens) + " tokens)" : std::string()) +
                           " as serve's kv_capacity_tokens_per_instance, where the memory holds " + format_double(std::floor(memory_capacity_tokens))
                     : std::string();
  // An engine's per-sequence allocation is said as serve says it (kv_allocation_note), and is the
  // cache that fits or not (2026-12-06 review).
  if (allocation.per_sequence) r.notes.push_back(kv_allocation_note(d, allocation, alloc_seqs, memory_capacity_tokens));
  const std::string allocation_text =
      allocation.per_sequence ? "the cache engine " + d.engine.id + " allocates for the study's " + std::to_string(alloc_seqs) + " sequences, " +
                                    format_double(static_cast<double>(layout.blocks * layout.block_tokens)) + " tokens per instance"
                              : std::string();
  if (fits_memory && capacity_given)
    r.notes.push_back("KV cache: " + capacity_text + ": fits_memory and max_context_tokens are that cache's" +
                      (slots > 1 ? ", each of the " + std::to_string(slots) + " pipeline batches holding 1/" + std::to_string(slots) : std::string()));
  else if (!fits_memory && (capacity_given || (allocation.per_sequence && !allocation.capped_by_memory)))
    r.notes.push_back("does not fit: KV " + gb(kv) + " GB > " + gb(slot_kv) + " GB per device, " +
                      (slots > 1 ? "one of the " + std::to_string(slots) + " pipeline batches' share of " : std::string()) +
                      (capacity_given ? capacity_text : allocation_text));
  else if (!fits_memory && slots > 1 && w + workspace + kv <= usable)
    r.notes.push_back("does not fit: KV " + gb(kv) + " GB > " + gb(slot_kv) + " GB per device, the share of one of the " +
                      std::to_string(slots) + " pipeline batches (1/" + std::to_string(slots) + " of the " +
                      gb(usable - w - workspace) + " GB that " + weights_text + " and activation workspace " + gb(workspace) +
                      " GB leave of usable " + gb(usable) + " GB); serving.pipeline_batches: 1 gives one batch the whole cache");
  else if (!fits_memory)
    r.notes.push_back("does not fit: " + weights_text + " + KV " + gb(kv) + " GB + activation workspace " + gb(workspace) +
                      " GB > usable " + gb(usable) + " GB per device");
  if (!fits_context)
    r.notes.push_back("does not fit: prompt + output = " + std::to_string(prompt + output) + " tokens is beyond " +
                      context_window_text(d) + " (the costs are extrapolated)");
  return r;
}

namespace {
// The requests a plan candidate's no-load run serves: the first of the plan's (a sample of a long
// run), each arriving after the one before has finished.
constexpr size_t kNoLoadSampleRequests = 1000;

// A candidate at no load: one replica serving each request alone (the first kNoLoadSampleRequests
// of them, spaced apart so that none waits or shares a pass), the best latency any replica count
// gives them. Its SLO attainment is the most more replicas can reach: where it is under the plan's
// slo_attainment_fraction, no max_devices meets the SLO (2026-12-07 review: "no candidate meets the
// SLO within max_devices" had been said of a TTFT bound that prefill alone exceeds).
size_t no_load_sample_size(const std::vector<Request>& reqs) { return std::min(reqs.size(), kNoLoadSampleRequests); }

ServingSummary no_load_summary(ServingSpec sv, const std::vector<Request>& reqs) {
  std::vector<Request> alone(reqs.begin(), reqs.begin() + static_cast<std::ptrdiff_t>(no_load_sample_size(reqs)));
  sv.replicas = 1;
  sv.request_table = true;
  sv.timeline_points = 1;
  ServingSummary sum;
  // The spacing grows until no request outlasts it; the run's span stays far within the clock's
  // kMaxArrivalSpanS (1,000 requests 1e5 s apart at most).
  double gap_s = 1000;
  for (int attempt = 0; attempt < 4; ++attempt) {
    for (size_t i = 0; i < alone.size(); ++i) alone[i].arrival_s = static_cast<double>(i) * gap_s;
    const Result res = simulate_serving(sv, alone, &sum);
    double longest_s = 0;
    if (const Table* t = res.table("requests"))
      for (double e : t->column("e2e_s").f64)
        if (std::isfinite(e)) longest_s = std::max(longest_s, e);
    if (longest_s < gap_s || gap_s >= 1e5) break;
    gap_s = std::min(1e5, 2 * longest_s);
  }
  return sum;
}
}  // namespace

Result run_plan(StudySpec s, const Catalog& given_cat, const InferData& data) {
  // The study's own hardware where it gives some (review of 2026-12-06).
  const Catalog& cat = s.deployment.hardware ? *s.deployment.hardware : given_cat;
  auto& P = s.plan;
  std::vector<std::string> accels = P.accelerators.empty() ? std::vector<std::string>{s.deployment.accelerator} : P.accelerators;
  // Each part by its id (an accelerator file's entry's), as the notes, the errors and serve name it:
  // the candidates table had said xpu.yaml where its notes said xpu-1 (review of 2026-12-06).
  std::vector<Accelerator> parts;
  for (const auto& acc : accels) parts.push_back(load_accelerator_ref(cat, acc, SourceLocation{s.file, 0, 0, "plan.accelerators"}));
  std::vector<std::string> policies = P.policies.empty() ? std::vector<std::string>{s.serving.policy} : P.policies;
  if (!(s.workload.rate_per_s > 0) && s.workload.arrival != "trace")
    throw Error(SourceLocation{s.file, 0, 0, "workload.rate_per_s"}, "plan needs a request rate (rate_per_s)");
  WorkloadSpec w = s.workload;
  if (w.arrival != "trace") w.requests = P.requests;
  if (w.arrival != "trace")
    if (const ArrivalSpanProblem sp = arrival_span_problem(w.rate_per_s, w.requests); !sp.empty())
      throw Error(SourceLocation{s.file, 0, 0, "plan.requests"}, "plan.requests " + std::to_string(w.requests) + " at workload.rate_per_s: " + sp.message,
                  sp.hint);
  const auto reqs = generate_requests(w);
  // The offered rate: a trace's mean arrival rate, as serve reports it. A trace has no
  // workload.rate_per_s, and its 0 had started every candidate at one replica, so that a 36 s
  // trace at 5.45 requests/s was planned on 2 replicas of 4.63 requests/s together (2026-12-07
  // review); NaN (fewer than two arrivals, or one instant) starts at one replica.
  const double offered_per_s = w.arrival == "trace" ? trace_rate_per_s(reqs) : w.rate_per_s;
  // The mean request (prompt + output tokens) the does-not-fit screen holds against a candidate's
  // KV cache: a trace's own lengths; the workload's prompt and output keys, which a trace does not
  // use, had been compared (their defaults, 1,280 tokens), so a candidate holding 14,272 tokens
  // passed the screen for a trace of 20,064-token requests and its saturation run's error ended the
  // whole plan (2026-12-07 review).
  double mean_request_tokens = w.prompt.mean + w.output.mean;
  if (w.arrival == "trace" && !reqs.empty()) {
    double total = 0;
    for (const auto& q : reqs) total += static_cast<double>(q.prompt_tokens) + static_cast<double>(q.output_tokens);
    mean_request_tokens = total / static_cast<double>(reqs.size());
  }
  Result r;
  r.command = "infer plan";
  // No slo: section: no SLO to meet, so the cheapest candidate that carries the rate wins, and
  // the attainment columns are no number (2026-12-06 review: they read 1.0 beside bounds of 0 s).
  // A candidate then meets it where the share of the requests it serves (refused ones miss any
  // SLO) reaches plan.slo_attainment_fraction.
  const bool has_slo = s.serving.slo.ttft_s > 0 || s.serving.slo.tpot_s > 0;
  // `requests`: those the run simulated (a no-load run's sample, kNoLoadSampleRequests at most: its
  // completions over all of plan.requests had read 0.3504 for 876 of 1,000 served; 2026-12-07
  // review). The SLO's attainment is the run's own, over its own requests.
  auto meets = [&](const ServingSummary& sum, size_t requests) {
    return has_slo ? sum.slo_attainment_fraction : requests == 0 ? 0.0 : static_cast<double>(sum.completed) / static_cast<double>(requests);
  };
  // Which bound an unmet SLO fails: each bound's share of the requests (refused ones miss) against
  // the required share, i.e. whether its quantile at that share is above the bound; both may hold
  // alone and fail together (on different requests).
  const double required = P.slo_attainment_fraction;
  auto unmet_bounds_key = [&](const ServingSummary& x) -> std::string {
    if (!has_slo) return "refused requests";
    const bool ttft = x.slo_ttft_met_fraction < required, tpot = x.slo_tpot_met_fraction < required;  // NaN (no bound): false
    return ttft && tpot ? "ttft and tpot" : ttft ? "ttft" : tpot ? "tpot" : "ttft and tpot together";
  };
  auto unmet_bounds_text = [&](const ServingSummary& x) -> std::string {
    if (!has_slo) return sig4(meets(x, reqs.size())) + " of the requests served, the others refused at arrival";
    std::string out;
    auto one = [&](const char* name, double bound_s, double share) {
      if (!(bound_s > 0)) return;
      if (!out.empty()) out += ", ";
      out += std::string(name) + " within " + sig4(bound_s) + " s for " + sig4(share) + " of the requests";
      if (share < required) out += " (its p" + format_double(100 * required) + " is above " + sig4(bound_s) + " s)";
    };
    one("TTFT", s.serving.slo.ttft_s, x.slo_ttft_met_fraction);
    one("TPOT", s.serving.slo.tpot_s, x.slo_tpot_met_fraction);
    return out;
  };
  if (!has_slo)
    r.notes.push_back("no SLO (the study has no slo: ttft_s or tpot_s): a candidate meets it where it serves plan.slo_attainment_fraction "
                      "of the requests (refused ones miss), and slo_attainment_fraction is no number; add slo: to plan for latency");
  // A devices.yaml entry that never applies, for an accelerator searched (serve and estimate say it
  // through the deployment's notes; plan had said nothing, 2026-12-05 review).
  for (const auto& part : parts)
    for (const auto& n : data.match_notes(part, cat.accelerator_ids())) r.notes.push_back(n);
  // The search is over colocated replicas: a disaggregated study was costed as one of them with
  // no word (2026-12-04 review).
  if (s.serving.disaggregation)
    r.notes.push_back("serving.disaggregation is not planned: every candidate is colocated replicas (prefill and decode on the "
                      "same devices); compare the disaggregated deployment with `sextant infer serve` of this file");
  Table& t = r.add_table("candidates", "every deployment tried: replicas needed to meet the SLO at the request rate");
  // The number formats each candidate was costed in, after pp (2026-12-07 review: since fp8
  // weights run W8A8 on an H100 and W8A16 on an A100, rows of one plan differ in them, which the
  // notes alone had said): the deployment's weight, activation and KV formats (make_deployment) and
  // the GEMMs' dtype (compute_dtype, as CostModel takes it), named as estimate's scalars; empty
  // where the candidate's deployment could not be made.
  t.add_str("accelerator"); t.add_i64("tp"); t.add_i64("ep"); t.add_i64("pp");
  t.add_str("weight_format"); t.add_str("activation_format"); t.add_str("kv_format"); t.add_str("compute_dtype");
  t.add_str("policy"); t.add_i64("max_batch_seqs"); t.add_i64("replicas");
  t.add_i64("devices_count"); t.add_f64("slo_attainment_fraction"); t.add_f64("ttft_p99_s"); t.add_f64("tpot_p99_s");
  t.add_f64("usd_per_hour"); t.add_f64("usd_per_million_output_tokens"); t.add_str("status");
  // The row's positions read back for best_* and closest_* (the format columns shifted them).
  enum : size_t { kAcc = 0, kTp = 1, kPp = 3, kPolicy = 8, kMbs = 9, kReplicas = 10, kDevices = 11, kAttain = 12, kUsdH = 15 };
  // Ranked by (unpriced, $/h or devices): a priced candidate before any unpriced one, the cheapest
  // per hour first; unpriced ones by device count (a 4-device B200 without a price had ranked
  // against an H100's $10/h as "4" and won, with best_usd_per_hour 0).
  struct Best {
    int unpriced = 2;
    double key = std::numeric_limits<double>::infinity();
    int devices = 0;
    double attainment = 0, usd_per_mtok = std::numeric_limits<double>::infinity();
    std::vector<Value> row;
  } best;
  bool simulated_any = false;  // some candidate was simulated (the note on none found says which failure it was)
  // The candidate nearest to meeting the SLO where none meets it: the highest attainment (then the
  // cheapest), with why it falls short; said in the scalars and a note (2026-12-07 review).
  struct Closest {
    double attainment = -1, no_load_attainment = std::nan("");
    int unpriced = 2;
    double key = std::numeric_limits<double>::infinity();
    std::vector<Value> row;
    std::string limit, why;
  } closest;
  int64_t devices_limited = 0;  // failing candidates that would meet the SLO at no load: max_devices stops them
  bool ep_differs = false;     // some candidate runs another expert-parallel degree than the study's
  // Where each accelerator's price came from (its system's node price, devices.yaml or the study),
  // said once per accelerator: usd_per_hour had no source.
  std::vector<std::pair<std::string, std::string>> price_sources;
  // The candidates' format notes (weight_format_notes), each once: which activation format each
  // accelerator's candidates were costed in, as serve says it. The plan had said none, and mixed
  // fp8 weights costed W8A8 on an H100 with W8A16 on an A100 without a word (review of 2026-12-07).
  std::vector<std::string> format_notes;
  for (size_t ai = 0; ai < accels.size(); ++ai)
    for (int tp : P.tp)
      for (const auto& pol : policies)
        for (int mbs : P.max_batch_seqs) {
          StudySpec c = s;
          // deployment.memory_gib describes the deployment's own accelerator, not the others
          // the plan tries (an H200 planned as 80 GB before the session-21 review).
          // So do its system and the study's price and power overrides (cost:, power:): the plan
          // had priced the study's own accelerator from the catalog, and run it on the default
          // system, where serve of the same file honours them (2026-12-05 review).
          const std::string& acc = parts[ai].id;
          const bool own = acc == s.serving.deployment.accel.id;
          if (!own) {
            c.deployment.memory_gib = 0;
            c.deployment.given_at.erase("memory_gib");
            // What sizes such an accelerator: its entry, not deployment.memory_gib (the candidate's
            // status had advised deployment.memory_gib, which this line sets aside; 2026-12-07 review).
            c.deployment.memory_gib_hint =
                "deployment.memory_gib sizes the deployment's own accelerator (" + s.serving.deployment.accel.id +
                ") only: write this entry's memory_gib in GiB with its provenance, e.g. memory_gib: {value: 80, source: ID}, or "
                "describe the part with its size under the study's hardware.accelerators (an id of its own) and list that id in "
                "plan.accelerators";
          }
          c.deployment.accelerator = accels[ai];
          // Another accelerator runs on the first of the study's own systems holding it, else the
          // catalog's (make_deployment).
          if (!own) c.deployment.system.clear();
          c.deployment.tp = tp;
          // Expert parallelism follows the candidate's tp: the largest degree valid at this tp
          // (dividing tp and the experts, valid_expert_parallel) up to the study's ep. Before
          // 2026-12-06 every candidate kept the study's ep, so at study tp 4 ep 4 the tp 1 and 2
          // candidates were refused ("ep=4 must divide tp=1") and tp 4 at 10 USD/h was best where
          // tp 1 at 2.5 USD/h met the SLO (review). A factor for the busiest EP rank has no rank at ep 1.
          int ep = 1;
          for (int e : valid_expert_parallel(s.serving.deployment.model, tp))
            if (e <= s.deployment.ep) ep = e;
          c.deployment.ep = ep;
          if (ep == 1) c.deployment.expert_load_factor = 0;
          // At a smaller ep than the study's the busiest rank can take less: the study's factor is
          // held to that ep's largest, ep x min(k, E/ep) / k (a factor valid at the study's ep had
          // refused the candidate; 2026-12-07 review).
          else if (c.deployment.expert_load_factor > 0)
            c.deployment.expert_load_factor =
                std::min(c.deployment.expert_load_factor, max_expert_load_factor(s.serving.deployment.model, ep));
          ep_differs = ep_differs || ep != s.deployment.ep;
          c.serving.policy = pol;
          c.serving.limits.max_batch_seqs = mbs;
          c.serving.disaggregation.reset();
          c.serving.request_table = false;
          std::string status;
          // The candidate's formats (empty until its deployment is made).
          std::string wfmt, afmt, kvfmt, cdt;
          // A row: the candidate's keys and formats, then replicas ... status.
          auto make_row = [&](int64_t replicas, int64_t devices, double att, double ttft, double tpot, double usd_h, double usd_mtok,
                              std::string st) -> std::vector<Value> {
            return {acc, int64_t{tp}, int64_t{ep}, int64_t{c.deployment.pp}, wfmt, afmt, kvfmt, cdt, pol, int64_t{mbs},
                    replicas, devices, att, ttft, tpot, usd_h, usd_mtok, std::move(st)};
          };
          const double none = std::nan("");  // no number
          try {
            c.serving.deployment = make_deployment(cat, data, c.deployment);
            {
              const Deployment& fd = c.serving.deployment;
              wfmt = fd.weight.name;
              afmt = fd.activation.name;
              kvfmt = fd.kv.name;
              cdt = to_string(compute_dtype(fd.weight, fd.activation, fd.accel, fd.engine.matmul_dtypes));
            }
            resolve_serving(c, cat, data);
            if (own) {
              c.serving.usd_per_device_hour = s.serving.usd_per_device_hour;
              c.serving.usd_per_device_hour_stated = s.serving.usd_per_device_hour_stated;
              c.serving.price_node_devices = s.serving.price_node_devices;
              c.serving.price_source = s.serving.price_source;
              c.serving.busy_power_w = s.serving.busy_power_w;
              c.serving.idle_power_w = s.serving.idle_power_w;
            }
            if (std::none_of(price_sources.begin(), price_sources.end(), [&](const auto& x) { return x.first == acc; }))
              price_sources.emplace_back(acc, c.serving.price_source);
            for (auto& n : weight_format_notes(c.serving.deployment))
              if (std::find(format_notes.begin(), format_notes.end(), n) == format_notes.end()) format_notes.push_back(std::move(n));
            // Each pipeline batch in flight holds its share of the cache (serving.cpp, BlockPool).
            const int pp = c.serving.deployment.par.pp;
            const int slots = pipeline_slots(pp, c.serving.pipeline_batches);
            // With the figures (it had said "does not fit" alone; review of 2026-12-05).
            const int64_t holds = kv_capacity_tokens(c.serving, c.serving.deployment) / slots;
            const Deployment& dd = c.serving.deployment;
            // Serve's accounting and words: the draft's weights and the activation workspace against
            // the usable memory (the target's weights alone against the device's whole memory had
            // been said, 72.7 GB "leaving no room" in 85.9 GB; 2026-12-07 review).
            if (holds <= 0 && kv_memory_budget(dd, c.serving.draft ? &*c.serving.draft : nullptr, c.serving.memory_available_fraction,
                                               static_cast<double>(c.serving.limits.max_batch_tokens))
                                      .free_bytes() <= 0) {
              const Error e = no_kv_cache_room_error(c.serving);
              status = "does not fit: " + e.message() + " (" + e.hint() + ")";
            } else if (holds < mean_request_tokens)
              status = "does not fit: the KV cache holds " + std::to_string(holds) + " tokens" + (slots > 1 ? " per pipeline batch" : "") +
                       ", under the mean request's " + format_double(std::round(mean_request_tokens)) + " (prompt + output)";
          } catch (const Error& e) {
            // With its hint, as serve and estimate say it ("(valid: 1, 2, 4, 8)" had been dropped;
            // 2026-12-07 review).
            status = e.message() + (e.hint().empty() ? std::string() : " (" + e.hint() + ")");
          }
          // A default max_batch_seqs above the study's max_batch_tokens is a deployment serve
          // refuses (an entry written is refused by load_study).
          if (status.empty() && mbs > c.serving.limits.max_batch_tokens)
            status = "refused: max_batch_seqs " + std::to_string(mbs) + " is above serving.max_batch_tokens " +
                     std::to_string(c.serving.limits.max_batch_tokens) + " (a pass of that many decoding sequences needs a token each; serve "
                     "and vLLM refuse it)";
          if (!status.empty()) {
            t.add_row(make_row(0, 0, none, none, none, none, none, status));
            continue;
          }
          // Replicas: start from the saturation estimate, grow until the SLO is met.
          // Measured as serve measures it (sixteen full batches): a 512-request burst read its
          // start-up transient, 2 H100s were planned for 44 req/s where serve gives them 42.9
          // and a long run met the SLO for 13% of the requests (2026-12-04 review). The replica
          // count starts at rate / saturation, so no candidate runs above its saturation.
          c.serving.replicas = 1;
          // The saturation run's error (e.g. every request of a trace beyond one instance's cache)
          // is this candidate's status, as the replica runs' below: it had been thrown out of the
          // plan, ending every candidate (2026-12-07 review).
          double cap = 0;
          try {
            cap = saturation_of(c, &reqs);
          } catch (const Error& e) {
            status = e.message() + (e.hint().empty() ? std::string() : " (" + e.hint() + ")");
            t.add_row(make_row(0, 0, none, none, none, none, none, status));
            continue;
          }
          // In 64 bits, capped: a rate of 2^31 requests/s overflowed the int and simulated ~4e8
          // replicas (before 2026-12-03); beyond max_devices nothing is simulated.
          const int per_replica = c.serving.deployment.par.devices();
          const double need = std::ceil((std::isfinite(offered_per_s) ? offered_per_s : 0.0) / std::max(cap, 1e-9));
          const int64_t needed = std::max<int64_t>(1, static_cast<int64_t>(std::min(need, 1e12)));
          int rep = needed * per_replica > P.max_devices ? P.max_devices / per_replica + 1 : static_cast<int>(needed);
          ServingSummary sum;
          bool ok = false;
          int tried = 0;  // the last replica count simulated (0: none within max_devices)
          while (static_cast<int64_t>(rep) * per_replica <= P.max_devices) {
            c.serving.replicas = rep;
            try {
              simulate_serving(c.serving, reqs, &sum);
            } catch (const Error& e) {
              status = e.message();
              break;
            }
            tried = rep;
            if (meets(sum, reqs.size()) >= P.slo_attainment_fraction) { ok = true; break; }
            ++rep;
          }
          if (tried > 0) simulated_any = true;
          if (tried == 0 && status.empty()) {
            // Not one replica count fits in max_devices: nothing was simulated, so nothing is measured.
            t.add_row(make_row(needed, needed * per_replica, none, none, none,
                               c.serving.usd_per_device_hour > 0
                                   ? c.serving.usd_per_device_hour * static_cast<double>(billed_devices(needed, per_replica, c.serving.price_node_devices,
                                                                                                       c.serving.deployment.par.pp))
                                   : none,
                               none,
                               "needs about " + std::to_string(needed * per_replica) + " devices (saturation estimate), beyond max_devices " +
                                   std::to_string(P.max_devices)));
            continue;
          }
          rep = std::max(tried, 1);
          const bool priced = c.serving.usd_per_device_hour > 0;
          // Whole nodes under a system's node price, as serve bills them.
          const double usd_h =
              priced ? c.serving.usd_per_device_hour * static_cast<double>(billed_devices(rep, per_replica, c.serving.price_node_devices, c.serving.deployment.par.pp))
                     : std::nan("");
          // Unmet: at no load (each request alone) the attainment is the most any replica count
          // reaches. Under the required share, the bound that fails is named and max_devices is
          // not blamed; else more replicas may meet it.
          std::string limit, why;
          double no_load = std::nan("");
          if (!ok && status.empty()) {
            try {
              const ServingSummary alone = no_load_summary(c.serving, reqs);
              no_load = meets(alone, no_load_sample_size(reqs));
            } catch (const Error&) {
            }
            why = unmet_bounds_text(sum);
            if (std::isfinite(no_load) && no_load < P.slo_attainment_fraction) {
              limit = has_slo ? unmet_bounds_key(sum) : "refused requests";
              status = "SLO not met at any replica count: " + why + "; at no load (each request alone) " + sig4(no_load) +
                       " of the requests meet it, under the " + sig4(P.slo_attainment_fraction) + " required";
            } else {
              limit = "max_devices";
              ++devices_limited;
              status = "SLO not met within max_devices " + std::to_string(P.max_devices) + ": " + why +
                       (std::isfinite(no_load) ? "; at no load " + sig4(no_load) + " of the requests meet it: more replicas may" : std::string());
            }
          }
          const bool measured = tried > 0;
          std::vector<Value> row = make_row(int64_t{rep}, int64_t{rep * per_replica}, measured ? sum.slo_attainment_fraction : none,
                                            measured ? sum.ttft_p99_s : none, measured ? sum.tpot_p99_s : none, usd_h,
                                            measured && priced ? sum.usd_per_million_output_tokens : none, ok ? std::string("ok") : status);
          t.add_row(row);
          if (!ok && measured && !limit.empty()) {
            const int unpriced = priced ? 0 : 1;
            const double key = priced ? usd_h : rep * per_replica;
            const double att = meets(sum, reqs.size());
            if (att > closest.attainment + 1e-12 ||
                (std::fabs(att - closest.attainment) <= 1e-12 && (unpriced < closest.unpriced || (unpriced == closest.unpriced && key < closest.key))))
              closest = {att, no_load, unpriced, key, row, limit, why};
          }
          if (ok) {
            // Cheapest per hour; without prices, fewest devices. A tie goes to the higher SLO
            // attainment, then the lower cost per token, then the earlier candidate (it had gone to
            // the earlier one: TP4 x 2 over TP8 x 1 at the same price with worse attainment, TTFT
            // and cost per token, and the other order of `tp` chose the other; review of 2026-12-05).
            const int unpriced = priced ? 0 : 1;
            const double key = priced ? usd_h : rep * per_replica;
            const double att = meets(sum, reqs.size()), per_mtok = priced ? sum.usd_per_million_output_tokens : 0.0;
            const bool tie = unpriced == best.unpriced && std::fabs(key - best.key) <= 1e-9 * std::max(1.0, std::fabs(key));
            if (unpriced < best.unpriced || (unpriced == best.unpriced && !tie && key < best.key) ||
                (tie && (att > best.attainment + 1e-12 || (std::fabs(att - best.attainment) <= 1e-12 && per_mtok < best.usd_per_mtok - 1e-12))))
              best = {unpriced, key, rep * per_replica, att, per_mtok, row};
          }
        }
  for (const auto& [acc, source] : price_sources) r.notes.push_back("price of " + acc + ": " + source);
  r.notes.insert(r.notes.end(), format_notes.begin(), format_notes.end());
  if (ep_differs)
    r.notes.push_back("deployment.ep " + std::to_string(s.deployment.ep) + ": each candidate runs the largest expert-parallel degree up to it that "
                      "divides its tp and the experts (the ep column); for ep = tp throughout, give deployment.tp and deployment.ep the largest tp planned");
  r.set("rate_per_s", offered_per_s);  // a trace's as serve reports it
  r.set("slo_ttft_s", s.serving.slo.ttft_s > 0 ? s.serving.slo.ttft_s : std::nan(""));
  r.set("slo_tpot_s", s.serving.slo.tpot_s > 0 ? s.serving.slo.tpot_s : std::nan(""));
  r.set("required_slo_attainment_fraction", P.slo_attainment_fraction);
  if (best.row.empty()) {
    r.set("found", false);
    if (!closest.row.empty()) {
      const auto& row = closest.row;
      const std::string who = std::get<std::string>(row[kAcc]) + " tp " + std::to_string(std::get<int64_t>(row[kTp])) +
                              (std::get<int64_t>(row[kPp]) > 1 ? " pp " + std::to_string(std::get<int64_t>(row[kPp])) : std::string()) + " x " +
                              std::to_string(std::get<int64_t>(row[kReplicas])) + (std::get<int64_t>(row[kReplicas]) == 1 ? " replica (" : " replicas (") + std::to_string(std::get<int64_t>(row[kDevices])) +
                              " devices, " + std::get<std::string>(row[kPolicy]) + ", max_batch_seqs " + std::to_string(std::get<int64_t>(row[kMbs])) + ")";
      const std::string attains = "the closest, " + who + (has_slo ? ", has SLO attainment " + sig4(closest.attainment) : std::string()) + ": " + closest.why;
      if (closest.limit == "max_devices")
        r.notes.push_back("no candidate meets the SLO within max_devices " + std::to_string(P.max_devices) + ": " + attains +
                          (std::isfinite(closest.no_load_attainment) ? "; at no load it reaches " + sig4(closest.no_load_attainment) : std::string()) +
                          ": raise plan.max_devices");
      else
        r.notes.push_back("no candidate meets the SLO at any device count: " + attains + "; even at no load (each request alone on a replica) " +
                          sig4(closest.no_load_attainment) + " of the requests meet it, under the " + sig4(P.slo_attainment_fraction) +
                          " required: more devices cannot help; " +
                          (has_slo ? "a faster accelerator, a larger tp, a smaller max_batch_tokens or a looser slo may"
                                   : "the refused requests are too long for one replica's KV cache or the context window: a larger tp or an "
                                     "accelerator with more memory may") +
                          (devices_limited > 0 ? "; " + std::to_string(devices_limited) +
                                                     " other candidate(s) would meet it at no load but not within max_devices (their status says so)"
                                               : std::string()));
      r.set("closest_accelerator", std::get<std::string>(row[kAcc]));
      r.set("closest_tp", std::get<int64_t>(row[kTp]));
      r.set("closest_pp", std::get<int64_t>(row[kPp]));
      r.set("closest_policy", std::get<std::string>(row[kPolicy]));
      r.set("closest_max_batch_seqs", std::get<int64_t>(row[kMbs]));
      r.set("closest_replicas", std::get<int64_t>(row[kReplicas]));
      r.set("closest_devices_count", std::get<int64_t>(row[kDevices]));
      // Without an SLO no number, as best_slo_attainment_fraction and the column (the note says the share served).
      r.set("closest_slo_attainment_fraction", has_slo ? closest.attainment : std::nan(""));
      r.set("closest_no_load_slo_attainment_fraction", has_slo ? closest.no_load_attainment : std::nan(""));
      r.set("closest_limit", closest.limit);
    } else {
      r.notes.push_back(simulated_any ? "no candidate meets the SLO within max_devices"
                                      : "no candidate could be served: each was refused or needs more than max_devices (the status column says why); "
                                        "nothing was simulated");
    }
  } else {
    // A priced candidate ranks before every unpriced one (their costs cannot be compared): say so
    // when an unpriced one also met the SLO, possibly on fewer devices (2026-12-03 review).
    if (best.unpriced == 0) {
      int64_t unpriced_ok = 0, fewest = 0;
      const auto& st = t.column("status").str;
      const auto& price = t.column("usd_per_hour").f64;
      const auto& dev = t.column("devices_count").i64;
      for (size_t i = 0; i < t.rows(); ++i)
        if (st[i] == "ok" && std::isnan(price[i])) {
          ++unpriced_ok;
          fewest = fewest == 0 ? dev[i] : std::min(fewest, dev[i]);
        }
      if (unpriced_ok > 0)
        r.notes.push_back(std::to_string(unpriced_ok) + " candidate(s) without a price also meet the SLO (the fewest on " +
                          std::to_string(fewest) + " devices); priced candidates rank first, as costs cannot be compared: give "
                          "cost.usd_per_device_hour (the study's own accelerator) or the accelerator's price in the catalog to rank them");
    }
    r.set("found", true);
    r.set("best_accelerator", std::get<std::string>(best.row[kAcc]));
    r.set("best_tp", std::get<int64_t>(best.row[kTp]));
    r.set("best_pp", std::get<int64_t>(best.row[kPp]));
    r.set("best_policy", std::get<std::string>(best.row[kPolicy]));
    r.set("best_max_batch_seqs", std::get<int64_t>(best.row[kMbs]));
    r.set("best_replicas", std::get<int64_t>(best.row[kReplicas]));
    r.set("best_devices_count", std::get<int64_t>(best.row[kDevices]));
    r.set("best_slo_attainment_fraction", std::get<double>(best.row[kAttain]));
    r.set("best_usd_per_hour", std::get<double>(best.row[kUsdH]));
  }
  return r;
}

}  // namespace sextant::infer
