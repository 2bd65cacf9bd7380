// Parallel-plan search: enumeration, memory pruning, threaded evaluation, ranking. docs/plan.md.
#include "plan/plan.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "core/c_locale.hpp"
#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/threads.hpp"
#include "ir/schedule.hpp"
#include "ir/workload.hpp"
#include "validate/training_validation.hpp"

namespace sextant::plan {

namespace {

// The divisors of n that an int holds: a degree or a micro-batch beyond 2^31 - 1 is no plan (a
// global batch of 2^32 sequences had made the micro-batch 2^32 an int 0 and the search divide by
// it: SIGFPE in the CLI and the Python module alike; review of 2026-12-07).
std::vector<int> divisors(int64_t n) {
  std::vector<int> out;
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      if (d <= kMax) out.push_back(static_cast<int>(d));
      if (d * d != n && n / d <= kMax) out.push_back(static_cast<int>(n / d));
    }
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<std::string>& fix_keys() {
  static const std::vector<std::string> k = {"tp", "pp", "vpp", "dp", "cp", "ep", "etp", "mb", "zero", "sp", "recompute",
                                             "tp_overlap", "grad_reduce_overlap", "param_gather_overlap"};
  return k;
}

// The --fix keys whose values are switches (true/false, or 1/0).
bool boolean_fix_key(const std::string& key) {
  return key == "sp" || key == "tp_overlap" || key == "grad_reduce_overlap" || key == "param_gather_overlap";
}

int fixed_value(const SearchOptions& o, const char* key) {
  auto it = o.fixed.find(key);
  return it == o.fixed.end() ? -1 : it->second;
}

double gib(double b) { return b / (1024.0 * 1024 * 1024); }

bool allowed(const SearchOptions& o, const char* key, int v) {
  auto it = o.fixed.find(key);
  return it == o.fixed.end() || it->second == v;
}

// A fixed switch or degree that does nothing at a plan's tp and pp: SP and TP overlap without
// TP, vpp without a pipeline. Such a fix reads on, the plan in its canonical form (SP and TP
// overlap off, vpp 1), as estimate reads the same settings and as a fixed ZeRO stage reads
// without a data-parallel group. Before 2026-12-06 `--fix tp=1 --fix sp=true`, `tp_overlap=true`
// at tp 1 and `--fix pp=1 --fix vpp=2` were "no valid plan" and a bare `--fix sp=true` dropped
// every tp 1 plan without a word (review).
bool idle_fix(const std::string& key, int tp, int pp) {
  return ((key == "sp" || key == "tp_overlap") && tp == 1) || (key == "vpp" && pp == 1);
}

bool allowed_at(const SearchOptions& o, const char* key, int v, int tp, int pp) { return idle_fix(key, tp, pp) || allowed(o, key, v); }

int schedule_index(const SearchOptions& o, const std::string& name) {
  for (size_t i = 0; i < o.schedules.size(); ++i)
    if (o.schedules[i] == name) return static_cast<int>(i);
  return -1;
}

// Stage layout rule (docs/plan.md): even when pp*vpp divides the layers; otherwise one layer
// fewer on the first and last virtual stage when pp*vpp divides layers+2; otherwise (vpp = 1
// only) the remainder spread from the second stage on, as the validation harness does.
enum class Layout { Even, FewerFirstLast, Spread, None };
Layout layout_for(int layers, int n, int vpp) {
  if (layers % n == 0) return Layout::Even;
  if (n >= 2 && (layers + 2) % n == 0) return Layout::FewerFirstLast;
  if (vpp == 1) return Layout::Spread;
  return Layout::None;
}

// The layers of each of n virtual stages under Layout::Spread / None: L / n each, the remainder
// one more each from the second stage on.
std::vector<int> spread_layers(int L, int n) {
  std::vector<int> v(static_cast<size_t>(n), L / n);
  for (int i = 0; i < L % n; ++i) v[static_cast<size_t>(i + 1) % v.size()]++;
  return v;
}

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The layers of each of n virtual stages as the rule lays them out (Scenario::stage_layout for
// the rule's stage_rule, or spread_layers); empty under Layout::None.
std::vector<int> rule_layers(int L, int n, int vpp) {
  switch (layout_for(L, n, vpp)) {
    case Layout::Even: return std::vector<int>(static_cast<size_t>(n), L / n);
    case Layout::FewerFirstLast: {
      std::vector<int> v(static_cast<size_t>(n), (L + 2) / n);
      v.front() -= 1;
      v.back() -= 1;
      return v;
    }
    case Layout::Spread: return spread_layers(L, n);
    case Layout::None: break;
  }
  return {};
}

}  // namespace

// Review of 2026-12-06: the scenario's own stage sizes are searched at its own pp and vpp, beside
// the rule's layout where there is one (DeepSeek-V3's dualpipev plan, 1 + 30 x 2 + 0 over 32
// virtual stages, had no layout under the rule and was outside every search).
std::vector<int> own_stage_layers(const Scenario& base, int pp, int vpp) {
  const auto& p = base.plan;
  const int L = base.model.layers;
  if (!base.invalid_plan.empty() || pp < 2 || p.pp != pp || p.vpp != vpp || p.stage_layers.empty()) return {};
  const int64_t n = static_cast<int64_t>(pp) * vpp;
  if (static_cast<int64_t>(p.stage_layers.size()) != n) return {};
  int64_t sum = 0;
  for (size_t k = 0; k < p.stage_layers.size(); ++k) {
    const int l = p.stage_layers[k];
    // As the scenario checks them: none negative, an empty one only at either end.
    if (l < 0 || (l == 0 && k != 0 && k + 1 != p.stage_layers.size())) return {};
    sum += l;
  }
  if (sum != L) return {};  // (a sweep's model is the scenario's: this holds there too)
  if (p.stage_layers == rule_layers(L, static_cast<int>(n), vpp)) return {};  // the rule's own layout
  return p.stage_layers;
}

StackFeatures stack_features(const Framework& f) {
  StackFeatures st;
  st.framework = f.id;
  const auto& c = f.capabilities;
  if (!c.stated) return st;
  auto yes = [](const FrameworkProperty& p) { return p.value == "true"; };
  st.tp = yes(c.tensor_parallel);
  st.pp = yes(c.pipeline_parallel);
  st.cp = yes(c.context_parallel);
  st.ep = yes(c.expert_parallel);
  st.sp = yes(c.sequence_parallel);
  st.tp_comm_overlap = yes(c.tp_comm_overlap);
  st.overlap_grad_reduce = yes(c.overlap_grad_reduce);
  st.overlap_param_gather = yes(c.overlap_param_gather);
  st.flash_attention = yes(c.flash_attention);
  st.recompute_block = yes(c.recompute_block);
  st.recompute.clear();
  for (const auto& r : c.recompute.items)
    st.recompute.push_back(r == "none" ? Recompute::None : r == "selective" ? Recompute::Selective : Recompute::Full);
  st.recompute_modules = 0;
  const auto& names = recompute_module_names();
  for (const auto& mod : c.recompute_modules.items)
    st.recompute_modules |= 1u << static_cast<uint32_t>(std::find(names.begin(), names.end(), mod) - names.begin());
  st.zero_stages.clear();
  for (const auto& z : c.zero_stages.items) st.zero_stages.push_back(std::stoi(z));
  st.pipeline_zero_stages.clear();
  for (const auto& z : c.pipeline_zero_stages.items) st.pipeline_zero_stages.push_back(std::stoi(z));
  st.schedules = c.schedules.items;
  return st;
}

Scenario stack_scenario(const Scenario& s, const StackFeatures& stack) {
  Scenario out = s;
  if (!stack.flash_attention) out.train.flash_attention = false;
  return out;
}

// Before 2026-12-05 messages printed the integer a --fix value is held as ("--fix recompute=1",
// "sp=0") where recompute=selective or sp=false had been typed (review).
std::string fix_value_text(const std::string& key, int v) {
  if (key == "recompute" && v >= 0 && v <= 2) return v == 0 ? "none" : v == 1 ? "selective" : "full";
  if (boolean_fix_key(key)) return v != 0 ? "true" : "false";
  return std::to_string(v);
}

// The search options that leave the plan out (--fix, --zero, --recompute, the limits, the
// switches searched in one form), in the CLI's words; "" when none does (2026-12-05 review: "outside
// the search space (constraints or enumeration rules)" had named none of them).
std::string search_exclusions(const Candidate& c, const SearchOptions& opt) {
  std::vector<std::string> v;
  const std::pair<const char*, int> values[] = {{"tp", c.tp},       {"pp", c.pp},   {"vpp", c.vpp},
                                                {"dp", c.dp},       {"cp", c.cp},   {"ep", c.ep},
                                                {"etp", c.etp},     {"mb", c.micro_batch},
                                                {"zero", c.zero_stage}, {"sp", c.sequence_parallel ? 1 : 0},
                                                {"recompute", c.recompute}, {"tp_overlap", c.tp_comm_overlap ? 1 : 0},
                                                {"grad_reduce_overlap", c.overlap_grad_reduce ? 1 : 0},
                                                {"param_gather_overlap", c.overlap_param_gather ? 1 : 0}};
  for (const auto& [k, x] : values)
    if (auto it = opt.fixed.find(k); it != opt.fixed.end() && it->second != x && !idle_fix(k, c.tp, c.pp))
      v.push_back("--fix " + std::string(k) + "=" + fix_value_text(k, it->second) + " (the plan has " + k + " " + fix_value_text(k, x) + ")");
  if (!opt.fixed.count("zero") && std::find(opt.zero_stages.begin(), opt.zero_stages.end(), static_cast<int>(c.zero_stage)) == opt.zero_stages.end())
    v.push_back("--zero leaves out stage " + std::to_string(c.zero_stage));
  if (!opt.fixed.count("recompute") &&
      std::find(opt.recompute.begin(), opt.recompute.end(), static_cast<Recompute>(c.recompute)) == opt.recompute.end())
    v.push_back("--recompute leaves out " + fix_value_text("recompute", c.recompute));
  if (opt.max_micro_batch > 0 && c.micro_batch > opt.max_micro_batch)
    v.push_back("--max-micro-batch " + std::to_string(opt.max_micro_batch) + " (the plan's is " + std::to_string(c.micro_batch) + ")");
  if (opt.max_vpp > 0 && c.vpp > opt.max_vpp)
    v.push_back("--max-vpp " + std::to_string(opt.max_vpp) + " (the plan's is " + std::to_string(c.vpp) + ")");
  // (a fixed overlap is named above; the fix keys search it off since 2026-12-06)
  const bool grad_off = !c.overlap_grad_reduce && !opt.fixed.count("grad_reduce_overlap");
  const bool gather_off = !c.overlap_param_gather && !opt.fixed.count("param_gather_overlap");
  if (!opt.vary_overlap_dp && (grad_off || gather_off))
    v.push_back(std::string("DP overlap turned off is searched only with --vary-dp-overlap or --fix ") +
                (grad_off ? "grad_reduce_overlap=false" : "") + (grad_off && gather_off ? " --fix " : "") +
                (gather_off ? "param_gather_overlap=false" : ""));  // one key per --fix (2026-12-06 review)
  if (!opt.vary_sequence_parallel && c.tp > 1 && !c.sequence_parallel) v.push_back("--sp-only leaves out sequence parallelism off");
  if (!opt.vary_tp_comm_overlap && c.tp > 1 && c.tp_comm_overlap) v.push_back("--no-tp-overlap leaves out TP communication overlap");
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : "; ") + x;
  return out;
}

std::string stack_violations(const Candidate& c, const Scenario& base, const SearchOptions& opt) {
  const StackFeatures& st = opt.stack;
  std::vector<std::string> v;
  if (c.tp > 1 && !st.tp) v.push_back("tensor parallelism");
  if (c.pp > 1 && !st.pp) v.push_back("pipeline parallelism");
  if (c.cp > 1 && !st.cp) v.push_back("context parallelism");
  if (c.ep > 1 && !st.ep) v.push_back("expert parallelism");
  if (c.tp > 1 && c.sequence_parallel && !st.sp) v.push_back("sequence parallelism");
  if (c.tp > 1 && c.tp_comm_overlap && !st.tp_comm_overlap) v.push_back("TP communication overlap");
  if (!contains(st.recompute, static_cast<Recompute>(c.recompute)))
    v.push_back("recompute " + to_string(static_cast<Recompute>(c.recompute)));
  else if (c.recompute == static_cast<uint8_t>(Recompute::Full) && c.recompute_layers > 0 && !st.recompute_block)
    v.push_back("full recompute of some layers (block method)");
  else if (c.recompute == static_cast<uint8_t>(Recompute::Selective) && (c.recompute_modules & ~st.recompute_modules) != 0)
    v.push_back("selective recompute of " + recompute_modules_text(c.recompute_modules & ~st.recompute_modules));
  // As the enumeration: ZeRO matters only with a data-parallel group (dense, or expert).
  const int64_t edp = c.ep > 1 || base.model.moe
                          ? std::max<int64_t>(1, static_cast<int64_t>(c.tp) * c.cp * c.dp / (static_cast<int64_t>(c.ep) * std::max(1, c.etp)))
                          : 1;
  const bool has_dp_group = static_cast<int64_t>(c.dp) * c.cp > 1 || edp > 1;
  if (has_dp_group && !contains(st.zero_stages, static_cast<int>(c.zero_stage)))
    v.push_back("ZeRO stage " + std::to_string(c.zero_stage));
  else if (has_dp_group && c.pp > 1 && !contains(st.pipeline_zero_stages, static_cast<int>(c.zero_stage)))
    v.push_back("ZeRO stage " + std::to_string(c.zero_stage) + " with a pipeline");
  if (c.pp > 1 && c.schedule < opt.schedules.size()) {  // a schedule outside --schedules is said by the caller
    const std::string& sched = opt.schedules[c.schedule];
    if (!contains(st.schedules, sched)) v.push_back("schedule " + sched);
  }
  if (c.overlap_grad_reduce && has_dp_group && !st.overlap_grad_reduce) v.push_back("gradient-reduce overlap");
  if (c.overlap_param_gather && c.zero_stage >= 1 && !st.overlap_param_gather) v.push_back("parameter-gather overlap");
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

void add_framework_note(Result& r, const Scenario& s, const Catalog& cat) {
  if (s.framework.empty() || !cat.has_framework(s.framework)) return;
  SearchOptions opt;
  opt.stack = stack_features(cat.framework(s.framework));
  opt.schedules = {"1f1b", "interleaved-1f1b", "gpipe", "zb-h1", "dualpipev"};
  std::string lacks = stack_violations(candidate_of(s, opt), s, opt);
  if (s.train.flash_attention && !opt.stack.flash_attention) lacks += (lacks.empty() ? "" : ", ") + std::string("flash attention");
  if (!lacks.empty())
    r.notes.push_back("framework " + s.framework + " does not offer " + lacks +
                      " (its catalog capabilities): this is the plan as written, which that stack could not run");
}

std::vector<std::string> searched_stack_changes(const Scenario& written, const Scenario& searched) {
  std::vector<std::string> out;
  if (written.train.flash_attention != searched.train.flash_attention)
    out.push_back(std::string("training.flash_attention=") + (searched.train.flash_attention ? "true" : "false") + " (the scenario: " +
                  (written.train.flash_attention ? "true" : "false") + ")");
  if (written.train.attention_peak_fraction != searched.train.attention_peak_fraction)
    out.push_back("training.attention_peak_fraction=" + format_double(searched.train.attention_peak_fraction) +
                  (searched.train.attention_peak_fraction == 0 ? " (no attention kernel cap; the scenario: " : " (the scenario: ") +
                  format_double(written.train.attention_peak_fraction) + ")");
  return out;
}

void parse_fix(const std::string& item, SearchOptions& opt) {
  const auto eq = item.find('=');
  const SourceLocation where{"--fix", 0, 0, item};
  if (eq == std::string::npos) throw Error(where, "expected key=value, e.g. --fix tp=8");
  const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
  const auto& keys = fix_keys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end())
    throw Error(where, "unknown plan dimension '" + key + "'", valid_choices_hint(key, keys));
  int v = 0;
  if (key == "recompute") {
    const std::vector<std::string> modes = {"none", "selective", "full"};
    const auto it = std::find(modes.begin(), modes.end(), val);
    if (it != modes.end()) v = static_cast<int>(it - modes.begin());
    else if (val == "0" || val == "1" || val == "2") v = val[0] - '0';
    else throw Error(where, "'" + val + "' is not a recompute mode", valid_choices_hint(val, modes) + " (or 0, 1, 2)");
  } else if (boolean_fix_key(key)) {
    if (val == "true" || val == "1") v = 1;
    else if (val == "false" || val == "0") v = 0;
    else throw Error(where, "'" + val + "' is not a boolean", "valid: true, false (or 1, 0)");
  } else {
    try {
      size_t pos = 0;
      v = std::stoi(val, &pos);
      if (pos != val.size()) throw std::invalid_argument(val);
    } catch (const std::exception&) {
      throw Error(where, "'" + val + "' is not an integer");
    }
    if (key == "zero" ? (v < 0 || v > 3) : v < 1)
      throw Error(where, key == "zero" ? "ZeRO stage " + val + " does not exist (valid: 0, 1, 2, 3)"
                                       : key + " must be at least 1, got " + val);
  }
  if (const auto it = opt.fixed.find(key); it != opt.fixed.end() && it->second != v)
    throw Error(where, key + " is fixed twice (" + fix_value_text(key, it->second) + " and " + val + ")", "give each --fix key once");
  opt.fixed[key] = v;
}

void parse_module_search(const std::vector<std::string>& items, SearchOptions& opt) {
  if (items.size() == 1 && (items[0] == "ladder" || items[0] == "scenario")) {
    opt.module_search = items[0] == "ladder" ? ModuleSearch::Ladder : ModuleSearch::Scenario;
    opt.module_sets.clear();
    return;
  }
  const auto& names = recompute_module_names();
  opt.module_search = ModuleSearch::Listed;
  opt.module_sets.clear();
  for (const auto& item : items) {
    const SourceLocation where{"--recompute-modules", 0, 0, item};
    if (item == "ladder" || item == "scenario")
      throw Error(where, "'" + item + "' stands alone: it cannot be combined with other module sets");
    uint32_t set = 0;
    size_t start = 0;
    while (start <= item.size()) {
      const size_t plus = std::min(item.find('+', start), item.size());
      const std::string name = item.substr(start, plus - start);
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end())
        throw Error(where, "unknown recompute module '" + name + "'",
                    valid_choices_hint(name, names) + " (or 'ladder' or 'scenario' alone; join modules of one set with '+')");
      set |= 1u << static_cast<uint32_t>(it - names.begin());
      start = plus + 1;
    }
    opt.module_sets.push_back(set);
  }
}

namespace {
// training.recompute_num_layers of a full-recompute candidate (Candidate::recompute_layers): block
// N recomputes N layers per chunk, groups of g are g layers a group, every layer on its own 1.
int full_recompute_num_layers(int16_t recompute_layers) {
  return recompute_layers > 0 ? recompute_layers - 1 : recompute_layers < 0 ? -recompute_layers : 1;
}
}  // namespace

PlanKeys plan_keys(const Candidate& c, const Scenario& base) {
  PlanKeys k;
  if (c.recompute == static_cast<uint8_t>(Recompute::Full)) {
    k.recompute_method = c.recompute_layers > 0 ? "block" : "uniform";
    k.recompute_num_layers = full_recompute_num_layers(c.recompute_layers);
  }
  const int n = c.pp * c.vpp, L = base.model.layers;
  if (c.own_layout) {
    k.stage_layers = base.plan.stage_layers;  // the scenario's own sizes (own_stage_layers)
    return k;
  }
  switch (layout_for(L, n, c.vpp)) {
    case Layout::Even: k.stage_rule = "even"; break;
    case Layout::FewerFirstLast: k.stage_rule = "fewer-first-last"; break;
    case Layout::Spread:
    case Layout::None: k.stage_layers = spread_layers(L, n); break;
  }
  return k;
}

void apply_candidate(Scenario& s, const Candidate& c, const SearchOptions& opt) {
  auto& p = s.plan;
  p.tp = c.tp;
  p.pp = c.pp;
  p.vpp = c.vpp;
  p.dp = c.dp;
  p.cp = c.cp;
  p.ep = c.ep;
  p.etp = c.etp;
  p.zero_stage = c.zero_stage;
  p.sequence_parallel = c.sequence_parallel;
  p.tp_comm_overlap = c.tp_comm_overlap;
  p.overlap_grad_reduce = c.overlap_grad_reduce;
  p.overlap_param_gather = c.overlap_param_gather;
  p.schedule = c.pp > 1 ? opt.schedules[c.schedule] : std::string("1f1b");
  // Unless the scenario states it, EP overlap is the schedule's default (on under dualpipev, whose
  // forward-beside-backward pairs it stands for): set from the schedule every time, so a search
  // reusing one Scenario does not carry a dualpipev candidate's overlap into the next plan.
  if (!p.ep_comm_overlap_stated) p.ep_comm_overlap = p.schedule == "dualpipev";
  s.train.micro_batch = c.micro_batch;
  s.train.recompute = static_cast<Recompute>(c.recompute);
  if (s.train.recompute == Recompute::Selective && c.recompute_modules != 0) s.train.recompute_modules = c.recompute_modules;
  if (s.train.recompute == Recompute::Full) {
    s.train.recompute_block = c.recompute_layers > 0;
    s.train.recompute_num_layers = full_recompute_num_layers(c.recompute_layers);
  }
  const int n = c.pp * c.vpp, L = s.model.layers;
  if (c.own_layout) {
    // The scenario's own sizes, which s carries (apply_candidate's contract, plan.hpp).
    if (static_cast<int>(p.stage_layers.size()) != n || std::accumulate(p.stage_layers.begin(), p.stage_layers.end(), 0) != L)
      throw Error("plan: a plan laid out with the scenario's own stage_layers needs the scenario's own sizes (" + std::to_string(n) +
                  " virtual stages of " + std::to_string(L) + " layers)");
    p.stage_rule = "even";
    return;
  }
  // The rule's layout, as the ranking's stage_rule and stage_layers columns read it (plan_keys).
  PlanKeys k = plan_keys(c, s);
  p.stage_rule = k.stage_rule.empty() ? std::string("even") : k.stage_rule;  // (sizes stated: the rule is unused)
  p.stage_layers = std::move(k.stage_layers);
}

Candidate candidate_of(const Scenario& s, const SearchOptions& opt) {
  Candidate c;
  const auto& p = s.plan;
  c.tp = p.tp;
  c.pp = p.pp;
  c.vpp = p.vpp;
  c.dp = p.dp;
  c.cp = p.cp;
  c.ep = p.ep;
  // A dense model has no experts to split: etp 1, as the search enumerates it (the own-plan line
  // of a dense Llama read "etp8", its default tp, 2026-12-03 review).
  c.etp = !s.model.moe ? 1 : p.etp > 0 ? p.etp : p.tp;
  c.micro_batch = s.train.micro_batch;
  c.zero_stage = static_cast<uint8_t>(p.zero_stage);
  c.recompute = static_cast<uint8_t>(s.train.recompute);
  c.recompute_modules =
      s.train.recompute == Recompute::Selective ? static_cast<uint8_t>(s.train.recompute_modules & applicable_recompute_modules(s.model)) : 0;
  c.recompute_layers = full_recompute_layers(s.train);
  const int idx = schedule_index(opt, p.schedule);
  c.schedule = static_cast<uint8_t>(idx < 0 ? 255 : idx);
  c.sequence_parallel = p.sequence_parallel && p.tp > 1;
  c.tp_comm_overlap = p.tp_comm_overlap && p.tp > 1;
  c.overlap_grad_reduce = p.overlap_grad_reduce;
  c.overlap_param_gather = p.overlap_param_gather;
  c.own_layout = !own_stage_layers(s, p.pp, p.vpp).empty();
  return c;
}

namespace {
// describe(); `layout` replaces the search's stage layout text where given (the scenario's own).
std::string describe_impl(const Candidate& c, const SearchOptions& opt, const Scenario& base, const std::string* layout) {
  std::string out = "tp" + std::to_string(c.tp) + " pp" + std::to_string(c.pp);
  if (c.vpp > 1) out += " vpp" + std::to_string(c.vpp);
  out += " dp" + std::to_string(c.dp);
  if (c.cp > 1) out += " cp" + std::to_string(c.cp);
  if (c.ep > 1) out += " ep" + std::to_string(c.ep);
  if (c.etp > 1) out += " etp" + std::to_string(c.etp);  // (only experts are split by it; 1 for a dense model)
  out += " mb" + std::to_string(c.micro_batch) + " zero" + std::to_string(c.zero_stage);
  if (c.sequence_parallel) out += " sp";
  if (c.tp_comm_overlap) out += " tpov";
  if (!c.overlap_grad_reduce) out += " no-grad-overlap";
  if (!c.overlap_param_gather) out += " no-gather-overlap";
  out += " rc:" + to_string(static_cast<Recompute>(c.recompute));
  // The default module set (the attention core) is not spelt out.
  if (c.recompute == static_cast<uint8_t>(Recompute::Selective) && c.recompute_modules != 0 && c.recompute_modules != kRecomputeCoreAttn)
    out += "(" + recompute_modules_text(c.recompute_modules) + ")";
  if (c.recompute == static_cast<uint8_t>(Recompute::Full) && c.recompute_layers != 0)
    out += c.recompute_layers > 0 ? "(block " + std::to_string(c.recompute_layers - 1) + ")"
                                  : "(groups of " + std::to_string(-c.recompute_layers) + ")";
  const std::string schedule = c.pp > 1 ? (c.schedule < opt.schedules.size() ? opt.schedules[c.schedule] : std::string("?")) : std::string("1f1b");
  if (c.pp > 1) out += " " + schedule;
  // The stage layout where it is not the even split, as apply_candidate lays it out: an uneven
  // plan's text had not said it, and estimate refused the plan without it (review of 2026-12-04).
  if (layout) {
    out += *layout;
  } else {
    // The rule's layout, or the scenario's own sizes (own_stage_layers), as the ranking's
    // stage_rule and stage_layers columns (plan_keys).
    const PlanKeys k = plan_keys(c, base);
    out += stage_layout_text(k.stage_layers, k.stage_rule);
  }
  // An MoE plan names its dispatcher and EP overlap as plan_text (estimate's `plan`) does, so a
  // row reads the same in plan's ranking and in estimate (apply_candidate's overlap rule).
  if (base.model.moe) {
    out += " " + base.plan.moe_dispatcher;
    const bool ep_overlap = base.plan.ep_comm_overlap_stated ? base.plan.ep_comm_overlap : schedule == "dualpipev";
    if (c.ep > 1 && ep_overlap) out += " ep-overlap";
  }
  return out;
}
}  // namespace

std::string describe(const Candidate& c, const SearchOptions& opt, const Scenario& base) { return describe_impl(c, opt, base, nullptr); }

std::string describe_own(const Candidate& own, const SearchOptions& opt, const Scenario& base) {
  // The scenario's own stage layout (stage_layers or its rule), which the search may lay out
  // otherwise: the own plan's text had named the search's layout beside a step time of its own
  // (review of 2026-12-04).
  const std::string layout = stage_layout_text(base.plan.stage_layers, base.plan.stage_rule);
  if (own.pp == 1 || own.schedule < opt.schedules.size()) return describe_impl(own, opt, base, &layout);
  // A schedule outside --schedules: named through a copy of the options that lists it.
  SearchOptions named = opt;
  named.schedules.push_back(base.plan.schedule);
  Candidate c = own;
  c.schedule = static_cast<uint8_t>(named.schedules.size() - 1);
  return describe_impl(c, named, base, &layout);
}

bool same_plan(const Candidate& a, const Candidate& b, bool moe) {
  // Canonical form: schedule irrelevant without a pipeline, SP and TP overlap irrelevant without
  // TP; etp irrelevant without experts (with experts it splits them at ep 1 too); ZeRO irrelevant
  // when no data-parallel group (dense, and expert with experts) has more than one member. A dense
  // tp 8, dp 1 plan had an expert group of 8 here and kept its ZeRO stage, so a scenario's own
  // plan (ZeRO-1 by default) matched none of the enumerated ones (ZeRO 0) before 2026-12-02.
  auto canon = [moe](Candidate c) {
    if (c.pp == 1) {
      c.schedule = 0;
      c.vpp = 1;
    }
    if (c.tp == 1) {
      c.sequence_parallel = false;
      c.tp_comm_overlap = false;
    }
    if (!moe) c.etp = 1;
    const int64_t edp =
        moe ? std::max<int64_t>(1, static_cast<int64_t>(c.tp) * c.cp * c.dp / (static_cast<int64_t>(c.ep) * std::max(1, c.etp))) : 1;
    const bool no_dp_group = static_cast<int64_t>(c.dp) * c.cp == 1 && edp == 1;
    if (no_dp_group) c.zero_stage = 0;
    // Overlap switches without effect (the enumeration's canonical form: on).
    if (no_dp_group) c.overlap_grad_reduce = true;
    if (no_dp_group || c.zero_stage == 0) c.overlap_param_gather = true;
    return c;
  };
  const Candidate x = canon(a), y = canon(b);
  return x.tp == y.tp && x.pp == y.pp && x.vpp == y.vpp && x.dp == y.dp && x.cp == y.cp && x.ep == y.ep &&
         x.etp == y.etp && x.micro_batch == y.micro_batch && x.zero_stage == y.zero_stage && x.recompute == y.recompute &&
         x.recompute_modules == y.recompute_modules && x.recompute_layers == y.recompute_layers && (x.pp == 1 || x.schedule == y.schedule) && x.sequence_parallel == y.sequence_parallel &&
         x.tp_comm_overlap == y.tp_comm_overlap && x.overlap_grad_reduce == y.overlap_grad_reduce &&
         x.overlap_param_gather == y.overlap_param_gather && x.own_layout == y.own_layout;
}

int16_t full_recompute_layers(const TrainingConfig& t) {
  if (t.recompute != Recompute::Full) return 0;
  const int n = std::clamp(t.recompute_num_layers, 0, 32767);
  return static_cast<int16_t>(t.recompute_block ? std::min(n, 32766) + 1 : n > 1 ? -n : 0);
}

std::vector<int16_t> full_recompute_rungs(const Scenario& base, const SearchOptions& opt, int pp, int vpp) {
  std::vector<int16_t> out;
  if (opt.module_search != ModuleSearch::Ladder || !opt.stack.recompute_block) return out;
  const int chunks = std::max(1, pp * vpp);
  const int n = (base.model.layers + chunks - 1) / chunks;  // layers of the largest chunk
  // Every count of layers below the chunk's size. search() finds the fewest that fit by bisection
  // on memory, which falls as N grows, and costs that one only. (Review of 2026-12-06: a chunk of
  // more than 25 layers had 24 evenly spaced counts, ceil(q n / 25), which never held block 1
  // there and skipped counts: Llama 3 8B on 64 GPUs at 128k ranked block 2 where block 1 fit,
  // 0.9% faster, and an 8-GPU job block 29 where block 28 fit.)
  for (int N = 1; N < n && N < 32766; ++N) out.push_back(static_cast<int16_t>(N + 1));
  return out;
}

std::vector<int16_t> full_recompute_candidates(const Scenario& base, const SearchOptions& opt) {
  std::vector<int16_t> out = {0};
  const int16_t own = full_recompute_layers(base.train);
  if (own != 0 && (own < 0 || opt.stack.recompute_block)) out.push_back(own);
  return out;
}

std::vector<uint32_t> selective_module_sets(const Scenario& base, const SearchOptions& opt) {
  const uint32_t applicable = applicable_recompute_modules(base.model);
  const uint32_t offered = applicable & opt.stack.recompute_modules;
  std::vector<uint32_t> out;
  auto add = [&](uint32_t set) {
    if (set != 0 && (set & ~offered) == 0 && !contains(out, set)) out.push_back(set);
  };
  switch (opt.module_search) {
    case ModuleSearch::Listed:
      for (uint32_t set : opt.module_sets) {
        if (set == 0 || (set & ~kAllRecomputeModules) != 0)
          throw Error(SourceLocation{"--recompute-modules", 0, 0, recompute_modules_text(set)}, "a module set must name at least one module",
                      "valid modules: " + recompute_modules_text(kAllRecomputeModules));
        if ((set & ~applicable) != 0)
          throw Error(SourceLocation{"--recompute-modules", 0, 0, recompute_modules_text(set)},
                      "model " + base.model.id + " has no " + recompute_modules_text(set & ~applicable) + " to recompute",
                      "modules of this model: " + recompute_modules_text(applicable));
        add(set);  // sets the stack does not offer are left out, as --recompute modes are
      }
      break;
    case ModuleSearch::Scenario: add(base.train.recompute_modules & applicable); break;
    case ModuleSearch::Ladder: {
      // Cheapest to recompute first: the attention core (Megatron's default), then the
      // memory-bound modules (the norms, the experts' activation), then those with GEMMs (MLA's
      // up projections, small next to the layer's, first). Under flash attention the attention
      // core keeps no scores, so recomputing it saves nothing and costs a second attention
      // forward: it is left off the ladder, which then starts at the norms (every set had held it,
      // and {layernorm} alone, 5% faster where it fits, was never tried; review of 2026-12-04).
      uint32_t set = 0;
      for (uint32_t mod : {kRecomputeCoreAttn, kRecomputeLayerNorm, kRecomputeMoeAct, kRecomputeMlaUpProj, kRecomputeSharedExperts,
                           kRecomputeMlp, kRecomputeMoe}) {
        if ((offered & mod) == 0) continue;
        if (mod == kRecomputeCoreAttn && base.train.flash_attention) continue;
        // The experts' activation also without the norms: it holds most of an MoE layer's
        // recomputable memory, so {moe_act} can fit where {layernorm} does not, without the
        // norms' cost (the cumulative ladder had only {layernorm, moe_act}; review of 2026-12-05).
        // So is a dense model's MLP, which holds most of a dense layer's recomputable memory (review
        // of 2026-12-07: Llama 3 8B at 16k ranked {layernorm, mlp} at 9.079 s where {mlp} alone fit
        // at 9.051 s). Not for an MoE model's few dense layers: its MoE layers hold the memory.
        if ((mod == kRecomputeMoeAct || (mod == kRecomputeMlp && !base.model.moe)) && (set & kRecomputeLayerNorm) != 0)
          add((set & ~kRecomputeLayerNorm) | mod);
        set |= mod;
        add(set);
      }
      // The job's own set, where its plan recomputes selectively (a scenario names modules only
      // then); otherwise training.recompute_modules is the default {core_attn}, which names no
      // plan and under flash attention saves nothing over no recompute. Before 2026-12-06 it was
      // added for every job, so a search without no recompute (--fix recompute=selective) ranked
      // {core_attn} twins of the {layernorm} plans, slower at the same memory (review).
      if (base.train.recompute == Recompute::Selective) add(base.train.recompute_modules & applicable);  // modules the model lacks recompute nothing
      for (uint32_t set : opt.placed_module_sets) add(set & applicable);
      break;
    }
  }
  return out;
}

void check_search_names(const SearchOptions& opt) {
  for (const auto& [k, v] : opt.fixed) {
    const auto& keys = fix_keys();
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      throw Error(SourceLocation{"--fix", 0, 0, k}, "unknown plan dimension '" + k + "'", valid_choices_hint(k, keys));
    (void)v;
  }
  for (const auto& name : opt.schedules)
    if (name != "1f1b" && name != "interleaved-1f1b" && name != "gpipe" && name != "zb-h1" && name != "dualpipev")
      throw Error(SourceLocation{"--schedules", 0, 0, name}, "unknown pipeline schedule '" + name + "'",
                  valid_choices_hint(name, {"1f1b", "interleaved-1f1b", "gpipe", "zb-h1", "dualpipev"}));
}

std::vector<Candidate> enumerate_plans(const Scenario& base, const SearchOptions& opt, size_t* enumerated) {
  check_search_names(opt);
  const auto& m = base.model;
  const StackFeatures& st = opt.stack;
  const int64_t N = base.num_gpus, gb = base.train.global_batch;
  const int L = m.layers, seq = base.train.seq_len;
  const int inter = contains(st.schedules, std::string("interleaved-1f1b")) ? schedule_index(opt, "interleaved-1f1b") : -1;
  // DualPipeV: two chunks per rank in a V (vpp 2), searched when --schedules lists it.
  const int dualv = contains(st.schedules, std::string("dualpipev")) ? schedule_index(opt, "dualpipev") : -1;
  // Non-interleaved schedules allowed; without a pipeline the schedule is irrelevant and the
  // first of them stands for all (the stack's schedules restrict pipelines only).
  std::vector<int> flat, flat_stack;
  for (size_t i = 0; i < opt.schedules.size(); ++i)
    if (opt.schedules[i] != "interleaved-1f1b" && opt.schedules[i] != "dualpipev") {
      flat.push_back(static_cast<int>(i));
      if (contains(st.schedules, opt.schedules[i])) flat_stack.push_back(static_cast<int>(i));
    }
  const bool fp8 = base.train.precision == DType::FP8 && !base.accelerator.has_peak(DType::FP8);
  const bool fp4 = base.train.precision == DType::FP4 && !base.accelerator.has_peak(DType::FP4);
  const std::vector<uint32_t> selective = selective_module_sets(base, opt);
  const std::vector<int16_t> full_layers = full_recompute_candidates(base, opt);
  std::vector<Candidate> out;
  size_t considered = 0;
  if (fp8 || fp4) {
    if (enumerated) *enumerated = 0;
    return out;
  }
  const bool dense_ffn = !m.all_layers_moe();
  // The DP-overlap variants searched, as bits (1: gradient-reduce overlap off, 2: parameter-gather
  // overlap off): on only, both with --vary-dp-overlap, a fixed switch as fixed (before 2026-12-06
  // overlap off was searched only with --vary-dp-overlap, so a sweep could not hold it off; review).
  const int fix_grad = fixed_value(opt, "grad_reduce_overlap"), fix_gather = fixed_value(opt, "param_gather_overlap");
  auto overlap_wanted = [&](int ov) {
    auto bit_wanted = [&](bool off, int fix) { return fix >= 0 ? off == (fix == 0) : opt.vary_overlap_dp || !off; };
    return bit_wanted((ov & 1) != 0, fix_grad) && bit_wanted((ov & 2) != 0, fix_gather);
  };
  for (int tp : divisors(N)) {
    if (!allowed(opt, "tp", tp)) continue;
    if (tp > 1 && !st.tp) continue;
    if (m.heads % tp != 0) continue;
    if (m.kv_heads % tp != 0) continue;  // Megatron-Core splits the query groups over tp (scenario check_plan)
    if (dense_ffn && m.ffn_hidden % tp != 0) continue;  // Megatron's divide() (scenario check_plan)
    for (int cp : divisors(N / tp)) {
      if (!allowed(opt, "cp", cp)) continue;
      if (cp > 1 && !st.cp) continue;
      if (cp > 1 && seq % (2 * static_cast<int64_t>(cp)) != 0) continue;  // in 64 bits: 2 * cp wraps for cp > 2^30
      if (cp > 1 && !base.train.flash_attention) continue;  // ring attention runs on flash attention (scenario check_plan)
      // Ring attention does not run on sliding-window layers (scenario check_plan): gpt-oss's best
      // plan had been a cp 4 plan that estimate refuses (2026-12-04 review).
      if (cp > 1 && m.sliding_window > 0 && static_cast<int64_t>(m.sliding_window) < seq) continue;
      for (int pp : divisors(N / tp / cp)) {
        if (!allowed(opt, "pp", pp)) continue;
        if (pp > 1 && !st.pp) continue;
        if (pp > L) continue;
        const int dp = static_cast<int>(N / tp / cp / pp);
        if (!allowed(opt, "dp", dp)) continue;
        if (gb % dp != 0) continue;
        std::vector<int> eps = {1}, etps = {1};
        if (m.moe) {
          eps.clear();
          for (int e : divisors(m.moe->num_experts)) eps.push_back(e);
          if (tp > 1) etps.push_back(tp);
        }
        for (int ep : eps) {
          if (!allowed(opt, "ep", ep)) continue;
          if (ep > 1 && !st.ep) continue;
          for (int etp : etps) {
            // etp splits the experts at ep 1 too (Megatron's MoE under plain TP: etp = tp); before
            // 2026-12-02 only etp 1 was searched there, each TP rank holding every expert whole.
            if (m.moe && m.moe->expert_ffn_hidden % etp != 0) continue;  // (scenario check_plan)
            if (!allowed(opt, "etp", etp)) continue;
            if (ep > 1 && (static_cast<int64_t>(dp) * tp * cp / etp) % ep != 0) continue;
            // The scenario's own vpp at its pp too, where its stated sizes leave the first or the
            // last virtual stage empty (up to layers + 2 stages).
            const int own_v = pp > 1 && pp == base.plan.pp && !own_stage_layers(base, pp, base.plan.vpp).empty() ? base.plan.vpp : 1;
            const int max_v = pp == 1 ? 1 : (opt.max_vpp > 0 ? std::min(opt.max_vpp, std::max(L / pp, own_v)) : std::max(L / pp, own_v));
            for (int vpp = 1; vpp <= max_v; ++vpp) {
              if (!allowed_at(opt, "vpp", vpp, tp, pp)) continue;
              // The rule's layout, and the scenario's own sizes at its own pp and vpp (review of
              // 2026-12-06): own_layout 0 the rule's, 1 the scenario's.
              const bool rule_lays_out = vpp <= L / pp && layout_for(L, pp * vpp, vpp) != Layout::None;
              const bool own_lays_out = !own_stage_layers(base, pp, vpp).empty();
              if (!rule_lays_out && !own_lays_out) continue;
              if (vpp > 1 && inter < 0 && !(vpp == 2 && dualv >= 0)) continue;
              for (int mb : divisors(gb / dp)) {
                if (!allowed(opt, "mb", mb)) continue;
                if (opt.max_micro_batch > 0 && mb > opt.max_micro_batch) continue;
                const int64_t micro = gb / dp / mb;
                std::vector<int> scheds;
                if (vpp > 1) {
                  if (inter >= 0 && micro % pp == 0) scheds.push_back(inter);
                  if (vpp == 2 && dualv >= 0 && micro >= 2 * static_cast<int64_t>(pp)) scheds.push_back(dualv);
                  if (scheds.empty()) continue;
                } else if (pp == 1) {
                  // No pipeline, no schedule: run as 1f1b whatever --schedules lists (a list of
                  // only pipelined schedules dropped every pp 1 plan before 2026-12-02).
                  scheds = {flat.empty() ? 0 : flat.front()};
                } else scheds = flat_stack;
                // Without the stack's SP, SP is off (also under --sp-only: the stack decides).
                const std::vector<bool> sps = tp > 1 && st.sp ? (opt.vary_sequence_parallel ? std::vector<bool>{true, false} : std::vector<bool>{true})
                                                              : std::vector<bool>{false};
                const std::vector<bool> tpos = tp > 1 && opt.vary_tp_comm_overlap && st.tp_comm_overlap ? std::vector<bool>{false, true}
                                                                                                         : std::vector<bool>{false};
                const int64_t edp = ep > 1 || m.moe ? std::max<int64_t>(1, static_cast<int64_t>(tp) * cp * dp / (static_cast<int64_t>(ep) * etp)) : 1;
                const bool has_dp_group = static_cast<int64_t>(dp) * cp > 1 || edp > 1;
                for (bool sp : sps) {
                  if (!allowed_at(opt, "sp", sp, tp, pp)) continue;
                  if (sp && tp > 1 && (seq % cp != 0 || (seq / cp) % tp != 0)) continue;  // (scenario check_plan)
                  if (!sp && tp > 1 && (ep > 1 || m.moe)) continue;  // Megatron-Core: MoE with TP needs SP (scenario check_plan)
                  for (bool tpo : tpos) {
                    if (!allowed_at(opt, "tp_overlap", tpo, tp, pp)) continue;
                    // TP communication overlap (userbuffers) needs sequence parallelism and a TP
                    // group inside one scale-up domain (it exchanges through NVLink peer memory).
                    if (tpo && (!sp || tp > base.system.scale_up_domain)) continue;
                    for (Recompute rc : opt.recompute) {
                      if (!allowed(opt, "recompute", static_cast<int>(rc))) continue;
                      if (!contains(st.recompute, rc)) continue;
                      for (uint32_t mods : rc == Recompute::Selective ? selective : std::vector<uint32_t>{0})
                      for (int16_t layers : rc == Recompute::Full ? full_layers : std::vector<int16_t>{0})
                      for (int ov = 0; ov < 4; ++ov) {
                        if (!overlap_wanted(ov)) continue;
                        // Without a data-parallel group every stage is the same plan, searched as
                        // ZeRO 0 whatever --zero lists (before 2026-12-03 `--zero 1,2,3` dropped every
                        // such plan: "no valid plan" for a tp8 dp1 job).
                        const std::vector<int> zs = !has_dp_group && !opt.fixed.count("zero") ? std::vector<int>{0} : opt.zero_stages;
                        for (int z : zs) {
                          if (!allowed(opt, "zero", z)) continue;
                          // ZeRO-2 with step sync moves ZeRO-1's bytes and holds its memory: the
                          // same plan twice in the ranking (unless ZeRO-1 is not searched).
                          if (z == 2 && base.plan.zero2_grad_sync == "step" && !opt.fixed.count("zero") &&
                              contains(opt.zero_stages, 1) &&
                              (!has_dp_group || (contains(st.zero_stages, 1) && (pp == 1 || contains(st.pipeline_zero_stages, 1)))))
                            continue;
                          if (!has_dp_group && z != 0 && !opt.fixed.count("zero")) continue;
                          // The stack's ZeRO stages (all equivalent without a data-parallel group).
                          if (has_dp_group && !contains(st.zero_stages, z)) continue;
                          if (has_dp_group && pp > 1 && !contains(st.pipeline_zero_stages, z)) continue;
                          // Overlap the stack lacks is off; under --vary-dp-overlap the variants
                          // that would turn it on are the same plan and skipped.
                          // A switch that does nothing is searched in one form, on, whatever the
                          // stack (which lacks nothing it cannot use) or --fix: the gradient
                          // overlap without a data-parallel group, the gather overlap without one
                          // or at ZeRO 0 (--vary-dp-overlap had ranked each such plan twice,
                          // 2026-12-04 review). Each variant ov that maps to one plan is searched
                          // once: as that plan's own variant where it is wanted, else as the first
                          // wanted one that maps to it.
                          const int idle_bits = (has_dp_group ? 0 : 3) | (z == 0 ? 2 : 0);
                          const int forced = (st.overlap_grad_reduce ? 0 : 1) | (st.overlap_param_gather ? 0 : 2);
                          auto plan_of = [&](int variant) { return (variant | forced) & ~idle_bits; };
                          const int ovs = plan_of(ov);
                          if (ovs != ov) {
                            if (overlap_wanted(ovs)) continue;
                            bool earlier = false;
                            for (int o2 = 0; o2 < ov; ++o2) earlier = earlier || (overlap_wanted(o2) && plan_of(o2) == ovs);
                            if (earlier) continue;
                          }
                          // A switch fixed on stays on: a stack that lacks it is refused by
                          // restrict_to_framework; here it leaves no plan rather than a plan with
                          // the overlap off.
                          if ((fix_grad == 1 && (ovs & 1) != 0) || (fix_gather == 1 && (ovs & 2) != 0)) continue;
                          for (int lay = rule_lays_out ? 0 : 1; lay <= (own_lays_out ? 1 : 0); ++lay)
                          for (int sc : scheds) {
                            ++considered;
                            Candidate c;
                            c.tp = tp;
                            c.pp = pp;
                            c.vpp = vpp;
                            c.dp = dp;
                            c.cp = cp;
                            c.ep = ep;
                            c.etp = etp;
                            c.micro_batch = mb;
                            // Without a data-parallel group every stage is ZeRO 0's plan, written
                            // in its canonical form under a --fix zero too (they had been ranked as
                            // "dp1 zero1", for a stack without ZeRO-1 as well; review of 2026-12-05).
                            c.zero_stage = static_cast<uint8_t>(has_dp_group ? z : 0);
                            c.recompute = static_cast<uint8_t>(rc);
                            c.recompute_modules = static_cast<uint8_t>(mods);
                            c.recompute_layers = layers;
                            c.schedule = static_cast<uint8_t>(sc);
                            c.sequence_parallel = sp;
                            c.tp_comm_overlap = tpo;
                            c.overlap_grad_reduce = (ovs & 1) == 0;
                            c.overlap_param_gather = (ovs & 2) == 0;
                            c.own_layout = lay == 1;
                            out.push_back(c);
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (enumerated) *enumerated = considered;
  return out;
}

// ---------------------------------------------------------------- memory model
namespace {
struct ShapeKey {
  int tp, pp, vpp, cp, ep, etp;
  bool sp;
  int rc, modules, layers;
  bool v_shaped;  // dualpipev: rank r holds stages r and 2p - 1 - r (rank 0 the embedding and the head)
  bool own_layout;  // the scenario's own stage sizes (Candidate::own_layout)
  bool operator==(const ShapeKey& o) const {
    return tp == o.tp && pp == o.pp && vpp == o.vpp && cp == o.cp && ep == o.ep && etp == o.etp && sp == o.sp && rc == o.rc &&
           modules == o.modules && layers == o.layers && v_shaped == o.v_shaped && own_layout == o.own_layout;
  }
};
struct ShapeHash {
  size_t operator()(const ShapeKey& k) const {
    size_t h = 1469598103934665603ull;
    for (int v : {k.tp, k.pp, k.vpp, k.cp, k.ep, k.etp, static_cast<int>(k.sp), k.rc, k.modules, k.layers, static_cast<int>(k.v_shaped), static_cast<int>(k.own_layout)})
      h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};
struct StageMem {
  double dense = 0, expert = 0;
  // One micro-batch's recomputed set per chunk (ir::chunk_recompute_peak_bytes: the loss head's
  // chunk frees its logits before its first recompute; 2026-12-06 review).
  std::vector<double> chunk_rc_per_mb;
  // ZeRO-3's gathered parameters (estimate.cpp stage_memory): the root unit's, and the largest
  // layer's without and with its experts.
  double root = 0, layer_dense = 0, layer_all = 0, layer_expert = 0;
  double root_max = 0;  // the larger of the embedding and the head (released one at a time)
  // The largest weight tensor (ir::largest_weight_elements) of the dense blocks, and with the
  // experts: the least a stack that releases gathered parameters after use must hold.
  double tensor_dense = 0, tensor_all = 0, tensor_expert = 0;
  // The weight elements of its FP8/FP4 GEMMs (lowp_gemm_weight_elements), whose cast copies
  // stage_memory holds where the parameters stay 16-bit (review of 2026-12-06).
  double lowp_weights = 0;
  std::vector<double> chunk_act_per_mb;  // one micro-batch's saved activations per chunk
  std::vector<double> chunk_w_per_mb;    // one micro-batch's weight-pass inputs per chunk (ir::weight_pass_held_bytes)
};
}  // namespace

struct MemoryModel::Impl {
  const Scenario& base;
  const SearchOptions& opt;
  const Estimator& est;
  bool cp_in_key;
  std::unordered_map<ShapeKey, std::vector<StageMem>, ShapeHash> shapes;  // prepare()'s, read-only after it
  // The block forms of full recompute, lowered when the search first asks for one (search() runs
  // on several threads: guarded; an element's address survives a rehash).
  std::shared_mutex block_mu;
  std::unordered_map<ShapeKey, std::vector<StageMem>, ShapeHash> block_forms;

  const std::vector<StageMem>& block_form(const ShapeKey& k) {
    {
      std::shared_lock<std::shared_mutex> lk(block_mu);
      if (auto it = block_forms.find(k); it != block_forms.end()) return it->second;
    }
    std::vector<StageMem> lowered = lower_shape(k);
    std::unique_lock<std::shared_mutex> lk(block_mu);
    return block_forms.try_emplace(k, std::move(lowered)).first->second;
  }

  ShapeKey key(const Candidate& c) const {
    return ShapeKey{c.tp, c.pp, c.vpp, cp_in_key ? c.cp : 1, c.ep, base.model.moe ? c.etp : 1, c.sequence_parallel && c.tp > 1, c.recompute,
                    c.recompute_modules, c.recompute_layers, c.pp > 1 && opt.schedules[c.schedule] == "dualpipev", c.own_layout};
  }
  std::vector<StageMem> lower_shape(const ShapeKey& k) const {
    Scenario s = base;
    Candidate c;
    c.tp = k.tp;
    c.pp = k.pp;
    c.vpp = k.vpp;
    c.cp = k.cp;
    c.ep = k.ep;
    c.etp = k.etp;
    c.dp = std::max<int>(1, static_cast<int>(base.num_gpus / (static_cast<int64_t>(k.tp) * k.pp * k.cp)));
    c.sequence_parallel = k.sp;
    c.recompute = static_cast<uint8_t>(k.rc);
    c.recompute_modules = static_cast<uint8_t>(k.modules);
    c.recompute_layers = static_cast<int16_t>(k.layers);
    c.micro_batch = 1;
    c.schedule = 0;
    c.own_layout = k.own_layout;
    apply_candidate(s, c, opt);
    s.plan.schedule = k.v_shaped ? "dualpipev" : "1f1b";  // the schedule places the stages (lower reads only that)
    const ir::Workload w = ir::lower(s);
    std::vector<StageMem> out;
    for (const auto& st : w.stages) {
      StageMem sm;
      sm.dense = st.params - st.expert_params;
      sm.expert = st.expert_params;
      sm.chunk_act_per_mb.assign(st.chunks.size(), 0.0);
      sm.chunk_w_per_mb.assign(st.chunks.size(), 0.0);
      for (size_t c = 0; c < st.chunks.size(); ++c) sm.chunk_w_per_mb[c] = ir::weight_pass_held_bytes(st.chunks[c]);
      sm.chunk_rc_per_mb.assign(st.chunks.size(), 0.0);
      for (size_t c = 0; c < st.chunks.size(); ++c) sm.chunk_rc_per_mb[c] = ir::chunk_recompute_peak_bytes(st.chunks[c], s.train.recompute == Recompute::Full && s.train.recompute_block);
      for (size_t c = 0; c < st.chunks.size(); ++c)
        for (const auto& b : st.chunks[c].blocks) {
          sm.chunk_act_per_mb[c] += b.activation_bytes * b.count;
          sm.lowp_weights += lowp_gemm_weight_elements(b) * b.count;
          const double dense = b.params - b.expert_params;
          const double t = ir::largest_weight_elements(b, s);
          if (dense > 0) sm.tensor_dense = std::max(sm.tensor_dense, std::min(t, dense));
          if (b.expert_params > 0) sm.tensor_expert = std::max(sm.tensor_expert, std::min(t, b.expert_params));
          sm.tensor_all = std::max(sm.tensor_all, std::min(t, b.params));
          if (ir::is_root_block(b)) {
            sm.root += dense;
            sm.root_max = std::max(sm.root_max, dense);
          } else {
            sm.layer_dense = std::max(sm.layer_dense, dense);
            sm.layer_all = std::max(sm.layer_all, dense + b.expert_params);
            sm.layer_expert = std::max(sm.layer_expert, b.expert_params);
          }
        }
      out.push_back(sm);
    }
    return out;
  }
};

MemoryModel::MemoryModel(const Scenario& base, const SearchOptions& opt, const Estimator& est)
    : impl_(new Impl{base, opt, est, !base.train.flash_attention, {}, {}, {}}) {}
MemoryModel::~MemoryModel() { delete impl_; }

void MemoryModel::prepare(const std::vector<Candidate>& cands) {
  auto add = [&](const Candidate& c) {
    const ShapeKey k = impl_->key(c);
    if (!impl_->shapes.count(k)) impl_->shapes.emplace(k, impl_->lower_shape(k));
  };
  // The block forms search() may cost full recompute as (full_recompute_rungs) are lowered when
  // first asked for (stages()): every count of a chunk's layers, of which a bisection asks a few.
  for (const auto& c : cands) add(c);
}

bool MemoryModel::has(const Candidate& c) const { return impl_->shapes.count(impl_->key(c)) > 0; }

double MemoryModel::bytes(const Candidate& c) const {
  const auto& I = *impl_;
  const std::vector<StageMem>* stages_of = nullptr;
  if (auto it = I.shapes.find(I.key(c)); it != I.shapes.end()) {
    stages_of = &it->second;
  } else if (c.recompute == static_cast<uint8_t>(Recompute::Full) && c.recompute_layers > 0) {
    stages_of = &impl_->block_form(I.key(c));  // a rung of full_recompute_rungs, lowered when first asked for
  } else {
    throw Error("plan: memory shape not prepared for " + describe(c, I.opt, I.base));
  }
  const auto& s = I.base;
  // Same accounting as Estimator::run (estimate.cpp, "Memory of the most loaded rank").
  const double act_scale = I.cp_in_key ? c.micro_batch : static_cast<double>(c.micro_batch) / c.cp;
  const int p = c.pp, v = c.vpp;
  const int64_t m = s.train.global_batch / (static_cast<int64_t>(c.dp) * c.micro_batch);
  const auto& sched = I.est.schedules().get(c.pp > 1 ? I.opt.schedules[c.schedule] : std::string("1f1b"));
  const double dshard = static_cast<double>(c.dp) * c.cp;
  const bool expert_groups = c.ep > 1 || s.model.moe;
  const double eshard = expert_groups ? std::max<int64_t>(1, static_cast<int64_t>(c.tp) * c.cp * c.dp / (static_cast<int64_t>(c.ep) * (c.ep > 1 ? c.etp : std::max(1, c.etp))))
                                      : 1.0;
  const int z = c.zero_stage;
  // As stage_memory (estimate.cpp): fp32/tf32 weights are their own master copy.
  // The moments in training.optimizer_moments (bf16 as DeepSeek-V3 keeps them; 2026-12-06); the
  // rule is TrainingConfig's, shared with stage_memory and goodput (2026-12-07 review).
  const double wbytes = s.train.weight_bytes_per_param(), gbytes = dtype_bytes(s.train.grad_reduce_dtype);
  const double obytes = s.train.optimizer_state_bytes_per_param();
  double worst = 0;
  for (int r = 0; r < p; ++r) {
    const StageMem& st = (*stages_of)[static_cast<size_t>(r)];
    // With the cast weight copies where the parameters stay 16-bit (stage_memory).
    const double w = (z >= 3 ? st.dense / dshard + st.expert / eshard : st.dense + st.expert) * wbytes +
                     st.lowp_weights * weight_cast_bytes_per_element(s, z);
    // ZeRO-2 with step sync holds the full gradients until the step's reduce-scatter (estimate.cpp).
    const bool shard_grads = z >= 3 || (z == 2 && s.plan.zero2_grad_sync == "micro_batch");
    const double g = (shard_grads ? st.dense / dshard + st.expert / eshard : st.dense + st.expert) * gbytes;
    const double o = (z >= 1 ? st.dense / dshard + st.expert / eshard : st.dense + st.expert) * obytes;
    const double act = ir::peak_held_bytes(sched, r, p, v, m, st.chunk_act_per_mb, st.chunk_w_per_mb, st.chunk_rc_per_mb) * act_scale;
    double gathered = 0;
    if (z >= 3) {
      // What is sharded is gathered (estimate.cpp stage_memory).
      const double root = dshard > 1 ? st.root : 0.0, root_max = dshard > 1 ? st.root_max : 0.0;
      const double layer = dshard > 1 ? (eshard > 1 ? st.layer_all : st.layer_dense) : (eshard > 1 ? st.layer_expert : 0.0);
      const double in_flight = s.plan.overlap_param_gather ? 2.0 : 1.0;
      // As estimate: a stack that releases holds the embedding or the head with at most a layer in
      // flight beside it (this had taken the larger of them for each unit in flight: 0.48 GiB more
      // than estimate for Llama 3 8B under DeepSpeed, which pruned a plan estimate fits; review of
      // 2026-12-05).
      const double units = s.plan.zero3_regather_for_recompute ? std::max(in_flight * layer, root_max + (in_flight - 1) * layer)
                                                                : root + in_flight * layer;
      const double tensor = dshard > 1 ? (eshard > 1 ? st.tensor_all : st.tensor_dense) : (eshard > 1 ? st.tensor_expert : 0.0);
      gathered = ir::zero3_resident_elements(units, tensor, s.plan.zero3_max_live_params) * wbytes;
    }
    // Two buckets in flight, together no more than the rank's gradients (as estimate; a full
    // bucket here had pruned small stages that fit, 2026-12-04 review); none under ZeRO-3, which
    // reduces unit by unit (stage_memory; 2026-12-06 review). Only the gradients some collective
    // reduces: the dense ones where dp x cp > 1, the expert ones where the EDP group has more than
    // one rank (as stage_memory since its 2026-12-07 review; mirrored here on 2026-12-07, where the
    // pruning had kept a dp 1 plan's buckets that estimate no longer holds).
    const double reduced = (dshard > 1 ? st.dense : 0.0) + (eshard > 1 ? st.expert : 0.0);
    const double comm = (z >= 3 ? 0.0 : std::min(s.plan.grad_bucket_bytes, reduced)) * gbytes + gathered;
    const double reserve = 2.0 * 1024 * 1024 * 1024;
    worst = std::max(worst, w + g + o + act + comm + reserve);
  }
  return worst;
}

// ---------------------------------------------------------------- search
namespace {
// Two candidates lower to the same workload when they differ only in the pipeline schedule
// within one lowering class (lower reads only whether the schedule is dualpipev, whose V places
// the stages, and whether it defers weight gradients, which decides where a column-parallel
// GEMM's backward TP reduction can hide: sched_class) or between ZeRO stages 1 and 2 when ZeRO-2 synchronises
// once per step (same collectives and optimizer shard; only the memory accounting, done by the
// estimator, differs). ZeRO-2 with micro_batch sync reduce-scatters every micro-batch: its own.
bool same_lowering(const Candidate& a, const Candidate& b, bool zero2_per_micro_batch, const std::vector<int8_t>& sched_class) {
  auto zclass = [&](int z) { return z == 0 ? 0 : z == 3 ? 2 : (z == 2 && zero2_per_micro_batch) ? 3 : 1; };
  return sched_class[static_cast<size_t>(a.schedule)] == sched_class[static_cast<size_t>(b.schedule)] && a.tp == b.tp && a.pp == b.pp && a.vpp == b.vpp && a.dp == b.dp && a.cp == b.cp && a.ep == b.ep && a.etp == b.etp &&
         a.micro_batch == b.micro_batch && zclass(a.zero_stage) == zclass(b.zero_stage) && a.recompute == b.recompute &&
         a.recompute_modules == b.recompute_modules && a.recompute_layers == b.recompute_layers && a.sequence_parallel == b.sequence_parallel && a.tp_comm_overlap == b.tp_comm_overlap &&
         a.overlap_grad_reduce == b.overlap_grad_reduce && a.overlap_param_gather == b.overlap_param_gather && a.own_layout == b.own_layout;
}
}  // namespace

SearchOutcome search(const Scenario& base, const SearchOptions& opt, const Estimator& est, const Distribution& dist,
                     const Progress& progress) {
  SearchOutcome out;
  out.candidates = enumerate_plans(base, opt, &out.enumerated);
  out.valid = out.candidates.size();
  const size_t n = out.candidates.size();
  if (n > UINT32_MAX) throw Error("plan: more than 2^32 candidate plans; fix some dimensions with --fix");
  const double capacity = base.accelerator.memory_bytes.value - opt.min_headroom_bytes;
  if (!(capacity > 0))
    throw Error(SourceLocation{"--headroom-gib", 0, 0, ""},
                "leaves no memory: " + format_double(std::round(gib(opt.min_headroom_bytes) * 100) / 100) + " GiB of headroom on " +
                    base.accelerator.id + "'s " + format_double(std::round(gib(base.accelerator.memory_bytes.value) * 100) / 100) + " GiB",
                "give less headroom than the GPU's memory");
  // Lowering class of each searched schedule (same_lowering): dualpipev 2 (its V placement and
  // expert all-to-all overlap), another schedule deferring weight gradients 1, the rest 0.
  std::vector<int8_t> sched_class;
  for (const auto& name : opt.schedules)
    sched_class.push_back(name == "dualpipev" ? 2 : est.schedules().get(name).splits_weight_gradient() ? 1 : 0);

  MemoryModel mem(base, opt, est);
  mem.prepare(out.candidates);
  const std::vector<uint32_t> selective = selective_module_sets(base, opt);
  const std::vector<int16_t> full_layers = full_recompute_candidates(base, opt);

  const int size = std::max(1, dist.size), rank = std::clamp(dist.rank, 0, size - 1);
  const size_t lo = n * static_cast<size_t>(rank) / static_cast<size_t>(size);
  const size_t hi = n * static_cast<size_t>(rank + 1) / static_cast<size_t>(size);
  std::vector<PlanEval> local(hi - lo);

  int threads = opt.threads > 0 ? opt.threads : usable_cpus();
  threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(1, (hi - lo + 255) / 256)));
  out.threads = threads;
  std::atomic<size_t> next{lo}, done{0};
  constexpr size_t kChunk = 256;
  std::mutex err_mu;
  std::exception_ptr err;
  std::atomic<bool> failed{false};
  const auto t0 = std::chrono::steady_clock::now();

  bool none_searched = false;
  for (const auto& c : out.candidates) none_searched = none_searched || c.recompute == static_cast<uint8_t>(Recompute::None);
  auto worker = [&] {
    const CNumericLocale c_numbers;
    try {
      Scenario s = base;  // this thread's scratch copy: only the plan fields change
      std::optional<ir::Workload> w;
      Candidate w_cand;
      while (true) {
        const size_t start = next.fetch_add(kChunk);
        if (start >= hi) break;
        const size_t end = std::min(hi, start + kChunk);
        for (size_t i = start; i < end; ++i) {
          const Candidate& c = out.candidates[i];
          PlanEval& e = local[i - lo];
          e.index = static_cast<uint32_t>(i);
          e.memory_bytes = mem.bytes(c);
          // Full recompute of every layer is costed as the fewest layers per chunk that fit (below),
          // so its memory here is the least of its forms: the every-layer form or the most layers
          // of the rungs (memory falls as N grows), whichever needs less. (Review of 2026-12-06: the
          // every-layer form alone was weighed, which can need more than block n-1, so a plan that
          // fits as block 31 was pruned under --headroom-gib and the "least any plan needs" note
          // named the every-layer figure.)
          std::vector<int16_t> rungs;
          if (c.recompute == static_cast<uint8_t>(Recompute::Full) && c.recompute_layers >= 0) {
            rungs = full_recompute_rungs(base, opt, c.pp, c.vpp);
            if (c.recompute_layers == 0)
              for (int16_t v : full_layers)
                if (v > 0 && std::find(rungs.begin(), rungs.end(), v) == rungs.end()) rungs.push_back(v);
            std::sort(rungs.begin(), rungs.end());
            // The own block form's candidate tries only the rungs below it (more memory than its own).
            if (c.recompute_layers > 0) rungs.erase(std::lower_bound(rungs.begin(), rungs.end(), c.recompute_layers), rungs.end());
          }
          if (c.recompute_layers == 0 && !rungs.empty() && e.memory_bytes > capacity * (1 + 1e-9)) {
            Candidate d = c;
            d.recompute_layers = rungs.back();
            if (const double most = mem.bytes(d); most < e.memory_bytes) {
              e.memory_bytes = most;
              e.recompute_layers = rungs.back();  // the plan's least-memory form, as the pruned plan reads
            }
          }
          if (e.memory_bytes > capacity * (1 + 1e-9)) {
            e.status = 1;
            continue;
          }
          e.recompute_layers = 0;
          // Dominated: the same plan with a subset of these recompute modules fits, and
          // recomputing more never takes less time.
          if (c.recompute == static_cast<uint8_t>(Recompute::Selective)) {
            bool dominated = false;
            for (uint32_t sub : selective) {
              if (sub == c.recompute_modules || (sub & ~static_cast<uint32_t>(c.recompute_modules)) != 0) continue;
              Candidate d = c;
              d.recompute_modules = static_cast<uint8_t>(sub);
              if (mem.bytes(d) <= capacity * (1 - 1e-9)) {  // fits for sure (the final fit test is <= capacity)
                dominated = true;
                break;
              }
            }
            // No recompute at all is the smallest subset: where it fits (and was searched), any
            // selective set is dominated (before 2026-12-02 such plans were ranked, 3% slower at
            // the same memory).
            if (!dominated && none_searched) {
              Candidate d = c;
              d.recompute = static_cast<uint8_t>(Recompute::None);
              d.recompute_modules = 0;
              if (mem.has(d) && mem.bytes(d) <= capacity * (1 - 1e-9)) dominated = true;
            }
            if (dominated) {
              e.status = 3;
              continue;
            }
          }
          // Full recompute of every layer becomes full recompute of the fewest layers per chunk
          // (block N, the rungs of full_recompute_rungs) that fit: recomputing fewer layers never
          // takes more time. The scenario's own block form, enumerated on its own, is dominated
          // by a smaller rung that fits (and stands for the rung it equals).
          // Full recompute (every layer or a block form) where the same plan fits without
          // recompute: dominated, as a selective set is (before 2026-12-03 such twins were ranked:
          // 4,547 of 19,189 fitting plans of a 64-GPU Llama 70B search, two of the top ten).
          if (c.recompute == static_cast<uint8_t>(Recompute::Full) && none_searched) {
            Candidate d = c;
            d.recompute = static_cast<uint8_t>(Recompute::None);
            d.recompute_modules = 0;
            d.recompute_layers = 0;
            if (mem.has(d) && mem.bytes(d) <= capacity * (1 - 1e-9)) {
              e.status = 3;
              continue;
            }
          }
          Candidate as = c;  // the plan costed for this candidate
          if (!rungs.empty()) {
            // Fewest layers first: the rungs (every count below the chunk's size) and, for the
            // every-layer candidate, the scenario's own block form (enumerated), which then stands
            // for this plan. Memory falls as N grows: bisect for the fewest that fit, checking
            // memory only, and cost that one.
            auto fits_at = [&](size_t k) {
              Candidate d = c;
              d.recompute_layers = rungs[k];
              return mem.bytes(d) <= capacity * (1 - 1e-9);
            };
            size_t lo_k = 0, hi_k = rungs.size();  // fewest fitting in [lo_k, hi_k]; hi_k: none
            if (!fits_at(rungs.size() - 1)) lo_k = hi_k;
            else hi_k = rungs.size() - 1;
            while (lo_k < hi_k) {
              const size_t mid = lo_k + (hi_k - lo_k) / 2;
              if (fits_at(mid)) hi_k = mid;
              else lo_k = mid + 1;
            }
            const int16_t fits = hi_k < rungs.size() ? rungs[hi_k] : 0;
            const bool own_form = std::find(full_layers.begin(), full_layers.end(), fits) != full_layers.end();
            if (fits != 0 && (c.recompute_layers > 0 || own_form)) {
              e.status = 3;  // dominated (the own form's candidate stands for this rung)
              continue;
            }
            if (fits != 0) {
              as.recompute_layers = fits;
              e.recompute_layers = fits;
            }
          }
          // Candidates that lower to the same workload (same_lowering) share one lowering.
          const bool reuse = w && same_lowering(w_cand, as, base.plan.zero2_grad_sync == "micro_batch", sched_class);
          if (as.own_layout) s.plan.stage_layers = base.plan.stage_layers;  // (apply_candidate cleared them for the rule's plans)
          apply_candidate(s, as, opt);
          if (reuse) {
            w->schedule = s.plan.schedule;
          } else {
            w.emplace(ir::lower(s));
          }
          w_cand = as;  // the plan whose lowering w holds (or shares)
          const StepEstimate r = est.run(*w);
          e.step_time_s = r.step_time_s;
          e.tokens_per_s_per_gpu = r.tokens_per_s_per_gpu;
          e.mfu_fraction = r.mfu_fraction;
          e.memory_bytes = r.memory.total_bytes();
          e.compute_s = r.compute_s;
          e.exposed_comm_s = r.exposed_comm_s;
          e.bubble_s = r.bubble_s;
          e.optimizer_s = r.optimizer_s;
          e.status = e.memory_bytes <= capacity ? 0 : 2;
        }
        done.fetch_add(end - start);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lk(err_mu);
      if (!err) err = std::current_exception();
      next.store(hi);
      failed.store(true);
    }
  };
  // Workers take candidates from one counter: a thread that cannot be started (a process or
  // memory limit) leaves its share to the others, and runs on this thread in join() if none
  // started (before 2026-12-03 a failed start terminated the process, a Python one too).
  if (progress) {
    // All workers on threads; the calling thread reports progress until they are done.
    Workers pool(0, threads, [&](int) { worker(); });
    while (pool.started() > 0 && done.load() < hi - lo && !failed.load()) {
      progress(done.load(), hi - lo);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pool.join();
  } else {
    run_workers(threads, [&](int) { worker(); });
  }
  if (err) std::rethrow_exception(err);
  if (progress) progress(hi - lo, hi - lo);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Gather and put every evaluation in its slot.
  std::vector<PlanEval> all = size > 1 && dist.gather ? dist.gather(local) : local;
  if (size > 1 && !dist.gather) throw Error("plan: a distributed search needs a gather function");
  out.evals.assign(n, PlanEval{});
  std::vector<char> seen(n, 0);
  for (const auto& e : all) {
    if (e.index >= n) throw Error("plan: gathered an evaluation for an unknown plan index " + std::to_string(e.index));
    out.evals[e.index] = e;
    seen[e.index] = 1;
  }
  for (size_t i = 0; i < n; ++i)
    if (!seen[i]) throw Error("plan: plan " + std::to_string(i) + " was not evaluated by any process");
  // Full recompute of every layer replaced by the fewest layers that fit (the worker above).
  out.replaced.assign(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (out.evals[i].recompute_layers != 0) {
      out.candidates[i].recompute_layers = out.evals[i].recompute_layers;
      out.replaced[i] = 1;
    }
  for (const auto& e : out.evals) {
    if (e.status == 1) ++out.pruned;
    else if (e.status == 3) ++out.dominated;
    else ++out.evaluated;
    if (e.status == 0) {
      ++out.fit;
      out.ranking.push_back(e.index);
    }
  }
  std::sort(out.ranking.begin(), out.ranking.end(), [&](uint32_t a, uint32_t b) {
    const double ta = out.evals[a].step_time_s, tb = out.evals[b].step_time_s;
    return ta != tb ? ta < tb : a < b;
  });
  // Times equal to a relative kSameStepTimeFraction are one time, ranked in enumeration order
  // (docs/plan.md): two executions of one plan (1f1b and gpipe over one micro-batch) had differed
  // by 2e-16 s of summation order and ranked by that (review of 2026-12-07). A comparator with a
  // tolerance is no strict weak ordering, so the exact order is regrouped: each run of times within
  // the tolerance of its first member is put in index order.
  for (size_t a = 0; a < out.ranking.size();) {
    size_t b = a + 1;
    while (b < out.ranking.size() && same_step_time(out.evals[out.ranking[b]].step_time_s, out.evals[out.ranking[a]].step_time_s)) ++b;
    std::sort(out.ranking.begin() + static_cast<std::ptrdiff_t>(a), out.ranking.begin() + static_cast<std::ptrdiff_t>(b));
    a = b;
  }
  return out;
}

int64_t find_plan(const SearchOutcome& out, const Candidate& own, bool moe, bool* replaced) {
  for (size_t i = 0; i < out.candidates.size(); ++i) {
    Candidate c = out.candidates[i];
    const bool r = i < out.replaced.size() && out.replaced[i];
    if (r) c.recompute_layers = 0;  // enumerated as full recompute of every layer
    if (same_plan(c, own, moe)) {
      if (replaced) *replaced = r;
      return static_cast<int64_t>(i);
    }
  }
  if (replaced) *replaced = false;
  return -1;
}

// ---------------------------------------------------------------- result
namespace {
void add_plan_columns(Table& t) {
  t.add_str("plan");
  for (const char* c : {"tp", "pp", "vpp", "dp", "cp", "ep", "etp", "micro_batch", "zero_stage"}) t.add_i64(c);
  t.add_str("sequence_parallel");
  t.add_str("tp_comm_overlap");
  t.add_str("recompute");
  t.add_str("recompute_modules");
  // Full recompute's method and layer count and the stage layout, as the scenario keys
  // training.recompute_method / recompute_num_layers and parallel.stage_rule / stage_layers
  // (plan_keys; review of 2026-12-07: rc:full(block 28) and layers 10/11/11 were in the plan text
  // only, so the columns named another plan).
  t.add_str("recompute_method");
  t.add_i64("recompute_num_layers");
  t.add_str("schedule");
  t.add_str("stage_rule");
  t.add_str("stage_layers");
  // The DP overlaps, which --vary-dp-overlap varies (rows had differed only in their plan text,
  // 2026-12-04 review).
  t.add_str("grad_reduce_overlap");
  t.add_str("param_gather_overlap");
  // The attention the search ran every plan with (training.flash_attention and
  // attention_peak_fraction, 0: no kernel cap), which --any-framework-feature can change from the
  // scenario's (searched_stack_changes): review of 2026-12-07, rows of a megatron-lm-2022 job
  // searched with flash attention did not map back (2.117 s from the columns, 1.492 s in the table).
  t.add_str("flash_attention");
  t.add_f64("attention_peak_fraction");
}
void add_plan_values(std::vector<Value>& row, const Candidate& c, const SearchOptions& opt, const Scenario& base) {
  row.emplace_back(describe(c, opt, base));
  for (int v : {c.tp, c.pp, c.vpp, c.dp, c.cp, c.ep, c.etp, c.micro_batch, static_cast<int>(c.zero_stage)}) row.emplace_back(int64_t{v});
  row.emplace_back(std::string(c.sequence_parallel ? "true" : "false"));
  row.emplace_back(std::string(c.tp_comm_overlap ? "true" : "false"));
  row.emplace_back(to_string(static_cast<Recompute>(c.recompute)));
  row.emplace_back(recompute_modules_text(c.recompute_modules));
  const PlanKeys k = plan_keys(c, base);
  row.emplace_back(k.recompute_method);
  row.emplace_back(int64_t{k.recompute_num_layers});
  // The schedule apply_candidate writes (1f1b without a pipeline, where every schedule is the same
  // plan): the column had read "none", which no scenario accepts (review of 2026-12-07).
  row.emplace_back(c.pp > 1 ? opt.schedules[c.schedule] : std::string("1f1b"));
  row.emplace_back(k.stage_rule);
  std::string layers;  // as the plan text writes them: "10/11/11"
  for (size_t i = 0; i < k.stage_layers.size(); ++i) layers += (i ? "/" : "") + std::to_string(k.stage_layers[i]);
  row.emplace_back(layers);
  row.emplace_back(std::string(c.overlap_grad_reduce ? "true" : "false"));
  row.emplace_back(std::string(c.overlap_param_gather ? "true" : "false"));
  row.emplace_back(std::string(base.train.flash_attention ? "true" : "false"));
  row.emplace_back(base.train.attention_peak_fraction);
}
}  // namespace

namespace {
// A figure for a note: three decimals, no binary-representation tail ("3.8899999999999997").
std::string fixed3(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string comma_list(const std::vector<int64_t>& v) {
  std::string out;
  for (int64_t x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

// no_valid_plan_text's rules of the layer split, the batch split and the expert group: a fixed
// pp beyond the layers, a pp x vpp with no stage layout, a dp that does not divide the batch, a
// micro-batch that divides no data-parallel rank's share of it, an interleaved pipeline without a
// multiple of pp micro-batches, an ep that divides no group of ranks (review of 2026-12-06:
// `--fix pp=64` on 32 layers, dp=128 on a batch of 64, mb=3, pp=2 with vpp=64, ep=32 on 16 GPUs
// had read as the generic list). Each is a rule enumerate_plans applies, tested against every value
// the dimensions left free could take, so a value named here leaves no plan whatever they are.
// Called once the fixed tp x pp x dp x cp divides the GPUs; "" when none of these is broken.
std::string layer_and_batch_split_text(const Scenario& base, const SearchOptions& opt) {
  const auto& m = base.model;
  const std::string fix = opt.python_names ? "fix " : "--fix ";
  const int64_t N = base.num_gpus, gb = base.train.global_batch;
  const int L = m.layers;
  auto fixed_of = [&](const char* k) { return std::max(0, fixed_value(opt, k)); };
  const int pp = fixed_of("pp"), vpp = fixed_of("vpp"), dp = fixed_of("dp"), mb = fixed_of("mb"), ep = fixed_of("ep"), etp = fixed_of("etp");
  // The GPUs left to one of tp, cp, pp, dp once the others' fixed degrees take theirs.
  auto left_for = [&](const std::string& key) {
    int64_t n = N;
    for (const char* k : {"tp", "cp", "pp", "dp"})
      if (k != key && fixed_of(k) > 0 && n % fixed_of(k) == 0) n /= fixed_of(k);
    return n;
  };
  auto divisors_where = [](int64_t n, const std::function<bool(int64_t)>& keep) {
    std::vector<int64_t> out;
    for (int d : divisors(n))
      if (keep(d)) out.push_back(d);
    return out;
  };
  if (pp > L)
    return fix + "pp=" + std::to_string(pp) + " exceeds " + m.id + "'s " + std::to_string(L) +
           " layers: each pipeline stage holds at least one layer (valid: the divisors of the " + std::to_string(left_for("pp")) +
           " GPUs up to " + std::to_string(L) + ", " + comma_list(divisors_where(left_for("pp"), [&](int64_t d) { return d <= L; })) + ")";
  // The stage layout (layout_for): pp x vpp virtual stages of at least one layer each, dividing the
  // layers, or the layers + 2 (one layer fewer on the first and last stage) when vpp > 1.
  // The scenario's own stage_layers lay out its own pp and vpp too (own_stage_layers; review of
  // 2026-12-06: `--fix pp=16 --fix vpp=2` on DeepSeek-V3's own dualpipev plan was refused here).
  auto layout_ok = [&](int p, int64_t v) {
    return v == 1 || (v <= L / p && layout_for(L, static_cast<int>(p * v), static_cast<int>(v)) != Layout::None) ||
           (v <= INT32_MAX && !own_stage_layers(base, p, static_cast<int>(v)).empty());
  };
  if (pp > 1 && vpp > 1 && !layout_ok(pp, vpp)) {
    std::vector<int64_t> valid;
    for (int64_t v = 1; v <= std::max<int64_t>(L / pp, pp == base.plan.pp ? base.plan.vpp : 1); ++v)
      if (layout_ok(pp, v)) valid.push_back(v);
    return fix + "pp=" + std::to_string(pp) + " with vpp=" + std::to_string(vpp) + ": " + std::to_string(int64_t{pp} * vpp) +
           " virtual pipeline stages (pp x vpp) for " + m.id + "'s " + std::to_string(L) +
           " layers; each holds at least one layer, and pp x vpp divides the layers, or the layers + 2 (one layer fewer on the first "
           "and last stage), or they are the scenario's own pp and vpp with its parallel.stage_layers (valid vpp at pp " + std::to_string(pp) + ": " + comma_list(valid) + ")";
  }
  if (dp > 0 && gb % dp != 0)
    return fix + "dp=" + std::to_string(dp) + " does not divide the global batch of " + std::to_string(gb) +
           " sequences: each data-parallel rank takes an equal share (valid: the common divisors of the batch and the " +
           std::to_string(left_for("dp")) + " GPUs, " + comma_list(divisors_where(std::gcd(gb, left_for("dp")), [](int64_t) { return true; })) + ")";
  // The data-parallel degrees possible: the fixed one, or each divisor of the GPUs left that
  // divides the batch.
  const std::vector<int64_t> dps = dp > 0 ? std::vector<int64_t>{dp} : divisors_where(left_for("dp"), [&](int64_t d) { return gb % d == 0; });
  const std::string dps_text = "dp " + comma_list(dps);
  auto mb_allowed = [&](int64_t x) { return opt.max_micro_batch <= 0 || x <= opt.max_micro_batch; };
  if (mb > 0 && std::none_of(dps.begin(), dps.end(), [&](int64_t d) { return (gb / d) % mb == 0; })) {
    std::vector<int64_t> valid;
    for (int64_t d : dps)
      for (int x : divisors(gb / d))
        if (mb_allowed(x) && !contains(valid, int64_t{x})) valid.push_back(x);
    std::sort(valid.begin(), valid.end());
    return fix + "mb=" + std::to_string(mb) + " does not divide a data-parallel rank's share of the batch of " + std::to_string(gb) +
           " sequences (" + std::to_string(gb) + " / dp, at " + dps_text + ") (valid: " + comma_list(valid) + ")";
  }
  // An interleaved pipeline runs a multiple of pp micro-batches a step; DualPipeV (vpp 2) at least
  // 2 pp (enumerate_plans' schedules).
  const bool inter = contains(opt.stack.schedules, std::string("interleaved-1f1b")) && schedule_index(opt, "interleaved-1f1b") >= 0;
  const bool dualv = vpp == 2 && contains(opt.stack.schedules, std::string("dualpipev")) && schedule_index(opt, "dualpipev") >= 0;
  if (pp > 1 && vpp > 1 && (inter || dualv)) {
    // The dp sizes named are those a micro-batch count comes from: with a fixed mb only those whose
    // share it divides (review of 2026-12-07: `--fix mb=8` on a batch of 16 named dp 1, 2, 4, 8,
    // where dp 4 and 8 leave shares of 4 and 2, which mb 8 does not divide).
    std::vector<int64_t> micros, from;
    for (int64_t d : dps)
      for (int x : divisors(gb / d))
        if ((mb == 0 || x == mb) && mb_allowed(x)) {
          if (!contains(micros, gb / d / x)) micros.push_back(gb / d / x);
          if (!contains(from, d)) from.push_back(d);
        }
    std::sort(micros.begin(), micros.end());
    const bool any = std::any_of(micros.begin(), micros.end(), [&](int64_t k) { return (inter && k % pp == 0) || (dualv && k >= 2 * int64_t{pp}); });
    if (!any && !micros.empty())
      return fix + "pp=" + std::to_string(pp) + " with vpp=" + std::to_string(vpp) + ": " +
             (inter ? "the interleaved schedule runs a multiple of pp (" + std::to_string(pp) + ") micro-batches a step" : std::string()) +
             (inter && dualv ? ", and " : "") + (dualv ? "DualPipeV at least 2 pp (" + std::to_string(2 * pp) + ")" : std::string()) +
             ", and the batch of " + std::to_string(gb) + " sequences / dp / mb gives " + comma_list(micros) + " (at dp " + comma_list(from) +
             (mb > 0 ? ", mb " + std::to_string(mb) : std::string()) + ")";
  }
  // The expert-parallel group is drawn from the dp x tp x cp ranks of a stage (divided by etp):
  // N / pp of them, pp fixed or set by the other three, else at most N (each divides N).
  if (m.moe && ep > 1) {
    const bool pp_known = pp > 0 || (fixed_of("tp") > 0 && fixed_of("cp") > 0 && dp > 0);
    const int64_t ranks = pp > 0 ? N / pp : pp_known ? int64_t{fixed_of("tp")} * fixed_of("cp") * dp : N;
    const int64_t e = std::max(1, etp);
    if (ranks % (int64_t{ep} * e) != 0)
      return fix + "ep=" + std::to_string(ep) + (etp > 1 ? " with etp=" + std::to_string(etp) + ": ep x etp = " + std::to_string(ep * e) : std::string()) +
             " does not divide the " + std::to_string(ranks) + " dp x tp x cp ranks of a pipeline stage" +
             (pp_known ? " (the " + std::to_string(N) + " GPUs / pp " + std::to_string(N / ranks) + ")" : " (at most the " + std::to_string(N) + " GPUs, at pp 1)") +
             ", which the expert-parallel group is drawn from (valid" + (etp > 1 ? " ep" : "") + ": the common divisors of " +
             m.id + "'s " + std::to_string(m.moe->num_experts) + " experts and " + std::to_string(ranks / e) + ", " +
             comma_list(divisors_where(std::gcd(int64_t{m.moe->num_experts}, ranks / e), [](int64_t) { return true; })) + ")";
  }
  return "";
}

// Whether the search would hold a cp > 1 plan were flash attention on: a tp and a cp > 1 that pass
// enumerate_plans' other tp and cp rules, with a pp and a dp that pass theirs (review of
// 2026-12-07: without flash attention cp > 1 was dropped without a word, and `--fix cp=2` read as
// the generic list).
bool cp_wants_flash_attention(const Scenario& base, const SearchOptions& opt) {
  const auto& m = base.model;
  const StackFeatures& st = opt.stack;
  if (base.train.flash_attention || !st.cp) return false;
  const int64_t N = base.num_gpus, gb = base.train.global_batch, seq = base.train.seq_len;
  if (m.sliding_window > 0 && static_cast<int64_t>(m.sliding_window) < seq) return false;  // no ring attention there either
  const bool dense_ffn = !m.all_layers_moe();
  for (int tp : divisors(N)) {
    if (!allowed(opt, "tp", tp) || (tp > 1 && !st.tp) || m.heads % tp != 0 || m.kv_heads % tp != 0 || (dense_ffn && m.ffn_hidden % tp != 0)) continue;
    for (int cp : divisors(N / tp)) {
      if (cp == 1 || !allowed(opt, "cp", cp) || seq % (2 * static_cast<int64_t>(cp)) != 0) continue;
      for (int pp : divisors(N / tp / cp)) {
        if (!allowed(opt, "pp", pp) || (pp > 1 && !st.pp) || pp > m.layers) continue;
        const int64_t dp = N / tp / cp / pp;
        if (dp <= std::numeric_limits<int>::max() && allowed(opt, "dp", static_cast<int>(dp)) && gb % dp == 0) return true;
      }
    }
  }
  return false;
}

// The flash-attention rule of ring attention, in estimate's words (scenario check_plan).
std::string cp_flash_attention_text(const SearchOptions& opt) {
  return "context parallelism (ring attention) runs on flash attention, but training.flash_attention is false" +
         std::string(opt.stack.restricted() && !opt.stack.flash_attention ? " (framework " + opt.stack.framework + " has no flash attention)" : "");
}
}  // namespace

std::string no_valid_plan_text(const Scenario& base, const SearchOptions& opt) {
  // A fixed value that breaks a rule on its own is named first (--fix tp=16 on a model of 8 KV
  // heads had read as the generic list; 2026-12-05 review).
  std::string why;
  const auto& m = base.model;
  auto divisors = [](int64_t n) {
    std::string d;
    for (int64_t k = 1; k <= n; ++k)
      if (n % k == 0) d += (d.empty() ? "" : ", ") + std::to_string(k);
    return d;
  };
  const std::string fix = opt.python_names ? "fix " : "--fix ";
  if (auto it = opt.fixed.find("tp"); it != opt.fixed.end() && it->second > 0) {
    const int tp = it->second;
    // The valid tp pass every tp rule enumerate_plans applies: it divides the heads, the KV heads,
    // a dense FFN's width and the GPUs the other fixed degrees leave. Before 2026-12-07 the heads'
    // message listed the heads' divisors alone (review: `--fix tp=3` offered 16 and 32, refused
    // next for llama3-8b's 8 KV heads, and tp=6 on 8 GPUs offered 16 and 32 GPUs' worth).
    const bool dense_ffn = !m.all_layers_moe();
    int64_t gpus = base.num_gpus;
    for (const char* k : {"cp", "pp", "dp"})
      if (const int v = fixed_value(opt, k); v > 0 && gpus % v == 0) gpus /= v;
    const int64_t heads_kv = m.kv_heads > 0 ? std::gcd(m.heads, m.kv_heads) : m.heads;
    const int64_t with_ffn = dense_ffn ? std::gcd(heads_kv, static_cast<int64_t>(m.ffn_hidden)) : heads_kv;
    const int64_t valid_gcd = std::gcd(with_ffn, gpus);
    // Named: the heads and KV heads always, the FFN width and the GPUs where they narrow the list.
    std::vector<std::string> of = {"heads", "KV heads"};
    if (with_ffn < heads_kv) of.push_back("FFN width");
    if (valid_gcd < with_ffn)
      of.push_back("the " + std::to_string(gpus) + " GPUs" + (gpus < base.num_gpus ? std::string(" the other fixed degrees leave") : std::string()));
    std::string of_text = "its ";
    for (size_t k = 0; k < of.size(); ++k) of_text += (k == 0 ? "" : k + 1 == of.size() ? " and " : ", ") + of[k];
    const std::string valid = " (valid: the common divisors of " + of_text + ", " + divisors(valid_gcd) + ")";
    if (m.heads % tp != 0)
      why = fix + "tp=" + std::to_string(tp) + " does not divide " + m.id + "'s " + std::to_string(m.heads) + " attention heads" + valid;
    else if (m.kv_heads > 0 && m.kv_heads % tp != 0)
      why = fix + "tp=" + std::to_string(tp) + " does not divide " + m.id + "'s " + std::to_string(m.kv_heads) + " KV heads" + valid;
    else if (dense_ffn && m.ffn_hidden % tp != 0)
      why = fix + "tp=" + std::to_string(tp) + " does not divide " + m.id + "'s FFN width of " + std::to_string(m.ffn_hidden) +
            " (Megatron splits it over tp)" + valid;
  }
  // The expert dimensions (review of 2026-12-05: --fix ep=3 on Mixtral's 8 experts, ep on a dense
  // model, etp neither 1 nor tp, and tp > 1 without SP on an MoE model read as the generic list).
  auto fixed_of = [&](const char* k) {
    const auto it = opt.fixed.find(k);
    return it != opt.fixed.end() ? it->second : 0;
  };
  const int ep = fixed_of("ep"), etp = fixed_of("etp"), tpf = fixed_of("tp");
  if (why.empty() && (ep > 1 || etp > 1) && !m.moe)
    why = fix + (ep > 1 ? "ep=" + std::to_string(ep) : "etp=" + std::to_string(etp)) + ": " + m.id +
          " is a dense model (no experts to spread): only " + (ep > 1 ? "ep" : "etp") + "=1";
  if (why.empty() && ep > 0 && m.moe && m.moe->num_experts % ep != 0)
    why = fix + "ep=" + std::to_string(ep) + " does not divide " + m.id + "'s " + std::to_string(m.moe->num_experts) +
          " experts (valid: " + divisors(m.moe->num_experts) + ")";
  if (why.empty() && etp > 1 && tpf > 0 && etp != tpf)
    why = fix + "etp=" + std::to_string(etp) + " with tp " + std::to_string(tpf) + ": the expert tensor parallelism is 1 or tp";
  if (why.empty() && m.moe && tpf > 1)
    if (auto it = opt.fixed.find("sp"); it != opt.fixed.end() && it->second == 0)
      why = fix + "sp=false with tp " + std::to_string(tpf) + ": an MoE model needs sequence parallelism when tp > 1 (Megatron-Core)";
  // TP overlap fixed on with SP fixed off: Megatron-Core's rule, in estimate's words (scenario
  // check_plan), where before 2026-12-06 the generic list named no rule (review). At tp 1 neither
  // does anything (idle_fix), so the error comes only where no tp 1 plan is left either.
  if (why.empty() && fixed_value(opt, "tp_overlap") == 1 && fixed_value(opt, "sp") == 0)
    why = fix + "tp_overlap=true with sp=false: TP communication overlap needs sequence parallelism (it overlaps SP's all-gathers and "
                "reduce-scatters) when tp > 1" +
          std::string(tpf > 1 ? ", and tp is fixed at " + std::to_string(tpf) : ", and the other constraints leave no tp 1 plan, where neither does anything");
  // TP overlap exchanges through NVLink peer memory: the TP group stays inside a scale-up domain.
  if (why.empty() && fixed_value(opt, "tp_overlap") == 1 && tpf > base.system.scale_up_domain)
    why = fix + "tp_overlap=true with tp " + std::to_string(tpf) + ": TP communication overlap needs the TP group inside one scale-up domain (" +
          std::to_string(base.system.scale_up_domain) + " GPUs on " + base.system.id + ")";
  // A fixed cp > 1 that ring attention cannot run (review of 2026-12-07: without flash attention
  // `--fix cp=2` read as the generic list), in estimate's words (scenario check_plan).
  if (const int cpf = fixed_value(opt, "cp"); why.empty() && cpf > 1) {
    const int64_t seq = base.train.seq_len;
    if (!base.train.flash_attention)
      why = fix + "cp=" + std::to_string(cpf) + ": " + cp_flash_attention_text(opt);
    else if (m.sliding_window > 0 && static_cast<int64_t>(m.sliding_window) < seq)
      why = fix + "cp=" + std::to_string(cpf) + ": context parallelism here is ring attention (p2p), which Transformer Engine does not run on " +
            "sliding-window layers (" + m.id + " has a " + std::to_string(m.sliding_window) + "-token window); only cp=1";
  }
  if (why.empty()) {
    int64_t prod = 1;
    std::string keys;
    for (const char* k : {"tp", "pp", "dp", "cp"})
      if (auto it = opt.fixed.find(k); it != opt.fixed.end() && it->second > 0) {
        prod *= it->second;
        keys += (keys.empty() ? "" : " x ") + std::string(k) + " " + std::to_string(it->second);
      }
    if (prod > 1 && base.num_gpus % prod != 0) {
      why = "the fixed " + keys + (keys.find(" x ") != std::string::npos ? " = " + std::to_string(prod) : std::string()) +
            " does not divide the " + std::to_string(base.num_gpus) + " GPUs";
      // The values of each fixed key that would divide them, the other fixed degrees kept, and that
      // pass that key's own rules (tp the heads, KV heads and a dense FFN's width; pp the layers; dp
      // the batch; cp ring attention's): the message had given the rule and no value (review of
      // 2026-12-07).
      const bool dense_ffn = !m.all_layers_moe();
      const int64_t seq = base.train.seq_len;
      auto passes = [&](const std::string& k, int64_t d) {
        if (k == "tp") return m.heads % d == 0 && (m.kv_heads <= 0 || m.kv_heads % d == 0) && (!dense_ffn || m.ffn_hidden % d == 0);
        if (k == "pp") return d <= m.layers;
        if (k == "dp") return base.train.global_batch % d == 0;
        return d == 1 || (seq % (2 * d) == 0 && base.train.flash_attention &&
                          !(m.sliding_window > 0 && static_cast<int64_t>(m.sliding_window) < seq));  // cp (check_plan)
      };
      std::string valid;
      for (const char* k : {"tp", "pp", "dp", "cp"}) {
        const int v = fixed_value(opt, k);
        if (v <= 0) continue;
        const int64_t others = prod / v;
        if (base.num_gpus % others != 0) continue;  // no value of this key alone mends it
        const int64_t left = base.num_gpus / others;
        std::vector<int64_t> ok;
        for (int d : plan::divisors(left))  // (the namespace's: the lambda above spells them out as text)
          if (passes(k, d)) ok.push_back(d);
        if (ok.empty()) continue;
        valid += (valid.empty() ? "" : "; ") + std::string(k) + " " + comma_list(ok) +
                 (others > 1 ? " (of the " + std::to_string(left) + " GPUs the other fixed degrees leave)" : std::string());
      }
      if (!valid.empty()) why += " (valid: " + valid + ")";
    }
  }
  // 2 x cp dividing the sequence (load-balanced ring attention), once the fixed product divides
  // the GPUs (review of 2026-12-07: `--fix cp=3` on 24 GPUs read as the generic list).
  if (const int cpf = fixed_value(opt, "cp"); why.empty() && cpf > 1 && base.train.seq_len % (2 * static_cast<int64_t>(cpf)) != 0) {
    const int64_t seq = base.train.seq_len;
    int64_t gpus = base.num_gpus;
    for (const char* k : {"tp", "pp", "dp"})
      if (const int v = fixed_value(opt, k); v > 0 && gpus % v == 0) gpus /= v;
    why = fix + "cp=" + std::to_string(cpf) + ": load-balanced ring attention splits the sequence in 2 x cp = " + std::to_string(2 * int64_t{cpf}) +
          " chunks, which do not divide seq_len " + std::to_string(seq) + " (valid: the common divisors of seq_len / 2 and the " +
          std::to_string(gpus) + " GPUs" + (gpus < base.num_gpus ? std::string(" the other fixed degrees leave") : std::string()) + ", " +
          divisors(std::gcd(seq % 2 == 0 ? seq / 2 : 1, gpus)) + ")";
  }
  if (why.empty()) why = layer_and_batch_split_text(base, opt);
  return (why.empty() ? std::string() : why + "; ") + "no valid plan: no combination of the allowed dimensions satisfies the plan constraints for " + std::to_string(base.num_gpus) +
         " GPUs (tp x pp x dp x cp = GPUs, tp divides the heads and the KV heads, ep the experts and etp x ep the ranks, pp x vpp "
         "the layers or a stage rule, micro-batch x dp divides the batch" +
         std::string(opt.fixed.empty() ? "" : opt.python_names ? "; check the fix values" : "; check the --fix values") +
         // (a --fix the stack lacks, tp 2 under pytorch-fsdp, was blamed on the constraints alone)
         std::string(opt.stack.restricted() ? "; and framework " + opt.stack.framework + "'s features, which may lack a fixed value: " +
                                                  (opt.python_names ? "any_framework_feature=True" : "--any-framework-feature") + " lifts them"
                                            : "") +
         ")";
}

void refuse_no_valid_plan(const Scenario& base, const SearchOptions& opt, const SearchOutcome& out) {
  if (out.valid > 0) return;
  throw Error(SourceLocation{"", 0, 0, opt.fixed.empty() ? "" : opt.python_names ? "fix" : "--fix"}, no_valid_plan_text(base, opt),
              "estimate the plan you meant: its error names the constraint it breaks");
}

Result plan_result(const Scenario& base, const SearchOptions& opt, const Estimator& est, const SearchOutcome& out,
                   bool rank_own_plan, const Reranker& rerank, const std::string& rerank_name, const Scenario* written) {
  const std::vector<std::string> changes = written ? searched_stack_changes(*written, base) : std::vector<std::string>{};
  std::string changes_text;
  for (size_t i = 0; i < changes.size(); ++i) changes_text += (i ? ", " : "") + changes[i];
  Result r;
  r.command = "plan";
  r.set("scenario", base.name);
  r.set("model", base.model.id);
  r.set("system", base.system.id);
  r.set("accelerator", base.accelerator.id);
  r.set("num_gpus", int64_t{base.num_gpus});
  r.set("global_batch", int64_t{base.train.global_batch});
  r.set("seq_len", int64_t{base.train.seq_len});
  r.set("precision", to_string(base.train.precision));
  r.set("plans_enumerated_count", static_cast<int64_t>(out.enumerated));
  r.set("plans_valid_count", static_cast<int64_t>(out.valid));
  r.set("plans_pruned_memory_count", static_cast<int64_t>(out.pruned));
  r.set("plans_dominated_recompute_count", static_cast<int64_t>(out.dominated));
  r.set("plans_evaluated_count", static_cast<int64_t>(out.evaluated));
  r.set("plans_fit_count", static_cast<int64_t>(out.fit));
  r.set("memory_capacity_bytes", base.accelerator.memory_bytes.value);
  r.set("min_headroom_bytes", opt.min_headroom_bytes);
  r.set("framework", base.framework.empty() ? std::string("none named") : base.framework);
  r.set("framework_features", std::string(opt.stack.restricted() ? "restricted to " + opt.stack.framework + "'s capabilities"
                                                                  : "unrestricted: every feature the search knows" +
                                                                        (changes.empty() ? std::string() : ", searched with " + changes_text)));

  const double best = out.ranking.empty() ? 0 : out.evals[out.ranking.front()].step_time_s;
  double moe_median_abs_pct = 0;  // the MoE validation rows' median |error| when the model is MoE
  // Plans within tie_fraction of the best tie; unstated, an MoE model's is the median |error| of
  // the MoE rows in its precision class (or of all MoE rows) when that is wider.
  double tie_fraction = opt.tie_fraction;
  std::string tie_basis = opt.tie_fraction_stated ? "stated" : "the validated median |error| of estimate (docs/validation.md)";
  if (!out.ranking.empty()) {
    const auto& w = out.evals[out.ranking.front()];
    r.set("best_plan", describe(out.candidates[w.index], opt, base));
    r.set("best_step_time_s", w.step_time_s);
    r.set("best_tokens_per_s_per_gpu", w.tokens_per_s_per_gpu);
    r.set("best_mfu_fraction", w.mfu_fraction);
    // A winner that fills the GPU to the last few hundred MB (beyond the 2 GiB reserve the memory
    // model keeps) is at the mercy of allocator fragmentation: say so and how to ask for room.
    const double free_bytes = base.accelerator.memory_bytes.value - w.memory_bytes;
    if (free_bytes < 1024.0 * 1024 * 1024)
      r.notes.push_back("the best plan leaves " + fixed3(free_bytes / (1024.0 * 1024 * 1024)) +
                        " GiB free beyond the 2 GiB reserve the memory model keeps; allocator fragmentation can take that: "
                        "--headroom-gib 4 ranks only plans that leave 4 GiB");
    // The validated range: rows on this accelerator and precision, the highest MFU measured there
    // (plans whose collectives all hide behind compute reach the model's compute ceiling, which no
    // published run on the part has shown), MoE rows and their error, the framework's rows.
    try {
      const auto cat = Catalog::load_default();
      const ValidatedRange vr = validated_range(default_validation_csvs(), *cat, base, w.mfu_fraction,
                                                kValidatedMedianAbsErrorFraction * 100);
      if (vr.mfu_max) {
        r.set("validated_mfu_max_fraction", vr.mfu_max->mfu_fraction);
        r.set("validated_mfu_max_row", vr.mfu_max->id);
      }
      for (const auto& n : vr.notes) r.notes.push_back(n.rfind("the predicted MFU", 0) == 0 ? "the best plan's" + n.substr(3) : n);
      moe_median_abs_pct = vr.moe_rows > 0 ? vr.moe_median_abs_pct : 0;
      const double moe_tie_pct = vr.moe_class_rows > 0 ? vr.moe_class_median_abs_pct : moe_median_abs_pct;
      if (!opt.tie_fraction_stated && moe_tie_pct / 100 > tie_fraction) {
        tie_fraction = moe_tie_pct / 100;
        tie_basis = vr.moe_class_rows > 0 ? "the median |error| of the " + std::to_string(vr.moe_class_rows) +
                                                " MoE validation rows in this precision class"
                                          : "the median |error| of the " + std::to_string(vr.moe_rows) + " MoE validation rows";
      }
    } catch (const Error&) {
      // The bundled catalog or CSV is unreadable: no range to report.
    }
    size_t tied = 0;
    for (uint32_t i : out.ranking)
      if (out.evals[i].step_time_s <= best * (1 + tie_fraction)) ++tied;
    r.set("plans_tied_with_best_count", static_cast<int64_t>(tied));
  }
  r.set("tie_fraction", tie_fraction);
  r.set("tie_basis", tie_basis);
  // Settings the search inherits from the scenario for every plan (not searched, not in the plan
  // strings): on MoE models the expert all-to-all overlap and the dispatcher move step times most.
  if (base.model.moe) {
    // Stated in the scenario, the EP overlap holds for every plan; unstated, it follows each
    // plan's schedule (on under dualpipev only), whatever the scenario's own schedule made it.
    const std::string ep = base.plan.ep_comm_overlap_stated
                               ? std::string(base.plan.ep_comm_overlap
                                                 // (the lowering blocks it with one micro-batch per step since 2026-12-06)
                                                 ? "on, blocking where a plan runs one micro-batch per step"
                                                 : "off") +
                                     ", as the scenario states it"
                               : std::string("on under dualpipev and off under the other schedules, the default the scenario leaves it at");
    r.notes.push_back(std::string("every plan uses the scenario's MoE dispatcher (") + base.plan.moe_dispatcher + ") and EP communication overlap (" +
                      ep + "): they are not searched; compare with --set parallel.overlap.ep_comm=" +
                      (base.plan.ep_comm_overlap_stated && base.plan.ep_comm_overlap ? "false" : "true") +
                      " or --set parallel.moe_dispatcher=...");
  }

  Table& t = r.add_table("ranking", "fitting plans, fastest first; 'tie' marks plans within the model's validated error of the best");
  t.add_i64("rank");
  t.add_str("tie");
  add_plan_columns(t);
  t.add_f64("step_time_s");
  t.add_f64("tokens_per_s_per_gpu");
  t.add_f64("mfu_fraction");
  t.add_f64("memory_per_gpu_bytes");
  t.add_f64("memory_headroom_bytes");
  t.add_f64("slower_than_best_fraction");
  const size_t rows = opt.top == 0 ? out.ranking.size() : std::min(opt.top, out.ranking.size());
  for (size_t k = 0; k < rows; ++k) {
    const auto& e = out.evals[out.ranking[k]];
    std::vector<Value> row;
    row.emplace_back(static_cast<int64_t>(k + 1));
    row.emplace_back(std::string(e.step_time_s <= best * (1 + tie_fraction) ? "tie-best" : ""));
    add_plan_values(row, out.candidates[e.index], opt, base);
    row.emplace_back(e.step_time_s);
    row.emplace_back(e.tokens_per_s_per_gpu);
    row.emplace_back(e.mfu_fraction);
    row.emplace_back(e.memory_bytes);
    row.emplace_back(base.accelerator.memory_bytes.value - e.memory_bytes);
    row.emplace_back(same_step_time(e.step_time_s, best) ? 0.0 : e.step_time_s / best - 1);  // (the best's own time: no -2e-16)
    t.add_row(row);
  }

  // Why the winner beats the runner-up: the breakdown difference.
  if (out.ranking.size() >= 2) {
    auto full = [&](uint32_t idx) {
      Scenario s = base;
      apply_candidate(s, out.candidates[idx], opt);
      return est.run(ir::lower(s));
    };
    // The runner-up is the fastest plan with a different step time: plans with the winner's time
    // differ only where the time model does not look (memory: ZeRO 1 against 2). The same time is
    // the same to kSameStepTimeFraction (same_step_time), as the ranking groups them: an exact ==
    // had counted 1f1b and gpipe over one micro-batch, 2.2e-16 s apart, as two times and reported
    // the winner 2.22e-16 faster (review of 2026-12-07).
    const uint32_t wi = out.ranking[0];
    size_t same = 1;
    while (same < out.ranking.size() && same_step_time(out.evals[out.ranking[same]].step_time_s, out.evals[wi].step_time_s)) ++same;
    // Every ranked plan takes the winner's time: the runner-up is the second, a tie, and said so.
    const bool all_tie = same == out.ranking.size();
    const uint32_t ri = out.ranking[all_tie ? 1 : same];
    r.set("plans_with_best_step_time_count", static_cast<int64_t>(same));
    const StepEstimate a = full(wi), b = full(ri);
    // An unbalanced pipeline shows up as the critical rank's bubble: name the stage it waits on,
    // as estimate does for the plan.
    if (const std::string why = bottleneck_note(a); !why.empty()) r.notes.push_back("best plan: " + why);
    r.set("runner_up_rank", static_cast<int64_t>(same < out.ranking.size() ? same + 1 : 2));
    Table& d = r.add_table("winner_vs_runner_up", "step-time breakdown of the best plan against the runner-up, the fastest plan with a "
                                                  "different step time (runner_up_rank; seconds on the critical rank)");
    d.add_str("category");
    d.add_str("item");
    d.add_f64("winner_s");
    d.add_f64("runner_up_s");
    d.add_f64("difference_s");
    struct Item {
      std::string cat, item;
      double a = 0, b = 0;
    };
    std::vector<Item> items;
    auto add = [&](const std::string& cat, const std::vector<std::pair<std::string, double>>& va,
                   const std::vector<std::pair<std::string, double>>& vb) {
      std::map<std::string, std::pair<double, double>> mm;
      for (const auto& [k, v] : va) mm[k].first += v;
      for (const auto& [k, v] : vb) mm[k].second += v;
      for (const auto& [k, v] : mm) items.push_back({cat, k, v.first, v.second});
    };
    add("compute", a.compute_by_class_s, b.compute_by_class_s);
    add("exposed_comm", a.exposed_by_group_s, b.exposed_by_group_s);
    items.push_back({"pipeline_bubble", "bubble", a.bubble_s, b.bubble_s});
    items.push_back({"optimizer", "optimizer", a.optimizer_s, b.optimizer_s});
    items.push_back({"total", "step", a.step_time_s, b.step_time_s});
    // A difference at the rounding of the sums is no difference (2.22e-16 s had been printed).
    const double noise = 1e-12 * std::max(a.step_time_s, b.step_time_s);
    for (const auto& it : items) d.add_row({it.cat, it.item, it.a, it.b, std::fabs(it.b - it.a) <= noise ? 0.0 : it.b - it.a});
    // Largest contributors to the difference (excluding the total).
    std::vector<const Item*> order;
    for (const auto& it : items)
      if (it.cat != "total" && std::round((it.b - it.a) * 1e4) != 0) order.push_back(&it);  // (zeros were listed as "largest")
    std::stable_sort(order.begin(), order.end(), [](const Item* x, const Item* y) { return std::fabs(x->b - x->a) > std::fabs(y->b - y->a); });
    const double gap = all_tie ? 0.0 : b.step_time_s / a.step_time_s - 1;
    std::string why = all_tie ? "every ranked plan takes the winner's step time: the winner (" + describe(out.candidates[wi], opt, base) +
                                    ") and the runner-up (" + describe(out.candidates[ri], opt, base) + ") tie, ranked in enumeration order"
                              : "winner (" + describe(out.candidates[wi], opt, base) + ") is " + format_double(std::round(gap * 1e4) / 1e2) +
                                    "% faster than the runner-up (" + describe(out.candidates[ri], opt, base) + ")";
    if (!order.empty()) {
      why += "; largest differences:";
      for (size_t k = 0; k < std::min<size_t>(3, order.size()); ++k) {
        const double diff = order[k]->b - order[k]->a;
        why += std::string(k ? "," : "") + " " + order[k]->cat + "/" + order[k]->item + " " + (diff >= 0 ? "+" : "") +
               format_double(std::round(diff * 1e4) / 1e4) + " s on the runner-up";
      }
    }
    if (same > 1)
      why += " (" + std::to_string(same) + " plans share the winner's step time, to a relative 1e-12: equivalent layouts, e.g. dp x micro-batch "
             "against cp, or ZeRO stages that move the same bytes; see their memory)";
    if (all_tie) {
      // (said above: no margin to weigh)
    } else if (gap < tie_fraction) {
      why += ". The difference is below the tie fraction (" + fixed3(tie_fraction * 100) + "%, " + tie_basis +
             "): treat them as a tie";
    } else if (moe_median_abs_pct > 0 && gap * 100 < moe_median_abs_pct) {
      why += ". The difference is below the MoE validation rows' median error (" + fixed3(moe_median_abs_pct) +
             "%): for this MoE model treat them as a tie";
    }
    r.set("winner_vs_runner_up_fraction", gap);
    r.notes.push_back(why);
  }

  // Re-rank the best plans with the finer model.
  if (rerank && opt.rerank_top > 0 && !out.ranking.empty()) {
    const size_t k = std::min(opt.rerank_top, out.ranking.size());
    struct Item {
      uint32_t idx;
      size_t est_rank;
      double t;
    };
    std::vector<Item> items;
    std::string refused;  // the finer model's reason for a plan it cannot evaluate (simulate's budget)
    for (size_t i = 0; i < k; ++i) {
      Scenario s = base;
      apply_candidate(s, out.candidates[out.ranking[i]], opt);
      try {
        items.push_back({out.ranking[i], i + 1, rerank(s)});
      } catch (const Error& e) {
        // Only the finer model's budget leaves a plan un-reranked; any other error is a defect to see.
        if (e.message().find("simulation budget") == std::string::npos) throw;
        if (refused.empty()) refused = e.message();
      }
    }
    if (!refused.empty())
      r.notes.push_back("re-ranking by " + rerank_name + ": " + std::to_string(k - items.size()) + " of the best " +
                        std::to_string(k) + " plans not re-ranked (" + refused + ")");
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.t < b.t; });
    // Times equal to a relative 1e-9 (the same difference_fraction rounding as below) are a tie,
    // kept in estimate's order: two plans of one time in estimate (1f1b and gpipe of one shape)
    // had swapped on 6e-15 s of simulate's summation order, making the plan of 17 GB more the
    // reranked best (review of 2026-12-06). Runs of ties are grouped from their first member, so
    // the grouping does not depend on a non-transitive comparison.
    for (size_t a = 0; a < items.size();) {
      size_t b = a + 1;
      while (b < items.size() && std::fabs(items[b].t - items[a].t) <= 1e-9 * std::fabs(items[a].t)) ++b;
      std::sort(items.begin() + static_cast<std::ptrdiff_t>(a), items.begin() + static_cast<std::ptrdiff_t>(b),
                [](const Item& x, const Item& y) { return x.est_rank < y.est_rank; });
      a = b;
    }
    Table& rr = r.add_table("reranked", "the best " + std::to_string(items.size()) + " plans of estimate, ordered by " + rerank_name);
    rr.add_i64("rank");
    rr.add_i64("estimate_rank");
    rr.add_str("plan");
    rr.add_f64("estimate_step_time_s");
    rr.add_f64(rerank_name + "_step_time_s");
    rr.add_f64("difference_fraction");
    for (size_t i = 0; i < items.size(); ++i) {
      const double te = out.evals[items[i].idx].step_time_s;
      rr.add_row({static_cast<int64_t>(i + 1), static_cast<int64_t>(items[i].est_rank), describe(out.candidates[items[i].idx], opt, base), te,
                  items[i].t, std::fabs(items[i].t / te - 1) <= 1e-9 ? 0.0 : items[i].t / te - 1});
    }
    if (!items.empty()) {
      r.set("reranked_best_plan", describe(out.candidates[items.front().idx], opt, base));
      r.set("reranked_best_step_time_s", items.front().t);
    }
  }

  if (!rank_own_plan && !base.invalid_plan.empty()) {
    r.set("own_plan", std::string("(not valid for this job)"));
    r.set("own_plan_status", "invalid: " + base.invalid_plan);
  }
  if (rank_own_plan) {
    const Candidate own = candidate_of(base, opt);
    const bool schedule_listed = own.pp == 1 || own.schedule < opt.schedules.size();
    const std::string own_text = describe_own(own, opt, base);
    r.set("own_plan", own_text);
    bool replaced = false;
    const int64_t found = find_plan(out, own, base.model.moe.has_value(), &replaced);
    const std::string lacks = stack_violations(own, base, opt);
    // Outside the search: say why, and whether it fits (a plan that does not fit is not "faster").
    auto outside = [&](std::string why) {
      const StepEstimate e = est.run(ir::lower(base));
      r.set("own_plan_step_time_s", e.step_time_s);
      // Fitting is judged as the search judges it, against the capacity less --headroom-gib (a
      // plan needing 33 GiB of 25 usable had been called 18% faster than the best, 2026-12-05).
      const double usable = e.memory_capacity_bytes - opt.min_headroom_bytes;
      if (!e.fits || e.memory.total_bytes() > usable) {
        why += "; it does not fit: needs " + format_double(std::round(gib(e.memory.total_bytes()) * 100) / 100) + " GiB per GPU of " +
               format_double(std::round(gib(e.memory_capacity_bytes) * 100) / 100) +
               (opt.min_headroom_bytes > 0 ? " (" + format_double(std::round(gib(usable) * 100) / 100) + " usable with " +
                                                    (opt.python_names ? "headroom_gib" : "--headroom-gib") + ")"
                                              : std::string());
      } else if (best > 0) {
        r.set("own_plan_slower_than_best_fraction", e.step_time_s / best - 1);
      }
      r.set("own_plan_status", why);
    };
    if (found < 0 && !schedule_listed) {
      outside("outside the search space: schedule " + base.plan.schedule + " is not in --schedules (add it to search it)" +
              (lacks.empty() ? std::string() : "; also uses features the stack does not offer (" + lacks + ")"));
    } else if (found < 0 && !lacks.empty()) {
      outside("outside the search space: uses features " + (opt.stack.framework.empty() ? std::string("the stack") : opt.stack.framework) +
              " does not offer (" + lacks + "; --any-framework-feature lifts the restriction)");
    } else if (found < 0 && own.zero_stage == 2 && base.plan.zero2_grad_sync == "step" && contains(opt.zero_stages, 1)) {
      // The search folds ZeRO-2 with step sync into ZeRO-1 (same bytes, same memory): say so, and
      // give the twin's rank where it is ranked.
      Candidate z1 = own;
      z1.zero_stage = 1;
      bool z1_replaced = false;
      const int64_t z1_found = find_plan(out, z1, base.model.moe.has_value(), &z1_replaced);
      std::string where;
      for (size_t k = 0; z1_found >= 0 && k < out.ranking.size(); ++k)
        if (out.ranking[k] == static_cast<uint32_t>(z1_found)) where = ", ranked " + std::to_string(k + 1);
      outside("searched as its ZeRO-1 twin " + describe(z1, opt, base) + where +
              " (ZeRO-2 with zero2_grad_sync: step moves ZeRO-1's bytes and holds its memory)");
    } else if (const std::string excluded = search_exclusions(own, opt); found < 0 && !excluded.empty()) {
      outside("outside the search space: " + excluded);
    } else if (found < 0) {
      outside("outside the search space (constraints or enumeration rules, docs/plan.md)");
    } else if (Scenario laid = base; (apply_candidate(laid, own, opt), laid.stage_layout() != base.stage_layout())) {
      // (Compared stage by stage since 2026-12-06 (review): stated sizes equal to the rule's are
      // the search's plan, and sizes that differ are searched at the scenario's own pp and vpp,
      // Candidate::own_layout, so this is left for a layout the search could not place.)
      // The search lays out each (pp, vpp) one way; a scenario's own stage_layers or stage rule is
      // another plan, estimated on its own (before 2026-12-03 the search's layout was reported as
      // the scenario's: 3.684 s where its [4, 9, 9, 8] stages take 4.054 s).
      std::string layout;
      for (size_t k = 0; k < laid.plan.stage_layers.size(); ++k) layout += (k ? ", " : "") + std::to_string(laid.plan.stage_layers[k]);
      outside("its stage layout is not the search's (the search uses " +
              (layout.empty() ? "stage_rule " + laid.plan.stage_rule : "stage_layers [" + layout + "]") +
              " for this pp and vpp): estimated on its own");
    } else {
      const auto& e = out.evals[static_cast<size_t>(found)];
      if (e.status == 1) {
        // A plan recomputing every layer is weighed by its least-memory form (search()): named.
        // Against what: the capacity, and what --headroom-gib leaves of it, as the outside-the-search
        // branch says (review of 2026-12-07: "needs 77.42 GiB per GPU" on an 80 GiB GPU under
        // --headroom-gib 3 did not say why that was too much).
        const double capacity = base.accelerator.memory_bytes.value;
        auto two = [](double bytes) { return format_double(std::round(gib(bytes) * 100) / 100); };
        r.set("own_plan_status", std::string("pruned: needs " + two(e.memory_bytes) + " GiB per GPU of " + two(capacity) +
                                             (opt.min_headroom_bytes > 0 ? " (" + two(capacity - opt.min_headroom_bytes) + " usable with " +
                                                                               (opt.python_names ? "headroom_gib" : "--headroom-gib") + ")"
                                                                         : std::string()) +
                                             (replaced ? " even as " + describe(out.candidates[static_cast<size_t>(found)], opt, base) : std::string())));
      } else if (e.status == 3 || (replaced && e.status == 0)) {
        r.set("own_plan_status", std::string("dominated: the same plan fits with less recompute (fewer modules or layers), which takes no more time"));
        const StepEstimate own_e = est.run(ir::lower(base));
        r.set("own_plan_step_time_s", own_e.step_time_s);
        if (best > 0) r.set("own_plan_slower_than_best_fraction", own_e.step_time_s / best - 1);
      } else if (e.status == 2) {
        r.set("own_plan_status", std::string("does not fit after estimate"));
        r.set("own_plan_step_time_s", e.step_time_s);
      } else {
        int64_t rank = 0;
        for (size_t k = 0; k < out.ranking.size(); ++k)
          if (out.ranking[k] == static_cast<uint32_t>(found)) rank = static_cast<int64_t>(k + 1);
        r.set("own_plan_status", std::string(e.step_time_s <= best * (1 + tie_fraction) ? "ranked, tied with the best" : "ranked"));
        r.set("own_plan_rank", rank);
        r.set("own_plan_step_time_s", e.step_time_s);
        r.set("own_plan_slower_than_best_fraction", e.step_time_s / best - 1);
      }
    }
  }
  // The stack settings the search changed from the scenario (--any-framework-feature on a stack
  // without flash attention or with a kernel cap; restrict_to_framework): said, with the scenario's
  // own plan as written. Review of 2026-12-07: a megatron-lm-2022 job's own plan read 1.966 s,
  // estimate's 2.632 s, with flash attention switched on without a word. Every step time of the
  // result, the own plan's included, is the searched stack's (as --practice's unrestricted view
  // places published plans), so that the own plan is compared with the ranking like for like.
  if (!changes.empty()) {
    const bool many = changes.size() > 1;
    // (--write-scenario writes the flash attention; a kernel cap lifted to 0 it cannot, as a scenario
    // states no cap by leaving the key out and a framework's default cap then applies.)
    std::string note = std::string(opt.python_names ? "any_framework_feature=True" : "--any-framework-feature") +
                       ": every feature the search knows" + (base.framework.empty() ? std::string() : ", not framework " + base.framework + "'s,") +
                       " so the search ran the job with " + changes_text + ": every step time here, the own plan's included, is with " +
                       (many ? "these settings" : "that setting") + " (the ranking's flash_attention and attention_peak_fraction columns)";
    if (rank_own_plan) {
      try {
        const StepEstimate we = est.run(ir::lower(*written));
        r.set("own_plan_as_written_step_time_s", we.step_time_s);
        note += "; the scenario as written (`sextant estimate`) takes " + fixed3(we.step_time_s) + " s per step with its own plan";
      } catch (const Error&) {
        // A plan the written attention cannot run (none the search ranks as the own plan): no figure.
      }
    }
    r.notes.push_back(note);
  }
  if (opt.stack.restricted())
    r.notes.push_back("plans restricted to the features framework " + opt.stack.framework +
                      " offers (catalog capabilities; docs/plan.md); --any-framework-feature searches every feature" +
                      (opt.stack.flash_attention ? std::string() : std::string(". It has no flash attention: plans are searched with attention scores materialised")));
  if (auto fz = opt.fixed.find("zero"); fz != opt.fixed.end() && fz->second != 0) {
    bool canonical = false;
    for (uint32_t k : out.ranking) canonical = canonical || out.candidates[k].zero_stage == 0;
    if (canonical)
      r.notes.push_back("--fix zero=" + std::to_string(fz->second) +
                        ": plans without a data-parallel group are listed as ZeRO 0, which every stage is for them (nothing to shard over)");
  }
  // A fixed SP, TP overlap or vpp that does nothing for some ranked plans (idle_fix): said, as the
  // ZeRO stage is, so that a tp 1 plan under `--fix sp=true` does not read as the fix ignored. So
  // is a DP overlap fixed off where it does nothing, which the enumeration lists on (its canonical
  // form): the gradient overlap without a data-parallel group, the gather overlap without one or at
  // ZeRO 0 (review of 2026-12-07: `--fix grad_reduce_overlap=false` gave rows that all read true,
  // without a word).
  {
    const std::string fix = opt.python_names ? "fix " : "--fix ";
    const struct {
      const char* key;
      const char* where;
      int canonical;  // the value such plans are listed with
    } idle[] = {{"sp", "plans without tensor parallelism (tp 1) are listed without sequence parallelism, which does nothing there (no TP group to split the sequence over)", 0},
                {"tp_overlap", "plans without tensor parallelism (tp 1) are listed without TP communication overlap, which does nothing there (no TP communication to overlap)", 0},
                {"vpp", "plans without a pipeline (pp 1) are listed as vpp 1: there every vpp is the same plan (one stage holds every layer)", 1},
                {"grad_reduce_overlap",
                 "plans without a data-parallel group (dp x cp 1, and for experts no expert data-parallel group of more than one rank) are "
                 "listed with gradient-reduce overlap on (grad_reduce_overlap true), which does nothing there (no data-parallel gradient "
                 "reduction to overlap)", 1},
                {"param_gather_overlap",
                 "plans at ZeRO 0 or without a data-parallel group are listed with parameter-gather overlap on (param_gather_overlap true), "
                 "which does nothing there (ZeRO 0 keeps every parameter whole and gathers none; without a data-parallel group nothing is "
                 "sharded)", 1}};
    for (const auto& [key, where, canonical] : idle) {
      const int v = fixed_value(opt, key);
      if (v < 0 || v == canonical) continue;  // the canonical form itself
      const std::string k = key;
      bool shown = false;
      for (uint32_t i : out.ranking) {
        const Candidate& c = out.candidates[i];
        // A DP overlap fixed off reads on only where it does nothing (enumerate_plans' idle_bits).
        shown = shown || (k == "grad_reduce_overlap"    ? c.overlap_grad_reduce
                          : k == "param_gather_overlap" ? c.overlap_param_gather
                                                        : idle_fix(k, c.tp, c.pp));
      }
      if (shown) r.notes.push_back(fix + k + "=" + fix_value_text(k, v) + ": " + where);
    }
  }
  // cp > 1 left out of the search for want of flash attention, where it would otherwise have been
  // searched (review of 2026-12-07: it was left out without a word).
  if (fixed_value(opt, "cp") < 0 && cp_wants_flash_attention(base, opt))
    r.notes.push_back("cp > 1 was not searched: " + cp_flash_attention_text(opt) +
                      (opt.stack.restricted() && !opt.stack.flash_attention
                           ? std::string(opt.python_names ? "; any_framework_feature=True" : "; --any-framework-feature") + " searches it with flash attention"
                           : std::string(opt.python_names ? "" : "; --set training.flash_attention=true searches it")));
  if (out.ranking.empty() && out.valid == 0)
    r.notes.push_back(no_valid_plan_text(base, opt));
  else if (out.ranking.empty()) {
    // How far off the job is: the least memory any valid plan needs against what a GPU offers
    // (the note had named remedies only, some already in use, 2026-12-04 review).
    size_t least = out.evals.size();
    for (size_t i = 0; i < out.evals.size(); ++i)
      if (out.evals[i].memory_bytes > 0 && (least == out.evals.size() || out.evals[i].memory_bytes < out.evals[least].memory_bytes)) least = i;
    std::string how_far;
    if (least < out.evals.size()) {
      const double usable = base.accelerator.memory_bytes.value - opt.min_headroom_bytes;
      how_far = ": the least any plan needs is " + format_double(std::round(gib(out.evals[least].memory_bytes) * 100) / 100) + " GiB per GPU (" +
                describe(out.candidates[least], opt, base) + ") against " + format_double(std::round(gib(usable) * 100) / 100) + " GiB usable";
    }
    std::vector<std::string> remedies;
    if (opt.min_headroom_bytes > 0) remedies.push_back("lower --headroom-gib");
    if (!contains(opt.zero_stages, 3)) remedies.push_back("allow ZeRO 3 (--zero)");
    if (!contains(opt.recompute, Recompute::Full)) remedies.push_back("allow full recompute");
    remedies.push_back("add GPUs or shorten the sequence");
    std::string list;
    for (size_t k = 0; k < remedies.size(); ++k) list += (k ? (k + 1 == remedies.size() ? " or " : ", ") : "") + remedies[k];
    r.notes.push_back("no plan fits in memory" + how_far + "; " + list);
  }
  // A config.json's keys the model does not read, as estimate says them (review of 2026-12-04).
  if (const std::string note = ignored_keys_note(base.model); !note.empty()) r.notes.push_back(note);
  // A sequence beyond the model's context, in estimate's words: before 2026-12-05 plan ranked such
  // a job with no word of it (review), though every plan it ranks is a context-extension run.
  if (const std::string note = context_extension_note(base); !note.empty()) r.notes.push_back(note);
  return r;
}

}  // namespace sextant::plan

// ---------------------------------------------------------------- check against practice

namespace sextant::plan {

namespace {
// One search of a practice job, in one view (a stack's features, or unrestricted), and where a
// published plan lands in it.
struct PracticeView {
  SearchOptions opt;
  SearchOutcome out;
  double best = 0;
  std::string best_plan;
};
struct Placement {
  bool found = false;
  std::string status = "not among the valid plans";
  int64_t rank = 0;
};
// own_step_time_s: the published plan's estimate, which places a dominated plan (it fits, but
// was not costed: the same plan fits with less recompute) among the ranked ones.
Placement place(const PracticeView& v, const Candidate& own, bool moe, double own_step_time_s) {
  Placement p;
  bool replaced = false;
  int64_t i = find_plan(v.out, own, moe, &replaced);
  if (i < 0 && own.own_layout) {
    // A row whose stage sizes the view's scenario (another row of the job) does not state: the
    // plan as the rule lays it out, ranked by the row's own time below where the two differ.
    Candidate by_rule = own;
    by_rule.own_layout = false;
    i = find_plan(v.out, by_rule, moe, &replaced);
  }
  if (i < 0) return p;
  p.found = true;
  const auto& e = v.out.evals[static_cast<size_t>(i)];
  if (e.status == 3 || (replaced && e.status == 0)) {
    // Dominated (or costed with less recompute): it fits; its rank is by its own estimate.
    p.status = "fits";
    p.rank = 1;
    for (uint32_t k : v.out.ranking) p.rank += v.out.evals[k].step_time_s < own_step_time_s;
    return p;
  }
  p.status = e.status == 0 ? "fits" : e.status == 1 ? "pruned (memory)" : "over memory after estimate";
  // The job's search runs with its first row's unsearched settings (EP overlap, dispatcher): a row
  // that differs in them has another time than the candidate's, and is ranked by its own (it had
  // been given the candidate's rank beside its own faster time, before 2026-12-03).
  if (e.status == 0 && std::fabs(e.step_time_s - own_step_time_s) > 1e-9 * std::max(e.step_time_s, own_step_time_s)) {
    p.rank = 1;
    for (uint32_t k : v.out.ranking) p.rank += v.out.evals[k].step_time_s < own_step_time_s;
    return p;
  }
  for (size_t k = 0; k < v.out.ranking.size(); ++k)
    if (v.out.ranking[k] == static_cast<uint32_t>(i)) p.rank = static_cast<int64_t>(k + 1);
  return p;
}
}  // namespace

Result check_against_practice(const std::string& training_csv, const Catalog& cat, const SearchOptions& opt,
                              const Estimator& est, const Progress& progress, const Distribution& dist) {
  const CsvTable t = CsvTable::read_file(training_csv);
  check_training_columns(t);
  struct Row {
    size_t row;
    Scenario s;
  };
  std::map<std::string, std::vector<Row>> jobs;  // key -> rows, in file order per key
  std::vector<std::string> order;
  for (size_t r = 0; r < t.rows(); ++r) {
    Scenario s = scenario_from_training_row(t, r, cat);
    const std::string key = s.model.id + " | " + s.system.id + " | " + s.accelerator.id + " | " + std::to_string(s.num_gpus) +
                            " GPUs | batch " + std::to_string(s.train.global_batch) + " | seq " + std::to_string(s.train.seq_len) +
                            " | " + to_string(s.train.precision) +
                            // Settings the search does not vary give a job of their own: each row is
                            // then compared with plans that share them (the EP-overlap row of a job
                            // had been compared with its sibling's plans, before 2026-12-03).
                            (s.model.moe ? " | dispatcher " + s.plan.moe_dispatcher +
                                               (s.plan.ep_comm_overlap_stated ? std::string(s.plan.ep_comm_overlap ? " | EP overlap" : " | no EP overlap") : std::string())
                                         : std::string());
    if (!jobs.count(key)) order.push_back(key);
    jobs[key].push_back(Row{r, std::move(s)});
  }
  Result res;
  res.command = "plan practice";
  res.set("file", training_csv);
  res.set("rows_count", static_cast<int64_t>(t.rows()));
  res.set("jobs_count", static_cast<int64_t>(order.size()));
  Table& out = res.add_table("practice",
                             "published plans against the best plan their software stack could run (framework capabilities) and the best "
                             "plan with every feature the search knows (unrestricted_*)");
  out.add_str("id");
  out.add_str("job");
  out.add_str("framework");
  out.add_str("published_plan");
  out.add_str("found");
  out.add_str("published_status");
  out.add_i64("published_rank");
  out.add_i64("plans_valid_count");
  out.add_i64("plans_fit_count");
  out.add_f64("published_step_time_s");
  out.add_f64("best_step_time_s");
  out.add_str("best_plan");
  out.add_f64("predicted_speedup_ratio");
  out.add_str("unrestricted_found");
  out.add_str("unrestricted_published_status");
  out.add_i64("unrestricted_published_rank");
  out.add_i64("unrestricted_plans_valid_count");
  out.add_f64("unrestricted_published_step_time_s");
  out.add_f64("unrestricted_best_step_time_s");
  out.add_str("unrestricted_best_plan");
  out.add_f64("unrestricted_speedup_ratio");
  out.add_f64("target_step_time_s");
  size_t found_all = 0, within15 = 0, over13 = 0, total = 0, fits = 0;
  size_t u_found = 0, u_within15 = 0, u_over13 = 0, u_fits = 0;
  std::vector<double> ratios, u_ratios;
  // rows: the job's rows this view places; their selective sets are searched (placed_module_sets)
  // where the view's own row is not selective (since 2026-12-06 the search adds a job's own set
  // only then).
  auto run_view = [&](const Scenario& s, const StackFeatures& stack, const std::vector<const Scenario*>& rows) {
    PracticeView v;
    v.opt = opt;
    v.opt.top = 1;
    v.opt.stack = stack;
    for (const Scenario* r : rows)
      if (r->train.recompute == Recompute::Selective) v.opt.placed_module_sets.push_back(r->train.recompute_modules);
    v.out = search(stack_scenario(s, stack), v.opt, est, dist);
    v.best = v.out.ranking.empty() ? 0 : v.out.evals[v.out.ranking.front()].step_time_s;
    v.best_plan = v.out.ranking.empty() ? std::string("none fits") : describe(v.out.candidates[v.out.ranking.front()], v.opt, s);
    return v;
  };
  // The unrestricted view: every feature the search knows, flash attention and a current
  // attention kernel included (a row's stack may have neither: its scenario then says so).
  auto unrestricted = [](Scenario s) {
    s.train.flash_attention = true;
    s.train.attention_peak_fraction = 0;
    return s;
  };
  for (size_t j = 0; j < order.size(); ++j) {
    const auto& rows = jobs[order[j]];
    // The scenario each view searches is a row's (its settings that are not searched: attention
    // kernel, framework properties). It is chosen by id, not by place in the file: the row of
    // smallest id for the unrestricted view, and for a stack the smallest-id row of that stack
    // (before 2026-12-02 every stack of a job searched the file's first row, so a stack's view
    // took another stack's settings and the results changed with the row order).
    auto id_of = [&](const Row& x) { return t.at(x.row, "id"); };
    const Row* first = &rows.front();
    for (const auto& row : rows)
      if (id_of(row) < id_of(*first)) first = &row;
    std::map<std::string, const Row*> first_of_stack;
    for (const auto& row : rows) {
      auto [it, inserted] = first_of_stack.emplace(row.s.framework, &row);
      if (!inserted && id_of(row) < id_of(*it->second)) it->second = &row;
    }
    std::vector<const Scenario*> all_rows;
    for (const auto& row : rows) all_rows.push_back(&row.s);
    const PracticeView any = run_view(unrestricted(first->s), StackFeatures{}, all_rows);
    std::map<std::string, PracticeView> by_stack;  // one search per framework of the job's rows
    for (const auto& row : rows) {
      ++total;
      const std::string fw = row.s.framework;
      const StackFeatures stack = fw.empty() ? StackFeatures{} : stack_features(cat.framework(fw));
      if (stack.restricted() && !by_stack.count(fw)) {
        std::vector<const Scenario*> stack_rows;
        for (const auto& other : rows)
          if (other.s.framework == fw) stack_rows.push_back(&other.s);
        by_stack.emplace(fw, run_view(first_of_stack.at(fw)->s, stack, stack_rows));
      }
      const PracticeView& v = stack.restricted() ? by_stack.at(fw) : any;
      const Candidate own = candidate_of(row.s, v.opt);
      const double pub = est.run(ir::lower(stack_scenario(row.s, stack))).step_time_s;
      const double pub_u = est.run(ir::lower(unrestricted(row.s))).step_time_s;
      const bool moe = row.s.model.moe.has_value();
      const Placement ps = place(v, own, moe, pub), pu = place(any, own, moe, pub_u);
      found_all += ps.found;
      u_found += pu.found;
      fits += ps.status == "fits";
      u_fits += pu.status == "fits";
      const double ratio = v.best > 0 ? pub / v.best : 0, u_ratio = any.best > 0 ? pub_u / any.best : 0;
      if (v.best > 0 && ratio <= 1.15) ++within15;
      if (any.best > 0 && u_ratio <= 1.15) ++u_within15;
      if (ratio > 1.3) ++over13;
      if (u_ratio > 1.3) ++u_over13;
      if (v.best > 0) ratios.push_back(ratio);
      if (any.best > 0) u_ratios.push_back(u_ratio);
      out.add_row({t.at(row.row, "id"), order[j], std::string(fw.empty() ? "none named" : fw), describe_own(own, v.opt, row.s),
                   std::string(ps.found ? "true" : "false"), ps.status, ps.rank, static_cast<int64_t>(v.out.valid),
                   static_cast<int64_t>(v.out.fit), pub, v.best, v.best_plan, ratio, std::string(pu.found ? "true" : "false"), pu.status,
                   pu.rank, static_cast<int64_t>(any.out.valid), pub_u, any.best, any.best_plan, u_ratio,
                   target_step_time_of(t, row.row)});
    }
    if (progress) progress(j + 1, order.size());
  }
  res.set("published_plans_count", static_cast<int64_t>(total));
  res.set("published_found_count", static_cast<int64_t>(found_all));
  res.set("published_fit_count", static_cast<int64_t>(fits));
  res.set("published_within_15pct_of_best_count", static_cast<int64_t>(within15));
  res.set("predicted_speedup_over_1_3_count", static_cast<int64_t>(over13));
  res.set("unrestricted_published_found_count", static_cast<int64_t>(u_found));
  res.set("unrestricted_published_fit_count", static_cast<int64_t>(u_fits));
  res.set("unrestricted_published_within_15pct_of_best_count", static_cast<int64_t>(u_within15));
  res.set("unrestricted_predicted_speedup_over_1_3_count", static_cast<int64_t>(u_over13));
  auto stats = [&](std::vector<double>& v, const std::string& prefix) {
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    // The median of an even count is the mean of its two middle values (review of 2026-12-06: the
    // upper one had been reported, the maximum of two rows).
    const size_t mid = v.size() / 2;
    res.set(prefix + "median_predicted_speedup_ratio", v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2);
    res.set(prefix + "max_predicted_speedup_ratio", v.back());
  };
  stats(ratios, "");
  stats(u_ratios, "unrestricted_");
  return res;
}

}  // namespace sextant::plan
