#include "plan/job.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "core/yaml_reader.hpp"
#include "estimate/estimate.hpp"
#include "ir/workload.hpp"

namespace sextant::plan {

namespace {
// A YAML double-quoted string of an option's value (a comma, brace or '#' in one was read as YAML
// before 2026-12-03); control characters become spaces.
std::string quoted(const std::string& v) {
  std::string q = "\"";
  for (char ch : v) {
    if (ch == '"' || ch == '\\') q += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      q += ' ';
      continue;
    }
    q += ch;
  }
  return q + "\"";
}

// The keys a plan search chooses and the option that holds each one ("": none, the stage layout
// follows the search's rule). The DP and TP overlap switches since 2026-12-06: a --set of one had
// been ignored without a word (review).
const std::pair<const char*, const char*> kSearchedKeys[] = {
    {"parallel.tp", "--fix tp=N"},
    {"parallel.pp", "--fix pp=N"},
    {"parallel.vpp", "--fix vpp=N"},
    {"parallel.dp", "--fix dp=N"},
    {"parallel.cp", "--fix cp=N"},
    {"parallel.ep", "--fix ep=N"},
    {"parallel.etp", "--fix etp=N"},
    {"training.micro_batch", "--fix mb=N"},
    {"parallel.zero_stage", "--fix zero=N"},
    {"parallel.sequence_parallel", "--fix sp=true|false"},
    {"training.recompute", "--fix recompute=none|selective|full"},
    {"parallel.overlap.grad_reduce", "--fix grad_reduce_overlap=true|false"},
    {"parallel.overlap.param_gather", "--fix param_gather_overlap=true|false"},
    {"parallel.overlap.tp_comm", "--fix tp_overlap=true|false"},
    {"parallel.schedule", "--schedules"},
    {"parallel.stage_layers", ""},
    {"parallel.stage_rule", ""}};

const char* searched_key_option(const std::string& key) {
  for (const auto& [k, option] : kSearchedKeys)
    if (key == k) return option;
  return nullptr;
}

// The searched key a --set KEY=VALUE gives: KEY itself, or one inside a mapping VALUE of a key
// above it (`parallel.overlap={grad_reduce: false}` had got past the check of dotted keys and
// been ignored, `parallel={tp: 4}` had met the placeholder plan; review of 2026-12-06); "" if none.
std::string searched_set_key(const std::string& key, const std::string& value, const std::string& file) {
  if (searched_key_option(key)) return key;
  bool above = false;
  for (const auto& entry : kSearchedKeys) above = above || std::string(entry.first).starts_with(key + ".");
  if (!above) return {};
  YAML::Node v;
  try {
    v = parse_yaml_document(value, file);
  } catch (const Error&) {
    return {};  // not YAML: the override's own parse names it
  }
  if (!v.IsMap()) return {};
  for (const auto& kv : v) {
    if (!kv.first.IsScalar()) continue;
    std::string inner;
    if (kv.second.IsScalar()) inner = kv.second.Scalar();
    else {
      YAML::Emitter e;
      e << YAML::Flow << kv.second;
      inner = e.c_str();
    }
    const std::string hit = searched_set_key(key + "." + kv.first.Scalar(), inner, file);
    if (!hit.empty()) return hit;
  }
  return {};
}

// An option of kSearchedKeys as `style` names it (Python: fix={'tp': ...}, schedules=[...]); on
// the command line with the value the --set gave, where one is given (--fix tp=2).
std::string option_text(const std::string& option, OptionStyle style, const std::string& value = {}) {
  const bool plain = !value.empty() && value.find_first_of(" ,{}[]'\"") == std::string::npos;
  if (style == OptionStyle::Cli && plain && option.compare(0, 6, "--fix ") == 0) return option.substr(0, option.find('=') + 1) + value;
  if (style == OptionStyle::Cli && plain && option == "--schedules") return option + " " + value;
  if (style == OptionStyle::Cli) return option;
  if (option.compare(0, 6, "--fix ") == 0) return "fix={'" + option.substr(6, option.find('=') - 6) + "': ...}";
  if (option == "--schedules") return "schedules=[...]";
  return option;
}
}  // namespace

void refuse_sweep_searched_sets(const Overrides& sets, OptionStyle style) {
  const std::string set_file = style == OptionStyle::Cli ? "--set" : "--overrides";
  for (const auto& [key, value] : sets) {
    const std::string hit = searched_set_key(key, value, set_file);
    if (hit.empty()) continue;
    const char* option = searched_key_option(hit);
    throw Error(SourceLocation{set_file, 0, 0, key},
                "sweep searches the plan at every point and keeps no plan of the scenario's own, so " + hit + " would be ignored",
                *option != '\0' ? "use " + option_text(option, style, hit == key ? value : std::string()) + " to hold it at every point"
                                 : std::string("leave it out: the search lays stages out by its rule"));
  }
}

bool states_plan_keys(const std::string& job_text, const std::string& job_name, const Overrides& sets) {
  YAML::Node root = parse_yaml_document(job_text, job_name);
  for (const auto& [k, v] : sets) apply_yaml_override(root, k, v, job_name);
  for (const auto& entry : kSearchedKeys) {
    const std::string path = entry.first;
    YAML::Node n;
    n.reset(root);  // (reset, not =: assigning a node writes into the node it refers to)
    bool found = true;
    for (size_t start = 0; found && start <= path.size();) {
      const size_t dot = std::min(path.find('.', start), path.size());
      const YAML::Node& at = n;  // read through a const node: a missing key is not created
      const YAML::Node next = at.IsMap() ? at[path.substr(start, dot - start)] : YAML::Node();
      found = next.IsDefined() && !next.IsNull();
      if (found) n.reset(next);
      start = dot + 1;
    }
    if (found) return true;
  }
  return false;
}

std::string job_scenario_text(const JobSpec& j) {
  return "name: plan\nmodel: " + quoted(j.model) + "\nsystem: " + quoted(j.system) +
         "\nnum_gpus: 1\nparallel: {tp: 1, pp: 1, dp: 1, zero_stage: 1}\n" + "training: {global_batch: " + std::to_string(j.global_batch) +
         ", seq_len: " + std::to_string(j.seq_len) + ", precision: " + quoted(j.precision) + "}\n";
}

Scenario job_scenario(const JobSpec& j, const Catalog& cat, const Overrides& sets, OptionStyle style) {
  auto nm = [style](const char* cli) { return option_name(style, cli); };
  const std::string scenario_word = style == OptionStyle::Cli ? "scenario file" : "scenario";
  auto need = [&](bool ok, const char* key) {
    if (!ok)
      throw Error(SourceLocation{"command line", 0, 0, key}, "missing " + nm(key),
                  "give a " + scenario_word + " or all of " + nm("--model") + " " + nm("--system") + " " + nm("--num-gpus") + " " +
                      nm("--global-batch") + " " + nm("--seq-len"));
  };
  need(!j.model.empty(), "--model");
  need(!j.system.empty(), "--system");
  // A count given but not positive is its own error (it read "missing --num-gpus" before
  // 2026-12-03); unset counts hold kUnsetJobCount.
  auto positive = [&](int64_t v, const char* key) {
    if (v == kUnsetJobCount) need(false, key);
    if (v <= 0) throw Error(SourceLocation{"command line", 0, 0, key}, "must be a positive integer", "got " + std::to_string(v));
  };
  positive(j.num_gpus, "--num-gpus");
  positive(j.global_batch, "--global-batch");
  positive(j.seq_len, "--seq-len");
  if (j.num_gpus > (int64_t{1} << 30))
    throw Error(SourceLocation{"command line", 0, 0, "--num-gpus"}, "must be at most 2^30", "got " + std::to_string(j.num_gpus));
  // Without a scenario there is no plan of the job's own: a --set of a key the options give, or of
  // a dimension the search chooses, is refused by name (before 2026-12-05 it was applied to the
  // one-GPU placeholder: "--set parallel.tp=2" read "tp*pp*dp*cp = 2 but num_gpus = 1" at line 5
  // of text the user never wrote, and --set training.global_batch=128 beat --global-batch 64).
  const std::string set_file = style == OptionStyle::Cli ? "--set" : "--overrides";
  for (const auto& [key, value] : sets) {
    static const std::pair<const char*, const char*> given[] = {{"model", "--model"},
                                                                {"system", "--system"},
                                                                {"num_gpus", "--num-gpus"},
                                                                {"training.global_batch", "--global-batch"},
                                                                {"training.seq_len", "--seq-len"},
                                                                {"training.precision", "--precision"}};
    for (const auto& [k, option] : given)
      if (key == k)
        throw Error(SourceLocation{set_file, 0, 0, key}, "given by " + nm(option) + " in a job without a " + scenario_word,
                    "change " + nm(option) + " instead");
    const std::string hit = searched_set_key(key, value, set_file);
    if (const char* option = hit.empty() ? nullptr : searched_key_option(hit))
      throw Error(SourceLocation{set_file, 0, 0, key}, "the plan search chooses " + hit + " in a job without a " + scenario_word,
                  "use " + (*option != '\0' ? option_text(option, style) : "a " + scenario_word + " (the search lays stages out by its rule)"));
  }
  // Parsed over one GPU with a placeholder plan (the search ignores it), then given the GPU
  // count. An error about an option's value names the option, not the generated text.
  Scenario s = [&] {
    try {
      return parse_scenario(job_scenario_text(j), "command line", cat, sets);
    } catch (const Error& e) {
      const std::string& key = e.where().key;
      const char* option = key == "model" || key.starts_with("model.")     ? "--model"
                           : key == "system" || key.starts_with("system.") ? "--system"
                           : key == "training.precision"                   ? "--precision"
                           : key == "training.seq_len"                     ? "--seq-len"
                           : key == "training.global_batch"                ? "--global-batch"
                                                                           : nullptr;
      if (option == nullptr || e.where().file != "command line") throw;
      throw Error(SourceLocation{"command line", 0, 0, option}, e.message(), e.hint());
    }
  }();
  s.num_gpus = static_cast<int>(j.num_gpus);
  s.plan.dp = static_cast<int>(j.num_gpus);
  return s;
}

uint32_t ranked_index(const SearchOutcome& out, int64_t rank, const std::string& option) {
  if (rank < 1 || static_cast<uint64_t>(rank) > out.ranking.size())
    throw Error(SourceLocation{option, 0, 0, ""},
                "rank " + std::to_string(rank) + " is not a fitting plan of this search",
                out.ranking.empty() ? std::string("no plan fits in memory") : "valid: 1 to " + std::to_string(out.ranking.size()));
  return out.ranking[static_cast<size_t>(rank - 1)];
}

namespace {
// Node at a dotted path, creating mappings on the way (the job's document is a mapping).
YAML::Node child_map(YAML::Node parent, const char* key) {
  YAML::Node n = parent[key];
  if (!n.IsDefined() || n.IsNull()) {
    parent[key] = YAML::Node(YAML::NodeType::Map);
    n = parent[key];
  }
  return n;
}

// A collection written on one line (a JSON document, as Python's dict arrives) that holds other
// collections is written as a block, recursively; one of scalars keeps its style.
void block_style(YAML::Node n) {
  if (!n.IsMap() && !n.IsSequence()) return;
  bool nested = false;
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it)
      if (it->second.IsMap() || it->second.IsSequence()) {
        nested = true;
        block_style(it->second);
      }
  } else {
    for (auto it = n.begin(); it != n.end(); ++it)
      if (it->IsMap() || it->IsSequence()) {
        nested = true;
        block_style(*it);
      }
  }
  if (nested) n.SetStyle(YAML::EmitterStyle::Block);
}

// A copy of the document in which no two places share a node: an anchor's aliases had been
// changed with the key the plan replaced (`tp: &one 1, pp: *one` wrote pp 2 with tp 2; review of
// 2026-12-05).
YAML::Node unshared(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      YAML::Node c(YAML::NodeType::Map);
      for (auto it = n.begin(); it != n.end(); ++it) c[unshared(it->first)] = unshared(it->second);
      c.SetStyle(n.Style());
      return c;
    }
    case YAML::NodeType::Sequence: {
      YAML::Node c(YAML::NodeType::Sequence);
      for (const auto& x : n) c.push_back(unshared(x));
      c.SetStyle(n.Style());
      return c;
    }
    case YAML::NodeType::Scalar: {
      YAML::Node c(n.Scalar());
      c.SetTag(n.Tag());
      return c;
    }
    default:
      return YAML::Node(n.Type());
  }
}

// A file the job names by a relative path (model: models/x.config.json, accelerator: mine.yaml#id)
// is found beside the job's file, then in the working directory, as the loaders look: it is written
// as an absolute path, so that the written scenario reads it from wherever it is written (it had
// kept the relative path, which the written file could not resolve; review of 2026-12-05).
void absolute_file_ref(YAML::Node root, const char* key, const std::string& job_name) {
  YAML::Node v = root[key];
  if (!v.IsDefined() || !v.IsScalar()) return;
  const std::string ref = v.Scalar();
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool has_job = fs::is_regular_file(job_name, ec);
  auto located = [&](const std::string& file) -> std::optional<fs::path> {
    if (file.empty()) return std::nullopt;
    const fs::path f = file;
    // As the loaders look: beside the job if it exists there (a Hugging Face snapshot folder
    // with its config.json too), else from the working directory.
    if (f.is_relative() && has_job) {
      const fs::path beside = fs::path(job_name).parent_path() / f;
      if (fs::exists(beside, ec)) return fs::absolute(beside, ec).lexically_normal();
    }
    if (fs::exists(f, ec)) return fs::absolute(f, ec).lexically_normal();
    return std::nullopt;
  };
  if (fs::path(ref).is_absolute()) return;
  if (auto whole = located(ref)) {
    root[key] = whole->string();
    return;
  }
  const size_t hash = ref.rfind('#');
  if (hash == std::string::npos || hash == 0) return;
  if (auto file = located(ref.substr(0, hash))) root[key] = file->string() + ref.substr(hash);
}

// A header line as a YAML comment: control characters (a newline in a file's name) as spaces.
std::string comment_line(const std::string& line) {
  std::string out = line;
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  return out;
}

// Relative difference of two step times (the search may share a lowering between plans that
// lower alike: the sums then differ in their last bits).
bool same_time(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1e-12, std::abs(a), std::abs(b)}); }
}  // namespace

std::string plan_scenario_text(const std::string& job_text, const std::string& job_name, const Overrides& sets,
                               const Scenario& searched, const SearchOptions& opt, const SearchOutcome& out, uint32_t index,
                               const Catalog& cat, const Estimator& est, const std::vector<std::string>& header) {
  const Candidate& c = out.candidates.at(index);
  const PlanEval& e = out.evals.at(index);
  Scenario s = searched;
  apply_candidate(s, c, opt);
  const auto& p = s.plan;
  const auto& t = s.train;

  YAML::Node root = parse_yaml_document(job_text, job_name);
  for (const auto& [k, v] : sets) apply_yaml_override(root, k, v, job_name);
  root = unshared(root);
  // A catalog id stays as written; a file is named by its absolute path.
  if (root["model"].IsDefined() && root["model"].IsScalar() && !cat.has_model(root["model"].Scalar()))
    absolute_file_ref(root, "model", job_name);
  if (root["accelerator"].IsDefined() && root["accelerator"].IsScalar() && !cat.has_accelerator(root["accelerator"].Scalar()))
    absolute_file_ref(root, "accelerator", job_name);
  root["num_gpus"] = s.num_gpus;
  YAML::Node par = child_map(root, "parallel");
  par["tp"] = p.tp;
  par["pp"] = p.pp;
  par["vpp"] = p.vpp;
  par["dp"] = p.dp;
  par["cp"] = p.cp;
  if (s.model.moe) {
    par["ep"] = p.ep;
    par["etp"] = p.etp;
  } else {
    if (par["ep"]) par.remove("ep");
    if (par["etp"]) par.remove("etp");
  }
  par["sequence_parallel"] = p.sequence_parallel;
  par["zero_stage"] = p.zero_stage;
  par["schedule"] = p.schedule;
  if (!p.stage_layers.empty()) {
    if (par["stage_rule"]) par.remove("stage_rule");  // stage sizes stated: no rule beside them
    YAML::Node layers(YAML::NodeType::Sequence);
    for (int n : p.stage_layers) layers.push_back(n);
    layers.SetStyle(YAML::EmitterStyle::Flow);
    par["stage_layers"] = layers;
  } else {
    par["stage_rule"] = p.stage_rule;
    if (par["stage_layers"]) par.remove("stage_layers");
  }
  YAML::Node ov = child_map(par, "overlap");
  ov["grad_reduce"] = p.overlap_grad_reduce;
  ov["param_gather"] = p.overlap_param_gather;
  ov["tp_comm"] = p.tp_comm_overlap;

  YAML::Node tr = child_map(root, "training");
  tr["micro_batch"] = t.micro_batch;
  tr["recompute"] = to_string(t.recompute);
  if (t.recompute == Recompute::Selective) {
    YAML::Node mods(YAML::NodeType::Sequence);
    const auto& names = recompute_module_names();
    for (size_t i = 0; i < names.size(); ++i)
      if (t.recompute_modules & (1u << i)) mods.push_back(names[i]);
    mods.SetStyle(YAML::EmitterStyle::Flow);
    tr["recompute_modules"] = mods;
  } else if (tr["recompute_modules"]) {
    tr.remove("recompute_modules");
  }
  if (t.recompute == Recompute::Full) {
    tr["recompute_method"] = t.recompute_block ? "block" : "uniform";
    tr["recompute_num_layers"] = t.recompute_num_layers;
  } else {
    if (tr["recompute_method"]) tr.remove("recompute_method");
    if (tr["recompute_num_layers"]) tr.remove("recompute_num_layers");
  }

  block_style(root);
  std::vector<std::string> lines = header;
  auto emit = [&] {
    YAML::Emitter em;
    em << root;
    std::string text;
    for (const auto& line : lines) text += line.empty() ? "#\n" : "# " + comment_line(line) + "\n";
    return text + em.c_str() + "\n";
  };
  // The search may have run the job's stack with its attention changed (restrict_to_framework:
  // flash attention and the kernel's cap of a current stack under --any-framework-feature): said
  // in the text where a parse of it reads otherwise.
  std::string text = emit();
  {
    // Read as a search reads a job: the plan's own rules (context parallelism needs flash
    // attention) are not checked before the attention is written (a cp plan of a 2021 stack under
    // --any-framework-feature had failed here; review of 2026-12-05).
    const Scenario back = parse_scenario_for_search(text, "the written scenario", cat);
    bool changed = false;
    if (back.train.flash_attention != t.flash_attention) {
      tr["flash_attention"] = t.flash_attention;
      changed = true;
    }
    if (back.train.attention_peak_fraction != t.attention_peak_fraction) {
      if (t.attention_peak_fraction > 0) {
        tr["attention_peak_fraction"] = t.attention_peak_fraction;
      } else {
        // No cap (the search lifted the framework's): 0 is not a value a scenario may give, and
        // leaving the key out gives the framework's cap back. A cap at the whole peak bounds
        // nothing, as the accelerator's attention rate lies below its peak (review, 2026-12-07:
        // an llm-foundry job under --any-framework-feature wrote 0, which estimate refused).
        tr["attention_peak_fraction"] = 1.0;
        lines.push_back("training.attention_peak_fraction: 1 lifts the framework's attention cap, as the search ran the plan "
                        "(--any-framework-feature): attention at the accelerator's own rate");
      }
      changed = true;
    }
    if (changed) text = emit();
  }
  // The contract: the text runs the plan the search costed, at the step time it gave.
  const Scenario back = parse_scenario(text, "the written scenario", cat);
  const Candidate again = candidate_of(back, opt);
  const double step_s = est.run(ir::lower(back)).step_time_s;
  if (!same_plan(again, c, s.model.moe.has_value()) || !same_time(step_s, e.step_time_s))
    throw Error("internal error: the scenario written for plan '" + describe(c, opt, searched) + "' reads back as '" +
                describe_own(again, opt, searched) + "' at " + std::to_string(step_s) + " s per step, not " +
                std::to_string(e.step_time_s) + " s; please report it with the command line");
  return text;
}

}  // namespace sextant::plan
