// sextant estimate SCENARIO [--set key=value ...]
#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "estimate/estimate.hpp"
#include "plan/plan.hpp"
#include "scenario/scenario.hpp"
#include "validate/training_validation.hpp"

namespace sextant::cli {

namespace {
struct EstimateArgs {
  std::string scenario, catalog_dir;
  std::vector<std::string> sets;
  OutputOptions out;
};
}  // namespace

void add_estimate_command(CLI::App& app) {
  auto a = std::make_shared<EstimateArgs>();
  auto* cmd = app.add_subcommand("estimate",
                                 "Closed-form model of one training step: time, breakdown, memory per GPU, MFU");
  cmd->add_option("scenario", a->scenario, "Scenario YAML (see docs/scenario.md); bundled examples under data/examples/")->required();
  one_value_per_use(cmd->add_option("--set", a->sets, "Override a scenario key, e.g. --set parallel.tp=4 (repeatable)"));
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  add_output_options(*cmd, a->out);
  cmd->callback([a] {
    auto cat = a->catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->catalog_dir);
    const Scenario s = load_scenario(a->scenario, *cat, parse_sets(a->sets));
    Result r = estimate(s);
    plan::add_framework_note(r, s, *cat);
    add_validated_range_for(r, s, *cat, a->catalog_dir, plan::kValidatedMedianAbsErrorFraction * 100);
    emit(r, a->out);
  });
}

}  // namespace sextant::cli
