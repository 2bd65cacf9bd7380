#pragma once
// The search options of `sextant plan` and `sextant sweep` as given by a user (the CLI's flags, the
// Python module's keyword arguments), checked and turned into SearchOptions by one function, so
// that both front ends search the same way and refuse the same contradictions.
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"

namespace sextant {
class Catalog;
}

namespace sextant::plan {

struct SearchArgs {
  std::vector<std::string> fix;                // "tp=8" ... (parse_fix)
  std::vector<std::string> schedules;          // empty: SearchOptions' default list
  std::vector<std::string> recompute;          // none, selective, full; empty: all three
  std::vector<std::string> recompute_modules;  // parse_module_search; empty: the ladder
  std::vector<std::string> zero;               // "0".."3"; empty: all four
  int max_micro_batch = 0, max_vpp = 0, threads = 0;
  double headroom_gib = 0;
  std::optional<double> tie_fraction;  // unstated: the validated median error (the MoE rows' for an MoE model)
  bool no_tp_overlap = false, no_sp_off = false, vary_dp_overlap = false;
  bool any_framework_feature = false;  // lift the scenario framework's capability restriction
  size_t top = 20;
};

// How an option is named in messages: the CLI's flag ("--max-micro-batch") or the Python keyword
// ("max_micro_batch"). Errors are located at the CLI's flag either way (SourceLocation file
// "--max-micro-batch"); the Python module renames the location to its argument.
enum class OptionStyle { Cli, Python };
std::string option_name(OptionStyle style, const std::string& cli_flag);

// Checks every value (errors name the option and the valid choices) and every pair that leaves no
// plan (--fix zero=2 with --zero 0,1, ...). Contract: a value given twice is searched once.
SearchOptions search_options(const SearchArgs& a, OptionStyle style = OptionStyle::Cli);

// The scenario's framework (when it names one) restricts the search to the plan features that
// stack offers (catalog capabilities), unless a.any_framework_feature; a stack without flash
// attention is searched with attention scores materialised (stack_scenario). A DP overlap fixed
// on (--fix grad_reduce_overlap=true) that the stack lacks is an Error naming both.
void restrict_to_framework(Scenario& s, SearchOptions& opt, const Catalog& cat, const SearchArgs& a);

}  // namespace sextant::plan
