#include "plan/search_args.hpp"

#include <algorithm>
#include <utility>

#include "catalog/catalog.hpp"
#include "core/error.hpp"

namespace sextant::plan {

std::string option_name(OptionStyle style, const std::string& cli_flag) {
  if (style == OptionStyle::Cli) return cli_flag;
  std::string name = cli_flag.compare(0, 2, "--") == 0 ? cli_flag.substr(2) : cli_flag;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

SearchOptions search_options(const SearchArgs& a, OptionStyle style) {
  auto nm = [style](const char* cli) { return option_name(style, cli); };
  SearchOptions o;
  o.python_names = style == OptionStyle::Python;
  for (const auto& f : a.fix) parse_fix(f, o);
  // A value given twice is searched once (--zero 1,1 had doubled every plan and reported the
  // winner tied with itself, before 2026-12-03).
  auto add_once = [](auto& list, const auto& v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  };
  if (!a.schedules.empty()) {
    o.schedules.clear();
    for (const auto& sc : a.schedules) add_once(o.schedules, sc);
  }
  if (!a.recompute.empty()) {
    o.recompute.clear();
    for (const auto& r : a.recompute) {
      if (r == "none") add_once(o.recompute, Recompute::None);
      else if (r == "selective") add_once(o.recompute, Recompute::Selective);
      else if (r == "full") add_once(o.recompute, Recompute::Full);
      else throw Error(SourceLocation{"--recompute", 0, 0, r}, "unknown recompute mode '" + r + "'", valid_choices_hint(r, {"none", "selective", "full"}));
    }
  }
  if (!a.recompute_modules.empty()) parse_module_search(a.recompute_modules, o);
  if (!a.zero.empty()) {
    o.zero_stages.clear();
    for (const auto& z : a.zero) {
      if (z != "0" && z != "1" && z != "2" && z != "3")
        throw Error(SourceLocation{"--zero", 0, 0, z}, "ZeRO stage must be 0, 1, 2 or 3, got '" + z + "'");
      add_once(o.zero_stages, z[0] - '0');
    }
  }
  if (a.max_micro_batch < 0) throw Error(SourceLocation{"--max-micro-batch", 0, 0, ""}, "must be positive (or 0: no limit)");
  if (a.max_vpp < 0) throw Error(SourceLocation{"--max-vpp", 0, 0, ""}, "must be positive (or 0: no limit)");
  if (a.headroom_gib < 0) throw Error(SourceLocation{"--headroom-gib", 0, 0, ""}, "must not be negative");
  // A relative margin: above 1 every plan ties (1e308 had read "tie fraction (inf%)" with all
  // 4,482 plans tied; 2026-12-05 review).
  if (a.tie_fraction && !(*a.tie_fraction >= 0 && *a.tie_fraction <= 1))
    throw Error(SourceLocation{"--tie-fraction", 0, 0, ""}, "must be a fraction from 0 to 1 (0.05: within 5% of the best)");
  o.max_micro_batch = a.max_micro_batch;
  o.max_vpp = a.max_vpp;
  o.min_headroom_bytes = a.headroom_gib * 1024.0 * 1024 * 1024;
  if (a.tie_fraction) {
    o.tie_fraction = *a.tie_fraction;
    o.tie_fraction_stated = true;
  }
  // A --fix that another option rules out leaves no plan: say which two, rather than the generic
  // "no valid plan" note that blames the parallel degrees.
  auto fixed = [&](const char* k) { auto it = o.fixed.find(k); return it == o.fixed.end() ? -1 : it->second; };
  if (a.no_tp_overlap && fixed("tp_overlap") == 1)
    throw Error(SourceLocation{"--fix", 0, 0, "tp_overlap"},
                nm("--fix") + " tp_overlap=" + fix_value_text("tp_overlap", 1) + " contradicts " + nm("--no-tp-overlap"), "give one of the two");
  if (a.no_sp_off && fixed("sp") == 0)
    throw Error(SourceLocation{"--fix", 0, 0, "sp"}, nm("--fix") + " sp=" + fix_value_text("sp", 0) + " contradicts " + nm("--sp-only"),
                "give one of the two");
  if (const int z = fixed("zero"); z >= 0 && std::find(o.zero_stages.begin(), o.zero_stages.end(), z) == o.zero_stages.end())
    throw Error(SourceLocation{"--fix", 0, 0, "zero"}, nm("--fix") + " zero=" + std::to_string(z) + " is not among the " + nm("--zero") + " stages searched",
                "add it to " + nm("--zero") + ", or drop one of the two");
  if (const int rc = fixed("recompute"); rc >= 0 &&
      std::find(o.recompute.begin(), o.recompute.end(), static_cast<Recompute>(rc)) == o.recompute.end())
    throw Error(SourceLocation{"--fix", 0, 0, "recompute"},
                nm("--fix") + " recompute=" + fix_value_text("recompute", rc) + " is not among the " + nm("--recompute") + " modes searched",
                "add it to " + nm("--recompute") + ", or drop one of the two");
  if (const int mb = fixed("mb"); mb > 0 && a.max_micro_batch > 0 && mb > a.max_micro_batch)
    throw Error(SourceLocation{"--fix", 0, 0, "mb"},
                nm("--fix") + " mb=" + std::to_string(mb) + " contradicts " + nm("--max-micro-batch") + " " + std::to_string(a.max_micro_batch), "give one of the two");
  if (const int v = fixed("vpp"); v > 0 && a.max_vpp > 0 && v > a.max_vpp)
    throw Error(SourceLocation{"--fix", 0, 0, "vpp"}, nm("--fix") + " vpp=" + std::to_string(v) + " contradicts " + nm("--max-vpp") + " " + std::to_string(a.max_vpp),
                "give one of the two");
  // vpp > 1 needs a schedule that holds several chunks per rank (interleaved-1f1b, or dualpipev's 2).
  if (const int v = fixed("vpp"); v > 1) {
    const bool inter = std::find(o.schedules.begin(), o.schedules.end(), "interleaved-1f1b") != o.schedules.end();
    const bool dual = v == 2 && std::find(o.schedules.begin(), o.schedules.end(), "dualpipev") != o.schedules.end();
    if (!inter && !dual)
      throw Error(SourceLocation{"--fix", 0, 0, "vpp"},
                  nm("--fix") + " vpp=" + std::to_string(v) + " needs interleaved-1f1b" + (v == 2 ? " or dualpipev" : "") + ", which " + nm("--schedules") +
                      " leaves out",
                  "add it to " + nm("--schedules") + ", or drop one of the two");
  }
  o.vary_tp_comm_overlap = !a.no_tp_overlap;
  o.vary_sequence_parallel = !a.no_sp_off;
  o.vary_overlap_dp = a.vary_dp_overlap;
  o.threads = a.threads;
  o.top = a.top;
  return o;
}

void restrict_to_framework(Scenario& s, SearchOptions& opt, const Catalog& cat, const SearchArgs& a) {
  if (s.framework.empty()) return;
  if (a.any_framework_feature) {
    // Every feature the search knows, as --practice's unrestricted view: flash attention and a
    // current attention kernel too where the stack's own defaults lacked them (the flag had kept a
    // 2021 stack's materialised scores and never searched CP: 29% slower, with "unrestricted" said;
    // 2026-12-04 review).
    const Framework& fw = cat.framework(s.framework);
    if (!framework_has_flash_attention(fw)) s.train.flash_attention = true;
    if (fw.attention_peak_fraction.known && s.train.attention_peak_fraction == fw.attention_peak_fraction.value)
      s.train.attention_peak_fraction = 0;
    return;
  }
  opt.stack = stack_features(cat.framework(s.framework));
  s = stack_scenario(s, opt.stack);
  // A DP overlap fixed on (a --fix key since 2026-12-06) that the stack lacks: named with the
  // framework, as the other contradictions are, rather than a search without a plan that has a
  // data-parallel group.
  const std::pair<const char*, std::pair<bool, const char*>> overlaps[] = {
      {"grad_reduce_overlap", {opt.stack.overlap_grad_reduce, "gradient-reduce overlap"}},
      {"param_gather_overlap", {opt.stack.overlap_param_gather, "parameter-gather overlap"}}};
  const OptionStyle style = opt.python_names ? OptionStyle::Python : OptionStyle::Cli;
  for (const auto& [key, offered] : overlaps)
    if (auto it = opt.fixed.find(key); it != opt.fixed.end() && it->second == 1 && !offered.first)
      throw Error(SourceLocation{"--fix", 0, 0, key},
                  option_name(style, "--fix") + " " + key + "=" + fix_value_text(key, 1) + " contradicts framework " + s.framework +
                      ", which does not offer " + offered.second + " (its catalog capabilities)",
                  "drop the fix, or give " + (style == OptionStyle::Python ? std::string("any_framework_feature=True") : std::string("--any-framework-feature")));
}

}  // namespace sextant::plan
